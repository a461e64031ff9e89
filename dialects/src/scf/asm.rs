//! Custom syntax of the `scf` ops, as MLIR 22 prints them:
//!
//! ```mlir
//! %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) { ... }
//! scf.for unsigned %i = %lb to %ub step %s  : i32 { ... }
//! %v = scf.if %c -> (i32) { ... } else { ... }
//! %w:2 = scf.while (%a = %x) : (i32) -> (i64, f64) { ... } do { ^bb0(...): ... }
//! %e = scf.execute_region -> i64 { ... }
//! %s = scf.index_switch %i -> i32
//! case 2 { ... }
//! default { ... }
//! %p = scf.parallel (%i) = (%lb) to (%ub) step (%s) init (%zero) -> f32 { ... }
//! scf.reduce(%x : f32) { ^bb0(%lhs: f32, %rhs: f32): ... }
//! ```
//!
//! Regions of `scf.for`, `scf.if`, `scf.parallel` and `scf.index_switch` get their
//! terminator implicitly when they yield nothing (MLIR's `SingleBlockImplicitTerminator`).

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::operation::OperationState;
use tb_ir::parser::PResult;
use tb_ir::{OpId, RegionId, Signedness, Type, TypeKind, Value};

use super::{REDUCE, YIELD};

/// Appends a `terminator` op (no operands, at the location of the op being parsed, as in
/// MLIR) to the single block of `region` unless it already ends with a terminator,
/// creating the block when the region is empty.
fn ensure_terminator(p: &mut OpAsmParser, region: RegionId, terminator: &str) {
    let at = p.op_offset();
    let loc = p.location_at(at);
    let ctx = p.ctx();
    let block = match ctx.entry_block(region) {
        Some(block) => block,
        None => {
            let block = ctx.create_block();
            ctx.append_block(region, block);
            block
        }
    };
    // An unregistered op might be a terminator: leave such a block as it is, as MLIR does.
    let terminated = ctx.block(block).last.is_some_and(|last| {
        ctx.op_info_of(last)
            .is_none_or(|info| info.traits.terminator)
    });
    if terminated {
        return;
    }
    let name = ctx.intern_op_name(terminator);
    let op = ctx.create_op(OperationState {
        name,
        operands: vec![],
        result_types: vec![],
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc,
    });
    ctx.append_op(block, op);
}

fn parse_attr_dict(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    Ok(())
}

/// `(%a = %x, %b = %y)`: the region arguments and their initial values.
fn parse_assignment_list(
    p: &mut OpAsmParser,
) -> PResult<(Vec<UnresolvedOperand>, Vec<UnresolvedOperand>)> {
    p.parse_literal("(")?;
    let (mut args, mut inits) = (Vec::new(), Vec::new());
    if p.parse_optional_literal(")") {
        return Ok((args, inits));
    }
    loop {
        args.push(p.parse_operand()?);
        p.parse_literal("=")?;
        inits.push(p.parse_operand()?);
        if !p.parse_optional_literal(",") {
            break;
        }
    }
    p.parse_literal(")")?;
    Ok((args, inits))
}

fn print_assignment_list(p: &mut OpAsmPrinter, args: &[Value], inits: &[Value]) {
    p.print_str("(");
    for (i, (&arg, &init)) in args.iter().zip(inits).enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        p.print_value(arg);
        p.print_str(" = ");
        p.print_value(init);
    }
    p.print_str(")");
}

fn value_types(p: &OpAsmPrinter, values: &[Value]) -> Vec<Type> {
    values.iter().map(|&v| p.ctx().value_type(v)).collect()
}

fn result_types(p: &OpAsmPrinter, op: OpId) -> Vec<Type> {
    value_types(p, &p.ctx().op(op).results)
}

/// ` -> T` or ` -> (T, U)` when there are results (MLIR's optional arrow type list).
fn print_optional_arrow_types(p: &mut OpAsmPrinter, types: &[Type]) {
    if types.is_empty() {
        return;
    }
    p.print_str(" -> ");
    p.print_result_types(types);
}

// ---- scf.for ----

pub(crate) fn parse_for(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    if p.parse_optional_literal("unsigned") {
        let unit = p.ctx().unit_attr();
        state.add_attr("unsignedCmp", unit);
    }
    let iv = p.parse_operand()?;
    p.parse_literal("=")?;
    let lower = p.parse_operand()?;
    p.parse_literal("to")?;
    let upper = p.parse_operand()?;
    p.parse_literal("step")?;
    let step = p.parse_operand()?;
    let (mut args, mut inits, mut types) = (Vec::new(), Vec::new(), Vec::new());
    if p.parse_optional_literal("iter_args") {
        (args, inits) = parse_assignment_list(p)?;
        p.parse_literal("->")?;
        types = p.parse_function_result_types()?;
    }
    let iv_type = if p.parse_optional_literal(":") {
        p.parse_type()?
    } else {
        p.ctx().index_type()
    };
    for bound in [&lower, &upper, &step] {
        let value = p.resolve_operand(bound, iv_type)?;
        state.operands.push(value);
    }
    let at = p.offset();
    if args.len() != types.len() {
        let name_at = p.op_offset();
        return p.error_at(
            name_at,
            "mismatch in number of loop-carried values and defined values",
        );
    }
    let inits = p.resolve_operands(&inits, &types, at)?;
    state.operands.extend(inits);
    state.result_types = types.clone();
    let mut arguments = vec![p.region_argument(iv, iv_type)];
    arguments.extend(
        args.into_iter()
            .zip(&types)
            .map(|(arg, &ty)| p.region_argument(arg, ty)),
    );
    let region = p.new_region();
    p.parse_region(region, arguments)?;
    ensure_terminator(p, region, YIELD);
    state.regions.push(region);
    parse_attr_dict(p, state)
}

pub(crate) fn print_for(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    if super::for_is_unsigned(ctx, op) {
        p.print_str(" unsigned");
    }
    let Some((lower, upper, step)) = super::for_bounds(ctx, op) else {
        return;
    };
    let inits = super::for_inits(ctx, op).to_vec();
    let iter_args = super::for_iter_args(ctx, op);
    let iv = super::for_induction_var(ctx, op);
    p.print_str(" ");
    if let Some(iv) = iv {
        p.print_value(iv);
    }
    p.print_str(" = ");
    p.print_value(lower);
    p.print_str(" to ");
    p.print_value(upper);
    p.print_str(" step ");
    p.print_value(step);
    if !inits.is_empty() {
        p.print_str(" iter_args");
        print_assignment_list(p, &iter_args, &inits);
        p.print_str(" -> (");
        let types = value_types(p, &inits);
        p.print_types(&types);
        p.print_str(")");
    }
    p.print_str(" ");
    let iv_type = p.ctx().value_type(lower);
    if !matches!(p.ctx().type_kind(iv_type), TypeKind::Index) {
        p.print_str(" : ");
        p.print_type(iv_type);
        p.print_str(" ");
    }
    if let Some(&region) = p.ctx().op(op).regions.first() {
        print_body(p, region, !inits.is_empty());
    }
    p.print_optional_attr_dict(op, &["unsignedCmp"], false);
}

/// A single-block body without its entry arguments; its `scf.yield` is shown only when
/// `terminators` (the op yields values).
fn print_body(p: &mut OpAsmPrinter, region: RegionId, terminators: bool) {
    if terminators {
        p.print_region(region, false, false);
    } else {
        p.print_region_eliding_terminator(region, false, YIELD);
    }
}

// ---- scf.if ----

pub(crate) fn parse_if(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let condition = p.parse_operand()?;
    let i1 = p.ctx().integer_type(1, Signedness::Signless);
    let condition = p.resolve_operand(&condition, i1)?;
    state.operands.push(condition);
    if p.parse_optional_literal("->") {
        state.result_types = p.parse_function_result_types()?;
    }
    let then_region = p.new_region();
    p.parse_region(then_region, Vec::new())?;
    ensure_terminator(p, then_region, YIELD);
    let else_region = p.new_region();
    if p.parse_optional_literal("else") {
        p.parse_region(else_region, Vec::new())?;
        ensure_terminator(p, else_region, YIELD);
    }
    state.regions.extend([then_region, else_region]);
    parse_attr_dict(p, state)
}

pub(crate) fn print_if(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    let regions = data.regions.clone();
    let has_results = !data.results.is_empty();
    p.print_str(" ");
    if let Some(&condition) = data.operands.first() {
        p.print_value(condition);
    }
    if has_results {
        p.print_str(" -> (");
        let types = result_types(p, op);
        p.print_types(&types);
        p.print_str(")");
    }
    p.print_str(" ");
    if let Some(&then_region) = regions.first() {
        print_body(p, then_region, has_results);
    }
    if let Some(&else_region) = regions.get(1)
        && !p.ctx().region(else_region).blocks.is_empty()
    {
        p.print_str(" else ");
        print_body(p, else_region, has_results);
    }
    p.print_optional_attr_dict(op, &[], false);
}

// ---- scf.while ----

pub(crate) fn parse_while(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let (mut args, mut inits) = (Vec::new(), Vec::new());
    if p.peek_literal("(") {
        (args, inits) = parse_assignment_list(p)?;
    }
    p.parse_literal(":")?;
    let at = p.offset();
    let ty = p.parse_type()?;
    let TypeKind::Function { inputs, results } = p.ctx().type_kind(ty).clone() else {
        return p.error_at(at, "expected function type");
    };
    if inputs.len() != inits.len() {
        return p.error_at(
            at,
            format!(
                "expected as many input types as operands (expected {} got {})",
                inits.len(),
                inputs.len()
            ),
        );
    }
    state.operands = p.resolve_operands(&inits, &inputs, at)?;
    state.result_types = results;
    let arguments = args
        .into_iter()
        .zip(&inputs)
        .map(|(arg, &ty)| p.region_argument(arg, ty))
        .collect();
    let before = p.new_region();
    p.parse_region(before, arguments)?;
    p.parse_literal("do")?;
    let after = p.new_region();
    p.parse_region(after, Vec::new())?;
    state.regions.extend([before, after]);
    for (k, v) in p.parse_optional_attr_dict_with_keyword()? {
        state.add_attr(&k, v);
    }
    Ok(())
}

pub(crate) fn print_while(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    let inits = data.operands.to_vec();
    let regions = data.regions.clone();
    let (Some(&before), Some(&after)) = (regions.first(), regions.get(1)) else {
        return;
    };
    if !inits.is_empty() {
        let args = ctx
            .entry_block(before)
            .map(|b| ctx.block(b).args.to_vec())
            .unwrap_or_default();
        p.print_str(" ");
        print_assignment_list(p, &args, &inits);
    }
    p.print_str(" : ");
    let inputs = value_types(p, &inits);
    let results = result_types(p, op);
    p.print_functional_type(&inputs, &results);
    p.print_str(" ");
    p.print_region(before, false, false);
    p.print_str(" do ");
    p.print_region(after, true, false);
    p.print_optional_attr_dict(op, &[], true);
}

// ---- scf.execute_region ----

pub(crate) fn parse_execute_region(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    if p.parse_optional_literal("->") {
        state.result_types = p.parse_function_result_types()?;
    }
    if p.parse_optional_literal("no_inline") {
        let unit = p.ctx().unit_attr();
        state.add_attr("no_inline", unit);
    }
    let region = p.new_region();
    p.parse_region(region, Vec::new())?;
    state.regions.push(region);
    parse_attr_dict(p, state)
}

pub(crate) fn print_execute_region(p: &mut OpAsmPrinter, op: OpId) {
    let types = result_types(p, op);
    print_optional_arrow_types(p, &types);
    p.print_str(" ");
    if p.ctx().op_inherent_or_attr(op, "no_inline").is_some() {
        p.print_str("no_inline ");
    }
    if let Some(&region) = p.ctx().op(op).regions.first() {
        p.print_region(region, false, false);
    }
    p.print_optional_attr_dict(op, &["no_inline"], false);
}

// ---- scf.index_switch ----

pub(crate) fn parse_index_switch(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let arg = p.parse_operand()?;
    let index = p.ctx().index_type();
    let arg = p.resolve_operand(&arg, index)?;
    state.operands.push(arg);
    parse_attr_dict(p, state)?;
    if p.parse_optional_literal("->") {
        state.result_types = p.parse_type_list()?;
    }
    let mut cases = Vec::new();
    let mut case_regions = Vec::new();
    while p.parse_optional_literal("case") {
        let negative = p.parse_optional_literal("-");
        let value = p.parse_integer("case value")?;
        cases.push(if negative { -value } else { value });
        let region = p.new_region();
        p.parse_region(region, Vec::new())?;
        ensure_terminator(p, region, YIELD);
        case_regions.push(region);
    }
    p.parse_literal("default")?;
    let default = p.new_region();
    p.parse_region(default, Vec::new())?;
    ensure_terminator(p, default, YIELD);
    let i64_ty = p.ctx().i64();
    let cases = p.ctx().intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(cases),
    });
    state.add_attr("cases", cases);
    state.regions.push(default);
    state.regions.extend(case_regions);
    Ok(())
}

pub(crate) fn print_index_switch(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    let regions = data.regions.clone();
    let cases = super::switch_cases(ctx, op);
    p.print_str(" ");
    if let Some(&arg) = data.operands.first() {
        p.print_value(arg);
    }
    p.print_optional_attr_dict(op, &["cases"], false);
    let types = result_types(p, op);
    if !types.is_empty() {
        p.print_str(" -> ");
        p.print_types(&types);
    }
    p.print_str(" ");
    for (value, &region) in cases.iter().zip(regions.iter().skip(1)) {
        p.print_newline(0);
        p.print_str(&format!("case {value} "));
        p.print_region(region, false, false);
    }
    p.print_newline(0);
    p.print_str("default ");
    if let Some(&default) = regions.first() {
        p.print_region_eliding_terminator(default, false, YIELD);
    }
}

// ---- scf.parallel and scf.reduce ----

/// `(%a, %b)`: a parenthesized operand list, with `count` operands when given.
fn parse_paren_operands(
    p: &mut OpAsmParser,
    count: Option<usize>,
) -> PResult<Vec<UnresolvedOperand>> {
    p.parse_literal("(")?;
    let at = p.offset();
    let list = p.parse_operand_list()?;
    p.parse_literal(")")?;
    if let Some(count) = count
        && list.len() != count
    {
        return p.error_at(
            at,
            format!("custom op '{}' expected {count} operands", super::PARALLEL),
        );
    }
    Ok(list)
}

pub(crate) fn parse_parallel(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let ivs = parse_paren_operands(p, None)?;
    let rank = Some(ivs.len());
    p.parse_literal("=")?;
    let lower = parse_paren_operands(p, rank)?;
    p.parse_literal("to")?;
    let upper = parse_paren_operands(p, rank)?;
    p.parse_literal("step")?;
    let step = parse_paren_operands(p, rank)?;
    let mut inits = Vec::new();
    if p.parse_optional_literal("init") {
        inits = parse_paren_operands(p, None)?;
    }
    if p.parse_optional_literal("->") {
        state.result_types = p.parse_function_result_types()?;
    }
    let at = p.offset();
    let index = p.ctx().index_type();
    for list in [&lower, &upper, &step] {
        for operand in list {
            let value = p.resolve_operand(operand, index)?;
            state.operands.push(value);
        }
    }
    let types = state.result_types.clone();
    if inits.len() != types.len() {
        return p.error_at(
            at,
            format!(
                "'{}' number of operands and types do not match: got {} operands and {} types",
                super::PARALLEL,
                inits.len(),
                types.len()
            ),
        );
    }
    let inits = p.resolve_operands(&inits, &types, at)?;
    let sizes = [ivs.len(), ivs.len(), ivs.len(), inits.len()];
    state.operands.extend(inits);
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let sizes = p.ctx().intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    });
    state.add_attr("operandSegmentSizes", sizes);
    let arguments = ivs
        .into_iter()
        .map(|iv| p.region_argument(iv, index))
        .collect();
    let region = p.new_region();
    p.parse_region(region, arguments)?;
    ensure_terminator(p, region, REDUCE);
    state.regions.push(region);
    parse_attr_dict(p, state)
}

pub(crate) fn print_parallel(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let [lower, upper, step, inits] = super::parallel_operands(ctx, op).map(<[Value]>::to_vec);
    let Some(&region) = ctx.op(op).regions.first() else {
        return;
    };
    let ivs = ctx
        .entry_block(region)
        .map(|b| ctx.block(b).args.to_vec())
        .unwrap_or_default();
    for (prefix, values) in [
        (" (", &ivs),
        (") = (", &lower),
        (") to (", &upper),
        (") step (", &step),
    ] {
        p.print_str(prefix);
        p.print_values(values);
    }
    p.print_str(")");
    if !inits.is_empty() {
        p.print_str(" init (");
        p.print_values(&inits);
        p.print_str(")");
    }
    let types = result_types(p, op);
    print_optional_arrow_types(p, &types);
    p.print_str(" ");
    p.print_region(region, false, false);
    p.print_optional_attr_dict(op, &["operandSegmentSizes"], false);
}

pub(crate) fn parse_reduce(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    if p.parse_optional_literal("(") {
        let at = p.offset();
        let operands = p.parse_operand_list()?;
        p.parse_literal(":")?;
        let types = p.parse_type_list()?;
        p.parse_literal(")")?;
        state.operands = p.resolve_operands(&operands, &types, at)?;
    }
    loop {
        let region = p.new_region();
        if !p.parse_optional_region(region, Vec::new())? {
            break;
        }
        state.regions.push(region);
        if !p.parse_optional_literal(",") {
            break;
        }
    }
    parse_attr_dict(p, state)
}

pub(crate) fn print_reduce(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    let operands = data.operands.to_vec();
    let regions = data.regions.clone();
    if !operands.is_empty() {
        p.print_str("(");
        p.print_values(&operands);
        p.print_str(" : ");
        let types = value_types(p, &operands);
        p.print_types(&types);
        p.print_str(")");
    }
    p.print_str(" ");
    for (i, &region) in regions.iter().enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        p.print_region(region, true, false);
    }
    p.print_optional_attr_dict(op, &[], false);
}
