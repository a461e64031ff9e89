//! What a `te.compute` costs as a kernel of its own: the elements it writes, the work per
//! point of its domain and the bytes it moves. Fusion weighs recomputation (flops) against
//! the traffic of a materialized intermediate (bytes) with these figures.

use std::collections::HashSet;

use tb_dialects::te::{self, TeOp};
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, Type, TypeKind, Value};

use super::access::elements;

/// The weight of a `math` op (transcendental functions, square roots) against an `arith`
/// op, in flops: roughly what a vectorized polynomial evaluation costs.
pub const MATH_OP_FLOPS: u64 = 8;

/// The cost figures of one `te.compute`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComputeCost {
    /// Elements of the result.
    pub elements: u64,
    /// Points of the iteration domain (elements times the reduction extents).
    pub points: u64,
    /// Weighted arithmetic per domain point (`math` ops count [`MATH_OP_FLOPS`]).
    pub flops_per_point: u64,
    /// Ops in the body, the yield and the reads included (the size of a fused body).
    pub body_ops: usize,
    /// Bytes of the result, written once.
    pub result_bytes: u64,
    /// Bytes of the distinct tensors the body reads, each read once in the best case.
    pub input_bytes: u64,
}

impl ComputeCost {
    /// Estimated bytes moved by the kernel: its inputs read once and its result written.
    pub fn bytes_moved(&self) -> u64 {
        self.result_bytes.saturating_add(self.input_bytes)
    }
}

/// The cost figures of `compute`.
pub fn compute_cost(ctx: &Context, compute: OpId) -> ComputeCost {
    let view = te::ComputeOp(compute);
    let result = view.result(ctx);
    let elements = elements(&view.result_shape(ctx));
    let points = elements.saturating_mul(elements_of(&view.reduction_extents(ctx)));
    let mut flops = 0u64;
    let mut body_ops = 0usize;
    ctx.walk_nested(compute, &mut |op| {
        body_ops += 1;
        flops += op_flops(ctx, op);
    });
    let mut seen = HashSet::new();
    let inputs: Vec<Value> = view
        .inputs(ctx)
        .iter()
        .copied()
        .filter(|&v| seen.insert(v))
        .collect();
    let input_bytes = inputs
        .iter()
        .map(|&v| tensor_bytes(ctx, ctx.value_type(v)))
        .fold(0u64, u64::saturating_add);
    ComputeCost {
        elements,
        points,
        flops_per_point: flops,
        body_ops,
        result_bytes: tensor_bytes(ctx, ctx.value_type(result)),
        input_bytes,
    }
}

fn elements_of(extents: &[i64]) -> u64 {
    if extents.is_empty() {
        1
    } else {
        elements(extents)
    }
}

/// The weighted arithmetic of one body op: reads, yields and constants are free.
pub fn op_flops(ctx: &Context, op: OpId) -> u64 {
    if matches!(
        TeOp::of(ctx, op),
        Some(TeOp::Read | TeOp::ReadAt | TeOp::Yield)
    ) {
        return 0;
    }
    let name = ctx.op_name(op);
    if name == "arith.constant" {
        0
    } else if name.starts_with("math.") {
        MATH_OP_FLOPS
    } else {
        1
    }
}

/// Bytes of a static ranked tensor (0 when a size is unknown).
pub fn tensor_bytes(ctx: &Context, ty: Type) -> u64 {
    let TypeKind::RankedTensor { shape, element, .. } = ctx.type_kind(ty) else {
        return 0;
    };
    let bits = match ctx.type_kind(*element) {
        TypeKind::Float(kind) => u64::from(kind.width()),
        TypeKind::Integer { width, .. } => u64::from(*width),
        TypeKind::Index => 64,
        _ => return 0,
    };
    if shape.iter().any(|&d| d < 0) {
        return 0;
    }
    elements(shape).saturating_mul(bits).div_ceil(8)
}
