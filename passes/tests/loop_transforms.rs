//! Loop transformations keep what a loop nest computes: `loop-tile`, `loop-interchange`
//! and `loop-apply-schedule` run under the interpreter's before/after check on random
//! inputs, on bands with partial tiles, non-zero lower bounds and steps.

mod common;

use common::check_pipeline;
use tb_interpreter::check::CheckReport;

/// A 13x10x7 matmul accumulating in its output, with `ATTRS` on the outermost loop.
fn matmul(attrs: &str) -> String {
    r#"
func.func @mm(%a: memref<13x7xf32>, %b: memref<7x10xf32>) -> memref<13x10xf32> {
  %zero = arith.constant 0.0 : f32
  %c = loop.alloc() : memref<13x10xf32>
  loop.parallel (%i, %j) = (0, 0) to (13, 10) {
    loop.store %zero, %c[%i, %j] : memref<13x10xf32>
  }
  loop.for %i = 0 to 13 ATTRS {
    loop.for %j = 0 to 10 {
      loop.for %k = 0 to 7 {
        %x = loop.load %a[%i, %k] : memref<13x7xf32>
        %y = loop.load %b[%k, %j] : memref<7x10xf32>
        %z = loop.load %c[%i, %j] : memref<13x10xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        loop.store %s, %c[%i, %j] : memref<13x10xf32>
      }
    }
  }
  return %c : memref<13x10xf32>
}
"#
    .replace("ATTRS", attrs)
}

/// A strided, offset 2-D nest: writes `a[i][j] * 2` to the odd rows from 1 and the columns
/// from 2 of its output, leaving the rest zero.
const STRIDED: &str = r#"
func.func @strided(%a: memref<17x11xf32>) -> memref<17x11xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c = loop.alloc() : memref<17x11xf32>
  loop.parallel (%i, %j) = (0, 0) to (17, 11) {
    loop.store %zero, %c[%i, %j] : memref<17x11xf32>
  }
  loop.for %i = 1 to 17 step 2 {
    loop.for %j = 2 to 11 {
      %x = loop.load %a[%i, %j] : memref<17x11xf32>
      %y = arith.mulf %x, %two : f32
      loop.store %y, %c[%i, %j] : memref<17x11xf32>
    }
  }
  return %c : memref<17x11xf32>
}
"#;

fn loop_count(text: &str) -> usize {
    text.matches("loop.for").count()
}

#[test]
fn tiling_with_partial_tiles_keeps_a_matmul() {
    let out = check_pipeline(
        &matmul(""),
        "builtin.module(func.func(loop-tile{sizes=4,3,2}))",
    );
    assert_eq!(loop_count(&out.text), 6, "{}", out.text);
    assert!(
        out.text.contains("min"),
        "partial tiles need a min bound:\n{}",
        out.text
    );
}

#[test]
fn tiling_by_divisors_needs_no_min() {
    let src = matmul("")
        .replace("13", "12")
        .replace("to 7", "to 8")
        .replace("x7x", "x8x")
        .replace("7x10", "8x10")
        .replace("13x7", "12x8");
    let out = check_pipeline(&src, "builtin.module(func.func(loop-tile{sizes=4,5,2}))");
    assert_eq!(loop_count(&out.text), 6, "{}", out.text);
    assert!(!out.text.contains("min"), "{}", out.text);
}

#[test]
fn tiling_some_loops_leaves_the_others() {
    let out = check_pipeline(
        &matmul(""),
        "builtin.module(func.func(loop-tile{sizes=0,4}))",
    );
    // The 2-D fill nest becomes 3 loops (j tiled), the (i, j) band of the matmul 4.
    assert_eq!(loop_count(&out.text), 3 + 4, "{}", out.text);
}

#[test]
fn tiling_keeps_steps_and_lower_bounds() {
    let out = check_pipeline(STRIDED, "builtin.module(func.func(loop-tile{sizes=3,4}))");
    // Both 2-D nests, the fill and the strided band, become tiles and points.
    assert_eq!(loop_count(&out.text), 4 + 4, "{}", out.text);
}

#[test]
fn interchange_keeps_a_matmul() {
    for permutation in ["1,0,2", "2,0,1", "2,1,0"] {
        check_pipeline(
            &matmul(""),
            &format!("builtin.module(func.func(loop-interchange{{permutation={permutation}}}))"),
        );
    }
    check_pipeline(
        STRIDED,
        "builtin.module(func.func(loop-interchange{permutation=1,0}))",
    );
}

#[test]
fn a_multi_level_schedule_keeps_a_matmul() {
    let schedules = [
        "#loop.schedule<tiles = [[8, 2], [4], [3]], order = [1, 0, 2], parallel = [1], vector = 2, unroll = 2>",
        "#loop.schedule<tiles = [[6, 3], [10, 5], []], order = [2, 0, 1]>",
        "#loop.schedule<tiles = [[16], [16], [16]]>",
        "#loop.schedule<tiles = [[], [], []], order = [1, 2, 0]>",
    ];
    for schedule in schedules {
        let out = check_pipeline(
            &matmul(&format!("attributes {{loop.schedule = {schedule}}}")),
            "builtin.module(func.func(loop-apply-schedule))",
        );
        assert!(!out.text.contains("loop.schedule"), "{}", out.text);
    }
}

#[test]
fn tiles_then_interchange_compose() {
    check_pipeline(
        STRIDED,
        "builtin.module(func.func(loop-tile{sizes=4,4},loop-interchange{permutation=1,0}))",
    );
}

/// A graph-level `lhs x rhs` matmul, lowered to loops and register-blocked.
fn microkernel(lhs: &str, rhs: &str, out: &str, options: &str) -> CheckReport {
    let src = format!(
        "func.func @mm(%a: tensor<{lhs}xf32>, %b: tensor<{rhs}xf32>) -> tensor<{out}xf32> {{\n\
         %c = graph.matmul %a, %b : (tensor<{lhs}xf32>, tensor<{rhs}xf32>) -> tensor<{out}xf32>\n\
         return %c : tensor<{out}xf32>\n}}\n"
    );
    check_pipeline(
        &src,
        &format!(
            "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, loop-matmul-microkernel{{{options}}})"
        ),
    )
}

#[test]
fn the_microkernel_keeps_matmuls_with_whole_tiles() {
    let out = microkernel("12x10", "10x16", "12x16", "mr=3 nr=8 kc=4 vector=4");
    assert!(out.text.contains("loop.fma"), "{}", out.text);
    // Whole tiles: no remainder nest keeps the scalar reduction.
    assert!(!out.text.contains("arith.mulf"), "{}", out.text);
}

#[test]
fn the_microkernel_peels_leftover_rows_and_columns() {
    for (m, k, n) in [(13, 7, 19), (5, 3, 9), (4, 1, 8), (2, 5, 3)] {
        let out = microkernel(
            &format!("{m}x{k}"),
            &format!("{k}x{n}"),
            &format!("{m}x{n}"),
            "mr=4 nr=8 kc=3 vector=4",
        );
        assert_eq!(
            out.text.contains("loop.fma"),
            m >= 4 && n >= 8,
            "{m}x{k}x{n}:\n{}",
            out.text
        );
    }
}

#[test]
fn the_microkernel_keeps_matmuls_with_packed_panels_or_without() {
    // With B packed, rows left over by MR get a smaller register block, and row blocks
    // sweep NC = 16 columns of panels at a time (a partial sweep when 16 does not divide).
    for (m, k, n) in [(13, 7, 19), (8, 9, 16), (4, 1, 8), (9, 5, 41), (2, 3, 8)] {
        for pack in [true, false] {
            let out = microkernel(
                &format!("{m}x{k}"),
                &format!("{k}x{n}"),
                &format!("{m}x{n}"),
                &format!("mr=4 nr=8 nc=16 kc=3 vector=4 pack-rhs={pack}"),
            );
            let blocked = m >= 4 || pack;
            assert_eq!(
                out.text.contains("loop.fma"),
                blocked,
                "{m}x{k}x{n}:\n{}",
                out.text
            );
            let panels = format!("memref<{}x{}x8xf32>", n / 8, k.min(3));
            assert_eq!(
                out.text.contains(&panels),
                pack,
                "{m}x{k}x{n}:\n{}",
                out.text
            );
        }
    }
}

#[test]
fn the_microkernel_keeps_batched_matmuls() {
    let out = microkernel("2x6x5", "2x5x8", "2x6x8", "mr=2 nr=4 kc=2 vector=4");
    assert!(out.text.contains("loop.fma"), "{}", out.text);
}

#[test]
fn the_microkernel_gives_the_rows_left_over_a_smaller_block_in_batched_matmuls() {
    // 7 rows in blocks of 3: rows 6..7 of every batch get a 1x4 register block; only the
    // leftover column 8 keeps the scalar nest.
    let out = microkernel("2x7x5", "2x5x9", "2x7x9", "mr=3 nr=4 kc=2 vector=4");
    assert!(out.text.contains("= (0, 6) to (2, 7) {"), "{}", out.text);
    assert!(
        out.text.contains("= (0, 0, 8) to (2, 7, 9) {"),
        "{}",
        out.text
    );
    assert_eq!(out.text.matches("arith.mulf").count(), 1, "{}", out.text);
}

#[test]
fn the_microkernel_keeps_matmuls_indexing_unit_dimensions_with_constants() {
    // A unit batch dimension is indexed by a constant `%c0` after lowering (a transformer's
    // `1x128x256 x 256x1024` projection); the nest is still blocked, packed or not.
    for (lhs, rhs, out) in [
        ("1x6x5", "5x8", "1x6x8"),
        ("1x1x6x5", "1x5x8", "1x1x6x8"),
        ("1x7x3", "1x3x9", "1x7x9"),
    ] {
        for pack in [true, false] {
            let report = microkernel(
                lhs,
                rhs,
                out,
                &format!("mr=2 nr=4 kc=2 vector=4 pack-rhs={pack}"),
            );
            assert!(
                report.text.contains("loop.fma"),
                "{lhs} x {rhs}:\n{}",
                report.text
            );
        }
    }
}

#[test]
fn the_microkernel_takes_its_blocking_from_the_nests_schedule() {
    // Attached to the loop.parallel of the lowered matmul: MR = 3, NR = 8 in 4-wide
    // vectors, NC = 16, KC = 5, B packed; the options (mr=2 nr=4) are not used.
    for (m, k, n) in [(13, 7, 19), (6, 10, 32)] {
        let src = format!(
            "func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n\
             %c = graph.matmul %a, %b : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n\
             return %c : tensor<{m}x{n}xf32>\n}}\n"
        );
        let lowered = check_pipeline(
            &src,
            "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize)",
        )
        .text;
        let scheduled = lowered.replacen(
            ") {\n",
            ") attributes {loop.schedule = #loop.schedule<tiles = [[3], [16, 8], [5]], vector = 4, pack = rhs>} {\n",
            1,
        );
        assert_ne!(
            lowered, scheduled,
            "the nest takes the schedule:\n{lowered}"
        );
        let out = check_pipeline(
            &scheduled,
            "builtin.module(loop-matmul-microkernel{mr=2 nr=4 vector=4})",
        );
        assert!(!out.text.contains("loop.schedule"), "{}", out.text);
        assert!(
            out.text.contains("step (3)"),
            "rows in blocks of 3:\n{}",
            out.text
        );
        assert!(
            out.text.contains("x5x8xf32>"),
            "packed panels of 8 columns, 5 deep:\n{}",
            out.text
        );
    }
}
