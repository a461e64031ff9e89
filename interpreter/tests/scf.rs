//! The interpreter on `scf` ops, against plain Rust on random inputs: loops with
//! loop-carried values, `scf.while`, conditionals, switches, `scf.execute_region` with
//! branches, and `scf.parallel` reductions.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tb_interpreter::Tensor;
use tb_interpreter::exec::Interpreter;
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

fn run(src: &str, args: &[Tensor]) -> Result<Vec<Tensor>, String> {
    let (ctx, module) = parse(src);
    Interpreter::new(&ctx, module)
        .run_function("f", args)
        .map_err(|d| d.message)
}

fn scalar_i64(out: &Tensor) -> i64 {
    out.as_slice::<i64>().unwrap()[0]
}

const FOR_SUM: &str = r#"
func.func @f(%m: memref<48xf32>, %lb: index, %ub: index, %step: index) -> (f32, index) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %r:2 = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero, %n = %c0) -> (f32, index) {
    %x = memref.load %m[%i] : memref<48xf32>
    %s = arith.addf %acc, %x : f32
    %c1 = arith.constant 1 : index
    %n1 = arith.addi %n, %c1 : index
    scf.yield %s, %n1 : f32, index
  }
  return %r#0, %r#1 : f32, index
}
"#;

#[test]
fn for_carries_values_over_a_strided_range() {
    let mut rng = StdRng::seed_from_u64(22);
    for _ in 0..20 {
        let len = 48usize;
        let data: Vec<f32> = (0..len).map(|_| rng.random_range(-4.0f32..4.0)).collect();
        let lb = rng.random_range(0..len as i64 + 3);
        let ub = rng.random_range(0..len as i64 + 1);
        // (Bounds past the end are fine: the loop stops at `ub <= len`.)
        let step = rng.random_range(1..5i64);
        let m = Tensor::from_vec(vec![len as i64], data.clone()).unwrap();
        let args = [
            m,
            Tensor::scalar(lb),
            Tensor::scalar(ub),
            Tensor::scalar(step),
        ];
        let out = run(FOR_SUM, &args).unwrap();
        let (mut sum, mut count) = (0.0f32, 0i64);
        let mut i = lb;
        while i < ub {
            sum += data[i as usize];
            count += 1;
            i += step;
        }
        assert_eq!(
            out[0].as_slice::<f32>().unwrap(),
            &[sum],
            "lb {lb} ub {ub} step {step}"
        );
        assert_eq!(scalar_i64(&out[1]), count);
    }
}

#[test]
fn for_over_i8_compares_signed_or_unsigned() {
    // From -2 to 3 by 1, summing i + 100: signed, five iterations (-2..=2); unsigned, the
    // lower bound is 254 > 3 and the loop runs none.
    let src = |unsigned: &str| {
        format!(
            r#"
func.func @f() -> i32 {{
  %lb = arith.constant -2 : i8
  %ub = arith.constant 3 : i8
  %s = arith.constant 1 : i8
  %z = arith.constant 0 : i32
  %r = scf.for {unsigned} %i = %lb to %ub step %s iter_args(%n = %z) -> (i32) : i8 {{
    %w = arith.extsi %i : i8 to i32
    %c100 = arith.constant 100 : i32
    %v = arith.addi %w, %c100 : i32
    %m = arith.addi %n, %v : i32
    scf.yield %m : i32
  }}
  return %r : i32
}}
"#
        )
    };
    let signed = run(&src(""), &[]).unwrap();
    assert_eq!(signed[0].as_slice::<i32>().unwrap(), &[500]);
    let unsigned = run(&src("unsigned"), &[]).unwrap();
    assert_eq!(unsigned[0].as_slice::<i32>().unwrap(), &[0]);
}

const WHILE_GCD: &str = r#"
func.func @f(%a: i64, %b: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi ne, %y, %c0 : i64
    scf.condition(%more) %x, %y : i64, i64
  } do {
  ^bb0(%x: i64, %y: i64):
    %rem = arith.remsi %x, %y : i64
    scf.yield %y, %rem : i64, i64
  }
  return %r#0, %r#1 : i64, i64
}
"#;

#[test]
fn while_runs_until_its_condition_is_false() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..30 {
        let (a, b) = (rng.random_range(0..1000i64), rng.random_range(0..1000i64));
        let out = run(WHILE_GCD, &[Tensor::scalar(a), Tensor::scalar(b)]).unwrap();
        let (mut x, mut y) = (a, b);
        while y != 0 {
            (x, y) = (y, x % y);
        }
        assert_eq!(scalar_i64(&out[0]), x, "gcd({a}, {b})");
        assert_eq!(scalar_i64(&out[1]), 0);
    }
}

const IF_SWITCH: &str = r#"
func.func @f(%x: i64, %k: index) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %neg = arith.cmpi slt, %x, %c0 : i64
  %abs = scf.if %neg -> (i64) {
    %n = arith.subi %c0, %x : i64
    scf.yield %n : i64
  } else {
    scf.yield %x : i64
  }
  %s = scf.index_switch %k -> i64
  case 0 {
    %c10 = arith.constant 10 : i64
    scf.yield %c10 : i64
  }
  case 3 {
    %t = arith.muli %abs, %abs : i64
    scf.yield %t : i64
  }
  default {
    scf.yield %abs : i64
  }
  return %abs, %s : i64, i64
}
"#;

#[test]
fn if_and_index_switch_choose_their_region() {
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..30 {
        let x = rng.random_range(-50..50i64);
        let k = rng.random_range(0..5i64);
        let out = run(IF_SWITCH, &[Tensor::scalar(x), Tensor::scalar(k)]).unwrap();
        let abs = x.abs();
        let expected = match k {
            0 => 10,
            3 => abs * abs,
            _ => abs,
        };
        assert_eq!(scalar_i64(&out[0]), abs);
        assert_eq!(scalar_i64(&out[1]), expected, "x {x} k {k}");
    }
}

const EXECUTE_REGION: &str = r#"
func.func @f(%c: i1, %x: i64) -> i64 {
  %r = scf.execute_region -> i64 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %d = arith.addi %x, %x : i64
    scf.yield %d : i64
  ^bb2:
    scf.yield %x : i64
  }
  return %r : i64
}
"#;

#[test]
fn execute_region_follows_its_branches() {
    for (c, x) in [(true, 21i64), (false, 21), (true, -4)] {
        let out = run(EXECUTE_REGION, &[Tensor::scalar(c), Tensor::scalar(x)]).unwrap();
        assert_eq!(scalar_i64(&out[0]), if c { 2 * x } else { x });
    }
}

const PARALLEL_SUM: &str = r#"
func.func @f(%m: memref<6x6xf32>, %rows: index, %cols: index) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 1.0e9 : f32
  %r:2 = scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) init (%zero, %low) -> (f32, f32) {
    %x = memref.load %m[%i, %j] : memref<6x6xf32>
    scf.reduce(%x, %x : f32, f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }, {
    ^bb0(%l: f32, %r: f32):
      %s = arith.minimumf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  return %r#0, %r#1 : f32, f32
}
"#;

#[test]
fn parallel_reductions_combine_every_iteration() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..10 {
        let (rows, cols) = (rng.random_range(1..6i64), rng.random_range(1..6i64));
        let data: Vec<f32> = (0..36).map(|_| rng.random_range(-8.0f32..8.0)).collect();
        let m = Tensor::from_vec(vec![6, 6], data.clone()).unwrap();
        let out = run(
            PARALLEL_SUM,
            &[m, Tensor::scalar(rows), Tensor::scalar(cols)],
        )
        .unwrap();
        // The iterations run in order, row-major: the same order of additions.
        let visited: Vec<f32> = (0..rows)
            .flat_map(|i| (0..cols).map(move |j| (i * 6 + j) as usize))
            .map(|k| data[k])
            .collect();
        let sum = visited.iter().fold(0.0f32, |a, &x| a + x);
        let min = visited.iter().fold(1.0e9f32, |a, &x| a.min(x));
        assert_eq!(out[0].as_slice::<f32>().unwrap(), &[sum]);
        assert_eq!(out[1].as_slice::<f32>().unwrap(), &[min]);
    }
}
