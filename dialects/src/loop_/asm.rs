//! Custom syntax of the `loop` ops.
//!
//! - `loop.alloc(%n) : memref<?x8xf32>` (an `{alignment = 128}` dictionary before `:`
//!   when not the default 64)
//! - `loop.for %i = <lb> to <ub> (step N)? (iter_args(%acc = %init, ...) -> (T, ...))?
//!   (unroll = U)? (vectorize = W)? (parallel)? { }`, the iter_args spelled as `scf.for`
//!   spells them; a body that carries values ends with an explicit `loop.yield %v : T`
//! - `loop.parallel (%i, %j) = (<lb>, <lb>) to (<ub>, <ub>) (step (N, M))? ... { }`
//!
//!   where a bound is an integer, an index value `%v`, or a map applied to index values,
//!   `#map(%dims)[%symbols]` / `affine_map<...>(...)`, with `max` (lower) or `min`
//!   (upper) before a map of several results. Bodies end with an implicit `loop.yield`.
//! - `loop.load %m[%i, %j] : memref<4x8xf32>` with the identity map, or
//!   `loop.load %m[(d0, d1) -> (d0 + 1, d1)](%i, %j) : memref<4x8xf32>`;
//!   `loop.store %v, %m[...] : memref<...>`; the vector forms add `, vector<8xf32>`. The
//!   scalars and vector elements are signless for integer memrefs (`memref<8xui8>` loads
//!   `i8`), as in `te` bodies.

use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::lexer::TokenKind;
use tb_ir::ods::operand_group;
use tb_ir::operation::OperationState;
use tb_ir::parser::PResult;
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, OpId, RegionId, Type, TypeKind, Value};

use super::YIELD;

fn segment_sizes(p: &mut OpAsmParser, sizes: &[usize]) -> Attr {
    let i32_ty = p.ctx().integer_type(32, tb_ir::Signedness::Signless);
    p.ctx().intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    })
}

fn resolve_indices(p: &mut OpAsmParser, operands: &[UnresolvedOperand]) -> PResult<Vec<Value>> {
    let index = p.ctx().index_type();
    operands
        .iter()
        .map(|o| p.resolve_operand(o, index))
        .collect()
}

// ---- alloc ----

pub(crate) fn parse_alloc(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    p.parse_literal("(")?;
    let sizes = p.parse_operand_list()?;
    p.parse_literal(")")?;
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let ty = p.parse_type()?;
    state.operands = resolve_indices(p, &sizes)?;
    state.result_types = vec![ty];
    Ok(())
}

pub(crate) fn print_alloc(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str("(");
    p.print_values(&data.operands);
    p.print_str(")");
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    p.print_type(ctx.value_type(data.results[0]));
}

// ---- loop bounds ----

struct ParsedBound {
    map: AffineMap,
    operands: Vec<UnresolvedOperand>,
}

/// `()[s0] -> (s0)`: the map of a bound written as a bare value.
fn value_map() -> AffineMap {
    AffineMap::new(0, 1, vec![AffineExpr::symbol(0)])
}

fn parse_bound(p: &mut OpAsmParser, keyword: &str) -> PResult<ParsedBound> {
    if p.peek_is(TokenKind::Integer) || p.peek_is(TokenKind::Minus) {
        let at = p.offset();
        let value = p.parse_integer("integer bound")?;
        let Ok(value) = i64::try_from(value) else {
            return p.error_at(at, "loop bound out of range");
        };
        return Ok(ParsedBound {
            map: AffineMap::constant(value),
            operands: Vec::new(),
        });
    }
    if p.peek_operand() {
        return Ok(ParsedBound {
            map: value_map(),
            operands: vec![p.parse_operand()?],
        });
    }
    let explicit = p.parse_optional_literal(keyword);
    let at = p.offset();
    let map = p.parse_affine_map()?;
    let mut operands = Vec::new();
    let mut dims = 0;
    if p.parse_optional_literal("(") {
        operands = p.parse_operand_list()?;
        dims = operands.len();
        p.parse_literal(")")?;
    }
    let mut symbols = 0;
    if p.parse_optional_literal("[") {
        let list = p.parse_operand_list()?;
        symbols = list.len();
        operands.extend(list);
        p.parse_literal("]")?;
    }
    if dims != map.num_dims as usize || symbols != map.num_symbols as usize {
        return p.error_at(
            at,
            format!(
                "bound map takes {} dims and {} symbols, but {dims} and {symbols} are given",
                map.num_dims, map.num_symbols
            ),
        );
    }
    if map.num_results() == 0 {
        return p.error_at(at, "bound map must have at least one result");
    }
    if map.num_results() > 1 && !explicit {
        return p.error_at(
            at,
            format!("expected '{keyword}' before a bound map with several results"),
        );
    }
    Ok(ParsedBound { map, operands })
}

fn print_bound(p: &mut OpAsmPrinter, map_attr: Attr, operands: &[Value], keyword: &str) {
    let ctx = p.ctx();
    let AttrKind::AffineMap(map) = ctx.attr_kind(map_attr) else {
        p.print_attr(map_attr);
        return;
    };
    if operands.is_empty()
        && map.num_inputs() == 0
        && let [only] = map.results.as_slice()
        && let Some(c) = only.as_constant()
    {
        p.print_str(&c.to_string());
        return;
    }
    if *map == value_map() && operands.len() == 1 {
        p.print_value(operands[0]);
        return;
    }
    if map.num_results() > 1 {
        p.print_str(keyword);
        p.print_str(" ");
    }
    let dims = (map.num_dims as usize).min(operands.len());
    p.print_attr(map_attr);
    p.print_str("(");
    p.print_values(&operands[..dims]);
    p.print_str(")");
    if map.num_symbols > 0 {
        p.print_str("[");
        p.print_values(&operands[dims..]);
        p.print_str("]");
    }
}

/// `unroll = U`, `vectorize = W` and (for `loop.for`) `parallel`, in any order.
fn parse_schedule(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    allow_parallel: bool,
) -> PResult<()> {
    loop {
        let mut factor = |p: &mut OpAsmParser, name: &str| -> PResult<()> {
            p.parse_literal("=")?;
            let at = p.offset();
            let value = p.parse_integer("factor")?;
            let Ok(value) = i64::try_from(value) else {
                return p.error_at(at, "factor out of range");
            };
            let i64_ty = p.ctx().i64();
            let attr = p.ctx().integer_attr(value as i128, i64_ty);
            state.add_attr(name, attr);
            Ok(())
        };
        if p.parse_optional_literal("unroll") {
            factor(p, "unroll")?;
        } else if p.parse_optional_literal("vectorize") {
            factor(p, "vectorize")?;
        } else if allow_parallel && p.parse_optional_literal("parallel") {
            let unit = p.ctx().unit_attr();
            state.add_attr("parallel", unit);
        } else {
            return Ok(());
        }
    }
}

fn print_schedule(p: &mut OpAsmPrinter, op: OpId) {
    if let Some(u) = super::unroll_factor(p.ctx(), op) {
        p.print_str(&format!(" unroll = {u}"));
    }
    if let Some(w) = super::vector_width(p.ctx(), op) {
        p.print_str(&format!(" vectorize = {w}"));
    }
    if p.ctx().op_name(op) == super::FOR && p.ctx().op_inherent_or_attr(op, "parallel").is_some() {
        p.print_str(" parallel");
    }
}

const SCHEDULE: &[&str] = &["unroll", "vectorize", "parallel"];

/// Parses a loop body whose arguments are the induction variables `ivs` and then
/// `carried` (the iter_args with their types), and appends the implicit `loop.yield` when
/// it does not end in one.
fn parse_body(
    p: &mut OpAsmParser,
    ivs: Vec<UnresolvedOperand>,
    carried: Vec<(UnresolvedOperand, Type)>,
) -> PResult<RegionId> {
    let index = p.ctx().index_type();
    let mut arguments: Vec<_> = ivs
        .into_iter()
        .map(|v| p.region_argument(v, index))
        .collect();
    arguments.extend(carried.into_iter().map(|(v, ty)| p.region_argument(v, ty)));
    let region = p.new_region();
    let at = p.offset();
    p.parse_region(region, arguments)?;
    let loc = p.location_at(at);
    let ctx = p.ctx();
    let Some(block) = ctx.entry_block(region) else {
        return Ok(region);
    };
    let ends_in_yield = ctx
        .block(block)
        .last
        .is_some_and(|last| ctx.op_name(last) == YIELD);
    if !ends_in_yield {
        let name = ctx.intern_op_name(YIELD);
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
    Ok(region)
}

fn parse_trailing_attrs(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    for (k, v) in p.parse_optional_attr_dict_with_keyword()? {
        state.add_attr(&k, v);
    }
    Ok(())
}

pub(crate) fn parse_for(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let iv = p.parse_operand()?;
    p.parse_literal("=")?;
    let lower = parse_bound(p, "max")?;
    p.parse_literal("to")?;
    let upper = parse_bound(p, "min")?;
    if p.parse_optional_literal("step") {
        let at = p.offset();
        let step = p.parse_integer("step")?;
        let Ok(step) = i64::try_from(step) else {
            return p.error_at(at, "step out of range");
        };
        let i64_ty = p.ctx().i64();
        let attr = p.ctx().integer_attr(step as i128, i64_ty);
        state.add_attr("step", attr);
    }
    let (carried, inits) = parse_iter_args(p)?;
    parse_schedule(p, state, true)?;
    parse_trailing_attrs(p, state)?;
    let lower_map = p.ctx().intern_attr(AttrKind::AffineMap(lower.map));
    let upper_map = p.ctx().intern_attr(AttrKind::AffineMap(upper.map));
    state.add_attr("lower_bound", lower_map);
    state.add_attr("upper_bound", upper_map);
    let sizes = segment_sizes(
        p,
        &[lower.operands.len(), upper.operands.len(), inits.len()],
    );
    state.add_attr("operandSegmentSizes", sizes);
    state.operands = resolve_indices(p, &lower.operands)?;
    let uppers = resolve_indices(p, &upper.operands)?;
    state.operands.extend(uppers);
    state.operands.extend(inits);
    state.result_types = carried.iter().map(|&(_, ty)| ty).collect();
    let region = parse_body(p, vec![iv], carried)?;
    state.regions.push(region);
    Ok(())
}

/// `iter_args(%acc = %init, ...) -> (T, ...)` if present: the body arguments with their
/// types, and the resolved initial values.
#[allow(clippy::type_complexity)]
fn parse_iter_args(p: &mut OpAsmParser) -> PResult<(Vec<(UnresolvedOperand, Type)>, Vec<Value>)> {
    if !p.parse_optional_literal("iter_args") {
        return Ok((Vec::new(), Vec::new()));
    }
    p.parse_literal("(")?;
    let mut pairs = Vec::new();
    loop {
        let arg = p.parse_operand()?;
        p.parse_literal("=")?;
        let init = p.parse_operand()?;
        pairs.push((arg, init));
        if !p.parse_optional_literal(",") {
            break;
        }
    }
    p.parse_literal(")")?;
    p.parse_literal("->")?;
    let at = p.offset();
    let types = p.parse_function_result_types()?;
    if types.len() != pairs.len() {
        return p.error_at(
            at,
            format!(
                "mismatch in number of loop-carried values ({}) and result types ({})",
                pairs.len(),
                types.len()
            ),
        );
    }
    let mut carried = Vec::with_capacity(pairs.len());
    let mut inits = Vec::with_capacity(pairs.len());
    for ((arg, init), ty) in pairs.into_iter().zip(types) {
        inits.push(p.resolve_operand(&init, ty)?);
        carried.push((arg, ty));
    }
    Ok((carried, inits))
}

fn print_iter_args(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let inits = super::inits(ctx, op).to_vec();
    let args = super::iter_args(ctx, op);
    if inits.is_empty() && args.is_empty() {
        return;
    }
    p.print_str(" iter_args(");
    for (i, (&arg, &init)) in args.iter().zip(&inits).enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        p.print_value(arg);
        p.print_str(" = ");
        p.print_value(init);
    }
    p.print_str(") -> (");
    let types: Vec<Type> = ctx
        .op(op)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    p.print_types(&types);
    p.print_str(")");
}

pub(crate) fn print_for(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" ");
    if let Some(&iv) = super::induction_vars(ctx, op).first() {
        p.print_value(iv);
    }
    p.print_str(" = ");
    let lower_operands = operand_group(ctx, op, 0).to_vec();
    let upper_operands = operand_group(ctx, op, 1).to_vec();
    if let Some(lb) = ctx.op_inherent_or_attr(op, "lower_bound") {
        print_bound(p, lb, &lower_operands, "max");
    }
    p.print_str(" to ");
    if let Some(ub) = ctx.op_inherent_or_attr(op, "upper_bound") {
        print_bound(p, ub, &upper_operands, "min");
    }
    let step = super::i64_attr(ctx, op, "step").unwrap_or(1);
    if step != 1 {
        p.print_str(&format!(" step {step}"));
    }
    print_iter_args(p, op);
    print_schedule(p, op);
    let mut elided = vec!["lower_bound", "upper_bound", "step"];
    elided.extend(SCHEDULE);
    p.print_optional_attr_dict(op, &elided, true);
    if let Some(&region) = data.regions.first() {
        p.print_str(" ");
        p.print_region_eliding_terminator(region, false, YIELD);
    }
}

pub(crate) fn parse_parallel(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    p.parse_literal("(")?;
    let at = p.offset();
    let ivs = p.parse_operand_list()?;
    p.parse_literal(")")?;
    p.parse_literal("=")?;
    let bounds = |p: &mut OpAsmParser, keyword: &str| -> PResult<Vec<ParsedBound>> {
        p.parse_literal("(")?;
        let mut list = Vec::new();
        if !p.parse_optional_literal(")") {
            loop {
                list.push(parse_bound(p, keyword)?);
                if !p.parse_optional_literal(",") {
                    break;
                }
            }
            p.parse_literal(")")?;
        }
        Ok(list)
    };
    let lowers = bounds(p, "max")?;
    p.parse_literal("to")?;
    let uppers = bounds(p, "min")?;
    let mut steps = vec![1i128; ivs.len()];
    if p.parse_optional_literal("step") {
        p.parse_literal("(")?;
        steps.clear();
        loop {
            steps.push(p.parse_integer("step")?);
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal(")")?;
    }
    if lowers.len() != ivs.len() || uppers.len() != ivs.len() || steps.len() != ivs.len() {
        return p.error_at(
            at,
            format!(
                "{} induction variables, but {} lower bounds, {} upper bounds and {} steps",
                ivs.len(),
                lowers.len(),
                uppers.len(),
                steps.len()
            ),
        );
    }
    parse_schedule(p, state, false)?;
    parse_trailing_attrs(p, state)?;
    let mut operands = Vec::new();
    let mut sizes = [0usize; 2];
    for (i, list) in [lowers, uppers].into_iter().enumerate() {
        let mut maps = Vec::new();
        for bound in list {
            sizes[i] += bound.operands.len();
            operands.extend(resolve_indices(p, &bound.operands)?);
            maps.push(p.ctx().intern_attr(AttrKind::AffineMap(bound.map)));
        }
        let array = p.ctx().intern_attr(AttrKind::Array(maps));
        state.add_attr(
            if i == 0 {
                "lower_bounds"
            } else {
                "upper_bounds"
            },
            array,
        );
    }
    let i64_ty = p.ctx().i64();
    let steps_attr = p.ctx().intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(steps),
    });
    state.add_attr("steps", steps_attr);
    let sizes = segment_sizes(p, &sizes);
    state.add_attr("operandSegmentSizes", sizes);
    state.operands = operands;
    let region = parse_body(p, ivs, Vec::new())?;
    state.regions.push(region);
    Ok(())
}

pub(crate) fn print_parallel(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" (");
    p.print_values(&super::induction_vars(ctx, op));
    p.print_str(") = ");
    let maps = |name: &str| -> Vec<Attr> {
        match ctx.op_inherent_or_attr(op, name).map(|a| ctx.attr_kind(a)) {
            Some(AttrKind::Array(items)) => items.clone(),
            _ => Vec::new(),
        }
    };
    for (group, (name, keyword)) in [("lower_bounds", "max"), ("upper_bounds", "min")]
        .into_iter()
        .enumerate()
    {
        if group == 1 {
            p.print_str(" to ");
        }
        let mut operands = operand_group(ctx, op, group);
        p.print_str("(");
        for (i, map) in maps(name).into_iter().enumerate() {
            if i > 0 {
                p.print_str(", ");
            }
            let n = match ctx.attr_kind(map) {
                AttrKind::AffineMap(m) => (m.num_inputs() as usize).min(operands.len()),
                _ => 0,
            };
            print_bound(p, map, &operands[..n], keyword);
            operands = &operands[n..];
        }
        p.print_str(")");
    }
    let steps = super::loop_dims(ctx, op)
        .map(|dims| dims.iter().map(|d| d.step).collect::<Vec<_>>())
        .unwrap_or_default();
    if steps.iter().any(|&s| s != 1) {
        let text: Vec<String> = steps.iter().map(i64::to_string).collect();
        p.print_str(&format!(" step ({})", text.join(", ")));
    }
    print_schedule(p, op);
    let mut elided = vec!["lower_bounds", "upper_bounds"];
    if !steps.is_empty() {
        elided.push("steps");
    }
    elided.extend(SCHEDULE);
    p.print_optional_attr_dict(op, &elided, true);
    if let Some(&region) = data.regions.first() {
        p.print_str(" ");
        p.print_region_eliding_terminator(region, false, YIELD);
    }
}

// ---- loads and stores ----

/// `[%i, %j]` (identity map) or `[map](%dims)[%symbols]`.
fn parse_access(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<Vec<UnresolvedOperand>> {
    p.parse_literal("[")?;
    let (map, operands) = if p.peek_operand() || p.peek_literal("]") {
        let operands = p.parse_operand_list()?;
        p.parse_literal("]")?;
        (AffineMap::identity(operands.len() as u32), operands)
    } else {
        let map = p.parse_affine_map()?;
        p.parse_literal("]")?;
        let mut operands = Vec::new();
        if p.parse_optional_literal("(") {
            operands = p.parse_operand_list()?;
            p.parse_literal(")")?;
        }
        if p.parse_optional_literal("[") {
            operands.extend(p.parse_operand_list()?);
            p.parse_literal("]")?;
        }
        (map, operands)
    };
    let attr = p.ctx().intern_attr(AttrKind::AffineMap(map));
    state.add_attr("map", attr);
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    Ok(operands)
}

fn print_access(p: &mut OpAsmPrinter, op: OpId, memref: Value, indices: &[Value]) {
    let ctx = p.ctx();
    p.print_value(memref);
    p.print_str("[");
    match super::access_map(ctx, op) {
        Some(map) if map == AffineMap::identity(indices.len() as u32) => {
            p.print_values(indices);
            p.print_str("]");
        }
        Some(map) => {
            p.print_str(&map.to_string());
            p.print_str("](");
            let dims = (map.num_dims as usize).min(indices.len());
            p.print_values(&indices[..dims]);
            p.print_str(")");
            if map.num_symbols > 0 {
                p.print_str("[");
                p.print_values(&indices[dims..]);
                p.print_str("]");
            }
        }
        None => {
            p.print_values(indices);
            p.print_str("]");
        }
    }
    p.print_optional_attr_dict(op, &["map"], false);
}

fn is_vector_op(name: &str) -> bool {
    name == super::VECTOR_LOAD || name == super::VECTOR_STORE
}

/// `: memref<...>` or, for vector accesses, `: memref<...>, vector<...>`; gives the memref
/// type and the accessed value's type.
fn parse_access_types(p: &mut OpAsmParser) -> PResult<(Type, Type)> {
    p.parse_literal(":")?;
    let at = p.offset();
    let memref = p.parse_type()?;
    if is_vector_op(p.op_name()) {
        p.parse_literal(",")?;
        let vector = p.parse_type()?;
        return Ok((memref, vector));
    }
    match p.ctx().type_kind(memref) {
        TypeKind::MemRef { element, .. } => {
            let element = *element;
            Ok((memref, p.ctx().signless(element)))
        }
        _ => p.error_at(at, "expected a memref type"),
    }
}

fn print_access_types(p: &mut OpAsmPrinter, op: OpId, memref: Value, value_ty: Type) {
    p.print_str(" : ");
    p.print_type(p.ctx().value_type(memref));
    if is_vector_op(p.ctx().op_name(op)) {
        p.print_str(", ");
        p.print_type(value_ty);
    }
}

pub(crate) fn parse_load(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let memref = p.parse_operand()?;
    let indices = parse_access(p, state)?;
    let (memref_ty, value_ty) = parse_access_types(p)?;
    state.operands = vec![p.resolve_operand(&memref, memref_ty)?];
    state.operands.extend(resolve_indices(p, &indices)?);
    state.result_types = vec![value_ty];
    Ok(())
}

pub(crate) fn print_load(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" ");
    print_access(p, op, data.operands[0], &data.operands[1..]);
    print_access_types(p, op, data.operands[0], ctx.value_type(data.results[0]));
}

pub(crate) fn parse_store(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let value = p.parse_operand()?;
    p.parse_literal(",")?;
    let memref = p.parse_operand()?;
    let indices = parse_access(p, state)?;
    let (memref_ty, value_ty) = parse_access_types(p)?;
    state.operands = vec![
        p.resolve_operand(&value, value_ty)?,
        p.resolve_operand(&memref, memref_ty)?,
    ];
    state.operands.extend(resolve_indices(p, &indices)?);
    Ok(())
}

pub(crate) fn print_store(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" ");
    p.print_value(data.operands[0]);
    p.print_str(", ");
    print_access(p, op, data.operands[1], &data.operands[2..]);
    print_access_types(p, op, data.operands[1], ctx.value_type(data.operands[0]));
}

/// The number of dynamic dimensions of a memref type.
pub(crate) fn dynamic_dims(shape: &[i64]) -> usize {
    shape.iter().filter(|&&d| d == DYNAMIC).count()
}
