//! Constant weights packed at compile time: `loop-matmul-microkernel` and
//! `loop-conv-microkernel` read a new constant global holding a constant operand in their
//! panel layout instead of copying it on every call. Checked by the interpreter on random
//! inputs against the graph-level program, for `dense` and `dense_resource` weights, shapes
//! the register block does not divide, and with `pack-constants=false`.

mod common;

use common::{dense, values};
use tb_interpreter::check::CheckReport;

/// `common::check_pipeline_with_seeds` on 3 seeds.
fn check(src: &str, pipeline: &str) -> CheckReport {
    common::check_pipeline_with_seeds(src, pipeline, 3)
}

fn lowered_then(kernel: &str) -> String {
    format!(
        "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, func.func({kernel}))"
    )
}

/// The `{-# dialect_resources #-}` trailer holding `values` as the blob `name`.
fn resource(name: &str, values: &[f32]) -> String {
    let mut hex = String::from("0x04000000");
    for v in values {
        for b in v.to_le_bytes() {
            hex.push_str(&format!("{b:02X}"));
        }
    }
    format!(
        "{{-#\n  dialect_resources: {{\n    builtin: {{\n      {name}: \"{hex}\"\n    }}\n  }}\n#-}}\n"
    )
}

/// `a: m x k` times the constant `b: k x n` (`literal`).
fn matmul(m: i64, k: i64, n: i64, literal: &str, trailer: &str) -> String {
    format!(
        "func.func @mm(%a: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{\n\
         %b = graph.constant {literal} : tensor<{k}x{n}xf32>\n\
         %c = graph.matmul %a, %b : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n\
         return %c : tensor<{m}x{n}xf32>\n}}\n{trailer}"
    )
}

/// `a: m x k` times the constant `b` filled with reproducible values.
fn constant_matmul(m: i64, k: i64, n: i64, seed: u64) -> String {
    matmul(m, k, n, &dense(&values(k * n, seed), &[k, n]), "")
}

fn packed_at_compile_time(text: &str) -> bool {
    text.contains("_packed") && text.contains("loop.fma")
}

#[test]
fn a_constant_matmul_operand_is_packed_at_compile_time() {
    // 8 | n: every column is in a panel, so the original constant has no reader left.
    let out = check(
        &constant_matmul(6, 5, 16, 1),
        &lowered_then("loop-matmul-microkernel{mr=4 nr=8 kc=3 vector=4}"),
    );
    assert!(packed_at_compile_time(&out.text), "{}", out.text);
    // The whole reduction in one panel per 8 columns, read directly: no copy at run time.
    assert!(out.text.contains("memref<2x5x8xf32>"), "{}", out.text);
    assert!(
        !out.text.contains("loop.alloc() : memref<2x3x8xf32>"),
        "{}",
        out.text
    );
    assert_eq!(out.text.matches("memref.global").count(), 1, "{}", out.text);
}

#[test]
fn columns_left_over_keep_reading_the_original_constant() {
    for (m, k, n) in [(13, 7, 19), (3, 4, 9), (9, 1, 8)] {
        let out = check(
            &constant_matmul(m, k, n, 2),
            &lowered_then("loop-matmul-microkernel{mr=4 nr=8 nc=16 kc=3 vector=4}"),
        );
        assert!(
            packed_at_compile_time(&out.text),
            "{m}x{k}x{n}:\n{}",
            out.text
        );
        assert_eq!(
            out.text.matches("memref.global").count(),
            if n % 8 == 0 { 1 } else { 2 },
            "{m}x{k}x{n}:\n{}",
            out.text
        );
    }
}

#[test]
fn a_dense_resource_operand_is_packed_at_compile_time() {
    let src = matmul(
        5,
        6,
        24,
        "dense_resource<weights>",
        &resource("weights", &values(144, 3)),
    );
    let out = check(
        &src,
        &lowered_then("loop-matmul-microkernel{mr=2 nr=8 kc=4 vector=4}"),
    );
    assert!(packed_at_compile_time(&out.text), "{}", out.text);
}

#[test]
fn without_pack_constants_the_operand_is_copied_at_run_time() {
    let out = check(
        &constant_matmul(6, 5, 16, 4),
        &lowered_then("loop-matmul-microkernel{mr=4 nr=8 kc=3 vector=4 pack-constants=false}"),
    );
    assert!(!out.text.contains("_packed"), "{}", out.text);
    assert!(
        out.text.contains("loop.alloc() : memref<2x3x8xf32>"),
        "{}",
        out.text
    );
}

/// A padded 3x3 convolution `x: 1 x cin x 6 x 7` with reproducible constant weights
/// `cout x cin x 3 x 3`.
fn conv(cin: i64, cout: i64, seed: u64) -> String {
    let literal = dense(&values(cout * cin * 9, seed), &[cout, cin, 3, 3]);
    format!(
        "func.func @conv(%x: tensor<1x{cin}x6x7xf32>) -> tensor<1x{cout}x6x7xf32> {{\n\
         %w = graph.constant {literal} : tensor<{cout}x{cin}x3x3xf32>\n\
         %y = graph.conv %x, %w {{pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x{cin}x6x7xf32>, tensor<{cout}x{cin}x3x3xf32>) -> tensor<1x{cout}x6x7xf32>\n\
         return %y : tensor<1x{cout}x6x7xf32>\n}}\n"
    )
}

#[test]
fn constant_convolution_weights_are_packed_at_compile_time() {
    let out = check(
        &conv(3, 16, 5),
        &lowered_then("loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}"),
    );
    assert!(packed_at_compile_time(&out.text), "{}", out.text);
    assert!(out.text.contains("memref<2x3x3x3x8xf32>"), "{}", out.text);
    assert!(
        !out.text.contains("loop.alloc() : memref<2x3x3x3x8xf32>"),
        "{}",
        out.text
    );
    assert_eq!(out.text.matches("memref.global").count(), 1, "{}", out.text);
}

#[test]
fn channels_left_over_keep_reading_the_original_weights() {
    let out = check(
        &conv(2, 12, 6),
        &lowered_then("loop-conv-microkernel{mr=3 nr=8 vector=4 threads=1}"),
    );
    assert!(packed_at_compile_time(&out.text), "{}", out.text);
    assert_eq!(out.text.matches("memref.global").count(), 2, "{}", out.text);
}

#[test]
fn without_pack_constants_the_weights_are_copied_at_run_time() {
    let out = check(
        &conv(3, 16, 7),
        &lowered_then("loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0 pack-constants=false}"),
    );
    assert!(!out.text.contains("_packed"), "{}", out.text);
    assert!(
        out.text.contains("loop.alloc() : memref<2x3x3x3x8xf32>"),
        "{}",
        out.text
    );
}
