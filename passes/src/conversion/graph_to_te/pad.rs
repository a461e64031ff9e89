//! Pad. Output index `o` reads input index `o - begin` along each axis (negative pads
//! crop). `constant` mode is a padded read yielding `constant_value`; `wrap` reads
//! `(o - begin) mod n`; `edge` clamps and `reflect` mirrors (period `2 (n - 1)`), both
//! computed in the body and read with `te.read_at`.

use tb_dialects::graph::attrs::scalar;
use tb_dialects::graph::shape;
use tb_ir::Value;
use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{Cmp, LowerResult, Lowering, is_empty, no_lowering};
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    (kind == GraphOp::Pad).then_some(pad as LowerFn)
}

fn pad(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let mode = a.choice("mode", &["constant", "reflect", "edge", "wrap"])?;
    let pads = a.required_ints("pads")?;
    let axes = a.ints("axes")?;
    let value = a
        .get("constant_value")
        .and_then(|v| scalar(l.ctx, v))
        .map_or(0.0, |(_, s)| s.as_f64());
    let x = l.operand(0);
    let xs = l.shape(x);
    let g = shape::pad_geometry(&xs, &pads, axes.as_deref()).map_err(|e| e.message)?;
    let element = l.element(x);
    if is_empty(&g.output) {
        return Ok(vec![l.splat(&g.output, element, 0.0)]);
    }
    let padded = (0..xs.len()).any(|d| g.begin[d] > 0 || g.end[d] > 0);
    if is_empty(&xs) {
        if mode != "constant" {
            return Err(no_lowering(format!("{mode} padding of an empty tensor")));
        }
        return Ok(vec![l.splat(&g.output, element, value)]);
    }
    let at: Vec<AffineExpr> = (0..xs.len())
        .map(|d| AffineExpr::dim(d as u32) - g.begin[d])
        .collect();
    let y = l.compute(&g.output, element, None, |b| {
        Ok(match mode.as_str() {
            "constant" if padded => b.read_padded(x, at, value),
            "wrap" => {
                let wrapped = at.into_iter().zip(&xs).map(|(e, &n)| e.modulo(n)).collect();
                b.read(x, wrapped)
            }
            "edge" | "reflect" => {
                let mut indices: Vec<Value> = Vec::with_capacity(xs.len());
                for (d, e) in at.iter().enumerate() {
                    let n = xs[d];
                    let i = if mode == "edge" || n == 1 {
                        let i = b.apply(e);
                        b.clamp_index(i, 0, n - 1)
                    } else {
                        // Mirror without repeating the edge.
                        let period = 2 * (n - 1);
                        let r = b.apply(&e.clone().modulo(period));
                        let n = b.index_constant(n);
                        let inside = b.cmp(Cmp::Lt, r, n);
                        let period = b.index_constant(period);
                        let mirrored = b.sub(period, r);
                        b.select(inside, r, mirrored)
                    };
                    indices.push(i);
                }
                b.read_at(x, &indices)
            }
            _ => b.read(x, at),
        })
    })?;
    Ok(vec![y])
}
