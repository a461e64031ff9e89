//! Matrix products: `graph.matmul` (numpy semantics: 1-D operands promoted, batch
//! dimensions broadcast) and `graph.gemm` (`alpha * A' B' + beta * C`) become a sum
//! reduction over `k`, Gemm's scaling and bias an elementwise epilogue.

use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{
    Combiner, LowerResult, Lowering, Reduction, broadcast_exprs, identity_exprs, no_lowering,
};
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::Matmul => matmul,
        GraphOp::Gemm => gemm,
        _ => return None,
    })
}

fn matmul(l: &mut Lowering) -> LowerResult {
    let (a, b) = (l.operand(0), l.operand(1));
    let (ash, bsh) = (l.shape(a), l.shape(b));
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let (a_matrix, b_matrix) = (ash.len() > 1, bsh.len() > 1);
    let k_extent = if a_matrix { ash[ash.len() - 1] } else { ash[0] };
    // Domain: the result dims, then k. The result is [batch..., M?, N?].
    let batch = out.len() - usize::from(a_matrix) - usize::from(b_matrix);
    let k = AffineExpr::dim(out.len() as u32);
    let m = AffineExpr::dim(batch as u32);
    let n = AffineExpr::dim((batch + usize::from(a_matrix)) as u32);
    let batch_shape = &out[..batch];
    let a_exprs = if a_matrix {
        let mut e = broadcast_exprs(&ash[..ash.len() - 2], batch_shape);
        e.extend([m, k.clone()]);
        e
    } else {
        vec![k.clone()]
    };
    let b_exprs = if b_matrix {
        let mut e = broadcast_exprs(&bsh[..bsh.len() - 2], batch_shape);
        e.extend([k, n]);
        e
    } else {
        vec![k]
    };
    let y = product(l, &out, element, k_extent, a, a_exprs, b, b_exprs)?;
    Ok(vec![y])
}

/// `sum_k a[a_exprs] * b[b_exprs]` over the result `out` and one reduction axis of
/// `k_extent`; f16/bf16 accumulate in f32, rounded once at the end.
#[allow(clippy::too_many_arguments)]
fn product(
    l: &mut Lowering,
    out: &[i64],
    element: tb_ir::Type,
    k_extent: i64,
    a: tb_ir::Value,
    a_exprs: Vec<AffineExpr>,
    b: tb_ir::Value,
    b_exprs: Vec<AffineExpr>,
) -> LowerResult<tb_ir::Value> {
    let acc = l.compute_type(element);
    if k_extent == 0 {
        return Ok(l.splat(out, element, 0.0));
    }
    let sum = l.compute(
        out,
        acc,
        Some(Reduction {
            extents: &[k_extent],
            combiner: Combiner::Sum,
        }),
        |body| {
            let x = body.read_widened(a, a_exprs);
            let y = body.read_widened(b, b_exprs);
            Ok(body.mul(x, y))
        },
    )?;
    narrow(l, sum, out, element)
}

/// `v` (a tensor of compute-type elements) as `element`s.
pub(super) fn narrow(
    l: &mut Lowering,
    v: tb_ir::Value,
    shape: &[i64],
    element: tb_ir::Type,
) -> LowerResult<tb_ir::Value> {
    if l.element(v) == element {
        return Ok(v);
    }
    l.compute(shape, element, None, |b| {
        Ok(b.read(v, identity_exprs(shape.len())))
    })
}

fn gemm(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (alpha, beta) = (a.f64("alpha")?, a.f64("beta")?);
    let (trans_a, trans_b) = (a.bool("trans_a")?, a.bool("trans_b")?);
    let (x, w) = (l.operand(0), l.operand(1));
    let c = (l.num_operands() > 2).then(|| l.operand(2));
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if !super::builder::is_float_type(l.ctx, element) {
        return Err(no_lowering("Gemm on integers"));
    }
    let k_extent = l.shape(x)[if trans_a { 0 } else { 1 }];
    let (i, j, k) = (AffineExpr::dim(0), AffineExpr::dim(1), AffineExpr::dim(2));
    let a_exprs = if trans_a {
        vec![k.clone(), i]
    } else {
        vec![i, k.clone()]
    };
    let b_exprs = if trans_b { vec![j, k] } else { vec![k, j] };
    let acc_ty = l.compute_type(element);
    let plain = alpha == 1.0 && c.is_none();
    let product_ty = if plain { element } else { acc_ty };
    let p = product(l, &out, product_ty, k_extent, x, a_exprs, w, b_exprs)?;
    if plain {
        return Ok(vec![p]);
    }
    let mut inputs = vec![p];
    inputs.extend(c);
    let y = l.map(&out, element, &inputs, |b, v| {
        let mut y = v[0];
        if alpha != 1.0 {
            let alpha = b.constant_like(alpha, y);
            y = b.mul(alpha, y);
        }
        if let Some(&c) = v.get(1) {
            let c = if beta != 1.0 {
                let beta = b.constant_like(beta, c);
                b.mul(beta, c)
            } else {
                c
            };
            y = b.add(y, c);
        }
        Ok(y)
    })?;
    Ok(vec![y])
}
