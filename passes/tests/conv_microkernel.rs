//! `loop-conv-microkernel` keeps what convolutions compute: padded, strided, dilated,
//! depthwise, odd-sized and channel counts the register block does not divide, with the
//! host's blocking, blockings by option and by `#loop.schedule`, on one thread and on
//! threads, checked by the interpreter on random inputs against the graph-level program.

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

fn run(src: &str, pipeline: &str) -> Result<CheckReport, String> {
    run_within(src, pipeline, Tolerance::default())
}

fn run_within(src: &str, pipeline: &str, tolerance: Tolerance) -> Result<CheckReport, String> {
    check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry).unwrap();
            let instr = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instr)
        },
        tolerance,
        2,
    )
}

fn check(src: &str, kernel: &str) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, func.func({kernel}))"
    );
    let report = run(src, &pipeline)
        .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "every function runs: {:?}",
        report.skipped
    );
    report
}

/// A convolution `x: 1 x cin x h x w`, `w: cout x cin/group x k x k`, with bias.
#[derive(Clone, Copy)]
struct Conv {
    cin: i64,
    cout: i64,
    h: i64,
    w: i64,
    k: i64,
    stride: i64,
    pads: [i64; 4],
    dilation: i64,
    group: i64,
}

impl Conv {
    fn source(self) -> String {
        let Conv {
            cin,
            cout,
            h,
            w,
            k,
            stride,
            pads,
            dilation,
            group,
        } = self;
        let out =
            |size: i64, lo: i64, hi: i64| (size + lo + hi - dilation * (k - 1) - 1) / stride + 1;
        let (oh, ow) = (out(h, pads[0], pads[2]), out(w, pads[1], pads[3]));
        let cg = cin / group;
        format!(
            r#"func.func @conv(%x: tensor<1x{cin}x{h}x{w}xf32>, %w: tensor<{cout}x{cg}x{k}x{k}xf32>, %b: tensor<{cout}xf32>) -> tensor<1x{cout}x{oh}x{ow}xf32> {{
  %0 = graph.conv %x, %w, %b {{dilations = array<i64: {dilation}, {dilation}>, group = {group} : i64, pads = array<i64: {}, {}, {}, {}>, strides = array<i64: {stride}, {stride}>}} : (tensor<1x{cin}x{h}x{w}xf32>, tensor<{cout}x{cg}x{k}x{k}xf32>, tensor<{cout}xf32>) -> tensor<1x{cout}x{oh}x{ow}xf32>
  return %0 : tensor<1x{cout}x{oh}x{ow}xf32>
}}
"#,
            pads[0], pads[1], pads[2], pads[3]
        )
    }
}

const BASE: Conv = Conv {
    cin: 5,
    cout: 16,
    h: 7,
    w: 9,
    k: 3,
    stride: 1,
    pads: [1, 1, 1, 1],
    dilation: 1,
    group: 1,
};

fn rewritten(out: &CheckReport) {
    assert!(
        out.text.contains("loop.fma"),
        "a micro-kernel:\n{}",
        out.text
    );
    assert!(
        !out.text.contains("arith.select"),
        "the kernel reads a padded copy, no select:\n{}",
        out.text
    );
}

#[test]
fn a_padded_convolution_becomes_a_micro_kernel() {
    let out = check(
        &BASE.source(),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    rewritten(&out);
    // The bias nest is computed in the kernel's copy-out (its epilogue): no loop.parallel
    // is left.
    assert_eq!(
        out.text.matches("loop.parallel").count(),
        0,
        "one thread:\n{}",
        out.text
    );
}

#[test]
fn the_host_blocking_on_threads_keeps_a_convolution() {
    let conv = Conv { cout: 32, ..BASE };
    let out = check(&conv.source(), "loop-conv-microkernel{threads=1}");
    rewritten(&out);
    // The padded input's staging (per channel), the kernel and the transposition back,
    // which computes the bias.
    assert_eq!(
        out.text.matches("loop.parallel").count(),
        3,
        "threads:\n{}",
        out.text
    );
}

#[test]
fn stride_two_asymmetric_padding_and_odd_sizes() {
    let conv = Conv {
        cin: 3,
        cout: 8,
        h: 11,
        w: 6,
        k: 3,
        stride: 2,
        pads: [0, 1, 2, 1],
        ..BASE
    };
    rewritten(&check(
        &conv.source(),
        "loop-conv-microkernel{mr=3 nr=8 vector=4 threads=0}",
    ));
}

#[test]
fn a_dilated_seven_by_seven_stem() {
    let conv = Conv {
        cin: 3,
        cout: 8,
        h: 13,
        w: 12,
        k: 7,
        stride: 2,
        pads: [3, 3, 3, 3],
        dilation: 2,
        ..BASE
    };
    rewritten(&check(
        &conv.source(),
        "loop-conv-microkernel{mr=5 nr=4 vector=4 threads=0}",
    ));
}

#[test]
fn channels_left_over_by_the_block_keep_the_original_nest() {
    // 20 channels in blocks of 8: 16 in the kernel, 4 in the original nest (with its select).
    let conv = Conv { cout: 20, ..BASE };
    let out = check(
        &conv.source(),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(
        out.text.contains("to (20, 7, 9)"),
        "the remainder nest:\n{}",
        out.text
    );
}

#[test]
fn an_unpadded_pointwise_convolution_reads_its_input_in_place() {
    let conv = Conv {
        cin: 6,
        cout: 16,
        k: 1,
        pads: [0; 4],
        ..BASE
    };
    let out = check(
        &conv.source(),
        "loop-conv-microkernel{mr=6 nr=16 vector=8 threads=0 pointwise=false}",
    );
    rewritten(&out);
    // Buffers: the packed weights, the channels-last result and the bias's result (the
    // bias is the kernel's epilogue, the convolution's own result is never written); no
    // input copy.
    assert_eq!(out.text.matches("loop.alloc").count(), 3, "{}", out.text);
}

#[test]
fn a_strided_pointwise_convolution() {
    let conv = Conv {
        cin: 4,
        cout: 8,
        h: 9,
        w: 8,
        k: 1,
        stride: 2,
        pads: [0; 4],
        ..BASE
    };
    rewritten(&check(
        &conv.source(),
        "loop-conv-microkernel{mr=2 nr=8 vector=8 threads=0}",
    ));
}

const DEPTHWISE: Conv = Conv {
    cin: 24,
    cout: 24,
    h: 9,
    w: 11,
    group: 24,
    ..BASE
};

/// Whether the result rows are stored as vectors straight into the `1 x 24 x ..` result.
fn stores_result_rows(text: &str) -> bool {
    text.lines()
        .any(|l| l.contains("loop.vector_store") && l.contains("memref<1x24x"))
}

#[test]
fn depthwise_convolutions_vectorize_along_rows() {
    for (stride, pads, dilation) in [
        (1, [1, 1, 1, 1], 1),
        (2, [1, 1, 1, 1], 1),
        (2, [0, 1, 1, 0], 1),
        (1, [2, 2, 2, 2], 2),
        (3, [1, 0, 0, 2], 1),
    ] {
        let conv = Conv {
            stride,
            pads,
            dilation,
            ..DEPTHWISE
        };
        let out = check(
            &conv.source(),
            "loop-conv-microkernel{mr=4 vector=4 threads=1}",
        );
        rewritten(&out);
        assert!(stores_result_rows(&out.text), "{}", out.text);
    }
}

#[test]
fn a_depthwise_input_is_staged_one_channel_at_a_time_on_the_stack() {
    let conv = Conv {
        stride: 2,
        ..DEPTHWISE
    };
    let out = check(
        &conv.source(),
        "loop-conv-microkernel{mr=4 vector=4 threads=1}",
    );
    rewritten(&out);
    // Each channel's padded copy (2 phases of 11 padded rows and 7 columns) is made in the
    // loop over channels, on the stack; no buffer holds every channel's copy.
    assert!(
        out.text
            .contains("memref.alloca() {alignment = 64 : i64} : memref<2x11x7xf32>"),
        "{}",
        out.text
    );
    assert!(!out.text.contains(": memref<24x2x"), "{}", out.text);
}

#[test]
fn few_depthwise_channels_are_staged_together() {
    // Four channels are too few to share between threads one at a time: every channel is
    // copied first (on threads), then the rows of every channel are shared.
    let conv = Conv {
        cin: 4,
        cout: 4,
        group: 4,
        stride: 2,
        ..DEPTHWISE
    };
    let out = check(
        &conv.source(),
        "loop-conv-microkernel{mr=4 vector=4 threads=1}",
    );
    rewritten(&out);
    assert!(
        out.text.contains("loop.alloc() : memref<4x2x11x7xf32>"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("memref.alloca"), "{}", out.text);
}

#[test]
fn an_unpadded_depthwise_convolution_reads_its_input_in_place() {
    let conv = Conv {
        pads: [0; 4],
        ..DEPTHWISE
    };
    let out = check(
        &conv.source(),
        "loop-conv-microkernel{mr=8 vector=4 threads=0}",
    );
    rewritten(&out);
    // Only the bias nest's result: the bias is added on the kernel's vectors (the
    // convolution's own result is never written), and the input is not copied.
    assert_eq!(out.text.matches("loop.alloc").count(), 1, "{}", out.text);
}

#[test]
fn the_host_blocking_keeps_a_depthwise_convolution() {
    let out = check(&DEPTHWISE.source(), "loop-conv-microkernel");
    rewritten(&out);
}

#[test]
fn a_depthwise_row_of_one_pixel_is_left_to_the_loop_schedules() {
    // Vectors are halved down to two lanes to fit a row; one pixel fits none.
    let conv = Conv { w: 1, ..DEPTHWISE };
    let out = check(&conv.source(), "loop-conv-microkernel{mr=8 vector=8}");
    assert!(!out.text.contains("loop.fma"), "{}", out.text);
}

#[test]
fn a_grouped_convolution_is_left_to_the_loop_schedules() {
    let conv = Conv {
        cin: 4,
        cout: 16,
        group: 2,
        ..BASE
    };
    let out = check(&conv.source(), "loop-conv-microkernel{mr=4 nr=8 vector=4}");
    assert!(!out.text.contains("loop.fma"), "{}", out.text);
}

#[test]
fn a_one_pixel_block_of_two_channel_vectors() {
    let out = check(&BASE.source(), "loop-conv-microkernel{mr=1 nr=16 vector=8}");
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}

/// A convolution with its bias and ReLU through the whole CPU pipeline.
#[test]
fn the_cpu_pipeline_runs_the_convolution_kernel() {
    let src = r#"
func.func @conv_relu(%x: tensor<1x8x10x10xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %dw: tensor<16x1x3x3xf32>) -> tensor<1x16x5x5xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x5x5xf32>
  %1 = graph.relu %0 : tensor<1x16x5x5xf32>
  %2 = graph.conv %1, %dw {pads = array<i64: 1, 1, 1, 1>, group = 16 : i64} : (tensor<1x16x5x5xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x5x5xf32>
  return %2 : tensor<1x16x5x5xf32>
}
"#;
    let report = run(src, tb_passes::pipelines::CPU).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.skipped.is_empty());
    assert!(report.text.contains("loop.fma"), "{}", report.text);
}

/// A depthwise convolution with its bias and ReLU6: the epilogue runs on the kernel's
/// vectors, a splat per-channel bias and vector clamps, and stores the activation directly.
#[test]
fn a_depthwise_epilogue_runs_on_the_kernel_vectors() {
    let src = r#"
func.func @dw_relu6(%x: tensor<1x8x9x9xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x9x9xf32> {
  %0 = graph.conv %x, %w, %b {group = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x9x9xf32>
  %1 = graph.clip %0 {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x8x9x9xf32>
  return %1 : tensor<1x8x9x9xf32>
}
"#;
    // te-fuse makes the bias and the clamp one elementwise nest, as in the CPU pipeline.
    let pipeline = "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func(loop-conv-microkernel{mr=4 vector=4 threads=0}))";
    let out = run(src, pipeline).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    // One nest left (the kernel), writing the activation's buffer only.
    assert_eq!(out.text.matches("loop.parallel").count(), 0, "{}", out.text);
    assert!(
        out.text.contains(": vector<4xi1>, vector<4xf32>") || out.text.contains("maximumf"),
        "the clamp runs on vectors:\n{}",
        out.text
    );
}

/// The `loop.vector_load`s of the input copy `memref<...>` in `text`.
fn vector_loads_of(text: &str, memref: &str) -> usize {
    text.lines()
        .filter(|l| l.contains("loop.vector_load") && l.contains(memref))
        .count()
}

#[test]
fn a_depthwise_block_of_rows_loads_each_input_row_once() {
    // 9 output rows in blocks of 4: two blocks, then one row left. A block of 4 rows of a
    // 3x3 window reads 6 input rows, 3 columns each, one vector per row of 4 pixels (11
    // columns: a block of 2 vectors and an overlapping one): 18 loads per vector instead
    // of 36; the row left keeps the window in loops (one load per vector).
    let out = check(
        &DEPTHWISE.source(),
        "loop-conv-microkernel{mr=8 vector=4 rows=4 threads=1}",
    );
    rewritten(&out);
    assert!(stores_result_rows(&out.text), "{}", out.text);
    let staged = ": memref<1x11x13xf32>";
    assert_eq!(
        vector_loads_of(&out.text, staged),
        (6 * 3) * (2 + 1) + (2 + 1),
        "{}",
        out.text
    );
}

#[test]
fn blocks_of_rows_of_strided_and_dilated_windows() {
    // Windows of neighbouring output rows share input rows with stride 2 (one row) and
    // dilation 2 (rows two apart); rows left over by the block are one smaller block.
    for (stride, dilation, rows) in [(2, 1, 3), (1, 2, 2), (3, 1, 2)] {
        let conv = Conv {
            stride,
            dilation,
            pads: [dilation; 4],
            ..DEPTHWISE
        };
        let out = check(
            &conv.source(),
            &format!("loop-conv-microkernel{{mr=4 vector=4 rows={rows} threads=1}}"),
        );
        rewritten(&out);
        assert!(stores_result_rows(&out.text), "{}", out.text);
    }
}

#[test]
fn one_row_per_block_keeps_the_window_in_loops() {
    let out = check(
        &DEPTHWISE.source(),
        "loop-conv-microkernel{mr=8 vector=4 rows=1 threads=0}",
    );
    rewritten(&out);
    // One load per vector of a block, inside the kh and kw loops.
    assert_eq!(
        vector_loads_of(&out.text, ": memref<1x11x13xf32>"),
        2 + 1,
        "{}",
        out.text
    );
}

/// Two padded 3x3 convolutions in a row, the second reading the first's result after a
/// ReLU, and `extra` graph ops on `%2` (the second's result) before `%r` is returned.
fn two_convolutions(residual: bool) -> String {
    let t = "tensor<1x8x6x7xf32>";
    let conv = |out: &str, x: &str, w: &str, b: &str| {
        format!(
            "  {out} = graph.conv {x}, {w}, {b} {{pads = array<i64: 1, 1, 1, 1>}} : ({t}, tensor<8x8x3x3xf32>, tensor<8xf32>) -> {t}\n"
        )
    };
    let tail = if residual {
        format!("  %3 = graph.add %2, %1 : ({t}, {t}) -> {t}\n  return %3 : {t}\n")
    } else {
        format!("  return %2 : {t}\n")
    };
    format!(
        "func.func @f(%x: {t}, %w1: tensor<8x8x3x3xf32>, %b1: tensor<8xf32>, %w2: tensor<8x8x3x3xf32>, %b2: tensor<8xf32>) -> {t} {{\n{}  %1 = graph.relu %0 : {t}\n{}{tail}}}\n",
        conv("%0", "%x", "%w1", "%b1"),
        conv("%2", "%1", "%w2", "%b2"),
    )
}

/// [`check`] of two convolutions in a row: each output sums 72 products, and the FMA
/// rounds once where the original rounds twice, so the second convolution's results may
/// differ by a few units in the last place of the first's.
fn check_chain(src: &str, kernel: &str) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, func.func({kernel}))"
    );
    let tolerance = Tolerance {
        rtol: 1e-4,
        atol: 1e-5,
    };
    run_within(src, &pipeline, tolerance)
        .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"))
}

#[test]
fn the_producer_of_a_padded_input_writes_into_the_padded_copy() {
    let out = check_chain(
        &two_convolutions(false),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    // The first convolution's result (through its ReLU epilogue) lands in a view of the
    // second's padded copy, which is no longer copied from anywhere.
    assert_eq!(
        out.text.matches("memref.reinterpret_cast").count(),
        1,
        "{}",
        out.text
    );
    assert!(
        out.text.contains("strided<[576, 72, 9, 1], offset: 10>"),
        "{}",
        out.text
    );
}

#[test]
fn a_padded_input_read_again_later_is_written_into_the_padded_copy() {
    // The residual add reads the second convolution's input again, through the view.
    let out = check_chain(
        &two_convolutions(true),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=1}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert_eq!(
        out.text.matches("memref.reinterpret_cast").count(),
        1,
        "{}",
        out.text
    );
}

#[test]
fn the_option_keeps_the_copy_of_a_padded_input() {
    let out = check_chain(
        &two_convolutions(true),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0 in-place=false}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(
        !out.text.contains("memref.reinterpret_cast"),
        "{}",
        out.text
    );
}

/// A convolution with a `kh x kw` window (padded by `pads`, ONNX order) of `x: 1 x cin x
/// h x w`, no bias.
fn rectangular(
    cin: i64,
    cout: i64,
    (h, w): (i64, i64),
    (kh, kw): (i64, i64),
    pads: [i64; 4],
) -> String {
    let oh = h + pads[0] + pads[2] - kh + 1;
    let ow = w + pads[1] + pads[3] - kw + 1;
    format!(
        r#"func.func @conv(%x: tensor<1x{cin}x{h}x{w}xf32>, %w: tensor<{cout}x{cin}x{kh}x{kw}xf32>) -> tensor<1x{cout}x{oh}x{ow}xf32> {{
  %0 = graph.conv %x, %w {{pads = array<i64: {}, {}, {}, {}>}} : (tensor<1x{cin}x{h}x{w}xf32>, tensor<{cout}x{cin}x{kh}x{kw}xf32>) -> tensor<1x{cout}x{oh}x{ow}xf32>
  return %0 : tensor<1x{cout}x{oh}x{ow}xf32>
}}
"#,
        pads[0], pads[1], pads[2], pads[3]
    )
}

#[test]
fn a_convolution_with_one_output_row_becomes_a_micro_kernel() {
    // 1 x 3 windows along a 1 x 40 sequence (a text recognizer's neck): the lowering
    // leaves out the loop over the single output row.
    let src = rectangular(12, 16, (1, 40), (1, 3), [0, 1, 0, 1]);
    for kernel in [
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
        "loop-conv-microkernel{vector=4 threads=1}",
    ] {
        let out = check(&src, kernel);
        rewritten(&out);
    }
}

#[test]
fn a_convolution_with_one_output_column_becomes_a_micro_kernel() {
    // 3 x 1 windows down a 9 x 1 column, one row of padding above and below.
    let src = rectangular(6, 8, (9, 1), (3, 1), [1, 0, 1, 0]);
    let out = check(&src, "loop-conv-microkernel{mr=2 nr=8 vector=4 threads=0}");
    rewritten(&out);
}

#[test]
fn one_output_pixel_of_a_window_as_large_as_the_input() {
    // 5 x 5 input, 5 x 5 window, no padding: one output pixel per channel, both row and
    // column loops left out.
    let src = rectangular(4, 16, (5, 5), (5, 5), [0, 0, 0, 0]);
    let out = check(&src, "loop-conv-microkernel{mr=1 nr=8 vector=4 threads=0}");
    rewritten(&out);
}

#[test]
fn channels_left_over_by_a_one_row_convolution_keep_its_narrowed_nest() {
    // 20 output channels in blocks of 8: the last 4 stay in the original nest, which
    // loops over (co, ow) only; then a relu reads the result, its nest over (co, ow) too.
    let src = r#"
func.func @conv(%x: tensor<1x6x1x9xf32>, %w: tensor<20x6x1x3xf32>) -> tensor<1x20x1x9xf32> {
  %0 = graph.conv %x, %w {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x6x1x9xf32>, tensor<20x6x1x3xf32>) -> tensor<1x20x1x9xf32>
  %1 = graph.relu %0 : tensor<1x20x1x9xf32>
  return %1 : tensor<1x20x1x9xf32>
}
"#;
    for kernel in [
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=1}",
    ] {
        let out = check(src, kernel);
        assert!(out.text.contains("loop.fma"), "{}", out.text);
    }
    // One output pixel per channel, 20 channels: both spatial loops left out.
    let pixel = rectangular(3, 20, (3, 3), (3, 3), [0, 0, 0, 0]);
    let out = check(
        &pixel,
        "loop-conv-microkernel{mr=1 nr=8 vector=4 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}
