//! `loop-fuse`: every fusion computes what the nests computed apart (the reference
//! interpreter on random inputs, before and after the pass), on the lit cases and on the
//! scheduled loop nests of layer norm, softmax and attention-style independent nests.

mod common;

use tb_interpreter::check::CheckReport;

/// The passes that bring graph-level IR to scheduled loop nests, as the CPU pipeline does
/// before `loop-fuse`.
const TO_SCHEDULED_LOOPS: &str = "builtin.module(canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-matmul-microkernel, loop-default-schedule{cores=2 vector-bytes=32}, loop-apply-schedule)";

fn run(src: &str, pipeline: &str) -> CheckReport {
    common::check_pipeline(src, pipeline)
}

/// Loop nests directly in function bodies of printed modules (indented by four spaces).
fn top_level_nests(text: &str) -> usize {
    nests_at_indent(text, 4)
}

/// Loop nests whose lines are indented by `indent` spaces.
fn nests_at_indent(text: &str, indent: usize) -> usize {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            l.len() - t.len() == indent
                && (t.starts_with("loop.for") || t.starts_with("loop.parallel"))
        })
        .count()
}

/// Schedules `graph_src`, then fuses under the interpreter's check; returns the nest
/// counts before and after.
fn fuse_scheduled(graph_src: &str) -> (usize, usize) {
    let scheduled = run(graph_src, TO_SCHEDULED_LOOPS).text;
    let fused = run(&scheduled, "builtin.module(loop-fuse)").text;
    (top_level_nests(&scheduled), top_level_nests(&fused))
}

#[test]
fn the_lit_cases_compute_the_same_fused() {
    let src = include_str!("../../test/Transforms/loop-fuse.mlir");
    let mut fused_cases = 0;
    for case in src.split("// -----") {
        // The lit file writes function bodies at two spaces.
        let before = nests_at_indent(case, 2);
        let report = run(case, "builtin.module(loop-fuse)");
        let after = top_level_nests(&report.text);
        assert!(
            after < before,
            "no fusion in:\n{case}\nafter:\n{}",
            report.text
        );
        fused_cases += 1;
    }
    assert!(fused_cases >= 5);
}

#[test]
fn layer_norm_stages_become_one_nest() {
    let (before, after) = fuse_scheduled(
        "func.func @ln(%x: tensor<1x32x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<1x32x64xf32> {\n\
         %y = graph.layer_normalization %x, %g, %b {axis = -1 : i64} : (tensor<1x32x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x32x64xf32>\n\
         return %y : tensor<1x32x64xf32>\n}\n",
    );
    assert!(before >= 3, "layer norm lowers to several nests ({before})");
    assert_eq!(after, 1, "{before} nests fuse into one");
}

#[test]
fn softmax_stages_fuse() {
    let (before, after) = fuse_scheduled(
        "func.func @sm(%x: tensor<4x16x33xf32>) -> tensor<4x16x33xf32> {\n\
         %s = graph.softmax %x {axis = 2 : i64} : tensor<4x16x33xf32>\n\
         return %s : tensor<4x16x33xf32>\n}\n",
    );
    assert!(after < before, "{before} -> {after}");
}

#[test]
fn a_matmul_with_its_row_normalization_stays_correct() {
    // Matmul micro-kernel nests next to row-wise nests: whatever fuses must agree with
    // the unfused program.
    fuse_scheduled(
        "func.func @mm(%a: tensor<24x40xf32>, %w: tensor<40x48xf32>) -> tensor<24x48xf32> {\n\
         %c = graph.matmul %a, %w : (tensor<24x40xf32>, tensor<40x48xf32>) -> tensor<24x48xf32>\n\
         %s = graph.softmax %c {axis = 1 : i64} : tensor<24x48xf32>\n\
         %r = graph.relu %s : tensor<24x48xf32>\n\
         return %r : tensor<24x48xf32>\n}\n",
    );
}

/// Runs every case of a lit file through `loop-fuse` under the interpreter's check;
/// returns how many cases lost a nest.
fn lit_cases_compute_the_same(src: &str) -> usize {
    let mut fewer = 0;
    for case in src.split("// -----") {
        let before = nests_at_indent(case, 2);
        let report = run(case, "builtin.module(loop-fuse)");
        if top_level_nests(&report.text) < before {
            fewer += 1;
        }
    }
    fewer
}

#[test]
fn inlined_producers_compute_the_same() {
    let src = include_str!("../../test/Transforms/loop-fuse-inline.mlir");
    // The two inlining cases lose their producers; the refusals keep theirs.
    assert!(lit_cases_compute_the_same(src) >= 2);
}

#[test]
fn contracted_buffers_compute_the_same() {
    let src = include_str!("../../test/Transforms/loop-fuse-contract.mlir");
    lit_cases_compute_the_same(src);
}

#[test]
fn a_convolution_with_its_epilogue_becomes_one_nest_with_a_tile_buffer() {
    // The kernel and the transposition that computes bias, residual and ReLU share their
    // outer loops, fuse, and the channels-last sums shrink to one row's tile.
    let src = "func.func @f(%x: tensor<1x8x9x10xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %r: tensor<1x16x9x10xf32>) -> tensor<1x16x9x10xf32> {\n\
         %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x9x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x9x10xf32>\n\
         %1 = graph.add %0, %r : (tensor<1x16x9x10xf32>, tensor<1x16x9x10xf32>) -> tensor<1x16x9x10xf32>\n\
         %2 = graph.relu %1 : tensor<1x16x9x10xf32>\n\
         return %2 : tensor<1x16x9x10xf32>\n}\n";
    let kernel = run(
        src,
        "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-conv-microkernel{mr=4 nr=8 vector=8 threads=1})",
    )
    .text;
    let fused = run(&kernel, "builtin.module(loop-fuse)").text;
    assert!(
        top_level_nests(&fused) < top_level_nests(&kernel),
        "the kernel and its transposition fuse:\n{fused}"
    );
    assert!(
        fused.contains("memref.alloca() {alignment = 64 : i64} : memref<1x10x8xf32>"),
        "the sums shrink to one row of one channel block:\n{fused}"
    );
}
