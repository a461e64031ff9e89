//! Schedules apply to the nests `convert-te-to-loop` writes (a `loop.parallel` over the
//! result with reduction `loop.for`s carrying accumulators inside): `loop-tile`,
//! `loop-interchange`, `loop-default-schedule` and `loop-apply-schedule` keep what
//! convolutions, pooling, normalizations, reductions and elementwise ops compute, checked
//! by the interpreter on random inputs against the graph-level program.

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

fn check(src: &str, loop_passes: &str) -> CheckReport {
    let pipeline = format!(
        "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, func.func({loop_passes}))"
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
    report
}

/// A padded, strided convolution with bias: spatial dimensions (c, h, w) and reductions
/// (ci, kh, kw).
const CONV: &str = r#"
func.func @conv(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}
"#;

const POOL: &str = r#"
func.func @pool(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}
"#;

const NORMS: &str = r#"
func.func @norms(%x: tensor<3x20xf32>, %s: tensor<20xf32>, %b: tensor<20xf32>) -> (tensor<3x20xf32>, tensor<3x20xf32>) {
  %0 = graph.softmax %x : tensor<3x20xf32>
  %1 = graph.layer_normalization %x, %s, %b : (tensor<3x20xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<3x20xf32>
  return %0, %1 : tensor<3x20xf32>, tensor<3x20xf32>
}
"#;

/// A reduction to a scalar (reductions only) and a broadcasting add (no reduction).
const SUM_AND_ADD: &str = r#"
func.func @sum_and_add(%a: tensor<5x9xf32>, %b: tensor<9xf32>) -> (tensor<f32>, tensor<5x9xf32>) {
  %0 = graph.reduce_sum %a {keepdims = false} : (tensor<5x9xf32>) -> tensor<f32>
  %1 = graph.add %a, %b : (tensor<5x9xf32>, tensor<9xf32>) -> tensor<5x9xf32>
  return %0, %1 : tensor<f32>, tensor<5x9xf32>
}
"#;

#[test]
fn tiling_a_convolution_tiles_its_spatial_and_reduction_loops() {
    // (c, h, w, ci, kh, kw): partial tiles on h and on the reduction ci.
    let out = check(CONV, "loop-tile{sizes=2,3,0,2,0,2}");
    // 6 loops and 4 tile loops (c, h, ci, kw), partial on h and on ci.
    assert_eq!(out.text.matches("loop.for").count(), 10, "{}", out.text);
    assert!(out.text.contains("min"), "partial tiles:\n{}", out.text);
}

#[test]
fn interchanging_a_convolution_reorders_its_spatial_loops() {
    let out = check(CONV, "loop-interchange{permutation=2,0,1,3,4,5}");
    assert_eq!(out.text.matches("loop.for").count(), 6, "{}", out.text);
}

#[test]
fn a_schedule_by_hand_applies_to_pooling() {
    // Pooling's nest: (c, h, w) then the window (kh, kw).
    let out = check(
        POOL,
        "loop-tile{sizes=0,2,2,2,0},loop-interchange{permutation=2,1,0}",
    );
    assert!(out.text.contains("iter_args"), "{}", out.text);
}

#[test]
fn default_schedules_keep_every_kind_of_nest() {
    for src in [CONV, POOL, NORMS, SUM_AND_ADD] {
        for options in [
            "cores=2 vector-bytes=32",
            "cores=1 vector-bytes=16",
            "cores=8 vector-bytes=64",
        ] {
            let out = check(
                src,
                &format!("loop-default-schedule{{{options}}},loop-apply-schedule"),
            );
            assert!(
                !out.text.contains("loop.schedule"),
                "every schedule is applied:\n{}",
                out.text
            );
            assert!(
                !out.text.contains("loop.parallel"),
                "every nest is rebuilt:\n{}",
                out.text
            );
        }
    }
}

#[test]
fn tiles_apply_to_a_reduction_to_a_scalar_and_to_elementwise_nests() {
    // The sum has two reduction loops and no spatial one; the add two spatial loops.
    let out = check(SUM_AND_ADD, "loop-tile{sizes=2,4}");
    assert!(out.text.matches("iter_args").count() >= 3, "{}", out.text);
}
