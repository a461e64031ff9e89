//! `affine.dma_start` and `affine.dma_wait`: a copy between memrefs that completes
//! asynchronously and signals through an element of a tag memref.
//!
//! ```mlir
//! affine.dma_start %src[%i, %j + 1], %dst[%k, 0], %tag[%c0], %num_elements
//!     (, %stride, %elements_per_stride)?
//!   : memref<100x100xf32>, memref<100x100xf32, 2>, memref<1xi32>
//! affine.dma_wait %tag[%c0], %num_elements : memref<1xi32>
//! ```
//!
//! As in MLIR, neither op declares properties: their maps are the attributes `src_map`,
//! `dst_map` and `tag_map`, and their operands one list that those maps split (a memref,
//! then as many indices as its map has inputs, for each of source, destination and tag;
//! then the element count and the optional stride pair). Their syntax has no attribute
//! dictionary, so other attributes are not printed, as MLIR does not print them.

use tb_ir::affine::AffineMap;
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::parser::PResult;
use tb_ir::{Context, Diagnostic, OpId, TypeKind, Value};

use super::asm::map_attr;
use super::scope::{affine_scope, is_valid_dim, is_valid_symbol};
use super::ssa_map;
use super::verify::op_error;

pub const SRC_MAP: &str = "src_map";
pub const DST_MAP: &str = "dst_map";
pub const TAG_MAP: &str = "tag_map";

/// One memref of a DMA with the map of its indices.
#[derive(Clone, Debug)]
pub struct DmaAccess {
    pub memref: Value,
    pub map: AffineMap,
    pub indices: Vec<Value>,
}

/// The operands of an `affine.dma_start`, split by its maps.
#[derive(Clone, Debug)]
pub struct DmaStart {
    pub src: DmaAccess,
    pub dst: DmaAccess,
    pub tag: DmaAccess,
    pub num_elements: Value,
    /// The stride and the number of elements per stride, when the DMA is strided.
    pub stride: Option<(Value, Value)>,
}

/// Splits `operands` into the accesses of `maps`, each a memref then its map's inputs;
/// `None` when there are too few operands.
fn split_accesses(operands: &[Value], maps: Vec<AffineMap>) -> Option<(Vec<DmaAccess>, &[Value])> {
    let mut rest = operands;
    let mut accesses = Vec::with_capacity(maps.len());
    for map in maps {
        let inputs = map.num_inputs() as usize;
        let (&memref, tail) = rest.split_first()?;
        if tail.len() < inputs {
            return None;
        }
        let (indices, tail) = tail.split_at(inputs);
        accesses.push(DmaAccess {
            memref,
            map,
            indices: indices.to_vec(),
        });
        rest = tail;
    }
    Some((accesses, rest))
}

fn maps(ctx: &Context, op: OpId, names: &[&str]) -> Option<Vec<AffineMap>> {
    names
        .iter()
        .map(|name| super::map_named(ctx, op, name))
        .collect()
}

/// The parts of a well-formed `affine.dma_start` (`None` for a malformed one).
pub fn dma_start_parts(ctx: &Context, op: OpId) -> Option<DmaStart> {
    let maps = maps(ctx, op, &[SRC_MAP, DST_MAP, TAG_MAP])?;
    let (accesses, rest) = split_accesses(&ctx.op(op).operands, maps)?;
    let [src, dst, tag]: [DmaAccess; 3] = accesses.try_into().ok()?;
    let (num_elements, stride) = match *rest {
        [n] => (n, None),
        [n, stride, per_stride] => (n, Some((stride, per_stride))),
        _ => return None,
    };
    Some(DmaStart {
        src,
        dst,
        tag,
        num_elements,
        stride,
    })
}

/// The tag access and element count of a well-formed `affine.dma_wait`.
pub fn dma_wait_parts(ctx: &Context, op: OpId) -> Option<(DmaAccess, Value)> {
    let maps = maps(ctx, op, &[TAG_MAP])?;
    let (mut accesses, rest) = split_accesses(&ctx.op(op).operands, maps)?;
    match *rest {
        [n] => Some((accesses.pop()?, n)),
        _ => None,
    }
}

// ---- syntax ----

/// `%m[map]`: a memref and its bracketed indices.
fn parse_access(
    p: &mut OpAsmParser,
) -> PResult<(tb_ir::asm::UnresolvedOperand, AffineMap, Vec<Value>)> {
    let memref = p.parse_operand()?;
    let (map, indices) = ssa_map::parse_bracketed(p)?;
    Ok((memref, map, indices))
}

pub(crate) fn parse_start(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let mut accesses = Vec::with_capacity(3);
    for i in 0..3 {
        if i > 0 {
            p.parse_literal(",")?;
        }
        accesses.push(parse_access(p)?);
    }
    p.parse_literal(",")?;
    let num_elements = p.parse_operand()?;
    let mut trailing = Vec::new();
    while p.parse_optional_literal(",") {
        trailing.push(p.parse_operand()?);
    }
    let name_at = p.op_offset();
    if !trailing.is_empty() && trailing.len() != 2 {
        return p.error_at(name_at, "expected two stride related operands");
    }
    p.parse_literal(":")?;
    let types = p.parse_type_list()?;
    if types.len() != 3 {
        return p.error_at(name_at, "expected three types");
    }
    let index = p.ctx().index_type();
    let mut operands = Vec::new();
    for ((memref, _, indices), &ty) in accesses.iter().zip(&types) {
        operands.push(p.resolve_operand(memref, ty)?);
        operands.extend(indices.iter().copied());
    }
    operands.push(p.resolve_operand(&num_elements, index)?);
    for operand in &trailing {
        operands.push(p.resolve_operand(operand, index)?);
    }
    for ((_, map, _), name) in accesses.into_iter().zip([SRC_MAP, DST_MAP, TAG_MAP]) {
        let attr = map_attr(p, map);
        state.add_attr(name, attr);
    }
    state.operands = operands;
    Ok(())
}

fn print_access(p: &mut OpAsmPrinter, access: &DmaAccess) {
    p.print_value(access.memref);
    p.print_str("[");
    ssa_map::print_results(p, &access.map, &access.indices);
    p.print_str("]");
}

pub(crate) fn print_start(p: &mut OpAsmPrinter, op: OpId) {
    let Some(parts) = dma_start_parts(p.ctx(), op) else {
        // Not printable in the custom form: the verifier reports why.
        return;
    };
    p.print_str(" ");
    for (i, access) in [&parts.src, &parts.dst, &parts.tag].into_iter().enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        print_access(p, access);
    }
    p.print_str(", ");
    p.print_value(parts.num_elements);
    if let Some((stride, per_stride)) = parts.stride {
        p.print_str(", ");
        p.print_value(stride);
        p.print_str(", ");
        p.print_value(per_stride);
    }
    p.print_str(" : ");
    let ctx = p.ctx();
    let types = [parts.src.memref, parts.dst.memref, parts.tag.memref].map(|m| ctx.value_type(m));
    p.print_types(&types);
}

pub(crate) fn parse_wait(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let (tag, map, indices) = parse_access(p)?;
    p.parse_literal(",")?;
    let num_elements = p.parse_operand()?;
    p.parse_literal(":")?;
    let ty = p.parse_type()?;
    let mut operands = vec![p.resolve_operand(&tag, ty)?];
    operands.extend(indices);
    let index = p.ctx().index_type();
    operands.push(p.resolve_operand(&num_elements, index)?);
    if !matches!(p.ctx().type_kind(ty), TypeKind::MemRef { .. }) {
        let name_at = p.op_offset();
        return p.error_at(name_at, "expected tag to be of memref type");
    }
    let attr = map_attr(p, map);
    state.add_attr(TAG_MAP, attr);
    state.operands = operands;
    Ok(())
}

pub(crate) fn print_wait(p: &mut OpAsmPrinter, op: OpId) {
    let Some((tag, num_elements)) = dma_wait_parts(p.ctx(), op) else {
        return;
    };
    p.print_str(" ");
    print_access(p, &tag);
    p.print_str(", ");
    p.print_value(num_elements);
    p.print_str(" : ");
    p.print_type(p.ctx().value_type(tag.memref));
}

// ---- verifiers ----

fn is_memref(ctx: &Context, value: Value) -> bool {
    matches!(
        ctx.type_kind(ctx.value_type(value)),
        TypeKind::MemRef { .. }
    )
}

/// Every index of one access is an `index` that is a valid dim or symbol (MLIR's
/// `isValidAffineIndexOperand`).
fn check_indices(
    ctx: &Context,
    op: OpId,
    indices: &[Value],
    type_error: &str,
    affine_error: &str,
) -> Result<(), Diagnostic> {
    let scope = affine_scope(ctx, op);
    for &index in indices {
        if !matches!(ctx.type_kind(ctx.value_type(index)), TypeKind::Index) {
            return Err(op_error(ctx, op, type_error));
        }
        if !is_valid_dim(ctx, index, scope) && !is_valid_symbol(ctx, index, scope) {
            return Err(op_error(ctx, op, affine_error));
        }
    }
    Ok(())
}

fn required_maps(ctx: &Context, op: OpId, names: &[&str]) -> Result<Vec<AffineMap>, Diagnostic> {
    names
        .iter()
        .map(|&name| {
            super::map_named(ctx, op, name)
                .ok_or_else(|| op_error(ctx, op, format!("requires attribute '{name}'")))
        })
        .collect()
}

pub(crate) fn verify_start(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let maps = required_maps(ctx, op, &[SRC_MAP, DST_MAP, TAG_MAP])?;
    let operands = &ctx.op(op).operands;
    // Where each memref sits follows from the maps before it.
    let src_at = 0;
    let dst_at = src_at + 1 + maps[0].num_inputs() as usize;
    let tag_at = dst_at + 1 + maps[1].num_inputs() as usize;
    for (at, what) in [(src_at, "source"), (dst_at, "destination"), (tag_at, "tag")] {
        if !operands.get(at).is_some_and(|&m| is_memref(ctx, m)) {
            return Err(op_error(
                ctx,
                op,
                format!("expected DMA {what} to be of memref type"),
            ));
        }
    }
    let inputs: usize = maps.iter().map(|m| m.num_inputs() as usize).sum();
    if operands.len() != inputs + 4 && operands.len() != inputs + 6 {
        return Err(op_error(ctx, op, "incorrect number of operands"));
    }
    let Some(parts) = dma_start_parts(ctx, op) else {
        return Err(op_error(ctx, op, "incorrect number of operands"));
    };
    for (access, what) in [
        (&parts.src, "src"),
        (&parts.dst, "dst"),
        (&parts.tag, "tag"),
    ] {
        check_indices(
            ctx,
            op,
            &access.indices,
            &format!("{what} index to dma_start must have 'index' type"),
            &format!("{what} index must be a valid dimension or symbol identifier"),
        )?;
    }
    Ok(())
}

pub(crate) fn verify_wait(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    required_maps(ctx, op, &[TAG_MAP])?;
    let operands = &ctx.op(op).operands;
    if !operands.first().is_some_and(|&m| is_memref(ctx, m)) {
        return Err(op_error(ctx, op, "expected DMA tag to be of memref type"));
    }
    let Some((tag, _)) = dma_wait_parts(ctx, op) else {
        return Err(op_error(ctx, op, "incorrect number of operands"));
    };
    check_indices(
        ctx,
        op,
        &tag.indices,
        "index to dma_wait must have 'index' type",
        "index must be a valid dimension or symbol identifier",
    )
}
