//! `loop-matmul-microkernel` computes the elementwise nest that reads a packed matmul's
//! result (bias, GELU, a residual add, a per-row scale) on the accumulators where the
//! kernel stores them, so the result is never written; with several KC slices the last
//! one is peeled to do it; columns the register block leaves over keep the nest,
//! narrowed. It refuses when the result has another reader. Checked by the interpreter on
//! random inputs against the graph-level program.

mod common;

use common::{dense, values};
use tb_interpreter::check::CheckReport;

fn check(src: &str, kernel: &str) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func({kernel}))"
    );
    let report = common::check_pipeline_with_seeds(src, &pipeline, 3);
    assert!(
        report.text.contains("loop.fma"),
        "a micro-kernel:\n{}",
        report.text
    );
    report
}

/// The two-dimensional `loop.parallel` nests without a reduction: the elementwise nests
/// left (the kernel's nests run over row blocks, and a peeled remainder reduces).
fn elementwise_nests(text: &str) -> usize {
    text.split("loop.parallel (")
        .skip(1)
        .filter(|nest| {
            let header = nest.split(')').next().unwrap_or("");
            header.contains(", %") && !nest.contains("iter_args")
        })
        .count()
}

/// `gelu(a x w + bias)` with a constant `w: k x n`.
fn matmul_bias_gelu(m: i64, k: i64, n: i64) -> String {
    let w = dense(&values(k * n, 7), &[k, n]);
    format!(
        "func.func @ffn(%a: tensor<{m}x{k}xf32>, %bias: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{\n\
         %w = graph.constant {w} : tensor<{k}x{n}xf32>\n\
         %0 = graph.matmul %a, %w : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n\
         %1 = graph.add %0, %bias : (tensor<{m}x{n}xf32>, tensor<{n}xf32>) -> tensor<{m}x{n}xf32>\n\
         %2 = graph.gelu %1 : tensor<{m}x{n}xf32>\n\
         return %2 : tensor<{m}x{n}xf32>\n}}\n"
    )
}

#[test]
fn bias_and_gelu_are_computed_on_the_accumulators() {
    // 7 rows: one full block of 4 and a block of 3; one KC slice.
    let out = check(
        &matmul_bias_gelu(7, 8, 16),
        "loop-matmul-microkernel{mr=4 nr=8 kc=8 vector=4}",
    );
    assert!(out.text.contains("math.erf %"), "{}", out.text);
    assert!(
        out.text.contains("math.erf") && out.text.contains(": vector<4xf32>"),
        "{}",
        out.text
    );
    // The matmul's result buffer is gone: only the output is allocated at 7x16.
    assert_eq!(
        out.text.matches("loop.alloc() : memref<7x16xf32>").count(),
        1,
        "{}",
        out.text
    );
    assert_eq!(elementwise_nests(&out.text), 0, "{}", out.text);
}

#[test]
fn the_last_of_several_reduction_slices_computes_the_epilogue() {
    // kc = 3 over k = 8: slices at 0, 3 and 6; the one at 6 is peeled.
    let out = check(
        &matmul_bias_gelu(7, 8, 16),
        "loop-matmul-microkernel{mr=4 nr=8 kc=3 vector=4}",
    );
    assert!(
        out.text.contains("loop.for %arg2 = 0 to 6 step 3"),
        "{}",
        out.text
    );
    assert!(out.text.contains("= 6 to 8 step 3"), "{}", out.text);
    // C holds the partial sums of the first slices.
    assert_eq!(
        out.text.matches("loop.alloc() : memref<7x16xf32>").count(),
        2,
        "{}",
        out.text
    );
    assert_eq!(elementwise_nests(&out.text), 0, "{}", out.text);
}

#[test]
fn columns_left_over_keep_the_nest_narrowed_to_them() {
    for (m, k, n) in [(5, 6, 19), (9, 4, 12), (3, 5, 9)] {
        let out = check(
            &matmul_bias_gelu(m, k, n),
            "loop-matmul-microkernel{mr=4 nr=8 kc=4 vector=4}",
        );
        assert!(out.text.contains("math.erf"), "{}", out.text);
        let nf = n - n % 8;
        assert!(
            out.text.contains(&format!(
                "loop.parallel (%arg2, %arg3) = (0, {nf}) to ({m}, {n})"
            )),
            "{m}x{k}x{n}:\n{}",
            out.text
        );
    }
}

#[test]
fn a_residual_add_and_a_per_row_scale_read_at_the_accumulators_point() {
    // `relu(a x w * s + r)`: `s` is one value per row (uniform along the vector, at the
    // accumulator's row), `r` is read along the row like the result.
    let (m, k, n) = (6, 5, 8);
    let w = dense(&values(k * n, 3), &[k, n]);
    let src = format!(
        "func.func @f(%a: tensor<{m}x{k}xf32>, %s: tensor<{m}x1xf32>, %r: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n\
         %w = graph.constant {w} : tensor<{k}x{n}xf32>\n\
         %0 = graph.matmul %a, %w : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n\
         %1 = graph.mul %0, %s : (tensor<{m}x{n}xf32>, tensor<{m}x1xf32>) -> tensor<{m}x{n}xf32>\n\
         %2 = graph.add %1, %r : (tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>\n\
         %3 = graph.relu %2 : tensor<{m}x{n}xf32>\n\
         return %3 : tensor<{m}x{n}xf32>\n}}\n"
    );
    let out = check(&src, "loop-matmul-microkernel{mr=4 nr=8 kc=8 vector=4}");
    assert_eq!(elementwise_nests(&out.text), 0, "{}", out.text);
    // The scale of the block's third row.
    assert!(
        out.text.contains("-> (d0 + 2, 0)](%"),
        "the per-row load is shifted to its row:\n{}",
        out.text
    );
}

#[test]
fn a_result_with_another_reader_keeps_its_nest() {
    let (m, k, n) = (4, 4, 8);
    let w = dense(&values(k * n, 5), &[k, n]);
    let src = format!(
        "func.func @f(%a: tensor<{m}x{k}xf32>) -> (tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32>) {{\n\
         %w = graph.constant {w} : tensor<{k}x{n}xf32>\n\
         %0 = graph.matmul %a, %w : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n\
         %1 = graph.relu %0 : tensor<{m}x{n}xf32>\n\
         return %1, %0 : tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32>\n}}\n"
    );
    let out = check(&src, "loop-matmul-microkernel{mr=4 nr=8 kc=8 vector=4}");
    assert_eq!(elementwise_nests(&out.text), 1, "{}", out.text);
}

#[test]
fn epilogues_false_keeps_the_nest() {
    let out = check(
        &matmul_bias_gelu(7, 8, 16),
        "loop-matmul-microkernel{mr=4 nr=8 kc=8 vector=4 epilogues=false}",
    );
    assert_eq!(elementwise_nests(&out.text), 1, "{}", out.text);
}

#[test]
fn an_unpacked_kernel_computes_the_epilogue_too() {
    for kc in [8, 3] {
        let out = check(
            &matmul_bias_gelu(7, 8, 19),
            &format!("loop-matmul-microkernel{{mr=4 nr=8 kc={kc} vector=4 pack-rhs=false}}"),
        );
        assert!(out.text.contains("math.erf"), "{}", out.text);
        // Only the three columns left over by the register block keep the nest.
        assert!(
            out.text
                .contains("loop.parallel (%arg2, %arg3) = (0, 16) to (7, 19)"),
            "kc={kc}:\n{}",
            out.text
        );
    }
}

#[test]
fn a_batched_matmul_computes_the_epilogue_per_batch() {
    // `relu(a x w + bias)` with `a: 2 x 5 x 6` and a shared `w`: the batch dimension is
    // on threads with the row blocks, the epilogue at each batch's accumulators.
    let w = dense(&values(6 * 8, 9), &[6, 8]);
    let src = format!(
        "func.func @f(%a: tensor<2x5x6xf32>, %bias: tensor<8xf32>) -> tensor<2x5x8xf32> {{\n\
         %w = graph.constant {w} : tensor<6x8xf32>\n\
         %0 = graph.matmul %a, %w : (tensor<2x5x6xf32>, tensor<6x8xf32>) -> tensor<2x5x8xf32>\n\
         %1 = graph.add %0, %bias : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>\n\
         %2 = graph.relu %1 : tensor<2x5x8xf32>\n\
         return %2 : tensor<2x5x8xf32>\n}}\n"
    );
    for kc in [6, 4] {
        let out = check(
            &src,
            &format!("loop-matmul-microkernel{{mr=2 nr=8 kc={kc} vector=4}}"),
        );
        assert_eq!(elementwise_nests(&out.text), 0, "kc={kc}:\n{}", out.text);
        assert!(out.text.contains("arith.select"), "{}", out.text);
    }
}
