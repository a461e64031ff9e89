//! Tensor expressions lowered by `convert-te-to-loop` and JIT-compiled, against the
//! interpreter running the te-level functions on the same random arguments.

use tb_backends::cpu::CompileOptions;
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::Interpreter;
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

use super::harness::Parsed;

/// Interprets every public function of the te-level `source` on `seeds` random argument
/// sets, lowers the module with `convert-te-to-loop`, compiles it with `options` and checks
/// that the compiled functions agree within `rtol`/`atol`.
fn check_lowered(source: &str, options: &CompileOptions, seeds: u64, rtol: f64, atol: f64) {
    let mut parsed = Parsed::new(source);
    let names = Interpreter::new(&parsed.ctx, parsed.module).public_function_names();
    assert!(!names.is_empty(), "no public functions to check");
    let mut cases = Vec::new();
    for name in &names {
        for seed in 0..seeds {
            let args = random_arguments(&parsed.ctx, parsed.function(name), seed).unwrap();
            let want = parsed.interpret(name, &args);
            cases.push((name.clone(), seed, args, want));
        }
    }

    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse("builtin.module(convert-te-to-loop)").unwrap();
    let mut pm = PassManager::new(&pipeline, &registry).unwrap();
    let instrumentation = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(&mut parsed.ctx, parsed.module, &instrumentation)
        .unwrap_or_else(|d| panic!("convert-te-to-loop: {}", parsed.render(&d)));

    let compiled = parsed.compile(options);
    for (name, seed, args, want) in cases {
        let got = compiled
            .run(&name, &args)
            .unwrap_or_else(|e| panic!("@{name}: {e}"));
        assert_eq!(got.len(), want.len(), "@{name}: result count");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            g.allclose(w, rtol, atol)
                .unwrap_or_else(|m| panic!("@{name} seed {seed} result #{i}: {m}"));
        }
    }
}

/// [`check_lowered`] with in-order and threaded parallel loops, 3 seeds, f32 tolerances.
fn check(source: &str) {
    for threads in [None, Some(2)] {
        let options = CompileOptions {
            threads,
            ..CompileOptions::default()
        };
        check_lowered(source, &options, 3, 1e-5, 1e-6);
    }
}

#[test]
fn matmul() {
    check(
        r#"
func.func @matmul(%a: tensor<13x17xf32>, %b: tensor<17x11xf32>) -> tensor<13x11xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [17] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<13x17xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<17x11xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  } : (tensor<13x17xf32>, tensor<17x11xf32>) -> tensor<13x11xf32>
  return %c : tensor<13x11xf32>
}
"#,
    );
}

#[test]
fn padded_convolution_window() {
    check(
        r#"
func.func @conv(%x: tensor<2x3x7x6xf32>, %w: tensor<4x3x3x3xf32>, %bias: tensor<4xf32>) -> tensor<2x4x4x6xf32> {
  %y = te.compute (%x, %w) [%n, %f, %h, %v] reduce [%c, %kh, %kw] in [3, 3, 3] combiner = sum {
    %a = te.read %x[(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5 - 1, d3 + d6 - 1)] {padding = 0.0 : f32} : tensor<2x3x7x6xf32>
    %b = te.read %w[(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)] : tensor<4x3x3x3xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  } : (tensor<2x3x7x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x6xf32>
  %r = te.compute (%y, %bias) [%n, %f, %h, %v] {
    %a = te.read %y[(d0, d1, d2, d3) -> (d0, d1, d2, d3)] : tensor<2x4x4x6xf32>
    %b = te.read %bias[(d0, d1, d2, d3) -> (d1)] : tensor<4xf32>
    %s = arith.addf %a, %b : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %s, %zero : f32
    te.yield %relu : f32
  } : (tensor<2x4x4x6xf32>, tensor<4xf32>) -> tensor<2x4x4x6xf32>
  return %r : tensor<2x4x4x6xf32>
}
"#,
    );
}

#[test]
fn softmax_chain() {
    check(
        r#"
func.func @softmax(%a: tensor<5x9xf32>) -> tensor<5x9xf32> {
  %max = te.compute (%a) [%i] reduce [%j] in [9] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<5x9xf32>
    te.yield %x : f32
  } : (tensor<5x9xf32>) -> tensor<5xf32>
  %exp = te.compute (%a, %max) [%i, %j] {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<5x9xf32>
    %m = te.read %max[(d0, d1) -> (d0)] : tensor<5xf32>
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    te.yield %e : f32
  } : (tensor<5x9xf32>, tensor<5xf32>) -> tensor<5x9xf32>
  %sum = te.compute (%exp) [%i] reduce [%j] in [9] combiner = sum {
    %x = te.read %exp[(d0, d1) -> (d0, d1)] : tensor<5x9xf32>
    te.yield %x : f32
  } : (tensor<5x9xf32>) -> tensor<5xf32>
  %out = te.compute (%exp, %sum) [%i, %j] {
    %x = te.read %exp[(d0, d1) -> (d0, d1)] : tensor<5x9xf32>
    %s = te.read %sum[(d0, d1) -> (d0)] : tensor<5xf32>
    %q = arith.divf %x, %s : f32
    te.yield %q : f32
  } : (tensor<5x9xf32>, tensor<5xf32>) -> tensor<5x9xf32>
  return %out : tensor<5x9xf32>
}
"#,
    );
}

#[test]
fn gather_with_read_at() {
    check(
        r#"
func.func @gather(%table: tensor<6x5xf32>, %ids: tensor<3x2xi64>) -> tensor<3x2x5xf32> {
  %g = te.compute (%table, %ids) [%i, %j, %k] {
    %id = te.read %ids[(d0, d1, d2) -> (d0, d1)] : tensor<3x2xi64>
    %raw = arith.index_cast %id : i64 to index
    %c6 = arith.constant 6 : index
    %c0 = arith.constant 0 : index
    %r = arith.remsi %raw, %c6 : index
    %neg = arith.cmpi slt, %r, %c0 : index
    %up = arith.addi %r, %c6 : index
    %row = arith.select %neg, %up, %r : index
    %x = te.read_at %table[%row, %k] : tensor<6x5xf32>
    te.yield %x : f32
  } : (tensor<6x5xf32>, tensor<3x2xi64>) -> tensor<3x2x5xf32>
  return %g : tensor<3x2x5xf32>
}
"#,
    );
}

#[test]
fn reductions_of_every_combiner_and_rank0_results() {
    check(
        r#"
func.func @reduce(%a: tensor<4x6xf32>, %b: tensor<4x6xi32>) -> (tensor<f32>, tensor<4xf32>, tensor<6xf32>, tensor<4xi32>, tensor<6xi32>) {
  %sum = te.compute (%a) [] reduce [%i, %j] in [4, 6] combiner = sum {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x6xf32>
    te.yield %x : f32
  } : (tensor<4x6xf32>) -> tensor<f32>
  %prod = te.compute (%a) [%i] reduce [%j] in [6] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<4x6xf32>
    te.yield %x : f32
  } : (tensor<4x6xf32>) -> tensor<4xf32>
  %min = te.compute (%a) [%j] reduce [%i] in [4] combiner = min {
    %x = te.read %a[(d0, d1) -> (d1, d0)] : tensor<4x6xf32>
    te.yield %x : f32
  } : (tensor<4x6xf32>) -> tensor<6xf32>
  %imax = te.compute (%b) [%i] reduce [%j] in [6] combiner = max {
    %x = te.read %b[(d0, d1) -> (d0, d1)] : tensor<4x6xi32>
    te.yield %x : i32
  } : (tensor<4x6xi32>) -> tensor<4xi32>
  %imin = te.compute (%b) [%j] reduce [%i] in [4] combiner = min {
    %x = te.read %b[(d0, d1) -> (d1, d0)] : tensor<4x6xi32>
    te.yield %x : i32
  } : (tensor<4x6xi32>) -> tensor<6xi32>
  return %sum, %prod, %min, %imax, %imin : tensor<f32>, tensor<4xf32>, tensor<6xf32>, tensor<4xi32>, tensor<6xi32>
}
"#,
    );
}

#[test]
fn constants_calls_and_returned_arguments() {
    check(
        r#"
func.func private @scale(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %w = arith.constant dense_resource<weights> : tensor<4xf32>
  %y = te.compute (%a, %w) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<4xf32>
    %s = te.read %w[(d0) -> (d0)] : tensor<4xf32>
    %p = arith.mulf %x, %s : f32
    te.yield %p : f32
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %a : tensor<4xf32>, tensor<4xf32>
}
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>) {
  %y, %same = func.call @scale(%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %b = arith.constant dense<[1.0, -2.0, 0.5, 4.0]> : tensor<4xf32>
  %z = te.compute (%y, %b) [%i] {
    %x = te.read %y[(d0) -> (d0)] : tensor<4xf32>
    %c = te.read %b[(d0) -> (d0)] : tensor<4xf32>
    %s = arith.addf %x, %c : f32
    te.yield %s : f32
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %k = arith.constant dense<[3, -1]> : tensor<2xi32>
  return %z, %same, %z, %k : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
"#,
    );
}
