//! `convert-loop-to-gpu` keeps what a program computes: graph-level programs are lowered to
//! loops and mapped onto `gpu.launch` kernels, and the interpreter (which runs every
//! thread of every block) compares the result with the program as written, on random
//! inputs, for several choices of the mapping's knobs.

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::{Context, OpId};

const LOWER: &str = "canonicalize, convert-graph-to-te, convert-te-to-loop, canonicalize";

/// The lowering, then the mapping with `options`; returns the mapped module's text.
fn check_mapping(src: &str, options: &str) -> String {
    check_after_lowering(src, &format!("convert-loop-to-gpu{options}"))
}

/// The lowering, then `passes` (ending with the mapping); returns the module's text.
fn check_after_lowering(src: &str, passes: &str) -> String {
    check_after_lowering_within(src, passes, Tolerance::default())
}

/// [`check_after_lowering`], the results compared within `tolerance`.
fn check_after_lowering_within(src: &str, passes: &str, tolerance: Tolerance) -> String {
    check_after(LOWER, src, passes, tolerance)
}

/// `lower`, then `passes` (ending with the mapping), checked as
/// [`check_after_lowering_within`] checks them.
fn check_after(lower: &str, src: &str, passes: &str, tolerance: Tolerance) -> String {
    // Buffers are planned after the matmul kernels, as in the GPU pipeline (they then
    // see the matmul's result as a buffer of its own, and take the epilogue after it).
    let passes = passes.replacen(
        "convert-loop-to-gpu",
        "plan-buffers, convert-loop-to-gpu",
        1,
    );
    let pipeline = format!("builtin.module({lower}, {passes})");
    let report = run_mapping(src, &pipeline, tolerance);
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    report.text
}

/// `passes` (ending with the mapping) on the loop-level program `src`; returns the
/// mapped module's text.
fn check_loop_level(src: &str, passes: &str, tolerance: Tolerance) -> String {
    run_mapping(src, &format!("builtin.module({passes})"), tolerance).text
}

/// Runs `pipeline` on `src`, verifying after each pass, checks that every computation
/// ended in a kernel and that the results match the program's within `tolerance`.
fn run_mapping(src: &str, pipeline: &str, tolerance: Tolerance) -> CheckReport {
    check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let parsed = Pipeline::parse(pipeline).unwrap();
            let mut pm = PassManager::new(&parsed, &registry).unwrap();
            let instr = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instr)?;
            assert_all_computation_in_kernels(ctx, module);
            Ok(())
        },
        tolerance,
        3,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"))
}

/// The error `pass` (a pass with its options) stops an empty module with.
fn refusal(pass: &str) -> String {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let parsed = Pipeline::parse(&format!("builtin.module({pass})")).unwrap();
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).unwrap();
    let module = tb_ir::parser::parse_source(
        &mut ctx,
        "func.func @f() { return }",
        "test.mlir",
        &Default::default(),
    )
    .unwrap();
    PassManager::new(&parsed, &registry)
        .unwrap()
        .run(&mut ctx, module, &Instrumentation::default())
        .unwrap_err()
        .message
}

/// After the mapping, a function's own body holds no loops, loads or stores.
fn assert_all_computation_in_kernels(ctx: &Context, module: OpId) {
    ctx.walk_nested(module, &mut |op| {
        let name = ctx.op_name(op);
        let parent = ctx.parent_op(op).map(|p| ctx.op_name(p).to_owned());
        if parent.as_deref() == Some("func.func") {
            assert!(
                !matches!(
                    name,
                    "loop.for" | "loop.parallel" | "loop.load" | "loop.store" | "memref.copy"
                ),
                "{name} left outside a kernel"
            );
        }
    });
}

const MLP: &str = r#"
func.func @mlp(%x: tensor<3x17xf32>, %w: tensor<17x5xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = "graph.matmul"(%x, %w) : (tensor<3x17xf32>, tensor<17x5xf32>) -> tensor<3x5xf32>
  %1 = "graph.add"(%0, %b) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %2 = "graph.relu"(%1) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %3 = "graph.softmax"(%2) <{axis = 1 : i64}> : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %3 : tensor<3x5xf32>
}
"#;

#[test]
fn default_mapping_keeps_a_perceptron() {
    let text = check_mapping(MLP, "");
    assert!(text.contains("gpu.launch"), "{text}");
}

#[test]
fn one_block_of_one_thread_walks_every_iteration() {
    // Grid-stride: a single thread takes all iterations of every loop.
    let text = check_mapping(MLP, "{block-size=1 max-blocks=1}");
    // A step of 1 (the default) is not printed: no loop steps over other threads' work.
    assert!(!text.contains(" step "), "{text}");
}

#[test]
fn blocks_that_do_not_divide_the_iterations_cover_them_once() {
    // 15 outputs, blocks of 4 threads, at most 2 blocks: 8 threads, 2 rounds, a partial one.
    check_mapping(MLP, "{block-size=4 max-blocks=2}");
}

#[test]
fn reductions_and_broadcasts_map() {
    check_mapping(
        r#"
func.func @norm(%x: tensor<4x6x5xf32>) -> (tensor<4x1x5xf32>, tensor<4x6x5xf32>) {
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<4x6x5xf32>) -> tensor<4x1x5xf32>
  %d = "graph.sub"(%x, %m) : (tensor<4x6x5xf32>, tensor<4x1x5xf32>) -> tensor<4x6x5xf32>
  return %m, %d : tensor<4x1x5xf32>, tensor<4x6x5xf32>
}
"#,
        "{block-size=32}",
    );
}

#[test]
fn a_returned_view_is_copied_into_its_own_buffer() {
    let text = check_mapping(
        r#"
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %y = "graph.relu"(%x) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %r = graph.reshape %y {shape = array<i64: 3, 4>} : (tensor<2x6xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
"#,
        "",
    );
    assert!(text.contains("gpu.launch"), "{text}");
}

#[test]
fn a_scalar_computed_before_a_parallel_loop_reaches_it_through_a_buffer() {
    let report = check_transform(
        r#"
func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
  %out = loop.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %s = loop.load %a[%c0] : memref<4xf32>
  %t = arith.mulf %s, %s : f32
  loop.parallel (%i) = (0) to (4) {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %t : f32
    loop.store %y, %out[%i] : memref<4xf32>
  }
  return %out : memref<4xf32>
}
"#,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let parsed = Pipeline::parse("builtin.module(convert-loop-to-gpu)").unwrap();
            PassManager::new(&parsed, &registry).unwrap().run(
                ctx,
                module,
                &Instrumentation::default(),
            )?;
            assert_all_computation_in_kernels(ctx, module);
            Ok(())
        },
        Tolerance::default(),
        3,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.text.contains("memref<f32>"), "{}", report.text);
}

#[test]
fn knobs_outside_their_range_are_refused() {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    for options in ["{block-size=0}", "{block-size=1025}", "{max-blocks=0}"] {
        let parsed =
            Pipeline::parse(&format!("builtin.module(convert-loop-to-gpu{options})")).unwrap();
        let mut ctx = Context::new();
        tb_dialects::register_all(&mut ctx).unwrap();
        let module = tb_ir::parser::parse_source(
            &mut ctx,
            "func.func @f() { return }",
            "test.mlir",
            &Default::default(),
        )
        .unwrap();
        let error = PassManager::new(&parsed, &registry)
            .unwrap()
            .run(&mut ctx, module, &Instrumentation::default())
            .unwrap_err();
        assert!(error.message.contains("is outside"), "{}", error.message);
    }
}

const ROW_REDUCTIONS: &str = r#"
func.func @rows(%x: tensor<3x100xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x100xf32>) {
  %s = "graph.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<3x100xf32>) -> tensor<3xf32>
  %m = "graph.reduce_max"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<3x100xf32>) -> tensor<3xf32>
  %p = "graph.softmax"(%x) <{axis = 1 : i64}> : (tensor<3x100xf32>) -> tensor<3x100xf32>
  return %s, %m, %p : tensor<3xf32>, tensor<3xf32>, tensor<3x100xf32>
}
"#;

#[test]
fn long_reductions_run_on_the_lanes_of_a_warp() {
    let text = check_mapping(ROW_REDUCTIONS, "");
    assert!(text.contains("gpu.shuffle xor"), "{text}");
    // Each lane starts at its own element and strides by 32.
    assert!(text.contains("step 32 iter_args"), "{text}");
}

#[test]
fn warps_take_reductions_shorter_than_a_warp() {
    // Lanes past the end of a 5-long row start from the identity and add nothing.
    let text = check_mapping(MLP, "{warp-reduce-min=1}");
    assert!(text.contains("gpu.shuffle xor"), "{text}");
}

#[test]
fn warps_take_integer_reductions() {
    let src = r#"
func.func @ints(%x: tensor<4x70xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %s = "graph.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x70xi32>) -> tensor<4xi32>
  %m = "graph.reduce_min"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x70xi32>) -> tensor<4xi32>
  return %s, %m : tensor<4xi32>, tensor<4xi32>
}
"#;
    let text = check_mapping(src, "{block-size=64 max-blocks=1}");
    assert!(text.contains("gpu.shuffle xor"), "{text}");
}

#[test]
fn reductions_stay_on_threads_when_turned_off() {
    let text = check_mapping(ROW_REDUCTIONS, "{warp-reduce-min=0}");
    assert!(!text.contains("gpu.shuffle"), "{text}");
}

#[test]
fn many_outputs_reading_across_rows_stay_one_per_thread() {
    // A reduction over the rows of a wide matrix reads with a stride along its axis, and
    // its 10,000 outputs fill a GPU one per thread: warps would not coalesce. (A max, so
    // the comparison is exact whatever the order.)
    let src = r#"
func.func @columns(%x: tensor<64x10000xf32>) -> tensor<10000xf32> {
  %s = "graph.reduce_max"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<64x10000xf32>) -> tensor<10000xf32>
  return %s : tensor<10000xf32>
}
"#;
    let text = check_mapping(src, "");
    assert!(!text.contains("gpu.shuffle"), "{text}");
}

/// Few outputs, long reductions: a whole-tensor sum and max, a softmax over two long
/// rows (its max and its sum in turn), an integer sum.
const LONG_FEW: &str = r#"
func.func @long(%x: tensor<2x3000xf32>, %i: tensor<4100xi32>) -> (tensor<f32>, tensor<f32>, tensor<2x3000xf32>, tensor<i32>) {
  %s = "graph.reduce_sum"(%x) {keepdims = false} : (tensor<2x3000xf32>) -> tensor<f32>
  %m = "graph.reduce_max"(%x) {keepdims = false} : (tensor<2x3000xf32>) -> tensor<f32>
  %p = "graph.softmax"(%x) <{axis = 1 : i64}> : (tensor<2x3000xf32>) -> tensor<2x3000xf32>
  %t = "graph.reduce_sum"(%i) {keepdims = false} : (tensor<4100xi32>) -> tensor<i32>
  return %s, %m, %p, %t : tensor<f32>, tensor<f32>, tensor<2x3000xf32>, tensor<i32>
}
"#;

/// Sums of thousands of values in [-1, 1), reassociated over the threads of a block.
const LONG_SUMS: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 1e-4,
};

#[test]
fn few_long_reductions_take_a_block_each() {
    for options in ["", "{block-size=64 max-blocks=1}", "{block-size=96}"] {
        let text = check_after_lowering_within(
            LONG_FEW,
            &format!("convert-loop-to-gpu{options}"),
            LONG_SUMS,
        );
        // The warps' values meet in a workgroup buffer between two barriers.
        assert!(text.contains("#gpu.address_space<workgroup>"), "{text}");
        assert!(text.contains("gpu.barrier"), "{text}");
        assert!(text.contains("gpu.shuffle xor"), "{text}");
    }
}

#[test]
fn blocks_are_turned_off_by_their_option() {
    let text = check_after_lowering_within(
        LONG_FEW,
        "convert-loop-to-gpu{block-reduce-min=0}",
        LONG_SUMS,
    );
    assert!(!text.contains("gpu.barrier"), "{text}");
    assert!(text.contains("gpu.shuffle xor"), "{text}");
}

#[test]
fn many_outputs_keep_a_warp_each() {
    // 600 outputs of 2,100 elements: more than 512 outputs, so warps.
    let src = r#"
func.func @rows(%x: tensor<600x2100xf32>) -> tensor<600xf32> {
  %m = "graph.reduce_max"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<600x2100xf32>) -> tensor<600xf32>
  return %m : tensor<600xf32>
}
"#;
    let text = check_mapping(src, "");
    assert!(!text.contains("gpu.barrier"), "{text}");
    assert!(text.contains("gpu.shuffle xor"), "{text}");
}

/// `a x b` (`a: [batch x] m x k`, `b: k x n`), then relu.
fn matmul_relu(batch: Option<i64>, m: i64, k: i64, n: i64) -> String {
    let lead = batch.map_or(String::new(), |b| format!("{b}x"));
    let a = format!("tensor<{lead}{m}x{k}xf32>");
    let c = format!("tensor<{lead}{m}x{n}xf32>");
    format!(
        "func.func @mm(%a: {a}, %b: tensor<{k}x{n}xf32>) -> {c} {{\n\
         %0 = \"graph.matmul\"(%a, %b) : ({a}, tensor<{k}x{n}xf32>) -> {c}\n\
         %1 = \"graph.relu\"(%0) : ({c}) -> {c}\n\
         return %1 : {c}\n}}\n"
    )
}

#[test]
fn register_tiles_cover_every_result_once() {
    // Rows and columns the tiles leave over keep the one-result nest.
    for (tm, tn, m, k, n) in [
        (2, 3, 7, 5, 11),
        (4, 4, 8, 3, 8),
        (3, 2, 5, 9, 4),
        (4, 4, 3, 2, 3),
    ] {
        let text = check_after_lowering(
            &matmul_relu(None, m, k, n),
            &format!(
                "loop-gpu-register-tile{{tm={tm} tn={tn} min-threads=1}}, convert-loop-to-gpu{{block-size=8}}"
            ),
        );
        if m >= tm && n >= tn {
            let accumulators = (tm * tn) as usize;
            assert!(
                text.contains(&format!("-> ({})", vec!["f32"; accumulators].join(", "))),
                "{tm}x{tn} tile of {m}x{n}:\n{text}"
            );
        }
    }
}

#[test]
fn register_tiles_of_a_batched_matmul() {
    check_after_lowering(
        &matmul_relu(Some(3), 5, 4, 6),
        "loop-gpu-register-tile{tm=2 tn=2 min-threads=1}, convert-loop-to-gpu{block-size=16 max-blocks=3}",
    );
}

#[test]
fn a_matmul_with_too_few_tiles_keeps_one_result_per_thread() {
    let pipeline = "loop-gpu-register-tile{tm=4 tn=4 min-threads=1000}, convert-loop-to-gpu";
    let text = check_after_lowering(&matmul_relu(None, 8, 4, 8), pipeline);
    assert!(!text.contains("-> (f32, f32"), "{text}");
}

#[test]
fn shared_tiles_cover_every_result_once() {
    // Leftover rows, columns and reduction steps; a reduction shorter than one stage.
    for (bm, bn, bk, tm, tn, m, k, n) in [
        (8, 8, 4, 2, 2, 16, 8, 16),
        (8, 8, 4, 2, 2, 19, 11, 21),
        (4, 8, 2, 2, 4, 9, 3, 17),
        (8, 4, 8, 4, 2, 8, 5, 12),
    ] {
        let text = check_after_lowering(
            &matmul_relu(None, m, k, n),
            &format!(
                "loop-gpu-shared-tile{{bm={bm} bn={bn} bk={bk} tm={tm} tn={tn} min-blocks=1}}, convert-loop-to-gpu{{block-size=8}}"
            ),
        );
        assert!(text.contains("workgroup("), "{text}");
        if k >= bk {
            assert!(text.contains("gpu.barrier"), "{text}");
        }
    }
}

#[test]
fn shared_tiles_of_a_batched_matmul() {
    let text = check_after_lowering(
        &matmul_relu(Some(3), 9, 6, 8),
        "loop-gpu-shared-tile{bm=4 bn=4 bk=2 tm=2 tn=2 min-blocks=1}, convert-loop-to-gpu",
    );
    assert!(text.contains("workgroup("), "{text}");
}

/// A shared-tile kernel that covers the whole result computes the ReLU after the matmul
/// where it stores each sum, batched or not: one kernel, and no buffer of the sums.
#[test]
fn shared_tiles_compute_the_epilogue() {
    for batch in [None, Some(2)] {
        let text = check_after_lowering(
            &matmul_relu(batch, 8, 6, 8),
            "loop-gpu-shared-tile{bm=4 bn=4 bk=2 tm=2 tn=2 min-blocks=1}, convert-loop-to-gpu",
        );
        assert_eq!(text.matches("gpu.launch").count(), 1, "{text}");
        assert!(
            text.contains("arith.maximumf") || text.contains("arith.cmpf"),
            "{text}"
        );
    }
}

#[test]
fn a_matmul_with_too_few_blocks_is_left_to_the_register_tiles() {
    let text = check_after_lowering(
        &matmul_relu(None, 16, 4, 16),
        "loop-gpu-shared-tile{bm=8 bn=8 bk=4 tm=2 tn=2 min-blocks=5}, convert-loop-to-gpu",
    );
    assert!(!text.contains("workgroup("), "{text}");
}

/// Operands read across their rows: `C = A^T B^T`, so the copies into shared memory walk
/// the tiles along the other dimension.
#[test]
fn shared_tiles_of_transposed_operands() {
    let text = check_loop_level(
        r#"
func.func @f(%a: memref<6x10xf32>, %b: memref<12x6xf32>) -> memref<10x12xf32> {
  %out = loop.alloc() : memref<10x12xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (10, 12) {
    %s = loop.for %k = 0 to 6 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%k, %i] : memref<6x10xf32>
      %y = loop.load %b[%j, %k] : memref<12x6xf32>
      %p = arith.mulf %x, %y : f32
      %q = arith.addf %acc, %p : f32
      loop.yield %q : f32
    }
    loop.store %s, %out[%i, %j] : memref<10x12xf32>
  }
  return %out : memref<10x12xf32>
}
"#,
        "loop-gpu-shared-tile{bm=4 bn=4 bk=4 tm=2 tn=2 min-blocks=1}, convert-loop-to-gpu",
        Tolerance::default(),
    );
    assert!(text.contains("workgroup("), "{text}");
}

#[test]
fn shared_tile_sizes_that_make_no_kernel_are_refused() {
    for (options, expected) in [
        ("{bm=6 tm=4}", "tm must divide bm"),
        ("{bm=128 bn=128 tm=2 tn=2}", "more than 1024"),
        ("{bm=64 bn=64 bk=128}", "shared memory"),
        ("{bm=8 bn=8 bk=1 tm=1 tn=1}", "split both tiles evenly"),
        ("{min-blocks=-1}", "negative"),
        ("{tm=0}", "[1, 1024]"),
    ] {
        let message = refusal(&format!("loop-gpu-shared-tile{options}"));
        assert!(message.contains(expected), "{options}: {message}");
    }
}

/// `a x b` of f16 tensors, the sums in f32 (as the te level computes them), the result
/// rounded back to f16: its last bit may differ where the tiles fuse a multiply-add.
fn f16_matmul(m: i64, k: i64, n: i64) -> String {
    format!(
        "func.func @mm(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>) -> tensor<{m}x{n}xf16> {{\n\
         %0 = \"graph.matmul\"(%a, %b) : (tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>) -> tensor<{m}x{n}xf16>\n\
         return %0 : tensor<{m}x{n}xf16>\n}}\n"
    )
}

const F16_RESULT: Tolerance = Tolerance {
    rtol: 1e-3,
    atol: 1e-3,
};

#[test]
fn shared_tiles_widen_f16_operands_as_they_copy_them() {
    let text = check_after_lowering_within(
        &f16_matmul(10, 9, 12),
        "loop-gpu-shared-tile{bm=4 bn=4 bk=4 tm=2 tn=2 min-blocks=1}, convert-loop-to-gpu",
        F16_RESULT,
    );
    assert!(text.contains("workgroup("), "{text}");
    assert!(text.contains("arith.extf"), "{text}");
}

#[test]
fn register_tiles_widen_f16_operands() {
    let text = check_after_lowering_within(
        &f16_matmul(7, 5, 9),
        "loop-gpu-register-tile{tm=2 tn=2 min-threads=1}, convert-loop-to-gpu{block-size=8}",
        F16_RESULT,
    );
    assert!(text.contains("-> (f32, f32, f32, f32)"), "{text}");
}

/// `a x b` of `ty` tensors (`a`: `[batch x] m x k`), the sums in f32.
fn narrow_matmul(ty: &str, batch: Option<i64>, m: i64, k: i64, n: i64) -> String {
    let lead = batch.map_or(String::new(), |b| format!("{b}x"));
    let a = format!("tensor<{lead}{m}x{k}x{ty}>");
    let c = format!("tensor<{lead}{m}x{n}x{ty}>");
    format!(
        "func.func @mm(%a: {a}, %b: tensor<{k}x{n}x{ty}>) -> {c} {{\n\
         %0 = \"graph.matmul\"(%a, %b) : ({a}, tensor<{k}x{n}x{ty}>) -> {c}\n\
         return %0 : {c}\n}}\n"
    )
}

/// bf16 keeps 8 bits of mantissa: a result rounded to it may move by 2^-8 of itself.
const BF16_RESULT: Tolerance = Tolerance {
    rtol: 8e-3,
    atol: 8e-3,
};

#[test]
fn tensor_cores_cover_every_result_once() {
    // Leftover rows and columns, a partial last slice of the reduction, a reduction
    // shorter than one slice, and warps that take several tiles.
    for (wm, wn, wpb, m, k, n) in [
        (1, 1, 1, 16, 16, 8),
        (1, 1, 2, 37, 40, 21),
        (2, 2, 1, 35, 7, 19),
        (1, 2, 4, 48, 33, 32),
    ] {
        let text = check_after_lowering_within(
            &narrow_matmul("f16", None, m, k, n),
            &format!(
                "loop-gpu-mma{{warp-m={wm} warp-n={wn} warps-per-block={wpb} stage=false}}, convert-loop-to-gpu{{block-size=32}}"
            ),
            F16_RESULT,
        );
        assert!(text.contains("nvgpu.mma.sync"), "{m}x{k}x{n}:\n{text}");
    }
}

#[test]
fn tensor_cores_take_bf16_and_batches() {
    let text = check_after_lowering_within(
        &narrow_matmul("bf16", Some(2), 20, 24, 12),
        "loop-gpu-mma{warp-m=1 warp-n=1 warps-per-block=2 stage=false}, convert-loop-to-gpu",
        BF16_RESULT,
    );
    assert!(text.contains("vector<4x2xbf16>"), "{text}");
}

#[test]
fn f32_matmuls_stay_off_the_tensor_cores() {
    let text = check_after_lowering(
        &matmul_relu(None, 32, 16, 32),
        "loop-gpu-mma, convert-loop-to-gpu",
    );
    assert!(!text.contains("nvgpu.mma.sync"), "{text}");
}

#[test]
fn staged_tensor_cores_cover_every_result_once() {
    // Full and partial stages, leftover rows and columns around whole block tiles, a
    // reduction shorter than one stage, several warps per block.
    for (wm, wn, bwm, bwn, sk, m, k, n) in [
        (1, 1, 1, 1, 16, 16, 16, 8),
        (1, 1, 2, 2, 32, 40, 70, 19),
        (2, 1, 1, 2, 16, 37, 9, 33),
        (1, 2, 2, 1, 32, 32, 64, 16),
    ] {
        let text = check_after_lowering_within(
            &narrow_matmul("f16", None, m, k, n),
            &format!(
                "loop-gpu-mma{{warp-m={wm} warp-n={wn} block-warps-m={bwm} block-warps-n={bwn} stage-k={sk}}}, convert-loop-to-gpu{{block-size=32}}"
            ),
            F16_RESULT,
        );
        assert!(text.contains("nvgpu.ldmatrix"), "{m}x{k}x{n}:\n{text}");
    }
}

/// Operands whose rows are contiguous and a multiple of 8 elements are copied into the
/// tiles as 16-byte vectors, the next stage read while this one computes; the
/// interpreter checks the promised alignment of every vector access.
#[test]
fn staged_tensor_cores_copy_16_byte_vectors() {
    // Full stages and a partial one, leftover rows; then columns that are no multiple of
    // 8 (B copied element by element) and a batch.
    for (ty, batch, m, k, n, tolerance) in [
        ("f16", None, 136, 80, 64, F16_RESULT),
        ("f16", None, 64, 64, 36, F16_RESULT),
        ("bf16", Some(2), 64, 48, 32, BF16_RESULT),
    ] {
        let text = check_after_lowering_within(
            &narrow_matmul(ty, batch, m, k, n),
            "loop-gpu-mma{warp-m=2 warp-n=2 block-warps-m=2 block-warps-n=2 stage-k=32 stages=1 min-blocks=1}, convert-loop-to-gpu{block-size=32}",
            tolerance,
        );
        assert!(
            text.contains("loop.vector_load") && text.contains("alignment = 16"),
            "{m}x{k}x{n}:\n{text}"
        );
    }
}

/// With several stages, the tiles are filled by asynchronous copies (16 bytes each) that
/// run ahead of the arithmetic. The interpreter lands each copy only when the thread
/// waits for it and checks the barriers around it, so a wait or barrier missing, or a
/// stage read from the wrong buffer, fails these.
#[test]
fn staged_tensor_cores_pipeline_asynchronous_copies() {
    // More stages than full stages, as many, fewer (buffers reused), a partial last
    // stage after the pipeline, leftover rows and columns, bf16 and a batch.
    for (ty, batch, stages, m, k, n, tolerance) in [
        ("f16", None, 3, 64, 64, 32, F16_RESULT),
        ("f16", None, 2, 64, 64, 32, F16_RESULT),
        ("f16", None, 2, 72, 176, 40, F16_RESULT),
        ("f16", None, 4, 64, 144, 32, F16_RESULT),
        ("bf16", Some(2), 3, 64, 112, 32, BF16_RESULT),
    ] {
        let text = check_after_lowering_within(
            &narrow_matmul(ty, batch, m, k, n),
            &format!(
                "loop-gpu-mma{{warp-m=2 warp-n=2 block-warps-m=2 block-warps-n=2 stage-k=32 stages={stages} min-blocks=1}}, convert-loop-to-gpu{{block-size=32}}"
            ),
            tolerance,
        );
        assert!(
            text.contains("nvgpu.device_async_copy") && text.contains("nvgpu.device_async_wait"),
            "{m}x{k}x{n}:\n{text}"
        );
    }
}

/// When the staged kernel covers the whole result, the elementwise nest after the
/// matmul (bias, ReLU and the rounding of the f32 sums to f16) runs where the kernel
/// stores each result: one kernel, and no f32 buffer of the sums.
#[test]
fn staged_tensor_cores_compute_the_epilogue() {
    for (ty, tolerance) in [("f16", F16_RESULT), ("bf16", BF16_RESULT)] {
        let (m, k, n) = (64, 48, 32);
        let src = format!(
            "func.func @mlp(%x: tensor<{m}x{k}x{ty}>, %w: tensor<{k}x{n}x{ty}>, %b: tensor<{n}x{ty}>) -> tensor<{m}x{n}x{ty}> {{\n\
             %0 = \"graph.matmul\"(%x, %w) : (tensor<{m}x{k}x{ty}>, tensor<{k}x{n}x{ty}>) -> tensor<{m}x{n}x{ty}>\n\
             %1 = \"graph.add\"(%0, %b) : (tensor<{m}x{n}x{ty}>, tensor<{n}x{ty}>) -> tensor<{m}x{n}x{ty}>\n\
             %2 = \"graph.relu\"(%1) : (tensor<{m}x{n}x{ty}>) -> tensor<{m}x{n}x{ty}>\n\
             return %2 : tensor<{m}x{n}x{ty}>\n}}\n"
        );
        let text = check_after(
            "canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize",
            &src,
            "loop-gpu-mma{warp-m=2 warp-n=2 block-warps-m=2 block-warps-n=2 stage-k=16 min-blocks=1}, convert-loop-to-gpu{block-size=32}",
            tolerance,
        );
        assert_eq!(text.matches("gpu.launch").count(), 1, "{ty}:\n{text}");
        assert!(
            !text.contains(&format!("memref<{m}x{n}xf32>")),
            "{ty}:\n{text}"
        );
    }
}

#[test]
fn staged_tensor_cores_take_bf16_and_batches() {
    let text = check_after_lowering_within(
        &narrow_matmul("bf16", Some(2), 32, 24, 16),
        "loop-gpu-mma{warp-m=1 warp-n=1 block-warps-m=2 block-warps-n=2}, convert-loop-to-gpu",
        BF16_RESULT,
    );
    assert!(text.contains("nvgpu.ldmatrix"), "{text}");
}

/// `C = A^T B^T` of f16 matrices: the copies into shared memory walk the tiles along the
/// other dimension.
#[test]
fn staged_tensor_cores_take_transposed_operands() {
    let text = check_loop_level(
        r#"
func.func @f(%a: memref<20x32xf16>, %b: memref<16x20xf16>) -> memref<32x16xf32> {
  %out = loop.alloc() : memref<32x16xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (32, 16) {
    %s = loop.for %k = 0 to 20 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%k, %i] : memref<20x32xf16>
      %xw = arith.extf %x : f16 to f32
      %y = loop.load %b[%j, %k] : memref<16x20xf16>
      %yw = arith.extf %y : f16 to f32
      %p = arith.mulf %xw, %yw : f32
      %q = arith.addf %acc, %p : f32
      loop.yield %q : f32
    }
    loop.store %s, %out[%i, %j] : memref<32x16xf32>
  }
  return %out : memref<32x16xf32>
}
"#,
        "loop-gpu-mma{warp-m=1 warp-n=1 block-warps-m=2 block-warps-n=2 stage-k=16}, convert-loop-to-gpu",
        Tolerance {
            rtol: 1e-4,
            atol: 1e-4,
        },
    );
    assert!(text.contains("nvgpu.ldmatrix"), "{text}");
}

#[test]
fn staging_sizes_that_make_no_kernel_are_refused() {
    for (options, expected) in [
        ("{stage-k=24}", "multiple of 16"),
        ("{block-warps-m=9}", "[1, 8]"),
        (
            "{warp-m=8 warp-n=8 block-warps-m=4 block-warps-n=4}",
            "shared memory",
        ),
    ] {
        let message = refusal(&format!("loop-gpu-mma{options}"));
        assert!(message.contains(expected), "{options}: {message}");
    }
}

/// The whole GPU pipeline (`pipelines::GPU`) on matmuls with an epilogue: the tensor
/// cores take the f16 products (staged where a block tile fits, from global memory for
/// the rest), the shared-memory and register tiles the f32 ones, and every other nest is
/// mapped as usual.
#[test]
fn the_gpu_pipeline_keeps_matmuls_with_epilogues() {
    let pipeline = tb_passes::pipelines::GPU
        .strip_prefix("builtin.module(")
        .and_then(|p| p.strip_suffix(')'))
        .unwrap();
    for (ty, m, k, n, tolerance) in [
        ("f16", 96, 40, 72, F16_RESULT),
        ("f32", 136, 20, 1040, Tolerance::default()),
    ] {
        let src = format!(
            "func.func @mlp(%x: tensor<{m}x{k}x{ty}>, %w: tensor<{k}x{n}x{ty}>, %b: tensor<{n}x{ty}>) -> tensor<{m}x{n}x{ty}> {{\n\
             %0 = \"graph.matmul\"(%x, %w) : (tensor<{m}x{k}x{ty}>, tensor<{k}x{n}x{ty}>) -> tensor<{m}x{n}x{ty}>\n\
             %1 = \"graph.add\"(%0, %b) : (tensor<{m}x{n}x{ty}>, tensor<{n}x{ty}>) -> tensor<{m}x{n}x{ty}>\n\
             %2 = \"graph.relu\"(%1) : (tensor<{m}x{n}x{ty}>) -> tensor<{m}x{n}x{ty}>\n\
             return %2 : tensor<{m}x{n}x{ty}>\n}}\n"
        );
        let report = check_transform(
            &src,
            |ctx, module| {
                let mut registry = PassRegistry::new();
                tb_passes::register_all(&mut registry);
                let parsed = Pipeline::parse(&format!("builtin.module({pipeline})")).unwrap();
                PassManager::new(&parsed, &registry).unwrap().run(
                    ctx,
                    module,
                    &Instrumentation::default(),
                )?;
                assert_all_computation_in_kernels(ctx, module);
                Ok(())
            },
            tolerance,
            2,
        )
        .unwrap_or_else(|e| panic!("{ty}: {e}"));
        let expected = if ty == "f16" {
            "nvgpu.ldmatrix"
        } else {
            "workgroup("
        };
        assert!(report.text.contains(expected), "{ty}:\n{}", report.text);
    }
}
