//! Folding of graph ops: ops that forward an operand unchanged (`identity`, a reshape to
//! the same type, a transpose by the identity permutation, `x * 1` ...) fold to it, and ops
//! on constants fold to constants.
//!
//! Constant folding targets the shape subgraphs ONNX exporters emit (`Shape → Gather →
//! Unsqueeze → Concat → Reshape`, `Range`, `ConstantOfShape`, `Equal`, `Where`, `Expand`,
//! `Cast` ...): every op whose operands are static shapes or small constants computes its
//! value here, in the element type's arithmetic (integers wrap, floats round to their
//! format). Results with more than [`MAX_FOLD_ELEMENTS`] distinct elements are not folded.

use tb_ir::registry::FoldResult;
use tb_ir::{Attr, Context, OpId, Type};

use super::attrs::{Attrs, Scalar, scalar};
use super::literal::{Literal, MAX_FOLD_ELEMENTS, Value, Values, count, strides, unravel};
use super::shape;
use super::types::{ElementKind, element_kind, static_tensor};

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
        element: out_element,
        kind: element_kind(ctx, out_element)?,
    };
    let literals: Vec<Option<Literal>> = constants
        .iter()
        .map(|c| c.and_then(|a| Literal::from_attr(ctx, a)))
        .collect();
    let attrs = Attrs::of_op(ctx, op);
    let folded = compute(ctx, op, name, &literals, &attrs, &out)?;
    if !folded.splat && folded.len() > MAX_FOLD_ELEMENTS {
        return None;
    }
    Some(vec![FoldResult::NewAttr(
        folded.to_attr_kind(ctx, result_ty)?,
    )])
}

/// The result type the fold must produce.
struct Out {
    shape: Vec<i64>,
    element: Type,
    kind: ElementKind,
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
            let lit = Literal::from_attr(ctx, rhs)?;
            let splat = lit.splat || lit.len() == 1;
            let identity = match name {
                "add" => !lit.kind.is_float() && lit.get(0).as_f64() == 0.0,
                "sub" => lit.get(0).as_f64() == 0.0 && !is_negative_zero(lit.get(0)),
                _ => lit.get(0).as_f64() == 1.0,
            };
            same_type && splat && identity
        }
        _ => false,
    };
    forwards.then_some(input)
}

fn is_negative_zero(v: Value) -> bool {
    matches!(v, Value::Float(f) if f == 0.0 && f.is_sign_negative())
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
    match name {
        // Shape producers need no constant operands.
        "shape" => {
            let dims = operand_shape(0)?;
            let (s, e) = shape::shape_bounds(
                &dims,
                attrs.opt_i64("start").ok()?,
                attrs.opt_i64("end").ok()?,
            );
            Some(ints(out, dims[s..e].iter().map(|&d| d as i128).collect()))
        }
        // A count beyond i64 is not folded (the op stays, and its verifier or the
        // runtime reports it) rather than wrapped.
        "size" => Some(ints(
            out,
            vec![shape::checked_num_elements(&operand_shape(0)?)? as i128],
        )),
        "constant_of_shape" => {
            let value = match attrs.get("value") {
                Some(a) => scalar(ctx, a)?.1,
                None => Scalar::Float(0.0),
            };
            Some(splat(out, from_scalar(value, out.kind)))
        }
        "range" => range(ctx, attrs, out),
        "add" | "sub" | "mul" | "div" | "mod" | "max" | "min" | "sum" | "mean" => {
            let fmod = attrs.bool("fmod").unwrap_or(false);
            let n = lits.len() as f64;
            broadcast_map(&all()?, out, |v| arith(name, v, out.kind, fmod, n))
        }
        "equal" | "less" | "less_or_equal" | "greater" | "greater_or_equal" => {
            broadcast_map(&all()?, out, |v| compare(name, v[0], v[1]))
        }
        "and" | "or" | "xor" => broadcast_map(&all()?, out, |v| {
            let (a, b) = (int(v[0])? != 0, int(v[1])? != 0);
            let r = match name {
                "and" => a && b,
                "or" => a || b,
                _ => a != b,
            };
            Some(Value::Int(r as i128))
        }),
        "not" => broadcast_map(&all()?, out, |v| {
            Some(Value::Int((int(v[0])? == 0) as i128))
        }),
        "neg" | "abs" | "sign" => broadcast_map(&all()?, out, |v| unary(name, v[0])),
        "where" => broadcast_map(&all()?, out, |v| {
            Some(if int(v[0])? != 0 { v[1] } else { v[2] })
        }),
        "cast" => {
            let x = lit(0)?;
            broadcast_map(&[x], out, |v| cast(v[0], out.kind))
        }
        "expand" => broadcast_map(&[lit(0)?], out, |v| Some(v[0])),
        "reshape" | "flatten" | "squeeze" | "unsqueeze" | "identity" => {
            Some(lit(0)?.reshaped(out.shape.clone(), out.element))
        }
        "transpose" => {
            let x = lit(0)?;
            let perm = shape::transpose_perm(&x.shape, attrs.ints("perm").ok()?.as_deref()).ok()?;
            let in_strides = strides(&x.shape);
            x.gather(out.shape.clone(), out.element, |i| {
                let idx = unravel(i as i64, &out.shape);
                Some(
                    perm.iter()
                        .zip(&idx)
                        .map(|(&p, &k)| k * in_strides[p])
                        .sum::<i64>() as usize,
                )
            })
        }
        "tile" => {
            let x = lit(0)?;
            let in_strides = strides(&x.shape);
            x.gather(out.shape.clone(), out.element, |i| {
                let idx = unravel(i as i64, &out.shape);
                let flat: i64 = idx
                    .iter()
                    .zip(&x.shape)
                    .zip(&in_strides)
                    .map(|((&k, &d), &s)| (k % d) * s)
                    .sum();
                Some(flat as usize)
            })
        }
        "slice" => {
            let x = lit(0)?;
            let g = shape::slice_geometry(
                &x.shape,
                &attrs.required_ints("starts").ok()?,
                &attrs.required_ints("ends").ok()?,
                attrs.ints("axes").ok()?.as_deref(),
                attrs.ints("steps").ok()?.as_deref(),
            )
            .ok()?;
            let in_strides = strides(&x.shape);
            x.gather(out.shape.clone(), out.element, |i| {
                let idx = unravel(i as i64, &out.shape);
                let flat: i64 = (0..idx.len())
                    .map(|k| (g.starts[k] + idx[k] * g.steps[k]) * in_strides[k])
                    .sum();
                Some(flat as usize)
            })
        }
        "gather" => gather(lit(0)?, lit(1)?, attrs.i64("axis").ok()?, out),
        "concat" => concat(&all()?, attrs.i64("axis").ok()?, out),
        "reduce_sum" | "reduce_prod" | "reduce_max" | "reduce_min" => {
            reduce(name, lit(0)?, attrs, out)
        }
        _ => None,
    }
}

fn int(v: Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i),
        Value::Float(_) => None,
    }
}

fn ints(out: &Out, values: Vec<i128>) -> Literal {
    Literal::new(
        out.shape.clone(),
        out.element,
        out.kind,
        Values::Int(values),
    )
}

fn splat(out: &Out, v: Value) -> Literal {
    let values = match v {
        Value::Int(i) => Values::Int(vec![i]),
        Value::Float(f) => Values::Float(vec![f]),
    };
    Literal::new(out.shape.clone(), out.element, out.kind, values)
}

fn from_scalar(s: Scalar, kind: ElementKind) -> Value {
    match (s, kind.is_float()) {
        (Scalar::Int(i), false) => Value::Int(i),
        (Scalar::Float(f), false) => Value::Int(f as i128),
        (s, true) => Value::Float(s.as_f64()),
    }
}

/// Applies `f` elementwise with numpy broadcasting of `inputs` to the result shape.
fn broadcast_map(
    inputs: &[&Literal],
    out: &Out,
    mut f: impl FnMut(&[Value]) -> Option<Value>,
) -> Option<Literal> {
    let n = count(&out.shape);
    let as_values = |v: Vec<Value>| -> Option<Values> {
        if out.kind.is_float() {
            Some(Values::Float(
                v.into_iter()
                    .map(|x| match x {
                        Value::Float(f) => Some(f),
                        Value::Int(_) => None,
                    })
                    .collect::<Option<_>>()?,
            ))
        } else {
            Some(Values::Int(v.into_iter().map(int).collect::<Option<_>>()?))
        }
    };
    if inputs.iter().all(|l| l.splat) && n != 1 {
        let args: Vec<Value> = inputs.iter().map(|l| l.get(0)).collect();
        let v = f(&args)?;
        return Some(Literal::new(
            out.shape.clone(),
            out.element,
            out.kind,
            as_values(vec![v])?,
        ));
    }
    if n > MAX_FOLD_ELEMENTS {
        return None;
    }
    let rank = out.shape.len();
    let input_strides: Vec<Vec<i64>> = inputs.iter().map(|l| strides(&l.shape)).collect();
    let mut values = Vec::with_capacity(n);
    let mut args = Vec::with_capacity(inputs.len());
    for i in 0..n {
        let idx = unravel(i as i64, &out.shape);
        args.clear();
        for (l, st) in inputs.iter().zip(&input_strides) {
            let offset = rank.checked_sub(l.shape.len())?;
            let flat: i64 = (0..l.shape.len())
                .map(|k| {
                    if l.shape[k] == 1 {
                        0
                    } else {
                        idx[k + offset] * st[k]
                    }
                })
                .sum();
            args.push(l.get(flat as usize));
        }
        values.push(f(&args)?);
    }
    Some(Literal::new(
        out.shape.clone(),
        out.element,
        out.kind,
        as_values(values)?,
    ))
}

/// Binary and variadic arithmetic; `None` where the value is undefined (division by zero).
fn arith(name: &str, v: &[Value], kind: ElementKind, fmod: bool, n: f64) -> Option<Value> {
    if let ElementKind::Float(_) = kind {
        let x: Vec<f64> = v.iter().map(|a| a.as_f64()).collect();
        let r = match name {
            "add" => x[0] + x[1],
            "sub" => x[0] - x[1],
            "mul" => x[0] * x[1],
            "div" => x[0] / x[1],
            "mod" => x[0] % x[1],
            "max" => x.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            }),
            "min" => x.iter().copied().fold(f64::INFINITY, |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.min(b)
                }
            }),
            "sum" => x.iter().sum(),
            "mean" => x.iter().sum::<f64>() / n,
            _ => return None,
        };
        return Some(Value::Float(r));
    }
    let x: Vec<i128> = v.iter().map(|&a| int(a)).collect::<Option<_>>()?;
    let r = match name {
        "add" => x[0] + x[1],
        "sub" => x[0] - x[1],
        "mul" => x[0].checked_mul(x[1])?,
        // Integer division truncates toward zero, as ONNX runtimes do.
        "div" => x[0].checked_div(x[1])?,
        "mod" if fmod => x[0].checked_rem(x[1])?,
        // Python's %: the remainder takes the divisor's sign.
        "mod" => {
            let r = x[0].checked_rem(x[1])?;
            if r != 0 && (r < 0) != (x[1] < 0) {
                r + x[1]
            } else {
                r
            }
        }
        "max" => *x.iter().max()?,
        "min" => *x.iter().min()?,
        _ => return None,
    };
    Some(Value::Int(r))
}

fn compare(name: &str, a: Value, b: Value) -> Option<Value> {
    let r = match (a, b) {
        (Value::Int(x), Value::Int(y)) => match name {
            "equal" => x == y,
            "less" => x < y,
            "less_or_equal" => x <= y,
            "greater" => x > y,
            _ => x >= y,
        },
        (Value::Float(x), Value::Float(y)) => match name {
            "equal" => x == y,
            "less" => x < y,
            "less_or_equal" => x <= y,
            "greater" => x > y,
            _ => x >= y,
        },
        _ => return None,
    };
    Some(Value::Int(r as i128))
}

fn unary(name: &str, v: Value) -> Option<Value> {
    Some(match (name, v) {
        ("neg", Value::Int(x)) => Value::Int(-x),
        ("neg", Value::Float(x)) => Value::Float(-x),
        ("abs", Value::Int(x)) => Value::Int(x.abs()),
        ("abs", Value::Float(x)) => Value::Float(x.abs()),
        ("sign", Value::Int(x)) => Value::Int(x.signum()),
        ("sign", Value::Float(x)) if x.is_nan() => Value::Float(x),
        ("sign", Value::Float(x)) => Value::Float(if x == 0.0 { 0.0 } else { x.signum() }),
        _ => return None,
    })
}

/// Cast semantics: integers wrap into the target (when encoded), floats truncate toward
/// zero into integers (NaN, infinities and out-of-range values are left unfolded), and
/// anything non-zero is `true`.
fn cast(v: Value, to: ElementKind) -> Option<Value> {
    Some(match (v, to) {
        (Value::Int(x), ElementKind::Bool) => Value::Int((x != 0) as i128),
        (Value::Float(x), ElementKind::Bool) => Value::Int((x != 0.0) as i128),
        (Value::Int(x), ElementKind::Float(_)) => Value::Float(x as f64),
        (Value::Float(x), ElementKind::Float(_)) => Value::Float(x),
        (Value::Int(x), _) => Value::Int(x),
        (Value::Float(x), ElementKind::Signed(w) | ElementKind::Unsigned(w)) => {
            let t = x.trunc();
            let signed = matches!(to, ElementKind::Signed(_));
            let (lo, hi) = if signed {
                (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1))
            } else {
                (0.0, 2f64.powi(w as i32))
            };
            if !t.is_finite() || t < lo || t >= hi {
                return None;
            }
            Value::Int(t as i128)
        }
    })
}

fn range(ctx: &Context, attrs: &Attrs, out: &Out) -> Option<Literal> {
    let get = |n: &str| scalar(ctx, attrs.get(n)?).map(|(_, v)| v);
    let (start, delta) = (get("start")?, get("delta")?);
    let n = *out.shape.first()? as usize;
    if n > MAX_FOLD_ELEMENTS {
        return None;
    }
    let values = match (start, delta) {
        (Scalar::Int(s), Scalar::Int(d)) => {
            Values::Int((0..n as i128).map(|k| s + k * d).collect())
        }
        (s, d) => Values::Float((0..n).map(|k| s.as_f64() + k as f64 * d.as_f64()).collect()),
    };
    Some(Literal {
        shape: out.shape.clone(),
        element: out.element,
        kind: out.kind,
        splat: false,
        values,
    })
}

fn gather(data: &Literal, indices: &Literal, axis: i64, out: &Out) -> Option<Literal> {
    let a = shape::normalize_axis("Gather", axis, data.shape.len()).ok()?;
    let dim = data.shape[a];
    let idx = indices.i64s()?;
    let data_strides = strides(&data.shape);
    let q = indices.shape.len();
    data.gather(out.shape.clone(), out.element, |i| {
        let o = unravel(i as i64, &out.shape);
        let index_flat: i64 = o[a..a + q]
            .iter()
            .zip(strides(&indices.shape))
            .map(|(&k, s)| k * s)
            .sum();
        let mut j = *idx.get(index_flat as usize)?;
        if j < 0 {
            j += dim;
        }
        if j < 0 || j >= dim {
            return None;
        }
        let mut flat = j * data_strides[a];
        for k in 0..a {
            flat += o[k] * data_strides[k];
        }
        for k in a + 1..data.shape.len() {
            flat += o[k - 1 + q] * data_strides[k];
        }
        Some(flat as usize)
    })
}

fn concat(inputs: &[&Literal], axis: i64, out: &Out) -> Option<Literal> {
    let a = shape::normalize_axis("Concat", axis, out.shape.len()).ok()?;
    let n = count(&out.shape);
    if n > MAX_FOLD_ELEMENTS {
        return None;
    }
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        let mut idx = unravel(i as i64, &out.shape);
        let mut source = None;
        for l in inputs {
            if idx[a] < l.shape[a] {
                source = Some(l);
                break;
            }
            idx[a] -= l.shape[a];
        }
        let l = source?;
        let flat: i64 = idx.iter().zip(strides(&l.shape)).map(|(&k, s)| k * s).sum();
        values.push(l.get(flat as usize));
    }
    let values = if out.kind.is_float() {
        Values::Float(values.into_iter().map(Value::as_f64).collect())
    } else {
        Values::Int(values.into_iter().map(int).collect::<Option<_>>()?)
    };
    Some(Literal::new(
        out.shape.clone(),
        out.element,
        out.kind,
        values,
    ))
}

fn reduce(name: &str, x: &Literal, attrs: &Attrs, out: &Out) -> Option<Literal> {
    let g = shape::reduce_geometry(
        "Reduce",
        &x.shape,
        &attrs.ints("axes").ok()?.unwrap_or_default(),
        attrs.bool("keepdims").ok()?,
        attrs.bool("noop_with_empty_axes").ok()?,
    )
    .ok()?;
    if x.len() > MAX_FOLD_ELEMENTS {
        return None;
    }
    // Every input element adds into the output element its kept dimensions name.
    let kept: Vec<usize> = (0..x.shape.len()).filter(|k| !g.axes.contains(k)).collect();
    let kept_shape: Vec<i64> = kept.iter().map(|&k| x.shape[k]).collect();
    let kept_strides = strides(&kept_shape);
    let mut acc: Vec<Option<Value>> = vec![None; count(&kept_shape)];
    for i in 0..x.len() {
        let idx = unravel(i as i64, &x.shape);
        let o: i64 = kept
            .iter()
            .zip(&kept_strides)
            .map(|(&k, s)| idx[k] * s)
            .sum();
        let v = x.get(i);
        let slot = &mut acc[o as usize];
        *slot = Some(match *slot {
            None => v,
            Some(a) => combine(name, a, v)?,
        });
    }
    let empty = match name {
        "reduce_sum" => Value::Int(0),
        "reduce_prod" => Value::Int(1),
        // The max/min of nothing is undefined.
        _ => return None,
    };
    let values: Vec<Value> = acc
        .into_iter()
        .map(|a| match (a, x.kind.is_float()) {
            (Some(v), _) => v,
            (None, true) => Value::Float(empty.as_f64()),
            (None, false) => empty,
        })
        .collect();
    let values = if out.kind.is_float() {
        Values::Float(values.into_iter().map(Value::as_f64).collect())
    } else {
        Values::Int(values.into_iter().map(int).collect::<Option<_>>()?)
    };
    Some(Literal::new(
        out.shape.clone(),
        out.element,
        out.kind,
        values,
    ))
}

fn combine(name: &str, a: Value, b: Value) -> Option<Value> {
    Some(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(match name {
            "reduce_sum" => x + y,
            "reduce_prod" => x.checked_mul(y)?,
            "reduce_max" => x.max(y),
            _ => x.min(y),
        }),
        (Value::Float(x), Value::Float(y)) => Value::Float(match name {
            "reduce_sum" => x + y,
            "reduce_prod" => x * y,
            "reduce_max" if x.is_nan() || y.is_nan() => f64::NAN,
            "reduce_max" => x.max(y),
            _ if x.is_nan() || y.is_nan() => f64::NAN,
            _ => x.min(y),
        }),
        _ => return None,
    })
}
