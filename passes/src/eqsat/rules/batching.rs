//! Linear-algebra batching (TASO's most profitable substitution): matmuls or convs that
//! share their input become one matmul or conv on the concatenated weights, followed by
//! slices; and the reverse, a slice of a matmul's columns or of a conv's channels is a
//! smaller matmul or conv by the sliced weights.

use std::collections::BTreeMap;

use egg::Id;
use tb_dialects::graph::GraphOp;

use super::super::analysis::TensorInfo;
use super::super::language::{AttrValue, Attrs};
use super::{Builder, Family, Index, Rewrite, Rule, Typed};

pub(super) static RULES: &[&Rule] = &[
    &Rule {
        name: "matmul-batch-shared-lhs",
        family: Family::Batching,
        reason: "x @ w1, x @ w2 = slices of x @ concat(w1, w2): one kernel reads x once (attention's Q/K/V)",
        search: batch_matmuls,
    },
    &Rule {
        name: "conv-batch-shared-input",
        family: Family::Batching,
        reason: "conv(x, w1), conv(x, w2) = channel slices of conv(x, concat(w1, w2)): one kernel reads x once",
        search: batch_convs,
    },
    &Rule {
        name: "matmul-split-sliced-columns",
        family: Family::Batching,
        reason: "columns a..b of x @ w are x @ w[:, a..b]: when the other columns are not needed the batched matmul splits back",
        search: split_matmul,
    },
    &Rule {
        name: "conv-split-sliced-channels",
        family: Family::Batching,
        reason: "channels a..b of conv(x, w, b) are conv(x, w[a..b], b[a..b]): when the other channels are not needed the batched conv splits back",
        search: split_conv,
    },
    &Rule {
        name: "conv-enlarge-1x1-to-3x3",
        family: Family::Batching,
        reason: "a 1x1 conv is the 3x3 conv of its zero-padded kernel with one pixel of padding: it can then batch with a 3x3 conv on the same input (TASO)",
        search: enlarge_pointwise_conv,
    },
];

/// At most this many matmuls or convs are batched into one.
const MAX_BATCH: usize = 16;

/// A slice of `x` along `axis` from `start` to `end` with step 1.
fn slice(b: &Builder, x: Typed, axis: i64, start: i64, end: i64) -> Option<Typed> {
    b.op(
        GraphOp::Slice,
        Attrs::new(vec![
            ("axes".into(), AttrValue::Ints(vec![axis])),
            ("ends".into(), AttrValue::Ints(vec![end])),
            ("starts".into(), AttrValue::Ints(vec![start])),
            ("steps".into(), AttrValue::Ints(vec![1])),
        ]),
        vec![x],
    )
}

fn concat(b: &Builder, parts: Vec<Typed>, axis: i64) -> Option<Typed> {
    b.op(
        GraphOp::Concat,
        Attrs::new(vec![("axis".into(), AttrValue::Int(axis))]),
        parts,
    )
}

/// The classes in `members` equal to consecutive slices of `product` along `axis`, of
/// the given widths.
fn slices_of(
    b: &Builder,
    product: &Typed,
    axis: i64,
    members: &[Id],
    widths: &[i64],
) -> Option<Vec<Rewrite>> {
    let mut offset = 0;
    let mut rewrites = Vec::new();
    for (&class, &width) in members.iter().zip(widths) {
        let part = slice(b, product.clone(), axis, offset, offset + width)?;
        rewrites.push(b.rewrite(class, part)?);
        offset += width;
    }
    Some(rewrites)
}

fn batch_matmuls(ix: &Index) -> Vec<Rewrite> {
    // Matmuls by left operand whose weights are 2-D `graph.constant`s (not concatenations
    // this rule made: those would be batched again, without end).
    let mut groups: BTreeMap<Id, Vec<(Id, Id)>> = BTreeMap::new();
    for &(class, _, args) in ix.ops(GraphOp::Matmul) {
        let [x, w] = args else { continue };
        let is_weight = ix.is_literal(*w) && ix.info(*w).is_some_and(|i| i.rank() == 2);
        let group = groups.entry(*x).or_default();
        if is_weight && !group.iter().any(|&(c, _)| c == class) && group.len() < MAX_BATCH {
            group.push((class, *w));
        }
    }
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for (x, members) in groups {
        if members.len() < 2 {
            continue;
        }
        let t = (|| {
            let weights = members
                .iter()
                .map(|&(_, w)| b.class(w))
                .collect::<Option<Vec<_>>>()?;
            let widths: Vec<i64> = weights.iter().map(|w| w.info.shape[1]).collect();
            let product = b.binary(GraphOp::Matmul, b.class(x)?, concat(&b, weights, 1)?)?;
            let last = product.info.rank() as i64 - 1;
            let classes: Vec<Id> = members.iter().map(|&(c, _)| c).collect();
            slices_of(&b, &product, last, &classes, &widths)
        })();
        out.extend(t.into_iter().flatten());
    }
    out
}

/// A conv's attributes with `group` 1 spelled out, so convs that differ only in whether
/// they spell the default compare equal; `None` for grouped convs (their weights do not
/// concatenate along output channels alone).
fn ungrouped(attrs: &Attrs) -> Option<Attrs> {
    (attrs.int("group").unwrap_or(1) == 1).then(|| attrs.with("group", AttrValue::Int(1)))
}

/// Convs by input and attributes, each member (class, weights, bias) with literal
/// constant weights and bias, the same kernel size, and either all with a bias or none.
type ConvGroups = BTreeMap<(Id, Attrs, Vec<i64>, bool), Vec<(Id, Id, Option<Id>)>>;

fn batch_convs(ix: &Index) -> Vec<Rewrite> {
    let mut groups: ConvGroups = BTreeMap::new();
    for &(class, attrs, args) in ix.ops(GraphOp::Conv) {
        let (x, w, bias) = match args {
            [x, w] => (*x, *w, None),
            [x, w, bias] => (*x, *w, Some(*bias)),
            _ => continue,
        };
        let (Some(attrs), Some(wi)) = (ungrouped(attrs), ix.info(w)) else {
            continue;
        };
        if !(ix.is_literal(w) || is_padded_literal(ix, w))
            || bias.is_some_and(|c| !ix.is_literal(c))
        {
            continue;
        }
        let kernel = wi.shape[1..].to_vec();
        let group = groups
            .entry((x, attrs, kernel, bias.is_some()))
            .or_default();
        if !group.iter().any(|&(c, ..)| c == class) && group.len() < MAX_BATCH {
            group.push((class, w, bias));
        }
    }
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for ((x, attrs, _, _), members) in groups {
        if members.len() < 2 {
            continue;
        }
        let t = (|| {
            let weights = members
                .iter()
                .map(|&(_, w, _)| b.class(w))
                .collect::<Option<Vec<_>>>()?;
            let widths: Vec<i64> = weights.iter().map(|w| w.info.shape[0]).collect();
            let mut operands = vec![b.class(x)?, concat(&b, weights, 0)?];
            if members[0].2.is_some() {
                let biases = members
                    .iter()
                    .map(|&(_, _, bias)| b.class(bias?))
                    .collect::<Option<Vec<_>>>()?;
                operands.push(concat(&b, biases, 0)?);
            }
            let first = ix.info(members[0].0)?;
            let mut shape = first.shape.clone();
            shape[1] = widths.iter().sum();
            let info = TensorInfo {
                shape,
                element: first.element,
            };
            let product = b.op_typed(GraphOp::Conv, attrs.clone(), operands, info);
            let classes: Vec<Id> = members.iter().map(|&(c, ..)| c).collect();
            slices_of(&b, &product, 1, &classes, &widths)
        })();
        out.extend(t.into_iter().flatten());
    }
    out
}

/// A slice with step 1 along one axis: (axis, start, end), normalized against `shape`.
fn one_axis_slice(attrs: &Attrs, shape: &[i64]) -> Option<(usize, i64, i64)> {
    let ([axis], [start], [end]) = (
        attrs.ints("axes")?,
        attrs.ints("starts")?,
        attrs.ints("ends")?,
    ) else {
        return None;
    };
    if attrs.ints("steps").is_some_and(|s| s != [1]) {
        return None;
    }
    let rank = shape.len() as i64;
    let axis = if *axis < 0 { axis + rank } else { *axis };
    let dim = *shape.get(usize::try_from(axis).ok()?)?;
    let clamp = |v: i64| if v < 0 { (v + dim).max(0) } else { v.min(dim) };
    let (start, end) = (clamp(*start), clamp(*end));
    (start < end).then_some((axis as usize, start, end))
}

fn split_matmul(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, attrs, args) in ix.ops(GraphOp::Slice) {
        let Some(pi) = ix.info(args[0]) else { continue };
        let Some((axis, start, end)) = one_axis_slice(attrs, &pi.shape) else {
            continue;
        };
        if axis + 1 != pi.rank() || end - start == pi.shape[axis] {
            continue;
        }
        for (_, m) in ix.ops_in(args[0], GraphOp::Matmul) {
            let t = (|| {
                let w = b.class(m[1])?;
                if w.info.rank() != 2 || !ix.is_constant(m[1]) {
                    return None;
                }
                let part = slice(&b, w, 1, start, end)?;
                b.binary(GraphOp::Matmul, b.class(m[0])?, part)
            })();
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}

fn split_conv(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, attrs, args) in ix.ops(GraphOp::Slice) {
        let Some(ci) = ix.info(args[0]) else { continue };
        let Some((axis, start, end)) = one_axis_slice(attrs, &ci.shape) else {
            continue;
        };
        if axis != 1 || end - start == ci.shape[1] {
            continue;
        }
        for (conv_attrs, c) in ix.ops_in(args[0], GraphOp::Conv) {
            let t = (|| {
                let conv_attrs = ungrouped(conv_attrs)?;
                if !c[1..].iter().all(|&k| ix.is_constant(k)) {
                    return None;
                }
                let mut operands = vec![b.class(c[0])?, slice(&b, b.class(c[1])?, 0, start, end)?];
                if let Some(&bias) = c.get(2) {
                    operands.push(slice(&b, b.class(bias)?, 0, start, end)?);
                }
                Some(b.op_typed(GraphOp::Conv, conv_attrs, operands, ix.info(class)?.clone()))
            })();
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}

/// Whether `id` holds a `graph.pad` of a literal constant (an enlarged kernel).
fn is_padded_literal(ix: &Index, id: Id) -> bool {
    ix.ops_in(id, GraphOp::Pad)
        .any(|(_, args)| matches!(args, [w] if ix.is_literal(*w)))
}

/// Whether the conv attribute `name`, absent or all `value`, is `len` times `value`.
fn all_equal(attrs: &Attrs, name: &str, len: usize, value: i64) -> bool {
    attrs
        .ints(name)
        .is_none_or(|v| v.len() == len && v.iter().all(|&x| x == value))
}

/// Whether a conv's padding is explicit (no `auto_pad` other than NOTSET).
fn explicit_padding(attrs: &Attrs) -> bool {
    match attrs.get("auto_pad") {
        None => true,
        Some(AttrValue::Str(s)) => s == "NOTSET",
        Some(_) => false,
    }
}

fn enlarge_pointwise_conv(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let kernel = |w: Id| ix.info(w).map(|i| i.shape.clone());
    // 3x3 convs with one pixel of padding and no dilation, by input: their attributes.
    let mut wide: BTreeMap<Id, Vec<&Attrs>> = BTreeMap::new();
    for &(_, attrs, args) in ix.ops(GraphOp::Conv) {
        let [x, w, ..] = args else { continue };
        let Some(k) = kernel(*w) else { continue };
        if k.len() == 4
            && k[2..] == [3, 3]
            && attrs.int("group").unwrap_or(1) == 1
            && explicit_padding(attrs)
            && attrs.ints("pads") == Some(&[1, 1, 1, 1])
            && all_equal(attrs, "dilations", 2, 1)
        {
            wide.entry(*x).or_default().push(attrs);
        }
    }
    let mut out = Vec::new();
    for &(class, attrs, args) in ix.ops(GraphOp::Conv) {
        let (x, w) = match args {
            [x, w] | [x, w, _] => (*x, *w),
            _ => continue,
        };
        let Some(partners) = wide.get(&x) else {
            continue;
        };
        let Some(k) = kernel(w) else { continue };
        if k.len() != 4
            || k[2..] != [1, 1]
            || !ix.is_literal(w)
            || attrs.int("group").unwrap_or(1) != 1
            || !explicit_padding(attrs)
            || !all_equal(attrs, "pads", 4, 0)
            || !all_equal(attrs, "dilations", 2, 1)
        {
            continue;
        }
        let strides = attrs.ints("strides").unwrap_or(&[1, 1]).to_vec();
        // Take a partner's attributes, so the enlarged conv batches with it.
        let Some(wide_attrs) = partners
            .iter()
            .find(|p| p.ints("strides").unwrap_or(&[1, 1]) == strides.as_slice())
        else {
            continue;
        };
        let t = (|| {
            let wt = b.class(w)?;
            let mut shape = wt.info.shape.clone();
            shape[2] = 3;
            shape[3] = 3;
            let info = TensorInfo {
                shape,
                element: wt.info.element,
            };
            let pad_attrs = Attrs::new(vec![
                ("mode".into(), AttrValue::Str("constant".into())),
                ("pads".into(), AttrValue::Ints(vec![0, 0, 1, 1, 0, 0, 1, 1])),
            ]);
            let padded = b.op_typed(GraphOp::Pad, pad_attrs, vec![wt], info);
            let mut operands = vec![b.class(x)?, padded];
            if let [_, _, bias] = args {
                operands.push(b.class(*bias)?);
            }
            Some(b.op_typed(
                GraphOp::Conv,
                (*wide_attrs).clone(),
                operands,
                ix.info(class)?.clone(),
            ))
        })();
        out.extend(t.and_then(|t| b.rewrite(class, t)));
    }
    out
}
