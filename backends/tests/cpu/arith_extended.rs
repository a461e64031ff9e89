//! `arith.floordivsi`, `arith.ceildivsi`, `arith.ceildivui`, `arith.mulsi_extended`,
//! `arith.mului_extended` and `arith.addui_extended`: JIT-compiled on scalars and vectors
//! of i8, i32 and i64, and compared bit for bit with the interpreter on every pair of edge
//! values (MIN, -1, 0, MAX, ...) and on random values of the whole range. Divisions that
//! are undefined (by zero, MIN / -1) are steered away from in the IR itself.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tb_backends::cpu::CompileOptions;
use tb_interpreter::Tensor;

use super::harness::Parsed;

/// Lanes per function call, a multiple of the vector width.
const N: usize = 128;
/// Results per lane: floor, ceil, unsigned ceil, signed low/high, unsigned low/high, sum,
/// carry.
const RESULTS: usize = 9;

/// The module for element type `t` with minimum value `min`: `@scalars` computes every op
/// lane by lane, `@vectors` the same on `vector<4xT>`.
fn module(t: &str, min: &str) -> String {
    let body = |ty: &str, i1: &str| {
        format!(
            r#"
    %y0 = arith.cmpi eq, %y, %zero : {ty}
    %d = arith.select %y0, %one, %y : {i1}{ty}
    %xmin = arith.cmpi eq, %x, %min : {ty}
    %dm1 = arith.cmpi eq, %d, %m1 : {ty}
    %ovf = arith.andi %xmin, %dm1 : {i1_only}
    %n = arith.select %ovf, %zero, %x : {i1}{ty}
    %r0 = arith.floordivsi %n, %d : {ty}
    %r1 = arith.ceildivsi %n, %d : {ty}
    %r2 = arith.ceildivui %x, %d : {ty}
    %r3, %r4 = arith.mulsi_extended %x, %y : {ty}
    %r5, %r6 = arith.mului_extended %x, %y : {ty}
    %r7, %carry = arith.addui_extended %x, %y : {ty}, {i1_only}
    %r8 = arith.extui %carry : {i1_only} to {ty}"#,
            i1_only = if i1.is_empty() {
                "i1".to_string()
            } else {
                i1.trim_end_matches(", ").to_string()
            }
        )
    };
    let scalar_body = body(t, "");
    let vector_ty = format!("vector<4x{t}>");
    let vector_body = body(&vector_ty, "vector<4xi1>, ");
    let stores = |store: &dyn Fn(usize) -> String| (0..RESULTS).map(store).collect::<String>();
    let scalar_stores = stores(&|k| {
        format!("\n    loop.store %r{k}, %out[(d0) -> ({k}, d0)](%i) : memref<{RESULTS}x{N}x{t}>")
    });
    let vector_stores = stores(&|k| {
        format!(
            "\n    loop.vector_store %r{k}, %out[(d0) -> ({k}, d0)](%i) : memref<{RESULTS}x{N}x{t}>, {vector_ty}"
        )
    });
    format!(
        r#"
func.func @scalars(%a: memref<{N}x{t}>, %b: memref<{N}x{t}>) -> memref<{RESULTS}x{N}x{t}> {{
  %out = loop.alloc() : memref<{RESULTS}x{N}x{t}>
  %zero = arith.constant 0 : {t}
  %one = arith.constant 1 : {t}
  %m1 = arith.constant -1 : {t}
  %min = arith.constant {min} : {t}
  loop.for %i = 0 to {N} {{
    %x = loop.load %a[%i] : memref<{N}x{t}>
    %y = loop.load %b[%i] : memref<{N}x{t}>{scalar_body}{scalar_stores}
  }}
  return %out : memref<{RESULTS}x{N}x{t}>
}}

func.func @vectors(%a: memref<{N}x{t}>, %b: memref<{N}x{t}>) -> memref<{RESULTS}x{N}x{t}> {{
  %out = loop.alloc() : memref<{RESULTS}x{N}x{t}>
  %zero = arith.constant dense<0> : {vector_ty}
  %one = arith.constant dense<1> : {vector_ty}
  %m1 = arith.constant dense<-1> : {vector_ty}
  %min = arith.constant dense<{min}> : {vector_ty}
  loop.for %i = 0 to {N} step 4 {{
    %x = loop.vector_load %a[%i] : memref<{N}x{t}>, {vector_ty}
    %y = loop.vector_load %b[%i] : memref<{N}x{t}>, {vector_ty}{vector_body}{vector_stores}
  }}
  return %out : memref<{RESULTS}x{N}x{t}>
}}
"#
    )
}

/// Operand pairs: every pair of `edges` first, then random values of the whole range.
fn operands(edges: &[i64], bits: u32, seed: u64) -> (Vec<i64>, Vec<i64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut random = move || {
        let v: i64 = rng.random();
        // Sign-extend the low `bits` bits, so every value of the type is possible.
        (v << (64 - bits)) >> (64 - bits)
    };
    let (mut a, mut b) = (Vec::with_capacity(N), Vec::with_capacity(N));
    for &x in edges {
        for &y in edges {
            a.push(x);
            b.push(y);
        }
    }
    a.truncate(N);
    b.truncate(N);
    while a.len() < N {
        a.push(random());
        b.push(random());
    }
    (a, b)
}

/// Runs `@scalars` and `@vectors` of the module for `t` compiled and interpreted, and
/// requires identical results.
fn check_type<T: tb_interpreter::Element>(
    t: &str,
    min: &str,
    bits: u32,
    edges: &[i64],
    cast: fn(i64) -> T,
) {
    let parsed = Parsed::new(&module(t, min));
    let compiled = parsed.compile(&CompileOptions::default());
    for seed in 0..4 {
        let (a, b) = operands(edges, bits, seed);
        let tensor =
            |v: &[i64]| Tensor::from_vec(vec![N as i64], v.iter().map(|&x| cast(x)).collect());
        let args = [tensor(&a).unwrap(), tensor(&b).unwrap()];
        for name in ["scalars", "vectors"] {
            let want = parsed.interpret(name, &args);
            let got = compiled
                .run(name, &args)
                .unwrap_or_else(|e| panic!("@{name}: {e}"));
            let (want, got) = (want[0].to_i64_vec().unwrap(), got[0].to_i64_vec().unwrap());
            for (k, (w, g)) in want.chunks(N).zip(got.chunks(N)).enumerate() {
                for lane in 0..N {
                    assert_eq!(
                        g[lane], w[lane],
                        "{t} @{name} result {k} for ({}, {}), seed {seed}",
                        a[lane], b[lane]
                    );
                }
            }
        }
    }
}

#[test]
fn i8_against_the_interpreter() {
    let edges = [-128, -127, -7, -2, -1, 0, 1, 2, 7, 126, 127];
    check_type::<i8>("i8", "-128", 8, &edges, |v| v as i8);
}

#[test]
fn i32_against_the_interpreter() {
    let (min, max) = (i32::MIN as i64, i32::MAX as i64);
    let edges = [min, min + 1, -7, -2, -1, 0, 1, 2, 7, max - 1, max];
    check_type::<i32>("i32", "-2147483648", 32, &edges, |v| v as i32);
}

#[test]
fn i64_against_the_interpreter() {
    let edges = [
        i64::MIN,
        i64::MIN + 1,
        -7,
        -2,
        -1,
        0,
        1,
        2,
        7,
        i64::MAX - 1,
        i64::MAX,
    ];
    check_type::<i64>("i64", "-9223372036854775808", 64, &edges, |v| v);
}
