//! Verifiers of the `scf` ops, with MLIR's messages: loop bounds and loop-carried values
//! (MLIR's `LoopLikeOpInterface` checks), the values each region passes to its parent or
//! to the next region (`RegionBranchOpInterface`), terminators and parents.

use tb_ir::attributes::AttrKind;
use tb_ir::printer::type_to_string;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::value::ValueDef;
use tb_ir::{Context, Diagnostic, OpId, RegionId, Type, Value};

use super::{CONDITION, EXECUTE_REGION, FOR, IF, INDEX_SWITCH, PARALLEL, REDUCE, REDUCE_RETURN};
use super::{WHILE, YIELD, for_inits, for_iter_args, parallel_operands, switch_cases, yield_of};

fn op_error(ctx: &Context, op: OpId, message: impl AsRef<str>) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {}", ctx.op_name(op), message.as_ref()),
    )
}

fn quoted(ctx: &Context, ty: Type) -> String {
    format!("'{}'", type_to_string(ctx, ty))
}

fn types(ctx: &Context, values: &[Value]) -> Vec<Type> {
    values.iter().map(|&v| ctx.value_type(v)).collect()
}

/// The integer constant `value` is, if its producer is a constant.
pub(crate) fn constant_int(ctx: &Context, value: Value) -> Option<i128> {
    let ValueDef::Result { op, .. } = ctx.value(value).def else {
        return None;
    };
    match ctx.attr_kind(constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// The terminator of the single block of `region`, or MLIR's error for an empty block.
fn terminator(ctx: &Context, op: OpId, region: RegionId) -> Result<Option<OpId>, Diagnostic> {
    let Some(block) = ctx.entry_block(region) else {
        return Ok(None);
    };
    match ctx.block(block).last {
        Some(last) => Ok(Some(last)),
        None => Err(op_error(ctx, op, "expects a non-empty block")),
    }
}

/// Each single-block region of `op` ends with `expected` (MLIR's
/// `SingleBlockImplicitTerminator`).
fn check_implicit_terminators(ctx: &Context, op: OpId, expected: &str) -> Result<(), Diagnostic> {
    for &region in &ctx.op(op).regions {
        if let Some(last) = terminator(ctx, op, region)?
            && ctx.op_name(last) != expected
        {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "expects regions to end with '{expected}', found '{}'",
                    ctx.op_name(last)
                ),
            )
            .with_note(
                ctx.op(op).loc,
                format!("in custom textual format, the absence of terminator implies '{expected}'"),
            ));
        }
    }
    Ok(())
}

/// The values `terminator` passes along a control-flow edge must match the inputs of
/// its successor (`to`: "parent" or "Region #N"), as MLIR's `RegionBranchOpInterface`
/// verifies.
fn check_edge(
    ctx: &Context,
    op: OpId,
    terminator: OpId,
    operands: &[Value],
    to: &str,
    inputs: &[Type],
) -> Result<(), Diagnostic> {
    let from = ctx.op_name(terminator);
    let note = |d: Diagnostic| d.with_note(ctx.op(terminator).loc, "region branch point");
    if operands.len() != inputs.len() {
        return Err(note(op_error(
            ctx,
            op,
            format!(
                "along control flow edge from Operation {from} to {to}: region branch point has {} operands, but region successor needs {} inputs",
                operands.len(),
                inputs.len()
            ),
        )));
    }
    for (i, (&value, &input)) in operands.iter().zip(inputs).enumerate() {
        let ty = ctx.value_type(value);
        if ty != input {
            return Err(note(op_error(
                ctx,
                op,
                format!(
                    "along control flow edge from Operation {from} to {to}: successor operand type #{i} {} should match successor input type #{i} {}",
                    quoted(ctx, ty),
                    quoted(ctx, input)
                ),
            )));
        }
    }
    Ok(())
}

fn result_types(ctx: &Context, op: OpId) -> Vec<Type> {
    types(ctx, &ctx.op(op).results)
}

pub(crate) fn for_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let Some(&region) = data.regions.first() else {
        return Ok(());
    };
    let Some(block) = ctx.entry_block(region) else {
        return Err(op_error(ctx, op, "expects a non-empty body"));
    };
    let Some(&iv) = ctx.block(block).args.first() else {
        return Err(op_error(
            ctx,
            op,
            "expected body to have an argument for the induction variable",
        ));
    };
    if ctx.value_type(iv) != ctx.value_type(data.operands[0]) {
        return Err(op_error(
            ctx,
            op,
            "expected induction variable to be same type as bounds",
        ));
    }
    let inits = for_inits(ctx, op);
    let iter_args = for_iter_args(ctx, op);
    if iter_args.len() != data.results.len() && inits.len() == iter_args.len() {
        return Err(op_error(
            ctx,
            op,
            "mismatch in number of loop-carried values and defined values",
        ));
    }
    check_implicit_terminators(ctx, op, YIELD)?;
    let yielded = yield_of(ctx, region)
        .map(|t| ctx.op(t).operands.to_vec())
        .unwrap_or_default();
    check_loop_carried(ctx, op, inits, &iter_args, &yielded, &data.results)
}

/// MLIR's `LoopLikeOpInterface` checks: inits, body arguments, yielded values and results
/// agree in number and type.
fn check_loop_carried(
    ctx: &Context,
    op: OpId,
    inits: &[Value],
    iter_args: &[Value],
    yielded: &[Value],
    results: &[Value],
) -> Result<(), Diagnostic> {
    let n = iter_args.len();
    if inits.len() != n {
        return Err(op_error(
            ctx,
            op,
            format!(
                "different number of inits and region iter_args: {} != {n}",
                inits.len()
            ),
        ));
    }
    if yielded.len() != n {
        return Err(op_error(
            ctx,
            op,
            format!(
                "different number of region iter_args and yielded values: {n} != {}",
                yielded.len()
            ),
        ));
    }
    if results.len() != n {
        return Err(op_error(
            ctx,
            op,
            format!(
                "different number of loop results and region iter_args: {} != {n}",
                results.len()
            ),
        ));
    }
    for (what, values) in [
        ("init", inits),
        ("yielded value", yielded),
        ("loop result", results),
    ] {
        for (i, (&arg, &value)) in iter_args.iter().zip(values).enumerate() {
            let (arg_ty, value_ty) = (ctx.value_type(arg), ctx.value_type(value));
            if arg_ty == value_ty {
                continue;
            }
            let message = if what == "init" {
                format!(
                    "{i}-th init and {i}-th region iter_arg have different type: {} != {}",
                    quoted(ctx, value_ty),
                    quoted(ctx, arg_ty)
                )
            } else {
                format!(
                    "{i}-th region iter_arg and {i}-th {what} have different type: {} != {}",
                    quoted(ctx, arg_ty),
                    quoted(ctx, value_ty)
                )
            };
            return Err(op_error(ctx, op, message));
        }
    }
    Ok(())
}

fn check_no_arguments(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    for (i, &region) in ctx.op(op).regions.iter().enumerate() {
        if let Some(block) = ctx.entry_block(region)
            && !ctx.block(block).args.is_empty()
        {
            return Err(op_error(
                ctx,
                op,
                format!("region #{i} should have no arguments"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn if_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    check_no_arguments(ctx, op)?;
    let data = ctx.op(op);
    if !data.results.is_empty()
        && data
            .regions
            .get(1)
            .is_some_and(|&r| ctx.region(r).blocks.is_empty())
    {
        return Err(op_error(
            ctx,
            op,
            "must have an else block if defining values",
        ));
    }
    check_implicit_terminators(ctx, op, YIELD)?;
    let results = result_types(ctx, op);
    for &region in &data.regions {
        if let Some(term) = yield_of(ctx, region) {
            check_edge(ctx, op, term, &ctx.op(term).operands, "parent", &results)?;
        }
    }
    Ok(())
}

pub(crate) fn yield_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let parent = ctx.parent_op(op).map(|p| ctx.op_name(p));
    if matches!(
        parent,
        Some(EXECUTE_REGION | FOR | IF | INDEX_SWITCH | WHILE)
    ) {
        return Ok(());
    }
    Err(op_error(
        ctx,
        op,
        "expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'",
    ))
}

fn require_parent(ctx: &Context, op: OpId, parent: &str) -> Result<(), Diagnostic> {
    if ctx.parent_op(op).is_some_and(|p| ctx.op_name(p) == parent) {
        return Ok(());
    }
    Err(op_error(ctx, op, format!("expects parent op '{parent}'")))
}

pub(crate) fn condition(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    require_parent(ctx, op, WHILE)
}

pub(crate) fn while_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let [before, after] = data.regions[..] else {
        return Ok(());
    };
    for (i, (region, name)) in [(before, "before"), (after, "after")]
        .into_iter()
        .enumerate()
    {
        if ctx.region(region).blocks.len() != 1 {
            return Err(op_error(
                ctx,
                op,
                format!("region #{i} ('{name}') failed to verify constraint: region with 1 blocks"),
            ));
        }
    }
    let mut terminators = Vec::new();
    for (region, name, expected) in [(before, "before", CONDITION), (after, "after", YIELD)] {
        let Some(last) = terminator(ctx, op, region)? else {
            return Ok(());
        };
        if ctx.op_name(last) != expected {
            return Err(op_error(
                ctx,
                op,
                format!("expects the '{name}' region to terminate with '{expected}'"),
            )
            .with_note(ctx.op(last).loc, "terminator here"));
        }
        terminators.push(last);
    }
    let block_types = |region| {
        ctx.entry_block(region)
            .map(|b| types(ctx, &ctx.block(b).args))
            .unwrap_or_default()
    };
    // Entry: the inits become the 'before' arguments.
    let inits = types(ctx, &data.operands);
    if inits != block_types(before) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects the types of the inits to match the 'before' region arguments: {} vs {}",
                inits.len(),
                block_types(before).len()
            ),
        ));
    }
    let condition = terminators[0];
    let forwarded = ctx.op(condition).operands[1..].to_vec();
    check_edge(
        ctx,
        op,
        condition,
        &forwarded,
        "Region #1",
        &block_types(after),
    )?;
    check_edge(
        ctx,
        op,
        condition,
        &forwarded,
        "parent",
        &result_types(ctx, op),
    )?;
    let yielded = ctx.op(terminators[1]).operands.to_vec();
    check_edge(
        ctx,
        op,
        terminators[1],
        &yielded,
        "Region #0",
        &block_types(before),
    )
}

pub(crate) fn execute_region(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(&region) = ctx.op(op).regions.first() else {
        return Ok(());
    };
    let Some(block) = ctx.entry_block(region) else {
        return Err(op_error(ctx, op, "region needs to have at least one block"));
    };
    if !ctx.block(block).args.is_empty() {
        return Err(op_error(ctx, op, "region cannot have any arguments"));
    }
    let results = result_types(ctx, op);
    for &block in &ctx.region(region).blocks {
        if let Some(last) = ctx.block(block).last
            && ctx.op_name(last) == YIELD
        {
            check_edge(ctx, op, last, &ctx.op(last).operands, "parent", &results)?;
        }
    }
    Ok(())
}

pub(crate) fn index_switch(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let cases = switch_cases(ctx, op);
    let case_regions = data.regions.len().saturating_sub(1);
    if cases.len() != case_regions {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {case_regions} case regions but {} case values",
                cases.len()
            ),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for &value in &cases {
        if !seen.insert(value) {
            return Err(op_error(
                ctx,
                op,
                format!("has duplicate case value: {value}"),
            ));
        }
    }
    let results = result_types(ctx, op);
    for (i, &region) in data.regions.iter().enumerate() {
        let name = if i == 0 {
            "default region".to_string()
        } else {
            format!("case region #{}", i - 1)
        };
        let Some(last) = terminator(ctx, op, region)? else {
            continue;
        };
        if ctx.op_name(last) != YIELD {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "expected region to end with scf.yield, but got {}",
                    ctx.op_name(last)
                ),
            ));
        }
        let yielded = types(ctx, &ctx.op(last).operands);
        if yielded.len() != results.len() {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "expected each region to return {} values, but {name} returns {}",
                    results.len(),
                    yielded.len()
                ),
            )
            .with_note(ctx.op(last).loc, "see yield operation here"));
        }
        for (k, (&got, &want)) in yielded.iter().zip(&results).enumerate() {
            if got != want {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "expected result #{k} of each region to be {}",
                        quoted(ctx, want)
                    ),
                )
                .with_note(
                    ctx.op(last).loc,
                    format!("{name} returns {} here", quoted(ctx, got)),
                ));
            }
        }
    }
    Ok(())
}

pub(crate) fn parallel(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let [lower, upper, step, inits] = parallel_operands(ctx, op);
    let rank = step.len();
    if rank == 0 {
        return Err(op_error(
            ctx,
            op,
            "needs at least one tuple element for lowerBound, upperBound and step",
        ));
    }
    if lower.len() != rank || upper.len() != rank {
        return Err(op_error(
            ctx,
            op,
            "expects the same number of lower bounds, upper bounds and steps",
        ));
    }
    for &s in step {
        if constant_int(ctx, s).is_some_and(|s| s <= 0) {
            return Err(op_error(ctx, op, "constant step operand must be positive"));
        }
    }
    let Some(&region) = ctx.op(op).regions.first() else {
        return Ok(());
    };
    let Some(block) = ctx.entry_block(region) else {
        return Err(op_error(ctx, op, "expects a non-empty body"));
    };
    let ivs = &ctx.block(block).args;
    if ivs.len() != rank {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects the same number of induction variables: {} as bound and step values: {rank}",
                ivs.len()
            ),
        ));
    }
    if ivs
        .iter()
        .any(|&iv| !matches!(ctx.type_kind(ctx.value_type(iv)), tb_ir::TypeKind::Index))
    {
        return Err(op_error(
            ctx,
            op,
            "expects arguments for the induction variable to be of index type",
        ));
    }
    let Some(last) = ctx.block(block).last else {
        return Err(op_error(ctx, op, "expects a non-empty block"));
    };
    if ctx.op_name(last) != REDUCE {
        return Err(
            op_error(ctx, op, "expects body to terminate with 'scf.reduce'")
                .with_note(ctx.op(last).loc, "terminator here"),
        );
    }
    // The terminator's own count check comes first, as MLIR verifies it before the loop.
    reduce_regions_match_operands(ctx, last)?;
    let reductions = ctx.op(last).operands.len();
    let results = result_types(ctx, op);
    if results.len() != reductions {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects number of results: {} to be the same as number of reductions: {reductions}",
                results.len()
            ),
        ));
    }
    if inits.len() != results.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects number of initial values: {} to be the same as number of results: {}",
                inits.len(),
                results.len()
            ),
        ));
    }
    for (i, (&operand, &result)) in ctx.op(last).operands.iter().zip(&results).enumerate() {
        let ty = ctx.value_type(operand);
        if ty != result {
            return Err(Diagnostic::error(
                ctx.op(last).loc,
                format!(
                    "'{}' op expects type of {i}-th reduction operand: {} to be the same as the {i}-th result type: {}",
                    REDUCE,
                    quoted(ctx, ty),
                    quoted(ctx, result)
                ),
            ));
        }
    }
    for (i, (&init, &result)) in inits.iter().zip(&results).enumerate() {
        if ctx.value_type(init) != result {
            return Err(op_error(
                ctx,
                op,
                format!("expects the {i}-th initial value to have the type of the {i}-th result"),
            ));
        }
    }
    Ok(())
}

fn reduce_regions_match_operands(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    if data.regions.len() != data.operands.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects number of reduction regions: {} to be the same as number of reduction operands: {}",
                data.regions.len(),
                data.operands.len()
            ),
        ));
    }
    Ok(())
}

pub(crate) fn reduce(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    require_parent(ctx, op, PARALLEL)?;
    reduce_regions_match_operands(ctx, op)?;
    let data = ctx.op(op);
    for (i, (&region, &operand)) in data.regions.iter().zip(&data.operands).enumerate() {
        let ty = ctx.value_type(operand);
        let Some(block) = ctx.entry_block(region) else {
            continue;
        };
        let args = types(ctx, &ctx.block(block).args);
        if args != [ty, ty] {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "expected two block arguments with type {} in the {i}-th reduction region",
                    quoted(ctx, ty)
                ),
            ));
        }
        match ctx.block(block).last {
            None => {
                return Err(Diagnostic::error(
                    data.loc,
                    "empty block: expect at least a terminator",
                ));
            }
            Some(last) if ctx.op_name(last) != REDUCE_RETURN => {
                return Err(op_error(
                    ctx,
                    op,
                    "reduction bodies must be terminated with an 'scf.reduce.return' op",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

pub(crate) fn reduce_return(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    require_parent(ctx, op, REDUCE)?;
    let Some(reduce) = ctx.parent_op(op) else {
        return Ok(());
    };
    let region = ctx.op(op).parent.and_then(|b| ctx.block(b).parent);
    let index = ctx
        .op(reduce)
        .regions
        .iter()
        .position(|&r| Some(r) == region);
    let (Some(index), Some(&value)) = (index, ctx.op(op).operands.first()) else {
        return Ok(());
    };
    let Some(&operand) = ctx.op(reduce).operands.get(index) else {
        return Ok(());
    };
    let expected = ctx.value_type(operand);
    if ctx.value_type(value) != expected {
        return Err(op_error(
            ctx,
            op,
            format!(
                "must have type {} (the type of the reduction inputs)",
                quoted(ctx, expected)
            ),
        ));
    }
    Ok(())
}
