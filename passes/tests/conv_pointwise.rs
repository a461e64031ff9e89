//! `loop-conv-microkernel`'s pointwise kernel: a 1x1 convolution with unit column stride
//! and no padding, or a convolution with a window over few input channels (a stem), keeps
//! output pixels in the vector lanes and writes the result's rows directly (no
//! channels-last copy, no transposition), with its epilogue (bias, residual add,
//! activation) computed on the same vectors. Checked by the interpreter on random inputs
//! against the graph-level program.

mod common;

use tb_interpreter::check::CheckReport;

/// The graph-level `src` lowered to loops, then `kernel`, checked on 3 random inputs.
fn check(src: &str, kernel: &str) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func({kernel}))"
    );
    common::check_pipeline_with_seeds(src, &pipeline, 3)
}

/// `conv(x, w, b)` with a 1x1 kernel, `cin -> cout` channels on an `h x w` image, then
/// `epilogue` (graph ops on `%0`, the last one's result returned as `%2`), or nothing.
fn pointwise(cin: i64, cout: i64, (h, w): (i64, i64), stride: i64, relu_add: bool) -> String {
    let (oh, ow) = ((h - 1) / stride + 1, (w - 1) / stride + 1);
    let t = format!("tensor<1x{cout}x{oh}x{ow}xf32>");
    let conv = format!(
        "%0 = graph.conv %x, %w, %b {{strides = array<i64: {stride}, {stride}>}} : (tensor<1x{cin}x{h}x{w}xf32>, tensor<{cout}x{cin}x1x1xf32>, tensor<{cout}xf32>) -> {t}"
    );
    let (extra, body, result) = if relu_add {
        (
            format!(", %r: {t}"),
            format!("  %1 = graph.add %0, %r : ({t}, {t}) -> {t}\n  %2 = graph.relu %1 : {t}\n"),
            "%2",
        )
    } else {
        (String::new(), String::new(), "%0")
    };
    format!(
        "func.func @f(%x: tensor<1x{cin}x{h}x{w}xf32>, %w: tensor<{cout}x{cin}x1x1xf32>, %b: tensor<{cout}xf32>{extra}) -> {t} {{\n  {conv}\n{body}  return {result} : {t}\n}}\n"
    )
}

/// A convolution with a `k x k` window: `cin -> cout` channels on an `h x w` image, with
/// `stride`, `pad` on every side and `dilation`, then a residual add and ReLU when
/// `relu_add`.
struct Windowed {
    cin: i64,
    cout: i64,
    size: (i64, i64),
    k: i64,
    stride: i64,
    pad: i64,
    dilation: i64,
    relu_add: bool,
}

impl Windowed {
    fn source(&self) -> String {
        let Windowed {
            cin,
            cout,
            size: (h, w),
            k,
            stride,
            pad,
            dilation,
            relu_add,
        } = *self;
        let out = |n: i64| (n + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
        let t = format!("tensor<1x{cout}x{}x{}xf32>", out(h), out(w));
        let conv = format!(
            "%0 = graph.conv %x, %w, %b {{dilations = array<i64: {dilation}, {dilation}>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>, strides = array<i64: {stride}, {stride}>}} : (tensor<1x{cin}x{h}x{w}xf32>, tensor<{cout}x{cin}x{k}x{k}xf32>, tensor<{cout}xf32>) -> {t}"
        );
        let (extra, body, result) = if relu_add {
            (
                format!(", %r: {t}"),
                format!(
                    "  %1 = graph.add %0, %r : ({t}, {t}) -> {t}\n  %2 = graph.relu %1 : {t}\n"
                ),
                "%2",
            )
        } else {
            (String::new(), String::new(), "%0")
        };
        format!(
            "func.func @f(%x: tensor<1x{cin}x{h}x{w}xf32>, %w: tensor<{cout}x{cin}x{k}x{k}xf32>, %b: tensor<{cout}xf32>{extra}) -> {t} {{\n  {conv}\n{body}  return {result} : {t}\n}}\n"
        )
    }
}

/// A stem: 3 colour channels, a 7x7 window, stride 2 and padding 3.
fn stem(size: (i64, i64), cout: i64) -> Windowed {
    Windowed {
        cin: 3,
        cout,
        size,
        k: 7,
        stride: 2,
        pad: 3,
        dilation: 1,
        relu_add: false,
    }
}

/// Whether the sums are stored as vectors straight into rows of a `1 x cout x ..` buffer.
fn stores_result_rows(text: &str, cout: i64) -> bool {
    text.lines()
        .any(|l| l.contains("loop.vector_store") && l.contains(&format!("memref<1x{cout}x")))
}

/// Whether the kernel's sums are stored as vectors straight into rows of a `1 x cout x ..`
/// buffer, and nothing is staged channels-last.
fn writes_result_rows(text: &str, cout: i64) -> bool {
    let rows = text
        .lines()
        .any(|l| l.contains("loop.vector_store") && l.contains(&format!("memref<1x{cout}x")));
    let staged = text
        .lines()
        .any(|l| l.contains("loop.alloc() : memref<") && !l.contains("memref<1x"));
    rows && !staged
}

#[test]
fn a_pointwise_convolution_keeps_pixels_in_the_vector_lanes() {
    // Rows of 19 pixels: a block of two 8-lane vectors, then one vector overlapping it.
    let out = check(
        &pointwise(6, 16, (5, 19), 1, false),
        "loop-conv-microkernel{vector=8 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(writes_result_rows(&out.text, 16), "{}", out.text);
    // The input is read where it lies, a row of 8 pixels at a time.
    assert!(out.text.contains("loop.vector_load %arg0"), "{}", out.text);
}

#[test]
fn output_channels_left_over_by_the_block_are_computed() {
    // 11 output channels: no block size from half the registers' worth up divides them.
    let out = check(
        &pointwise(5, 11, (3, 16), 1, false),
        "loop-conv-microkernel{vector=8 threads=1}",
    );
    assert!(writes_result_rows(&out.text, 11), "{}", out.text);
}

#[test]
fn a_residual_add_and_relu_are_computed_on_the_kernel_vectors() {
    let out = check(
        &pointwise(4, 8, (4, 12), 1, true),
        "loop-conv-microkernel{vector=4 threads=0}",
    );
    // Only the epilogue's result is allocated: the convolution's own is never written.
    assert_eq!(out.text.matches("loop.alloc").count(), 1, "{}", out.text);
    assert!(writes_result_rows(&out.text, 8), "{}", out.text);
    assert!(out.text.contains("arith.select"), "the ReLU:\n{}", out.text);
}

#[test]
fn a_strided_row_read_over_many_channels_keeps_the_channel_vectorized_kernel() {
    // Stride 2 in both directions reads every other column of 8 input channels (more than
    // a stem's): the channel-vectorized kernel computes it.
    let out = check(
        &pointwise(8, 8, (9, 18), 2, false),
        "loop-conv-microkernel{vector=4 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(!writes_result_rows(&out.text, 8), "{}", out.text);
}

#[test]
fn rows_narrower_than_a_vector_keep_the_channel_vectorized_kernel() {
    let out = check(
        &pointwise(4, 16, (6, 7), 1, false),
        "loop-conv-microkernel{vector=8 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(!writes_result_rows(&out.text, 16), "{}", out.text);
}

#[test]
fn the_option_keeps_the_channel_vectorized_kernel() {
    let out = check(
        &pointwise(6, 16, (5, 19), 1, false),
        "loop-conv-microkernel{vector=8 threads=0 pointwise=false}",
    );
    assert!(!writes_result_rows(&out.text, 16), "{}", out.text);
}

#[test]
fn explicit_channel_blocking_keeps_the_channel_vectorized_kernel() {
    // The tuner's convolution decisions spell `mr`/`nr`: they block the
    // channel-vectorized kernel, whatever the convolution's shape.
    let out = check(
        &pointwise(6, 16, (5, 19), 1, false),
        "loop-conv-microkernel{mr=4 nr=16 vector=8 threads=0}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(!writes_result_rows(&out.text, 16), "{}", out.text);
}

#[test]
fn convolutions_with_no_channels_are_left_alone() {
    // Zero input channels (every output is the bias) or zero output channels: nothing for
    // the kernel to block, and no panic.
    for (cin, cout) in [(0, 8), (3, 0)] {
        let out = check(
            &pointwise(cin, cout, (4, 16), 1, false),
            "loop-conv-microkernel{vector=4 threads=0}",
        );
        assert!(!out.text.contains("loop.fma"), "{}", out.text);
    }
}

#[test]
fn a_stem_keeps_pixels_in_the_vector_lanes() {
    // Rows of 11 output pixels: one 8-lane vector, then one overlapping it.
    let out = check(
        &stem((13, 21), 16).source(),
        "loop-conv-microkernel{vector=8 threads=0}",
    );
    assert!(stores_result_rows(&out.text, 16), "{}", out.text);
    // The padded input is copied once with its columns split by phase (stride 2).
    assert!(
        out.text.contains("loop.alloc() : memref<3x2x"),
        "{}",
        out.text
    );
    assert!(
        !out.text.contains("loop.alloc() : memref<7x11x"),
        "{}",
        out.text
    );
}

#[test]
fn a_stem_on_threads_with_channels_left_over_is_computed() {
    // 11 output channels: a block and a smaller one, rows shared between threads.
    let out = check(
        &stem((16, 16), 11).source(),
        "loop-conv-microkernel{vector=4 threads=1}",
    );
    assert!(stores_result_rows(&out.text, 11), "{}", out.text);
    assert!(out.text.contains("loop.parallel"), "{}", out.text);
}

#[test]
fn an_unpadded_dilated_window_reads_the_input_where_it_lies() {
    let conv = Windowed {
        cin: 2,
        cout: 8,
        size: (9, 14),
        k: 3,
        stride: 1,
        pad: 0,
        dilation: 2,
        relu_add: false,
    };
    let out = check(&conv.source(), "loop-conv-microkernel{vector=4 threads=0}");
    assert!(stores_result_rows(&out.text, 8), "{}", out.text);
    assert!(out.text.contains("loop.vector_load %arg0"), "{}", out.text);
    assert_eq!(out.text.matches("loop.alloc").count(), 1, "{}", out.text);
}

#[test]
fn a_windowed_convolution_computes_its_residual_add_and_relu_on_the_kernel_vectors() {
    let conv = Windowed {
        relu_add: true,
        ..stem((12, 12), 8)
    };
    // The result is 6 x 6: one 4-lane vector, then one overlapping it.
    let out = check(&conv.source(), "loop-conv-microkernel{vector=4 threads=0}");
    assert!(stores_result_rows(&out.text, 8), "{}", out.text);
    assert!(out.text.contains("arith.select"), "the ReLU:\n{}", out.text);
}

#[test]
fn a_window_over_many_input_channels_keeps_the_channel_vectorized_kernel() {
    let conv = Windowed {
        cin: 8,
        cout: 8,
        size: (6, 12),
        k: 3,
        stride: 1,
        pad: 1,
        dilation: 1,
        relu_add: false,
    };
    let out = check(&conv.source(), "loop-conv-microkernel{vector=4 threads=0}");
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(!stores_result_rows(&out.text, 8), "{}", out.text);
}

/// The bounds of the kernel's `loop.parallel`, as printed (`(0, 0) to (.., ..)`).
fn parallel_bounds(text: &str) -> &str {
    let line = text
        .lines()
        .find(|l| l.contains("loop.parallel"))
        .expect("a loop.parallel");
    let start = line.find("= (").expect("bounds") + 2;
    line[start..].split(" step").next().unwrap()
}

#[test]
fn a_large_input_over_several_channel_blocks_loops_over_rows_outside_them() {
    // 32 input channels of 12 x 32 pixels (48 KiB) against 16 x 32 weights (2 KiB): with
    // the rows inside, every block of at most 8 output channels would read the input again.
    let out = check(
        &pointwise(32, 16, (12, 32), 1, false),
        "loop-conv-microkernel{vector=8 threads=1}",
    );
    assert_eq!(
        parallel_bounds(&out.text),
        "(0, 0) to (12, 16)",
        "{}",
        out.text
    );
    assert!(writes_result_rows(&out.text, 16), "{}", out.text);
}

#[test]
fn one_block_of_output_channels_keeps_the_rows_inside() {
    // 4 output channels make one block, which reads the input once either way.
    let out = check(
        &pointwise(32, 4, (12, 32), 1, false),
        "loop-conv-microkernel{vector=8 threads=1}",
    );
    assert_eq!(
        parallel_bounds(&out.text),
        "(0, 0) to (4, 12)",
        "{}",
        out.text
    );
    assert!(writes_result_rows(&out.text, 4), "{}", out.text);
}

#[test]
fn an_expansion_on_rows_narrower_than_a_vector_reads_each_plane_as_one_row() {
    // 7-pixel rows, 10 of them: the 70-pixel plane is one row of eight 8-lane vectors and
    // one overlapping the last, through views of the input and result as `1 x 70` planes.
    let out = check(
        &pointwise(4, 12, (10, 7), 1, false),
        "loop-conv-microkernel{vector=8 threads=1}",
    );
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    assert!(
        out.text
            .contains("memref<1x4x10x7xf32> to memref<1x4x1x70xf32>"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("memref<1x12x10x7xf32> to memref<1x12x1x70xf32>"),
        "{}",
        out.text
    );
    assert!(
        !out.text.contains("memref<10x7x"),
        "nothing staged channels-last:\n{}",
        out.text
    );
}

#[test]
fn a_plane_epilogue_reads_and_writes_its_buffers_as_planes() {
    // The residual add and ReLU run on the kernel's vectors, on views of the residual and
    // of the result as planes; the convolution's own result is never written.
    let out = check(
        &pointwise(4, 12, (10, 7), 1, true),
        "loop-conv-microkernel{vector=8 threads=0}",
    );
    assert_eq!(
        out.text
            .matches("memref<1x12x10x7xf32> to memref<1x12x1x70xf32>")
            .count(),
        2,
        "{}",
        out.text
    );
    assert!(!out.text.contains("memref<10x7x"), "{}", out.text);
}

#[test]
fn a_projection_on_narrow_rows_keeps_the_channel_vectorized_kernel() {
    // More input than output channels: each output sums many products, and the
    // channel-vectorized kernel's transposition costs less than the plane's partial
    // vector.
    let out = check(
        &pointwise(12, 4, (10, 7), 1, false),
        "loop-conv-microkernel{vector=8 threads=1}",
    );
    assert!(
        !out.text.contains("memref.reinterpret_cast"),
        "{}",
        out.text
    );
}

#[test]
fn a_plane_of_few_vectors_keeps_the_channel_vectorized_kernel() {
    // 5 x 7 = 35 pixels: four 8-lane vectors and one partial, fewer than eight.
    let out = check(
        &pointwise(4, 12, (5, 7), 1, false),
        "loop-conv-microkernel{vector=8 threads=1}",
    );
    assert!(
        !out.text.contains("memref.reinterpret_cast"),
        "{}",
        out.text
    );
}
