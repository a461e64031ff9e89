//! `scf` ops: structured control flow runs its regions in the current environment (they
//! see the values defined above them). `scf.for` and `scf.while` carry values from one
//! iteration to the next; `scf.parallel` runs its iterations in order and combines each
//! one's `scf.reduce` operands with the reduction regions; the terminators (`scf.yield`,
//! `scf.condition`, `scf.reduce`) give their operands to the op that runs the region.

use tb_dialects::scf::{self, ScfOp};
use tb_ir::{OpId, RegionId, TypeKind, Value};

use super::value::{RtValue, Scalar, wrap};
use super::{Env, ExecError, ExecResult, Handler, Interpreter, max_branches};

pub(super) fn handler(kind: ScfOp) -> Option<Handler> {
    Some(match kind {
        ScfOp::For => for_op,
        ScfOp::If => if_op,
        ScfOp::While => while_op,
        ScfOp::ExecuteRegion => execute_region,
        ScfOp::IndexSwitch => index_switch,
        ScfOp::Parallel => parallel,
        // Terminators: the op running their region reads their operands.
        ScfOp::Yield | ScfOp::Condition | ScfOp::Reduce | ScfOp::ReduceReturn => return None,
    })
}

/// Runs `region` (entry block first, following `cf` branches) with `args` bound to its
/// entry arguments; gives the operands of the terminator that leaves it.
fn run_region(
    interp: &mut Interpreter,
    env: &mut Env,
    region: RegionId,
    args: Vec<RtValue>,
) -> ExecResult<Vec<RtValue>> {
    let block = interp
        .ctx
        .entry_block(region)
        .ok_or("runs a region without blocks")?;
    interp
        .run_nested_block(env, block, args)
        .map_err(|d| ExecError::Located(Box::new(d)))
}

fn values(env: &Env, of: &[Value]) -> ExecResult<Vec<RtValue>> {
    of.iter()
        .map(|v| {
            env.get(v)
                .cloned()
                .ok_or_else(|| ExecError::from("uses a value that has not been computed"))
        })
        .collect()
}

fn set_results(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    results: Vec<RtValue>,
) -> ExecResult {
    let expected = interp.ctx.op(op).results.len();
    if results.len() != expected {
        return Err(format!(
            "its region gives {} values for {expected} results",
            results.len()
        )
        .into());
    }
    for (i, value) in results.into_iter().enumerate() {
        interp.set_result(env, op, i, value)?;
    }
    Ok(())
}

/// The bit width of an integer or index value.
fn width_of(interp: &Interpreter, value: Value) -> u32 {
    match interp.ctx.type_kind(interp.ctx.value_type(value)) {
        TypeKind::Integer { width, .. } => *width,
        _ => 64,
    }
}

/// A loop limit against runaway `scf.while`s, shared with the `cf` branch limit.
fn iteration_limit() -> ExecResult<u64> {
    max_branches().map_err(ExecError::from)
}

fn for_op(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let (lb, ..) = scf::for_bounds(ctx, op).ok_or("has no bounds")?;
    let width = width_of(interp, lb);
    let unsigned = scf::for_is_unsigned(ctx, op);
    // Bounds as numbers of their width, compared signed or unsigned as the loop says.
    let as_number = |v: i64| -> i128 {
        if unsigned {
            i128::from(super::value::unsigned(v, width))
        } else {
            i128::from(v)
        }
    };
    let lower = as_number(interp.index_arg(env, op, 0)?);
    let upper = as_number(interp.index_arg(env, op, 1)?);
    let step = as_number(interp.index_arg(env, op, 2)?);
    let region = *ctx.op(op).regions.first().ok_or("has no body")?;
    let mut carried = values(env, scf::for_inits(ctx, op))?;
    let mut iv = lower;
    if iv < upper && step <= 0 {
        return Err(format!("has non-positive step {step}").into());
    }
    while iv < upper {
        let mut args = vec![RtValue::Scalar(Scalar::Int(wrap(iv as i64, width)))];
        args.append(&mut carried);
        carried = run_region(interp, env, region, args)?;
        // The next value is computed without wrapping: a step past the type's range ends
        // the loop.
        iv += step;
    }
    set_results(interp, env, op, carried)
}

fn if_op(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let condition = interp.scalar_arg(env, op, 0)?.as_int() != 0;
    let regions = interp.ctx.op(op).regions.to_vec();
    let chosen = if condition { 0 } else { 1 };
    let region = *regions
        .get(chosen)
        .ok_or("has no region for its condition")?;
    if interp.ctx.region(region).blocks.is_empty() {
        return set_results(interp, env, op, Vec::new());
    }
    let results = run_region(interp, env, region, Vec::new())?;
    set_results(interp, env, op, results)
}

fn while_op(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let [before, after] = ctx.op(op).regions[..] else {
        return Err("needs a 'before' and an 'after' region".into());
    };
    let limit = iteration_limit()?;
    let mut carried = values(env, &ctx.op(op).operands)?;
    let mut iterations: u64 = 0;
    loop {
        let mut condition = run_region(interp, env, before, carried)?;
        if condition.is_empty() {
            return Err("'before' region gives no condition".into());
        }
        let forwarded = condition.split_off(1);
        let proceed = match &condition[0] {
            RtValue::Scalar(s) => s.as_int() != 0,
            _ => return Err("'before' region gives a condition that is not a scalar".into()),
        };
        if !proceed {
            return set_results(interp, env, op, forwarded);
        }
        iterations += 1;
        if iterations > limit {
            return Err(format!(
                "ran more than {limit} iterations: an endless loop? (TB_MAX_BRANCHES raises the limit)"
            )
            .into());
        }
        carried = run_region(interp, env, after, forwarded)?;
    }
}

fn execute_region(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let region = *interp.ctx.op(op).regions.first().ok_or("has no region")?;
    let results = run_region(interp, env, region, Vec::new())?;
    set_results(interp, env, op, results)
}

fn index_switch(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let value = interp.index_arg(env, op, 0)?;
    let ctx = interp.ctx;
    let regions = ctx.op(op).regions.to_vec();
    let index = scf::switch_cases(ctx, op)
        .iter()
        .position(|&case| case == value)
        .map_or(0, |case| case + 1);
    let region = *regions.get(index).ok_or("has no region for its case")?;
    let results = run_region(interp, env, region, Vec::new())?;
    set_results(interp, env, op, results)
}

fn parallel(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let [lower, upper, step, inits] = scf::parallel_operands(ctx, op);
    let index_values = |vs: &[Value]| -> ExecResult<Vec<i64>> {
        values(env, vs)?
            .into_iter()
            .map(|v| match v {
                RtValue::Scalar(s) => Ok(s.as_int()),
                _ => Err(ExecError::from("has a bound that is not an index")),
            })
            .collect()
    };
    let (lower, upper, step) = (
        index_values(lower)?,
        index_values(upper)?,
        index_values(step)?,
    );
    let mut accumulators = values(env, inits)?;
    let region = *ctx.op(op).regions.first().ok_or("has no body")?;
    let reduce = ctx
        .entry_block(region)
        .and_then(|b| ctx.block(b).last)
        .filter(|&t| ctx.op_name(t) == scf::REDUCE)
        .ok_or("has no scf.reduce terminator")?;
    let reductions = ctx.op(reduce).regions.to_vec();
    if reductions.len() != accumulators.len() {
        return Err(format!(
            "has {} reductions for {} initial values",
            reductions.len(),
            accumulators.len()
        )
        .into());
    }
    let running = lower.iter().zip(&upper).all(|(lo, hi)| lo < hi);
    if running && step.iter().any(|&s| s <= 0) {
        return Err("has a non-positive step".into());
    }
    let mut ivs = lower.clone();
    let mut running = running && !ivs.is_empty();
    while running {
        let args = ivs
            .iter()
            .map(|&i| RtValue::Scalar(Scalar::Int(i)))
            .collect();
        let produced = run_region(interp, env, region, args)?;
        for (k, value) in produced.into_iter().enumerate() {
            let accumulated =
                std::mem::replace(&mut accumulators[k], RtValue::Scalar(Scalar::Int(0)));
            let mut combined = run_region(interp, env, reductions[k], vec![accumulated, value])?;
            accumulators[k] = combined.pop().ok_or("a reduction region gives no value")?;
        }
        // Advance the innermost dimension first.
        running = false;
        for d in (0..ivs.len()).rev() {
            ivs[d] += step[d];
            if ivs[d] < upper[d] {
                running = true;
                break;
            }
            ivs[d] = lower[d];
        }
    }
    set_results(interp, env, op, accumulators)
}
