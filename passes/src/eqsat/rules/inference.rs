//! Inference folds: batch normalization and per-channel scale/shift after a conv or a
//! matmul become part of its constant weights and bias.

use egg::Id;
use tb_dialects::graph::GraphOp;

use super::super::language::Attrs;
use super::{Builder, Family, Index, Rewrite, Rule, Typed};

pub(super) static RULES: &[&Rule] = &[
    &Rule {
        name: "batchnorm-into-conv",
        family: Family::Inference,
        reason: "an inference batch norm after a conv is a per-channel scale and shift: it folds into the conv's weights and bias",
        search: batchnorm_into_conv,
    },
    &Rule {
        name: "batchnorm-into-matmul",
        family: Family::Inference,
        reason: "an inference batch norm after a 2-D matmul scales its weight columns and adds a bias",
        search: batchnorm_into_matmul,
    },
    &Rule {
        name: "conv-absorb-bias-add",
        family: Family::Inference,
        reason: "adding a per-channel constant after a conv is the conv's bias: one kernel",
        search: conv_absorb_add,
    },
    &Rule {
        name: "conv-absorb-channel-scale",
        family: Family::Inference,
        reason: "multiplying a conv by a per-channel constant scales its weights and bias: one kernel",
        search: conv_absorb_mul,
    },
];

/// The parts of an inference batch norm: `y = x * s + t` with `s = scale / sqrt(var + eps)`
/// and `t = B - mean * s`, each of shape `[C]`.
fn scale_shift(b: &Builder, ix: &Index, attrs: &Attrs, args: &[Id]) -> Option<(Typed, Typed)> {
    let [_, scale, bias, mean, var] = args else {
        return None;
    };
    if ![scale, bias, mean, var].iter().all(|&&c| ix.is_constant(c)) {
        return None;
    }
    let var_t = b.class(*var)?;
    let eps = b.splat(
        attrs.float("epsilon").unwrap_or(1e-5),
        var_t.info.element,
        vec![],
    );
    let std = b.op(
        GraphOp::Sqrt,
        Attrs::default(),
        vec![b.binary(GraphOp::Add, var_t, eps)?],
    )?;
    let s = b.binary(GraphOp::Div, b.class(*scale)?, std)?;
    let shift = b.binary(
        GraphOp::Sub,
        b.class(*bias)?,
        b.binary(GraphOp::Mul, b.class(*mean)?, s.clone())?,
    )?;
    (s.info.rank() == 1 && shift.info == s.info).then_some((s, shift))
}

/// A conv with constant weights (and bias) as (input, weights, bias, attributes).
fn constant_convs<'a>(ix: &Index<'a>, id: Id) -> Vec<(Id, Id, Option<Id>, &'a Attrs)> {
    ix.ops_in(id, GraphOp::Conv)
        .filter_map(|(attrs, args)| {
            let (x, w, bias) = match args {
                [x, w] => (*x, *w, None),
                [x, w, bias] => (*x, *w, Some(*bias)),
                _ => return None,
            };
            let constant = ix.is_constant(w) && bias.is_none_or(|c| ix.is_constant(c));
            constant.then_some((x, w, bias, attrs))
        })
        .collect()
}

/// `[C, 1, 1, ...]` of rank `rank`.
fn channel_shape(c: i64, rank: usize) -> Vec<i64> {
    let mut shape = vec![1; rank];
    shape[0] = c;
    shape
}

/// `conv(x, w * s, bias * s + shift)`, `s` and `shift` of shape `[C]`.
fn scaled_conv(
    b: &Builder,
    ix: &Index,
    class: Id,
    conv: (Id, Id, Option<Id>, &Attrs),
    s: Typed,
    shift: Option<Typed>,
) -> Option<Rewrite> {
    let (x, w, bias, attrs) = conv;
    let w_t = b.class(w)?;
    let c = w_t.info.shape[0];
    let s_w = b.reshape(s.clone(), channel_shape(c, w_t.info.rank()))?;
    let new_w = b.binary(GraphOp::Mul, w_t.clone(), s_w)?;
    let scaled_bias = match bias {
        Some(bias) => Some(b.binary(GraphOp::Mul, b.class(bias)?, s)?),
        None => None,
    };
    let new_bias = match (scaled_bias, shift) {
        (Some(sb), Some(sh)) => b.binary(GraphOp::Add, sb, sh)?,
        (Some(sb), None) => sb,
        (None, Some(sh)) => sh,
        (None, None) => {
            return b.rewrite(
                class,
                b.op_typed(
                    GraphOp::Conv,
                    attrs.clone(),
                    vec![b.class(x)?, new_w],
                    ix.info(class)?.clone(),
                ),
            );
        }
    };
    if new_w.info != w_t.info || new_bias.info.shape != [c] {
        return None;
    }
    let conv = b.op_typed(
        GraphOp::Conv,
        attrs.clone(),
        vec![b.class(x)?, new_w, new_bias],
        ix.info(class)?.clone(),
    );
    b.rewrite(class, conv)
}

fn batchnorm_into_conv(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, attrs, args) in ix.ops(GraphOp::BatchNormalization) {
        let Some((s, shift)) = scale_shift(&b, ix, attrs, args) else {
            continue;
        };
        for conv in constant_convs(ix, args[0]) {
            out.extend(scaled_conv(
                &b,
                ix,
                class,
                conv,
                s.clone(),
                Some(shift.clone()),
            ));
        }
    }
    out
}

fn batchnorm_into_matmul(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, attrs, args) in ix.ops(GraphOp::BatchNormalization) {
        if ix.info(class).is_none_or(|i| i.rank() != 2) {
            continue;
        }
        let Some((s, shift)) = scale_shift(&b, ix, attrs, args) else {
            continue;
        };
        for (_, m) in ix.ops_in(args[0], GraphOp::Matmul) {
            let t = (|| {
                let w = b.class(m[1])?;
                if w.info.rank() != 2 || !ix.is_constant(m[1]) {
                    return None;
                }
                let new_w = b.binary(GraphOp::Mul, w.clone(), s.clone())?;
                if new_w.info != w.info {
                    return None;
                }
                let product = b.binary(GraphOp::Matmul, b.class(m[0])?, new_w)?;
                b.binary(GraphOp::Add, product, shift.clone())
            })();
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}

/// A constant that varies only along the channel axis (1) of a rank-`rank` result, as a
/// `[C]` vector (`C` the channel count).
fn per_channel(b: &Builder, ix: &Index, id: Id, rank: usize, channels: i64) -> Option<Typed> {
    let t = b.class(id)?;
    if !ix.is_constant(id) || t.info.rank() > rank || rank < 2 {
        return None;
    }
    let offset = rank - t.info.rank();
    let ok = t.info.shape.iter().enumerate().all(|(i, &d)| {
        if i + offset == 1 {
            d == channels
        } else {
            d == 1
        }
    });
    // The channel axis must be present: a scalar would need broadcasting to `[C]`.
    (ok && offset <= 1).then_some(())?;
    b.reshape(t, vec![channels])
}

fn conv_absorb_add(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Add) {
        let [conv, c] = args else { continue };
        let Some(info) = ix.info(class) else { continue };
        for (x, w, bias, attrs) in constant_convs(ix, *conv) {
            let t = (|| {
                let shift = per_channel(&b, ix, *c, info.rank(), info.shape[1])?;
                let new_bias = match bias {
                    Some(bias) => b.binary(GraphOp::Add, b.class(bias)?, shift)?,
                    None => shift,
                };
                if ix.info(*conv) != Some(info) {
                    return None;
                }
                Some(b.op_typed(
                    GraphOp::Conv,
                    attrs.clone(),
                    vec![b.class(x)?, b.class(w)?, new_bias],
                    info.clone(),
                ))
            })();
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}

fn conv_absorb_mul(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Mul) {
        let [conv, c] = args else { continue };
        let Some(info) = ix.info(class) else { continue };
        if ix.info(*conv) != Some(info) {
            continue;
        }
        for conv in constant_convs(ix, *conv) {
            let Some(s) = per_channel(&b, ix, *c, info.rank(), info.shape[1]) else {
                continue;
            };
            out.extend(scaled_conv(&b, ix, class, conv, s, None));
        }
    }
    out
}
