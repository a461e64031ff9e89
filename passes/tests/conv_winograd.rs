//! `loop-conv-microkernel`'s Winograd kernel (F(2x2, 3x3)) keeps what 3x3 convolutions
//! compute: padded and unpadded, even and odd output sizes (the last tiles reach past the
//! result), with bias and activation epilogues, on one thread and on threads, checked by
//! the interpreter on random inputs against the graph-level program; convolutions it does
//! not fit keep the direct kernel.

mod common;

use common::{dense, values};
use tb_interpreter::check::{CheckReport, Tolerance};

/// Sums of 144 products of values in [-1, 1): the FMA of the direct kernel and Winograd's
/// reassociated sums both round differently from the graph-level program, by a few units
/// in the last place of the largest partial sums.
const SUMS: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 1e-5,
};

/// A 3x3 convolution with constant weights `cout x cin x 3 x 3` and bias, followed by a
/// relu when `relu`: `x: 1 x cin x h x w`, `pads` as ONNX orders them.
struct Conv3x3 {
    cin: i64,
    cout: i64,
    h: i64,
    w: i64,
    pads: [i64; 4],
    stride: i64,
    relu: bool,
}

impl Conv3x3 {
    fn source(&self, seed: u64) -> String {
        let Conv3x3 {
            cin,
            cout,
            h,
            w,
            pads,
            stride,
            relu,
        } = *self;
        let oh = (h + pads[0] + pads[2] - 3) / stride + 1;
        let ow = (w + pads[1] + pads[3] - 3) / stride + 1;
        let weights = dense(&values(cout * cin * 9, seed), &[cout, cin, 3, 3]);
        let bias = dense(&values(cout, seed + 1), &[cout]);
        let out = format!("tensor<1x{cout}x{oh}x{ow}xf32>");
        let activation = if relu {
            format!("  %r = graph.relu %y : {out}\n")
        } else {
            String::new()
        };
        let result = if relu { "%r" } else { "%y" };
        format!(
            "func.func @conv(%x: tensor<1x{cin}x{h}x{w}xf32>) -> {out} {{\n\
             %w = graph.constant {weights} : tensor<{cout}x{cin}x3x3xf32>\n\
             %b = graph.constant {bias} : tensor<{cout}xf32>\n\
             %y = graph.conv %x, %w, %b {{pads = array<i64: {}, {}, {}, {}>, strides = array<i64: {stride}, {stride}>}} : (tensor<1x{cin}x{h}x{w}xf32>, tensor<{cout}x{cin}x3x3xf32>, tensor<{cout}xf32>) -> {out}\n\
             {activation}  return {result} : {out}\n}}\n",
            pads[0], pads[1], pads[2], pads[3]
        )
    }
}

const PADDED: Conv3x3 = Conv3x3 {
    cin: 16,
    cout: 32,
    h: 8,
    w: 8,
    pads: [1, 1, 1, 1],
    stride: 1,
    relu: false,
};

/// F(4x4, 3x3)'s transforms scale by up to 8 (`Aᵀ`) and its `G` holds sixths, so its
/// sums round by a few units in the last place of values up to about 8 times the
/// outputs (here about 4): absolute errors up to a few 1e-5, which `SUMS` allows only on
/// the largest outputs.
const F4_SUMS: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 1e-4,
};

fn check(conv: &Conv3x3, seed: u64, kernel: &str) -> CheckReport {
    check_within(conv, seed, kernel, SUMS)
}

fn check_within(conv: &Conv3x3, seed: u64, kernel: &str, tolerance: Tolerance) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func({kernel}))"
    );
    common::check_pipeline_within(&conv.source(seed), &pipeline, 3, tolerance)
}

/// Whether the function reads weights transformed at compile time (the constant
/// `U[16][M / NR][C][NR]`) and transforms tiles (only the transforms subtract).
fn winograd(text: &str) -> bool {
    text.contains("_packed : memref<16x") && text.contains("arith.subf")
}

#[test]
fn a_padded_convolution_runs_as_winograd_products() {
    let out = check(&PADDED, 1, "loop-conv-microkernel{vector=4 threads=0}");
    assert!(
        out.text.contains("memref<16x8x16x4xf32>"),
        "U[16][M / NR][C][NR]:\n{}",
        out.text
    );
    // V[16][T][C] and M[16][T][M] between the phases.
    assert!(out.text.contains("memref<16x16x16xf32>"), "{}", out.text);
    assert!(out.text.contains("memref<16x16x32xf32>"), "{}", out.text);
    assert!(!out.text.contains("arith.select"), "{}", out.text);
}

#[test]
fn odd_output_sizes_compute_past_the_edge_and_keep_the_result() {
    // 7 x 9 outputs: tiles cover 8 x 10, asymmetric padding.
    let conv = Conv3x3 {
        h: 7,
        w: 10,
        pads: [1, 0, 1, 1],
        ..PADDED
    };
    let out = check(&conv, 2, "loop-conv-microkernel{vector=4 threads=0}");
    assert!(winograd(&out.text), "{}", out.text);
}

#[test]
fn an_unpadded_convolution_with_an_odd_output() {
    // 9 x 9 input, 7 x 7 output: the last tiles read zeros past the input.
    let conv = Conv3x3 {
        h: 9,
        w: 9,
        pads: [0, 0, 0, 0],
        ..PADDED
    };
    let out = check(&conv, 3, "loop-conv-microkernel{vector=4 threads=0}");
    assert!(winograd(&out.text), "{}", out.text);
}

#[test]
fn the_activation_is_computed_where_the_result_is_written() {
    let conv = Conv3x3 {
        relu: true,
        ..PADDED
    };
    let out = check(&conv, 4, "loop-conv-microkernel{vector=4 threads=1}");
    assert!(winograd(&out.text), "{}", out.text);
    // The kernel's phases and the write-back on threads; the relu's nest is gone.
    assert_eq!(
        out.text.matches("loop.parallel").count(),
        5,
        "padding, input transform, products, output transform, write-back:\n{}",
        out.text
    );
}

#[test]
fn eight_lane_vectors_on_threads() {
    let conv = Conv3x3 {
        cin: 32,
        cout: 40,
        h: 6,
        w: 11,
        ..PADDED
    };
    let out = check(&conv, 5, "loop-conv-microkernel{vector=8 threads=1}");
    assert!(winograd(&out.text), "{}", out.text);
}

#[test]
fn the_option_keeps_the_direct_kernel() {
    let out = check(
        &PADDED,
        6,
        "loop-conv-microkernel{vector=4 threads=0 winograd=false}",
    );
    assert!(!winograd(&out.text), "{}", out.text);
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}

#[test]
fn a_strided_convolution_keeps_the_direct_kernel() {
    let conv = Conv3x3 {
        stride: 2,
        h: 11,
        w: 11,
        ..PADDED
    };
    let out = check(&conv, 7, "loop-conv-microkernel{vector=4 threads=0}");
    assert!(!winograd(&out.text), "{}", out.text);
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}

#[test]
fn channels_the_vector_does_not_divide_keep_the_direct_kernel() {
    let conv = Conv3x3 { cin: 20, ..PADDED };
    let out = check(&conv, 8, "loop-conv-microkernel{vector=8 threads=0}");
    assert!(!winograd(&out.text), "{}", out.text);
}

#[test]
fn few_output_channels_keep_the_direct_kernel() {
    let conv = Conv3x3 { cout: 16, ..PADDED };
    let out = check(&conv, 10, "loop-conv-microkernel{vector=4 threads=0}");
    assert!(!winograd(&out.text), "{}", out.text);
}

#[test]
fn explicit_blocking_asks_for_the_direct_kernel() {
    let out = check(
        &PADDED,
        9,
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    assert!(!winograd(&out.text), "{}", out.text);
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}

#[test]
fn weights_that_are_not_constant_keep_the_direct_kernel() {
    let src = "func.func @conv(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32> {\n\
               %y = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>\n\
               return %y : tensor<1x32x8x8xf32>\n}\n";
    let out = common::check_pipeline_within(
        src,
        "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, func.func(loop-conv-microkernel{vector=4 threads=0}))",
        2,
        SUMS,
    );
    assert!(!winograd(&out.text), "{}", out.text);
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}

/// Four convolutions in a row: each one's rounding differences are summed by the next
/// one's 288 products. A wrong layout of the in-place copies differs by the values
/// themselves, near 1.
const CHAIN: Tolerance = Tolerance {
    rtol: 1e-3,
    atol: 1e-4,
};

/// conv -> relu -> conv -> residual add -> relu -> unpadded conv -> relu -> conv, all
/// Winograd, 32 channels, 7 x 9: each relu or residual epilogue writes the next
/// convolution's channels-last copy in place.
fn chain_source(seed: u64) -> String {
    // Scaled so that the activations stay near 1 through the four convolutions.
    let weights = |k: u64| {
        let scaled: Vec<f32> = values(32 * 32 * 9, seed + k)
            .iter()
            .map(|v| v / 8.0)
            .collect();
        dense(&scaled, &[32, 32, 3, 3])
    };
    let bias = dense(&values(32, seed + 9), &[32]);
    let t79 = "tensor<1x32x7x9xf32>";
    let t57 = "tensor<1x32x5x7xf32>";
    let w = "tensor<32x32x3x3xf32>";
    let conv = |out: &str, x: &str, wv: &str, pad: i64, from: &str, to: &str| {
        format!(
            "  {out} = graph.conv {x}, {wv}, %b {{pads = array<i64: {pad}, {pad}, {pad}, {pad}>}} : ({from}, {w}, tensor<32xf32>) -> {to}\n"
        )
    };
    format!(
        "func.func @chain(%x: {t79}) -> {t57} {{\n\
         %w1 = graph.constant {} : {w}\n\
         %w2 = graph.constant {} : {w}\n\
         %w3 = graph.constant {} : {w}\n\
         %w4 = graph.constant {} : {w}\n\
         %b = graph.constant {bias} : tensor<32xf32>\n\
         {}  %r = graph.relu %y : {t79}\n\
         {}  %s = graph.add %z, %r : ({t79}, {t79}) -> {t79}\n\
         %t = graph.relu %s : {t79}\n\
         {}  %v = graph.relu %u : {t57}\n\
         {}  return %q : {t57}\n}}\n",
        weights(1),
        weights(2),
        weights(3),
        weights(4),
        conv("%y", "%x", "%w1", 1, t79, t79),
        conv("%z", "%r", "%w2", 1, t79, t79),
        conv("%u", "%t", "%w3", 0, t79, t57),
        conv("%q", "%v", "%w4", 1, t57, t57),
    )
}

#[test]
fn producers_write_the_next_convolutions_channels_last_copy_in_place() {
    for threads in [0, 1] {
        let pipeline = format!(
            "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func(loop-conv-microkernel{{vector=4 threads={threads}}}))"
        );
        let out = common::check_pipeline_within(&chain_source(11), &pipeline, 3, CHAIN);
        assert!(winograd(&out.text), "{}", out.text);
        // The inputs of the second, third and fourth convolution are views of their
        // channels-last copies (C = 32: channel stride 1, column stride 32).
        let views = out
            .text
            .lines()
            .filter(|l| {
                l.contains("= memref.reinterpret_cast")
                    && l.contains(", 1, ")
                    && l.contains(", 32]")
            })
            .count();
        assert_eq!(views, 3, "{}", out.text);
    }
}

/// Whether the function runs F(4x4, 3x3): 36 positions of transformed weights.
fn winograd_f4(text: &str) -> bool {
    text.contains("_packed : memref<36x") && text.contains("arith.subf")
}

#[test]
fn f4_computes_a_padded_convolution() {
    let out = check_within(
        &PADDED,
        12,
        "loop-conv-microkernel{vector=4 threads=0 winograd-tile=4}",
        F4_SUMS,
    );
    assert!(winograd_f4(&out.text), "{}", out.text);
    // 2 x 2 tiles of 4 x 4 outputs: V[36][4][C], M[36][4][M], Ot[8][8][M].
    assert!(out.text.contains("memref<36x4x16xf32>"), "{}", out.text);
    assert!(out.text.contains("memref<36x4x32xf32>"), "{}", out.text);
    assert!(out.text.contains("memref<8x8x32xf32>"), "{}", out.text);
}

#[test]
fn f4_computes_odd_outputs_past_the_edge_on_threads() {
    // 7 x 9 outputs: tiles cover 8 x 12; unpadded rows, padded columns.
    let conv = Conv3x3 {
        h: 9,
        w: 9,
        pads: [0, 1, 0, 1],
        relu: true,
        ..PADDED
    };
    let out = check_within(
        &conv,
        13,
        "loop-conv-microkernel{vector=4 threads=1 winograd-tile=4}",
        F4_SUMS,
    );
    assert!(winograd_f4(&out.text), "{}", out.text);
}

#[test]
fn the_tile_follows_the_output_size() {
    // 24 x 24 outputs: 36 tiles of 4 x 4, at least 32: F(4x4, 3x3). 8 x 8: 4 tiles, F2.
    let big = Conv3x3 {
        h: 24,
        w: 24,
        ..PADDED
    };
    let out = check_within(
        &big,
        14,
        "loop-conv-microkernel{vector=4 threads=0}",
        F4_SUMS,
    );
    assert!(winograd_f4(&out.text), "{}", out.text);
    let out = check(&PADDED, 15, "loop-conv-microkernel{vector=4 threads=0}");
    assert!(
        winograd(&out.text) && !winograd_f4(&out.text),
        "{}",
        out.text
    );
}

#[test]
fn f4_chains_write_their_copies_in_place() {
    let pipeline = "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func(loop-conv-microkernel{vector=4 threads=1 winograd-tile=4}))";
    let out = common::check_pipeline_within(&chain_source(16), pipeline, 3, CHAIN);
    assert!(winograd_f4(&out.text), "{}", out.text);
    assert_eq!(
        out.text.matches("= memref.reinterpret_cast").count(),
        3,
        "{}",
        out.text
    );
}
