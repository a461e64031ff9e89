//! Custom syntax of the `affine` ops, as MLIR 22 parses and prints them:
//!
//! - `affine.apply #map(%d0, %d1)[%s0]` (also `affine.min`, `affine.max`)
//! - `affine.for %i = <lb> to <ub> (step N)? (iter_args(%a = %init) -> (T))? { } {attrs}?`
//!   where a bound is an integer, a value `%n` (a symbol), or `(max|min)? #map(%d)[%s]`
//! - `affine.if #set(%d)[%s] (-> T)? { } (else { })? {attrs}?`
//! - `affine.load %A[%i + 1, symbol(%n)] : memref<...>`, `affine.store %v, %A[...] : ...`
//! - `affine.parallel (%i, %j) = (0, max(%a, %b)) to (symbol(%n), 100) (step (a, b))?
//!   (reduce ("addf") -> (f32))? { }`
//! - `affine.vector_load %A[%i, %j + 1] : memref<...>, vector<8xf32>`,
//!   `affine.vector_store %v, %A[...] : memref<...>, vector<8xf32>`
//! - `affine.prefetch %A[%i], read, locality<3>, data : memref<...>`
//! - `affine.dma_start` and `affine.dma_wait` (in [`super::dma`])
//! - `affine.delinearize_index %x into (2, %n) : index, index`,
//!   `affine.linearize_index disjoint? [%a, %b] by (2, %n) : index`
//!
//! Bodies without results end with an implicit `affine.yield`, which is not printed.

use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::attributes::{AttrKind, DenseArrayData, DenseData, DenseElement};
use tb_ir::lexer::TokenKind;
use tb_ir::operation::OperationState;
use tb_ir::parser::PResult;
use tb_ir::{Attr, OpId, RegionId, Signedness, Type, TypeKind, Value};

use super::ssa_map::{self, SsaMapBuilder};
use super::{DYNAMIC_BASIS, REDUCTION_KINDS, YIELD};

pub(super) fn map_attr(p: &mut OpAsmParser, map: AffineMap) -> Attr {
    p.ctx().intern_attr(AttrKind::AffineMap(map))
}

fn i32_array(p: &mut OpAsmParser, values: &[usize]) -> Attr {
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    p.ctx().intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

fn resolve_indices(p: &mut OpAsmParser, operands: &[UnresolvedOperand]) -> PResult<Vec<Value>> {
    let index = p.ctx().index_type();
    operands
        .iter()
        .map(|o| p.resolve_operand(o, index))
        .collect()
}

fn parse_attr_dict(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    Ok(())
}

/// `(%d0, %d1)[%s0]`: the dims in parentheses, then the symbols, if any, in brackets.
fn parse_dim_and_symbol_list(p: &mut OpAsmParser) -> PResult<(Vec<Value>, usize)> {
    p.parse_literal("(")?;
    let dims = p.parse_operand_list()?;
    p.parse_literal(")")?;
    let mut operands = resolve_indices(p, &dims)?;
    if p.parse_optional_literal("[") {
        let symbols = p.parse_operand_list()?;
        p.parse_literal("]")?;
        operands.extend(resolve_indices(p, &symbols)?);
    }
    Ok((operands, dims.len()))
}

fn print_dim_and_symbol_list(p: &mut OpAsmPrinter, operands: &[Value], num_dims: usize) {
    let num_dims = num_dims.min(operands.len());
    p.print_str("(");
    p.print_values(&operands[..num_dims]);
    p.print_str(")");
    if operands.len() > num_dims {
        p.print_str("[");
        p.print_values(&operands[num_dims..]);
        p.print_str("]");
    }
}

fn map_of(p: &OpAsmPrinter, op: OpId, name: &str) -> Option<(Attr, AffineMap)> {
    let ctx = p.ctx();
    let attr = ctx.op_inherent_or_attr(op, name)?;
    match ctx.attr_kind(attr) {
        AttrKind::AffineMap(m) => Some((attr, m.clone())),
        _ => None,
    }
}

/// ` -> T` or ` -> (T, U)` for a non-empty list.
fn print_optional_arrow_types(p: &mut OpAsmPrinter, types: &[Type]) {
    if types.is_empty() {
        return;
    }
    p.print_str(" -> ");
    let single =
        types.len() == 1 && !matches!(p.ctx().type_kind(types[0]), TypeKind::Function { .. });
    if single {
        p.print_type(types[0]);
    } else {
        p.print_str("(");
        p.print_types(types);
        p.print_str(")");
    }
}

fn result_types(p: &OpAsmPrinter, op: OpId) -> Vec<Type> {
    let ctx = p.ctx();
    ctx.op(op)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect()
}

/// Parses a region with the given arguments and appends `affine.yield` when its block does
/// not end in one (an empty region gets a block holding only the yield).
fn parse_body(
    p: &mut OpAsmParser,
    arguments: Vec<tb_ir::asm::RegionArgument>,
) -> PResult<RegionId> {
    let region = p.new_region();
    p.parse_region(region, arguments)?;
    ensure_terminator(p, region);
    Ok(region)
}

/// Appends the implicit `affine.yield`, located at the op as MLIR locates it.
fn ensure_terminator(p: &mut OpAsmParser, region: RegionId) {
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
}

fn print_body(p: &mut OpAsmPrinter, op: OpId, index: usize, print_terminators: bool) {
    let Some(&region) = p.ctx().op(op).regions.get(index) else {
        return;
    };
    if print_terminators {
        p.print_region(region, false, true);
    } else {
        p.print_region_eliding_terminator(region, false, YIELD);
    }
}

// ---- affine.apply, affine.min, affine.max ----

pub(crate) fn parse_map_op(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let map = p.parse_affine_map()?;
    let (operands, num_dims) = parse_dim_and_symbol_list(p)?;
    // `affine.min`/`max` leave the operand count to the verifier, as MLIR does.
    let mismatch = num_dims != map.num_dims as usize || operands.len() != map.num_inputs() as usize;
    if p.op_name() == super::APPLY && mismatch {
        let at = p.op_offset();
        return p.error_at(at, "dimension or symbol index mismatch");
    }
    parse_attr_dict(p, state)?;
    let attr = map_attr(p, map);
    state.add_attr("map", attr);
    state.operands = operands;
    let index = p.ctx().index_type();
    state.result_types = vec![index];
    Ok(())
}

pub(crate) fn print_map_op(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    if let Some((attr, map)) = map_of(p, op, "map") {
        p.print_attr(attr);
        print_dim_and_symbol_list(p, &operands, map.num_dims as usize);
    }
    p.print_optional_attr_dict(op, &["map"], false);
}

// ---- affine.for ----

/// MLIR's messages for a bound or step literal, which it parses as an `index` attribute.
const INDEX_LITERAL_RANGE: &str = "integer constant out of range for attribute";
const NUMBER_AFTER_MINUS: &str = "expected constant integer or floating point value";

/// One loop bound: its map and operands (dims, then symbols).
fn parse_bound(p: &mut OpAsmParser, lower: bool) -> PResult<(AffineMap, Vec<Value>)> {
    let prefixed = p.parse_optional_literal(if lower { "max" } else { "min" });
    if p.peek_operand() {
        let operand = p.parse_operand()?;
        let value = resolve_indices(p, &[operand])?;
        return Ok((AffineMap::new(0, 1, vec![AffineExpr::symbol(0)]), value));
    }
    let at = p.offset();
    let negative = p.parse_optional_literal("-");
    if p.peek_is(TokenKind::Integer) {
        // An `index` attribute, as MLIR parses the bound: a signed 64-bit value.
        let literal_at = p.offset();
        let value = p.parse_integer("integer bound")?;
        let value = if negative { -value } else { value };
        return match i64::try_from(value) {
            Ok(v) => Ok((AffineMap::constant(v), Vec::new())),
            Err(_) => p.error_at(literal_at, INDEX_LITERAL_RANGE),
        };
    }
    if negative {
        return p.error(NUMBER_AFTER_MINUS);
    }
    let attr = p.parse_attribute()?;
    let map = match p.ctx().attr_kind(attr) {
        AttrKind::AffineMap(map) => map.clone(),
        AttrKind::Integer { value, .. } => match i64::try_from(*value) {
            Ok(v) => return Ok((AffineMap::constant(v), Vec::new())),
            Err(_) => return p.error_at(at, INDEX_LITERAL_RANGE),
        },
        _ => {
            let op_at = p.op_offset();
            return p.error_at(
                op_at,
                "expected valid affine map representation for loop bounds",
            );
        }
    };
    let (operands, num_dims) = parse_dim_and_symbol_list(p)?;
    let op_at = p.op_offset();
    if map.num_dims as usize != num_dims {
        return p.error_at(
            op_at,
            "dim operand count and affine map dim count must match",
        );
    }
    if map.num_inputs() as usize != operands.len() {
        return p.error_at(
            op_at,
            "symbol operand count and affine map symbol count must match",
        );
    }
    if map.num_results() > 1 && !prefixed {
        let (which, prefix) = if lower {
            ("lower", "max")
        } else {
            ("upper", "min")
        };
        return p.error_at(
            at,
            format!(
                "{which} loop bound affine map with multiple results requires '{prefix}' prefix"
            ),
        );
    }
    Ok((map, operands))
}

fn print_bound(
    p: &mut OpAsmPrinter,
    attr: Attr,
    map: &AffineMap,
    operands: &[Value],
    prefix: &str,
) {
    if map.num_dims == 0
        && let [only] = map.results.as_slice()
    {
        if map.num_symbols == 0
            && let Some(c) = only.as_constant()
        {
            p.print_str(&c.to_string());
            return;
        }
        if map.num_symbols == 1 && only.as_symbol().is_some() && operands.len() == 1 {
            p.print_value(operands[0]);
            return;
        }
    }
    if map.num_results() > 1 {
        p.print_str(prefix);
        p.print_str(" ");
    }
    p.print_attr(attr);
    print_dim_and_symbol_list(p, operands, map.num_dims as usize);
}

pub(crate) fn parse_for(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let index = p.ctx().index_type();
    let iv = p.parse_untyped_region_argument(index)?;
    p.parse_literal("=")?;
    let (lower, lower_operands) = parse_bound(p, true)?;
    if !p.parse_optional_literal("to") {
        return p.error("expected 'to' between bounds");
    }
    let (upper, upper_operands) = parse_bound(p, false)?;
    if p.parse_optional_literal("step") {
        let at = p.offset();
        let negative = p.parse_optional_literal("-");
        if !p.peek_is(TokenKind::Integer) {
            return p.error(if negative {
                NUMBER_AFTER_MINUS
            } else {
                "expected attribute value"
            });
        }
        let literal_at = p.offset();
        let step = p.parse_integer("step")?;
        if i64::try_from(if negative { -step } else { step }).is_err() {
            return p.error_at(literal_at, INDEX_LITERAL_RANGE);
        }
        if negative {
            return p.error_at(
                at,
                "expected step to be representable as a positive signed integer",
            );
        }
        let attr = p.ctx().integer_attr(step, index);
        state.add_attr("step", attr);
    } else {
        let attr = p.ctx().integer_attr(1, index);
        state.add_attr("step", attr);
    }
    let mut carried = Vec::new();
    let mut inits = Vec::new();
    if p.parse_optional_literal("iter_args") {
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
                "mismatch between the number of loop-carried values and results",
            );
        }
        for ((arg, init), ty) in pairs.into_iter().zip(types) {
            inits.push(p.resolve_operand(&init, ty)?);
            carried.push(p.region_argument(arg, ty));
        }
    }
    let lower_map = map_attr(p, lower);
    let upper_map = map_attr(p, upper);
    state.add_attr("lowerBoundMap", lower_map);
    state.add_attr("upperBoundMap", upper_map);
    let sizes = i32_array(
        p,
        &[lower_operands.len(), upper_operands.len(), inits.len()],
    );
    state.add_attr("operandSegmentSizes", sizes);
    state.result_types = carried.iter().map(|a| a.ty).collect();
    state.operands = lower_operands;
    state.operands.extend(upper_operands);
    state.operands.extend(inits);
    let mut arguments = vec![iv];
    arguments.extend(carried);
    let region = parse_body(p, arguments)?;
    state.regions.push(region);
    parse_attr_dict(p, state)
}

pub(crate) fn print_for(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let body = super::region_block(ctx, op, 0);
    let args = body.map(|b| ctx.block(b).args.to_vec()).unwrap_or_default();
    p.print_str(" ");
    if let Some(&iv) = args.first() {
        p.print_untyped_region_argument(iv);
    }
    p.print_str(" = ");
    let lower_operands = super::lower_operands(ctx, op).to_vec();
    let upper_operands = super::upper_operands(ctx, op).to_vec();
    if let Some((attr, map)) = map_of(p, op, "lowerBoundMap") {
        print_bound(p, attr, &map, &lower_operands, "max");
    }
    p.print_str(" to ");
    if let Some((attr, map)) = map_of(p, op, "upperBoundMap") {
        print_bound(p, attr, &map, &upper_operands, "min");
    }
    let step = super::step(ctx, op).unwrap_or(1);
    if step != 1 {
        p.print_str(&format!(" step {step}"));
    }
    let inits = super::inits(ctx, op).to_vec();
    if !inits.is_empty() {
        p.print_str(" iter_args(");
        for (i, (&arg, &init)) in args.iter().skip(1).zip(&inits).enumerate() {
            if i > 0 {
                p.print_str(", ");
            }
            p.print_value(arg);
            p.print_str(" = ");
            p.print_value(init);
        }
        p.print_str(") -> (");
        let types = result_types(p, op);
        p.print_types(&types);
        p.print_str(")");
    }
    p.print_str(" ");
    print_body(p, op, 0, !inits.is_empty());
    p.print_optional_attr_dict(
        op,
        &[
            "lowerBoundMap",
            "upperBoundMap",
            "step",
            "operandSegmentSizes",
        ],
        false,
    );
}

// ---- affine.if ----

pub(crate) fn parse_if(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let at = p.offset();
    let attr = p.parse_attribute()?;
    let AttrKind::IntegerSet(set) = p.ctx().attr_kind(attr).clone() else {
        return p.error_at(at, "invalid kind of attribute specified");
    };
    let (operands, num_dims) = parse_dim_and_symbol_list(p)?;
    let op_at = p.op_offset();
    if set.num_dims as usize != num_dims {
        return p.error_at(
            op_at,
            "dim operand count and integer set dim count must match",
        );
    }
    if set.num_inputs() as usize != operands.len() {
        return p.error_at(
            op_at,
            "symbol operand count and integer set symbol count must match",
        );
    }
    state.add_attr("condition", attr);
    state.operands = operands;
    if p.parse_optional_literal("->") {
        state.result_types = p.parse_function_result_types()?;
    }
    let then_region = parse_body(p, Vec::new())?;
    state.regions.push(then_region);
    let else_region = p.new_region();
    if p.parse_optional_literal("else") {
        p.parse_region(else_region, Vec::new())?;
        ensure_terminator(p, else_region);
    }
    state.regions.push(else_region);
    parse_attr_dict(p, state)
}

pub(crate) fn print_if(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let operands = ctx.op(op).operands.to_vec();
    p.print_str(" ");
    if let Some(attr) = ctx.op_inherent_or_attr(op, "condition") {
        p.print_attr(attr);
        let num_dims = super::condition(ctx, op).map_or(0, |s| s.num_dims as usize);
        print_dim_and_symbol_list(p, &operands, num_dims);
    }
    let types = result_types(p, op);
    print_optional_arrow_types(p, &types);
    p.print_str(" ");
    print_body(p, op, 0, !types.is_empty());
    if super::region_block(p.ctx(), op, 1).is_some() {
        p.print_str(" else ");
        print_body(p, op, 1, !types.is_empty());
    }
    p.print_optional_attr_dict(op, &["condition"], false);
}

// ---- affine.load, affine.store, affine.vector_load, affine.vector_store, affine.prefetch ----

/// MLIR's error for a type of the wrong kind where the syntax needs `expected` (e.g.
/// `builtin.memref`).
fn wrong_type_kind<T>(p: &mut OpAsmParser, ty: Type, at: usize, expected: &str) -> PResult<T> {
    let text = tb_ir::printer::type_to_string(p.ctx(), ty);
    p.error_at(
        at,
        format!("invalid kind of type specified: expected {expected}, but found '{text}'"),
    )
}

pub(super) fn memref_element(p: &mut OpAsmParser, memref: Type, at: usize) -> PResult<Type> {
    match p.ctx().type_kind(memref) {
        TypeKind::MemRef { element, .. } => Ok(*element),
        _ => wrong_type_kind(p, memref, at, "builtin.memref"),
    }
}

/// A vector type where the syntax needs one.
fn parse_vector_type(p: &mut OpAsmParser) -> PResult<Type> {
    let at = p.offset();
    let ty = p.parse_type()?;
    match p.ctx().type_kind(ty) {
        TypeKind::Vector { .. } => Ok(ty),
        _ => wrong_type_kind(p, ty, at, "builtin.vector"),
    }
}

pub(crate) fn parse_load(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    parse_load_like(p, state, false)
}

/// `%A[map] {attrs}? : memref<...>` and, for a vector load, `, vector<...>`: the result is
/// the memref's element or that vector.
fn parse_load_like(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    vector: bool,
) -> PResult<()> {
    let memref = p.parse_operand()?;
    let (map, indices) = ssa_map::parse_bracketed(p)?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let at = p.offset();
    let memref_ty = p.parse_type()?;
    let mut result = memref_element(p, memref_ty, at)?;
    if vector {
        p.parse_literal(",")?;
        result = parse_vector_type(p)?;
    }
    let attr = map_attr(p, map);
    state.add_attr("map", attr);
    state.operands = vec![p.resolve_operand(&memref, memref_ty)?];
    state.operands.extend(indices);
    state.result_types = vec![result];
    Ok(())
}

fn print_access(p: &mut OpAsmPrinter, op: OpId, memref: Value, indices: &[Value]) {
    p.print_value(memref);
    p.print_str("[");
    if let Some(map) = super::access_map(p.ctx(), op) {
        ssa_map::print_results(p, &map, indices);
    }
    p.print_str("]");
}

pub(crate) fn print_load(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    print_access(p, op, operands[0], &operands[1..]);
    p.print_optional_attr_dict(op, &["map"], false);
    p.print_str(" : ");
    p.print_type(p.ctx().value_type(operands[0]));
}

pub(crate) fn parse_store(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    parse_store_like(p, state, false)
}

/// `%v, %A[map] {attrs}? : memref<...>` and, for a vector store, `, vector<...>`: the
/// value is the memref's element or that vector.
fn parse_store_like(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
    vector: bool,
) -> PResult<()> {
    let value = p.parse_operand()?;
    p.parse_literal(",")?;
    let memref = p.parse_operand()?;
    let (map, indices) = ssa_map::parse_bracketed(p)?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let at = p.offset();
    let memref_ty = p.parse_type()?;
    let mut value_ty = memref_element(p, memref_ty, at)?;
    if vector {
        p.parse_literal(",")?;
        value_ty = parse_vector_type(p)?;
    }
    let attr = map_attr(p, map);
    state.add_attr("map", attr);
    state.operands = vec![
        p.resolve_operand(&value, value_ty)?,
        p.resolve_operand(&memref, memref_ty)?,
    ];
    state.operands.extend(indices);
    Ok(())
}

pub(crate) fn print_store(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    p.print_value(operands[0]);
    p.print_str(", ");
    print_access(p, op, operands[1], &operands[2..]);
    p.print_optional_attr_dict(op, &["map"], false);
    p.print_str(" : ");
    p.print_type(p.ctx().value_type(operands[1]));
}

/// `%A[map] {attrs}? : memref<...>, vector<...>`: the access of a vector load, with its
/// memref and vector types.
pub(crate) fn parse_vector_load(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    parse_load_like(p, state, true)
}

pub(crate) fn print_vector_load(p: &mut OpAsmPrinter, op: OpId) {
    print_load(p, op);
    p.print_str(", ");
    let types = result_types(p, op);
    p.print_types(&types);
}

/// `%v, %A[map] {attrs}? : memref<...>, vector<...>`.
pub(crate) fn parse_vector_store(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    parse_store_like(p, state, true)
}

pub(crate) fn print_vector_store(p: &mut OpAsmPrinter, op: OpId) {
    print_store(p, op);
    p.print_str(", ");
    let value = p.ctx().op(op).operands[0];
    p.print_type(p.ctx().value_type(value));
}

fn bool_attr(p: &mut OpAsmParser, value: bool) -> Attr {
    let i1 = p.ctx().integer_type(1, Signedness::Signless);
    p.ctx().integer_attr(value as i128, i1)
}

pub(crate) fn parse_prefetch(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let memref = p.parse_operand()?;
    let (map, indices) = ssa_map::parse_bracketed(p)?;
    p.parse_literal(",")?;
    let at = p.offset();
    let is_write = match p.parse_optional_keyword_ident().as_deref() {
        Some("read") => false,
        Some("write") => true,
        _ => return p.error_at(at, "rw specifier has to be 'read' or 'write'"),
    };
    p.parse_literal(",")?;
    p.parse_literal("locality")?;
    p.parse_literal("<")?;
    let hint = p.parse_integer("locality hint")?;
    p.parse_literal(">")?;
    p.parse_literal(",")?;
    let at = p.offset();
    let is_data = match p.parse_optional_keyword_ident().as_deref() {
        Some("data") => true,
        Some("instr") => false,
        _ => return p.error_at(at, "cache type has to be 'data' or 'instr'"),
    };
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let memref_ty = p.parse_type()?;
    let attrs = [
        ("isWrite", bool_attr(p, is_write)),
        ("isDataCache", bool_attr(p, is_data)),
        ("map", map_attr(p, map)),
    ];
    for (name, attr) in attrs {
        state.add_attr(name, attr);
    }
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let hint = p.ctx().integer_attr(hint, i32_ty);
    state.add_attr("localityHint", hint);
    state.operands = vec![p.resolve_operand(&memref, memref_ty)?];
    state.operands.extend(indices);
    Ok(())
}

fn int_attr(p: &OpAsmPrinter, op: OpId, name: &str) -> Option<i128> {
    let ctx = p.ctx();
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, name)?) {
        AttrKind::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

pub(crate) fn print_prefetch(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    print_access(p, op, operands[0], &operands[1..]);
    let write = int_attr(p, op, "isWrite").unwrap_or(0) != 0;
    let hint = int_attr(p, op, "localityHint").unwrap_or(0);
    let data = int_attr(p, op, "isDataCache").unwrap_or(1) != 0;
    p.print_str(&format!(
        ", {}, locality<{hint}>, {}",
        if write { "write" } else { "read" },
        if data { "data" } else { "instr" }
    ));
    p.print_optional_attr_dict(
        op,
        &["map", "localityHint", "isDataCache", "isWrite"],
        false,
    );
    p.print_str(" : ");
    p.print_type(p.ctx().value_type(operands[0]));
}

// ---- affine.parallel ----

/// `(max(e, e), e, ...)`: one group of results per dimension, all over one input list.
fn parse_bound_groups(
    p: &mut OpAsmParser,
    keyword: &str,
) -> PResult<(AffineMap, Vec<Value>, Vec<usize>)> {
    p.parse_literal("(")?;
    let mut builder = SsaMapBuilder::default();
    let mut results = Vec::new();
    let mut groups = Vec::new();
    if !p.parse_optional_literal(")") {
        loop {
            if p.parse_optional_literal(keyword) {
                p.parse_literal("(")?;
                let list = builder.parse_list(p, ")")?;
                groups.push(list.len());
                results.extend(list);
            } else {
                results.push(builder.parse_expr(p)?);
                groups.push(1);
            }
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal(")")?;
    }
    let (map, operands) = builder.finish(results);
    Ok((map, operands, groups))
}

fn groups_attr(p: &mut OpAsmParser, groups: &[usize]) -> Attr {
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let tensor = p.ctx().intern_type(TypeKind::RankedTensor {
        shape: vec![groups.len() as i64],
        element: i32_ty,
        encoding: None,
    });
    let splat = !groups.is_empty() && groups.iter().all(|&g| g == groups[0]);
    let values = if splat { &groups[..1] } else { groups };
    p.ctx().intern_attr(AttrKind::DenseElements {
        ty: tensor,
        data: DenseData {
            splat,
            elements: values
                .iter()
                .map(|&g| DenseElement::Int(g as i128))
                .collect(),
        },
    })
}

fn i64_array(p: &mut OpAsmParser, values: &[i128]) -> Attr {
    let i64_ty = p.ctx().i64();
    let items = values
        .iter()
        .map(|&v| p.ctx().integer_attr(v, i64_ty))
        .collect();
    p.ctx().intern_attr(AttrKind::Array(items))
}

pub(crate) fn parse_parallel(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    p.parse_literal("(")?;
    let ivs = p.parse_operand_list()?;
    p.parse_literal(")")?;
    p.parse_literal("=")?;
    let (lower, mut operands, lower_groups) = parse_bound_groups(p, "max")?;
    p.parse_literal("to")?;
    let (upper, upper_operands, upper_groups) = parse_bound_groups(p, "min")?;
    operands.extend(upper_operands);
    let mut steps = vec![1i128; ivs.len()];
    if p.parse_optional_literal("step") {
        p.parse_literal("(")?;
        steps.clear();
        if !p.parse_optional_literal(")") {
            loop {
                steps.push(p.parse_integer("step")?);
                if !p.parse_optional_literal(",") {
                    break;
                }
            }
            p.parse_literal(")")?;
        }
    }
    let mut reductions = Vec::new();
    if p.parse_optional_literal("reduce") {
        p.parse_literal("(")?;
        if !p.parse_optional_literal(")") {
            loop {
                let at = p.offset();
                let name = p.parse_string("reduction")?;
                match REDUCTION_KINDS.iter().position(|&k| k == name) {
                    Some(kind) => reductions.push(kind as i128),
                    None => {
                        return p.error_at(at, format!("invalid reduction value: \"{name}\""));
                    }
                }
                if !p.parse_optional_literal(",") {
                    break;
                }
            }
            p.parse_literal(")")?;
        }
    }
    if p.parse_optional_literal("->") {
        state.result_types = p.parse_function_result_types()?;
    }
    let attrs = [
        ("lowerBoundsMap", map_attr(p, lower)),
        ("upperBoundsMap", map_attr(p, upper)),
        ("lowerBoundsGroups", groups_attr(p, &lower_groups)),
        ("upperBoundsGroups", groups_attr(p, &upper_groups)),
        ("steps", i64_array(p, &steps)),
        ("reductions", i64_array(p, &reductions)),
    ];
    for (name, attr) in attrs {
        state.add_attr(name, attr);
    }
    state.operands = operands;
    let index = p.ctx().index_type();
    let arguments = ivs
        .into_iter()
        .map(|v| p.region_argument(v, index))
        .collect();
    let region = parse_body(p, arguments)?;
    state.regions.push(region);
    parse_attr_dict(p, state)
}

fn print_bound_groups(
    p: &mut OpAsmPrinter,
    bounds: &super::ParallelBounds,
    operands: &[Value],
    keyword: &str,
) {
    let num_dims = bounds.map.num_dims as usize;
    let mut texts = bounds
        .map
        .results
        .iter()
        .map(|e| ssa_map::expr_text(p, e, num_dims, operands))
        .collect::<Vec<_>>()
        .into_iter();
    let mut groups = Vec::new();
    for &size in &bounds.groups {
        let group: Vec<String> = texts.by_ref().take(size).collect();
        if size == 1 {
            groups.push(group.join(""));
        } else {
            groups.push(format!("{keyword}({})", group.join(", ")));
        }
    }
    p.print_str(&groups.join(", "));
}

pub(crate) fn print_parallel(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let operands = ctx.op(op).operands.to_vec();
    let ivs = super::region_block(ctx, op, 0)
        .map(|b| ctx.block(b).args.to_vec())
        .unwrap_or_default();
    p.print_str(" (");
    p.print_values(&ivs);
    p.print_str(") = (");
    if let Some((lower, upper)) = super::parallel_bounds(ctx, op) {
        let split = (lower.map.num_inputs() as usize).min(operands.len());
        print_bound_groups(p, &lower, &operands[..split], "max");
        p.print_str(") to (");
        print_bound_groups(p, &upper, &operands[split..], "min");
    } else {
        p.print_str(") to (");
    }
    p.print_str(")");
    let steps = ctx
        .op_inherent_or_attr(op, "steps")
        .and_then(|a| super::int_array(ctx, a))
        .unwrap_or_default();
    if steps.iter().any(|&s| s != 1) {
        let text: Vec<String> = steps.iter().map(i64::to_string).collect();
        p.print_str(&format!(" step ({})", text.join(", ")));
    }
    let types = result_types(p, op);
    if !types.is_empty() {
        let reductions = ctx
            .op_inherent_or_attr(op, "reductions")
            .and_then(|a| super::int_array(ctx, a))
            .unwrap_or_default();
        let names: Vec<String> = reductions
            .iter()
            .map(|&k| {
                let name = usize::try_from(k)
                    .ok()
                    .and_then(|k| REDUCTION_KINDS.get(k))
                    .copied()
                    .unwrap_or("addf");
                format!("\"{name}\"")
            })
            .collect();
        p.print_str(&format!(" reduce ({}) -> (", names.join(", ")));
        p.print_types(&types);
        p.print_str(")");
    }
    p.print_str(" ");
    print_body(p, op, 0, !types.is_empty());
    p.print_optional_attr_dict(
        op,
        &[
            "reductions",
            "lowerBoundsMap",
            "lowerBoundsGroups",
            "upperBoundsMap",
            "upperBoundsGroups",
            "steps",
        ],
        false,
    );
}

// ---- affine.delinearize_index, affine.linearize_index ----

/// `(2, %n, 3)`: static entries, and dynamic ones as [`DYNAMIC_BASIS`] with their values.
fn parse_basis(p: &mut OpAsmParser) -> PResult<(Vec<i128>, Vec<Value>)> {
    p.parse_literal("(")?;
    let mut statics = Vec::new();
    let mut dynamics = Vec::new();
    if !p.parse_optional_literal(")") {
        loop {
            if p.peek_operand() {
                let operand = p.parse_operand()?;
                dynamics.extend(resolve_indices(p, &[operand])?);
                statics.push(DYNAMIC_BASIS as i128);
            } else {
                let negative = p.parse_optional_literal("-");
                let value = p.parse_integer("basis element")?;
                statics.push(if negative { -value } else { value });
            }
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal(")")?;
    }
    Ok((statics, dynamics))
}

fn print_basis(p: &mut OpAsmPrinter, op: OpId, dynamic: &[Value]) {
    let statics = super::static_basis(p.ctx(), op).unwrap_or_default();
    let mut dynamic = dynamic.iter();
    p.print_str("(");
    for (i, &s) in statics.iter().enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        if s == DYNAMIC_BASIS {
            if let Some(&v) = dynamic.next() {
                p.print_value(v);
            }
        } else {
            p.print_str(&s.to_string());
        }
    }
    p.print_str(")");
}

fn basis_attr(p: &mut OpAsmParser, statics: Vec<i128>) -> Attr {
    let i64_ty = p.ctx().i64();
    p.ctx().intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(statics),
    })
}

pub(crate) fn parse_delinearize(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let index = p.parse_operand()?;
    p.parse_literal("into")?;
    let (statics, dynamics) = parse_basis(p)?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    state.result_types = p.parse_type_list()?;
    let attr = basis_attr(p, statics);
    state.add_attr("static_basis", attr);
    state.operands = resolve_indices(p, &[index])?;
    state.operands.extend(dynamics);
    Ok(())
}

pub(crate) fn print_delinearize(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    p.print_str(" ");
    p.print_value(operands[0]);
    p.print_str(" into ");
    print_basis(p, op, &operands[1..]);
    p.print_optional_attr_dict(op, &["static_basis"], false);
    p.print_str(" : ");
    let types = result_types(p, op);
    p.print_types(&types);
}

pub(crate) fn parse_linearize(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    if p.parse_optional_literal("disjoint") {
        let unit = p.ctx().unit_attr();
        state.add_attr("disjoint", unit);
    }
    p.parse_literal("[")?;
    let indices = p.parse_operand_list()?;
    p.parse_literal("]")?;
    p.parse_literal("by")?;
    let (statics, dynamics) = parse_basis(p)?;
    parse_attr_dict(p, state)?;
    p.parse_literal(":")?;
    let ty = p.parse_type()?;
    state.result_types = vec![ty];
    let attr = basis_attr(p, statics);
    state.add_attr("static_basis", attr);
    let sizes = i32_array(p, &[indices.len(), dynamics.len()]);
    state.add_attr("operandSegmentSizes", sizes);
    state.operands = resolve_indices(p, &indices)?;
    state.operands.extend(dynamics);
    Ok(())
}

pub(crate) fn print_linearize(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let indices = tb_ir::ods::operand_group(ctx, op, 0).to_vec();
    let dynamic = tb_ir::ods::operand_group(ctx, op, 1).to_vec();
    if ctx.op_inherent_or_attr(op, "disjoint").is_some() {
        p.print_str(" disjoint");
    }
    p.print_str(" [");
    p.print_values(&indices);
    p.print_str("] by ");
    print_basis(p, op, &dynamic);
    p.print_optional_attr_dict(
        op,
        &["static_basis", "disjoint", "operandSegmentSizes"],
        false,
    );
    p.print_str(" : ");
    let types = result_types(p, op);
    p.print_types(&types);
}
