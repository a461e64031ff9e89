//! `convert-te-to-loop` keeps what every function computes: each case runs in the reference
//! interpreter at the te level and, after the conversion, at the loop level, on the same
//! random arguments (`check_transform`; tensor and memref arguments get the same values).

use tb_interpreter::check::{Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

/// Converts `src` under the interpreter's before/after check and gives the loop-level IR.
fn lower(src: &str) -> String {
    let report = check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let pipeline = Pipeline::parse("builtin.module(convert-te-to-loop)").unwrap();
            let mut pm = PassManager::new(&pipeline, &registry).unwrap();
            let instrumentation = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instrumentation)
        },
        // Reductions run in the same order before and after: results agree exactly.
        Tolerance {
            rtol: 0.0,
            atol: 0.0,
        },
        4,
    )
    .unwrap_or_else(|e| panic!("convert-te-to-loop changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "functions left out: {:?}",
        report.skipped
    );
    assert!(
        !report.text.contains("te."),
        "te ops are left:\n{}",
        report.text
    );
    assert!(
        !report.text.contains("tensor<"),
        "tensors are left:\n{}",
        report.text
    );
    report.text
}

#[test]
fn elementwise() {
    lower(
        r#"
func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = te.compute (%a, %b) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %y = te.read %b[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %s = arith.addf %x, %y : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
"#,
    );
}

#[test]
fn broadcast_transpose_and_scalar_arguments() {
    lower(
        r#"
func.func @f(%row: tensor<8xf32>, %t: tensor<8x4xf32>, %scale: f32) -> tensor<4x8xf32> {
  %c = te.compute (%row, %t) [%i, %j] {
    %x = te.read %row[(d0, d1) -> (d1)] : tensor<8xf32>
    %y = te.read %t[(d0, d1) -> (d1, d0)] : tensor<8x4xf32>
    %p = arith.mulf %x, %scale : f32
    %s = arith.subf %p, %y : f32
    te.yield %s : f32
  } : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
"#,
    );
}

#[test]
fn float_combiners() {
    let text = lower(
        r#"
func.func @f(%a: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>) {
  %sum = te.compute (%a) [%i] reduce [%j] in [5] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xf32>
    te.yield %x : f32
  } : (tensor<3x5xf32>) -> tensor<3xf32>
  %prod = te.compute (%a) [%i] reduce [%j] in [5] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xf32>
    te.yield %x : f32
  } : (tensor<3x5xf32>) -> tensor<3xf32>
  %max = te.compute (%a) [%i] reduce [%j] in [5] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xf32>
    te.yield %x : f32
  } : (tensor<3x5xf32>) -> tensor<3xf32>
  %min = te.compute (%a) [%j] reduce [%i] in [3] combiner = min {
    %x = te.read %a[(d0, d1) -> (d1, d0)] : tensor<3x5xf32>
    te.yield %x : f32
  } : (tensor<3x5xf32>) -> tensor<5xf32>
  return %sum, %prod, %max, %min : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>
}
"#,
    );
    for op in [
        "arith.addf",
        "arith.mulf",
        "arith.maximumf",
        "arith.minimumf",
    ] {
        assert!(text.contains(op), "{op} missing:\n{text}");
    }
}

#[test]
fn max_and_min_propagate_nan() {
    lower(
        r#"
func.func @f(%a: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %nan = arith.constant 0x7FC00000 : f32
  %half = arith.constant 0.5 : f32
  %max = te.compute (%a) [%i] reduce [%j] in [8] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %big = arith.cmpf ogt, %x, %half : f32
    %v = arith.select %big, %nan, %x : f32
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  %min = te.compute (%a) [%i] reduce [%j] in [8] combiner = min {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %big = arith.cmpf ogt, %x, %half : f32
    %v = arith.select %big, %nan, %x : f32
    te.yield %v : f32
  } : (tensor<4x8xf32>) -> tensor<4xf32>
  return %max, %min : tensor<4xf32>, tensor<4xf32>
}
"#,
    );
}

#[test]
fn integer_combiners() {
    lower(
        r#"
func.func @f(%a: tensor<3x5xi32>, %b: tensor<6xi8>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<i8>) {
  %sum = te.compute (%a) [%i] reduce [%j] in [5] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xi32>
    te.yield %x : i32
  } : (tensor<3x5xi32>) -> tensor<3xi32>
  %prod = te.compute (%a) [%i] reduce [%j] in [5] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xi32>
    te.yield %x : i32
  } : (tensor<3x5xi32>) -> tensor<3xi32>
  %max = te.compute (%a) [%i] reduce [%j] in [5] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xi32>
    te.yield %x : i32
  } : (tensor<3x5xi32>) -> tensor<3xi32>
  %min = te.compute (%a) [%i] reduce [%j] in [5] combiner = min {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x5xi32>
    te.yield %x : i32
  } : (tensor<3x5xi32>) -> tensor<3xi32>
  %wrap = te.compute (%b) [] reduce [%k] in [6] combiner = prod {
    %x = te.read %b[(d0) -> (d0)] : tensor<6xi8>
    te.yield %x : i8
  } : (tensor<6xi8>) -> tensor<i8>
  return %sum, %prod, %max, %min, %wrap : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<i8>
}
"#,
    );
}

#[test]
fn rank0_results() {
    let text = lower(
        r#"
func.func @f(%a: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %m = te.compute (%a) [] reduce [%i, %j] in [4, 8] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    te.yield %x : f32
  } : (tensor<4x8xf32>) -> tensor<f32>
  %n = te.compute (%s, %m) [] {
    %x = te.read %s[() -> ()] : tensor<f32>
    %y = te.read %m[() -> ()] : tensor<f32>
    %z = arith.subf %x, %y : f32
    te.yield %z : f32
  } : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %m, %n : tensor<f32>, tensor<f32>
}
"#,
    );
    assert!(!text.contains("loop.parallel"), "{text}");
}

#[test]
fn index_results_from_the_domain() {
    lower(
        r#"
func.func @iota() -> (tensor<3x4xindex>, tensor<3x4xi64>) {
  %i2 = te.compute () [%i, %j] {
    %c4 = arith.constant 4 : index
    %r = arith.muli %i, %c4 : index
    %s = arith.addi %r, %j : index
    te.yield %s : index
  } : () -> tensor<3x4xindex>
  %ints = te.compute (%i2) [%i, %j] {
    %x = te.read %i2[(d0, d1) -> (d0, d1)] : tensor<3x4xindex>
    %y = arith.index_cast %x : index to i64
    te.yield %y : i64
  } : (tensor<3x4xindex>) -> tensor<3x4xi64>
  return %i2, %ints : tensor<3x4xindex>, tensor<3x4xi64>
}
"#,
    );
}

#[test]
fn padded_convolution_window() {
    let text = lower(
        r#"
func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %y = te.compute (%x, %w) [%n, %f, %h, %v] reduce [%c, %kh, %kw] in [2, 3, 3] combiner = sum {
    %a = te.read %x[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5 - 1, d3 + d6 - 1)] {padding = 0.0 : f32} : tensor<1x2x5x5xf32>
    %b = te.read %w[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)] : tensor<3x2x3x3xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  } : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}
"#,
    );
    assert!(text.contains("arith.select"), "{text}");
}

#[test]
fn padded_strided_pooling_with_negative_infinity() {
    lower(
        r#"
func.func @pool(%x: tensor<2x7xf32>) -> tensor<2x4xf32> {
  %y = te.compute (%x) [%n, %o] reduce [%k] in [3] combiner = max {
    %a = te.read %x[(d0, d1, d2) -> (d0, d1 * 2 + d2 - 1)] {padding = 0xFF800000 : f32} : tensor<2x7xf32>
    te.yield %a : f32
  } : (tensor<2x7xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
"#,
    );
}

#[test]
fn padded_reads_through_floordiv_ceildiv_and_mod() {
    lower(
        r#"
func.func @f(%a: tensor<4xf32>, %b: tensor<3x3xi32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<4x4xi32>) {
  %fd = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> ((d0 - 4) floordiv 2)] {padding = 0.5 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<10xf32>
  %cd = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> ((d0 - 5) ceildiv 3)] {padding = -2.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<10xf32>
  %md = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> ((d0 - 7) mod 5)] {padding = 9.0 : f32} : tensor<4xf32>
    te.yield %x : f32
  } : (tensor<4xf32>) -> tensor<10xf32>
  %shifted = te.compute (%b) [%i, %j] {
    %x = te.read %b[(d0, d1) -> (d0 - 1, d1)] {padding = 7 : i32} : tensor<3x3xi32>
    te.yield %x : i32
  } : (tensor<3x3xi32>) -> tensor<4x4xi32>
  return %fd, %cd, %md, %shifted : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<4x4xi32>
}
"#,
    );
}

#[test]
fn padded_read_of_an_empty_input_is_all_padding() {
    lower(
        r#"
func.func @f(%a: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %y = te.compute (%a) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] {padding = 1.5 : f32} : tensor<0x3xf32>
    te.yield %x : f32
  } : (tensor<0x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
"#,
    );
}

#[test]
fn gather_with_read_at() {
    lower(
        r#"
func.func @gather(%table: tensor<5x3xf32>, %ids: tensor<4xi64>) -> tensor<4x3xf32> {
  %g = te.compute (%table, %ids) [%i, %j] {
    %id = te.read %ids[(d0, d1) -> (d0)] : tensor<4xi64>
    %raw = arith.index_cast %id : i64 to index
    %c5 = arith.constant 5 : index
    %c0 = arith.constant 0 : index
    %r = arith.remsi %raw, %c5 : index
    %neg = arith.cmpi slt, %r, %c0 : index
    %up = arith.addi %r, %c5 : index
    %row = arith.select %neg, %up, %r : index
    %x = te.read_at %table[%row, %j] : tensor<5x3xf32>
    te.yield %x : f32
  } : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}
"#,
    );
}

#[test]
fn dense_and_resource_constants() {
    let text = lower(
        r#"
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xi32>, tensor<4xf32>) {
  %w = arith.constant dense_resource<weights> : tensor<4xf32>
  %b = arith.constant dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>
  %s = arith.constant dense<3> : tensor<2x2xi32>
  %y = te.compute (%a, %w, %b) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    %u = te.read %w[(d0) -> (d0)] : tensor<4xf32>
    %v = te.read %b[(d0) -> (d0)] : tensor<4xf32>
    %p = arith.mulf %x, %u : f32
    %q = arith.addf %p, %v : f32
    te.yield %q : f32
  } : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %s, %w : tensor<4xf32>, tensor<2x2xi32>, tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
"#,
    );
    assert!(text.contains("memref.global"), "{text}");
    assert!(text.contains("dense_resource<weights>"), "{text}");
}

#[test]
fn calls_return_owned_buffers() {
    let text = lower(
        r#"
func.func private @stats(%a: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %s = te.compute (%a) [] reduce [%k] in [8] combiner = sum {
    %x = te.read %a[(d0) -> (d0)] : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<f32>
  return %s, %a, %a : tensor<f32>, tensor<8xf32>, tensor<8xf32>
}
func.func @center(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>, tensor<8xf32>) {
  %s, %same, %again = func.call @stats(%a) : (tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>)
  %c = te.compute (%same, %s) [%i] {
    %x = te.read %same[(d0) -> (d0)] : tensor<8xf32>
    %t = te.read %s[(d0) -> ()] : tensor<f32>
    %n = arith.constant 8.0 : f32
    %m = arith.divf %t, %n : f32
    %d = arith.subf %x, %m : f32
    te.yield %d : f32
  } : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %c, %s, %again : tensor<8xf32>, tensor<f32>, tensor<8xf32>
}
"#,
    );
    // Returned arguments are copied; the caller frees the call result it does not return.
    assert!(text.contains("memref.copy"), "{text}");
    assert!(text.contains("loop.dealloc"), "{text}");
}

#[test]
fn arguments_and_buffers_returned_twice() {
    lower(
        r#"
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    %z = arith.mulf %x, %x : f32
    te.yield %z : f32
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %y, %a, %y, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
"#,
    );
}

#[test]
fn softmax_chain() {
    lower(
        r#"
func.func @softmax(%a: tensor<3x6xf32>) -> tensor<3x6xf32> {
  %max = te.compute (%a) [%i] reduce [%j] in [6] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    te.yield %x : f32
  } : (tensor<3x6xf32>) -> tensor<3xf32>
  %exp = te.compute (%a, %max) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    %m = te.read %max[(d0, d1) -> (d0)] : tensor<3xf32>
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    te.yield %e : f32
  } : (tensor<3x6xf32>, tensor<3xf32>) -> tensor<3x6xf32>
  %sum = te.compute (%exp) [%i] reduce [%j] in [6] combiner = sum {
    %x = te.read %exp[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    te.yield %x : f32
  } : (tensor<3x6xf32>) -> tensor<3xf32>
  %out = te.compute (%exp, %sum) [%i, %j] {
    %x = te.read %exp[(d0, d1) -> (d0, d1)] : tensor<3x6xf32>
    %s = te.read %sum[(d0, d1) -> (d0)] : tensor<3xf32>
    %q = arith.divf %x, %s : f32
    te.yield %q : f32
  } : (tensor<3x6xf32>, tensor<3xf32>) -> tensor<3x6xf32>
  return %out : tensor<3x6xf32>
}
"#,
    );
}
