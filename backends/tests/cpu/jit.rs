//! JIT-compiled loop-level functions against the interpreter, on random inputs.

use tb_backends::cpu::{CompileOptions, OptLevel, TargetOptions};

use tb_interpreter::Tensor;
use tb_interpreter::check::random_arguments;

use super::harness::{Parsed, check, check_with};

#[test]
fn elementwise_add_in_a_loop_nest() {
    check(
        r#"
func.func @add(%a: memref<4x8xf32>, %b: memref<4x8xf32>) -> memref<4x8xf32> {
  %c = loop.alloc() : memref<4x8xf32>
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 8 {
      %x = loop.load %a[%i, %j] : memref<4x8xf32>
      %y = loop.load %b[%i, %j] : memref<4x8xf32>
      %s = arith.addf %x, %y : f32
      loop.store %s, %c[%i, %j] : memref<4x8xf32>
    }
  }
  return %c : memref<4x8xf32>
}
"#,
    );
}

const MATMUL: &str = r#"
func.func @matmul(%a: memref<13x17xf32>, %b: memref<17x11xf32>) -> memref<13x11xf32> {
  %c = loop.alloc() : memref<13x11xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (13, 11) {
    loop.store %zero, %c[%i, %j] : memref<13x11xf32>
    loop.for %k = 0 to 17 unroll = 4 {
      %x = loop.load %a[%i, %k] : memref<13x17xf32>
      %y = loop.load %b[%k, %j] : memref<17x11xf32>
      %acc = loop.load %c[%i, %j] : memref<13x11xf32>
      %r = loop.fma %x, %y, %acc : f32
      loop.store %r, %c[%i, %j] : memref<13x11xf32>
    }
  }
  return %c : memref<13x11xf32>
}
"#;

#[test]
fn matmul_with_scalar_fma() {
    check(MATMUL);
}

#[test]
fn matmul_at_every_optimization_level() {
    for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
        let options = CompileOptions {
            opt_level: level,
            ..CompileOptions::default()
        };
        check_with(MATMUL, &options, 2, 1e-5, 1e-6);
    }
}

#[test]
fn matmul_on_the_thread_pool() {
    for threads in [0, 1, 3] {
        let options = CompileOptions {
            threads: Some(threads),
            ..CompileOptions::default()
        };
        check_with(MATMUL, &options, 3, 1e-5, 1e-6);
    }
}

/// A tiled, vectorized matmul: 8-wide rows of C accumulate broadcast elements of A times
/// rows of B; the tile loops use min bounds for the remainder.
const VECTOR_MATMUL: &str = r#"
#tile = affine_map<(d0) -> (d0 + 4, 10)>
func.func @vmatmul(%a: memref<10x12xf32>, %b: memref<12x16xf32>) -> memref<10x16xf32> {
  %c = loop.alloc() : memref<10x16xf32>
  %zero = arith.constant dense<0.0> : vector<8xf32>
  loop.for %t = 0 to 10 step 4 parallel {
    loop.for %i = %t to min #tile(%t) {
      loop.for %j = 0 to 16 step 8 vectorize = 8 {
        loop.vector_store %zero, %c[%i, %j] : memref<10x16xf32>, vector<8xf32>
        loop.for %k = 0 to 12 unroll = 3 {
          %s = loop.load %a[%i, %k] : memref<10x12xf32>
          %w = loop.broadcast %s : f32 to vector<8xf32>
          %v = loop.vector_load %b[%k, %j] : memref<12x16xf32>, vector<8xf32>
          %acc = loop.vector_load %c[%i, %j] : memref<10x16xf32>, vector<8xf32>
          %r = loop.fma %w, %v, %acc : vector<8xf32>
          loop.vector_store %r, %c[%i, %j] : memref<10x16xf32>, vector<8xf32>
        }
      }
    }
  }
  return %c : memref<10x16xf32>
}
"#;

#[test]
fn vectorized_tiled_matmul() {
    check(VECTOR_MATMUL);
    let threads = CompileOptions {
        threads: Some(4),
        ..CompileOptions::default()
    };
    check_with(VECTOR_MATMUL, &threads, 2, 1e-5, 1e-6);
}

#[test]
fn thread_pool_under_concurrent_callers() {
    // Many runs from several threads at once share one pool: every result must still be
    // the interpreter's.
    let parsed = Parsed::new(MATMUL);
    let options = CompileOptions {
        threads: Some(3),
        ..CompileOptions::default()
    };
    let compiled = parsed.compile(&options);
    let args = random_arguments(&parsed.ctx, parsed.function("matmul"), 7).unwrap();
    let want = parsed.interpret("matmul", &args);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..50 {
                    let got = compiled.run("matmul", &args).unwrap();
                    got[0].allclose(&want[0], 1e-5, 1e-6).unwrap();
                }
            });
        }
    });
}

#[test]
fn nested_parallel_loops_on_the_thread_pool() {
    // The inner parallel loop runs in order on whichever worker reaches it; a parallel loop
    // inside a sequential one is handed to the pool again on every iteration.
    let source = r#"
func.func @nested(%a: memref<6x40xf32>, %s: f32) -> memref<6x40xf32> {
  %out = loop.alloc() : memref<6x40xf32>
  loop.parallel (%i) = (0) to (6) {
    loop.parallel (%j) = (0) to (40) step (3) {
      loop.for %jj = %j to min affine_map<(d0) -> (d0 + 3, 40)>(%j) {
        %x = loop.load %a[%i, %jj] : memref<6x40xf32>
        %y = arith.mulf %x, %s : f32
        loop.store %y, %out[%i, %jj] : memref<6x40xf32>
      }
    }
  }
  loop.for %t = 0 to 3 {
    loop.for %i = 0 to 6 parallel {
      loop.for %j = 0 to 40 {
        %x = loop.load %out[%i, %j] : memref<6x40xf32>
        %y = arith.addf %x, %s : f32
        loop.store %y, %out[%i, %j] : memref<6x40xf32>
      }
    }
  }
  return %out : memref<6x40xf32>
}
"#;
    for threads in [0, 2] {
        let options = CompileOptions {
            threads: Some(threads),
            ..CompileOptions::default()
        };
        check_with(source, &options, 3, 1e-5, 1e-6);
    }
}

#[test]
fn matmul_for_a_named_cpu_and_features() {
    for (cpu, features) in [
        ("x86-64", None),
        ("x86-64-v3", None),
        ("x86-64-v2", Some("+sse4.2,-avx")),
    ] {
        let options = CompileOptions {
            target: TargetOptions {
                cpu: Some(cpu.to_owned()),
                features: features.map(str::to_owned),
            },
            ..CompileOptions::default()
        };
        check_with(VECTOR_MATMUL, &options, 1, 1e-5, 1e-6);
    }
}

#[test]
fn elementwise_vectors_rows_and_strides() {
    check(
        r#"
func.func @relu_scale(%a: memref<6x16xf32>, %s: f32) -> memref<6x16xf32> {
  %out = loop.alloc() : memref<6x16xf32>
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %w = loop.broadcast %s : f32 to vector<8xf32>
  loop.for %i = 0 to 6 {
    loop.for %j = 0 to 16 step 8 {
      %v = loop.vector_load %a[%i, %j] : memref<6x16xf32>, vector<8xf32>
      %m = arith.maximumf %v, %zero : vector<8xf32>
      %r = arith.mulf %m, %w : vector<8xf32>
      loop.vector_store %r, %out[%i, %j] : memref<6x16xf32>, vector<8xf32>
    }
  }
  return %out : memref<6x16xf32>
}

// 2-D vectors move whole 2x4 blocks (two rows of four).
func.func @blocks(%a: memref<4x8xf32>) -> memref<4x8xf32> {
  %out = loop.alloc() : memref<4x8xf32>
  %two = arith.constant dense<2.0> : vector<2x4xf32>
  loop.for %i = 0 to 4 step 2 {
    loop.for %j = 0 to 8 step 4 {
      %v = loop.vector_load %a[%i, %j] : memref<4x8xf32>, vector<2x4xf32>
      %r = arith.mulf %v, %two : vector<2x4xf32>
      loop.vector_store %r, %out[%i, %j] : memref<4x8xf32>, vector<2x4xf32>
    }
  }
  return %out : memref<4x8xf32>
}

// A transposing copy through a map, and a select on a vector comparison.
func.func @transpose_clamp(%a: memref<8x4xf32>) -> memref<4x8xf32> {
  %out = loop.alloc() : memref<4x8xf32>
  %lo = arith.constant dense<-0.5> : vector<4xf32>
  loop.for %i = 0 to 8 {
    %v = loop.vector_load %a[(d0) -> (d0, 0)](%i) : memref<8x4xf32>, vector<4xf32>
    %lt = arith.cmpf olt, %v, %lo : vector<4xf32>
    %c = arith.select %lt, %lo, %v : vector<4xi1>, vector<4xf32>
    %n = arith.negf %c : vector<4xf32>
    loop.for %j = 0 to 4 {
      %x = loop.load %a[%i, %j] : memref<8x4xf32>
      loop.store %x, %out[(d0, d1) -> (d1, d0)](%i, %j) : memref<4x8xf32>
    }
  }
  return %out : memref<4x8xf32>
}
"#,
    );
}

#[test]
fn reductions() {
    check(
        r#"
// Row sums and maxima, each accumulated in a rank-0 buffer.
func.func @row_stats(%a: memref<5x9xf32>) -> (memref<5xf32>, memref<5xf32>) {
  %sum = loop.alloc() : memref<5xf32>
  %max = loop.alloc() : memref<5xf32>
  %acc = loop.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 5 {
    loop.store %zero, %acc[] : memref<f32>
    %first = loop.load %a[(d0) -> (d0, 0)](%i) : memref<5x9xf32>
    loop.store %first, %max[%i] : memref<5xf32>
    loop.for %j = 0 to 9 {
      %x = loop.load %a[%i, %j] : memref<5x9xf32>
      %s = loop.load %acc[] : memref<f32>
      %t = arith.addf %s, %x : f32
      loop.store %t, %acc[] : memref<f32>
      %m = loop.load %max[%i] : memref<5xf32>
      %n = arith.maxnumf %m, %x : f32
      loop.store %n, %max[%i] : memref<5xf32>
    }
    %total = loop.load %acc[] : memref<f32>
    loop.store %total, %sum[%i] : memref<5xf32>
  }
  loop.dealloc %acc : memref<f32>
  return %sum, %max : memref<5xf32>, memref<5xf32>
}

// A vector reduction: 8 partial sums per row, then a scalar tail.
func.func @vector_sum(%a: memref<3x32xf32>) -> memref<3xf32> {
  %out = loop.alloc() : memref<3xf32>
  %part = loop.alloc() : memref<8xf32>
  %zeros = arith.constant dense<0.0> : vector<8xf32>
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 3 {
    loop.vector_store %zeros, %part[() -> (0)]() : memref<8xf32>, vector<8xf32>
    loop.for %j = 0 to 32 step 8 {
      %v = loop.vector_load %a[%i, %j] : memref<3x32xf32>, vector<8xf32>
      %p = loop.vector_load %part[() -> (0)]() : memref<8xf32>, vector<8xf32>
      %s = arith.addf %p, %v : vector<8xf32>
      loop.vector_store %s, %part[() -> (0)]() : memref<8xf32>, vector<8xf32>
    }
    loop.store %zero, %out[%i] : memref<3xf32>
    loop.for %l = 0 to 8 {
      %x = loop.load %part[%l] : memref<8xf32>
      %t = loop.load %out[%i] : memref<3xf32>
      %u = arith.addf %t, %x : f32
      loop.store %u, %out[%i] : memref<3xf32>
    }
  }
  loop.dealloc %part : memref<8xf32>
  return %out : memref<3xf32>
}
"#,
    );
}

#[test]
fn affine_bounds_with_max_min_and_divisions() {
    check(
        r#"
#upper = affine_map<(d0)[s0] -> (d0 + 3, s0, 11)>
#lower = affine_map<(d0) -> (d0 - 2, 0)>
// Triangular and clipped iteration spaces: out[i] = sum of a[j] for
// max(i - 2, 0) <= j < min(i + 3, n, 11), where n comes in as an argument.
func.func @window(%a: memref<11xf32>, %n: index) -> memref<11xf32> {
  %out = loop.alloc() : memref<11xf32>
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 11 {
    loop.store %zero, %out[%i] : memref<11xf32>
    loop.for %j = max #lower(%i) to min #upper(%i)[%n] {
      %x = loop.load %a[%j] : memref<11xf32>
      %s = loop.load %out[%i] : memref<11xf32>
      %t = arith.addf %s, %x : f32
      loop.store %t, %out[%i] : memref<11xf32>
    }
  }
  return %out : memref<11xf32>
}

// floordiv, ceildiv and mod of negative values index the output: MLIR rounds toward
// negative (floordiv) and positive (ceildiv) infinity, and mod is never negative.
func.func @divisions(%a: memref<12xf32>) -> (memref<5x2xf32>, memref<4xf32>, memref<3xf32>) {
  %f = loop.alloc() : memref<5x2xf32>
  %c = loop.alloc() : memref<4xf32>
  %m = loop.alloc() : memref<3xf32>
  loop.for %i = 0 to 9 {
    %x = loop.load %a[%i] : memref<12xf32>
    loop.store %x, %f[(d0) -> ((d0 - 3) floordiv 2 + 2, (d0 - 3) mod 2)](%i) : memref<5x2xf32>
  }
  loop.for %i = 0 to 8 {
    %x = loop.load %a[(d0) -> (d0 + 4)](%i) : memref<12xf32>
    loop.store %x, %c[(d0) -> ((d0 - 3) ceildiv 2 + 1)](%i) : memref<4xf32>
  }
  loop.for %i = 0 to 7 {
    %x = loop.load %a[%i] : memref<12xf32>
    loop.store %x, %m[(d0) -> ((d0 - 5) mod 3)](%i) : memref<3xf32>
  }
  return %f, %c, %m : memref<5x2xf32>, memref<4xf32>, memref<3xf32>
}

// Steps that do not divide the range, negative bounds, and a symbol bound.
func.func @steps(%n: index) -> memref<20xf32> {
  %out = loop.alloc() : memref<20xf32>
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  loop.for %i = 0 to 20 {
    %z = arith.constant 0.0 : f32
    loop.store %z, %out[%i] : memref<20xf32>
  }
  loop.for %i = -7 to 9 step 3 {
    loop.store %one, %out[(d0) -> (d0 + 7)](%i) : memref<20xf32>
  }
  loop.for %i = affine_map<()[s0] -> (s0 + 8)>()[%n] to 20 step 5 {
    loop.store %two, %out[%i] : memref<20xf32>
  }
  return %out : memref<20xf32>
}
"#,
    );
}

#[test]
fn integer_ops_and_division_semantics() {
    check(
        r#"
// Divisors are made odd (b | 1) so none is zero; random inputs are in [-8, 8].
func.func @int_ops(%a: memref<16xi32>, %b: memref<16xi32>) -> (memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>) {
  %q = loop.alloc() : memref<16xi32>
  %r = loop.alloc() : memref<16xi32>
  %uq = loop.alloc() : memref<16xi32>
  %ur = loop.alloc() : memref<16xi32>
  %sh = loop.alloc() : memref<16xi32>
  %mm = loop.alloc() : memref<16xi32>
  %one = arith.constant 1 : i32
  %seven = arith.constant 7 : i32
  loop.for %i = 0 to 16 {
    %x = loop.load %a[%i] : memref<16xi32>
    %y = loop.load %b[%i] : memref<16xi32>
    %d = arith.ori %y, %one : i32
    %0 = arith.divsi %x, %d : i32
    loop.store %0, %q[%i] : memref<16xi32>
    %1 = arith.remsi %x, %d : i32
    loop.store %1, %r[%i] : memref<16xi32>
    %2 = arith.divui %x, %d : i32
    loop.store %2, %uq[%i] : memref<16xi32>
    %3 = arith.remui %x, %d : i32
    loop.store %3, %ur[%i] : memref<16xi32>
    %k = arith.andi %y, %seven : i32
    %4 = arith.shli %x, %k : i32
    %5 = arith.shrsi %x, %k : i32
    %6 = arith.shrui %x, %k : i32
    %7 = arith.xori %4, %5 : i32
    %8 = arith.addi %7, %6 overflow<nsw> : i32
    loop.store %8, %sh[%i] : memref<16xi32>
    %9 = arith.maxsi %x, %y : i32
    %10 = arith.minui %x, %y : i32
    %11 = arith.minsi %9, %10 : i32
    %12 = arith.maxui %11, %x : i32
    %13 = arith.muli %12, %x : i32
    %14 = arith.subi %13, %y : i32
    loop.store %14, %mm[%i] : memref<16xi32>
  }
  return %q, %r, %uq, %ur, %sh, %mm : memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>
}

// Every cmpi predicate, selects, and casts between widths and index.
func.func @compare_cast(%a: memref<8xi8>, %b: memref<8xi8>) -> (memref<8x10xi1>, memref<8xi64>, memref<8xi16>, memref<8xindex>) {
  %c = loop.alloc() : memref<8x10xi1>
  %w = loop.alloc() : memref<8xi64>
  %n = loop.alloc() : memref<8xi16>
  %x = loop.alloc() : memref<8xindex>
  loop.for %i = 0 to 8 {
    %p = loop.load %a[%i] : memref<8xi8>
    %q = loop.load %b[%i] : memref<8xi8>
    %0 = arith.cmpi eq, %p, %q : i8
    loop.store %0, %c[(d0) -> (d0, 0)](%i) : memref<8x10xi1>
    %1 = arith.cmpi ne, %p, %q : i8
    loop.store %1, %c[(d0) -> (d0, 1)](%i) : memref<8x10xi1>
    %2 = arith.cmpi slt, %p, %q : i8
    loop.store %2, %c[(d0) -> (d0, 2)](%i) : memref<8x10xi1>
    %3 = arith.cmpi sle, %p, %q : i8
    loop.store %3, %c[(d0) -> (d0, 3)](%i) : memref<8x10xi1>
    %4 = arith.cmpi sgt, %p, %q : i8
    loop.store %4, %c[(d0) -> (d0, 4)](%i) : memref<8x10xi1>
    %5 = arith.cmpi sge, %p, %q : i8
    loop.store %5, %c[(d0) -> (d0, 5)](%i) : memref<8x10xi1>
    %6 = arith.cmpi ult, %p, %q : i8
    loop.store %6, %c[(d0) -> (d0, 6)](%i) : memref<8x10xi1>
    %7 = arith.cmpi ule, %p, %q : i8
    loop.store %7, %c[(d0) -> (d0, 7)](%i) : memref<8x10xi1>
    %8 = arith.cmpi ugt, %p, %q : i8
    loop.store %8, %c[(d0) -> (d0, 8)](%i) : memref<8x10xi1>
    %9 = arith.cmpi uge, %p, %q : i8
    loop.store %9, %c[(d0) -> (d0, 9)](%i) : memref<8x10xi1>
    %s = arith.extsi %p : i8 to i64
    %u = arith.extui %q : i8 to i64
    %e = arith.extsi %2 : i1 to i64
    %su = arith.addi %s, %u : i64
    %sue = arith.addi %su, %e : i64
    loop.store %sue, %w[%i] : memref<8xi64>
    %big = arith.muli %s, %u : i64
    %t = arith.trunci %big : i64 to i16
    %s_16 = arith.constant -3 : i16
    %sel = arith.select %4, %t, %s_16 : i16
    loop.store %sel, %n[%i] : memref<8xi16>
    %ix = arith.index_cast %p : i8 to index
    %ux = arith.index_castui %q : i8 to index
    %sum = arith.addi %ix, %ux : index
    %back = arith.index_cast %sum : index to i32
    %again = arith.index_cast %back : i32 to index
    loop.store %again, %x[%i] : memref<8xindex>
  }
  return %c, %w, %n, %x : memref<8x10xi1>, memref<8xi64>, memref<8xi16>, memref<8xindex>
}
"#,
    );
}

#[test]
fn thread_pool_wakes_workers_that_went_to_sleep() {
    // Between runs the workers spin, then yield, then sleep (after 2 ms); a run after a
    // longer pause must wake them and still get every iteration done once.
    let parsed = Parsed::new(MATMUL);
    let options = CompileOptions {
        threads: Some(2),
        ..CompileOptions::default()
    };
    let compiled = parsed.compile(&options);
    let args = random_arguments(&parsed.ctx, parsed.function("matmul"), 11).unwrap();
    let want = parsed.interpret("matmul", &args);
    for pause_ms in [0, 1, 5, 0, 20] {
        std::thread::sleep(std::time::Duration::from_millis(pause_ms));
        let got = compiled.run("matmul", &args).unwrap();
        got[0].allclose(&want[0], 1e-5, 1e-6).unwrap();
    }
}

#[test]
fn collapsed_parallel_dimensions_run_every_point_once() {
    // Two blocks of channels times 7 rows: the blocks alone are too few to share, so the
    // rows are collapsed into the distributed loop; every (block, row, k) point is
    // written once, by whichever thread gets its iteration.
    let source = r#"
func.func @blocks(%a: memref<64x7x5xf32>, %s: f32) -> memref<64x7x5xf32> {
  %out = loop.alloc() : memref<64x7x5xf32>
  loop.parallel (%b, %r) = (0, 0) to (64, 7) step (32, 1) {
    loop.for %c = 0 to 32 {
      loop.for %k = 0 to 5 {
        %x = loop.load %a[(d0, d1, d2, d3) -> (d0 + d1, d2, d3)](%b, %c, %r, %k) : memref<64x7x5xf32>
        %y = arith.addf %x, %s : f32
        loop.store %y, %out[(d0, d1, d2, d3) -> (d0 + d1, d2, d3)](%b, %c, %r, %k) : memref<64x7x5xf32>
      }
    }
  }
  return %out : memref<64x7x5xf32>
}
"#;
    for threads in [2, 3] {
        let options = CompileOptions {
            threads: Some(threads),
            ..CompileOptions::default()
        };
        check_with(source, &options, 3, 0.0, 0.0);
    }
}

#[test]
fn overlapping_views_in_a_parallel_body_keep_their_dependence() {
    // `y` is `x` one element on: y[j] = x[j] + 1 is the recurrence buf[j + 1] = buf[j] + 1,
    // which a body assuming the two buffers disjoint would vectorize into a wrong result.
    let source = r#"
func.func @smear(%a: memref<64xf32>) -> memref<64xf32> {
  %arena = loop.alloc() : memref<260xi8>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %x = memref.view %arena[%c0][] : memref<260xi8> to memref<64xf32>
  %y = memref.view %arena[%c4][] : memref<260xi8> to memref<64xf32>
  %out = loop.alloc() : memref<64xf32>
  %one = arith.constant 1.0 : f32
  loop.parallel (%r) = (0) to (1) {
    loop.for %j = 0 to 64 {
      %v = loop.load %a[%j] : memref<64xf32>
      loop.store %v, %x[%j] : memref<64xf32>
    }
    loop.for %j = 0 to 63 {
      %v = loop.load %x[%j] : memref<64xf32>
      %w = arith.addf %v, %one : f32
      loop.store %w, %y[%j] : memref<64xf32>
    }
    loop.for %j = 0 to 64 {
      %v = loop.load %x[%j] : memref<64xf32>
      loop.store %v, %out[%j] : memref<64xf32>
    }
  }
  return %out : memref<64xf32>
}
"#;
    let parsed = Parsed::new(source);
    let input: Vec<f32> = (0..64).map(|i| (i * i % 17) as f32 - 8.0).collect();
    let a = Tensor::from_vec(vec![64], input.clone()).unwrap();
    // buf[0] = a[0], then each element one more than the one before it.
    let want: Vec<f64> = (0..64).map(|j| f64::from(input[0]) + j as f64).collect();
    for threads in [None, Some(1), Some(2)] {
        let options = CompileOptions {
            threads,
            ..CompileOptions::default()
        };
        let got = parsed
            .compile(&options)
            .run("smear", std::slice::from_ref(&a))
            .unwrap();
        assert_eq!(got[0].to_f64_vec(), want, "threads {threads:?}");
    }
}
