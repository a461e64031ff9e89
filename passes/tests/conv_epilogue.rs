//! `loop-conv-microkernel` computes a convolution's elementwise epilogue (bias, residual
//! add, ReLU, as te-fuse leaves them: one nest reading the result) in the kernel's copy
//! into the result's layout, so the result is never written; it refuses when the result
//! has another reader or is read at another index. Checked by the interpreter on random
//! inputs against the graph-level program.

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

fn check(src: &str, kernel: &str) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, func.func({kernel}))"
    );
    let report = check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let mut pm = PassManager::new(&Pipeline::parse(&pipeline).unwrap(), &registry).unwrap();
            let instr = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instr)
        },
        Tolerance::default(),
        3,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "every function runs: {:?}",
        report.skipped
    );
    assert!(
        report.text.contains("loop.fma"),
        "a micro-kernel:\n{}",
        report.text
    );
    report
}

/// `relu(conv(x, w) + b + r)`, padded 3x3, `cin -> cout` channels on a 6x7 image; with
/// `also_return`, the convolution's result is returned too.
fn conv_bias_residual_relu(cin: i64, cout: i64, also_return: bool) -> String {
    let t = format!("tensor<1x{cout}x6x7xf32>");
    let (results, returned) = if also_return {
        (format!("{t}, {t}"), "%2, %0".to_string())
    } else {
        (t.clone(), "%2".to_string())
    };
    format!(
        "func.func @f(%x: tensor<1x{cin}x6x7xf32>, %w: tensor<{cout}x{cin}x3x3xf32>, %b: tensor<{cout}xf32>, %r: {t}) -> ({results}) {{\n\
         %0 = graph.conv %x, %w, %b {{pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x{cin}x6x7xf32>, tensor<{cout}x{cin}x3x3xf32>, tensor<{cout}xf32>) -> {t}\n\
         %1 = graph.add %0, %r : ({t}, {t}) -> {t}\n\
         %2 = graph.relu %1 : {t}\n\
         return {returned} : {results}\n}}\n"
    )
}

/// Buffers of the convolution's result shape the function allocates.
fn result_buffers(text: &str, cout: i64) -> usize {
    text.matches(&format!("loop.alloc() : memref<1x{cout}x6x7xf32>"))
        .count()
}

#[test]
fn the_epilogue_is_computed_where_the_kernel_writes() {
    let out = check(
        &conv_bias_residual_relu(3, 16, false),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    // Only the epilogue's own result; no nest left over on threads or otherwise.
    assert_eq!(result_buffers(&out.text, 16), 1, "{}", out.text);
    assert!(!out.text.contains("loop.parallel"), "{}", out.text);
    assert!(out.text.contains("arith.select"), "the ReLU:\n{}", out.text);
}

#[test]
fn the_epilogue_on_threads() {
    let out = check(
        &conv_bias_residual_relu(3, 16, false),
        "loop-conv-microkernel{mr=3 nr=8 vector=4 threads=1}",
    );
    assert_eq!(result_buffers(&out.text, 16), 1, "{}", out.text);
}

#[test]
fn channels_left_over_keep_the_epilogue_nest_narrowed() {
    let out = check(
        &conv_bias_residual_relu(2, 12, false),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    // The leftover channels' convolution and their epilogue.
    assert_eq!(
        out.text.matches("= (8, 0, 0) to (12, 6, 7)").count(),
        2,
        "{}",
        out.text
    );
    assert_eq!(result_buffers(&out.text, 12), 2, "{}", out.text);
}

#[test]
fn a_result_with_another_reader_is_still_written() {
    let out = check(
        &conv_bias_residual_relu(3, 16, true),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}",
    );
    assert_eq!(result_buffers(&out.text, 16), 2, "{}", out.text);
    assert_eq!(out.text.matches("loop.parallel").count(), 1, "{}", out.text);
}

#[test]
fn a_result_read_at_another_index_is_still_written() {
    let t = "tensor<1x16x6x6xf32>";
    let src = format!(
        "func.func @f(%x: tensor<1x3x6x6xf32>, %w: tensor<16x3x3x3xf32>) -> {t} {{\n\
         %0 = graph.conv %x, %w {{pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x3x6x6xf32>, tensor<16x3x3x3xf32>) -> {t}\n\
         %1 = graph.transpose %0 {{perm = array<i64: 0, 1, 3, 2>}} : ({t}) -> {t}\n\
         %2 = graph.relu %1 : {t}\n\
         return %2 : {t}\n}}\n"
    );
    let out = check(&src, "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0}");
    assert_eq!(out.text.matches("loop.parallel").count(), 1, "{}", out.text);
}

#[test]
fn without_epilogues_the_result_is_written() {
    let out = check(
        &conv_bias_residual_relu(3, 16, false),
        "loop-conv-microkernel{mr=4 nr=8 vector=4 threads=0 epilogues=false}",
    );
    assert_eq!(result_buffers(&out.text, 16), 2, "{}", out.text);
    assert_eq!(out.text.matches("loop.parallel").count(), 1, "{}", out.text);
}
