//! `loop.for` with iter_args: loop-carried values compiled as phis, against the interpreter
//! on random inputs, with schedule annotations, inside parallel loops and on the thread pool.

use tb_backends::cpu::{CompileOptions, EmitKind, OptLevel, emit};

use super::harness::{Parsed, check, check_with};

/// Reductions carried in registers: a dot product (unrolled), row maxima and an integer
/// sum with a product, two carried values of different types in one loop.
const SCALAR_REDUCTIONS: &str = r#"
func.func @dot(%a: memref<37xf32>, %b: memref<37xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %r = loop.for %k = 0 to 37 iter_args(%acc = %zero) -> (f32) unroll = 4 {
    %x = loop.load %a[%k] : memref<37xf32>
    %y = loop.load %b[%k] : memref<37xf32>
    %n = loop.fma %x, %y, %acc : f32
    loop.yield %n : f32
  }
  return %r : f32
}

func.func @row_max(%a: memref<5x9xf32>) -> memref<5xf32> {
  %out = loop.alloc() : memref<5xf32>
  %lowest = arith.constant 0xFF800000 : f32
  loop.for %i = 0 to 5 {
    %m = loop.for %j = 0 to 9 iter_args(%acc = %lowest) -> (f32) {
      %x = loop.load %a[%i, %j] : memref<5x9xf32>
      %n = arith.maximumf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %m, %out[%i] : memref<5xf32>
  }
  return %out : memref<5xf32>
}

func.func @sum_and_product(%a: memref<12xi32>) -> (i32, i64) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %r:2 = loop.for %k = 1 to 12 step 3 iter_args(%s = %zero, %p = %one) -> (i32, i64) {
    %x = loop.load %a[%k] : memref<12xi32>
    %s2 = arith.addi %s, %x : i32
    %w = arith.extsi %x : i32 to i64
    %p2 = arith.muli %p, %w : i64
    loop.yield %s2, %p2 : i32, i64
  }
  return %r#0, %r#1 : i32, i64
}
"#;

#[test]
fn scalar_reductions_in_registers() {
    check(SCALAR_REDUCTIONS);
}

#[test]
fn scalar_reductions_at_every_optimization_level() {
    for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
        let options = CompileOptions {
            opt_level: level,
            ..CompileOptions::default()
        };
        check_with(SCALAR_REDUCTIONS, &options, 2, 1e-5, 1e-6);
    }
}

/// Bounds from values (possibly no iteration: the result is the init), nested loops whose
/// inner loop starts from the outer iter_arg, and an iter_arg yielded unchanged.
const BOUNDS_AND_NESTS: &str = r#"
func.func @prefix_sum(%a: memref<16xf32>, %n: index, %x: f32) -> (f32, f32) {
  %r:2 = loop.for %k = 0 to min affine_map<(d0) -> (d0, 16)>(%n) iter_args(%acc = %x, %same = %x) -> (f32, f32) {
    %v = loop.load %a[%k] : memref<16xf32>
    %s = arith.addf %acc, %v : f32
    loop.yield %s, %same : f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

func.func @matrix_sum(%a: memref<6x7xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %total = loop.for %i = 0 to 6 iter_args(%outer = %zero) -> (f64) {
    %row = loop.for %j = %i to 7 iter_args(%inner = %outer) -> (f64) {
      %v = loop.load %a[%i, %j] : memref<6x7xf64>
      %s = arith.addf %inner, %v : f64
      loop.yield %s : f64
    }
    loop.yield %row : f64
  }
  return %total : f64
}
"#;

#[test]
fn value_bounds_and_nested_carried_values() {
    check(BOUNDS_AND_NESTS);
    // Zero and a negative count: no iteration, both results are the init.
    let parsed = Parsed::new(BOUNDS_AND_NESTS);
    let compiled = parsed.compile(&CompileOptions::default());
    let a = tb_interpreter::Tensor::from_vec(vec![16], vec![1.0f32; 16]).unwrap();
    for n in [0i64, -3] {
        let args = [
            a.clone(),
            tb_interpreter::Tensor::scalar(n),
            tb_interpreter::Tensor::scalar(2.5f32),
        ];
        let got = compiled.run("prefix_sum", &args).unwrap();
        assert_eq!(got[0].as_slice::<f32>().unwrap(), &[2.5]);
        assert_eq!(got[1].as_slice::<f32>().unwrap(), &[2.5]);
        assert_eq!(parsed.interpret("prefix_sum", &args), got);
    }
}

/// Vector accumulators: 8 partial sums per row carried as a vector, then reduced to a
/// scalar by a second carrying loop; and a scalar reduction the loop vectorizer is asked
/// to vectorize (it may reassociate the sum, hence the tolerance).
const VECTOR_REDUCTIONS: &str = r#"
func.func @vector_row_sum(%a: memref<3x32xf32>) -> memref<3xf32> {
  %out = loop.alloc() : memref<3xf32>
  %part = loop.alloc() : memref<8xf32>
  %zeros = arith.constant dense<0.0> : vector<8xf32>
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 3 {
    %p = loop.for %j = 0 to 32 step 8 iter_args(%acc = %zeros) -> (vector<8xf32>) vectorize = 8 {
      %v = loop.vector_load %a[%i, %j] : memref<3x32xf32>, vector<8xf32>
      %s = arith.addf %acc, %v : vector<8xf32>
      loop.yield %s : vector<8xf32>
    }
    loop.vector_store %p, %part[() -> (0)]() : memref<8xf32>, vector<8xf32>
    %t = loop.for %l = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %part[%l] : memref<8xf32>
      %u = arith.addf %acc, %x : f32
      loop.yield %u : f32
    }
    loop.store %t, %out[%i] : memref<3xf32>
  }
  loop.dealloc %part : memref<8xf32>
  return %out : memref<3xf32>
}

func.func @vectorized_scalar_sum(%a: memref<1000xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %r = loop.for %k = 0 to 1000 iter_args(%acc = %zero) -> (f32) unroll = 2 vectorize = 8 {
    %x = loop.load %a[%k] : memref<1000xf32>
    %s = arith.addf %acc, %x : f32
    loop.yield %s : f32
  }
  return %r : f32
}

func.func @vectorized_int_max(%a: memref<100xi32>) -> i32 {
  %lowest = arith.constant -2147483648 : i32
  %r = loop.for %k = 0 to 100 iter_args(%acc = %lowest) -> (i32) vectorize = 4 {
    %x = loop.load %a[%k] : memref<100xi32>
    %m = arith.maxsi %acc, %x : i32
    loop.yield %m : i32
  }
  return %r : i32
}
"#;

#[test]
fn vector_accumulators_and_vectorized_reductions() {
    check_with(VECTOR_REDUCTIONS, &CompileOptions::default(), 3, 1e-4, 1e-5);
}

/// A matmul whose reduction is carried in an iter_arg inside a `loop.parallel`, so the
/// carrying loop is part of the body outlined for the thread pool.
const PARALLEL_MATMUL: &str = r#"
func.func @matmul(%a: memref<13x17xf32>, %b: memref<17x11xf32>) -> memref<13x11xf32> {
  %c = loop.alloc() : memref<13x11xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (13, 11) {
    %r = loop.for %k = 0 to 17 iter_args(%acc = %zero) -> (f32) unroll = 4 {
      %x = loop.load %a[%i, %k] : memref<13x17xf32>
      %y = loop.load %b[%k, %j] : memref<17x11xf32>
      %n = loop.fma %x, %y, %acc : f32
      loop.yield %n : f32
    }
    loop.store %r, %c[%i, %j] : memref<13x11xf32>
  }
  return %c : memref<13x11xf32>
}
"#;

#[test]
fn carrying_loops_inside_parallel_loops_on_the_thread_pool() {
    check(PARALLEL_MATMUL);
    for threads in [0, 1, 3] {
        let options = CompileOptions {
            threads: Some(threads),
            ..CompileOptions::default()
        };
        check_with(PARALLEL_MATMUL, &options, 2, 1e-5, 1e-6);
    }
}

#[test]
fn the_accumulator_is_a_phi_not_memory() {
    // Unoptimized, the dot product's accumulator is already a phi in the loop header: the
    // only float store is the result's, through the output pointer.
    let parsed = Parsed::new(SCALAR_REDUCTIONS);
    let options = CompileOptions {
        opt_level: OptLevel::O0,
        ..CompileOptions::default()
    };
    let emitted = emit(&parsed.ctx, parsed.module, &options, EmitKind::LlvmIr)
        .unwrap_or_else(|d| panic!("{}", parsed.render(&d)));
    let text = String::from_utf8(emitted.bytes).unwrap();
    let dot = text
        .split("\ndefine ")
        .find(|f| f.contains("@tb_dot("))
        .expect("the exported definition of @dot");
    assert!(dot.contains("phi float"), "{dot}");
    assert_eq!(dot.matches("store float").count(), 1, "{dot}");
}
