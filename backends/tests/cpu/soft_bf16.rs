//! Rounding to bf16 on a CPU model without native bf16 conversion, where the module's own
//! `__truncsfbf2`/`__truncdfbf2` do the work: bit for bit what the interpreter computes
//! (round to nearest, ties to even; NaN stays NaN).

use half::bf16;
use tb_backends::cpu::{CompileOptions, TargetOptions};
use tb_interpreter::Tensor;

use super::harness::Parsed;

const SOURCE: &str = r#"
func.func @from_f32(%a: memref<64xf32>) -> memref<64xbf16> {
  %out = loop.alloc() : memref<64xbf16>
  loop.for %i = 0 to 64 {
    %x = loop.load %a[%i] : memref<64xf32>
    %y = arith.truncf %x : f32 to bf16
    loop.store %y, %out[%i] : memref<64xbf16>
  }
  return %out : memref<64xbf16>
}

func.func @from_f64(%a: memref<64xf64>) -> memref<64xbf16> {
  %out = loop.alloc() : memref<64xbf16>
  loop.for %i = 0 to 64 {
    %x = loop.load %a[%i] : memref<64xf64>
    %y = arith.truncf %x : f64 to bf16
    loop.store %y, %out[%i] : memref<64xbf16>
  }
  return %out : memref<64xbf16>
}
"#;

/// x86-64 without extensions: no instruction converts to bf16.
fn baseline_cpu() -> CompileOptions {
    CompileOptions {
        target: TargetOptions {
            cpu: Some("x86-64".to_owned()),
            features: None,
        },
        ..CompileOptions::default()
    }
}

/// Deterministic bit patterns spread over every exponent.
fn scrambled(seed: u64, n: usize) -> impl Iterator<Item = u64> {
    let mut state = seed;
    (0..n).map(move |_| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state ^ (state >> 29)
    })
}

fn bf16_bits(t: &Tensor) -> Vec<u16> {
    t.typed::<bf16>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

fn check(parsed: &Parsed, name: &str, input: Tensor) {
    let compiled = parsed.compile(&baseline_cpu());
    let got = compiled.run(name, std::slice::from_ref(&input)).unwrap();
    let expected = parsed.interpret(name, &[input]);
    let (got, expected) = (bf16_bits(&got[0]), bf16_bits(&expected[0]));
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        let both_nan = bf16::from_bits(*g).is_nan() && bf16::from_bits(*e).is_nan();
        assert!(
            g == e || both_nan,
            "@{name} element {i}: {g:#06x}, expected {e:#06x}"
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn float_to_bf16_rounds_to_nearest_even() {
    let parsed = Parsed::new(SOURCE);
    let mut bits: Vec<u32> = vec![
        0x3f80_8000, // a tie: stays at 1.0
        0x3f81_8000, // a tie: rounds up to the even neighbour
        0x3f80_8001, // just above a tie: rounds up
        0x7f7f_ffff, // the largest float: rounds to infinity
        0x7f80_0000, // infinity
        0xff80_0000, // minus infinity
        0x7fc0_0001, // a quiet NaN
        0x7f80_0001, // a signalling NaN: stays NaN
        0x0000_8000, // a subnormal tie
        0x8000_0000, // minus zero
    ];
    bits.extend(scrambled(1, 64 - bits.len()).map(|b| b as u32));
    let values: Vec<f32> = bits.into_iter().map(f32::from_bits).collect();
    check(
        &parsed,
        "from_f32",
        Tensor::from_vec(vec![64], values).unwrap(),
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn double_to_bf16_rounds_once() {
    let parsed = Parsed::new(SOURCE);
    let mut values: Vec<f64> = vec![
        // Just above a bf16 tie by less than a float's precision: rounding to float first
        // would land on the tie and then round down to even; one rounding goes up.
        1.0 + 2f64.powi(-8) + 2f64.powi(-40),
        1.0 + 2f64.powi(-8),
        -(1.0 + 3.0 * 2f64.powi(-8) - 2f64.powi(-40)),
        f64::MAX,
        1e-300,
        f64::NAN,
        f64::INFINITY,
        -0.0,
    ];
    let count = 64 - values.len();
    values.extend(scrambled(2, count).map(|b| {
        // Exponents within a few hundred of 1.0, so most values are finite floats.
        let exponent = 1023 - 160 + (b >> 52) % 320;
        f64::from_bits((b & ((1 << 52) - 1)) | (exponent << 52) | (b & (1 << 63)))
    }));
    check(
        &parsed,
        "from_f64",
        Tensor::from_vec(vec![64], values).unwrap(),
    );
}
