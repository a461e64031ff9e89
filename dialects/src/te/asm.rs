//! Custom syntax of `te.compute` and `te.read`:
//!
//! `te.compute (%in, ...) [%i, ...] (reduce [%k, ...] in [16, ...] combiner = sum)?
//!  (attributes {...})? { body } : (input types) -> result type`
//!
//! `te.read %in[(d0, d1) -> (d1)] : tensor<8xf32>` (the result is the element type, signless
//! for integers: `tensor<8xui8>` reads `i8`).
//!
//! `te.read_at %in[%i, %j] : tensor<4x8xf32>` and `te.extract %t[%i] : tensor<4xi1>`
//! (likewise; `te.extract %t[] : tensor<i1>` for a 0-d tensor).

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::parser::PResult;
use tb_ir::{OpId, Type, TypeKind};

const COMPUTE_ELIDED: &[&str] = &["reduction_extents", "combiner"];

/// `[%i, %j]` as region arguments of type index.
fn parse_index_args(p: &mut OpAsmParser) -> PResult<Vec<tb_ir::asm::RegionArgument>> {
    p.parse_literal("[")?;
    let names = p.parse_operand_list()?;
    p.parse_literal("]")?;
    let index = p.ctx().index_type();
    Ok(names
        .into_iter()
        .map(|n| p.region_argument(n, index))
        .collect())
}

/// `[16, 32]`
fn parse_extents(p: &mut OpAsmParser) -> PResult<Vec<i128>> {
    p.parse_literal("[")?;
    let mut extents = Vec::new();
    if !p.parse_optional_literal("]") {
        loop {
            extents.push(p.parse_integer("reduction extent")?);
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal("]")?;
    }
    Ok(extents)
}

pub(crate) fn parse_compute(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    p.parse_literal("(")?;
    let inputs = p.parse_operand_list()?;
    p.parse_literal(")")?;
    let mut arguments = parse_index_args(p)?;
    if p.parse_optional_literal("reduce") {
        let at = p.offset();
        let reduction = parse_index_args(p)?;
        p.parse_literal("in")?;
        let extents = parse_extents(p)?;
        if extents.len() != reduction.len() {
            return p.error_at(
                at,
                format!(
                    "{} reduction axes but {} extents",
                    reduction.len(),
                    extents.len()
                ),
            );
        }
        arguments.extend(reduction);
        let i64_ty = p.ctx().i64();
        let attr = p.ctx().intern_attr(AttrKind::DenseArray {
            element: i64_ty,
            data: DenseArrayData::Int(extents),
        });
        state.add_attr("reduction_extents", attr);
        p.parse_literal("combiner")?;
        p.parse_literal("=")?;
        let at = p.offset();
        let word = p.parse_keyword_ident("combiner name")?;
        let Some(combiner) = super::Combiner::from_keyword(&word) else {
            return p.error_at(at, super::Combiner::unknown(&word));
        };
        let attr = p.ctx().typed_attr_of(combiner);
        state.add_attr("combiner", attr);
    }
    for (k, v) in p.parse_optional_attr_dict_with_keyword()? {
        state.add_attr(&k, v);
    }
    let region = p.new_region();
    p.parse_region(region, arguments)?;
    state.regions.push(region);
    p.parse_literal(":")?;
    let at = p.offset();
    let input_types = p.parse_paren_type_list()?;
    p.parse_literal("->")?;
    let result = p.parse_type()?;
    state.operands = p.resolve_operands(&inputs, &input_types, at)?;
    state.result_types = vec![result];
    Ok(())
}

pub(crate) fn print_compute(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let data = ctx.op(op);
    p.print_str(" (");
    p.print_values(&data.operands);
    p.print_str(") [");
    let args = super::indices(ctx, op);
    let reductions = super::reduction_extents(ctx, op);
    let parallel = args.len().saturating_sub(reductions.len());
    p.print_values(&args[..parallel]);
    p.print_str("]");
    if ctx.op_inherent_or_attr(op, "reduction_extents").is_some() {
        p.print_str(" reduce [");
        p.print_values(&args[parallel..]);
        p.print_str("] in [");
        let extents: Vec<String> = reductions.iter().map(i64::to_string).collect();
        p.print_str(&extents.join(", "));
        p.print_str("] combiner = ");
        p.print_str(super::combiner(ctx, op).unwrap_or("none"));
    }
    p.print_optional_attr_dict(op, COMPUTE_ELIDED, true);
    if let Some(&region) = data.regions.first() {
        p.print_str(" ");
        p.print_region(region, false, true);
    }
    p.print_str(" : ");
    let inputs: Vec<Type> = data.operands.iter().map(|&v| ctx.value_type(v)).collect();
    let results: Vec<Type> = data.results.iter().map(|&v| ctx.value_type(v)).collect();
    p.print_functional_type(&inputs, &results);
}

pub(crate) fn parse_read(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let input = p.parse_operand()?;
    p.parse_literal("[")?;
    let map = p.parse_affine_map()?;
    p.parse_literal("]")?;
    let map = p.ctx().intern_attr(AttrKind::AffineMap(map));
    state.add_attr("map", map);
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let at = p.offset();
    let ty = p.parse_type()?;
    if !matches!(p.ctx().type_kind(ty), TypeKind::RankedTensor { .. }) {
        return p.error_at(at, "expected a ranked tensor type");
    }
    let element = super::scalar_type(p.ctx(), ty).expect("a tensor has an element type");
    state.operands = vec![p.resolve_operand(&input, ty)?];
    state.result_types = vec![element];
    Ok(())
}

pub(crate) fn print_read(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let input = ctx.op(op).operands[0];
    p.print_str(" ");
    p.print_value(input);
    p.print_str("[");
    match super::read_map(ctx, op) {
        Some(map) => p.print_str(&map.to_string()),
        None => p.print_str("()"),
    }
    p.print_str("]");
    p.print_optional_attr_dict(op, &["map"], false);
    p.print_str(" : ");
    p.print_type(ctx.value_type(input));
}

/// `%in[%i, ...] {attrs} : tensor<...>`, the syntax `te.read_at` and `te.extract` share: a
/// tensor, index operands, and a scalar result of the tensor's (signless) element type.
fn parse_indexed_element(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let input = p.parse_operand()?;
    p.parse_literal("[")?;
    let indices = p.parse_operand_list()?;
    p.parse_literal("]")?;
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let at = p.offset();
    let ty = p.parse_type()?;
    if !matches!(p.ctx().type_kind(ty), TypeKind::RankedTensor { .. }) {
        return p.error_at(at, "expected a ranked tensor type");
    }
    let element = super::scalar_type(p.ctx(), ty).expect("a tensor has an element type");
    let index = p.ctx().index_type();
    let mut operands = vec![p.resolve_operand(&input, ty)?];
    for i in &indices {
        operands.push(p.resolve_operand(i, index)?);
    }
    state.operands = operands;
    state.result_types = vec![element];
    Ok(())
}

fn print_indexed_element(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let operands = ctx.op(op).operands.clone();
    p.print_str(" ");
    p.print_value(operands[0]);
    p.print_str("[");
    p.print_values(&operands[1..]);
    p.print_str("]");
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
}

pub(crate) fn parse_read_at(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    parse_indexed_element(p, state)
}

pub(crate) fn print_read_at(p: &mut OpAsmPrinter, op: OpId) {
    print_indexed_element(p, op);
}

pub(crate) fn parse_extract(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    parse_indexed_element(p, state)
}

pub(crate) fn print_extract(p: &mut OpAsmPrinter, op: OpId) {
    print_indexed_element(p, op);
}
