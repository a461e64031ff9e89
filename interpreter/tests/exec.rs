//! The IR interpreter: each level's ops against independent references (the ONNX kernels,
//! plain Rust arithmetic), and its errors for undefined behaviour.

use rand::SeedableRng;
use rand::rngs::StdRng;
use tb_interpreter::check::{Tolerance, check_transform, random_tensor};
use tb_interpreter::exec::Interpreter;
use tb_interpreter::kernels::matmul::matmul;
use tb_interpreter::{DType, Tensor};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::{Context, OpId};

fn parse(src: &str) -> (Context, OpId) {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).unwrap();
    let module = parse_source(&mut ctx, src, "test.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("parse error: {}", d.message));
    tb_ir::verifier::verify(&ctx, module).unwrap_or_else(|d| panic!("invalid: {}", d.message));
    (ctx, module)
}

fn run(src: &str, func: &str, args: &[Tensor]) -> Result<Vec<Tensor>, String> {
    let (ctx, module) = parse(src);
    let mut interp = Interpreter::new(&ctx, module);
    interp.run_function(func, args).map_err(|d| {
        let (line, col) = tb_ir::diagnostics::file_position(&ctx, d.loc)
            .map(|(_, l, c)| (l, c))
            .unwrap_or((0, 0));
        format!("{line}:{col}: {}", d.message)
    })
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

const TE_MATMUL: &str = r#"
func.func @matmul(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [7] combiner = sum {
    %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<5x7xf32>
    %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<7x3xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  } : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %c : tensor<5x3xf32>
}
"#;

#[test]
fn te_matmul_matches_the_matmul_kernel() {
    let (a, b) = (random(&[5, 7], 1), random(&[7, 3], 2));
    let got = run(TE_MATMUL, "matmul", &[a.clone(), b.clone()]).unwrap();
    let want = matmul(&a, &b).unwrap();
    got[0].allclose(&want, 1e-6, 1e-6).unwrap();
}

#[test]
fn te_reduction_combiners_fold_in_order() {
    let src = r#"
func.func @f(%a: tensor<2x4xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %m = te.compute (%a) [%i] reduce [%k] in [4] combiner = max {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<2x4xf32>
    te.yield %x : f32
  } : (tensor<2x4xf32>) -> tensor<2xf32>
  %n = te.compute (%a) [%i] reduce [%k] in [4] combiner = min {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<2x4xf32>
    te.yield %x : f32
  } : (tensor<2x4xf32>) -> tensor<2xf32>
  %p = te.compute (%a) [%i] reduce [%k] in [4] combiner = prod {
    %x = te.read %a[(d0, d1) -> (d0, d1)] : tensor<2x4xf32>
    te.yield %x : f32
  } : (tensor<2x4xf32>) -> tensor<2xf32>
  return %m, %n, %p : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"#;
    let a = Tensor::from_vec(vec![2, 4], vec![1f32, -2., 3., 0.5, -1., -4., 2., 2.]).unwrap();
    let out = run(src, "f", &[a]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[3., 2.]);
    assert_eq!(out[1].as_slice::<f32>().unwrap(), &[-2., -4.]);
    assert_eq!(out[2].as_slice::<f32>().unwrap(), &[-3., 16.]);
}

const LOOP_MATMUL: &str = r#"
func.func @matmul(%a: memref<5x7xf32>, %b: memref<7x3xf32>) -> memref<5x3xf32> {
  %c = loop.alloc() : memref<5x3xf32>
  %zero = arith.constant 0.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (5, 3) step (1, 1) {
    loop.store %zero, %c[%i, %j] : memref<5x3xf32>
    loop.for %k = 0 to 7 {
      %x = loop.load %a[%i, %k] : memref<5x7xf32>
      %y = loop.load %b[%k, %j] : memref<7x3xf32>
      %acc = loop.load %c[%i, %j] : memref<5x3xf32>
      %r = loop.fma %x, %y, %acc : f32
      loop.store %r, %c[%i, %j] : memref<5x3xf32>
    }
  }
  return %c : memref<5x3xf32>
}
"#;

#[test]
fn loop_matmul_matches_te_matmul() {
    let (a, b) = (random(&[5, 7], 3), random(&[7, 3], 4));
    let te = run(TE_MATMUL, "matmul", &[a.clone(), b.clone()]).unwrap();
    let lp = run(LOOP_MATMUL, "matmul", &[a, b]).unwrap();
    lp[0].allclose(&te[0], 1e-5, 1e-6).unwrap();
}

#[test]
fn vector_loads_broadcasts_and_stores_cover_trailing_lanes() {
    let src = r#"
func.func @axpy(%x: memref<2x8xf32>, %y: memref<2x8xf32>, %s: f32) -> memref<2x8xf32> {
  %w = loop.broadcast %s : f32 to vector<4xf32>
  loop.for %i = 0 to 2 {
    loop.for %j = 0 to 8 step 4 vectorize = 4 {
      %a = loop.vector_load %x[%i, %j] : memref<2x8xf32>, vector<4xf32>
      %b = loop.vector_load %y[%i, %j] : memref<2x8xf32>, vector<4xf32>
      %r = loop.fma %a, %w, %b : vector<4xf32>
      loop.vector_store %r, %y[%i, %j] : memref<2x8xf32>, vector<4xf32>
    }
  }
  return %y : memref<2x8xf32>
}
"#;
    let x = random(&[2, 8], 5);
    let y = random(&[2, 8], 6);
    let out = run(src, "axpy", &[x.clone(), y.clone(), Tensor::scalar(2f32)]).unwrap();
    let want: Vec<f32> = x
        .as_slice::<f32>()
        .unwrap()
        .iter()
        .zip(y.as_slice::<f32>().unwrap())
        .map(|(a, b)| a.mul_add(2.0, *b))
        .collect();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), want.as_slice());
}

#[test]
fn loop_bounds_take_max_of_lower_and_min_of_upper_maps() {
    // Sums i over max(2, n - 10) <= i < min(n, 6) for n = 8: i in 2..6 -> 14.
    let src = r#"
func.func @f(%n: index) -> memref<1xi64> {
  %acc = loop.alloc() : memref<1xi64>
  %z = arith.constant 0 : i64
  loop.store %z, %acc[(d0) -> (0)](%n) : memref<1xi64>
  loop.for %i = max affine_map<(d0) -> (2, d0 - 10)>(%n) to min affine_map<(d0) -> (d0, 6)>(%n) {
    %v = arith.index_cast %i : index to i64
    %a = loop.load %acc[(d0) -> (0)](%i) : memref<1xi64>
    %s = arith.addi %a, %v : i64
    loop.store %s, %acc[(d0) -> (0)](%i) : memref<1xi64>
  }
  return %acc : memref<1xi64>
}
"#;
    let out = run(src, "f", &[Tensor::scalar(8i64)]).unwrap();
    assert_eq!(out[0].as_slice::<i64>().unwrap(), &[14]);
}

#[test]
fn iter_args_carry_values_between_iterations() {
    // Over 2 <= i < n step 3, carries (sum of i, product of (i + 1) as f64): for n = 10,
    // i in {2, 5, 8}: 15 and 3 * 6 * 9 = 162.
    let src = r#"
func.func @f(%n: index) -> (i64, f64) {
  %z = arith.constant 0 : i64
  %one = arith.constant 1.0 : f64
  %r:2 = loop.for %i = 2 to %n step 3 iter_args(%s = %z, %p = %one) -> (i64, f64) {
    %v = arith.index_cast %i : index to i64
    %s2 = arith.addi %s, %v : i64
    %c1 = arith.constant 1 : i64
    %w = arith.addi %v, %c1 : i64
    %f = arith.sitofp %w : i64 to f64
    %p2 = arith.mulf %p, %f : f64
    loop.yield %s2, %p2 : i64, f64
  }
  return %r#0, %r#1 : i64, f64
}
"#;
    let out = run(src, "f", &[Tensor::scalar(10i64)]).unwrap();
    assert_eq!(out[0].as_slice::<i64>().unwrap(), &[15]);
    assert_eq!(out[1].as_slice::<f64>().unwrap(), &[162.0]);
}

#[test]
fn a_loop_without_iterations_gives_its_inits() {
    let src = r#"
func.func @f(%n: index, %x: f32) -> f32 {
  %r = loop.for %i = 4 to %n iter_args(%a = %x) -> (f32) {
    %b = arith.addf %a, %a : f32
    loop.yield %b : f32
  }
  return %r : f32
}
"#;
    let out = run(src, "f", &[Tensor::scalar(4i64), Tensor::scalar(1.5f32)]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[1.5]);
    let out = run(src, "f", &[Tensor::scalar(6i64), Tensor::scalar(1.5f32)]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[6.0]);
}

#[test]
fn nested_loops_carry_vectors_and_outer_iter_args() {
    // Row sums of a 3x8 matrix as vector<4xf32> partial sums, folded across rows.
    let src = r#"
func.func @f(%m: memref<3x8xf32>) -> vector<4xf32> {
  %z = arith.constant dense<0.0> : vector<4xf32>
  %r = loop.for %i = 0 to 3 iter_args(%acc = %z) -> (vector<4xf32>) {
    %row = loop.for %j = 0 to 8 step 4 iter_args(%a = %acc) -> (vector<4xf32>) {
      %v = loop.vector_load %m[%i, %j] : memref<3x8xf32>, vector<4xf32>
      %s = arith.addf %a, %v : vector<4xf32>
      loop.yield %s : vector<4xf32>
    }
    loop.yield %row : vector<4xf32>
  }
  return %r : vector<4xf32>
}
"#;
    let data: Vec<f32> = (0..24).map(|x| x as f32).collect();
    let m = Tensor::from_vec(vec![3, 8], data.clone()).unwrap();
    let out = run(src, "f", &[m]).unwrap();
    let want: Vec<f32> = (0..4)
        .map(|lane| {
            (0..3)
                .flat_map(|i| [0, 4].map(|j| data[i * 8 + j + lane]))
                .sum()
        })
        .collect();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), want.as_slice());
}

#[test]
fn integer_arithmetic_wraps_in_its_width() {
    let src = r#"
func.func @f() -> (i8, i8, i8, i8, i16, i32, i8) {
  %a = arith.constant 100 : i8
  %b = arith.constant 100 : i8
  %s = arith.addi %a, %b : i8
  %m = arith.constant -128 : i8
  %d = arith.divui %m, %a : i8
  %one = arith.constant 1 : i8
  %r = arith.shrui %m, %one : i8
  %l = arith.shrsi %m, %one : i8
  %t = arith.constant true
  %e = arith.extui %t : i1 to i16
  %x = arith.extsi %t : i1 to i32
  %mx = arith.maxui %m, %a : i8
  return %s, %d, %r, %l, %e, %x, %mx : i8, i8, i8, i8, i16, i32, i8
}
"#;
    let out = run(src, "f", &[]).unwrap();
    let ints: Vec<i64> = out.iter().map(|t| t.to_i64_vec().unwrap()[0]).collect();
    // 100 + 100 wraps to -56; 128u / 100 = 1; 128u >> 1 = 64; -128 >> 1 = -64;
    // extui true = 1; extsi true = -1; maxui(128u, 100) = 128u = -128.
    assert_eq!(ints, vec![-56, 1, 64, -64, 1, -1, -128]);
}

#[test]
fn float_ops_round_to_their_format() {
    let src = r#"
func.func @f() -> (f32, f16, bf16, i1, i1, i32, f32) {
  %a = arith.constant 16777216.0 : f32
  %one = arith.constant 1.0 : f32
  %s = arith.addf %a, %one : f32
  %h = arith.constant 2048.0 : f16
  %h1 = arith.constant 1.0 : f16
  %hs = arith.addf %h, %h1 : f16
  %b = arith.constant 1.0 : bf16
  %eps = arith.constant 0.001 : bf16
  %bs = arith.addf %b, %eps : bf16
  %nan = arith.constant 0x7FC00000 : f32
  %ord = arith.cmpf olt, %nan, %one : f32
  %uno = arith.cmpf ult, %nan, %one : f32
  %bits = arith.bitcast %one : f32 to i32
  %mx = arith.maximumf %nan, %one : f32
  return %s, %hs, %bs, %ord, %uno, %bits, %mx : f32, f16, bf16, i1, i1, i32, f32
}
"#;
    let out = run(src, "f", &[]).unwrap();
    assert_eq!(out[0].to_f64_vec(), vec![16777216.0]);
    assert_eq!(out[1].to_f64_vec(), vec![2048.0]);
    assert_eq!(out[2].to_f64_vec(), vec![1.0]);
    assert_eq!(out[3].dtype(), DType::Bool);
    assert_eq!(out[3].to_f64_vec(), vec![0.0]);
    assert_eq!(out[4].to_f64_vec(), vec![1.0]);
    assert_eq!(out[5].to_i64_vec().unwrap(), vec![0x3f80_0000]);
    assert!(out[6].to_f64_vec()[0].is_nan());
}

#[test]
fn math_ops_match_libm_rounded_to_f32() {
    let src = r#"
func.func @f(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %e = math.exp %x : tensor<6xf32>
  %r = math.erf %x : tensor<6xf32>
  %t = math.tanh %x : tensor<6xf32>
  %a = math.absf %x : tensor<6xf32>
  %s = math.sqrt %a : tensor<6xf32>
  return %e, %r, %t, %s : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
"#;
    let x = random(&[6], 9);
    let out = run(src, "f", std::slice::from_ref(&x)).unwrap();
    let xs = x.as_slice::<f32>().unwrap();
    let check = |t: &Tensor, f: fn(f64) -> f64| {
        let want: Vec<f32> = xs.iter().map(|&v| f(v as f64) as f32).collect();
        assert_eq!(t.as_slice::<f32>().unwrap(), want.as_slice());
    };
    check(&out[0], f64::exp);
    check(&out[1], libm::erf);
    check(&out[2], f64::tanh);
    check(&out[3], |v| v.abs().sqrt());
}

#[test]
fn memref_views_address_the_same_storage() {
    let src = r#"
func.func @f(%m: memref<4x6xf32>) -> (memref<2x3xf32>, memref<24xf32>, memref<2x2x6xf32>) {
  %v = memref.subview %m[1, 2] [2, 3] [2, 1] : memref<4x6xf32> to memref<2x3xf32, strided<[12, 1], offset: 8>>
  %c = arith.constant 0 : index
  %x = arith.constant 42.0 : f32
  memref.store %x, %v[%c, %c] : memref<2x3xf32, strided<[12, 1], offset: 8>>
  %copy = memref.alloc() : memref<2x3xf32>
  memref.copy %v, %copy : memref<2x3xf32, strided<[12, 1], offset: 8>> to memref<2x3xf32>
  %flat = memref.collapse_shape %m [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [2, 2, 6] : memref<4x6xf32> into memref<2x2x6xf32>
  return %copy, %flat, %e : memref<2x3xf32>, memref<24xf32>, memref<2x2x6xf32>
}
"#;
    let m = Tensor::from_vec(vec![4, 6], (0..24).map(|i| i as f32).collect()).unwrap();
    let out = run(src, "f", &[m]).unwrap();
    // Rows 1 and 3, columns 2..5; element [0, 0] (row 1, column 2 = 8) was overwritten.
    assert_eq!(
        out[0].as_slice::<f32>().unwrap(),
        &[42., 9., 10., 20., 21., 22.]
    );
    let mut flat: Vec<f32> = (0..24).map(|i| i as f32).collect();
    flat[8] = 42.0;
    assert_eq!(out[1].as_slice::<f32>().unwrap(), flat.as_slice());
    assert_eq!(out[2].shape(), &[2, 2, 6]);
    assert_eq!(out[2].as_slice::<f32>().unwrap(), flat.as_slice());
}

#[test]
fn generic_atomic_rmw_stores_and_gives_what_its_body_yields() {
    let src = r#"
func.func @f(%m: memref<2x3xf32>, %d: f32) -> (memref<2x3xf32>, f32, f32) {
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %first = memref.generic_atomic_rmw %m[%i, %j] : memref<2x3xf32> {
  ^bb0(%current: f32):
    %sum = arith.addf %current, %d : f32
    memref.atomic_yield %sum : f32
  }
  %second = memref.generic_atomic_rmw %m[%i, %j] : memref<2x3xf32> {
  ^bb0(%current: f32):
    %twice = arith.mulf %current, %d : f32
    memref.atomic_yield %twice : f32
  }
  return %m, %first, %second : memref<2x3xf32>, f32, f32
}
"#;
    let m = Tensor::from_vec(vec![2, 3], (0..6).map(|i| i as f32).collect()).unwrap();
    let out = run(src, "f", &[m, Tensor::scalar(2f32)]).unwrap();
    // Element [1, 2] is 5: 5 + 2 = 7, then 7 * 2 = 14; the others are untouched.
    assert_eq!(
        out[0].as_slice::<f32>().unwrap(),
        &[0., 1., 2., 3., 4., 14.]
    );
    assert_eq!(out[1].as_slice::<f32>().unwrap(), &[7.]);
    assert_eq!(out[2].as_slice::<f32>().unwrap(), &[14.]);
}

#[test]
fn memref_transpose_and_strided_metadata_view_the_same_storage() {
    let src = r#"
func.func @f(%m: memref<2x3xf32>) -> (memref<3x2xf32, strided<[1, 3]>>, f32, f32) {
  %t = memref.transpose %m (d0, d1) -> (d1, d0) : memref<2x3xf32> to memref<3x2xf32, strided<[1, 3]>>
  %a = memref.assume_alignment %t, 16 : memref<3x2xf32, strided<[1, 3]>>
  %s = memref.memory_space_cast %a : memref<3x2xf32, strided<[1, 3]>> to memref<3x2xf32, strided<[1, 3]>, 1>
  %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %s : memref<3x2xf32, strided<[1, 3]>, 1> -> memref<f32, 1>, index, index, index, index, index
  %r = memref.reinterpret_cast %base to offset: [%off], sizes: [%sizes#1, %sizes#0], strides: [%strides#1, %strides#0] : memref<f32, 1> to memref<?x?xf32, strided<[?, ?], offset: ?>, 1>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = memref.load %r[%c1, %c2] : memref<?x?xf32, strided<[?, ?], offset: ?>, 1>
  %y = memref.load %t[%c2, %c1] : memref<3x2xf32, strided<[1, 3]>>
  return %t, %x, %y : memref<3x2xf32, strided<[1, 3]>>, f32, f32
}
"#;
    let m = Tensor::from_vec(vec![2, 3], (0..6).map(|i| i as f32).collect()).unwrap();
    let out = run(src, "f", &[m]).unwrap();
    assert_eq!(out[0].shape(), &[3, 2]);
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[0., 3., 1., 4., 2., 5.]);
    // The metadata rebuilt with the dimensions swapped back addresses m[1][2].
    assert_eq!(out[1].as_slice::<f32>().unwrap(), &[5.]);
    assert_eq!(out[2].as_slice::<f32>().unwrap(), &[5.]);
}

#[test]
fn out_of_bounds_access_is_reported_at_the_access() {
    let src = r#"
func.func @f(%m: memref<4xf32>) -> f32 {
  %i = arith.constant 4 : index
  %x = memref.load %m[%i] : memref<4xf32>
  return %x : f32
}
"#;
    let err = run(src, "f", &[random(&[4], 1)]).unwrap_err();
    assert!(err.starts_with("4:8:"), "{err}");
    assert!(
        err.contains("'memref.load' op index 4 out of bounds for dimension 0 of size 4"),
        "{err}"
    );
}

#[test]
fn reading_a_freed_buffer_is_an_error() {
    let src = r#"
func.func @f() -> f32 {
  %m = memref.alloc() : memref<4xf32>
  memref.dealloc %m : memref<4xf32>
  %i = arith.constant 0 : index
  %x = memref.load %m[%i] : memref<4xf32>
  return %x : f32
}
"#;
    let err = run(src, "f", &[]).unwrap_err();
    assert!(err.contains("access to a freed buffer"), "{err}");
}

#[test]
fn uninitialized_buffers_read_as_nan() {
    // A lowering that forgets to initialize an accumulator must not pass by luck.
    let src = r#"
func.func @f() -> f32 {
  %m = loop.alloc() : memref<4xf32>
  %i = arith.constant 0 : index
  %x = loop.load %m[%i] : memref<4xf32>
  return %x : f32
}
"#;
    assert!(run(src, "f", &[]).unwrap()[0].to_f64_vec()[0].is_nan());
}

#[test]
fn division_by_zero_is_an_error_not_a_value() {
    let src = r#"
func.func @f(%a: i32) -> i32 {
  %z = arith.constant 0 : i32
  %q = arith.divsi %a, %z : i32
  return %q : i32
}
"#;
    let err = run(src, "f", &[Tensor::scalar(3i32)]).unwrap_err();
    assert!(
        err.contains("4:8: 'arith.divsi' op divides by zero"),
        "{err}"
    );
}

#[test]
fn calls_pass_values_between_functions() {
    let src = r#"
func.func private @square(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
func.func @f(%x: f32) -> f32 {
  %a = call @square(%x) : (f32) -> f32
  %b = call @square(%a) : (f32) -> f32
  return %b : f32
}
"#;
    let out = run(src, "f", &[Tensor::scalar(3f32)]).unwrap();
    assert_eq!(out[0].to_f64_vec(), vec![81.0]);
}

#[test]
fn arguments_must_match_the_signature() {
    let err = run(
        TE_MATMUL,
        "matmul",
        &[random(&[5, 7], 1), random(&[7, 4], 1)],
    )
    .unwrap_err();
    assert!(
        err.contains("argument #1 of 'matmul': expected shape [7, 3]"),
        "{err}"
    );
}

#[test]
fn dense_resource_constants_decode_their_blob() {
    let src = r#"
func.func @f() -> tensor<3xi32> {
  %c = arith.constant dense_resource<blob1> : tensor<3xi32>
  return %c : tensor<3xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x04000000010000000200000003000000"
    }
  }
#-}
"#;
    let out = run(src, "f", &[]).unwrap();
    assert_eq!(out[0].as_slice::<i32>().unwrap(), &[1, 2, 3]);
}

#[test]
fn check_transform_accepts_a_faithful_rewrite() {
    // Swapping the operands of a commutative op keeps the function's meaning.
    let report = check_transform(
        TE_MATMUL,
        |ctx, module| {
            let mut muls = Vec::new();
            ctx.walk_nested(module, &mut |op| {
                if ctx.op_name(op) == "arith.mulf" {
                    muls.push(op);
                }
            });
            for op in muls {
                let (a, b) = (ctx.op(op).operands[0], ctx.op(op).operands[1]);
                ctx.set_operand(op, 0, b);
                ctx.set_operand(op, 1, a);
            }
            Ok(())
        },
        Tolerance::default(),
        3,
    )
    .unwrap();
    assert!(report.text.contains("arith.mulf %2, %1"), "{}", report.text);
}

#[test]
fn check_transform_rejects_a_rewrite_that_changes_results() {
    let err = check_transform(
        TE_MATMUL,
        |ctx, module| {
            let mut muls = Vec::new();
            ctx.walk_nested(module, &mut |op| {
                if ctx.op_name(op) == "arith.mulf" {
                    muls.push(op);
                }
            });
            // x * y -> x * x: still valid IR, but a different function.
            for op in muls {
                let a = ctx.op(op).operands[0];
                ctx.set_operand(op, 1, a);
            }
            Ok(())
        },
        Tolerance::default(),
        2,
    )
    .unwrap_err();
    assert!(err.contains("@matmul result #0 differs"), "{err}");
}
