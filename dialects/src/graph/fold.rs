//! Folding of graph ops: ops that forward an operand unchanged (`identity`, a reshape to
//! the same type, a transpose by the identity permutation, `x * 1` ...) fold to it, and ops
//! on constants fold to constants.
//!
//! Constant folding targets the shape subgraphs ONNX exporters emit (`Shape → Gather →
//! Unsqueeze → Concat → Reshape`, `Range`, `ConstantOfShape`, `Equal`, `Where`, `Expand`,
//! `Cast` ...): every op whose operands are static shapes or constants computes its value
//! with `tb_tensor`'s ONNX kernels, the ones the interpreter runs, so folding and execution
//! agree by construction. Folding is budgeted: no operand is expanded and no result computed
//! beyond [`MAX_FOLD_ELEMENTS`](super::literal::MAX_FOLD_ELEMENTS) elements (the op stays);
//! splats of any size fold where the splat value alone decides the result.

use tb_ir::registry::FoldResult;
use tb_ir::{Attr, Context, OpId};

use tb_tensor::kernels::elementwise::{self as ew, Binary, Compare, Logic};
use tb_tensor::kernels::{reduce as rk, shape_ops as so};
use tb_tensor::{DType, ReduceKind, Tensor, Unary};

use super::attrs::{Attrs, Scalar, scalar};
use super::literal::{Literal, dtype_of, foldable_count};
use super::shape;
use super::types::{element_kind, static_tensor};

/// The fold hook of every graph op.
pub fn fold_op(ctx: &Context, op: OpId, constants: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let name = ctx.op_name(op).strip_prefix("graph.")?;
    let data = ctx.op(op);
    if data.results.len() != 1 {
        return None;
    }
    if let Some(v) = forward(ctx, op, name, constants) {
        return Some(vec![FoldResult::Value(v)]);
    }
    // Constant results need constant operands, except for what static types tell.
    if !matches!(name, "shape" | "size") && constants.iter().any(Option::is_none) {
        return None;
    }
    // The arithmetic below trusts shapes and attributes: fold only what verifies.
    let info = ctx.op_info_of(op)?;
    tb_ir::ods::verify_op(ctx, op, info.def?).ok()?;
    (info.verify?)(ctx, op).ok()?;
    let result_ty = ctx.value_type(data.results[0]);
    let (out_shape, out_element) = static_tensor(ctx, result_ty)?;
    let out = Out {
        shape: out_shape.to_vec(),
        dtype: dtype_of(element_kind(ctx, out_element)?)?,
    };
    let literals: Vec<Option<Literal>> = constants
        .iter()
        .map(|c| c.and_then(|a| Literal::from_attr(ctx, a)))
        .collect();
    let attrs = Attrs::of_op(ctx, op);
    let folded = compute(ctx, op, name, &literals, &attrs, &out)?;
    Some(vec![FoldResult::NewAttr(
        folded.to_attr_kind(ctx, result_ty)?,
    )])
}

/// The result type the fold must produce.
struct Out {
    shape: Vec<i64>,
    dtype: DType,
}

/// The operand an op passes through unchanged, if it does.
fn forward(
    ctx: &Context,
    op: OpId,
    name: &str,
    constants: &[Option<Attr>],
) -> Option<tb_ir::Value> {
    let data = ctx.op(op);
    let input = *data.operands.first()?;
    let same_type = ctx.value_type(input) == ctx.value_type(data.results[0]);
    let attrs = Attrs::of_op(ctx, op);
    let forwards = match name {
        "identity" => true,
        // Reshape-like ops keep the element order: same type, same value.
        "reshape" | "flatten" | "squeeze" | "unsqueeze" | "expand" | "cast" => same_type,
        "tile" => same_type && attrs.ints("repeats").ok()??.iter().all(|&r| r == 1),
        "transpose" => {
            let rank = static_tensor(ctx, ctx.value_type(input))?.0.len();
            match attrs.ints("perm").ok()? {
                Some(p) => p.iter().enumerate().all(|(i, &d)| d == i as i64),
                None => rank <= 1,
            }
        }
        // A same-shaped slice with positive steps takes every element in order.
        "slice" => {
            same_type
                && attrs
                    .ints("steps")
                    .ok()?
                    .is_none_or(|s| s.iter().all(|&s| s > 0))
        }
        "pad" => same_type && attrs.ints("pads").ok()??.iter().all(|&p| p == 0),
        "concat" | "max" | "min" | "sum" | "mean" => same_type && data.operands.len() == 1,
        // x + 0 and x - 0 are exact for integers; x - 0.0, x * 1 and x / 1 for floats too.
        "add" | "sub" | "mul" | "div" => {
            let rhs = constants.get(1).copied().flatten()?;
            // A splat or one element: the same value for every element of the lhs.
            let value = Literal::from_attr(ctx, rhs)?.splat_value()?;
            let v = *value.to_f64_vec().first()?;
            let float = value.dtype().is_float();
            let identity = match name {
                "add" => !float && v == 0.0,
                "sub" => v == 0.0 && !v.is_sign_negative(),
                _ => v == 1.0,
            };
            same_type && identity
        }
        _ => false,
    };
    forwards.then_some(input)
}

/// The constant value of an op whose inputs are known.
fn compute(
    ctx: &Context,
    op: OpId,
    name: &str,
    lits: &[Option<Literal>],
    attrs: &Attrs,
    out: &Out,
) -> Option<Literal> {
    let lit = |i: usize| lits.get(i).and_then(|l| l.as_ref());
    let all = || {
        lits.iter()
            .map(|l| l.as_ref())
            .collect::<Option<Vec<&Literal>>>()
    };
    let operand_shape = |i: usize| -> Option<Vec<i64>> {
        let v = *ctx.op(op).operands.get(i)?;
        Some(static_tensor(ctx, ctx.value_type(v))?.0.to_vec())
    };
    let result = match name {
        // Shape producers need no constant operands.
        "shape" => {
            let dims = operand_shape(0)?;
            let (s, e) = shape::shape_bounds(
                &dims,
                attrs.opt_i64("start").ok()?,
                attrs.opt_i64("end").ok()?,
            );
            Tensor::from_vec(out.shape.clone(), dims[s..e].to_vec()).ok()?
        }
        // A count beyond i64 is not folded (the op stays, and its verifier or the
        // runtime reports it) rather than wrapped.
        "size" => {
            let n = shape::checked_num_elements(&operand_shape(0)?)?;
            Tensor::from_vec(out.shape.clone(), vec![n]).ok()?
        }
        // One value whatever the size: a splat, never expanded.
        "constant_of_shape" => {
            let value = match attrs.get("value") {
                Some(a) => scalar_tensor(ctx, a)?,
                None => Tensor::scalar(0.0f32),
            };
            return Some(splat(out, value.cast(out.dtype)));
        }
        "range" => {
            foldable_count(&out.shape)?;
            let bound = |n: &str| Some(scalar_tensor(ctx, attrs.get(n)?)?.cast(out.dtype));
            so::range(&bound("start")?, &bound("limit")?, &bound("delta")?).ok()?
        }
        "add" | "sub" | "mul" | "div" | "mod" | "max" | "min" | "sum" | "mean" | "equal"
        | "less" | "less_or_equal" | "greater" | "greater_or_equal" | "and" | "or" | "xor"
        | "not" | "neg" | "abs" | "sign" | "where" | "cast" => {
            return elementwise(name, &all()?, attrs, out);
        }
        "expand" | "reshape" | "flatten" | "squeeze" | "unsqueeze" | "identity" | "transpose"
        | "tile" | "slice" => {
            let x = lit(0)?;
            // Moving the elements of a splat moves copies of one value.
            if let Literal::Splat { value, .. } = x {
                return Some(splat(out, value.clone()));
            }
            foldable_count(&out.shape)?;
            movement(name, &x.expanded()?, attrs)?
        }
        "gather" => return gather(lit(0)?, lit(1)?, attrs.i64("axis").ok()?, out),
        "concat" => {
            let inputs = all()?;
            let values: Vec<Option<Tensor>> = inputs.iter().map(|l| l.splat_value()).collect();
            if let Some(Some(first)) = values.first()
                && values.iter().all(|v| v.as_ref() == Some(first))
            {
                return Some(splat(out, first.clone()));
            }
            foldable_count(&out.shape)?;
            let tensors = inputs
                .iter()
                .map(|l| l.expanded())
                .collect::<Option<Vec<Tensor>>>()?;
            let refs: Vec<&Tensor> = tensors.iter().collect();
            so::concat(&refs, attrs.i64("axis").ok()?).ok()?
        }
        "reduce_sum" | "reduce_prod" | "reduce_max" | "reduce_min" => {
            let kind = match name {
                "reduce_sum" => ReduceKind::Sum,
                "reduce_prod" => ReduceKind::Prod,
                "reduce_max" => ReduceKind::Max,
                _ => ReduceKind::Min,
            };
            foldable_count(&out.shape)?;
            rk::reduce(
                &lit(0)?.expanded()?,
                kind,
                &attrs.ints("axes").ok()?.unwrap_or_default(),
                attrs.bool("keepdims").ok()?,
                attrs.bool("noop_with_empty_axes").ok()?,
            )
            .ok()?
        }
        _ => return None,
    };
    Some(Literal::Dense(result))
}

/// A scalar attribute (`value`, `start` ...) as a rank-0 tensor of its own type.
fn scalar_tensor(ctx: &Context, attr: Attr) -> Option<Tensor> {
    let (ty, value) = scalar(ctx, attr)?;
    let dtype = dtype_of(element_kind(ctx, ty)?)?;
    Some(match value {
        // Through i64 bits: the cast wraps them into the type, as the attribute holds them.
        Scalar::Int(i) => Tensor::scalar(i as i64).cast(dtype),
        Scalar::Float(f) => Tensor::scalar(f).cast(dtype),
    })
}

/// `value` (rank 0) for every element of the result.
fn splat(out: &Out, value: Tensor) -> Literal {
    if shape::checked_num_elements(&out.shape) == Some(1)
        && let Ok(t) = value.clone().reshape(out.shape.clone())
    {
        return Literal::Dense(t);
    }
    Literal::Splat {
        shape: out.shape.clone(),
        value,
    }
}

/// Elementwise ops with broadcasting: on the splat values alone when every operand is a
/// splat, else on the expanded operands within the budget.
fn elementwise(name: &str, inputs: &[&Literal], attrs: &Attrs, out: &Out) -> Option<Literal> {
    if let Some(values) = inputs
        .iter()
        .map(|l| l.splat_value())
        .collect::<Option<Vec<Tensor>>>()
    {
        let refs: Vec<&Tensor> = values.iter().collect();
        return Some(splat(out, apply_elementwise(name, &refs, attrs, out)?));
    }
    foldable_count(&out.shape)?;
    let tensors = inputs
        .iter()
        .map(|l| l.expanded())
        .collect::<Option<Vec<Tensor>>>()?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    Some(Literal::Dense(apply_elementwise(name, &refs, attrs, out)?))
}

fn apply_elementwise(name: &str, xs: &[&Tensor], attrs: &Attrs, out: &Out) -> Option<Tensor> {
    let x = |i: usize| xs.get(i).copied();
    let binary = |op| ew::binary(x(0)?, x(1)?, op).ok();
    let compare = |op| ew::compare(x(0)?, x(1)?, op).ok();
    let logic = |op| ew::logic(x(0)?, x(1)?, op).ok();
    let unary = |op| ew::unary(x(0)?, op).ok();
    match name {
        "add" => binary(Binary::Add),
        "sub" => binary(Binary::Sub),
        "mul" => binary(Binary::Mul),
        "div" => binary(Binary::Div),
        "mod" => binary(Binary::Mod {
            fmod: attrs.bool("fmod").unwrap_or(false),
        }),
        "max" => ew::max(xs).ok(),
        "min" => ew::min(xs).ok(),
        "sum" => ew::sum(xs).ok(),
        "mean" => ew::mean(xs).ok(),
        "equal" => compare(Compare::Equal),
        "less" => compare(Compare::Less),
        "less_or_equal" => compare(Compare::LessOrEqual),
        "greater" => compare(Compare::Greater),
        "greater_or_equal" => compare(Compare::GreaterOrEqual),
        "and" => logic(Logic::And),
        "or" => logic(Logic::Or),
        "xor" => logic(Logic::Xor),
        "not" => ew::not(x(0)?).ok(),
        "neg" => unary(Unary::Neg),
        "abs" => unary(Unary::Abs),
        "sign" => unary(Unary::Sign),
        "where" => ew::where_(x(0)?, x(1)?, x(2)?).ok(),
        "cast" => cast(x(0)?, out.dtype),
        _ => None,
    }
}

/// Cast, except a float that does not survive the cast to an integer (NaN, an infinity, a
/// value out of range), whose result ONNX leaves undefined: that cast stays for the runtime.
fn cast(x: &Tensor, to: DType) -> Option<Tensor> {
    let y = so::cast(x, to).ok()?;
    if x.dtype().is_float() && to.is_int() {
        let back = y.to_f64_vec();
        let exact = x
            .to_f64_vec()
            .iter()
            .zip(&back)
            .all(|(a, b)| a.trunc() == *b);
        if !exact {
            return None;
        }
    }
    Some(y)
}

/// Ops that move elements without computing on them, on a dense operand.
fn movement(name: &str, x: &Tensor, attrs: &Attrs) -> Option<Tensor> {
    let ints = |n: &str| attrs.ints(n).ok();
    let required = |n: &str| attrs.required_ints(n).ok();
    match name {
        "expand" => so::expand(x, &required("shape")?),
        "reshape" => so::reshape(x, &required("shape")?, attrs.bool("allowzero").ok()?),
        "flatten" => so::flatten(x, attrs.i64("axis").ok()?),
        "squeeze" => so::squeeze(x, ints("axes")?.as_deref()),
        "unsqueeze" => so::unsqueeze(x, &required("axes")?),
        "identity" => so::identity(x),
        "transpose" => so::transpose(x, ints("perm")?.as_deref()),
        "tile" => so::tile(x, &required("repeats")?),
        "slice" => so::slice(
            x,
            &required("starts")?,
            &required("ends")?,
            ints("axes")?.as_deref(),
            ints("steps")?.as_deref(),
        ),
        _ => return None,
    }
    .ok()
}

/// Gather. From splat data every result element is the splat value once every index is in
/// range, which the kernel checks on the data reduced to the gathered axis; splat indices
/// are checked once, never expanded.
fn gather(data: &Literal, indices: &Literal, axis: i64, out: &Out) -> Option<Literal> {
    if let Literal::Splat { shape: dims, value } = data {
        let a = shape::normalize_axis("Gather", axis, dims.len()).ok()?;
        let mut line = vec![1; dims.len()];
        line[a] = dims[a];
        foldable_count(&line)?;
        let column = so::expand(value, &line).ok()?;
        let index = indices.splat_value().or_else(|| indices.expanded())?;
        so::gather(&column, &index, axis).ok()?;
        return Some(splat(out, value.clone()));
    }
    foldable_count(&out.shape)?;
    let index = indices.expanded()?;
    Some(Literal::Dense(
        so::gather(&data.expanded()?, &index, axis).ok()?,
    ))
}
