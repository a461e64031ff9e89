//! What the CPU backend refuses (with located errors) and how calls are checked; plus
//! results checked against hand-computed values rather than the interpreter.

use tb_backends::cpu::{CompileOptions, Role};
use tb_interpreter::Tensor;

use super::harness::Parsed;

fn compile_error(source: &str) -> String {
    Parsed::new(source).compile_error()
}

#[test]
fn unsupported_ops_are_located_errors() {
    let error = compile_error(
        r#"
func.func @f(%a: memref<4xf32>) {
  loop.for %i = 0 to 4 {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = "foo.bar"(%x) : (f32) -> f32
    loop.store %y, %a[%i] : memref<4xf32>
  }
  return
}
"#,
    );
    assert!(
        error.starts_with("test.mlir:5:10: error: unsupported op 'foo.bar' in the CPU backend"),
        "{error}"
    );

    let error = compile_error(
        r#"
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"#,
    );
    assert!(
        error.contains("2:1: error: cannot export @f: argument #0 has type 'tensor<4xf32>'"),
        "{error}"
    );

    let error = compile_error(
        r#"
func.func @f(%a: memref<?xf32>) {
  return
}
"#,
    );
    assert!(
        error.contains("cannot export @f: argument #0: dynamic sizes are not supported"),
        "{error}"
    );

    let error = compile_error(
        r#"
func.func private @g(%a: memref<4xf32, strided<[?], offset: ?>>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = "memref.load"(%a, %c0) : (memref<4xf32, strided<[?], offset: ?>>, index) -> f32
  return %x : f32
}
func.func @f() {
  return
}
"#,
    );
    assert!(
        error.contains("4:8: error: 'memref.load' op dynamic strides or offsets are not supported"),
        "{error}"
    );

    let error = compile_error(
        r#"
func.func @f(%c: i1) {
  "u.branch"(%c)[^a, ^b] : (i1) -> ()
^a:
  return
^b:
  return
}
"#,
    );
    // `cf` branches compile (test/Integration/cpu/cf.mlir); a branch of another dialect does not.
    assert!(
        error.contains("3:3: error: unsupported op 'u.branch' in the CPU backend"),
        "{error}"
    );

    let error = compile_error(
        r#"
"test.global"() : () -> ()
"#,
    );
    assert!(
        error.contains("2:1: error: unsupported op 'test.global' in the CPU backend"),
        "{error}"
    );
}

/// Only the dialects the loop level is made of, so `math` and `memref` ops below are not
/// verified (as with any unregistered op).
fn loop_dialects(ctx: &mut tb_ir::Context) -> Result<(), String> {
    tb_dialects::func::register(ctx)?;
    tb_dialects::arith::register(ctx)?;
    tb_dialects::loop_::register(ctx)
}

#[test]
fn ops_of_unregistered_dialects_are_errors_not_crashes() {
    // Ops reach their translation by op kind, which only registered (hence verified) ops
    // have: an op whose dialect is not registered, however malformed, is reported as
    // unsupported at its location.
    for body in [
        r#"%x = "memref.load"() : () -> f32"#,
        r#"%y = "math.tanh"(%m) : (memref<4xf32>) -> f32"#,
        r#"%y = "math.ctpop"(%f) : (f32) -> f32"#,
        r#""math.exp"(%f) : (f32) -> ()"#,
        r#"%d = "memref.dim"(%m, %f) : (memref<4xf32>, f32) -> index"#,
        r#""memref.store"(%f, %f) : (f32, f32) -> ()"#,
        r#"%g = "memref.get_global"() <{name = @nowhere}> : () -> memref<4xf32>"#,
    ] {
        let name = body.split('"').nth(1).expect("the body names its op");
        let source =
            format!("func.func @f(%m: memref<4xf32>, %f: f32) {{\n  {body}\n  return\n}}\n");
        let error = Parsed::with_dialects(&source, loop_dialects).compile_error();
        assert!(error.contains("test.mlir:2:"), "{error}");
        assert!(
            error.contains(&format!("unsupported op '{name}' in the CPU backend")),
            "{error}"
        );
    }
}

const ADD: &str = r#"
func.func @add(%a: memref<3xf32>, %b: memref<3xf32>) -> memref<3xf32> {
  %c = loop.alloc() : memref<3xf32>
  loop.for %i = 0 to 3 {
    %x = loop.load %a[%i] : memref<3xf32>
    %y = loop.load %b[%i] : memref<3xf32>
    %s = arith.addf %x, %y : f32
    loop.store %s, %c[%i] : memref<3xf32>
  }
  return %c : memref<3xf32>
}

// A typed view into a byte buffer (which the interpreter does not run).
func.func @through_bytes(%a: memref<4xf32>) -> memref<4xf32> {
  %bytes = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xi8>
  %c16 = arith.constant 16 : index
  %v = "memref.view"(%bytes, %c16) : (memref<64xi8>, index) -> memref<4xf32>
  loop.for %i = 0 to 4 {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    loop.store %y, %v[%i] : memref<4xf32>
  }
  %out = loop.alloc() : memref<4xf32>
  "memref.copy"(%v, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  "memref.dealloc"(%bytes) : (memref<64xi8>) -> ()
  return %out : memref<4xf32>
}

// Destination-passing style: the result is written into an argument.
func.func @axpy(%alpha: f32, %x: memref<4xf32>, %y: memref<4xf32>) {
  loop.for %i = 0 to 4 {
    %a = loop.load %x[%i] : memref<4xf32>
    %b = loop.load %y[%i] : memref<4xf32>
    %r = loop.fma %alpha, %a, %b : f32
    loop.store %r, %y[%i] : memref<4xf32>
  }
  return
}
"#;

#[test]
fn results_match_hand_computed_values() {
    let parsed = Parsed::new(ADD);
    let compiled = parsed.compile(&CompileOptions::default());
    let a = Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0]).unwrap();
    let b = Tensor::from_vec(vec![3], vec![10.0f32, 20.5, -3.0]).unwrap();
    let out = compiled.run("add", &[a, b]).unwrap();
    assert_eq!(out[0].typed::<f32>().unwrap(), &[11.0, 22.5, 0.0]);

    let a = Tensor::from_vec(vec![4], vec![1.0f32, -2.0, 0.25, 3.5]).unwrap();
    let out = compiled.run("through_bytes", &[a]).unwrap();
    assert_eq!(out[0].typed::<f32>().unwrap(), &[2.0, -4.0, 0.5, 7.0]);

    let mut args = vec![
        Tensor::scalar(2.0f32),
        Tensor::from_vec(vec![4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap(),
        Tensor::from_vec(vec![4], vec![0.5f32, 0.5, 0.5, 0.5]).unwrap(),
    ];
    let out = compiled.run_in_place("axpy", &mut args).unwrap();
    assert!(out.is_empty());
    assert_eq!(args[2].typed::<f32>().unwrap(), &[2.5, 4.5, 6.5, 8.5]);
    // `x` is only read: the header makes it const, and it is not copied back.
    let axpy = compiled.entry_points().find(|e| e.name == "axpy").unwrap();
    let read_only: Vec<bool> = axpy.params.iter().map(|p| p.read_only).collect();
    assert_eq!(read_only, [false, true, false]);
    assert!(axpy.params.iter().all(|p| p.role == Role::Input));
    assert_eq!(axpy.symbol, "tb_axpy");
}

#[test]
fn calls_with_wrong_arguments_are_refused() {
    let parsed = Parsed::new(ADD);
    let compiled = parsed.compile(&CompileOptions::default());
    let three = Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0]).unwrap();
    let error = compiled.run("nope", &[]).unwrap_err().to_string();
    assert!(error.contains("no public function @nope"), "{error}");
    assert!(error.contains("@add, @through_bytes, @axpy"), "{error}");
    let error = compiled
        .run("add", std::slice::from_ref(&three))
        .unwrap_err()
        .to_string();
    assert!(error.contains("takes 2 arguments, 1 were given"), "{error}");
    let four = Tensor::from_vec(vec![4], vec![1.0f32; 4]).unwrap();
    let error = compiled
        .run("add", &[three.clone(), four])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("argument #1 of @add: expected shape [3]"),
        "{error}"
    );
    let ints = Tensor::from_vec(vec![3], vec![1i32, 2, 3]).unwrap();
    let error = compiled.run("add", &[three, ints]).unwrap_err().to_string();
    assert!(error.contains("expected f32 elements"), "{error}");
}
