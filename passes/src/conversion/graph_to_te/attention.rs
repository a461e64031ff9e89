//! `graph.attention`: six `te.compute`s that never spell out the softmax as a chain.
//!
//! - `scores[b,h,i,j] = Σ_d Q[b,h,i,d] · K[b,h/g,j,d]` (a contraction; `g` query heads share
//!   a key/value head, read through `h floordiv g`);
//! - `max[b,h,i] = max_j z(b,h,i,j)` and `p[b,h,i,j] = exp(z(b,h,i,j) - max[b,h,i])`, where
//!   `z` is the scaled, soft-capped, masked score, computed inside both bodies (te-fuse
//!   would inline it anyway; no tensor of `z` exists);
//! - `sum[b,h,i] = Σ_j p`, `pv[b,h,i,e] = Σ_j p[b,h,i,j] · V[b,h/g,j,e]` and
//!   `Y = pv / sum[b,h,i]`.
//!
//! Against the unfused chain (matmul, scale, mask add, max, exp-sum, exp-divide, matmul)
//! the exponential is taken once per score instead of twice, the division happens once per
//! output element instead of once per score, and K is read in place (no transposed copy).

use tb_dialects::graph::{AttentionDims, GraphOp, attention_attrs, attention_dims};
use tb_ir::Value;
use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{
    Body, Cmp, Combiner, LowerResult, Lowering, Reduction, broadcast_exprs, identity_exprs,
    is_empty, is_float_type, no_lowering,
};

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    (kind == GraphOp::Attention).then_some(attention as LowerFn)
}

fn dim(k: usize) -> AffineExpr {
    AffineExpr::dim(k as u32)
}

/// The key/value head a query head `h` (domain dim 1) reads.
fn kv_head(d: &AttentionDims) -> AffineExpr {
    if d.group() == 1 {
        dim(1)
    } else {
        dim(1).floor_div(d.group())
    }
}

/// What turns a raw score into the softmax's input.
struct Logit {
    scale: f64,
    softcap: f64,
    causal: bool,
    mask: Option<(Value, Vec<i64>)>,
    scores_shape: Vec<i64>,
}

impl Logit {
    /// `z` at `(b, h, i, j)` given by the domain dims `at`, from `scores` read there.
    fn emit(&self, body: &mut Body, scores: Value, at: [AffineExpr; 4]) -> LowerResult<Value> {
        let s = body.read(scores, at.to_vec());
        let mut z = if self.scale == 1.0 {
            s
        } else {
            let c = body.constant_like(self.scale, s);
            body.mul(s, c)
        };
        if self.softcap > 0.0 {
            let cap = body.constant_like(self.softcap, z);
            let t = body.div(z, cap);
            let t = body.math("math.tanh", t);
            z = body.mul(t, cap);
        }
        if let Some((mask, shape)) = &self.mask {
            let exprs = broadcast_exprs(shape, &self.scores_shape);
            let full: Vec<AffineExpr> = exprs
                .iter()
                .map(|e| e.replace_dims_and_symbols(&at, &[]))
                .collect();
            let m = body.read_widened(*mask, full);
            z = body.add(z, m);
        }
        if self.causal {
            let (i, j) = (body.apply(&at[2]), body.apply(&at[3]));
            let hidden = body.cmp(Cmp::Gt, j, i);
            let minus_inf = body.constant_like(f64::NEG_INFINITY, z);
            z = body.select(hidden, minus_inf, z);
        }
        Ok(z)
    }
}

fn attention(l: &mut Lowering) -> LowerResult {
    let [q, k, v] = [0, 1, 2].map(|i| l.operand(i));
    let mask = (l.num_operands() > 3).then(|| l.operand(3));
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if !is_float_type(l.ctx, element) {
        return Err(no_lowering("attention on integers"));
    }
    let mask_shape = mask.map(|m| l.shape(m));
    let d = attention_dims(&l.shape(q), &l.shape(k), &l.shape(v), mask_shape.as_deref())
        .map_err(|e| e.message)?;
    let attrs = attention_attrs(&l.attrs())?;
    if is_empty(&out) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    if d.kv_len == 0 {
        // Softmax over no keys is NaN, as the reference computes it.
        return Ok(vec![l.splat(&out, element, f64::NAN)]);
    }
    let acc = l.compute_type(element);
    let scores_shape = d.scores_shape();
    let kvh = kv_head(&d);
    let scores = if d.head_size == 0 {
        l.splat(&scores_shape, acc, 0.0)
    } else {
        l.compute(
            &scores_shape,
            acc,
            Some(Reduction {
                extents: &[d.head_size],
                combiner: Combiner::Sum,
            }),
            |b| {
                let x = b.read_widened(q, vec![dim(0), dim(1), dim(2), dim(4)]);
                let y = b.read_widened(k, vec![dim(0), kvh.clone(), dim(3), dim(4)]);
                Ok(b.mul(x, y))
            },
        )?
    };
    let logit = Logit {
        scale: d.scale(&attrs),
        softcap: attrs.softcap,
        causal: attrs.is_causal,
        mask: mask.zip(mask_shape),
        scores_shape: scores_shape.clone(),
    };
    let row = vec![d.batch, d.q_heads, d.q_len, 1];
    let kv = Some(Reduction {
        extents: &[d.kv_len],
        combiner: Combiner::Max,
    });
    // The row maximum: domain (b, h, i, 0, j).
    let max = l.compute(&row, acc, kv, |b| {
        logit.emit(b, scores, [dim(0), dim(1), dim(2), dim(4)])
    })?;
    let p = l.compute(&scores_shape, acc, None, |b| {
        let z = logit.emit(b, scores, [dim(0), dim(1), dim(2), dim(3)])?;
        let m = b.read(max, vec![dim(0), dim(1), dim(2), AffineExpr::constant(0)]);
        let shifted = b.sub(z, m);
        Ok(b.math("math.exp", shifted))
    })?;
    let extent = [d.kv_len];
    let sum_over_keys = Some(Reduction {
        extents: &extent,
        combiner: Combiner::Sum,
    });
    let sum = l.compute(&row, acc, sum_over_keys, |b| {
        Ok(b.read(p, vec![dim(0), dim(1), dim(2), dim(4)]))
    })?;
    let weighted = l.compute(&out, acc, sum_over_keys, |b| {
        let w = b.read(p, vec![dim(0), dim(1), dim(2), dim(4)]);
        let x = b.read_widened(v, vec![dim(0), kvh.clone(), dim(4), dim(3)]);
        Ok(b.mul(w, x))
    })?;
    let y = l.compute(&out, element, None, |b| {
        let w = b.read(weighted, identity_exprs(4));
        let s = b.read(sum, vec![dim(0), dim(1), dim(2), AffineExpr::constant(0)]);
        Ok(b.div(w, s))
    })?;
    Ok(vec![y])
}
