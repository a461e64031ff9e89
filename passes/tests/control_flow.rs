//! Run-time control flow keeps its meaning through every level: `graph.if` lowered to
//! `scf.if` on tensors (te), then on buffers (loop), then to `cf` branches by the CPU
//! pipeline; and `scf.for`/`scf.while` on tensors written at te (a running sum with tensor
//! iter_args, a loop whose condition reads a tensor, carried values that swap). Each case
//! runs in the reference interpreter before and after on the same random inputs
//! (`check_transform`); the seeds take both branches.

use tb_interpreter::check::{Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

/// Runs `pipeline` on `src` under the interpreter's before/after check (8 seeds); gives the
/// transformed IR.
fn check(src: &str, pipeline: &str) -> String {
    let report = check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry).unwrap();
            let instrumentation = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instrumentation)
        },
        Tolerance::default(),
        8,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "functions left out: {:?}",
        report.skipped
    );
    report.text
}

const TO_TE: &str = "builtin.module(convert-graph-to-te)";
const TO_LOOP: &str = "builtin.module(convert-graph-to-te, convert-te-to-loop)";

/// A graph.if whose condition is an input, with a branch that yields an outer value, a
/// condition computed in the graph, and a nested If.
const GRAPH_IFS: &str = r#"
func.func @branch(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = graph.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    %t = graph.relu %x : tensor<2x3xf32>
    graph.yield %t : tensor<2x3xf32>
  } else {
    graph.yield %x : tensor<2x3xf32>
  }
  %z = graph.mul %y, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}
func.func @computed_condition(%a: tensor<1xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = graph.constant dense<0.0> : tensor<1xf32>
  %c = graph.less %a, %zero : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
  %y:2 = graph.if %c : (tensor<1xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
    %n = graph.neg %x : tensor<4xf32>
    graph.yield %n, %x : tensor<4xf32>, tensor<4xf32>
  } else {
    %e = graph.exp %x : tensor<4xf32>
    %s = graph.add %e, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %s, %e : tensor<4xf32>, tensor<4xf32>
  }
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}
func.func @nested(%c: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.if %c : (tensor<i1>) -> tensor<4xf32> {
    %less = graph.less %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %z = graph.if %less : (tensor<i1>) -> tensor<4xf32> {
      %n = graph.neg %x : tensor<4xf32>
      graph.yield %n : tensor<4xf32>
    } else {
      graph.yield %x : tensor<4xf32>
    }
    graph.yield %z : tensor<4xf32>
  } else {
    %e = graph.exp %x : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
"#;

#[test]
fn graph_if_lowers_to_scf_if_on_tensors() {
    let te = check(GRAPH_IFS, TO_TE);
    assert!(!te.contains("graph."), "{te}");
    assert!(te.contains("scf.if") && te.contains("te.extract"), "{te}");
}

#[test]
fn graph_if_lowers_to_scf_if_on_buffers() {
    let lowered = check(GRAPH_IFS, TO_LOOP);
    assert!(!lowered.contains("tensor<"), "{lowered}");
    assert!(lowered.contains("scf.if"), "{lowered}");
}

#[test]
fn graph_if_survives_the_cpu_pipeline() {
    let lowered = check(GRAPH_IFS, tb_passes::pipelines::CPU);
    assert!(!lowered.contains("scf."), "{lowered}");
    assert!(lowered.contains("cf.cond_br"), "{lowered}");
}

/// Loops on tensors at te: tensor iter_args next to scalar ones, an induction variable used
/// in a te.compute body, a while loop whose condition reads a tensor it computes, carried
/// values that swap places, and an If inside a loop.
const TE_LOOPS: &str = r#"
func.func @running_sum(%x: tensor<4xf32>, %rows: tensor<3x4xf32>) -> (tensor<4xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %sum:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x, %k = %zero) -> (tensor<4xf32>, i32) {
    %next = te.compute (%acc, %rows) [%j] {
      %a = te.read %acc[(d0) -> (d0)] : tensor<4xf32>
      %r = te.read_at %rows[%i, %j] : tensor<3x4xf32>
      %s = arith.addf %a, %r : f32
      te.yield %s : f32
    } : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %k1 = arith.addi %k, %one : i32
    scf.yield %next, %k1 : tensor<4xf32>, i32
  }
  return %sum#0, %sum#1 : tensor<4xf32>, i32
}
func.func @halve_while_large(%x: tensor<4xf32>) -> (tensor<4xf32>, i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %limit = arith.constant 0.05 : f32
  %r:2 = scf.while (%t = %x, %n = %zero) : (tensor<4xf32>, i32) -> (tensor<4xf32>, i32) {
    %m = te.compute (%t) [] reduce [%k] in [4] combiner = max {
      %v = te.read %t[(d0) -> (d0)] : tensor<4xf32>
      %a = math.absf %v : f32
      te.yield %a : f32
    } : (tensor<4xf32>) -> tensor<f32>
    %big = te.extract %m[] : tensor<f32>
    %more = arith.cmpf ogt, %big, %limit : f32
    scf.condition(%more) %t, %n : tensor<4xf32>, i32
  } do {
  ^bb0(%t: tensor<4xf32>, %n: i32):
    %h = te.compute (%t) [%j] {
      %v = te.read %t[(d0) -> (d0)] : tensor<4xf32>
      %c = arith.constant 0.5 : f32
      %p = arith.mulf %v, %c : f32
      te.yield %p : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    %s = arith.addi %n, %one : i32
    scf.yield %h, %s : tensor<4xf32>, i32
  }
  return %r#0, %r#1 : tensor<4xf32>, i32
}
func.func @swap_and_add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x, %b = %y) -> (tensor<4xf32>, tensor<4xf32>) {
    %s = te.compute (%a, %b) [%j] {
      %u = te.read %a[(d0) -> (d0)] : tensor<4xf32>
      %v = te.read %b[(d0) -> (d0)] : tensor<4xf32>
      %w = arith.addf %u, %v : f32
      te.yield %w : f32
    } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %b, %s : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
func.func @if_yields_twice(%c: i1, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = scf.if %c -> (tensor<4xf32>, tensor<4xf32>) {
    %n = te.compute (%x) [%j] {
      %v = te.read %x[(d0) -> (d0)] : tensor<4xf32>
      %m = arith.negf %v : f32
      te.yield %m : f32
    } : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n, %n : tensor<4xf32>, tensor<4xf32>
  } else {
    scf.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}
func.func @if_in_loop(%x: tensor<4xf32>, %flags: tensor<5xi1>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %f = te.extract %flags[%i] : tensor<5xi1>
    %n = scf.if %f -> (tensor<4xf32>) {
      %d = te.compute (%a) [%j] {
        %u = te.read %a[(d0) -> (d0)] : tensor<4xf32>
        %c = arith.constant 1.5 : f32
        %w = arith.mulf %u, %c : f32
        te.yield %w : f32
      } : (tensor<4xf32>) -> tensor<4xf32>
      scf.yield %d : tensor<4xf32>
    } else {
      scf.yield %a : tensor<4xf32>
    }
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
"#;

#[test]
fn loops_on_tensors_lower_to_loops_on_buffers() {
    let lowered = check(TE_LOOPS, "builtin.module(convert-te-to-loop)");
    assert!(!lowered.contains("tensor<"), "{lowered}");
    assert!(
        lowered.contains("scf.for") && lowered.contains("scf.while"),
        "{lowered}"
    );
}

#[test]
fn loops_on_tensors_survive_the_cpu_pipeline() {
    let lowered = check(TE_LOOPS, tb_passes::pipelines::CPU);
    assert!(!lowered.contains("scf."), "{lowered}");
}
