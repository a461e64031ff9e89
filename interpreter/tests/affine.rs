//! The interpreter on `affine` ops, against plain Rust references on random inputs.

use rand::SeedableRng;
use rand::rngs::StdRng;
use tb_interpreter::Tensor;
use tb_interpreter::check::random_tensor;
use tb_interpreter::exec::Interpreter;
use tb_interpreter::kernels::matmul::matmul;
use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_source};

fn run(src: &str, func: &str, args: &[Tensor]) -> Vec<Tensor> {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).unwrap();
    let module = parse_source(&mut ctx, src, "test.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("parse error: {}", d.message));
    tb_ir::verifier::verify(&ctx, module).unwrap_or_else(|d| panic!("invalid: {}", d.message));
    let mut interp = Interpreter::new(&ctx, module);
    interp
        .run_function(func, args)
        .unwrap_or_else(|d| panic!("run error: {}", d.message))
}

fn random(shape: &[i64], seed: u64) -> Tensor {
    let mut ctx = Context::new();
    let f32_ty = ctx.float_type(tb_ir::FloatKind::F32);
    let ty = ctx.intern_type(tb_ir::TypeKind::RankedTensor {
        shape: shape.to_vec(),
        element: f32_ty,
        encoding: None,
    });
    random_tensor(&ctx, ty, &mut StdRng::seed_from_u64(seed)).unwrap()
}

#[test]
fn affine_matmul_matches_the_matmul_kernel() {
    let src = r#"
func.func @matmul(%A: memref<5x7xf32>, %B: memref<7x3xf32>) -> memref<5x3xf32> {
  %C = memref.alloc() : memref<5x3xf32>
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 3 {
      %sum = affine.for %k = 0 to 7 iter_args(%acc = %zero) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<5x7xf32>
        %b = affine.load %B[%k, %j] : memref<7x3xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %sum, %C[%i, %j] : memref<5x3xf32>
    }
  }
  return %C : memref<5x3xf32>
}
"#;
    for seed in 0..4 {
        let (a, b) = (random(&[5, 7], 2 * seed), random(&[7, 3], 2 * seed + 1));
        let got = run(src, "matmul", &[a.clone(), b.clone()]);
        let want = matmul(&a, &b).unwrap();
        got[0].allclose(&want, 1e-5, 1e-6).unwrap();
    }
}

/// `floordiv`, `ceildiv` and `mod` round as MLIR's (towards negative infinity, a
/// non-negative remainder), also for negative operands; min/max pick among the results.
#[test]
fn maps_round_like_mlir_on_negative_values() {
    let src = r#"
func.func @maps() -> memref<21x5xi64> {
  %out = memref.alloc() : memref<21x5xi64>
  %n = arith.constant 3 : index
  affine.for %i = 0 to 21 {
    %x = affine.apply affine_map<(d0) -> (d0 - 10)>(%i)
    %f = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%x)[%n]
    %c = affine.apply affine_map<(d0) -> (d0 ceildiv 3)>(%x)
    %m = affine.apply affine_map<(d0) -> (d0 mod 3)>(%x)
    %lo = affine.min affine_map<(d0)[s0] -> (d0 * 2, s0, 7 - d0)>(%x)[%n]
    %hi = affine.max affine_map<(d0) -> (d0 * -1, d0 + 4)>(%x)
    %vf = arith.index_cast %f : index to i64
    %vc = arith.index_cast %c : index to i64
    %vm = arith.index_cast %m : index to i64
    %vlo = arith.index_cast %lo : index to i64
    %vhi = arith.index_cast %hi : index to i64
    affine.store %vf, %out[%i, 0] : memref<21x5xi64>
    affine.store %vc, %out[%i, 1] : memref<21x5xi64>
    affine.store %vm, %out[%i, 2] : memref<21x5xi64>
    affine.store %vlo, %out[%i, 3] : memref<21x5xi64>
    affine.store %vhi, %out[%i, 4] : memref<21x5xi64>
  }
  return %out : memref<21x5xi64>
}
"#;
    let out = run(src, "maps", &[]);
    let got = out[0].as_slice::<i64>().unwrap();
    for i in 0..21i64 {
        let x = i - 10;
        let want = [
            x.div_euclid(3),
            -((-x).div_euclid(3)),
            x.rem_euclid(3),
            (x * 2).min(3).min(7 - x),
            (-x).max(x + 4),
        ];
        assert_eq!(
            &got[(i * 5) as usize..(i * 5 + 5) as usize],
            &want,
            "at x = {x}"
        );
    }
}

/// `affine.if` takes its then region exactly where the set holds; `affine.parallel`
/// reduces what its iterations yield.
#[test]
fn conditionals_and_parallel_reductions() {
    let src = r#"
func.func @f(%A: memref<6x4xf32>) -> (memref<6x4xf32>, f32, f32) {
  %out = memref.alloc() : memref<6x4xf32>
  %zero = arith.constant 0.0 : f32
  %r:2 = affine.parallel (%i, %j) = (0, 0) to (6, 4) reduce ("addf", "maximumf") -> (f32, f32) {
    %x = affine.load %A[%i, %j] : memref<6x4xf32>
    %y = affine.if affine_set<(d0, d1) : (d0 - d1 - 1 >= 0, d1 mod 2 == 0)>(%i, %j) -> f32 {
      affine.yield %x : f32
    } else {
      affine.yield %zero : f32
    }
    affine.store %y, %out[%i, %j] : memref<6x4xf32>
    affine.yield %x, %x : f32, f32
  }
  return %out, %r#0, %r#1 : memref<6x4xf32>, f32, f32
}
"#;
    for seed in 0..4 {
        let a = random(&[6, 4], 10 + seed);
        let out = run(src, "f", std::slice::from_ref(&a));
        let x = a.as_slice::<f32>().unwrap();
        let kept = out[0].as_slice::<f32>().unwrap();
        for i in 0..6 {
            for j in 0..4 {
                let inside = i > j && j % 2 == 0;
                let want = if inside { x[i * 4 + j] } else { 0.0 };
                assert_eq!(kept[i * 4 + j], want, "at ({i}, {j})");
            }
        }
        let sum: f32 = x.iter().fold(0.0, |acc, &v| acc + v);
        let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(out[1].as_slice::<f32>().unwrap(), &[sum]);
        assert_eq!(out[2].as_slice::<f32>().unwrap(), &[max]);
    }
}

/// Delinearizing into a basis and linearizing back gives the index again, with the
/// components a mixed-radix reference gives.
#[test]
fn delinearize_and_linearize_are_inverse() {
    let src = r#"
func.func @f() -> memref<30x4xi64> {
  %out = memref.alloc() : memref<30x4xi64>
  %three = arith.constant 3 : index
  affine.for %x = 0 to 30 {
    %d:3 = affine.delinearize_index %x into (%three, 2) : index, index, index
    %l = affine.linearize_index [%d#0, %d#1, %d#2] by (%three, 2) : index
    %v0 = arith.index_cast %d#0 : index to i64
    %v1 = arith.index_cast %d#1 : index to i64
    %v2 = arith.index_cast %d#2 : index to i64
    %vl = arith.index_cast %l : index to i64
    affine.store %v0, %out[%x, 0] : memref<30x4xi64>
    affine.store %v1, %out[%x, 1] : memref<30x4xi64>
    affine.store %v2, %out[%x, 2] : memref<30x4xi64>
    affine.store %vl, %out[%x, 3] : memref<30x4xi64>
  }
  return %out : memref<30x4xi64>
}
"#;
    let out = run(src, "f", &[]);
    let got = out[0].as_slice::<i64>().unwrap();
    for x in 0..30i64 {
        let want = [x / 6, (x / 2) % 3, x % 2, x];
        assert_eq!(
            &got[(x * 4) as usize..(x * 4 + 4) as usize],
            &want,
            "at {x}"
        );
    }
}

/// Vector accesses read and write consecutive elements along the innermost dimensions,
/// from the position their map gives: here each row is reversed in blocks of four lanes
/// and doubled.
#[test]
fn vector_loads_and_stores_move_consecutive_lanes() {
    let src = r#"
func.func @f(%A: memref<3x8xf32>) -> memref<3x8xf32> {
  %out = memref.alloc() : memref<3x8xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 8 step 4 {
      %v = affine.vector_load %A[%i, %j] : memref<3x8xf32>, vector<4xf32>
      %w = arith.addf %v, %v : vector<4xf32>
      affine.vector_store %w, %out[%i, 4 - %j] : memref<3x8xf32>, vector<4xf32>
    }
  }
  return %out : memref<3x8xf32>
}
"#;
    for seed in 0..3 {
        let a = random(&[3, 8], 20 + seed);
        let out = run(src, "f", std::slice::from_ref(&a));
        let x = a.as_slice::<f32>().unwrap();
        let got = out[0].as_slice::<f32>().unwrap();
        for i in 0..3 {
            for j in 0..8 {
                let from = if j < 4 { j + 4 } else { j - 4 };
                assert_eq!(got[i * 8 + j], 2.0 * x[i * 8 + from], "at ({i}, {j})");
            }
        }
    }
}

/// A DMA copies its elements in the row-major order of each memref, whatever their
/// shapes: six elements from row 1, column 2 of the source land from row 0, column 1 of
/// a buffer of another shape; `affine.dma_wait` then finds the copy complete.
#[test]
fn dma_copies_consecutive_elements() {
    let src = r#"
func.func @f(%A: memref<4x5xf32>) -> memref<3x3xf32> {
  %out = memref.alloc() : memref<3x3xf32>
  %tag = memref.alloc() : memref<1xi32>
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 3 {
      affine.store %zero, %out[%i, %j] : memref<3x3xf32>
    }
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 6 : index
  affine.dma_start %A[%c1, %c1 + 1], %out[0, %c1], %tag[%c0], %n
    : memref<4x5xf32>, memref<3x3xf32>, memref<1xi32>
  affine.dma_wait %tag[%c0], %n : memref<1xi32>
  return %out : memref<3x3xf32>
}
"#;
    let a = random(&[4, 5], 30);
    let out = run(src, "f", std::slice::from_ref(&a));
    let x = a.as_slice::<f32>().unwrap();
    let got = out[0].as_slice::<f32>().unwrap();
    let mut want = [0.0f32; 9];
    want[1..7].copy_from_slice(&x[7..13]);
    assert_eq!(got, &want);
}

/// A DMA past the end of a memref is an error, not a wrap-around.
#[test]
fn dma_past_the_end_is_reported() {
    let src = r#"
func.func @f(%A: memref<2x2xf32>, %B: memref<2x2xf32>) {
  %tag = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 3 : index
  affine.dma_start %A[1, 0], %B[0, 0], %tag[%c0], %n
    : memref<2x2xf32>, memref<2x2xf32>, memref<1xi32>
  return
}
"#;
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).unwrap();
    let module = parse_source(&mut ctx, src, "test.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("parse error: {}", d.message));
    let mut interp = Interpreter::new(&ctx, module);
    let args = [random(&[2, 2], 40), random(&[2, 2], 41)];
    let err = interp.run_function("f", &args).unwrap_err();
    assert!(err.message.contains("past the end"), "{}", err.message);
}
