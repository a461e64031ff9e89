//! Custom syntax of the `gpu` ops, as MLIR 22 prints them:
//!
//! ```mlir
//! gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
//!            threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
//!            dynamic_shared_memory_size %bytes
//!            workgroup(%tile : memref<16x64xf32, #gpu.address_space<workgroup>>) {
//!   gpu.terminator
//! }
//! %i = gpu.thread_id x
//! %r, %valid = gpu.shuffle down %v, %offset, %width : f32
//! ```

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::parser::PResult;
use tb_ir::{OpId, Signedness};

use super::{
    Dimension, LAUNCH_BODY_ARGS, ShuffleMode, WORKGROUP_ATTRIBUTIONS, dimension, dimension_attr,
    launch_sizes, shuffle_mode, shuffle_mode_attr,
};

/// `(%a, %b, %c)`: three region arguments.
fn parse_three_ids(p: &mut OpAsmParser) -> PResult<Vec<UnresolvedOperand>> {
    p.parse_literal("(")?;
    let at = p.offset();
    let ids = p.parse_operand_list()?;
    p.parse_literal(")")?;
    if ids.len() != 3 {
        return p.error_at(
            at,
            format!("expected 3 identifiers (x, y, z), found {}", ids.len()),
        );
    }
    Ok(ids)
}

/// `(%gx = %v, %gy = %w, %gz = %u)`: three region arguments and the operands they take.
fn parse_three_sizes(
    p: &mut OpAsmParser,
) -> PResult<(Vec<UnresolvedOperand>, Vec<UnresolvedOperand>)> {
    p.parse_literal("(")?;
    let mut args = Vec::new();
    let mut values = Vec::new();
    for i in 0..3 {
        if i > 0 {
            p.parse_literal(",")?;
        }
        args.push(p.parse_operand()?);
        p.parse_literal("=")?;
        values.push(p.parse_operand()?);
    }
    p.parse_literal(")")?;
    Ok((args, values))
}

pub(crate) fn parse_launch(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    for unsupported in ["async", "clusters"] {
        if p.peek_literal(unsupported) {
            return p.error(format!(
                "`{unsupported}` launches are not supported by TensorBind yet"
            ));
        }
    }
    p.parse_literal("blocks")?;
    let block_ids = parse_three_ids(p)?;
    p.parse_literal("in")?;
    let (grid_args, grid_sizes) = parse_three_sizes(p)?;
    p.parse_literal("threads")?;
    let thread_ids = parse_three_ids(p)?;
    p.parse_literal("in")?;
    let (block_args, block_sizes) = parse_three_sizes(p)?;
    let index = p.ctx().index_type();
    let mut operands = Vec::new();
    for size in grid_sizes.iter().chain(&block_sizes) {
        operands.push(p.resolve_operand(size, index)?);
    }
    let mut shared_memory = 0;
    if p.parse_optional_literal("dynamic_shared_memory_size") {
        let bytes = p.parse_operand()?;
        let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
        operands.push(p.resolve_operand(&bytes, i32_ty)?);
        shared_memory = 1;
    }
    // `workgroup(%buffer : memref<..>, ...)`: the block's shared buffers, as more body
    // arguments after the twelve ids and sizes.
    let mut workgroup = Vec::new();
    if p.parse_optional_literal("workgroup") {
        p.parse_literal("(")?;
        if !p.parse_optional_literal(")") {
            loop {
                workgroup.push(p.parse_region_argument()?);
                if !p.parse_optional_literal(",") {
                    break;
                }
            }
            p.parse_literal(")")?;
        }
    }
    if p.peek_literal("private") {
        return p.error("`private` attributions are not supported by TensorBind yet");
    }
    // MLIR records the number of workgroup attributions on every launch.
    let i64_ty = p.ctx().i64();
    let count = p.ctx().integer_attr(workgroup.len() as i128, i64_ty);
    state.add_attr(WORKGROUP_ATTRIBUTIONS, count);
    for (name, value) in p.parse_optional_attr_dict_with_keyword()? {
        state.add_attr(&name, value);
    }
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let sizes = [0, 1, 1, 1, 1, 1, 1, 0, 0, 0, shared_memory];
    let segments = p.ctx().intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.into_iter().map(i128::from).collect()),
    });
    state.add_attr("operandSegmentSizes", segments);
    state.operands = operands;
    let arguments = block_ids
        .into_iter()
        .chain(thread_ids)
        .chain(grid_args)
        .chain(block_args)
        .map(|a| p.region_argument(a, index))
        .chain(workgroup)
        .collect::<Vec<_>>();
    let region = p.new_region();
    p.parse_region(region, arguments)?;
    state.regions.push(region);
    Ok(())
}

pub(crate) fn print_launch(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let region = ctx.op(op).regions.first().copied();
    let args = region
        .and_then(|r| ctx.entry_block(r))
        .map(|b| ctx.block(b).args.clone())
        .unwrap_or_default();
    let Some(sizes) = launch_sizes(ctx, op).filter(|_| args.len() >= LAUNCH_BODY_ARGS) else {
        // Malformed (the verifier says why): print what is there, generically enough.
        p.print_str(" <<malformed gpu.launch>>");
        return;
    };
    for (keyword, ids, dims, values) in [
        (" blocks(", &args[0..3], &args[6..9], &sizes[0..3]),
        (" threads(", &args[3..6], &args[9..12], &sizes[3..6]),
    ] {
        p.print_str(keyword);
        p.print_values(ids);
        p.print_str(") in (");
        for i in 0..3 {
            if i > 0 {
                p.print_str(", ");
            }
            p.print_value(dims[i]);
            p.print_str(" = ");
            p.print_value(values[i]);
        }
        p.print_str(")");
    }
    let operands = &ctx.op(op).operands;
    if operands.len() == 7 {
        p.print_str(" dynamic_shared_memory_size ");
        p.print_value(operands[6]);
    }
    let workgroup = &args[LAUNCH_BODY_ARGS..];
    if !workgroup.is_empty() {
        p.print_str(" workgroup(");
        for (i, &buffer) in workgroup.iter().enumerate() {
            if i > 0 {
                p.print_str(", ");
            }
            p.print_value(buffer);
            p.print_str(" : ");
            let ty = ctx.value_type(buffer);
            p.print_type(ty);
        }
        p.print_str(")");
    }
    p.print_optional_attr_dict(op, &[WORKGROUP_ATTRIBUTIONS], true);
    if let Some(region) = region {
        p.print_str(" ");
        p.print_region(region, false, true);
    }
}

/// `x` / `y` / `z`, then an optional `upper_bound N`.
pub(crate) fn parse_dimension_op(
    p: &mut OpAsmParser,
    state: &mut OperationParseState,
) -> PResult<()> {
    let at = p.offset();
    let word = p.parse_keyword_ident("dimension")?;
    let Some(dim) = Dimension::parse(&word) else {
        return p.error_at(at, format!("expected dimension x, y or z, found `{word}`"));
    };
    let attr = dimension_attr(p.ctx(), dim);
    state.add_attr("dimension", attr);
    if p.parse_optional_literal("upper_bound") {
        let bound = p.parse_integer("upper bound")?;
        let index = p.ctx().index_type();
        let attr = p.ctx().intern_attr(AttrKind::Integer {
            ty: index,
            value: bound,
        });
        state.add_attr("upper_bound", attr);
    }
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let index = p.ctx().index_type();
    state.result_types.push(index);
    Ok(())
}

pub(crate) fn print_dimension_op(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    if let Some(dim) = dimension(ctx, op) {
        p.print_str(" ");
        p.print_str(dim.name());
    }
    if let Some(bound) = ctx.op_inherent_or_attr(op, "upper_bound")
        && let AttrKind::Integer { value, .. } = ctx.attr_kind(bound)
    {
        p.print_str(&format!(" upper_bound {value}"));
    }
    p.print_optional_attr_dict(op, &["dimension", "upper_bound"], false);
}

/// `xor %value, %offset, %width : f32`
pub(crate) fn parse_shuffle(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let at = p.offset();
    let word = p.parse_keyword_ident("shuffle mode")?;
    let Some(mode) = ShuffleMode::parse(&word) else {
        return p.error_at(
            at,
            format!("expected shuffle mode xor, up, down or idx, found `{word}`"),
        );
    };
    let attr = shuffle_mode_attr(p.ctx(), mode);
    state.add_attr("mode", attr);
    let value = p.parse_operand()?;
    p.parse_literal(",")?;
    let offset = p.parse_operand()?;
    p.parse_literal(",")?;
    let width = p.parse_operand()?;
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let ty = p.parse_colon_type()?;
    let i32_ty = p.ctx().integer_type(32, Signedness::Signless);
    let i1 = p.ctx().integer_type(1, Signedness::Signless);
    state.operands = vec![
        p.resolve_operand(&value, ty)?,
        p.resolve_operand(&offset, i32_ty)?,
        p.resolve_operand(&width, i32_ty)?,
    ];
    state.result_types = vec![ty, i1];
    Ok(())
}

pub(crate) fn print_shuffle(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    if let Some(mode) = shuffle_mode(ctx, op) {
        p.print_str(" ");
        p.print_str(mode.name());
    }
    let operands = ctx.op(op).operands.clone();
    p.print_str(" ");
    p.print_values(&operands);
    p.print_optional_attr_dict(op, &["mode"], false);
    if let Some(&value) = operands.first() {
        p.print_str(" : ");
        let ty = ctx.value_type(value);
        p.print_type(ty);
    }
}
