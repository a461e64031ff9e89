//! `convert-graph-to-te` keeps what every graph op computes: each test runs small graph
//! functions of one operator family in the graph interpreter (the ONNX kernels), lowers
//! them to `te.compute`, runs the te level on the same random inputs and compares.

use tb_interpreter::check::{Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

/// f32 bodies against kernels that compute in f64: a few ulps per op.
const TOLERANCE: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 1e-5,
};

/// Lowers `src` and checks every function against the graph interpreter; returns the
/// lowered IR, which must have no graph op left.
fn check_lowering(src: &str) -> String {
    let report = check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let pipeline = Pipeline::parse("builtin.module(convert-graph-to-te)").unwrap();
            let mut pm = PassManager::new(&pipeline, &registry).unwrap();
            let instrumentation = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instrumentation)
        },
        TOLERANCE,
        3,
    )
    .unwrap_or_else(|e| panic!("convert-graph-to-te changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "functions left out: {:?}",
        report.skipped
    );
    assert!(!report.text.contains("graph."), "{}", report.text);
    report.text
}

#[test]
fn activations_and_unary_math() {
    check_lowering(
        r#"
func.func @activations(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = graph.relu %x : tensor<2x5xf32>
  %1 = graph.leaky_relu %x {alpha = 0.2 : f32} : tensor<2x5xf32>
  %2 = graph.sigmoid %x : tensor<2x5xf32>
  %3 = graph.tanh %x : tensor<2x5xf32>
  %4 = graph.gelu %x : tensor<2x5xf32>
  %5 = graph.gelu %x {approximate = "tanh"} : tensor<2x5xf32>
  %6 = graph.elu %x : tensor<2x5xf32>
  %7 = graph.selu %x : tensor<2x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}
func.func @more_activations(%x: tensor<7xf32>) -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
  %0 = graph.celu %x {alpha = 0.5 : f32} : tensor<7xf32>
  %1 = graph.hard_sigmoid %x : tensor<7xf32>
  %2 = graph.hard_swish %x : tensor<7xf32>
  %3 = graph.softplus %x : tensor<7xf32>
  %4 = graph.softsign %x : tensor<7xf32>
  %5 = graph.mish %x : tensor<7xf32>
  %6 = graph.thresholded_relu %x {alpha = 0.1 : f32} : tensor<7xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
}
func.func @math(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = graph.erf %x : tensor<6xf32>
  %1 = graph.exp %x : tensor<6xf32>
  %2 = graph.log %x : tensor<6xf32>
  %3 = graph.sqrt %x : tensor<6xf32>
  %4 = graph.reciprocal %x : tensor<6xf32>
  %5 = graph.neg %x : tensor<6xf32>
  %6 = graph.abs %x : tensor<6xf32>
  %7 = graph.sign %x : tensor<6xf32>
  %8 = graph.round %x : tensor<6xf32>
  %9 = graph.floor %x : tensor<6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
func.func @trigonometry(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = graph.sin %x : tensor<6xf32>
  %1 = graph.cos %x : tensor<6xf32>
  %2 = graph.atan %x : tensor<6xf32>
  %3 = graph.asin %x : tensor<6xf32>
  %4 = graph.sinh %x : tensor<6xf32>
  %5 = graph.ceil %x : tensor<6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
func.func @integers(%x: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
  %0 = graph.relu %x : tensor<6xi32>
  %1 = graph.neg %x : tensor<6xi32>
  %2 = graph.abs %x : tensor<6xi32>
  %3 = graph.sign %x : tensor<6xi32>
  return %0, %1, %2, %3 : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
}
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = graph.sigmoid %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}
"#,
    );
}

#[test]
fn binary_arithmetic_with_broadcasting() {
    check_lowering(
        r#"
func.func @floats(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.sub %c, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = graph.mul %a, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %3 = graph.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = graph.pow %a, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %5 = graph.mod %a, %b {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @integers(%a: tensor<4x3xi32>, %b: tensor<3xi32>) -> (tensor<4x3xi32>, tensor<4x3xi32>, tensor<4x3xi32>) {
  %0 = graph.add %a, %b : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %1 = graph.mul %a, %b : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %2 = graph.sub %a, %b : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  return %0, %1, %2 : tensor<4x3xi32>, tensor<4x3xi32>, tensor<4x3xi32>
}
func.func @python_mod(%a: tensor<8xi64>) -> (tensor<8xi64>, tensor<8xi64>) {
  %d = graph.constant dense<[3, -3, 5, -5, 2, -2, 7, -7]> : tensor<8xi64>
  %0 = graph.mod %a, %d : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  %1 = graph.div %a, %d : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  return %0, %1 : tensor<8xi64>, tensor<8xi64>
}
func.func @integer_power(%a: tensor<5xi32>) -> tensor<5xi32> {
  %e = graph.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
  %0 = graph.pow %a, %e : (tensor<5xi32>, tensor<5xi64>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}
func.func @prelu(%x: tensor<2x3xf32>, %slope: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.prelu %x, %slope : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @variadic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = graph.max %a, %b, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = graph.min %a, %b, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %2 = graph.sum %a, %b, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %3 = graph.mean %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"#,
    );
}

#[test]
fn comparisons_logic_where_clip_cast() {
    check_lowering(
        r#"
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = graph.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = graph.less_or_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = graph.greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = graph.greater_or_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0, %1, %2, %3, %4 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}
func.func @logic(%p: tensor<4xi1>, %q: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<1xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = graph.and %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = graph.or %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = graph.xor %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = graph.not %p : tensor<4xi1>
  %4 = graph.where %p, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}
func.func @clip(%x: tensor<6xf32>, %i: tensor<6xi64>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xi64>) {
  %0 = graph.clip %x {max = 6.000000e-01 : f32, min = -2.000000e-01 : f32} : tensor<6xf32>
  %1 = graph.clip %x {min = 0.000000e+00 : f32} : tensor<6xf32>
  %2 = graph.clip %i {max = 3 : i64, min = -1 : i64} : tensor<6xi64>
  return %0, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6xi64>
}
func.func @cast(%x: tensor<6xf32>, %i: tensor<6xi32>, %p: tensor<6xi1>) -> (tensor<6xi32>, tensor<6xf16>, tensor<6xi1>, tensor<6xf32>, tensor<6xi64>, tensor<6xf64>) {
  %0 = graph.cast %x {to = i32} : (tensor<6xf32>) -> tensor<6xi32>
  %1 = graph.cast %x {to = f16} : (tensor<6xf32>) -> tensor<6xf16>
  %2 = graph.cast %i {to = i1} : (tensor<6xi32>) -> tensor<6xi1>
  %3 = graph.cast %p {to = f32} : (tensor<6xi1>) -> tensor<6xf32>
  %4 = graph.cast %i {to = i64} : (tensor<6xi32>) -> tensor<6xi64>
  %5 = graph.cast %i {to = f64} : (tensor<6xi32>) -> tensor<6xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<6xi32>, tensor<6xf16>, tensor<6xi1>, tensor<6xf32>, tensor<6xi64>, tensor<6xf64>
}
func.func @predicates(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %0 = graph.div %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.is_nan %0 : (tensor<4xf32>) -> tensor<4xi1>
  %2 = graph.is_inf %x {detect_negative = false} : (tensor<4xf32>) -> tensor<4xi1>
  %3 = graph.identity %x : tensor<4xf32>
  return %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}
"#,
    );
}

#[test]
fn matmul_and_gemm() {
    check_lowering(
        r#"
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = graph.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
func.func @batched_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32>
  return %0 : tensor<2x5x3x2xf32>
}
func.func @vectors(%a: tensor<4xf32>, %b: tensor<2x4x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>) {
  %0 = graph.matmul %a, %b : (tensor<4xf32>, tensor<2x4x3xf32>) -> tensor<2x3xf32>
  %1 = graph.matmul %b, %v : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x4xf32>
}
func.func @integer_matmul(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = graph.gemm %a, %b, %c {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %1 = graph.gemm %a, %b {trans_a = true, trans_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %0, %1 : tensor<3x5xf32>, tensor<3x5xf32>
}
func.func @half(%a: tensor<2x8xf16>, %b: tensor<8x3xf16>) -> tensor<2x3xf16> {
  %0 = graph.matmul %a, %b : (tensor<2x8xf16>, tensor<8x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
"#,
    );
}

#[test]
fn convolutions() {
    check_lowering(
        r#"
func.func @conv_bias_pads_strides(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}
func.func @conv_groups_dilation(%x: tensor<2x4x6x6xf32>, %w: tensor<6x2x2x2xf32>) -> tensor<2x6x4x4xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 2, 2>, group = 2 : i64} : (tensor<2x4x6x6xf32>, tensor<6x2x2x2xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}
func.func @depthwise_same(%x: tensor<1x3x5x5xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = graph.conv %x, %w {auto_pad = "SAME_UPPER", group = 3 : i64} : (tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}
func.func @conv1d(%x: tensor<1x2x9xf32>, %w: tensor<3x2x4xf32>) -> tensor<1x3x3xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 2>} : (tensor<1x2x9xf32>, tensor<3x2x4xf32>) -> tensor<1x3x3xf32>
  return %0 : tensor<1x3x3xf32>
}
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = graph.conv_transpose %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}
func.func @conv_transpose_groups(%x: tensor<1x4x3xf32>, %w: tensor<4x1x2xf32>) -> tensor<1x2x7xf32> {
  %0 = graph.conv_transpose %x, %w {dilations = array<i64: 2>, group = 2 : i64, strides = array<i64: 2>} : (tensor<1x4x3xf32>, tensor<4x1x2xf32>) -> tensor<1x2x7xf32>
  return %0 : tensor<1x2x7xf32>
}
func.func @conv_transpose_phases_groups_uneven(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x4x4xf32>, %b: tensor<6xf32>) -> tensor<1x6x7x7xf32> {
  %0 = graph.conv_transpose %x, %w, %b {group = 2 : i64, pads = array<i64: 1, 0, 2, 1>, strides = array<i64: 3, 2>} : (tensor<1x4x3x3xf32>, tensor<4x3x4x4xf32>, tensor<6xf32>) -> tensor<1x6x7x7xf32>
  return %0 : tensor<1x6x7x7xf32>
}
func.func @conv_transpose_phases_output_padding(%x: tensor<2x8x5x5xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x2x10x10xf32> {
  %0 = graph.conv_transpose %x, %w {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x5x5xf32>, tensor<8x2x3x3xf32>) -> tensor<2x2x10x10xf32>
  return %0 : tensor<2x2x10x10xf32>
}
func.func @conv_transpose_phases_kernel_below_stride(%x: tensor<1x2x4xf32>, %w: tensor<2x3x2xf32>) -> tensor<1x3x11xf32> {
  %0 = graph.conv_transpose %x, %w {strides = array<i64: 3>} : (tensor<1x2x4xf32>, tensor<2x3x2xf32>) -> tensor<1x3x11xf32>
  return %0 : tensor<1x3x11xf32>
}
"#,
    );
}

#[test]
fn pooling() {
    check_lowering(
        r#"
func.func @max_pool(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}
func.func @max_pool_indices(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>, tensor<1x2x3x3xi64>) {
  %0:2 = graph.max_pool %x {ceil_mode = true, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %1:2 = graph.max_pool %x {ceil_mode = true, kernel_shape = array<i64: 2, 2>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  return %0#0, %0#1, %1#1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>, tensor<1x2x3x3xi64>
}
func.func @average_pool(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %1 = graph.average_pool %x {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %2 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1, %2 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
func.func @average_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = graph.average_pool %x {ceil_mode = true, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}
func.func @global(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x1x1xf32>) {
  %0 = graph.global_average_pool %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %1 = graph.global_max_pool %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0, %1 : tensor<2x3x1x1xf32>, tensor<2x3x1x1xf32>
}
"#,
    );
}

#[test]
fn reductions() {
    check_lowering(
        r#"
func.func @keepdims(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>) {
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %1 = graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %2 = graph.reduce_max %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %3 = graph.reduce_min %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %4 = graph.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>
}
func.func @dropped_dims(%x: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = graph.reduce_l1 %x {axes = array<i64: 0, -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = graph.reduce_l2 %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %2 = graph.reduce_sum_square %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %3 = graph.reduce_log_sum_exp %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %a = graph.abs %x : tensor<2x3x4xf32>
  %4 = graph.reduce_log_sum %a {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @all_axes(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<1x1xf32>, tensor<i32>, tensor<2x3xf32>) {
  %0 = graph.reduce_mean %x : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %1 = graph.reduce_sum %i {keepdims = false} : (tensor<2x3xi32>) -> tensor<i32>
  %2 = graph.reduce_sum %x {noop_with_empty_axes = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<1x1xf32>, tensor<i32>, tensor<2x3xf32>
}
func.func @arg(%x: tensor<3x4xf32>, %i: tensor<3x4xi32>) -> (tensor<1x4xi64>, tensor<3xi64>, tensor<1x4xi64>) {
  %0 = graph.arg_max %x : (tensor<3x4xf32>) -> tensor<1x4xi64>
  %1 = graph.arg_min %x {axis = 1 : i64, keepdims = false} : (tensor<3x4xf32>) -> tensor<3xi64>
  %2 = graph.arg_max %i {select_last_index = true} : (tensor<3x4xi32>) -> tensor<1x4xi64>
  return %0, %1, %2 : tensor<1x4xi64>, tensor<3xi64>, tensor<1x4xi64>
}
"#,
    );
}

#[test]
fn normalizations_and_softmax() {
    check_lowering(
        r#"
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %va = graph.abs %v : tensor<3xf32>
  %0 = graph.batch_normalization %x, %s, %b, %m, %va : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
func.func @instance_norm(%x: tensor<2x3x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %0 = graph.instance_normalization %x, %s, %b : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
func.func @layer_norm(%x: tensor<2x3x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>) {
  %0:3 = graph.layer_normalization %x, %s, %b : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x8xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>
}
func.func @layer_norm_two_axes(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.layer_normalization %x, %s {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
func.func @softmax(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = graph.softmax %x : tensor<2x3x4xf32>
  %1 = graph.log_softmax %x {axis = 1 : i64} : tensor<2x3x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
"#,
    );
}

#[test]
fn data_movement() {
    check_lowering(
        r#"
func.func @reshapes(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x6xf32>, tensor<2x12xf32>, tensor<1x2x3x4xf32>, tensor<24xf32>) {
  %0 = graph.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = graph.reshape %x {shape = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %2 = graph.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %3 = graph.unsqueeze %x {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %4 = graph.reshape %x {shape = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return %0, %1, %2, %3, %4 : tensor<6x4xf32>, tensor<4x6xf32>, tensor<2x12xf32>, tensor<1x2x3x4xf32>, tensor<24xf32>
}
func.func @squeeze_transpose(%x: tensor<2x1x3xf32>) -> (tensor<2x3xf32>, tensor<3x1x2xf32>) {
  %0 = graph.squeeze %x {axes = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  %1 = graph.transpose %x {perm = array<i64: 2, 1, 0>} : (tensor<2x1x3xf32>) -> tensor<3x1x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<3x1x2xf32>
}
func.func @concat_split_slice(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> (tensor<2x6xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<1x3xf32>) {
  %0 = graph.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  %1:2 = graph.split %0 {axis = 1 : i64, split = array<i64: 2, 4>} : (tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  %2 = graph.slice %0 {axes = array<i64: 0, 1>, ends = array<i64: 2, -7>, starts = array<i64: 1, -1>, steps = array<i64: 1, -2>} : (tensor<2x6xf32>) -> tensor<1x3xf32>
  return %0, %1#0, %1#1, %2 : tensor<2x6xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<1x3xf32>
}
func.func @expand_tile(%x: tensor<3x1xf32>) -> (tensor<2x3x4xf32>, tensor<6x2xf32>) {
  %0 = graph.expand %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = graph.tile %x {repeats = array<i64: 2, 2>} : (tensor<3x1xf32>) -> tensor<6x2xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<6x2xf32>
}
func.func @gathers(%x: tensor<5x3xf32>) -> (tensor<2x2x3xf32>, tensor<5x2xf32>, tensor<2x3xf32>) {
  %i = graph.constant dense<[[0, -1], [4, 2]]> : tensor<2x2xi64>
  %j = graph.constant dense<[2, 0]> : tensor<2xi32>
  %k = graph.constant dense<[[1, 0, 4], [-1, 3, 2]]> : tensor<2x3xi64>
  %0 = graph.gather %x, %i : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
  %1 = graph.gather %x, %j {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<5x2xf32>
  %2 = graph.gather_elements %x, %k : (tensor<5x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x2x3xf32>, tensor<5x2xf32>, tensor<2x3xf32>
}
func.func @pads(%x: tensor<3x4xf32>) -> (tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<2x4xf32>) {
  %0 = graph.pad %x {constant_value = 1.500000e+00 : f32, pads = array<i64: 1, 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x7xf32>
  %1 = graph.pad %x {mode = "reflect", pads = array<i64: 1, 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x7xf32>
  %2 = graph.pad %x {mode = "edge", pads = array<i64: 1, 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x7xf32>
  %3 = graph.pad %x {mode = "wrap", pads = array<i64: 1, 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x7xf32>
  %4 = graph.pad %x {axes = array<i64: 0>, pads = array<i64: -1, 0>} : (tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4 : tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<2x4xf32>
}
func.func @space_depth(%x: tensor<1x8x2x3xf32>) -> (tensor<1x2x4x6xf32>, tensor<1x2x4x6xf32>, tensor<1x32x1x1xf32>) {
  %0 = graph.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %1 = graph.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %y = graph.slice %x {axes = array<i64: 3>, ends = array<i64: 2>, starts = array<i64: 0>} : (tensor<1x8x2x3xf32>) -> tensor<1x8x2x2xf32>
  %2 = graph.space_to_depth %y {blocksize = 2 : i64} : (tensor<1x8x2x2xf32>) -> tensor<1x32x1x1xf32>
  return %0, %1, %2 : tensor<1x2x4x6xf32>, tensor<1x2x4x6xf32>, tensor<1x32x1x1xf32>
}
"#,
    );
}

#[test]
fn generators_and_constants() {
    let text = check_lowering(
        r#"
func.func @generators(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x2xi64>, tensor<4xf32>, tensor<2xi64>, tensor<i64>, tensor<3xf32>) {
  %c = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = graph.add %x, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.constant_of_shape {shape = array<i64: 2, 2>, value = 7 : i64} : tensor<2x2xi64>
  %2 = graph.range {delta = 5.000000e-01 : f32, limit = 2.000000e+00 : f32, start = 0.000000e+00 : f32} : tensor<4xf32>
  %3 = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xi64>
  %4 = graph.size %x : (tensor<2x3xf32>) -> tensor<i64>
  %5 = graph.constant_of_shape {shape = array<i64: 3>} : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x2xi64>, tensor<4xf32>, tensor<2xi64>, tensor<i64>, tensor<3xf32>
}
"#,
    );
    assert!(text.contains("arith.constant dense<"), "{text}");
}

/// Unsigned tensors compute as signless integers with the unsigned arith ops. Random
/// unsigned inputs are small, so each function first wraps some below zero (`a - b`):
/// those values have the high bit set, where signed and unsigned ops differ.
#[test]
fn unsigned_integers() {
    let text = check_lowering(
        r#"
func.func @arithmetic(%a: tensor<6xui8>, %b: tensor<6xui8>) -> (tensor<6xui8>, tensor<6xui8>, tensor<6xui8>, tensor<6xui8>, tensor<6xui8>, tensor<6xui8>) {
  %w = graph.sub %a, %b : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %d = graph.constant dense<[3, 200, 7, 255, 1, 130]> : tensor<6xui8>
  %0 = graph.div %w, %d : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %1 = graph.mod %w, %d : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %2 = graph.max %w, %a, %d : (tensor<6xui8>, tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %3 = graph.min %w, %d : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %4 = graph.mul %w, %d : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %5 = graph.abs %w : tensor<6xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<6xui8>, tensor<6xui8>, tensor<6xui8>, tensor<6xui8>, tensor<6xui8>, tensor<6xui8>
}
func.func @compare(%a: tensor<6xui16>, %b: tensor<6xui16>) -> (tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xui16>) {
  %w = graph.sub %a, %b : (tensor<6xui16>, tensor<6xui16>) -> tensor<6xui16>
  %0 = graph.equal %w, %b : (tensor<6xui16>, tensor<6xui16>) -> tensor<6xi1>
  %1 = graph.less %w, %b : (tensor<6xui16>, tensor<6xui16>) -> tensor<6xi1>
  %2 = graph.less_or_equal %w, %b : (tensor<6xui16>, tensor<6xui16>) -> tensor<6xi1>
  %3 = graph.greater %w, %b : (tensor<6xui16>, tensor<6xui16>) -> tensor<6xi1>
  %4 = graph.greater_or_equal %w, %b : (tensor<6xui16>, tensor<6xui16>) -> tensor<6xi1>
  %5 = graph.clip %w {max = 40000 : ui16, min = 5 : ui16} : tensor<6xui16>
  return %0, %1, %2, %3, %4, %5 : tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xui16>
}
func.func @cast(%a: tensor<6xui8>, %b: tensor<6xui8>, %i: tensor<6xi8>, %x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi32>, tensor<6xui64>, tensor<6xi1>, tensor<6xui32>, tensor<6xi8>, tensor<6xui8>, tensor<6xui64>) {
  %w = graph.sub %a, %b : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %0 = graph.cast %w {to = f32} : (tensor<6xui8>) -> tensor<6xf32>
  %1 = graph.cast %w {to = i32} : (tensor<6xui8>) -> tensor<6xi32>
  %2 = graph.cast %w {to = ui64} : (tensor<6xui8>) -> tensor<6xui64>
  %3 = graph.cast %w {to = i1} : (tensor<6xui8>) -> tensor<6xi1>
  %4 = graph.cast %i {to = ui32} : (tensor<6xi8>) -> tensor<6xui32>
  %5 = graph.cast %w {to = i8} : (tensor<6xui8>) -> tensor<6xi8>
  %k = graph.constant dense<100.0> : tensor<6xf32>
  %s = graph.mul %x, %k : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %6 = graph.cast %s {to = ui8} : (tensor<6xf32>) -> tensor<6xui8>
  %q = graph.mul %s, %s : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %7 = graph.cast %q {to = ui64} : (tensor<6xf32>) -> tensor<6xui64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6xf32>, tensor<6xi32>, tensor<6xui64>, tensor<6xi1>, tensor<6xui32>, tensor<6xi8>, tensor<6xui8>, tensor<6xui64>
}
func.func @reduce(%a: tensor<3x4xui32>, %b: tensor<3x4xui32>) -> (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xi64>, tensor<3x3xui32>) {
  %w = graph.sub %a, %b : (tensor<3x4xui32>, tensor<3x4xui32>) -> tensor<3x4xui32>
  %0 = graph.reduce_max %w {axes = array<i64: 1>, keepdims = false} : (tensor<3x4xui32>) -> tensor<3xui32>
  %1 = graph.reduce_min %w {axes = array<i64: 1>, keepdims = false} : (tensor<3x4xui32>) -> tensor<3xui32>
  %2 = graph.reduce_sum %w {axes = array<i64: 1>, keepdims = false} : (tensor<3x4xui32>) -> tensor<3xui32>
  %3 = graph.arg_max %w {axis = 1 : i64, keepdims = false} : (tensor<3x4xui32>) -> tensor<3xi64>
  %t = graph.transpose %b {perm = array<i64: 1, 0>} : (tensor<3x4xui32>) -> tensor<4x3xui32>
  %4 = graph.matmul %w, %t : (tensor<3x4xui32>, tensor<4x3xui32>) -> tensor<3x3xui32>
  return %0, %1, %2, %3, %4 : tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xi64>, tensor<3x3xui32>
}
"#,
    );
    for op in [
        "divui", "remui", "maxui", "minui", "cmpi ult", "uitofp", "extui",
    ] {
        assert!(text.contains(op), "no {op} in:\n{text}");
    }
}

/// Past the constant budget (2^16 elements) a Range and the window counts of an
/// AveragePool are computed by te bodies instead of written out: they must still agree
/// with the kernels, padding, ceil mode and dilation included.
#[test]
fn long_range_and_average_pool_counts_are_computed() {
    let text = check_lowering(
        r#"
func.func @long_pools(%x: tensor<1x1x70001xf32>, %y: tensor<1x1x140001xf32>) -> (tensor<1x1x70002xf32>, tensor<1x1x70002xf32>, tensor<1x1x70001xf32>, tensor<1x1x69999xf32>) {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3>, pads = array<i64: 1, 2>} : (tensor<1x1x70001xf32>) -> tensor<1x1x70002xf32>
  %1 = graph.average_pool %x {count_include_pad = true, kernel_shape = array<i64: 3>, pads = array<i64: 2, 1>} : (tensor<1x1x70001xf32>) -> tensor<1x1x70002xf32>
  %2 = graph.average_pool %y {ceil_mode = true, kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<1x1x140001xf32>) -> tensor<1x1x70001xf32>
  %3 = graph.average_pool %x {dilations = array<i64: 2>, kernel_shape = array<i64: 3>, pads = array<i64: 0, 2>} : (tensor<1x1x70001xf32>) -> tensor<1x1x69999xf32>
  return %0, %1, %2, %3 : tensor<1x1x70002xf32>, tensor<1x1x70002xf32>, tensor<1x1x70001xf32>, tensor<1x1x69999xf32>
}
func.func @long_ranges() -> (tensor<70000xf32>, tensor<70000xi32>) {
  %0 = graph.range {delta = 2.500000e-01 : f32, limit = 1.749900e+04 : f32, start = -1.000000e+00 : f32} : tensor<70000xf32>
  %1 = graph.range {delta = -3 : i32, limit = -209995 : i32, start = 5 : i32} : tensor<70000xi32>
  return %0, %1 : tensor<70000xf32>, tensor<70000xi32>
}
"#,
    );
    assert!(!text.contains("dense<"), "a table was written out:\n{text}");
}

#[test]
fn swish_and_shrink() {
    check_lowering(
        r#"
func.func @activations(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = graph.swish %x {alpha = 1.500000e+00 : f32} : tensor<2x5xf32>
  %1 = graph.shrink %x : tensor<2x5xf32>
  %2 = graph.shrink %x {bias = 2.500000e-01 : f32, lambd = 1.000000e-01 : f32} : tensor<2x5xf32>
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}
"#,
    );
}

#[test]
fn bitwise_ops_and_shifts() {
    check_lowering(
        r#"
func.func @signed(%a: tensor<3x4xi32>, %b: tensor<4xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>) {
  %0 = graph.bitwise_and %a, %b : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %1 = graph.bitwise_or %a, %b : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %2 = graph.bitwise_xor %a, %b : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %3 = graph.bitwise_not %a : tensor<3x4xi32>
  return %0, %1, %2, %3 : tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>
}
func.func @shifts(%a: tensor<6xui8>) -> (tensor<6xui8>, tensor<6xui8>, tensor<6xui8>) {
  %s = graph.constant dense<[0, 1, 3, 7, 8, 200]> : tensor<6xui8>
  %0 = graph.bit_shift %a, %s {direction = "LEFT"} : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %1 = graph.bit_shift %a, %s {direction = "RIGHT"} : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %2 = graph.bitwise_not %a : tensor<6xui8>
  return %0, %1, %2 : tensor<6xui8>, tensor<6xui8>, tensor<6xui8>
}
"#,
    );
}

#[test]
fn trilu_cum_sum_and_hardmax() {
    check_lowering(
        r#"
func.func @trilu(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = graph.trilu %x : tensor<2x3x4xf32>
  %1 = graph.trilu %x {k = -1 : i64, upper = false} : tensor<2x3x4xf32>
  %2 = graph.trilu %x {k = 2 : i64} : tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
func.func @cum_sum(%x: tensor<3x5xf32>, %i: tensor<6xi32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<6xi32>) {
  %0 = graph.cum_sum %x {axis = 1 : i64} : tensor<3x5xf32>
  %1 = graph.cum_sum %x {axis = 0 : i64, exclusive = true} : tensor<3x5xf32>
  %2 = graph.cum_sum %x {axis = -1 : i64, exclusive = true, reverse = true} : tensor<3x5xf32>
  %3 = graph.cum_sum %i {axis = 0 : i64, reverse = true} : tensor<6xi32>
  return %0, %1, %2, %3 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<6xi32>
}
func.func @hardmax(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = graph.hardmax %x : tensor<3x4xf32>
  %1 = graph.hardmax %x {axis = 0 : i64} : tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}
"#,
    );
}

#[test]
fn resize_in_every_mode() {
    check_lowering(
        r#"
func.func @nearest(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x6x8xf32>, tensor<1x2x2x3xf32>) {
  %0 = graph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 2, 6, 8>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32>
  %1 = graph.resize %x {nearest_mode = "ceil", coordinate_transformation_mode = "asymmetric", scales = array<f64: 1.0, 1.0, 0.6666666666666666, 0.75>, sizes = array<i64: 1, 2, 2, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x2x3xf32>
  return %0, %1 : tensor<1x2x6x8xf32>, tensor<1x2x2x3xf32>
}
func.func @linear(%x: tensor<1x1x3x4xf32>) -> (tensor<1x1x5x7xf32>, tensor<1x1x5x7xf32>) {
  %0 = graph.resize %x {mode = "linear", scales = array<f64: 1.0, 1.0, 1.6666666666666667, 1.75>, sizes = array<i64: 1, 1, 5, 7>} : (tensor<1x1x3x4xf32>) -> tensor<1x1x5x7xf32>
  %1 = graph.resize %x {mode = "linear", coordinate_transformation_mode = "align_corners", scales = array<f64: 1.0, 1.0, 1.6666666666666667, 1.75>, sizes = array<i64: 1, 1, 5, 7>} : (tensor<1x1x3x4xf32>) -> tensor<1x1x5x7xf32>
  return %0, %1 : tensor<1x1x5x7xf32>, tensor<1x1x5x7xf32>
}
func.func @cubic(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) {
  %0 = graph.resize %x {mode = "cubic", scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 1, 8, 8>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  %1 = graph.resize %x {mode = "cubic", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, scales = array<f64: 1.0, 1.0, 0.8, 0.8>, sizes = array<i64: 1, 1, 3, 3>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return %0, %1 : tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>
}
func.func @crop(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %0 = graph.resize %x {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.000000e+01 : f32, roi = array<f64: 0.0, 0.0, 0.4, 0.6, 1.0, 1.0, 1.2, 1.7>, scales = array<f64: 1.0, 1.0, 0.75, 0.75>, sizes = array<i64: 1, 1, 3, 3>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}
func.func @integers(%x: tensor<2x3xui8>) -> tensor<4x9xui8> {
  %0 = graph.resize %x {scales = array<f64: 2.0, 3.0>, sizes = array<i64: 4, 9>} : (tensor<2x3xui8>) -> tensor<4x9xui8>
  return %0 : tensor<4x9xui8>
}
"#,
    );
}

#[test]
fn top_k_in_both_orders() {
    check_lowering(
        r#"
func.func @top_k(%x: tensor<3x6xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>, tensor<2x6xf32>, tensor<2x6xi64>) {
  %v, %i = graph.top_k %x {k = 2 : i64} : (tensor<3x6xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  %w, %j = graph.top_k %x {axis = 0 : i64, k = 2 : i64, largest = false} : (tensor<3x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xi64>)
  return %v, %i, %w, %j : tensor<3x2xf32>, tensor<3x2xi64>, tensor<2x6xf32>, tensor<2x6xi64>
}
func.func @ties(%x: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi64>) {
  %c = graph.constant dense<[3, 1, 3, 2, 1]> : tensor<5xi32>
  %s = graph.add %x, %c : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  %z = graph.sub %s, %x : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  %v, %i = graph.top_k %z {k = 5 : i64} : (tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi64>)
  return %v, %i : tensor<5xi32>, tensor<5xi64>
}
"#,
    );
}

#[test]
fn gathers_and_scatters_at_index_tuples() {
    check_lowering(
        r#"
func.func @gather_nd(%x: tensor<3x4x2xf32>) -> (tensor<2xf32>, tensor<2x2x2xf32>, tensor<3x1xf32>) {
  %i = graph.constant dense<[[0, 1, 1], [2, -1, 0]]> : tensor<2x3xi64>
  %0 = graph.gather_nd %x, %i : (tensor<3x4x2xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  %j = graph.constant dense<[[[1], [0]], [[2], [2]]]> : tensor<2x2x1xi64>
  %1 = graph.gather_nd %x, %j {batch_dims = 0 : i64} : (tensor<3x4x2xf32>, tensor<2x2x1xi64>) -> tensor<2x2x4x2xf32>
  %r = graph.reshape %1 {shape = array<i64: 2, 2, -1>} : (tensor<2x2x4x2xf32>) -> tensor<2x2x8xf32>
  %s = graph.slice %r {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 2>} : (tensor<2x2x8xf32>) -> tensor<2x2x2xf32>
  %k = graph.constant dense<[[1, 0], [3, 1], [0, 1]]> : tensor<3x2xi64>
  %2 = graph.gather_nd %x, %k {batch_dims = 1 : i64} : (tensor<3x4x2xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  %3 = graph.unsqueeze %2 {axes = array<i64: 1>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return %0, %s, %3 : tensor<2xf32>, tensor<2x2x2xf32>, tensor<3x1xf32>
}
func.func @scatter_nd(%x: tensor<4x3xf32>, %u: tensor<3x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %i = graph.constant dense<[[3], [1], [3]]> : tensor<3x1xi64>
  %0 = graph.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<3x1xi64>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %1 = graph.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<4x3xf32>, tensor<3x1xi64>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %2 = graph.scatter_nd %x, %i, %u {reduction = "max"} : (tensor<4x3xf32>, tensor<3x1xi64>, tensor<3x3xf32>) -> tensor<4x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
func.func @scatter_elements(%x: tensor<3x4xf32>, %u: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %i = graph.constant dense<[[1, 0, 2, -1], [1, 1, 0, 0]]> : tensor<2x4xi64>
  %0 = graph.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %1 = graph.scatter_elements %x, %i, %u {reduction = "mul"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %j = graph.constant dense<[[3, 0], [1, 1]]> : tensor<2x2xi32>
  %v = graph.slice %u {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %2 = graph.scatter_elements %x, %j, %v {axis = 1 : i64, reduction = "min"} : (tensor<3x4xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}
"#,
    );
}
