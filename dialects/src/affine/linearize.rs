//! Folds and canonicalization patterns of `affine.delinearize_index` and
//! `affine.linearize_index`, after MLIR's:
//!
//! - constant dynamic basis elements become static;
//! - a delinearization into a single index is its input, a linearization of no index is 0
//!   and of a single index is that index; constant inputs over a static basis fold;
//! - unit basis elements are dropped (their delinearized index is 0; a linearized index
//!   over a unit basis only when `disjoint` or when it is 0), as is a leading linearized 0;
//! - a delinearization of a `disjoint` linearization cancels their common trailing basis,
//!   or splits where the last linearized index spans several delinearized ones;
//! - a linearization of a run of consecutive delinearized indices over the same basis
//!   merges the run into one index over the product of its basis.

use tb_ir::affine::{AffineBinaryKind, AffineExpr};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::operation::OperationState;
use tb_ir::registry::FoldResult;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Attr, Context, OpId, Type, Value};

use super::{APPLY, DELINEARIZE_INDEX, DYNAMIC_BASIS, LINEARIZE_INDEX};

/// One basis element: static, or an SSA value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Basis {
    Static(i64),
    Dynamic(Value),
}

impl Basis {
    /// The element's value when it is static or a constant.
    fn constant(self, ctx: &Context) -> Option<i64> {
        match self {
            Basis::Static(v) => Some(v),
            Basis::Dynamic(v) => constant_of(ctx, v),
        }
    }
}

fn constant_attr(ctx: &Context, attr: Option<Attr>) -> Option<i64> {
    match ctx.attr_kind(attr?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

fn constant_of(ctx: &Context, value: Value) -> Option<i64> {
    constant_attr(ctx, constant_value(ctx, ctx.defining_op(value)?))
}

/// The basis of `op` with its dynamic elements (`dynamic`) in place of the markers.
fn mixed_basis(ctx: &Context, op: OpId, dynamic: &[Value]) -> Option<Vec<Basis>> {
    let statics = super::static_basis(ctx, op)?;
    if statics.iter().filter(|&&s| s == DYNAMIC_BASIS).count() != dynamic.len() {
        return None;
    }
    let mut values = dynamic.iter();
    statics
        .iter()
        .map(|&s| match s {
            DYNAMIC_BASIS => values.next().map(|&v| Basis::Dynamic(v)),
            s => Some(Basis::Static(s)),
        })
        .collect()
}

/// The dynamic values and the static list (with markers) of a basis.
fn split_basis(basis: &[Basis]) -> (Vec<Value>, Vec<i64>) {
    let mut values = Vec::new();
    let statics = basis
        .iter()
        .map(|b| match *b {
            Basis::Static(s) => s,
            Basis::Dynamic(v) => {
                values.push(v);
                DYNAMIC_BASIS
            }
        })
        .collect();
    (values, statics)
}

/// A basis given with an optional leading `None` (no outer bound): the basis and whether
/// it has an outer bound.
fn unpad(padded: &[Option<Basis>]) -> (Vec<Basis>, bool) {
    let outer = padded.first().is_none_or(Option::is_some);
    (padded.iter().flatten().copied().collect(), outer)
}

fn i64_array(ctx: &mut Context, values: &[i64]) -> Attr {
    let i64_ty = ctx.i64();
    ctx.intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

fn i32_array(ctx: &mut Context, values: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

fn create(
    rewriter: &mut Rewriter,
    at: OpId,
    name: &str,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    properties: Vec<(String, Attr)>,
) -> OpId {
    let loc = rewriter.ctx().op(at).loc;
    let ctx = rewriter.ctx_mut();
    let name = ctx.intern_op_name(name);
    let properties = Some(ctx.dictionary_attr(properties));
    rewriter.create_op_before(
        at,
        OperationState {
            name,
            operands,
            result_types,
            successors: vec![],
            num_regions: 0,
            properties,
            attributes: vec![],
            loc,
        },
    )
}

/// An `arith.constant` of index type before `at`.
fn index_constant(rewriter: &mut Rewriter, at: OpId, value: i64) -> Value {
    let ctx = rewriter.ctx_mut();
    let ty = ctx.index_type();
    let attr = ctx.intern_attr(AttrKind::Integer {
        value: value as i128,
        ty,
    });
    let op = create(
        rewriter,
        at,
        "arith.constant",
        vec![],
        vec![ty],
        vec![("value".to_string(), attr)],
    );
    rewriter.ctx().op(op).results[0]
}

/// A new `affine.delinearize_index` of `index` before `at`; `padded` may start with `None`
/// (no outer bound).
fn create_delinearize(
    rewriter: &mut Rewriter,
    at: OpId,
    index: Value,
    padded: &[Option<Basis>],
) -> Vec<Value> {
    let (basis, outer) = unpad(padded);
    let (dynamic, statics) = split_basis(&basis);
    let ctx = rewriter.ctx_mut();
    let ty = ctx.index_type();
    let count = basis.len() + usize::from(!outer);
    let statics = i64_array(ctx, &statics);
    let mut operands = vec![index];
    operands.extend(dynamic);
    let op = create(
        rewriter,
        at,
        DELINEARIZE_INDEX,
        operands,
        vec![ty; count],
        vec![("static_basis".to_string(), statics)],
    );
    rewriter.ctx().op(op).results.to_vec()
}

/// A new `affine.linearize_index` before `at`; `padded` may start with `None`.
fn create_linearize(
    rewriter: &mut Rewriter,
    at: OpId,
    indices: &[Value],
    padded: &[Option<Basis>],
    disjoint: bool,
) -> Value {
    let (basis, _) = unpad(padded);
    let (dynamic, statics) = split_basis(&basis);
    let ctx = rewriter.ctx_mut();
    let ty = ctx.index_type();
    let mut properties = vec![
        ("static_basis".to_string(), i64_array(ctx, &statics)),
        (
            "operandSegmentSizes".to_string(),
            i32_array(ctx, &[indices.len(), dynamic.len()]),
        ),
    ];
    if disjoint {
        properties.push(("disjoint".to_string(), ctx.unit_attr()));
    }
    let mut operands = indices.to_vec();
    operands.extend(dynamic);
    let op = create(
        rewriter,
        at,
        LINEARIZE_INDEX,
        operands,
        vec![ty],
        properties,
    );
    rewriter.ctx().op(op).results[0]
}

/// A view of an `affine.delinearize_index`.
struct Delinearize {
    op: OpId,
    index: Value,
    basis: Vec<Basis>,
    results: Vec<Value>,
}

impl Delinearize {
    fn of(ctx: &Context, op: OpId) -> Option<Delinearize> {
        if ctx.op_name(op) != DELINEARIZE_INDEX {
            return None;
        }
        let operands = &ctx.op(op).operands;
        let (&index, dynamic) = operands.split_first()?;
        let basis = mixed_basis(ctx, op, dynamic)?;
        let results = ctx.op(op).results.to_vec();
        (results.len() == basis.len() || results.len() == basis.len() + 1).then_some(Delinearize {
            op,
            index,
            basis,
            results,
        })
    }

    fn has_outer_bound(&self) -> bool {
        self.results.len() == self.basis.len()
    }

    /// The basis with one element per result: `None` first when there is no outer bound.
    fn padded(&self) -> Vec<Option<Basis>> {
        let mut padded: Vec<Option<Basis>> = Vec::with_capacity(self.results.len());
        if !self.has_outer_bound() {
            padded.push(None);
        }
        padded.extend(self.basis.iter().copied().map(Some));
        padded
    }
}

/// A view of an `affine.linearize_index`.
struct Linearize {
    indices: Vec<Value>,
    basis: Vec<Basis>,
    disjoint: bool,
}

impl Linearize {
    fn of(ctx: &Context, op: OpId) -> Option<Linearize> {
        if ctx.op_name(op) != LINEARIZE_INDEX {
            return None;
        }
        let indices = tb_ir::ods::operand_group(ctx, op, 0).to_vec();
        let dynamic = tb_ir::ods::operand_group(ctx, op, 1);
        let basis = mixed_basis(ctx, op, dynamic)?;
        let disjoint = ctx.op_inherent_or_attr(op, "disjoint").is_some();
        (indices.len() == basis.len() || indices.len() == basis.len() + 1).then_some(Linearize {
            indices,
            basis,
            disjoint,
        })
    }

    fn has_outer_bound(&self) -> bool {
        self.indices.len() == self.basis.len()
    }

    fn padded(&self) -> Vec<Option<Basis>> {
        let mut padded: Vec<Option<Basis>> = Vec::with_capacity(self.indices.len());
        if !self.has_outer_bound() {
            padded.push(None);
        }
        padded.extend(self.basis.iter().copied().map(Some));
        padded
    }
}

fn index_attr(ctx: &Context, op: OpId, value: i64) -> FoldResult {
    let ty = ctx.value_type(ctx.op(op).results[0]);
    FoldResult::NewAttr(AttrKind::Integer {
        value: value as i128,
        ty,
    })
}

// ---- folds ----

pub(crate) fn fold_delinearize(
    ctx: &Context,
    op: OpId,
    constants: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    let d = Delinearize::of(ctx, op)?;
    // Nothing to divide: the single index is the input.
    if d.results.len() == 1 {
        return Some(vec![FoldResult::Value(d.index)]);
    }
    let mut high = constant_attr(ctx, *constants.first()?)?;
    if d.basis.iter().any(|b| matches!(b, Basis::Dynamic(_))) {
        return None;
    }
    let statics: Vec<i64> = split_basis(&d.basis).1;
    let inner = if d.has_outer_bound() {
        &statics[1..]
    } else {
        &statics[..]
    };
    let mut values = Vec::with_capacity(d.results.len());
    for &modulus in inner.iter().rev() {
        if modulus <= 0 {
            return None;
        }
        values.push(high.rem_euclid(modulus));
        high = high.div_euclid(modulus);
    }
    values.push(high);
    values.reverse();
    Some(values.into_iter().map(|v| index_attr(ctx, op, v)).collect())
}

pub(crate) fn fold_linearize(
    ctx: &Context,
    op: OpId,
    constants: &[Option<Attr>],
) -> Option<Vec<FoldResult>> {
    let l = Linearize::of(ctx, op)?;
    match l.indices.as_slice() {
        [] => return Some(vec![index_attr(ctx, op, 0)]),
        [only] => return Some(vec![FoldResult::Value(*only)]),
        _ => {}
    }
    let values = constants[..l.indices.len()]
        .iter()
        .map(|&c| constant_attr(ctx, c))
        .collect::<Option<Vec<i64>>>()?;
    if l.basis.iter().any(|b| matches!(b, Basis::Dynamic(_))) {
        return None;
    }
    let statics = split_basis(&l.basis).1;
    // The innermost index has stride 1; each basis element scales the ones before it.
    let mut result: i64 = 0;
    let mut stride: i64 = 1;
    for (&length, &index) in statics.iter().rev().zip(values.iter().rev()) {
        result = result.wrapping_add(index.wrapping_mul(stride));
        stride = stride.wrapping_mul(length);
    }
    if !l.has_outer_bound() {
        result = result.wrapping_add(values[0].wrapping_mul(stride));
    }
    Some(vec![index_attr(ctx, op, result)])
}

// ---- patterns ----

pub(crate) fn delinearize_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(StaticConstantBasis {
        root: DELINEARIZE_INDEX,
    }));
    patterns.add(Box::new(CancelDelinearizeOfLinearizeTail));
    patterns.add(Box::new(DropUnitDelinearizeBasis));
    patterns.add(Box::new(SplitDelinearizeOfLastLinearized));
}

pub(crate) fn linearize_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(StaticConstantBasis {
        root: LINEARIZE_INDEX,
    }));
    patterns.add(Box::new(CancelLinearizeOfDelinearizeRun));
    patterns.add(Box::new(DropLinearizeLeadingZero));
    patterns.add(Box::new(DropUnitLinearizeBasis));
}

/// Constant dynamic basis elements become static (MLIR does this in the ops' folds).
struct StaticConstantBasis {
    root: &'static str,
}

impl RewritePattern for StaticConstantBasis {
    fn debug_name(&self) -> &'static str {
        "affine-static-constant-basis"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let (basis, group_of_basis) = if self.root == DELINEARIZE_INDEX {
            let Some(d) = Delinearize::of(ctx, op) else {
                return false;
            };
            (d.basis, None)
        } else {
            let Some(l) = Linearize::of(ctx, op) else {
                return false;
            };
            (l.basis, Some(l.indices.len()))
        };
        let folded: Vec<Basis> = basis
            .iter()
            .map(|&b| match b {
                Basis::Dynamic(v) => constant_of(ctx, v).map_or(b, Basis::Static),
                b => b,
            })
            .collect();
        if folded == basis {
            return false;
        }
        let (dynamic, statics) = split_basis(&folded);
        let ctx = rewriter.ctx_mut();
        let statics = i64_array(ctx, &statics);
        let mut operands = ctx.op(op).operands.to_vec();
        let leading = group_of_basis.unwrap_or(1);
        operands.truncate(leading);
        operands.extend(&dynamic);
        let mut properties = vec![("static_basis".to_string(), statics)];
        if let Some(indices) = group_of_basis {
            properties.push((
                "operandSegmentSizes".to_string(),
                i32_array(ctx, &[indices, dynamic.len()]),
            ));
            if let Some(unit) = ctx.op_inherent_or_attr(op, "disjoint") {
                properties.push(("disjoint".to_string(), unit));
            }
        }
        let result_types: Vec<Type> = ctx
            .op(op)
            .results
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();
        let attrs = ctx.op(op).attributes;
        let new_op = create(rewriter, op, self.root, operands, result_types, properties);
        rewriter.ctx_mut().op_mut(new_op).attributes = attrs;
        let results = rewriter.ctx().op(new_op).results.to_vec();
        rewriter.replace_op(op, &results);
        true
    }
}

/// Delinearized indices over a unit basis element are 0; the others come from a
/// delinearization over the remaining basis.
struct DropUnitDelinearizeBasis;

impl RewritePattern for DropUnitDelinearizeBasis {
    fn debug_name(&self) -> &'static str {
        "DropUnitExtentBasis"
    }

    fn root(&self) -> Option<&'static str> {
        Some(DELINEARIZE_INDEX)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(d) = Delinearize::of(ctx, op) else {
            return false;
        };
        let padded = d.padded();
        let unit: Vec<bool> = padded
            .iter()
            .map(|b| b.and_then(|b| b.constant(ctx)) == Some(1))
            .collect();
        if !unit.contains(&true) {
            return false;
        }
        let zero = index_constant(rewriter, op, 0);
        let kept: Vec<Option<Basis>> = padded
            .iter()
            .zip(&unit)
            .filter(|&(_, &u)| !u)
            .map(|(&b, _)| b)
            .collect();
        let mut remaining = if kept.is_empty() {
            Vec::new()
        } else {
            create_delinearize(rewriter, op, d.index, &kept)
        }
        .into_iter();
        let replacements: Vec<Value> = unit
            .iter()
            .map(|&u| {
                if u {
                    zero
                } else {
                    remaining.next().expect("one result per kept element")
                }
            })
            .collect();
        rewriter.replace_op(op, &replacements);
        true
    }
}

/// The delinearization `op`, the linearization producing its index and that
/// linearization, when the linearization is `disjoint` (its indices are within their
/// basis elements, so delinearizing undoes it).
fn delinearize_of_disjoint_linearize(
    ctx: &Context,
    op: OpId,
) -> Option<(Delinearize, OpId, Linearize)> {
    let d = Delinearize::of(ctx, op)?;
    let lin_op = ctx.defining_op(d.index)?;
    let l = Linearize::of(ctx, lin_op)?;
    l.disjoint.then_some((d, lin_op, l))
}

/// A delinearization of a `disjoint` linearization ending with the same basis elements:
/// the common tail cancels (disjointness guarantees the linearized indices are in bounds).
struct CancelDelinearizeOfLinearizeTail;

impl RewritePattern for CancelDelinearizeOfLinearizeTail {
    fn debug_name(&self) -> &'static str {
        "CancelDelinearizeOfLinearizeDisjointExactTail"
    }

    fn root(&self) -> Option<&'static str> {
        Some(DELINEARIZE_INDEX)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((d, lin_op, l)) = delinearize_of_disjoint_linearize(ctx, op) else {
            return false;
        };
        let matches = l
            .basis
            .iter()
            .rev()
            .zip(d.basis.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        if matches == 0 {
            return false;
        }
        if matches == l.basis.len()
            && matches == d.basis.len()
            && l.indices.len() == d.results.len()
        {
            rewriter.replace_op(op, &l.indices);
            return true;
        }
        let lin_basis: Vec<Option<Basis>> = l.basis[..l.basis.len() - matches]
            .iter()
            .copied()
            .map(Some)
            .collect();
        let lin_indices = &l.indices[..l.indices.len() - matches];
        let new_lin = create_linearize(rewriter, lin_op, lin_indices, &lin_basis, l.disjoint);
        let mut delin_basis: Vec<Option<Basis>> = Vec::new();
        if !d.has_outer_bound() {
            delin_basis.push(None);
        }
        delin_basis.extend(d.basis[..d.basis.len() - matches].iter().copied().map(Some));
        let mut results = create_delinearize(rewriter, op, new_lin, &delin_basis);
        results.extend_from_slice(&l.indices[l.indices.len() - matches..]);
        rewriter.replace_op(op, &results);
        true
    }
}

/// A delinearization of a `disjoint` linearization whose last static basis element is
/// the product of the delinearization's last (two or more, static) ones: the last
/// linearized index is delinearized on its own.
struct SplitDelinearizeOfLastLinearized;

impl RewritePattern for SplitDelinearizeOfLastLinearized {
    fn debug_name(&self) -> &'static str {
        "SplitDelinearizeSpanningLastLinearizeArg"
    }

    fn root(&self) -> Option<&'static str> {
        Some(DELINEARIZE_INDEX)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some((d, lin_op, l)) = delinearize_of_disjoint_linearize(ctx, op) else {
            return false;
        };
        let Some(&Basis::Static(target)) = l.basis.last() else {
            return false;
        };
        let mut size: i64 = 1;
        let mut count = 0;
        for b in d.basis.iter().rev() {
            let Basis::Static(b) = *b else {
                return false;
            };
            size = match size.checked_mul(b) {
                Some(s) => s,
                None => return false,
            };
            count += 1;
            if size > target {
                return false;
            }
            if size == target {
                break;
            }
        }
        if size < target || count < 2 {
            return false;
        }
        let lin_basis: Vec<Option<Basis>> = l.basis[..l.basis.len() - 1]
            .iter()
            .copied()
            .map(Some)
            .collect();
        let (&last, front) = l.indices.split_last().expect("a basis element per index");
        let front = front.to_vec();
        let new_lin = create_linearize(rewriter, lin_op, &front, &lin_basis, l.disjoint);
        let mut head_basis: Vec<Option<Basis>> = Vec::new();
        if !d.has_outer_bound() {
            head_basis.push(None);
        }
        head_basis.extend(d.basis[..d.basis.len() - count].iter().copied().map(Some));
        let mut results = create_delinearize(rewriter, op, new_lin, &head_basis);
        let tail_basis: Vec<Option<Basis>> = d.basis[d.basis.len() - count..]
            .iter()
            .copied()
            .map(Some)
            .collect();
        results.extend(create_delinearize(rewriter, op, last, &tail_basis));
        rewriter.replace_op(op, &results);
        true
    }
}

/// Linearized indices over a unit basis element are dropped when the linearization is
/// `disjoint` (they must be 0) or when they are the constant 0.
struct DropUnitLinearizeBasis;

impl RewritePattern for DropUnitLinearizeBasis {
    fn debug_name(&self) -> &'static str {
        "DropLinearizeUnitComponentsIfDisjointOrZero"
    }

    fn root(&self) -> Option<&'static str> {
        Some(LINEARIZE_INDEX)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(l) = Linearize::of(ctx, op) else {
            return false;
        };
        let mut indices = Vec::new();
        let mut basis = Vec::new();
        let mut rest = l.indices.as_slice();
        if !l.has_outer_bound() {
            indices.push(rest[0]);
            rest = &rest[1..];
        }
        for (&index, &b) in rest.iter().zip(&l.basis) {
            let droppable =
                b.constant(ctx) == Some(1) && (l.disjoint || constant_of(ctx, index) == Some(0));
            if !droppable {
                indices.push(index);
                basis.push(Some(b));
            }
        }
        if indices.len() == l.indices.len() {
            return false;
        }
        let value = if indices.is_empty() {
            index_constant(rewriter, op, 0)
        } else {
            create_linearize(rewriter, op, &indices, &basis, l.disjoint)
        };
        rewriter.replace_op(op, &[value]);
        true
    }
}

/// A leading constant-0 linearized index contributes nothing.
struct DropLinearizeLeadingZero;

impl RewritePattern for DropLinearizeLeadingZero {
    fn debug_name(&self) -> &'static str {
        "DropLinearizeLeadingZero"
    }

    fn root(&self) -> Option<&'static str> {
        Some(LINEARIZE_INDEX)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(l) = Linearize::of(ctx, op) else {
            return false;
        };
        let Some((&leading, rest)) = l.indices.split_first() else {
            return false;
        };
        if constant_of(ctx, leading) != Some(0) {
            return false;
        }
        if rest.is_empty() {
            rewriter.replace_op(op, &[leading]);
            return true;
        }
        let basis_rest = if l.has_outer_bound() {
            &l.basis[1..]
        } else {
            &l.basis[..]
        };
        let basis: Vec<Option<Basis>> = basis_rest.iter().copied().map(Some).collect();
        let rest = rest.to_vec();
        let value = create_linearize(rewriter, op, &rest, &basis, l.disjoint);
        rewriter.replace_op(op, &[value]);
        true
    }
}

/// A run of linearized indices that are consecutive results of one delinearization over
/// the same basis elements.
struct Run {
    delinearize: Delinearize,
    lin_start: usize,
    delin_start: usize,
    length: usize,
}

/// `a * b` with the folds MLIR applies when it builds a product: constants fold, the
/// constant (or else the symbolic) factor goes right, `x * 1` is `x`, `x * 0` is 0,
/// `(x * c1) * c2` is `x * (c1 * c2)` and `(x * c) * y` is `(x * y) * c`.
fn multiply(a: AffineExpr, b: AffineExpr) -> AffineExpr {
    let (ca, cb) = (a.as_constant(), b.as_constant());
    if let (Some(x), Some(y)) = (ca, cb)
        && let Some(p) = x.checked_mul(y)
    {
        return AffineExpr::constant(p);
    }
    let mul = |x: AffineExpr, y: AffineExpr| AffineExpr::binary(AffineBinaryKind::Mul, x, y);
    if !a.is_symbolic_or_constant() && !b.is_symbolic_or_constant() {
        return mul(a, b);
    }
    if !b.is_symbolic_or_constant() || (ca.is_some() && cb.is_none()) {
        return multiply(b, a);
    }
    if let Some(c) = cb {
        if c == 1 {
            return a;
        }
        if c == 0 {
            return b;
        }
    }
    if let Some((AffineBinaryKind::Mul, x, k)) = a.as_binary()
        && let Some(k) = k.as_constant()
    {
        match cb {
            Some(c) => {
                if let Some(p) = k.checked_mul(c) {
                    return multiply(x.clone(), AffineExpr::constant(p));
                }
            }
            None => {
                return multiply(multiply(x.clone(), b), AffineExpr::constant(k));
            }
        }
    }
    mul(a, b)
}

/// The product of basis elements: constant, or an `affine.apply` of the dynamic ones
/// (created before `at`); `None` when one is unknown (a missing outer bound).
fn basis_product(rewriter: &mut Rewriter, at: OpId, terms: &[Option<Basis>]) -> Option<Basis> {
    let ctx = rewriter.ctx();
    let mut product = AffineExpr::constant(1);
    let mut dynamic = Vec::new();
    for term in terms {
        let term = (*term)?;
        let factor = match term.constant(ctx) {
            Some(c) => AffineExpr::constant(c),
            None => {
                let Basis::Dynamic(v) = term else {
                    unreachable!("static elements are constant")
                };
                dynamic.push(v);
                AffineExpr::symbol(dynamic.len() as u32 - 1)
            }
        };
        product = multiply(product, factor);
    }
    if let Some(c) = product.as_constant() {
        return Some(Basis::Static(c));
    }
    let map = tb_ir::affine::AffineMap::new(0, dynamic.len() as u32, vec![product]);
    let ctx = rewriter.ctx_mut();
    let ty = ctx.index_type();
    let map = ctx.intern_attr(AttrKind::AffineMap(map));
    let apply = create(
        rewriter,
        at,
        APPLY,
        dynamic,
        vec![ty],
        vec![("map".to_string(), map)],
    );
    Some(Basis::Dynamic(rewriter.ctx().op(apply).results[0]))
}

/// Consecutive results of a delinearization linearized over the same basis are merged
/// into one index over the product of that basis; other users of the merged results get
/// them from a residual delinearization of the merged index.
struct CancelLinearizeOfDelinearizeRun;

impl CancelLinearizeOfDelinearizeRun {
    fn runs(ctx: &Context, l: &Linearize) -> Vec<Run> {
        let lin_basis = l.padded();
        let mut runs: Vec<Run> = Vec::new();
        let mut i = 0;
        while i < l.indices.len() {
            let value = l.indices[i];
            let ValueDef::Result {
                op: producer,
                index: result_number,
            } = ctx.value(value).def
            else {
                i += 1;
                continue;
            };
            let result_number = result_number as usize;
            let Some(d) = Delinearize::of(ctx, producer) else {
                i += 1;
                continue;
            };
            let delin_basis = d.padded();
            let first_delin = delin_basis[result_number];
            let bounds_match = first_delin == lin_basis[i];
            let both_at_front = i == 0 && result_number == 0;
            let known_by_disjoint = l.disjoint && result_number == 0 && first_delin.is_none();
            if !bounds_match && !both_at_front && !known_by_disjoint {
                i += 1;
                continue;
            }
            let mut j = 1;
            while j + i < l.indices.len() && j + result_number < d.results.len() {
                if l.indices[i + j] != d.results[result_number + j]
                    || lin_basis[i + j] != delin_basis[result_number + j]
                {
                    break;
                }
                j += 1;
            }
            // One run per delinearization per rewrite; the next rewrite finds the others.
            if j <= 1 || runs.iter().any(|r| r.delinearize.op == producer) {
                i += 1;
                continue;
            }
            runs.push(Run {
                delinearize: d,
                lin_start: i,
                delin_start: result_number,
                length: j,
            });
            i += j;
        }
        runs
    }
}

impl RewritePattern for CancelLinearizeOfDelinearizeRun {
    fn debug_name(&self) -> &'static str {
        "CancelLinearizeOfDelinearizePortion"
    }

    fn root(&self) -> Option<&'static str> {
        Some(LINEARIZE_INDEX)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(l) = Linearize::of(ctx, op) else {
            return false;
        };
        let runs = Self::runs(ctx, &l);
        if runs.is_empty() {
            return false;
        }
        let lin_basis = l.padded();
        let mut replacements: Vec<(OpId, Vec<Value>)> = Vec::new();
        let mut indices = Vec::new();
        let mut basis: Vec<Option<Basis>> = Vec::new();
        let mut end = 0;
        for run in &runs {
            indices.extend_from_slice(&l.indices[end..run.lin_start]);
            basis.extend_from_slice(&lin_basis[end..run.lin_start]);
            end = run.lin_start + run.length;
            let d = &run.delinearize;
            // The linearization's basis, as `disjoint` may be what bounds the run.
            let merged_basis = &lin_basis[run.lin_start..end];
            let size = basis_product(rewriter, d.op, merged_basis);
            if run.length == d.results.len() {
                indices.push(d.index);
                basis.push(size);
                continue;
            }
            let mut delin_basis = d.padded();
            delin_basis.splice(run.delin_start..run.delin_start + run.length, [size]);
            let merged = create_delinearize(rewriter, d.op, d.index, &delin_basis);
            let combined = merged[run.delin_start];
            let residual = create_delinearize(rewriter, d.op, combined, merged_basis);
            let mut new_results = merged[..run.delin_start].to_vec();
            new_results.extend(residual);
            new_results.extend_from_slice(&merged[run.delin_start + 1..]);
            replacements.push((d.op, new_results));
            indices.push(combined);
            basis.push(size);
        }
        indices.extend_from_slice(&l.indices[end..]);
        basis.extend_from_slice(&lin_basis[end..]);
        let value = create_linearize(rewriter, op, &indices, &basis, l.disjoint);
        rewriter.replace_op(op, &[value]);
        for (delinearize, results) in replacements {
            rewriter.replace_op(delinearize, &results);
        }
        true
    }
}
