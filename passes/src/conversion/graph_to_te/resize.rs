//! `graph.resize`: each output element is a weighted sum of input elements, one to four
//! per resized axis (nearest, linear, cubic). The reads of every output coordinate come
//! from `tb_tensor`'s tap tables, the ones the kernel evaluates, written as constant
//! index and weight tensors that the body reads affinely; the input is then read at those
//! indices with `te.read_at`. Axes the resize leaves alone are read directly.

use tb_dialects::graph::{AxisTaps, ResizeMode, resize_attrs, resize_taps};
use tb_ir::Value;
use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{Cmp, LowerResult, Lowering, element_count, is_empty, no_lowering};
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    (kind == GraphOp::Resize).then_some(resize as LowerFn)
}

/// The constant tables of one resized axis.
struct Tables {
    taps: usize,
    index: Value,
    weight: Option<Value>,
    inside: Option<Value>,
}

fn resize(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (xs, out, element) = (l.shape(x), l.result_shape(0), l.result_element(0));
    let attrs = resize_attrs(&l.attrs(), xs.len())?;
    if is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    if is_empty(&xs) {
        return Err(no_lowering("a resize of an empty input"));
    }
    element_count(&out)?;
    let taps = resize_taps(&xs, &out, &attrs);
    let i64_ty = l.ctx.i64();
    let weight_ty = l.compute_type(element);
    let extrapolates = taps.iter().any(|t| t.inside.iter().any(|&b| !b));
    let tables: Vec<Option<Tables>> = taps
        .iter()
        .enumerate()
        .map(|(a, t): (usize, &AxisTaps)| {
            if t.is_identity() {
                return None;
            }
            let shape = [out[a], t.taps as i64];
            let index: Vec<f64> = t.index.iter().map(|&i| i as f64).collect();
            let index = l.dense(&shape, i64_ty, &index);
            let weight =
                (attrs.mode != ResizeMode::Nearest).then(|| l.dense(&shape, weight_ty, &t.weight));
            let inside = extrapolates.then(|| {
                let flags: Vec<f64> = t.inside.iter().map(|&b| f64::from(u8::from(b))).collect();
                l.dense(&[out[a]], i64_ty, &flags)
            });
            Some(Tables {
                taps: t.taps,
                index,
                weight,
                inside,
            })
        })
        .collect();
    let rank = out.len();
    let extrapolation = attrs.extrapolation_value;
    let y = l.compute(&out, element, None, |b| {
        let index_ty = b.ctx.index_type();
        // Per axis, the (index, weight) of each tap.
        let mut reads: Vec<Vec<(Value, Option<Value>)>> = Vec::with_capacity(rank);
        for (a, table) in tables.iter().enumerate() {
            let Some(t) = table else {
                reads.push(vec![(b.index(a), None)]);
                continue;
            };
            let mut axis = Vec::with_capacity(t.taps);
            for k in 0..t.taps {
                let at = vec![AffineExpr::dim(a as u32), AffineExpr::constant(k as i64)];
                let i = b.read(t.index, at.clone());
                let i = b.index_cast(i, index_ty);
                let w = t.weight.map(|w| b.read(w, at));
                axis.push((i, w));
            }
            reads.push(axis);
        }
        let mut pick = vec![0usize; rank];
        let mut total: Option<Value> = None;
        loop {
            let at: Vec<Value> = (0..rank).map(|a| reads[a][pick[a]].0).collect();
            let v = b.read_at(x, &at);
            let v = b.widen(v);
            let mut term = v;
            for a in 0..rank {
                if let Some(w) = reads[a][pick[a]].1 {
                    term = b.mul(term, w);
                }
            }
            total = Some(match total {
                Some(t) => b.add(t, term),
                None => term,
            });
            let mut a = rank;
            let done = loop {
                if a == 0 {
                    break true;
                }
                a -= 1;
                pick[a] += 1;
                if pick[a] < reads[a].len() {
                    break false;
                }
                pick[a] = 0;
            };
            if done {
                break;
            }
        }
        let total = total.ok_or_else(|| no_lowering("a resize with no reads"))?;
        if !extrapolates {
            return Ok(total);
        }
        let mut all_inside: Option<Value> = None;
        for (a, table) in tables.iter().enumerate() {
            if let Some(inside) = table.as_ref().and_then(|t| t.inside) {
                let flag = b.read(inside, vec![AffineExpr::dim(a as u32)]);
                let zero = b.constant_like(0.0, flag);
                let ok = b.cmp(Cmp::Ne, flag, zero);
                all_inside = Some(match all_inside {
                    Some(prev) => b.and(prev, ok),
                    None => ok,
                });
            }
        }
        let Some(inside) = all_inside else {
            return Ok(total);
        };
        let fill = b.constant_like(extrapolation, total);
        Ok(b.select(inside, total, fill))
    })?;
    Ok(vec![y])
}
