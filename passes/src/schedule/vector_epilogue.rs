//! Elementwise epilogues computed on a kernel's vectors of results.
//!
//! The depthwise and pointwise convolution kernels end each block with vectors of `W`
//! neighbouring pixels of one output row, the matmul kernel with vectors of `W`
//! neighbouring columns of one row. When the nest that reads the result is an epilogue
//! ([`super::conv_epilogue::find_consumer`]: bias, activation, clamps, a residual add),
//! that nest's body is computed on those vectors where the kernel stores them, and the
//! result buffer is never written. The consumer's last induction variable runs along the
//! vector (`ow`, or the matmul's `j`); each op of the body becomes:
//!
//! - a load whose indices do not depend on the last induction variable: the same scalar
//!   load at the vector's point, splat where a vector needs it (a per-channel bias);
//! - a load or the store whose last index is the last induction variable plus a constant,
//!   and whose other indices do not depend on it: a vector load or store at the vector's
//!   first element;
//! - an `arith` or `math` op on floats or integers: the same op on vectors when an operand
//!   is a vector, else on scalars.
//!
//! Anything else (index arithmetic, a read along `ow` at another stride, a value that the
//! kernel's position cannot see) keeps the epilogue as its own nest. The kernel computes
//! the result where the convolution's nest was, so every value and buffer the body reads
//! must be there already and nothing between the two nests may write those buffers.

use std::collections::{HashMap, HashSet};

use tb_dialects::arith::ArithOp;
use tb_dialects::loop_::{self, LoopOp};
use tb_dialects::math::MathOp;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, TypeKind, Value};

use super::build::At;
use super::conv_epilogue::{Epilogue, access};

/// How one op of the epilogue's body is computed on a vector of pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    /// The op as it is, on the block's first pixel (uniform across the vector).
    Scalar,
    /// A vector load or store.
    Vector,
}

/// An epilogue the depthwise kernel can compute on vectors.
pub(crate) struct VectorEpilogue {
    pub epilogue: Epilogue,
    /// The body's ops other than the read of the result and the terminator, in order,
    /// with the form of each load and store.
    ops: Vec<(OpId, Option<Lane>)>,
    /// The buffer the store writes.
    output: Value,
    /// The store's buffer, when its `loop.alloc` must move before the kernel.
    hoist: Option<OpId>,
    /// Buffers read or written along the row through a view of their planes as single
    /// rows (see [`VectorEpilogue::plane_buffers`]): the buffer and its view.
    views: HashMap<Value, Value>,
}

fn defining_op(ctx: &Context, v: Value) -> Option<OpId> {
    match ctx.value(v).def {
        ValueDef::Result { op, .. } => Some(op),
        _ => None,
    }
}

/// The lane form of an access: uniform when no index depends on the vector's dim `v`, a
/// vector when only the last does, with a unit step.
fn lane_of(indices: &[AffineExpr], v: u32) -> Option<Lane> {
    let (last, rest) = indices.split_last()?;
    if rest.iter().any(|e| e.is_function_of_dim(v)) {
        return None;
    }
    if !last.is_function_of_dim(v) {
        return Some(Lane::Scalar);
    }
    let step = (last.clone() - AffineExpr::dim(v)).simplify();
    (!step.is_function_of_dim(v)).then_some(Lane::Vector)
}

/// Whether `memref` has an identity layout, so its last dimension is contiguous.
fn row_major(ctx: &Context, memref: Value) -> bool {
    matches!(
        ctx.type_kind(ctx.value_type(memref)),
        TypeKind::MemRef { layout: None, .. }
    )
}

/// Whether `op` is the `loop.alloc` that defines `buffer`.
fn is_alloc_of(ctx: &Context, op: OpId, buffer: Value) -> bool {
    ctx.op(op).results.first() == Some(&buffer)
}

fn is_data(ctx: &Context, v: Value) -> bool {
    matches!(
        ctx.type_kind(ctx.value_type(v)),
        TypeKind::Float(_) | TypeKind::Integer { .. }
    )
}

/// Whether `v` is available before `kernel` (an op of the same block as the consumer).
fn available_before(ctx: &Context, v: Value, kernel: OpId) -> bool {
    let block = ctx.op(kernel).parent;
    match ctx.value(v).def {
        ValueDef::Result { op, .. } if ctx.op(op).parent == block => {
            let mut next = ctx.op(op).next;
            while let Some(n) = next {
                if n == kernel {
                    return true;
                }
                next = ctx.op(n).next;
            }
            false
        }
        ValueDef::Result { .. } | ValueDef::BlockArgument { .. } => true,
        ValueDef::Placeholder => false,
    }
}

/// The ops strictly between `first` and `last` in their block.
fn between(ctx: &Context, first: OpId, last: OpId) -> Vec<OpId> {
    let mut ops = Vec::new();
    let mut next = ctx.op(first).next;
    while let Some(n) = next {
        if n == last {
            break;
        }
        ops.push(n);
        next = ctx.op(n).next;
    }
    ops
}

/// The epilogue `e` of the nest `kernel` as the depthwise kernel computes it, when it can.
pub(super) fn plan(ctx: &Context, e: Epilogue, kernel: OpId) -> Option<VectorEpilogue> {
    let body = loop_::body(ctx, e.consumer)?;
    let ivs = e.ivs.clone();
    let along = ivs.len().checked_sub(1)? as u32;
    let mut ops = Vec::new();
    let mut loaded = HashSet::new();
    let mut store_buffer = None;
    let inside: HashSet<Value> = ctx
        .block_ops(body)
        .flat_map(|op| ctx.op(op).results.clone())
        .chain(ivs.iter().copied())
        .collect();
    for op in ctx.block_ops(body) {
        if op == e.load || LoopOp::of(ctx, op) == Some(LoopOp::Yield) {
            continue;
        }
        let lane = match LoopOp::of(ctx, op) {
            Some(LoopOp::Load) => {
                let memref = ctx.op(op).operands[0];
                let lane = lane_of(&access(ctx, op, &ivs, 1)?, along)?;
                if lane == Lane::Vector && !row_major(ctx, memref) {
                    return None;
                }
                loaded.insert(memref);
                Some(lane)
            }
            Some(LoopOp::Store) => {
                if lane_of(&access(ctx, op, &ivs, 2)?, along)? != Lane::Vector
                    || !row_major(ctx, ctx.op(op).operands[1])
                {
                    return None;
                }
                store_buffer = Some(ctx.op(op).operands[1]);
                Some(Lane::Vector)
            }
            _ if (ArithOp::of(ctx, op).is_some() || MathOp::of(ctx, op).is_some())
                && ctx.op(op).regions.is_empty()
                && ctx.op(op).results.len() == 1
                && ctx
                    .op(op)
                    .operands
                    .iter()
                    .chain(&ctx.op(op).results)
                    .all(|&v| is_data(ctx, v)) =>
            {
                None
            }
            _ => return None,
        };
        for &v in &ctx.op(op).operands {
            if !inside.contains(&v) && !available_before(ctx, v, kernel) && Some(v) != store_buffer
            {
                return None;
            }
        }
        ops.push((op, lane));
    }
    let store_buffer = store_buffer?;
    // Nothing between the kernel's position and the consumer may write what it reads, or
    // touch what it writes (it is written earlier now).
    let conflicts = |inner: OpId| {
        let is_load = matches!(
            LoopOp::of(ctx, inner),
            Some(LoopOp::Load | LoopOp::VectorLoad)
        );
        let operands = &ctx.op(inner).operands;
        (!is_load && operands.iter().any(|v| loaded.contains(v)))
            || (operands.contains(&store_buffer) && !is_alloc_of(ctx, inner, store_buffer))
    };
    for op in between(ctx, kernel, e.consumer) {
        let mut conflict = conflicts(op);
        ctx.walk_nested(op, &mut |inner| conflict |= conflicts(inner));
        if conflict {
            return None;
        }
    }
    // The store's buffer: available, or a `loop.alloc` of a static shape that can move.
    let hoist = if available_before(ctx, store_buffer, kernel) {
        None
    } else {
        let alloc = defining_op(ctx, store_buffer)?;
        if LoopOp::of(ctx, alloc) != Some(LoopOp::Alloc) || !ctx.op(alloc).operands.is_empty() {
            return None;
        }
        Some(alloc)
    };
    Some(VectorEpilogue {
        epilogue: e,
        ops,
        output: store_buffer,
        hoist,
        views: HashMap::new(),
    })
}

/// `map` with each dim shifted by its entry of `offsets`.
fn shifted(map: &AffineMap, offsets: &[i64]) -> AffineMap {
    let dims: Vec<AffineExpr> = (0..map.num_dims)
        .map(|d| AffineExpr::dim(d) + offsets[d as usize])
        .collect();
    AffineMap {
        num_dims: map.num_dims,
        num_symbols: map.num_symbols,
        results: map
            .results
            .iter()
            .map(|r| r.replace_dims_and_symbols(&dims, &[]).simplify())
            .collect(),
    }
}

impl VectorEpilogue {
    /// The buffers the epilogue reads or writes along the row, when it can run on rows
    /// that are whole `oh x ow` planes seen as one row (`oh = 0`, `ow` the position in
    /// the plane): each such access indexes a row-major buffer whose last two
    /// dimensions are `oh, ow` by exactly `(oh, ow)` there and by neither elsewhere, and
    /// no other access depends on `oh`. Each of these buffers is then read and written
    /// through a view with the plane as one row ([`VectorEpilogue::view`]).
    pub fn plane_buffers(&self, ctx: &Context, (oh, ow): (i64, i64)) -> Option<Vec<Value>> {
        let ivs = &self.epilogue.ivs;
        let mut buffers = Vec::new();
        // The read of the kernel's result is checked too; the kernel replaces it.
        let read = std::iter::once((self.epilogue.load, Some(Lane::Vector)));
        for (op, lane) in self.ops.iter().copied().chain(read) {
            let (memref, first) = match LoopOp::of(ctx, op) {
                Some(LoopOp::Load) => (ctx.op(op).operands[0], 1),
                Some(LoopOp::Store) => (ctx.op(op).operands[1], 2),
                _ => continue,
            };
            let indices = access(ctx, op, ivs, first)?;
            if lane != Some(Lane::Vector) {
                if indices.iter().any(|e| e.is_function_of_dim(1)) {
                    return None;
                }
                continue;
            }
            let n = indices.len();
            let TypeKind::MemRef {
                shape,
                layout: None,
                ..
            } = ctx.type_kind(ctx.value_type(memref))
            else {
                return None;
            };
            let exact = n >= 2
                && shape[n - 2..] == [oh, ow]
                && indices[n - 2] == AffineExpr::dim(1)
                && indices[n - 1] == AffineExpr::dim(2)
                && indices[..n - 2]
                    .iter()
                    .all(|e| !e.is_function_of_dim(1) && !e.is_function_of_dim(2));
            if !exact {
                return None;
            }
            if op != self.epilogue.load && !buffers.contains(&memref) {
                buffers.push(memref);
            }
        }
        Some(buffers)
    }

    /// The buffer the epilogue writes.
    pub fn output(&self) -> Value {
        self.output
    }

    /// Reads and writes `buffer` through `view` (the same elements, each plane one row).
    pub fn view(&mut self, buffer: Value, view: Value) {
        self.views.insert(buffer, view);
    }

    /// Moves the store's buffer before the kernel, when it was allocated after it.
    pub(crate) fn prepare(&self, ctx: &mut Context, kernel: OpId) {
        if let Some(alloc) = self.hoist {
            ctx.unlink_op(alloc);
            ctx.insert_op_before(kernel, alloc);
        }
    }

    /// The map and index operands of load or store `op` (its indices from operand `from`
    /// on) at the kernel's point `scalars` (the consumer's induction variables mapped to
    /// the kernel's), each induction variable shifted by its entry of `offsets`.
    fn shifted_access(
        &self,
        ctx: &Context,
        op: OpId,
        from: usize,
        scalars: &HashMap<Value, Value>,
        offsets: &[i64],
    ) -> (AffineMap, Vec<Value>) {
        let indices = &ctx.op(op).operands[from..];
        let ivs = &self.epilogue.ivs;
        let by_operand: Vec<i64> = indices
            .iter()
            .map(|v| ivs.iter().position(|iv| iv == v).map_or(0, |p| offsets[p]))
            .collect();
        let map = loop_::access_map(ctx, op).expect("loads and stores have a map");
        let operands = indices
            .iter()
            .map(|v| *scalars.get(v).unwrap_or(v))
            .collect();
        (shifted(&map, &by_operand), operands)
    }

    /// Computes the epilogue at `body` for the vector `value` of `width` elements whose
    /// first is at the consumer's point `ivs` shifted by `offsets` (one per induction
    /// variable; the last runs along the vector).
    pub fn emit(
        &self,
        ctx: &mut Context,
        body: At,
        ivs: &[Value],
        offsets: &[i64],
        value: Value,
        width: i64,
    ) {
        let e = &self.epilogue;
        let mut scalars: HashMap<Value, Value> =
            e.ivs.iter().copied().zip(ivs.iter().copied()).collect();
        let mut vectors: HashMap<Value, Value> = HashMap::new();
        vectors.insert(ctx.op(e.load).results[0], value);
        for &(op, lane) in &self.ops {
            match (LoopOp::of(ctx, op), lane) {
                (Some(LoopOp::Load), Some(Lane::Vector)) => {
                    let memref = ctx.op(op).operands[0];
                    let memref = *self.views.get(&memref).unwrap_or(&memref);
                    let (map, operands) = self.shifted_access(ctx, op, 1, &scalars, offsets);
                    let ty = vector_type(ctx, ctx.value_type(ctx.op(op).results[0]), width);
                    let v = body.load(ctx, true, memref, map, &operands, ty);
                    vectors.insert(ctx.op(op).results[0], v);
                }
                (Some(LoopOp::Load), _) => {
                    // Uniform along the vector, at the point's other coordinates; read
                    // where it lies (the plane views serve the accesses along the row).
                    let memref = ctx.op(op).operands[0];
                    let (map, operands) = self.shifted_access(ctx, op, 1, &scalars, offsets);
                    let ty = ctx.value_type(ctx.op(op).results[0]);
                    let v = body.load(ctx, false, memref, map, &operands, ty);
                    scalars.insert(ctx.op(op).results[0], v);
                }
                (Some(LoopOp::Store), _) => {
                    let [stored, memref] = [0, 1].map(|i| ctx.op(op).operands[i]);
                    let memref = *self.views.get(&memref).unwrap_or(&memref);
                    let (map, operands) = self.shifted_access(ctx, op, 2, &scalars, offsets);
                    let v = as_vector(ctx, body, stored, &scalars, &mut vectors, width);
                    body.store(ctx, true, v, memref, map, &operands);
                }
                _ => {
                    let operands = ctx.op(op).operands.clone();
                    if operands.iter().any(|v| vectors.contains_key(v)) {
                        let wide: Vec<Value> = operands
                            .iter()
                            .map(|&v| as_vector(ctx, body, v, &scalars, &mut vectors, width))
                            .collect();
                        let v = widened(ctx, body, op, wide, width);
                        vectors.insert(ctx.op(op).results[0], v);
                    } else {
                        // Uniform: the op itself, on scalars.
                        let copy = ctx.clone_op(op, &mut scalars);
                        ctx.insert_op_before(body.before, copy);
                    }
                }
            }
        }
    }
}

/// The vector of `width` lanes of `element`.
pub(super) fn vector_type(ctx: &mut Context, element: tb_ir::Type, width: i64) -> tb_ir::Type {
    ctx.intern_type(TypeKind::Vector {
        shape: vec![width],
        scalable: vec![false],
        element,
    })
}

/// `v` as a vector: its vector, or its scalar (or itself, from outside) splat.
fn as_vector(
    ctx: &mut Context,
    at: At,
    v: Value,
    scalars: &HashMap<Value, Value>,
    vectors: &mut HashMap<Value, Value>,
    width: i64,
) -> Value {
    if let Some(&vector) = vectors.get(&v) {
        return vector;
    }
    let scalar = scalars.get(&v).copied().unwrap_or(v);
    let ty = vector_type(ctx, ctx.value_type(scalar), width);
    let splat = at.broadcast(ctx, scalar, ty);
    vectors.insert(v, splat);
    splat
}

/// A copy of the one-result elementwise op `op` on `operands`, with a vector result.
pub(super) fn widened(
    ctx: &mut Context,
    at: At,
    op: OpId,
    operands: Vec<Value>,
    width: i64,
) -> Value {
    let mut mapping = HashMap::new();
    let copy = ctx.clone_op(op, &mut mapping);
    for (i, v) in operands.into_iter().enumerate() {
        ctx.set_operand(copy, i, v);
    }
    let result = ctx.op(copy).results[0];
    let ty = vector_type(ctx, ctx.value_type(result), width);
    ctx.set_value_type(result, ty);
    ctx.insert_op_before(at.before, copy);
    result
}
