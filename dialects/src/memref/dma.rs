//! `memref.dma_start` and `memref.dma_wait`: a non-blocking transfer between memrefs and
//! the wait for its tag, with MLIR 22's syntax and verifiers. `dma_start`'s operands are
//! one untyped list (source and its indices, destination and its indices, the element
//! count, the tag and its indices, then optionally a stride and the elements per
//! stride), split by the ranks of the memrefs in it.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::parser::PResult;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind, Value};

use super::verify::op_error;

fn rank(ctx: &Context, ty: Type) -> Option<usize> {
    match ctx.type_kind(ty) {
        TypeKind::MemRef { shape, .. } => Some(shape.len()),
        _ => None,
    }
}

fn parse_indexed(p: &mut OpAsmParser) -> PResult<(UnresolvedOperand, Vec<UnresolvedOperand>)> {
    let memref = p.parse_operand()?;
    p.parse_literal("[")?;
    let indices = p.parse_operand_list()?;
    p.parse_literal("]")?;
    Ok((memref, indices))
}

/// `%src[%i], %dst[%j], %n, %tag[%k] (, %stride, %per_stride)? attr-dict : T, U, V`
pub(crate) fn parse_start(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let (src, src_indices) = parse_indexed(p)?;
    p.parse_literal(",")?;
    let (dst, dst_indices) = parse_indexed(p)?;
    p.parse_literal(",")?;
    let count = p.parse_operand()?;
    p.parse_literal(",")?;
    let (tag, tag_indices) = parse_indexed(p)?;
    let mut strides = Vec::new();
    while p.parse_optional_literal(",") {
        strides.push(p.parse_operand()?);
    }
    if !strides.is_empty() && strides.len() != 2 {
        return p.error_at(p.op_offset(), "expected two stride related operands");
    }
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let mut types = vec![p.parse_type()?];
    while p.parse_optional_literal(",") {
        types.push(p.parse_type()?);
    }
    if types.len() != 3 {
        return p.error_at(p.op_offset(), "fewer/more types expected");
    }
    let index = p.ctx().index_type();
    let mut operands = vec![p.resolve_operand(&src, types[0])?];
    for i in &src_indices {
        operands.push(p.resolve_operand(i, index)?);
    }
    operands.push(p.resolve_operand(&dst, types[1])?);
    for i in &dst_indices {
        operands.push(p.resolve_operand(i, index)?);
    }
    operands.push(p.resolve_operand(&count, index)?);
    operands.push(p.resolve_operand(&tag, types[2])?);
    for i in tag_indices.iter().chain(&strides) {
        operands.push(p.resolve_operand(i, index)?);
    }
    state.operands = operands;
    Ok(())
}

/// The operand groups of a verified `dma_start`: source, destination, count, tag (each
/// memref with its indices) and the optional stride pair.
struct DmaStart<'a> {
    src: &'a [Value],
    dst: &'a [Value],
    count: Value,
    tag: &'a [Value],
    strides: &'a [Value],
}

fn split_start<'a>(ctx: &Context, operands: &'a [Value]) -> Option<DmaStart<'a>> {
    let src_len = 1 + rank(ctx, ctx.value_type(*operands.first()?))?;
    let dst_len = 1 + rank(ctx, ctx.value_type(*operands.get(src_len)?))?;
    let count_at = src_len + dst_len;
    let tag_len = 1 + rank(ctx, ctx.value_type(*operands.get(count_at + 1)?))?;
    let end = count_at + 1 + tag_len;
    Some(DmaStart {
        src: &operands[..src_len],
        dst: &operands[src_len..count_at],
        count: operands[count_at],
        tag: operands.get(count_at + 1..end)?,
        strides: operands.get(end..)?,
    })
}

pub(crate) fn print_start(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.to_vec();
    let Some(parts) = split_start(p.ctx(), &operands) else {
        return;
    };
    let indexed = |p: &mut OpAsmPrinter, values: &[Value]| {
        p.print_value(values[0]);
        p.print_str("[");
        p.print_values(&values[1..]);
        p.print_str("]");
    };
    p.print_str(" ");
    indexed(p, parts.src);
    p.print_str(", ");
    indexed(p, parts.dst);
    p.print_str(", ");
    p.print_value(parts.count);
    p.print_str(", ");
    indexed(p, parts.tag);
    if !parts.strides.is_empty() {
        p.print_str(", ");
        p.print_values(parts.strides);
    }
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    let types: Vec<Type> = [parts.src[0], parts.dst[0], parts.tag[0]]
        .iter()
        .map(|&v| p.ctx().value_type(v))
        .collect();
    p.print_types(&types);
}

/// MLIR's checks, in its order: each memref in place, as many indices as its rank, all of
/// index type, and either no or two stride operands.
pub(crate) fn verify_start(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let operands = &ctx.op(op).operands;
    let n = operands.len();
    let fail = |m: String| op_error::<()>(ctx, op, m);
    if n < 4 {
        return fail("expected at least 4 operands".to_string());
    }
    let is_index = |v: &Value| matches!(ctx.type_kind(ctx.value_type(*v)), TypeKind::Index);
    let Some(src_rank) = rank(ctx, ctx.value_type(operands[0])) else {
        return fail("expected source to be of memref type".to_string());
    };
    if n < src_rank + 4 {
        return fail(format!("expected at least {} operands", src_rank + 4));
    }
    if !operands[1..1 + src_rank].iter().all(is_index) {
        return fail("expected source indices to be of index type".to_string());
    }
    let dst_at = 1 + src_rank;
    let Some(dst_rank) = rank(ctx, ctx.value_type(operands[dst_at])) else {
        return fail("expected destination to be of memref type".to_string());
    };
    let mut expected = src_rank + dst_rank + 4;
    if n < expected {
        return fail(format!("expected at least {expected} operands"));
    }
    if !operands[dst_at + 1..dst_at + 1 + dst_rank]
        .iter()
        .all(is_index)
    {
        return fail("expected destination indices to be of index type".to_string());
    }
    let count_at = dst_at + 1 + dst_rank;
    if !is_index(&operands[count_at]) {
        return fail("expected num elements to be of index type".to_string());
    }
    let Some(tag_rank) = rank(ctx, ctx.value_type(operands[count_at + 1])) else {
        return fail("expected tag to be of memref type".to_string());
    };
    expected += tag_rank;
    if n < expected {
        return fail(format!("expected at least {expected} operands"));
    }
    if !operands[count_at + 2..count_at + 2 + tag_rank]
        .iter()
        .all(is_index)
    {
        return fail("expected tag indices to be of index type".to_string());
    }
    if n != expected && n != expected + 2 {
        return fail("incorrect number of operands".to_string());
    }
    if n == expected + 2 && !operands[expected..].iter().all(is_index) {
        return fail("expected stride and num elements per stride to be of type index".to_string());
    }
    Ok(())
}

/// One tag index per dimension of the tag memref.
pub(crate) fn verify_wait(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let operands = &ctx.op(op).operands;
    let Some(tag_rank) = operands.first().and_then(|&t| rank(ctx, ctx.value_type(t))) else {
        return Ok(());
    };
    let indices = operands.len().saturating_sub(2);
    if indices != tag_rank {
        return op_error(
            ctx,
            op,
            format!(
                "expected tagIndices to have the same number of elements as the tagMemRef rank, expected {tag_rank}, but got {indices}"
            ),
        );
    }
    Ok(())
}
