//! `loop-matmul-microkernel` on matmuls whose result has one row (`x W`, `x: 1 x K`): the
//! lowering leaves out the loop over that row, and the pass puts it back to block the
//! nest like any matmul (`j` in the vector lanes, `W` read along its rows). Every result
//! is checked against the interpreter on random inputs.

mod common;

use common::check_pipeline;

const LOWER: &str = "convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize";

/// `x (1 x k) * w (k x n)` [+ bias, relu], batched by `batch` leading dims of extent 1.
fn one_row(lead: &str, k: i64, n: i64, epilogue: bool) -> String {
    let x = format!("tensor<{lead}1x{k}xf32>");
    let y = format!("tensor<{lead}1x{n}xf32>");
    let tail = if epilogue {
        format!(
            "  %b = graph.constant dense<0.25> : tensor<{n}xf32>\n\
             %s = graph.add %y, %b : ({y}, tensor<{n}xf32>) -> {y}\n\
             %r = graph.relu %s : {y}\n\
             return %r : {y}\n"
        )
    } else {
        format!("  return %y : {y}\n")
    };
    format!(
        "func.func @mv(%x: {x}, %w: tensor<{k}x{n}xf32>) -> {y} {{\n\
         %y = graph.matmul %x, %w : ({x}, tensor<{k}x{n}xf32>) -> {y}\n\
         {tail}}}\n"
    )
}

fn blocked(src: &str, options: &str) -> String {
    let pipeline = format!("builtin.module({LOWER}, loop-matmul-microkernel{options})");
    check_pipeline(src, &pipeline).text
}

#[test]
fn a_vector_times_a_matrix_is_register_blocked() {
    for (k, n, options) in [
        (128, 512, "{vector=4 nr=8 mr=4}"),
        (37, 20, "{vector=4 nr=8 mr=4}"),
        (64, 96, ""),
    ] {
        let text = blocked(&one_row("", k, n, false), options);
        assert!(text.contains("loop.fma"), "{text}");
    }
}

#[test]
fn a_unit_batch_and_an_epilogue_keep_their_meaning() {
    let text = blocked(&one_row("1x", 48, 64, true), "{vector=4 nr=8 mr=2}");
    assert!(text.contains("loop.fma"), "{text}");
}

#[test]
fn a_one_row_nest_that_is_no_matmul_is_left_as_it_was() {
    // The row of `x` is summed with a product of two reads of `w`: no matmul, so the
    // loop over the columns stays the only loop.
    let src = r#"
func.func @f(%x: memref<1x16xf32>, %w: memref<16x32xf32>) -> memref<1x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %y = loop.alloc() : memref<1x32xf32>
  loop.parallel (%j) = (0) to (32) {
    %s = loop.for %k = 0 to 16 iter_args(%acc = %zero) -> (f32) {
      %a = loop.load %x[%c0, %k] : memref<1x16xf32>
      %b = loop.load %w[%k, %j] : memref<16x32xf32>
      %p = arith.mulf %a, %b : f32
      %q = arith.mulf %p, %b : f32
      %n = arith.addf %acc, %q : f32
      loop.yield %n : f32
    }
    loop.store %s, %y[%c0, %j] : memref<1x32xf32>
  }
  return %y : memref<1x32xf32>
}
"#;
    let text = check_pipeline(
        src,
        "builtin.module(loop-matmul-microkernel{vector=4 nr=8})",
    )
    .text;
    assert!(!text.contains("loop.fma"), "{text}");
    assert!(
        text.contains("loop.parallel (%arg2) = (0) to (32)"),
        "{text}"
    );
}
