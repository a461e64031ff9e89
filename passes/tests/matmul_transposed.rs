//! `loop-matmul-microkernel` on matmuls whose `B` is read transposed (`A x B^T`, as
//! attention's `Q K^T` is in the CPU pipeline, where the transpose is folded into the
//! contraction),
//! batched or not: `B` is gathered into `NR`-column panels and the nest register-blocked;
//! every result is checked against the interpreter on random inputs.

mod common;

use common::check_pipeline;

/// `a x transpose(b)` over the last two dimensions (`batch` leading dimensions on both) as
/// `convert-te-to-loop` writes it after `te-fuse` folds the transpose into the matmul
/// (`b` read as `b[.., j, k]`; `b` without the batch dimensions when not `b_batched`),
/// blocked with `options`; returns the blocked module.
fn a_times_b_transposed(
    batch: &[i64],
    b_batched: bool,
    (m, k, n): (i64, i64, i64),
    options: &str,
) -> String {
    let lead: String = batch.iter().map(|d| format!("{d}x")).collect();
    let nb = batch.len();
    let dims = |names: &[&str]| names.join(", ");
    let batch_ivs: Vec<String> = (0..nb).map(|d| format!("%b{d}")).collect();
    let map_dims: Vec<String> = (0..nb + 3).map(|d| format!("d{d}")).collect();
    let (di, dj, dk) = (&map_dims[nb], &map_dims[nb + 1], &map_dims[nb + 2]);
    let batch_dims = &map_dims[..nb];
    let with = |rest: &[&String]| -> String {
        batch_dims
            .iter()
            .chain(rest.iter().copied())
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ivs: Vec<&str> = batch_ivs
        .iter()
        .map(String::as_str)
        .chain(["%i", "%j"])
        .collect();
    let mut operands = ivs.clone();
    operands.push("%k");
    let zeros = vec!["0"; nb + 2].join(", ");
    let mut extents: Vec<String> = batch.iter().map(|d| d.to_string()).collect();
    extents.extend([m.to_string(), n.to_string()]);
    let (a, b, c) = (
        format!("memref<{lead}{m}x{k}xf32>"),
        if b_batched {
            format!("memref<{lead}{n}x{k}xf32>")
        } else {
            format!("memref<{n}x{k}xf32>")
        },
        format!("memref<{lead}{m}x{n}xf32>"),
    );
    let all = map_dims.join(", ");
    let src = format!(
        "func.func @mm(%a: {a}, %b: {b}) -> {c} {{\n\
         %zero = arith.constant 0.0 : f32\n\
         %c = loop.alloc() : {c}\n\
         loop.parallel ({ivs}) = ({zeros}) to ({extents}) {{\n\
         %s = loop.for %k = 0 to {k} iter_args(%acc = %zero) -> (f32) {{\n\
         %x = loop.load %a[({all}) -> ({a_map})]({operands}) : {a}\n\
         %y = loop.load %b[({all}) -> ({b_map})]({operands}) : {b}\n\
         %p = arith.mulf %x, %y : f32\n\
         %t = arith.addf %acc, %p : f32\n\
         loop.yield %t : f32\n\
         }}\n\
         loop.store %s, %c[{ivs}] : {c}\n\
         }}\n\
         return %c : {c}\n}}\n",
        ivs = dims(&ivs),
        extents = extents.join(", "),
        operands = dims(&operands),
        a_map = with(&[di, dk]),
        b_map = if b_batched {
            with(&[dj, dk])
        } else {
            format!("{dj}, {dk}")
        },
    );
    check_pipeline(
        &src,
        &format!("builtin.module(loop-matmul-microkernel{{{options}}})"),
    )
    .text
}

#[test]
fn a_transposed_b_is_gathered_into_panels_and_blocked() {
    // Whole tiles, leftover rows (a smaller register block) and leftover columns (the
    // scalar nest), with KC slices that do and do not divide the reduction.
    for (m, k, n) in [(8, 6, 16), (13, 7, 19), (5, 3, 9), (2, 5, 8)] {
        let text = a_times_b_transposed(&[], true, (m, k, n), "mr=4 nr=8 nc=16 kc=4 vector=4");
        assert!(text.contains("loop.fma"), "{m}x{k}x{n}:\n{text}");
        assert!(gathered(&text), "{m}x{k}x{n}:\n{text}");
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
        let text = a_times_b_transposed(&batch, true, (m, k, n), "mr=4 nr=8 kc=3 vector=4");
        assert!(text.contains("loop.fma"), "{batch:?} {m}x{k}x{n}:\n{text}");
        assert!(gathered(&text), "{batch:?} {m}x{k}x{n}:\n{text}");
        // One set of panels per batch index B depends on.
        let lead: String = batch.iter().map(|d| format!("{d}x")).collect();
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
        let text = a_times_b_transposed(
            &batch,
            true,
            (8, 6, 16),
            "mr=4 nr=8 vector=4 pack-rhs=false",
        );
        assert!(!text.contains("loop.fma"), "{batch:?}:\n{text}");
    }
}

#[test]
fn a_transposed_b_shared_by_the_batches_is_packed_once() {
    // B[j, k] for every batch index of A: one set of panels, no batch dimension.
    for (batch, (m, k, n)) in [(vec![3], (6, 5, 16)), (vec![2, 3], (5, 4, 9))] {
        let text = a_times_b_transposed(&batch, false, (m, k, n), "mr=4 nr=8 vector=4");
        assert!(text.contains("loop.fma"), "{batch:?} {m}x{k}x{n}:\n{text}");
        assert!(gathered(&text), "{batch:?} {m}x{k}x{n}:\n{text}");
        let panels = format!("memref<{}x{k}x8xf32>", n / 8);
        assert!(
            text.contains(&format!("loop.alloc() : {panels}")),
            "{batch:?} {m}x{k}x{n}: {panels}:\n{text}"
        );
    }
}

/// Whether `B` (the second argument) is read element by element, never as vectors.
fn gathered(text: &str) -> bool {
    text.contains("loop.load %arg1") && !text.contains("loop.vector_load %arg1")
}
