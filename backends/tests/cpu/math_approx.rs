//! The inline `f32` approximations of `math.exp` and `math.erf` (`llvm/math_approx.rs`),
//! compiled in scalar and vector form, against the C library in `f64` on a dense sweep
//! of inputs, the special values included.

use tb_backends::cpu::CompileOptions;
use tb_interpreter::Tensor;

use super::harness::Parsed;

/// Inputs: a dense sweep of `[-LIMIT, LIMIT]` plus the special values.
fn inputs(limit: f32, count: usize) -> Vec<f32> {
    let mut values: Vec<f32> = (0..count)
        .map(|i| -limit + 2.0 * limit * i as f32 / (count - 1) as f32)
        .collect();
    values.extend([
        0.0,
        -0.0,
        1e-30,
        -1e-30,
        1e-40,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.72,
        88.73,
        -87.0,
        -103.0,
        -104.5,
    ]);
    // Whole vectors of 8.
    while !values.len().is_multiple_of(8) {
        values.push(0.5);
    }
    values
}

/// `@scalar` applies `op` element by element, `@vector` on vectors of 8.
fn source(op: &str, n: usize) -> String {
    format!(
        r#"
func.func @scalar(%a: memref<{n}xf32>) -> memref<{n}xf32> {{
  %out = loop.alloc() : memref<{n}xf32>
  loop.for %i = 0 to {n} {{
    %x = loop.load %a[%i] : memref<{n}xf32>
    %y = math.{op} %x : f32
    loop.store %y, %out[%i] : memref<{n}xf32>
  }}
  return %out : memref<{n}xf32>
}}
func.func @vector(%a: memref<{n}xf32>) -> memref<{n}xf32> {{
  %out = loop.alloc() : memref<{n}xf32>
  loop.for %i = 0 to {n} step 8 {{
    %x = loop.vector_load %a[%i] : memref<{n}xf32>, vector<8xf32>
    %y = math.{op} %x : vector<8xf32>
    loop.vector_store %y, %out[%i] : memref<{n}xf32>, vector<8xf32>
  }}
  return %out : memref<{n}xf32>
}}
"#
    )
}

/// Runs `@scalar` and `@vector` on `xs` and checks each result with `check(x, got)`.
fn sweep(op: &str, xs: &[f32], check: impl Fn(f32, f32) -> Result<(), String>) {
    let parsed = Parsed::new(&source(op, xs.len()));
    let compiled = parsed.compile(&CompileOptions::default());
    let arg = Tensor::from_vec(vec![xs.len() as i64], xs.to_vec()).unwrap();
    for function in ["scalar", "vector"] {
        let out = compiled.run(function, std::slice::from_ref(&arg)).unwrap();
        let got = out[0].to_f64_vec();
        for (&x, &y) in xs.iter().zip(&got) {
            check(x, y as f32).unwrap_or_else(|m| panic!("@{function} {op}({x:e}): {m}"));
        }
    }
}

/// Distance in units in the last place of `want` (rounded to `f32`).
fn ulps(got: f32, want: f64) -> f64 {
    let rounded = want as f32;
    let ulp = (f32::from_bits(rounded.abs().to_bits() + 1) - rounded.abs()) as f64;
    (got as f64 - want).abs() / ulp
}

#[test]
fn exp_is_within_two_ulps_of_the_c_library() {
    sweep("exp", &inputs(100.0, 200_000), |x, y| {
        let want = (x as f64).exp();
        if x.is_nan() {
            return if y.is_nan() {
                Ok(())
            } else {
                Err(format!("{y} for a NaN"))
            };
        }
        if want >= f32::MAX as f64 || want < f32::MIN_POSITIVE as f64 {
            // Overflow gives infinity; subnormal results need only be close.
            let ok = if want >= f32::MAX as f64 {
                y == f32::INFINITY
            } else {
                (y as f64 - want).abs() <= 2.0 * 1.4e-45 + want * 1e-6
            };
            return if ok {
                Ok(())
            } else {
                Err(format!("{y:e}, want {want:e}"))
            };
        }
        let distance = ulps(y, want);
        if distance <= 2.0 {
            Ok(())
        } else {
            Err(format!("{y:e}, want {want:e} ({distance:.1} ulps)"))
        }
    });
}

#[test]
fn erf_is_within_4e_7_of_the_c_library() {
    sweep("erf", &inputs(6.0, 200_000), |x, y| {
        if x.is_nan() {
            return if y.is_nan() {
                Ok(())
            } else {
                Err(format!("{y} for a NaN"))
            };
        }
        let want = libm::erf(x as f64);
        let error = (y as f64 - want).abs();
        // A subnormal result keeps fewer bits: allow one step of the smallest subnormal.
        if y.abs() <= 1.0 && error <= 4e-7 * want.abs() + 1.5e-45 {
            Ok(())
        } else {
            Err(format!(
                "{y:e}, want {want:e} (relative error {:e})",
                error / want.abs()
            ))
        }
    });
}
