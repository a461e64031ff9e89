//! The ExecutionEngine runtime (`tb_backends::mlir_execution`) on hand-written upstream MLIR:
//! every element type, several results, scalars, dynamic sizes, strided results, and
//! results that alias arguments, globals or each other.

use half::{bf16, f16};
use tb_backends::mlir_execution::{JitModule, Param};
use tb_tensor::{DType, Tensor};

const MODULE: &str = r#"
memref.global "private" constant @table : memref<2xi8> = dense<[7, -3]>

func.func @two_results(%a: memref<2x3xf64>, %m: memref<3xi1>) -> (memref<3x2xf64>, memref<3xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t = memref.alloc() : memref<3x2xf64>
  %s = memref.alloc() : memref<3xi32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %a[%i, %j] : memref<2x3xf64>
      memref.store %v, %t[%j, %i] : memref<3x2xf64>
    }
  }
  %yes = arith.constant 10 : i32
  %no = arith.constant -20 : i32
  scf.for %j = %c0 to %c3 step %c1 {
    %b = memref.load %m[%j] : memref<3xi1>
    %v = arith.select %b, %yes, %no : i32
    memref.store %v, %s[%j] : memref<3xi32>
  }
  return %t, %s : memref<3x2xf64>, memref<3xi32>
}

func.func @scale(%a: f32, %x: memref<?xf32>) -> (memref<?xf32>, index, i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %y = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %a : f32
    memref.store %w, %y[%i] : memref<?xf32>
  }
  %big = arith.cmpi sgt, %n, %c1 : index
  return %y, %n, %big : memref<?xf32>, index, i1
}

func.func @sum(%x: memref<4xi64>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i64) {
    %v = memref.load %x[%i] : memref<4xi64>
    %n = arith.addi %acc, %v : i64
    scf.yield %n : i64
  }
  return %s : i64
}

func.func @halves(%h: memref<2xf16>, %b: memref<2xbf16>) -> memref<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %y = memref.alloc() : memref<2xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %u = memref.load %h[%i] : memref<2xf16>
    %v = memref.load %b[%i] : memref<2xbf16>
    %uf = arith.extf %u : f16 to f32
    %vf = arith.extf %v : bf16 to f32
    %w = arith.addf %uf, %vf : f32
    memref.store %w, %y[%i] : memref<2xf32>
  }
  return %y : memref<2xf32>
}

func.func @aliases(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<2xf32, strided<[2], offset: 1>>, memref<2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.negf %v : f32
    memref.store %w, %y[%i] : memref<4xf32>
  }
  %odd = memref.subview %y[1] [2] [2] : memref<4xf32> to memref<2xf32, strided<[2], offset: 1>>
  %g = memref.get_global @table : memref<2xi8>
  return %x, %y, %odd, %g : memref<4xf32>, memref<4xf32>, memref<2xf32, strided<[2], offset: 1>>, memref<2xi8>
}
"#;

fn jit() -> JitModule {
    JitModule::compile(MODULE, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn tensor<T: tb_tensor::Element>(shape: &[i64], v: Vec<T>) -> Tensor {
    Tensor::from_vec(shape.to_vec(), v).unwrap()
}

#[test]
fn several_memref_results_of_different_element_types() {
    let jit = jit();
    let a = tensor(&[2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let m = tensor(&[3], vec![true, false, true]);
    let results = jit.run("two_results", &[a, m]).unwrap();
    assert_eq!(
        results,
        vec![
            tensor(&[3, 2], vec![1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0]),
            tensor(&[3], vec![10i32, -20, 10]),
        ]
    );
}

#[test]
fn scalars_and_dynamic_sizes() {
    let jit = jit();
    let signature = jit.signature("scale").unwrap();
    assert_eq!(signature.arguments[0], Param::Scalar(DType::F32));
    assert_eq!(signature.results[1], Param::Scalar(DType::I64));
    for n in [0usize, 1, 5] {
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let results = jit
            .run(
                "scale",
                &[Tensor::scalar(2.5f32), tensor(&[n as i64], x.clone())],
            )
            .unwrap();
        let want: Vec<f32> = x.iter().map(|v| v * 2.5).collect();
        assert_eq!(results[0], tensor(&[n as i64], want));
        assert_eq!(results[1], Tensor::scalar(n as i64));
        assert_eq!(results[2], Tensor::scalar(n > 1));
    }
}

#[test]
fn one_scalar_result_is_returned_by_value() {
    let x = tensor(&[4], vec![1i64, -2, 30, 400]);
    assert_eq!(
        jit().run("sum", &[x]).unwrap(),
        vec![Tensor::scalar(429i64)]
    );
    // Unsigned integers pass where signless ones are taken.
    let x = tensor(&[4], vec![1u64, 2, 3, 4]);
    assert_eq!(jit().run("sum", &[x]).unwrap(), vec![Tensor::scalar(10i64)]);
}

#[test]
fn half_precision_floats() {
    let h = tensor(&[2], vec![f16::from_f32(1.5), f16::from_f32(-2.0)]);
    let b = tensor(&[2], vec![bf16::from_f32(0.25), bf16::from_f32(8.0)]);
    assert_eq!(
        jit().run("halves", &[h, b]).unwrap(),
        vec![tensor(&[2], vec![1.75f32, 6.0])]
    );
}

#[test]
fn aliasing_strided_and_global_results() {
    let jit = jit();
    // Run several times: a double free or freeing an argument or a global would crash.
    for _ in 0..3 {
        let x = tensor(&[4], vec![1.0f32, 2.0, 3.0, 4.0]);
        let results = jit.run("aliases", std::slice::from_ref(&x)).unwrap();
        assert_eq!(results[0], x);
        assert_eq!(results[1], tensor(&[4], vec![-1.0f32, -2.0, -3.0, -4.0]));
        assert_eq!(results[2], tensor(&[2], vec![-2.0f32, -4.0]));
        assert_eq!(results[3], tensor(&[2], vec![7i8, -3]));
    }
}

#[test]
fn bad_calls_are_errors() {
    let jit = jit();
    let err = |f: &str, args: &[Tensor]| jit.run(f, args).unwrap_err().to_string();
    assert!(err("nope", &[]).contains("no function @nope"));
    assert!(err("sum", &[]).contains("0 arguments given, the function takes 1"));
    let wrong_type = tensor(&[4], vec![1.0f64; 4]);
    assert!(err("sum", &[wrong_type]).contains("holds f64, the function takes i64"));
    let wrong_shape = tensor(&[3], vec![1i64; 3]);
    assert!(err("sum", &[wrong_shape]).contains("has shape [3]"));
    let not_scalar = tensor(&[2], vec![1.0f32; 2]);
    let x = tensor(&[1], vec![1.0f32]);
    assert!(err("scale", &[not_scalar, x]).contains("is a scalar"));
}
