//! Asynchronous copies from global to shared memory (`cp.async` on sm_80 and later), with
//! MLIR 22's syntax:
//!
//! ```mlir
//! %t = nvgpu.device_async_copy %a[%i, %k], %tile[%s, %r, %c], 8 {bypassL1}
//!     : memref<4096x4096xf16> to memref<3x128x72xf16, #gpu.address_space<workgroup>>
//! %g = nvgpu.device_async_create_group %t
//! nvgpu.device_async_wait %g {numGroups = 1 : i32}
//! ```
//!
//! A thread starts copies of `dstElements` consecutive elements (4, 8 or 16 bytes) and
//! goes on; with a fourth operand `srcElements`, only that many are read and the rest of
//! the destination is zero-filled. `device_async_create_group` closes the group of every
//! copy the thread started since the last group (whatever tokens it names, as PTX's
//! `cp.async.commit_group` does), and `device_async_wait {numGroups = N}` waits until at
//! most `N` of the thread's groups are still in flight (all, without `numGroups`). A copy's
//! destination is undefined until then, and other threads see it only after a barrier.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState, UnresolvedOperand};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::dialect_type::TypedType;
use tb_ir::ods::constraint::{ANY_MEMREF, INDEX, INDEX_ATTR, TypeConstraint, UNIT_ATTR};
use tb_ir::ods::{OpDef, attr, operand, operand_group, optional, optional_attr, variadic};
use tb_ir::parser::PResult;
use tb_ir::{Attr, Context, Diagnostic, OpId, Type, TypeKind};

pub const DEVICE_ASYNC_COPY: &str = "nvgpu.device_async_copy";
pub const DEVICE_ASYNC_CREATE_GROUP: &str = "nvgpu.device_async_create_group";
pub const DEVICE_ASYNC_WAIT: &str = "nvgpu.device_async_wait";

/// `!nvgpu.device.async.token`: what a copy or a group returns, for the ops that wait.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsyncToken;

impl TypedType for AsyncToken {
    const DIALECT: &'static str = "nvgpu";
    const MNEMONIC: &'static str = "device.async.token";

    fn parse(body: &str) -> Result<Self, String> {
        if body.trim().is_empty() {
            Ok(AsyncToken)
        } else {
            Err("takes no parameters".into())
        }
    }

    fn print(&self, _: &mut String) {}
}

/// The token type, interned in `ctx`.
pub fn token_type(ctx: &mut Context) -> Type {
    ctx.typed_type_of(AsyncToken)
}

const TOKEN: TypeConstraint = TypeConstraint {
    description: "device async token type",
    check: |ctx, ty| ctx.typed_type::<AsyncToken>(ty).is_some(),
    buildable: Some(token_type),
};

const I32_ATTR: tb_ir::ods::AttrConstraint = tb_ir::ods::AttrConstraint {
    description: "32-bit integer attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if matches!(c.type_kind(*ty), TypeKind::Integer { width: 32, .. })),
};

/// The parts of a `device_async_copy`.
pub struct AsyncCopy<'a> {
    pub dst: tb_ir::Value,
    pub dst_indices: &'a [tb_ir::Value],
    pub src: tb_ir::Value,
    pub src_indices: &'a [tb_ir::Value],
    /// Elements read from the source, when fewer than `dst_elements` (the rest are zero).
    pub src_elements: Option<tb_ir::Value>,
    pub dst_elements: i64,
    pub bypass_l1: bool,
}

/// `op`'s operands and properties, if it is a well-formed `device_async_copy`.
pub fn async_copy(ctx: &Context, op: OpId) -> Option<AsyncCopy<'_>> {
    let dst_elements = match ctx.attr_kind(ctx.op_inherent_or_attr(op, "dstElements")?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok()?,
        _ => return None,
    };
    Some(AsyncCopy {
        dst: *operand_group(ctx, op, 0).first()?,
        dst_indices: operand_group(ctx, op, 1),
        src: *operand_group(ctx, op, 2).first()?,
        src_indices: operand_group(ctx, op, 3),
        src_elements: operand_group(ctx, op, 4).first().copied(),
        dst_elements,
        bypass_l1: ctx.op_inherent_or_attr(op, "bypassL1").is_some(),
    })
}

/// The `numGroups` of a `device_async_wait`: how many groups may stay in flight (0 when
/// it is absent: wait for all).
pub fn groups_in_flight(ctx: &Context, op: OpId) -> i64 {
    ctx.op_inherent_or_attr(op, "numGroups")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
            _ => None,
        })
        .unwrap_or(0)
}

fn error(ctx: &Context, op: OpId, message: String) -> Result<(), Diagnostic> {
    Err(Diagnostic::error(ctx.op(op).loc, message))
}

fn op_error(ctx: &Context, op: OpId, message: String) -> Result<(), Diagnostic> {
    error(ctx, op, format!("'{}' op {message}", ctx.op_name(op)))
}

fn verify_async_copy(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(copy) = async_copy(ctx, op) else {
        return op_error(ctx, op, "requires dstElements".into());
    };
    let dst_ty = ctx.value_type(copy.dst);
    let src_ty = ctx.value_type(copy.src);
    let (
        TypeKind::MemRef {
            shape: dst_shape,
            element: dst_element,
            ..
        },
        TypeKind::MemRef {
            shape: src_shape,
            element: src_element,
            layout: src_layout,
            ..
        },
    ) = (ctx.type_kind(dst_ty), ctx.type_kind(src_ty))
    else {
        return op_error(ctx, op, "copies between memrefs".into());
    };
    if src_layout.is_some() {
        let strides = crate::memref::layout::MemRef::of(ctx, src_ty)
            .and_then(|m| m.strides_and_offset(ctx))
            .map(|(s, _)| s);
        if strides.is_none_or(|s| s.last() != Some(&1)) {
            return error(
                ctx,
                op,
                "source memref most minor dim must have unit stride".into(),
            );
        }
    }
    if !crate::gpu::is_workgroup_memref(ctx, dst_ty) {
        return error(
            ctx,
            op,
            "destination memref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)".into(),
        );
    }
    if dst_element != src_element {
        return error(
            ctx,
            op,
            "source and destination must have the same element type".into(),
        );
    }
    if copy.src_indices.len() != src_shape.len() {
        return op_error(
            ctx,
            op,
            format!(
                "expected {} source indices, got {}",
                src_shape.len(),
                copy.src_indices.len()
            ),
        );
    }
    if copy.dst_indices.len() != dst_shape.len() {
        return op_error(
            ctx,
            op,
            format!(
                "expected {} destination indices, got {}",
                dst_shape.len(),
                copy.dst_indices.len()
            ),
        );
    }
    let bits = element_bits(ctx, *dst_element);
    let allowed: Vec<i64> = [32, 64, 128]
        .iter()
        .filter(|&&b| bits > 0 && b % bits == 0)
        .map(|&b| b / bits)
        .collect();
    if !allowed.contains(&copy.dst_elements) {
        let list = allowed
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return error(
            ctx,
            op,
            format!(
                "Requested copy elements is {} with width {bits}. But copy elements could be one of {list}.",
                copy.dst_elements
            ),
        );
    }
    if copy.bypass_l1 && copy.dst_elements * bits != 128 {
        return op_error(
            ctx,
            op,
            format!(
                "bypassL1 does not satify alignment for '{}' with destination element {}. Unset bypassL1, or set destination element to {}",
                tb_ir::printer::type_to_string(ctx, dst_ty),
                copy.dst_elements,
                128 / bits.max(1)
            ),
        );
    }
    Ok(())
}

/// Bits of a scalar element (0 for other types).
fn element_bits(ctx: &Context, ty: Type) -> i64 {
    match ctx.type_kind(ty) {
        TypeKind::Float(kind) => i64::from(kind.width()),
        TypeKind::Integer { width, .. } => i64::from(*width),
        _ => 0,
    }
}

fn segment_sizes(ctx: &mut Context, sizes: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&v| v as i128).collect()),
    })
}

/// `%memref[%i, ...]`.
pub(super) fn parse_indexed(
    p: &mut OpAsmParser,
) -> PResult<(UnresolvedOperand, Vec<UnresolvedOperand>)> {
    let memref = p.parse_operand()?;
    p.parse_literal("[")?;
    let indices = if p.parse_optional_literal("]") {
        Vec::new()
    } else {
        let list = p.parse_operand_list()?;
        p.parse_literal("]")?;
        list
    };
    Ok((memref, indices))
}

/// Prints `%memref[%i, ...]`, as [`parse_indexed`] reads it.
pub(super) fn print_indexed(p: &mut OpAsmPrinter, memref: tb_ir::Value, indices: &[tb_ir::Value]) {
    p.print_value(memref);
    p.print_str("[");
    p.print_values(indices);
    p.print_str("]");
}

/// `%src[%i...], %dst[%j...], N (, %srcElements)? attr-dict : type($src) to type($dst)`.
fn parse_async_copy(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let (src, src_indices) = parse_indexed(p)?;
    p.parse_literal(",")?;
    let (dst, dst_indices) = parse_indexed(p)?;
    p.parse_literal(",")?;
    let at = p.offset();
    let elements = p.parse_integer("a number of elements")?;
    let src_elements = if p.parse_optional_literal(",") {
        Some(p.parse_operand()?)
    } else {
        None
    };
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let src_ty = p.parse_colon_type()?;
    p.parse_literal("to")?;
    let dst_ty = p.parse_type()?;
    let Ok(elements) = i64::try_from(elements) else {
        return p.error_at(at, "the number of elements is too large");
    };
    let index = p.ctx().index_type();
    state.operands.push(p.resolve_operand(&dst, dst_ty)?);
    for i in &dst_indices {
        state.operands.push(p.resolve_operand(i, index)?);
    }
    state.operands.push(p.resolve_operand(&src, src_ty)?);
    for i in &src_indices {
        state.operands.push(p.resolve_operand(i, index)?);
    }
    if let Some(count) = &src_elements {
        state.operands.push(p.resolve_operand(count, index)?);
    }
    let index_ty = p.ctx().index_type();
    let count = p.ctx().integer_attr(elements.into(), index_ty);
    state.add_attr("dstElements", count);
    let sizes = [
        1,
        dst_indices.len(),
        1,
        src_indices.len(),
        usize::from(src_elements.is_some()),
    ];
    let segments = segment_sizes(p.ctx(), &sizes);
    state.add_attr("operandSegmentSizes", segments);
    let token = token_type(p.ctx());
    state.result_types.push(token);
    Ok(())
}

fn print_async_copy(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let Some(copy) = async_copy(ctx, op) else {
        return;
    };
    let (dst, src) = (copy.dst, copy.src);
    let (dst_indices, src_indices) = (copy.dst_indices.to_vec(), copy.src_indices.to_vec());
    let (count, src_elements) = (copy.dst_elements, copy.src_elements);
    let (src_ty, dst_ty) = (ctx.value_type(src), ctx.value_type(dst));
    p.print_str(" ");
    print_indexed(p, src, &src_indices);
    p.print_str(", ");
    print_indexed(p, dst, &dst_indices);
    p.print_str(&format!(", {count}"));
    if let Some(v) = src_elements {
        p.print_str(", ");
        p.print_value(v);
    }
    p.print_optional_attr_dict(op, &["dstElements", "operandSegmentSizes"], false);
    p.print_str(" : ");
    p.print_type(src_ty);
    p.print_str(" to ");
    p.print_type(dst_ty);
}

/// `%token, ... attr-dict`.
fn parse_create_group(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let tokens = if p.peek_operand() {
        p.parse_operand_list()?
    } else {
        Vec::new()
    };
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let token = token_type(p.ctx());
    for t in &tokens {
        state.operands.push(p.resolve_operand(t, token)?);
    }
    state.result_types.push(token);
    Ok(())
}

fn print_create_group(p: &mut OpAsmPrinter, op: OpId) {
    let operands = p.ctx().op(op).operands.clone();
    if !operands.is_empty() {
        p.print_str(" ");
        p.print_values(&operands);
    }
    p.print_optional_attr_dict(op, &[], false);
}

/// `%token attr-dict`.
fn parse_wait(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let token = p.parse_operand()?;
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let ty = token_type(p.ctx());
    state.operands.push(p.resolve_operand(&token, ty)?);
    Ok(())
}

fn print_wait(p: &mut OpAsmPrinter, op: OpId) {
    let token = p.ctx().op(op).operands[0];
    p.print_str(" ");
    p.print_value(token);
    p.print_optional_attr_dict(op, &[], false);
}

fn verify_wait(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if groups_in_flight(ctx, op) < 0 {
        return op_error(ctx, op, "numGroups must not be negative".into());
    }
    Ok(())
}

static DEVICE_ASYNC_COPY_DEF: OpDef = OpDef {
    name: DEVICE_ASYNC_COPY,
    summary: "starts a copy of 4, 8 or 16 bytes from global to shared memory",
    operands: &[
        operand("dst", ANY_MEMREF),
        variadic("dstIndices", INDEX),
        operand("src", ANY_MEMREF),
        variadic("srcIndices", INDEX),
        optional("srcElements", INDEX),
    ],
    results: &[operand("asyncToken", TOKEN)],
    attributes: &[
        attr("dstElements", INDEX_ATTR),
        optional_attr("bypassL1", UNIT_ATTR),
    ],
    attr_sized_operand_segments: true,
    custom_assembly: Some((parse_async_copy, print_async_copy)),
    verify: Some(verify_async_copy),
    ..OpDef::EMPTY
};

static DEVICE_ASYNC_CREATE_GROUP_DEF: OpDef = OpDef {
    name: DEVICE_ASYNC_CREATE_GROUP,
    summary: "closes a group of the thread's asynchronous copies",
    operands: &[variadic("inputTokens", TOKEN)],
    results: &[operand("asyncToken", TOKEN)],
    custom_assembly: Some((parse_create_group, print_create_group)),
    ..OpDef::EMPTY
};

static DEVICE_ASYNC_WAIT_DEF: OpDef = OpDef {
    name: DEVICE_ASYNC_WAIT,
    summary: "waits until at most numGroups of the thread's copy groups are in flight",
    operands: &[operand("asyncDependencies", TOKEN)],
    attributes: &[optional_attr("numGroups", I32_ATTR)],
    custom_assembly: Some((parse_wait, print_wait)),
    verify: Some(verify_wait),
    ..OpDef::EMPTY
};

pub(super) fn register(ctx: &mut Context) -> Result<(), String> {
    ctx.register_type::<AsyncToken>();
    ctx.register_op_def(&DEVICE_ASYNC_COPY_DEF)?;
    ctx.register_op_def(&DEVICE_ASYNC_CREATE_GROUP_DEF)?;
    ctx.register_op_def(&DEVICE_ASYNC_WAIT_DEF)
}
