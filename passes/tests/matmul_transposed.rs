//! `loop-matmul-microkernel` on matmuls whose `B` is read transposed (`A x B^T`, as
//! attention's `Q K^T` is after `te-fuse` folds the transpose into the contraction),
//! batched or not: `B` is gathered into `NR`-column panels and the nest register-blocked;
//! every result is checked against the interpreter on random inputs.

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

fn check_pipeline(src: &str, pipeline: &str) -> CheckReport {
    let report = check_transform(
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
        Tolerance::default(),
        4,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "every function runs: {:?}",
        report.skipped
    );
    report
}

/// `a x transpose(b)` over the last two dimensions (`batch` leading dimensions on both),
/// lowered with `te-fuse` (which reads `b` transposed inside the matmul) and blocked with
/// `options`.
fn a_times_b_transposed(batch: &[i64], (m, k, n): (i64, i64, i64), options: &str) -> String {
    let lead: String = batch.iter().map(|d| format!("{d}x")).collect();
    let rank = batch.len() + 2;
    let mut perm: Vec<usize> = (0..rank).collect();
    perm.swap(rank - 2, rank - 1);
    let perm = perm
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let (a, b, bt, c) = (
        format!("tensor<{lead}{m}x{k}xf32>"),
        format!("tensor<{lead}{n}x{k}xf32>"),
        format!("tensor<{lead}{k}x{n}xf32>"),
        format!("tensor<{lead}{m}x{n}xf32>"),
    );
    let src = format!(
        "func.func @mm(%a: {a}, %b: {b}) -> {c} {{\n\
         %t = graph.transpose %b {{perm = array<i64: {perm}>}} : ({b}) -> {bt}\n\
         %c = graph.matmul %a, %t : ({a}, {bt}) -> {c}\n\
         return %c : {c}\n}}\n"
    );
    check_pipeline(
        &src,
        &format!(
            "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-matmul-microkernel{{{options}}})"
        ),
    )
    .text
}

#[test]
fn a_transposed_b_is_gathered_into_panels_and_blocked() {
    // Whole tiles, leftover rows (a smaller register block) and leftover columns (the
    // scalar nest), with KC slices that do and do not divide the reduction.
    for (m, k, n) in [(8, 6, 16), (13, 7, 19), (5, 3, 9), (2, 5, 8)] {
        let text = a_times_b_transposed(&[], (m, k, n), "mr=4 nr=8 nc=16 kc=4 vector=4");
        assert!(text.contains("loop.fma"), "{m}x{k}x{n}:\n{text}");
        let panels = format!("memref<{}x{}x8xf32>", n / 8, k.min(4));
        assert!(text.contains(&panels), "{m}x{k}x{n}:\n{text}");
    }
}

#[test]
fn a_batched_transposed_b_is_gathered_into_panels_per_batch() {
    // Attention's scores: heads x queries x keys, B = K read as [h, j, k].
    for (batch, (m, k, n)) in [
        (vec![2], (6, 5, 8)),
        (vec![3], (13, 7, 19)),
        (vec![2, 2], (5, 4, 9)),
        (vec![1, 4], (12, 8, 16)),
    ] {
        let text = a_times_b_transposed(&batch, (m, k, n), "mr=4 nr=8 kc=3 vector=4");
        assert!(text.contains("loop.fma"), "{batch:?} {m}x{k}x{n}:\n{text}");
        // One set of panels per batch index B depends on (a unit dimension is indexed by
        // a constant, not a loop).
        let lead: String = batch
            .iter()
            .filter(|&&d| d > 1)
            .map(|d| format!("{d}x"))
            .collect();
        let panels = format!("memref<{lead}{}x{k}x8xf32>", n / 8);
        assert!(
            text.contains(&panels),
            "{batch:?} {m}x{k}x{n}: {panels}:\n{text}"
        );
    }
}

#[test]
fn a_transposed_b_stays_a_loop_nest_without_packing() {
    for batch in [vec![], vec![2]] {
        let text = a_times_b_transposed(&batch, (8, 6, 16), "mr=4 nr=8 vector=4 pack-rhs=false");
        assert!(!text.contains("loop.fma"), "{batch:?}:\n{text}");
    }
}
