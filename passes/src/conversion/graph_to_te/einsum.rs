//! `graph.einsum`: one `te.compute` over the output's labels whose reduction axes are the
//! summed labels; each input is read through the affine map of its labels (a repeated
//! label reads a diagonal, a broadcast 1 reads 0), and the body multiplies the reads.

use tb_dialects::graph::einsum_plan;
use tb_ir::affine::AffineExpr;

use super::LowerFn;
use super::builder::{Combiner, LowerResult, Lowering, Reduction, element_count, is_empty};
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    (kind == GraphOp::Einsum).then_some(einsum as LowerFn)
}

fn einsum(l: &mut Lowering) -> LowerResult {
    let inputs = l.operands();
    let shapes: Vec<Vec<i64>> = inputs.iter().map(|&v| l.shape(v)).collect();
    let refs: Vec<&[i64]> = shapes.iter().map(Vec::as_slice).collect();
    let plan = einsum_plan(&l.attrs().string("equation")?, &refs)?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    if is_empty(&out) || is_empty(plan.summed()) {
        return Ok(vec![l.splat(&out, element, 0.0)]);
    }
    element_count(plan.summed())?;
    let acc = l.compute_type(element);
    let summed = plan.summed().to_vec();
    let reduction = (!summed.is_empty()).then_some(Reduction {
        extents: &summed,
        combiner: Combiner::Sum,
    });
    let y = l.compute(&out, acc, reduction, |b| {
        let mut product = None;
        for (k, &input) in inputs.iter().enumerate() {
            let exprs: Vec<AffineExpr> = plan.inputs[k]
                .iter()
                .map(|l| l.map_or(AffineExpr::constant(0), |l| AffineExpr::dim(l as u32)))
                .collect();
            let v = b.read_widened(input, exprs);
            product = Some(match product {
                Some(p) => b.mul(p, v),
                None => v,
            });
        }
        product.ok_or_else(|| "an einsum of no inputs".to_string())
    })?;
    Ok(vec![super::matmul::narrow(l, y, &out, element)?])
}
