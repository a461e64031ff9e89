//! Folding the constant subgraphs of an extracted graph: the weights a rule computed
//! (batch norm folded into conv weights, concatenated matmul weights) become constants,
//! so they cost nothing at run time, as the cost model assumed.
//!
//! The graph dialect's own folder stops at small constants (it is for shape subgraphs);
//! this one evaluates the few ops rules build on weights (elementwise arithmetic, square
//! roots, reshapes, transposes, slices, concatenation) on `f32`/`f64` data of any size up
//! to the pass's `fold-limit`, reading `dense` and `dense_resource` constants and writing
//! large results as `dense_resource` blobs.

use std::sync::Arc;

use tb_dialects::graph::GraphOp;
use tb_dialects::graph::builder::op_state_with_types;
use tb_dialects::graph::shape;
use tb_dialects::graph::types::static_tensor;
use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::context::ResourceBlob;
use tb_ir::float::{bits_from_f64, bits_to_f64};
use tb_ir::ods::OpKind;
use tb_ir::value::ValueDef;
use tb_ir::{Attr, Context, FloatKind, OpId, Type, TypeKind};

use super::convert::decode;
use super::language::AttrValue;

/// What folding left.
pub struct Folded {
    pub folded: usize,
    /// Ops of the rebuilt graph still in the function.
    pub remaining: usize,
}

/// Above this many elements a folded constant is stored as a `dense_resource` blob
/// (unless all its elements are equal: a splat).
const INLINE_ELEMENTS: usize = 16;

/// Folds the constant ops among `created` (in order, producers first) and erases the
/// constants nothing uses any more.
pub fn fold_constants(ctx: &mut Context, created: &[OpId], limit: usize) -> Folded {
    let mut folded = 0;
    let mut live: Vec<OpId> = Vec::new();
    for &op in created {
        if let Some(new) = fold_op(ctx, op, limit) {
            ctx.insert_op_before(op, new);
            let (old, value) = (ctx.op(op).results[0], ctx.op(new).results[0]);
            ctx.replace_all_uses(old, value);
            ctx.erase_op(op);
            live.push(new);
            folded += 1;
        } else {
            live.push(op);
        }
    }
    // Constants only the folded ops used.
    let mut remaining = 0;
    for &op in live.iter().rev() {
        let unused = ctx
            .op(op)
            .results
            .iter()
            .all(|&r| ctx.value(r).uses.is_empty());
        if unused && GraphOp::of(ctx, op) == Some(GraphOp::Constant) {
            ctx.erase_op(op);
        } else {
            remaining += 1;
        }
    }
    Folded { folded, remaining }
}

/// A constant tensor as `f64`s.
struct Data {
    shape: Vec<i64>,
    values: Vec<f64>,
}

fn float_kind(ctx: &Context, element: Type) -> Option<FloatKind> {
    match ctx.type_kind(element) {
        TypeKind::Float(k @ (FloatKind::F32 | FloatKind::F64)) => Some(*k),
        _ => None,
    }
}

/// The value of a `graph.constant`'s attribute, if it is a float tensor of at most
/// `limit` elements.
fn read(ctx: &Context, attr: Attr, limit: usize) -> Option<Data> {
    let (ty, data) = match ctx.attr_kind(attr) {
        AttrKind::DenseElements { ty, data } => (*ty, Some(data)),
        AttrKind::DenseResource { ty, .. } => (*ty, None),
        _ => return None,
    };
    let (shape, element) = static_tensor(ctx, ty)?;
    let kind = float_kind(ctx, element)?;
    let n = shape::checked_num_elements(shape)? as usize;
    if n > limit {
        return None;
    }
    let values = match (ctx.attr_kind(attr), data) {
        (_, Some(data)) => {
            let decoded: Vec<f64> = data
                .elements
                .iter()
                .map(|e| match e {
                    DenseElement::Float(bits) => bits_to_f64(kind, *bits),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            if data.splat {
                vec![*decoded.first()?; n]
            } else {
                decoded
            }
        }
        (AttrKind::DenseResource { handle, .. }, None) => {
            let blob = ctx.resources.get(handle)?;
            match kind {
                FloatKind::F32 if blob.data.len() == 4 * n => blob
                    .data
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                    .collect(),
                FloatKind::F64 if blob.data.len() == 8 * n => blob
                    .data
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect(),
                _ => return None,
            }
        }
        _ => return None,
    };
    (values.len() == n).then_some(Data {
        shape: shape.to_vec(),
        values,
    })
}

fn strides(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as usize;
    }
    s
}

/// `input`'s strides over the axes of `out` it broadcasts to: 0 on the axes it repeats.
fn broadcast_strides(out: &[i64], input: &[i64]) -> Vec<usize> {
    let offset = out.len() - input.len();
    let own = strides(input);
    (0..out.len())
        .map(|axis| match axis.checked_sub(offset) {
            Some(a) if input[a] != 1 => own[a],
            _ => 0,
        })
        .collect()
}

/// `f` of `a` and `b` broadcast to `out`, walking the output in order with running
/// offsets (no division per element: the weights of a model are millions of elements).
fn broadcast_binary(out: &[i64], a: &Data, b: &Data, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let n: usize = out.iter().product::<i64>() as usize;
    if a.shape == out && b.shape == out {
        return a
            .values
            .iter()
            .zip(&b.values)
            .map(|(&x, &y)| f(x, y))
            .collect();
    }
    let mut values = Vec::with_capacity(n);
    if n == 0 {
        return values;
    }
    let (sa, sb) = (
        broadcast_strides(out, &a.shape),
        broadcast_strides(out, &b.shape),
    );
    let rank = out.len();
    let inner = out.last().map_or(1, |&d| d as usize);
    let (ia, ib) = (
        sa.last().copied().unwrap_or(0),
        sb.last().copied().unwrap_or(0),
    );
    // The multi-index of the outer axes and the offsets it gives into `a` and `b`.
    let mut index = vec![0usize; rank.saturating_sub(1)];
    let (mut ka, mut kb) = (0usize, 0usize);
    while values.len() < n {
        for j in 0..inner {
            values.push(f(a.values[ka + j * ia], b.values[kb + j * ib]));
        }
        // Advance the outer multi-index by one, like an odometer.
        for axis in (0..index.len()).rev() {
            index[axis] += 1;
            ka += sa[axis];
            kb += sb[axis];
            if index[axis] < out[axis] as usize {
                break;
            }
            ka -= sa[axis] * index[axis];
            kb -= sb[axis] * index[axis];
            index[axis] = 0;
        }
    }
    values
}

/// The folded constant replacing `op`, created but not inserted.
fn fold_op(ctx: &mut Context, op: OpId, limit: usize) -> Option<OpId> {
    use GraphOp as G;
    let kind = GraphOp::of(ctx, op)?;
    if kind == G::Constant {
        return None;
    }
    let data = ctx.op(op);
    let result_ty = ctx.value_type(data.results[0]);
    let (out_shape, element) = static_tensor(ctx, result_ty)?;
    let (out_shape, fk) = (out_shape.to_vec(), float_kind(ctx, element)?);
    let n = shape::checked_num_elements(&out_shape)? as usize;
    if n > limit {
        return None;
    }
    let mut inputs = Vec::new();
    for &v in &data.operands {
        let ValueDef::Result { op: def, .. } = ctx.value(v).def else {
            return None;
        };
        if GraphOp::of(ctx, def) != Some(G::Constant) {
            return None;
        }
        inputs.push(read(ctx, ctx.op_inherent_or_attr(def, "value")?, limit)?);
    }
    let attr = |name: &str| ctx.op_inherent_or_attr(op, name).map(|a| decode(ctx, a));
    let ints = |name: &str| match attr(name) {
        Some(AttrValue::Ints(v)) => Some(v),
        _ => None,
    };
    let values: Vec<f64> = match (kind, inputs.as_slice()) {
        (G::Add | G::Sub | G::Mul | G::Div, [a, b]) => {
            broadcast_binary(&out_shape, a, b, |x, y| match kind {
                G::Add => x + y,
                G::Sub => x - y,
                G::Mul => x * y,
                _ => x / y,
            })
        }
        (G::Sqrt, [a]) => a.values.iter().map(|x| x.sqrt()).collect(),
        (G::Neg, [a]) => a.values.iter().map(|x| -x).collect(),
        (G::Reshape | G::Flatten | G::Squeeze | G::Unsqueeze | G::Identity, [a]) => {
            a.values.clone()
        }
        (G::Transpose, [a]) => {
            let perm = shape::transpose_perm(&a.shape, ints("perm").as_deref()).ok()?;
            let (in_strides, out_strides) = (strides(&a.shape), strides(&out_shape));
            (0..n)
                .map(|flat| {
                    let k: usize = perm
                        .iter()
                        .enumerate()
                        .map(|(axis, &p)| {
                            ((flat / out_strides[axis]) % out_shape[axis] as usize) * in_strides[p]
                        })
                        .sum();
                    a.values[k]
                })
                .collect()
        }
        (G::Slice, [a]) => {
            let g = shape::slice_geometry(
                &a.shape,
                &ints("starts")?,
                &ints("ends")?,
                ints("axes").as_deref(),
                ints("steps").as_deref(),
            )
            .ok()?;
            let (in_strides, out_strides) = (strides(&a.shape), strides(&out_shape));
            (0..n)
                .map(|flat| {
                    let k: i64 = (0..out_shape.len())
                        .map(|axis| {
                            let i = ((flat / out_strides[axis]) % out_shape[axis] as usize) as i64;
                            (g.starts[axis] + i * g.steps[axis]) * in_strides[axis] as i64
                        })
                        .sum();
                    a.values[k as usize]
                })
                .collect()
        }
        (G::Concat, parts) if !parts.is_empty() => {
            let Some(AttrValue::Int(axis)) = attr("axis") else {
                return None;
            };
            let axis = shape::normalize_axis("Concat", axis, out_shape.len()).ok()?;
            let outer: usize = out_shape[..axis].iter().product::<i64>() as usize;
            let mut values = Vec::with_capacity(n);
            for o in 0..outer {
                for p in parts {
                    let chunk: usize = p.shape[axis..].iter().product::<i64>() as usize;
                    values.extend_from_slice(&p.values[o * chunk..(o + 1) * chunk]);
                }
            }
            values
        }
        (G::Pad, [a]) => {
            // Zero padding as rules build it (an enlarged conv kernel): every axis, no
            // cropping, the default value.
            let pads = ints("pads")?;
            let rank = a.shape.len();
            let zero_value = attr("constant_value").is_none();
            let constant_mode = match attr("mode") {
                None => true,
                Some(AttrValue::Str(m)) => m == "constant",
                Some(_) => false,
            };
            let cropping = pads.len() != 2 * rank || pads.iter().any(|&p| p < 0);
            if attr("axes").is_some() || cropping || !zero_value || !constant_mode {
                return None;
            }
            let out_strides = strides(&out_shape);
            let mut values = vec![0.0; n];
            for (flat, &v) in a.values.iter().enumerate() {
                let mut rest = flat;
                let mut k = 0;
                for axis in (0..rank).rev() {
                    let d = a.shape[axis] as usize;
                    k += (rest % d + pads[axis] as usize) * out_strides[axis];
                    rest /= d;
                }
                values[k] = v;
            }
            values
        }
        _ => return None,
    };
    if values.len() != n {
        return None;
    }
    let value = write(ctx, result_ty, fk, &values)?;
    let loc = ctx.op(op).loc;
    let state = op_state_with_types(
        ctx,
        "graph.constant",
        vec![],
        vec![("value".into(), value)],
        vec![result_ty],
        loc,
    );
    Some(ctx.create_op(state))
}

/// `values` as the attribute of a `ty` constant: inline when small, else a new blob.
fn write(ctx: &mut Context, ty: Type, kind: FloatKind, values: &[f64]) -> Option<Attr> {
    let uniform = values.iter().all(|v| v.to_bits() == values[0].to_bits());
    if values.len() <= INLINE_ELEMENTS || uniform {
        let elements = values
            .iter()
            .map(|&v| bits_from_f64(kind, v).map(DenseElement::Float))
            .collect::<Option<Vec<_>>>()?;
        let splat = elements.len() > 1 && elements.iter().all(|e| *e == elements[0]);
        let data = if splat {
            DenseData {
                splat: true,
                elements: vec![elements[0]],
            }
        } else {
            DenseData {
                splat: false,
                elements,
            }
        };
        return Some(ctx.intern_attr(AttrKind::DenseElements { ty, data }));
    }
    let bytes: Vec<u8> = match kind {
        FloatKind::F32 => values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    };
    let mut k = ctx.resources.len();
    let handle = loop {
        let h = format!("eqsat_folded_{k}");
        if !ctx.resources.contains_key(&h) {
            break h;
        }
        k += 1;
    };
    let alignment = if kind == FloatKind::F32 { 4 } else { 8 };
    Arc::make_mut(&mut ctx.resources).insert(
        handle.clone(),
        ResourceBlob {
            alignment,
            data: bytes,
        },
    );
    Some(ctx.intern_attr(AttrKind::DenseResource { handle, ty }))
}
