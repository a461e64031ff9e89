//! `te-fuse`: every fused pattern computes what the unfused IR computes (the reference
//! interpreter on random inputs, at the te level and after lowering to loops), and the
//! dependence graph classifies the accesses of typical operators.

use tb_dialects::te;
use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::{Context, OpId};
use tb_passes::fusion::{
    DependenceGraph, EdgeClass, FusionLimits, FusionOrder, LoopTraffic, fuse_function, loop_traffic,
};

/// Runs `pipeline` on `src` under the interpreter's before/after check.
fn check_pipeline(src: &str, pipeline: &str) -> CheckReport {
    check_transform(
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
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"))
}

/// Fuses at the te level, then checks the fused IR once more after lowering to loops.
fn check_fused(src: &str) -> String {
    let fused = check_pipeline(src, "builtin.module(te-fuse)");
    check_pipeline(
        &fused.text,
        "builtin.module(convert-te-to-loop, canonicalize)",
    );
    fused.text
}

fn computes(text: &str) -> usize {
    text.matches("te.compute").count()
}

fn parse(src: &str) -> (Context, OpId) {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).unwrap();
    let module = parse_source(&mut ctx, src, "input.mlir", &ParseOptions::default()).unwrap();
    (ctx, module)
}

fn first_function(ctx: &Context, module: OpId) -> OpId {
    let region = ctx.op(module).regions[0];
    let block = ctx.region(region).blocks[0];
    ctx.block_ops(block)
        .find(|&op| ctx.op_name(op) == "func.func")
        .unwrap()
}

const ELEMENTWISE_CHAIN: &str = r#"
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x4xf32> {
  %a = te.compute (%x, %b) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %w = te.read %b[(d0, d1) -> (d1)] : tensor<8xf32>
    %s = arith.addf %v, %w : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %r = te.compute (%a) [%i, %j] {
    %v = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %z : f32
    te.yield %m : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = te.compute (%r) [%i, %j] {
    %v = te.read %r[(d0, d1) -> (d1, d0)] : tensor<4x8xf32>
    %e = math.tanh %v : f32
    te.yield %e : f32
  } : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
"#;

#[test]
fn elementwise_chain_becomes_one_kernel() {
    let text = check_fused(ELEMENTWISE_CHAIN);
    assert_eq!(computes(&text), 1, "{text}");
    // The bias read keeps its broadcast, re-indexed through the transpose.
    assert!(
        text.contains("[(d0, d1) -> (d0)] : tensor<8xf32>"),
        "{text}"
    );
    assert!(
        text.contains("[(d0, d1) -> (d1, d0)] : tensor<4x8xf32>"),
        "{text}"
    );
}

#[test]
fn layer_norm_statistics_fuse_into_their_readers_when_recomputation_is_allowed() {
    // Layer norm's five computes: sum, mean, squared deviations, 1/sqrt, normalize.
    let src = r#"
func.func @layer_norm(%x: tensor<3x16xf32>, %s: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<3x16xf32> {
  %0 = graph.layer_normalization %x, %s, %b : (tensor<3x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}
"#;
    let te_text = check_pipeline(src, "builtin.module(convert-graph-to-te)").text;
    assert_eq!(computes(&te_text), 5, "{te_text}");
    // Without recomputation nothing fuses: each statistic is read by several kernels or
    // with reuse.
    let kept = check_pipeline(&te_text, "builtin.module(te-fuse{max-recompute-flops=0})").text;
    assert_eq!(computes(&kept), 5, "{kept}");
    // By default the mean (one division, 16 extra per row element) is recomputed where it
    // is read; 1/sqrt (150 extra flops per row) stays.
    let text = check_fused(&te_text);
    assert_eq!(computes(&text), 4, "{text}");
    // Allowed to recompute, the mean and 1/sqrt move into the kernels that read them.
    let text = check_pipeline(
        &te_text,
        "builtin.module(te-fuse{max-recompute-flops=1000}, convert-te-to-loop, canonicalize)",
    )
    .text;
    assert_eq!(text.matches("loop.alloc").count(), 3, "{text}");
}

#[test]
fn softmax_keeps_its_reductions_and_fuses_nothing_else() {
    let src = r#"
func.func @softmax(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %0 = graph.softmax %x : tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}
"#;
    let te_text = check_pipeline(src, "builtin.module(convert-graph-to-te)").text;
    let text = check_fused(&te_text);
    assert_eq!(computes(&text), computes(&te_text), "{text}");
}

#[test]
fn matmul_operands_stay_materialized_by_default() {
    let src = r#"
func.func @mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %r = graph.relu %x : tensor<4x16xf32>
  %m = graph.matmul %r, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %a = graph.add %m, %bias : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %y = graph.sigmoid %a : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
"#;
    let te_text = check_pipeline(src, "builtin.module(convert-graph-to-te)").text;
    let before = computes(&te_text);
    let text = check_fused(&te_text);
    // relu stays (the matmul reads it with reuse); add and sigmoid become one kernel.
    assert_eq!(computes(&text), before - 1, "{text}");
    let opted_in = check_pipeline(
        &te_text,
        "builtin.module(te-fuse{fuse-into-contractions=true})",
    );
    assert_eq!(computes(&opted_in.text), before - 2, "{}", opted_in.text);
}

#[test]
fn expensive_producer_with_two_consumers_is_kept() {
    let src = r#"
func.func @two(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = te.compute (%x) [%i] {
    %v = te.read %x[(d0) -> (d0)] : tensor<8xf32>
    %a = math.exp %v : f32
    %b = math.exp %a : f32
    %c = math.exp %b : f32
    te.yield %c : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %p = te.compute (%e) [%i] {
    %v = te.read %e[(d0) -> (d0)] : tensor<8xf32>
    %n = arith.negf %v : f32
    te.yield %n : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %q = te.compute (%e) [%i] {
    %v = te.read %e[(d0) -> (d0)] : tensor<8xf32>
    %n = arith.mulf %v, %v : f32
    te.yield %n : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %p, %q : tensor<8xf32>, tensor<8xf32>
}
"#;
    let text = check_fused(src);
    assert_eq!(computes(&text), 3, "{text}");
    let cheap = check_pipeline(src, "builtin.module(te-fuse{max-recompute-flops=24})");
    assert_eq!(computes(&cheap.text), 2, "{}", cheap.text);
}

#[test]
fn whole_models_of_graph_ops_keep_their_meaning_through_the_fused_pipeline() {
    let src = r#"
func.func @block(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %c = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %n = graph.batch_normalization %c, %g, %b, %m, %v : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = graph.relu %n : tensor<1x4x6x6xf32>
  %s = graph.add %r, %x : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %s : tensor<1x4x6x6xf32>
}
"#;
    let unfused = check_pipeline(src, "builtin.module(convert-graph-to-te)").text;
    let fused = check_pipeline(
        src,
        "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize)",
    );
    let te_fused = check_pipeline(src, "builtin.module(convert-graph-to-te, te-fuse)").text;
    assert!(computes(&te_fused) < computes(&unfused), "{te_fused}");
    assert!(fused.text.contains("loop.parallel"), "{}", fused.text);
}

#[test]
fn dependence_graph_classifies_edges() {
    let src = r#"
func.func @mix(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %r = te.compute (%x) [%i, %j] {
    %v = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x16xf32>
    te.yield %v : f32
  } : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = te.compute (%r, %w) [%i, %j] reduce [%k] in [16] combiner = sum {
    %a = te.read %r[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
    %b = te.read %w[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %n = te.compute (%c) [%i, %j] {
    %v = te.read %c[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %e = math.exp %v : f32
    te.yield %e : f32
  } : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}
"#;
    let (ctx, module) = parse(src);
    let func = first_function(&ctx, module);
    let graph = DependenceGraph::build(&ctx, func);
    assert_eq!(graph.kernel_count(), 3);
    let [copy, matmul, exp] = graph.order[..] else {
        panic!("three nodes expected");
    };
    let into_matmul = graph.producers(matmul);
    assert_eq!(into_matmul.len(), 1);
    assert_eq!(into_matmul[0].0, copy);
    assert_eq!(
        into_matmul[0].1.class,
        EdgeClass::Reuse {
            factor: 8,
            across_parallel: true
        }
    );
    let into_exp = graph.producers(exp);
    assert_eq!(into_exp[0].1.class, EdgeClass::ReductionBoundary);
    let node = &graph.graph[matmul];
    assert!(node.reduces);
    assert_eq!(node.cost.points, 4 * 8 * 16);
    assert_eq!(node.cost.flops_per_point, 1);
    assert_eq!(node.cost.result_bytes, 4 * 8 * 4);
    assert_eq!(node.cost.input_bytes, (4 * 16 + 16 * 8) * 4);
    assert_eq!(
        graph.graph[exp].external_users,
        vec!["func.return".to_string()]
    );
    assert!(te::ComputeOp::cast(&ctx, graph.graph[exp].op).is_some());
}

#[test]
fn report_counts_kernels_and_bytes() {
    let (mut ctx, module) = parse(ELEMENTWISE_CHAIN);
    let func = first_function(&ctx, module);
    let report = fuse_function(&mut ctx, func, &FusionLimits::default()).unwrap();
    assert_eq!(report.kernels_before, 3);
    assert_eq!(report.kernels_after, 1);
    assert_eq!(report.inlined, 2);
    // Before: three kernels each reading and writing 128 bytes (and the 32-byte bias);
    // after: one kernel reading x and the bias and writing the result.
    assert_eq!(report.bytes_before, 3 * 256 + 32);
    assert_eq!(report.bytes_after, 256 + 32);
    assert_eq!(report.refusals.get("used-outside"), Some(&1));
}

/// Two kernels at the loop level: the first fills a tile buffer it allocates itself and
/// writes %out through a view; the second reads %x twice and %out once, writes %y.
const TWO_LOOP_KERNELS: &str = r#"
func.func @two(%x: memref<4x8xf32>, %out: memref<4x8xf32>, %y: memref<8xf32>) {
  loop.for %i = 0 to 4 {
    %t = loop.alloc() : memref<8xf32>
    %row = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    loop.for %j = 0 to 8 {
      %v = loop.load %x[%i, %j] : memref<4x8xf32>
      loop.store %v, %t[%j] : memref<8xf32>
      %w = loop.load %t[%j] : memref<8xf32>
      loop.store %w, %row[%j] : memref<8xf32, strided<[1], offset: ?>>
    }
    loop.dealloc %t : memref<8xf32>
  }
  loop.for %j = 0 to 8 {
    %a = loop.load %x[(d0) -> (0, d0)](%j) : memref<4x8xf32>
    %b = loop.load %x[(d0) -> (1, d0)](%j) : memref<4x8xf32>
    %c = loop.load %out[(d0) -> (2, d0)](%j) : memref<4x8xf32>
    %s = arith.addf %a, %b : f32
    %r = arith.addf %s, %c : f32
    loop.store %r, %y[%j] : memref<8xf32>
  }
  return
}
"#;

#[test]
fn loop_traffic_counts_each_buffer_once_per_kernel_through_views() {
    let (ctx, module) = parse(TWO_LOOP_KERNELS);
    let func = first_function(&ctx, module);
    assert_eq!(
        loop_traffic(&ctx, func),
        LoopTraffic {
            kernels: 2,
            // %x by both kernels, %out by the second; the tile buffer not at all.
            bytes_read: 128 + 128 + 128,
            // %out (through its view) by the first, %y by the second.
            bytes_written: 128 + 32,
            dynamic_buffers: 0,
        }
    );
}

#[test]
fn loop_traffic_leaves_buffers_of_dynamic_size_uncounted() {
    let src = r#"
func.func @dynamic(%x: memref<?xf32>, %y: memref<4xf32>, %n: index) {
  loop.for %i = 0 to 4 {
    %v = loop.load %x[%i] : memref<?xf32>
    loop.store %v, %y[%i] : memref<4xf32>
  }
  return
}
"#;
    let (ctx, module) = parse(src);
    let traffic = loop_traffic(&ctx, first_function(&ctx, module));
    assert_eq!(traffic.kernels, 1);
    assert_eq!((traffic.bytes_read, traffic.bytes_written), (0, 16));
    assert_eq!(traffic.dynamic_buffers, 1);
}

const SUM_THEN_SCALE: &str = r#"
func.func @sum_then_scale(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = te.compute (%x, %y) [%i, %j] {
    %u = te.read %x[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %v = te.read %y[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %s = arith.addf %u, %v : f32
    te.yield %s : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = te.compute (%a, %z) [%i, %j] {
    %u = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %v = te.read %z[(d0, d1) -> (d0, d1)] : tensor<4x8xf32>
    %p = arith.mulf %u, %v : f32
    te.yield %p : f32
  } : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
"#;

#[test]
fn working_set_budget_keeps_a_producer_whose_inlining_would_exceed_it() {
    // Fused, %c reads %x, %y and %z: 384 bytes against a budget of 256.
    let (mut ctx, module) = parse(SUM_THEN_SCALE);
    let func = first_function(&ctx, module);
    let limits = FusionLimits {
        max_working_set_bytes: 256,
        ..FusionLimits::default()
    };
    let report = fuse_function(&mut ctx, func, &limits).unwrap();
    assert_eq!(report.inlined, 0);
    assert_eq!(report.refusals.get("working-set"), Some(&1));
    assert_eq!(report.kernels_after, 2);
}

#[test]
fn working_set_budget_that_fits_fuses_and_keeps_the_meaning() {
    let fused = check_pipeline(
        SUM_THEN_SCALE,
        "builtin.module(te-fuse{max-working-set-bytes=384})",
    );
    assert_eq!(computes(&fused.text), 1);
    check_pipeline(
        &fused.text,
        "builtin.module(convert-te-to-loop, canonicalize)",
    );
}

/// Two producers of `%c`, of which a budget of 8448 bytes of distinct inputs allows one
/// inlined: `%p1` (256 bytes of result) first in program order, `%p2` (4096) the larger
/// saving.
const TWO_PRODUCERS_ONE_BUDGET: &str = r#"
func.func @f(%x: tensor<64xf32>, %y: tensor<64xf32>, %z1: tensor<16x64xf32>, %z2: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %p1 = te.compute (%x, %y) [%j] {
    %a = te.read %x[(d0) -> (d0)] : tensor<64xf32>
    %b = te.read %y[(d0) -> (d0)] : tensor<64xf32>
    %s = arith.addf %a, %b : f32
    te.yield %s : f32
  } : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %p2 = te.compute (%z1, %z2) [%i, %j] {
    %a = te.read %z1[(d0, d1) -> (d0, d1)] : tensor<16x64xf32>
    %b = te.read %z2[(d0, d1) -> (d0, d1)] : tensor<16x64xf32>
    %s = arith.subf %a, %b : f32
    te.yield %s : f32
  } : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %c = te.compute (%p2, %p1) [%i, %j] {
    %a = te.read %p2[(d0, d1) -> (d0, d1)] : tensor<16x64xf32>
    %b = te.read %p1[(d0, d1) -> (d1)] : tensor<64xf32>
    %s = arith.mulf %a, %b : f32
    te.yield %s : f32
  } : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  return %c : tensor<16x64xf32>
}
"#;

#[test]
fn the_partition_spends_a_budget_on_the_larger_saving() {
    let fused_with = |order| {
        let (mut ctx, module) = parse(TWO_PRODUCERS_ONE_BUDGET);
        let func = first_function(&ctx, module);
        let limits = FusionLimits {
            max_working_set_bytes: 8448,
            order,
            ..FusionLimits::default()
        };
        fuse_function(&mut ctx, func, &limits).unwrap()
    };
    let benefit = fused_with(FusionOrder::Benefit);
    let program = fused_with(FusionOrder::Program);
    for report in [&benefit, &program] {
        assert_eq!(report.inlined, 1);
        assert_eq!(report.kernels_after, 2);
        assert_eq!(report.refusals.get("working-set"), Some(&1));
    }
    // %p2 inlined: %p1's 256 bytes stay materialized, not %p2's 4096.
    assert_eq!(benefit.bytes_after, 13312);
    assert_eq!(program.bytes_after, 20992);
    for order in ["benefit", "program"] {
        check_pipeline(
            TWO_PRODUCERS_ONE_BUDGET,
            &format!(
                "builtin.module(te-fuse{{order={order} max-working-set-bytes=8448}}, convert-te-to-loop, canonicalize)"
            ),
        );
    }
}

/// `sum(exp(x))` over 65536 elements into one value.
const SERIAL_REDUCTION: &str = r#"
func.func @f(%x: tensor<256x256xf32>) -> tensor<1xf32> {
  %e = te.compute (%x) [%i, %j] {
    %a = te.read %x[(d0, d1) -> (d0, d1)] : tensor<256x256xf32>
    %s = math.exp %a : f32
    te.yield %s : f32
  } : (tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = te.compute (%e) [%o] reduce [%i, %j] in [256, 256] combiner = sum {
    %a = te.read %e[(d0, d1, d2) -> (d1, d2)] : tensor<256x256xf32>
    te.yield %a : f32
  } : (tensor<256x256xf32>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}
"#;

#[test]
fn a_producer_keeps_its_threads_out_of_a_one_point_reduction() {
    let fused_with = |min_parallel_points| {
        let (mut ctx, module) = parse(SERIAL_REDUCTION);
        let func = first_function(&ctx, module);
        let limits = FusionLimits {
            min_parallel_points,
            ..FusionLimits::default()
        };
        fuse_function(&mut ctx, func, &limits).unwrap()
    };
    let kept = fused_with(2);
    assert_eq!(kept.inlined, 0);
    assert_eq!(kept.refusals.get("parallelism"), Some(&1));
    assert_eq!(fused_with(1).inlined, 1);
    assert_eq!(fused_with(0).inlined, 1);
}
