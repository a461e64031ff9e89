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
/// [-8, 8] (unsigned in [0, 16]), `index` values in [0, 4] (they are usually sizes and
/// positions), bools fair coins; scalars are 0-d tensors.
pub fn random_tensor(ctx: &Context, ty: Type, rng: &mut StdRng) -> Result<Tensor, String> {
    crate::budget::check_type(ctx, ty)?;
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
            ElemType::Index => Scalar::Int(rng.random_range(0..=4)),
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
        .enumerate()
        .map(|(i, &ty)| {
            random_tensor(ctx, ty, &mut rng).map_err(|why| format!("argument #{i}: {why}"))
        })
        .collect()
}

/// A function's name and its results, or the error it stopped with.
pub type Outcome = (String, Result<Vec<Tensor>, String>);

/// What each public function with a body in `module` returns on seeded random arguments,
/// in program order; a function that fails (say, divides by zero) gives its error message.
pub fn run_all(ctx: &Context, module: OpId, seed: u64) -> Result<Vec<Outcome>, String> {
    let mut interp = Interpreter::new(ctx, module);
    let mut out = Vec::new();
    for name in interp.public_function_names() {
        let func = interp
            .function(&name)
            .expect("listed by public_function_names");
        // A function the interpreter cannot feed (a dynamic shape) counts as failing, so
        // the comparison leaves it out and says so.
        let results = random_arguments(ctx, func, seed)
            .map_err(|m| format!("no random arguments: {m}"))
            .and_then(|args| interp.run_function(&name, &args).map_err(|d| d.message));
        out.push((name, results));
    }
    Ok(out)
}

/// What [`check_transform`] found.
#[derive(Debug)]
pub struct CheckReport {
    /// The transformed IR.
    pub text: String,
    /// Functions left out of the comparison because the original already failed on some
    /// input (undefined behaviour such as a division by zero lets a transformation do
    /// anything) or could not be given inputs (dynamic shapes), with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Parses `source`, records what each public function computes on random inputs (`trials`
/// seeds), applies `transform` and checks that every function still computes the same
/// within `tolerance`.
pub fn check_transform(
    source: &str,
    transform: impl FnOnce(&mut Context, OpId) -> Result<(), Diagnostic>,
    tolerance: Tolerance,
    trials: u64,
) -> Result<CheckReport, String> {
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
        .collect::<Result<Vec<_>, _>>()?;
    let mut skipped: Vec<(String, String)> = Vec::new();
    for run in &before {
        for (name, result) in run {
            if let Err(e) = result
                && !skipped.iter().any(|(n, _)| n == name)
            {
                skipped.push((name.clone(), e.clone()));
            }
        }
    }
    transform(&mut ctx, module).map_err(|d| show(&ctx, &d))?;
    tb_ir::verifier::verify(&ctx, module)
        .map_err(|d| format!("the transformed IR does not verify: {}", show(&ctx, &d)))?;
    let text = print_operation(&ctx, module, PrintOptions::default());
    for (seed, expected) in before.iter().enumerate() {
        let actual = run_all(&ctx, module, seed as u64)?;
        compare(expected, &actual, &skipped, tolerance)
            .map_err(|m| format!("seed {seed}: {m}\ntransformed IR:\n{text}"))?;
    }
    Ok(CheckReport { text, skipped })
}

fn compare(
    expected: &[Outcome],
    actual: &[Outcome],
    skipped: &[(String, String)],
    tolerance: Tolerance,
) -> Result<(), String> {
    for (name, want) in expected {
        if skipped.iter().any(|(n, _)| n == name) {
            continue;
        }
        let want = want.as_ref().expect("failures are skipped");
        let got = actual
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r)
            .ok_or_else(|| format!("@{name} disappeared"))?
            .as_ref()
            .map_err(|e| format!("@{name} fails after the transformation: {e}"))?;
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
