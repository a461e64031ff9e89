//! The oracle check for transformations: run every function of a module on random inputs
//! before and after a transformation, and compare the results within a tolerance.
//!
//! Every conversion and rewrite pass is tested with [`check_transform`]: the interpreter runs
//! the original IR and the transformed IR on the same seeded random arguments, so a lowering
//! that changes what a function computes fails with the function, the result and the first
//! differing element.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::{Context, Diagnostic, OpId, Type};

use crate::exec::value::{ElemType, Scalar, static_shape, write_element};
use crate::exec::{Interpreter, func_signature};
use crate::tensor::{Tensor, TensorData};

/// Tolerances of a comparison, as numpy's `allclose` takes them.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

impl Default for Tolerance {
    /// What a reordered f32 computation stays within.
    fn default() -> Self {
        Tolerance {
            rtol: 1e-5,
            atol: 1e-6,
        }
    }
}

/// A random tensor for an argument of type `ty`: floats uniform in [-1, 1), integers in
/// [-8, 8] (unsigned in [0, 16]), bools fair coins; scalars are 0-d tensors.
pub fn random_tensor(ctx: &Context, ty: Type, rng: &mut StdRng) -> Result<Tensor, String> {
    let elem = ElemType::of(ctx, ty)?;
    let shape = match ctx.type_kind(ty).shape() {
        Some(_) => static_shape(ctx, ty)?,
        None => Vec::new(),
    };
    let n = shape.iter().product::<i64>() as usize;
    let mut data = TensorData::zeros(elem.dtype()?, n);
    for i in 0..n {
        let v = match elem {
            ElemType::Float(_) => Scalar::Float(rng.random_range(-1.0..1.0)),
            ElemType::Int { width: 1, .. } => Scalar::Int(rng.random_range(0..2)),
            ElemType::Int { unsigned: true, .. } => Scalar::Int(rng.random_range(0..=16)),
            _ => Scalar::Int(rng.random_range(-8..=8)),
        };
        write_element(&mut data, i, elem.normalize(v));
    }
    Tensor::new(shape, data).map_err(|e| e.0)
}

/// Seeded random arguments for `func`.
pub fn random_arguments(ctx: &Context, func: OpId, seed: u64) -> Result<Vec<Tensor>, String> {
    let (inputs, _) = func_signature(ctx, func).ok_or("function has no signature")?;
    let mut rng = StdRng::seed_from_u64(seed);
    inputs
        .iter()
        .map(|&ty| random_tensor(ctx, ty, &mut rng))
        .collect()
}

/// The results of every public function with a body in `module`, in program order, on
/// seeded random arguments.
pub fn run_all(ctx: &Context, module: OpId, seed: u64) -> Result<Vec<(String, Vec<Tensor>)>, Diagnostic> {
    let mut interp = Interpreter::new(ctx, module);
    let mut out = Vec::new();
    for name in interp.public_function_names() {
        let func = interp.function(&name).expect("listed by function_names");
        let args = random_arguments(ctx, func, seed)
            .map_err(|m| Diagnostic::error(ctx.op(func).loc, format!("@{name}: {m}")))?;
        let results = interp.run_function(&name, &args)?;
        out.push((name, results));
    }
    Ok(out)
}

/// Parses `source`, records what each function computes on random inputs (`trials` seeds),
/// applies `transform` and checks that every function still computes the same within
/// `tolerance`. Returns the transformed IR's text, for further checks.
pub fn check_transform(
    source: &str,
    transform: impl FnOnce(&mut Context, OpId) -> Result<(), Diagnostic>,
    tolerance: Tolerance,
    trials: u64,
) -> Result<String, String> {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx)?;
    let mut sources = SourceMgr::new();
    sources.add_buffer("input.mlir", source);
    let show = |ctx: &Context, d: &Diagnostic| render(ctx, &sources, d);
    let module = parse_source(&mut ctx, source, "input.mlir", &ParseOptions::default())
        .map_err(|d| show(&ctx, &d))?;
    tb_ir::verifier::verify(&ctx, module).map_err(|d| show(&ctx, &d))?;
    let before = (0..trials)
        .map(|seed| run_all(&ctx, module, seed))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|d| format!("before the transformation: {}", show(&ctx, &d)))?;
    transform(&mut ctx, module).map_err(|d| show(&ctx, &d))?;
    tb_ir::verifier::verify(&ctx, module)
        .map_err(|d| format!("the transformed IR does not verify: {}", show(&ctx, &d)))?;
    let text = print_operation(&ctx, module, PrintOptions::default());
    for (seed, expected) in before.iter().enumerate() {
        let actual = run_all(&ctx, module, seed as u64)
            .map_err(|d| format!("after the transformation: {}\n{text}", show(&ctx, &d)))?;
        compare(expected, &actual, tolerance)
            .map_err(|m| format!("seed {seed}: {m}\ntransformed IR:\n{text}"))?;
    }
    Ok(text)
}

fn compare(
    expected: &[(String, Vec<Tensor>)],
    actual: &[(String, Vec<Tensor>)],
    tolerance: Tolerance,
) -> Result<(), String> {
    for (name, want) in expected {
        let got = actual
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r)
            .ok_or_else(|| format!("@{name} disappeared"))?;
        if got.len() != want.len() {
            return Err(format!(
                "@{name} returns {} results, {} before",
                got.len(),
                want.len()
            ));
        }
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            g.allclose(w, tolerance.rtol, tolerance.atol)
                .map_err(|m| format!("@{name} result #{i} differs: {m}"))?;
        }
    }
    Ok(())
}
