//! `nvgpu.mma.sync`, MLIR's warp-wide matrix multiply-accumulate on NVIDIA tensor cores,
//! and `nvgpu.ldmatrix`, the warp-wide load of its fragments from shared memory, with
//! MLIR 22's syntax:
//!
//! ```mlir
//! %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]}
//!     : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
//! %a = nvgpu.ldmatrix %tile[%row, %col] {numTiles = 4 : i32, transpose = false}
//!     : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
//! ```
//!
//! `ldmatrix` loads `numTiles` 8x8 matrices: lane `8 m + r` gives the address of row `r`
//! of matrix `m` (8 consecutive elements), and each lane receives, of each matrix, the
//! two elements its place in an `mma.sync` fragment asks for (row `lane / 4`, columns
//! `2 (lane mod 4)` and the next; with `transpose`, those two rows at column `lane / 4`).
//!
//! The 32 lanes of a warp together multiply a 16x16 matrix `A` by a 16x8 matrix `B` and
//! add a 16x8 matrix `C`; each lane holds a fragment of each, in the layout of PTX's
//! `mma.sync.m16n8k16` (see [`fragment`]). TensorBind registers this op of MLIR's `nvgpu`
//! dialect and supports the shape `[16, 8, 16]` on f16 or bf16 operands with f32
//! accumulators, which sm_80 and sm_90 run.

mod async_copy;

pub use async_copy::{
    AsyncCopy, AsyncToken, DEVICE_ASYNC_COPY, DEVICE_ASYNC_CREATE_GROUP, DEVICE_ASYNC_WAIT,
    async_copy, groups_in_flight, token_type,
};
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::AttrKind;
use tb_ir::ods::constraint::{ANY_VECTOR, ARRAY_ATTR, UNIT_ATTR};
use tb_ir::ods::{OpDef, attr, operand, optional_attr};
use tb_ir::parser::PResult;
use tb_ir::registry::OpTraits;
use tb_ir::{Context, Diagnostic, FloatKind, OpId, TypeKind};

pub const MMA_SYNC: &str = "nvgpu.mma.sync";
pub const LDMATRIX: &str = "nvgpu.ldmatrix";

/// The one shape supported: `M x N x K`.
pub const MMA_SHAPE: [i64; 3] = [16, 8, 16];

tb_ir::op_kinds! {
    /// The registered ops of `nvgpu`.
    pub enum NvgpuOp in "nvgpu" {
        MmaSync = "nvgpu.mma.sync",
        LdMatrix = "nvgpu.ldmatrix",
        DeviceAsyncCopy = "nvgpu.device_async_copy",
        DeviceAsyncCreateGroup = "nvgpu.device_async_create_group",
        DeviceAsyncWait = "nvgpu.device_async_wait",
    }
}

/// Where the fragments of `mma.sync.m16n8k16` lie: for lane `lane` (of 32), the
/// `(row, column)` of each element of its `A` (4x2), `B` (2x2, rows are `k`) and
/// `C`/`D` (2x2) fragments, in the vectors' row-major order.
pub mod fragment {
    /// The lane's group (`lane / 4`) and its place in the group (`lane % 4`).
    fn split(lane: u32) -> (i64, i64) {
        (i64::from(lane / 4), i64::from(lane % 4))
    }

    pub fn a(lane: u32) -> [(i64, i64); 8] {
        let (g, t) = split(lane);
        let mut out = [(0, 0); 8];
        for (i, slot) in out.iter_mut().enumerate() {
            let (pair, half) = (i as i64 / 2, i as i64 % 2);
            *slot = (g + 8 * (pair % 2), 2 * t + half + 8 * (pair / 2));
        }
        out
    }

    pub fn b(lane: u32) -> [(i64, i64); 4] {
        let (g, t) = split(lane);
        let mut out = [(0, 0); 4];
        for (i, slot) in out.iter_mut().enumerate() {
            let (pair, half) = (i as i64 / 2, i as i64 % 2);
            *slot = (2 * t + half + 8 * pair, g);
        }
        out
    }

    pub fn c(lane: u32) -> [(i64, i64); 4] {
        let (g, t) = split(lane);
        let mut out = [(0, 0); 4];
        for (i, slot) in out.iter_mut().enumerate() {
            let (pair, half) = (i as i64 / 2, i as i64 % 2);
            *slot = (g + 8 * pair, 2 * t + half);
        }
        out
    }
}

fn op_error(ctx: &Context, op: OpId, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {}", ctx.op_name(op), message.into()),
    )
}

/// The `mmaShape` of an op, if it is an array of three integers.
pub fn mma_shape(ctx: &Context, op: OpId) -> Option<[i64; 3]> {
    let attr = ctx.op_inherent_or_attr(op, "mmaShape")?;
    let AttrKind::Array(items) = ctx.attr_kind(attr) else {
        return None;
    };
    let values: Vec<i64> = items
        .iter()
        .map(|&a| match ctx.attr_kind(a) {
            AttrKind::Integer { value, .. } => Some(*value as i64),
            _ => None,
        })
        .collect::<Option<_>>()?;
    values.try_into().ok()
}

/// The element kind of the operands (`F16` or `BF16`), once verified.
pub fn operand_kind(ctx: &Context, op: OpId) -> Option<FloatKind> {
    let a = ctx.value_type(*ctx.op(op).operands.first()?);
    match ctx.type_kind(a) {
        TypeKind::Vector { element, .. } => match ctx.type_kind(*element) {
            TypeKind::Float(kind @ (FloatKind::F16 | FloatKind::BF16)) => Some(*kind),
            _ => None,
        },
        _ => None,
    }
}

fn verify_mma_sync(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if mma_shape(ctx, op) != Some(MMA_SHAPE) {
        return Err(op_error(
            ctx,
            op,
            "supports mmaShape = [16, 8, 16] only in TensorBind",
        ));
    }
    if ctx.op_attr(op, "tf32Enabled").is_some() {
        return Err(op_error(
            ctx,
            op,
            "tf32Enabled is not supported by TensorBind yet",
        ));
    }
    let data = ctx.op(op);
    let [a, b, c] = data.operands.as_slice() else {
        return Err(op_error(ctx, op, "expects 3 operands"));
    };
    let shape_of = |v| match ctx.type_kind(ctx.value_type(v)) {
        TypeKind::Vector { shape, element, .. } => Some((shape.clone(), *element)),
        _ => None,
    };
    let (Some((sa, ea)), Some((sb, eb)), Some((sc, ec))) =
        (shape_of(*a), shape_of(*b), shape_of(*c))
    else {
        return Err(op_error(ctx, op, "expects vector operands"));
    };
    if sa != [4, 2] {
        return Err(op_error(
            ctx,
            op,
            "expected 256 warp-wide matrix A elements",
        ));
    }
    if sb != [2, 2] {
        return Err(op_error(
            ctx,
            op,
            "expected 128 warp-wide matrix B elements",
        ));
    }
    if sc != [2, 2] {
        return Err(op_error(
            ctx,
            op,
            "expected 128 warp-wide matrix C elements",
        ));
    }
    let narrow = matches!(
        ctx.type_kind(ea),
        TypeKind::Float(FloatKind::F16 | FloatKind::BF16)
    );
    if !narrow || ea != eb {
        return Err(op_error(
            ctx,
            op,
            "supports A and B of one type, f16 or bf16, in TensorBind",
        ));
    }
    if !matches!(ctx.type_kind(ec), TypeKind::Float(FloatKind::F32)) {
        return Err(op_error(
            ctx,
            op,
            "supports f32 accumulators only in TensorBind",
        ));
    }
    if data.results.len() != 1 || ctx.value_type(data.results[0]) != ctx.value_type(*c) {
        return Err(op_error(
            ctx,
            op,
            "requires the result to have the accumulator's type",
        ));
    }
    Ok(())
}

/// `(%a, %b, %c) attr-dict : (type, type, type) -> type`.
fn parse_mma_sync(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    p.parse_literal("(")?;
    let at = p.offset();
    let operands = p.parse_operand_list()?;
    p.parse_literal(")")?;
    if operands.len() != 3 {
        return p.error_at(at, format!("expected 3 operands, found {}", operands.len()));
    }
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    p.parse_literal(":")?;
    p.parse_literal("(")?;
    let types = p.parse_type_list()?;
    p.parse_literal(")")?;
    p.parse_literal("->")?;
    let result = p.parse_type()?;
    if types.len() != 3 {
        return p.error_at(
            at,
            format!("expected 3 operand types, found {}", types.len()),
        );
    }
    for (o, &t) in operands.iter().zip(&types) {
        let v = p.resolve_operand(o, t)?;
        state.operands.push(v);
    }
    state.result_types.push(result);
    Ok(())
}

fn print_mma_sync(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let operands = ctx.op(op).operands.clone();
    p.print_str("(");
    p.print_values(&operands);
    p.print_str(")");
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : (");
    let types: Vec<_> = operands.iter().map(|&v| ctx.value_type(v)).collect();
    p.print_types(&types);
    p.print_str(") -> ");
    p.print_type(ctx.value_type(ctx.op(op).results[0]));
}

/// `numTiles` and `transpose` of an `nvgpu.ldmatrix`.
pub fn ldmatrix_form(ctx: &Context, op: OpId) -> Option<(i64, bool)> {
    let tiles = match ctx.attr_kind(ctx.op_inherent_or_attr(op, "numTiles")?) {
        AttrKind::Integer { value, .. } => *value as i64,
        _ => return None,
    };
    let transpose = match ctx.attr_kind(ctx.op_inherent_or_attr(op, "transpose")?) {
        AttrKind::Integer { value, .. } => *value != 0,
        _ => return None,
    };
    Some((tiles, transpose))
}

fn verify_ldmatrix(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let memref = ctx.value_type(data.operands[0]);
    let TypeKind::MemRef { shape, element, .. } = ctx.type_kind(memref) else {
        return Err(op_error(ctx, op, "reads a memref"));
    };
    if !crate::gpu::is_workgroup_memref(ctx, memref) {
        return Err(op_error(
            ctx,
            op,
            "expected nvgpu.ldmatrix srcMemref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)",
        ));
    }
    if data.operands.len() != 1 + shape.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects {} indices, one per dimension of the memref",
                shape.len()
            ),
        ));
    }
    let Some((tiles, _)) = ldmatrix_form(ctx, op) else {
        return Err(op_error(
            ctx,
            op,
            "requires integer 'numTiles' and boolean 'transpose'",
        ));
    };
    let result = ctx.value_type(data.results[0]);
    let TypeKind::Vector {
        shape: vector_shape,
        element: vector_element,
        ..
    } = ctx.type_kind(result)
    else {
        return Err(op_error(ctx, op, "returns a vector"));
    };
    if vector_shape.first() != Some(&tiles) {
        return Err(op_error(
            ctx,
            op,
            "expected vector register shape[0] and numTiles to match",
        ));
    }
    let sixteen_bits = matches!(
        ctx.type_kind(*element),
        TypeKind::Float(FloatKind::F16 | FloatKind::BF16)
    );
    if !matches!(tiles, 1 | 2 | 4)
        || vector_shape.len() != 2
        || vector_shape[1] != 2
        || !sixteen_bits
        || vector_element != element
    {
        return Err(op_error(
            ctx,
            op,
            "supports 1, 2 or 4 tiles of f16 or bf16, into vector<Nx2x(element)>, in TensorBind",
        ));
    }
    Ok(())
}

/// `%buffer[%i, %j] attr-dict : memref<..> -> vector<..>`.
fn parse_ldmatrix(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let (source, indices) = async_copy::parse_indexed(p)?;
    for (name, value) in p.parse_optional_attr_dict()? {
        state.add_attr(&name, value);
    }
    let memref = p.parse_colon_type()?;
    p.parse_literal("->")?;
    let result = p.parse_type()?;
    let source = p.resolve_operand(&source, memref)?;
    state.operands.push(source);
    let index = p.ctx().index_type();
    for i in &indices {
        let v = p.resolve_operand(i, index)?;
        state.operands.push(v);
    }
    state.result_types.push(result);
    Ok(())
}

fn print_ldmatrix(p: &mut OpAsmPrinter, op: OpId) {
    let ctx = p.ctx();
    let operands = ctx.op(op).operands.clone();
    p.print_str(" ");
    async_copy::print_indexed(p, operands[0], &operands[1..]);
    p.print_optional_attr_dict(op, &[], false);
    p.print_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    p.print_str(" -> ");
    p.print_type(ctx.value_type(ctx.op(op).results[0]));
}

const I32_ATTR: tb_ir::ods::AttrConstraint = tb_ir::ods::AttrConstraint {
    description: "32-bit integer attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if matches!(c.type_kind(*ty), TypeKind::Integer { width: 32, .. })),
};

const BOOL_ATTR: tb_ir::ods::AttrConstraint = tb_ir::ods::AttrConstraint {
    description: "bool attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Integer { ty, .. } if matches!(c.type_kind(*ty), TypeKind::Integer { width: 1, .. })),
};

static LDMATRIX_DEF: OpDef = OpDef {
    name: LDMATRIX,
    summary: "a warp's load of 8x8 matrices of 16-bit elements from shared memory into mma fragments",
    operands: &[
        operand("srcMemref", tb_ir::ods::constraint::ANY_MEMREF),
        tb_ir::ods::variadic("indices", tb_ir::ods::constraint::INDEX),
    ],
    results: &[operand("res", ANY_VECTOR)],
    attributes: &[attr("transpose", BOOL_ATTR), attr("numTiles", I32_ATTR)],
    custom_assembly: Some((parse_ldmatrix, print_ldmatrix)),
    verify: Some(verify_ldmatrix),
    ..OpDef::EMPTY
};

static MMA_SYNC_DEF: OpDef = OpDef {
    name: MMA_SYNC,
    summary: "a warp's 16x8x16 matrix multiply-accumulate on tensor cores",
    operands: &[
        operand("matrixA", ANY_VECTOR),
        operand("matrixB", ANY_VECTOR),
        operand("matrixC", ANY_VECTOR),
    ],
    results: &[operand("res", ANY_VECTOR)],
    attributes: &[
        attr("mmaShape", ARRAY_ATTR),
        optional_attr("tf32Enabled", UNIT_ATTR),
    ],
    traits: OpTraits {
        pure: true,
        ..OpDef::EMPTY.traits
    },
    custom_assembly: Some((parse_mma_sync, print_mma_sync)),
    verify: Some(verify_mma_sync),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    ctx.register_op_def(&MMA_SYNC_DEF)?;
    ctx.register_op_def(&LDMATRIX_DEF)?;
    async_copy::register(ctx)?;
    ctx.register_op_kinds::<NvgpuOp>()
}
