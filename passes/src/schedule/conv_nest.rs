//! Recognizing a 2-D convolution loop nest as `convert-te-to-loop` writes it (batch 1):
//!
//! ```text
//! loop.parallel (co, oh, ow) = (0, 0, 0) to (M, OH, OW) {
//!   %r = loop.for c .. iter_args { loop.for kh .. { loop.for kw .. {
//!     x  = X[0, ci, sh*oh + dh*kh + oh0, sw*ow + dw*kw + ow0]  (possibly padded: a clamped
//!          load under `arith.select in-bounds, load, pad`)
//!     w  = W[co, c, kh, kw]
//!     yield acc + x * w } } }
//!   loop.store %r, Y[0, co, oh, ow]
//! }
//! ```
//!
//! with `ci = c` (one group) or `ci = co + c` and one input channel per group (depthwise).
//! A pooling nest has the same shape without the `c` loop and the weights: its `kw` body
//! yields `combine(acc, f(x))` (see [`super::pool_tap`]); it is recognized as a depthwise
//! nest with one input channel per group (`C = 1`) and a [`Tap::Pool`].
//! Index arithmetic is read back into linear forms of the six induction variables, so both
//! the affine-map loads and the `arith` index chains that canonicalization leaves are
//! understood. A padded read is accepted only when its condition is exactly "the indices
//! are inside the input" (sides that cannot leave the input over the nest's domain may go
//! unchecked) and its clamps change nothing inside the input.

use super::pool_tap::{Tap, match_pool_tap};
use tb_dialects::arith::{ArithOp, CmpIOp, CmpIPredicate};
use tb_dialects::loop_::{self, LoopOp};
use tb_ir::affine::AffineExpr;
use tb_ir::ods::OpKind;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, Context, FloatKind, OpId, TypeKind, Value};

/// The six loops of a convolution nest, in the order of [`Linear`]'s coefficients.
pub const CO: usize = 0;
pub const OH: usize = 1;
pub const OW: usize = 2;
pub const C: usize = 3;
pub const KH: usize = 4;
pub const KW: usize = 5;

/// `sum(coeffs[d] * iv[d]) + constant` over the six loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Linear {
    pub coeffs: [i64; 6],
    pub constant: i64,
}

impl Linear {
    fn constant(c: i64) -> Linear {
        Linear {
            coeffs: [0; 6],
            constant: c,
        }
    }

    fn unit(d: usize) -> Linear {
        let mut l = Linear::constant(0);
        l.coeffs[d] = 1;
        l
    }

    fn add(self, o: Linear) -> Option<Linear> {
        let mut r = self;
        for d in 0..6 {
            r.coeffs[d] = r.coeffs[d].checked_add(o.coeffs[d])?;
        }
        r.constant = r.constant.checked_add(o.constant)?;
        Some(r)
    }

    fn scale(self, k: i64) -> Option<Linear> {
        let mut r = self;
        for c in &mut r.coeffs {
            *c = c.checked_mul(k)?;
        }
        r.constant = r.constant.checked_mul(k)?;
        Some(r)
    }

    fn as_constant(self) -> Option<i64> {
        (self.coeffs == [0; 6]).then_some(self.constant)
    }

    /// Whether only the loops in `dims` appear.
    fn only(self, dims: &[usize]) -> bool {
        (0..6).all(|d| self.coeffs[d] == 0 || dims.contains(&d))
    }

    /// The smallest and largest value over the loops' ranges `[0, extents[d])`.
    fn range(self, extents: &[i64; 6]) -> (i64, i64) {
        let (mut lo, mut hi) = (self.constant, self.constant);
        for (coeff, extent) in self.coeffs.iter().zip(extents) {
            let span = coeff * (extent - 1);
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        (lo, hi)
    }
}

/// How one spatial index of the input is computed: `stride * o + dilation * k + offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub stride: i64,
    pub dilation: i64,
    pub offset: i64,
}

/// A recognized convolution nest.
#[derive(Clone, Debug)]
pub struct ConvNest {
    pub parallel: OpId,
    /// Trip counts of (co, oh, ow, c, kh, kw).
    pub extents: [i64; 6],
    /// One input channel per output channel (`ci = co + c`, `C = 1`).
    pub depthwise: bool,
    pub input: Value,
    /// The input's `[channels, height, width]`.
    pub input_shape: [i64; 3],
    pub rows: Window,
    pub cols: Window,
    /// The value read outside the input (`None`: the window never leaves it).
    pub pad: Option<Value>,
    /// What each step of the window does with the input value it reads.
    pub tap: Tap,
    pub output: Value,
    pub init: Value,
    /// The dimensions among (co, oh, ow) the parallel loop runs, in its order: all three,
    /// or those of extent above 1 when the lowering left out the others.
    pub loops: Vec<usize>,
}

impl ConvNest {
    /// The bounds of the original nest narrowed to the output channels `[from, M)`, one
    /// pair per dimension it loops over.
    pub fn channels_from(&self, from: i64) -> (Vec<i64>, Vec<i64>) {
        self.loops
            .iter()
            .map(|&d| {
                if d == CO {
                    (from, self.extents[CO])
                } else {
                    (0, self.extents[d])
                }
            })
            .unzip()
    }
}

pub(super) fn defining_op(ctx: &Context, v: Value) -> Option<OpId> {
    match ctx.value(v).def {
        ValueDef::Result { op, .. } => Some(op),
        _ => None,
    }
}

fn constant_int(ctx: &Context, v: Value) -> Option<i64> {
    let op = defining_op(ctx, v)?;
    match ctx.attr_kind(constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// The linear form of index value `v` over `ivs`.
fn linear(ctx: &Context, v: Value, ivs: &[Value; 6]) -> Option<Linear> {
    if let Some(d) = ivs.iter().position(|&iv| iv == v) {
        return Some(Linear::unit(d));
    }
    if let Some(c) = constant_int(ctx, v) {
        return Some(Linear::constant(c));
    }
    let op = defining_op(ctx, v)?;
    let operands = &ctx.op(op).operands;
    match ArithOp::of(ctx, op)? {
        ArithOp::AddI => linear(ctx, operands[0], ivs)?.add(linear(ctx, operands[1], ivs)?),
        ArithOp::SubI => {
            linear(ctx, operands[0], ivs)?.add(linear(ctx, operands[1], ivs)?.scale(-1)?)
        }
        ArithOp::MulI => {
            let (a, b) = (
                linear(ctx, operands[0], ivs)?,
                linear(ctx, operands[1], ivs)?,
            );
            match (a.as_constant(), b.as_constant()) {
                (Some(k), _) => b.scale(k),
                (_, Some(k)) => a.scale(k),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The linear form of an affine expression whose dims are `operands`.
fn linear_expr(e: &AffineExpr, operands: &[Linear]) -> Option<Linear> {
    match e {
        AffineExpr::Dim(p) => operands.get(*p as usize).copied(),
        AffineExpr::Constant(c) => Some(Linear::constant(*c)),
        AffineExpr::Add(a, b) => linear_expr(a, operands)?.add(linear_expr(b, operands)?),
        AffineExpr::Mul(a, b) => {
            let (a, b) = (linear_expr(a, operands)?, linear_expr(b, operands)?);
            match (a.as_constant(), b.as_constant()) {
                (Some(k), _) => b.scale(k),
                (_, Some(k)) => a.scale(k),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `v` without `maxsi(_, lo)` / `minsi(_, hi)` clamps, with the clamps' bounds.
fn unclamped(ctx: &Context, mut v: Value) -> (Value, i64, i64) {
    let (mut lo, mut hi) = (i64::MIN, i64::MAX);
    while let Some(op) = defining_op(ctx, v) {
        let kind = ArithOp::of(ctx, op);
        if !matches!(kind, Some(ArithOp::MaxSI | ArithOp::MinSI)) {
            break;
        }
        let operands = &ctx.op(op).operands;
        let Some(bound) = constant_int(ctx, operands[1]) else {
            break;
        };
        if kind == Some(ArithOp::MaxSI) {
            lo = lo.max(bound);
        } else {
            hi = hi.min(bound);
        }
        v = operands[0];
    }
    (v, lo, hi)
}

/// A load's memref and the linear forms of its indices, with each index's clamp bounds.
struct Read {
    memref: Value,
    indices: Vec<Linear>,
    clamps: Vec<(i64, i64)>,
}

fn read(ctx: &Context, load: OpId, ivs: &[Value; 6]) -> Option<Read> {
    if LoopOp::of(ctx, load) != Some(LoopOp::Load) {
        return None;
    }
    let map = loop_::access_map(ctx, load)?;
    if map.num_symbols != 0 {
        return None;
    }
    let operands = &ctx.op(load).operands;
    let mut forms = Vec::new();
    let mut bounds = Vec::new();
    for &o in &operands[1..] {
        let (core, lo, hi) = unclamped(ctx, o);
        forms.push(linear(ctx, core, ivs)?);
        bounds.push((lo, hi));
    }
    let mut indices = Vec::new();
    let mut clamps = Vec::new();
    for r in &map.results {
        indices.push(linear_expr(r, &forms)?);
        // A clamp is only understood on an index that is an operand itself.
        clamps.push(match r.as_dim() {
            Some(p) => bounds[p as usize],
            None if bounds.iter().all(|&b| b == (i64::MIN, i64::MAX)) => (i64::MIN, i64::MAX),
            None => return None,
        });
    }
    Some(Read {
        memref: operands[0],
        indices,
        clamps,
    })
}

fn shape_of(ctx: &Context, memref: Value) -> Option<Vec<i64>> {
    match ctx.type_kind(ctx.value_type(memref)) {
        TypeKind::MemRef {
            shape,
            layout: None,
            element,
            ..
        } if matches!(ctx.type_kind(*element), TypeKind::Float(FloatKind::F32)) => {
            Some(shape.clone())
        }
        _ => None,
    }
}

/// The leaves of an `arith.andi` tree of `arith.cmpi`s: (compared value, predicate, bound).
fn conjuncts(ctx: &Context, v: Value, out: &mut Vec<(Value, CmpIPredicate, i64)>) -> Option<()> {
    let op = defining_op(ctx, v)?;
    match ArithOp::of(ctx, op)? {
        ArithOp::AndI => {
            let (a, b) = (ctx.op(op).operands[0], ctx.op(op).operands[1]);
            conjuncts(ctx, a, out)?;
            conjuncts(ctx, b, out)
        }
        ArithOp::CmpI => {
            let cmp = CmpIOp(op);
            let bound = constant_int(ctx, cmp.rhs(ctx))?;
            out.push((cmp.lhs(ctx), cmp.predicate(ctx)?, bound));
            Some(())
        }
        _ => None,
    }
}

pub(super) fn defined_outside(ctx: &Context, v: Value, op: OpId) -> bool {
    let mut parent = match ctx.value(v).def {
        ValueDef::Result { op: def, .. } => ctx.parent_op(def),
        ValueDef::BlockArgument { block, .. } => {
            ctx.block(block).parent.and_then(|r| ctx.region(r).parent)
        }
        ValueDef::Placeholder => return false,
    };
    while let Some(p) = parent {
        if p == op {
            return false;
        }
        parent = ctx.parent_op(p);
    }
    true
}

/// The reduction `loop.for` a block holds as its only op besides the terminator, or the
/// nest's innermost body.
fn single_for(ctx: &Context, block: tb_ir::BlockId) -> Option<OpId> {
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let [inner, _yield] = ops.as_slice() else {
        return None;
    };
    (LoopOp::of(ctx, *inner) == Some(LoopOp::For)).then_some(*inner)
}

fn zero_based(dim: &loop_::LoopDim) -> Option<i64> {
    (dim.lower.constant() == Some(0) && dim.step == 1)
        .then(|| dim.upper.constant())
        .flatten()
}

/// Recognizes the convolution nest rooted at the `loop.parallel` `parallel`.
///
/// `convert-te-to-loop` leaves out the loops of result dimensions of extent 1, so a
/// result with one output row (a 1xN convolution over a sequence, as text recognizers
/// run them) or one column has a parallel loop over the other two dimensions only: such a
/// dimension's index is the constant 0, and its window's stride is taken as 1 (its one
/// iteration never moves the window).
pub fn match_conv(ctx: &Context, parallel: OpId) -> Option<ConvNest> {
    let dims = loop_::loop_dims(ctx, parallel)?;
    let body: Vec<OpId> = ctx.block_ops(loop_::body(ctx, parallel)?).collect();
    let [outer, store, _] = body.as_slice() else {
        return None;
    };
    if LoopOp::of(ctx, *outer) != Some(LoopOp::For)
        || LoopOp::of(ctx, *store) != Some(LoopOp::Store)
    {
        return None;
    }
    let stored = ctx.op(*store).operands.get(1).copied()?;
    let [1, m, oh, ow] = shape_of(ctx, stored)?[..] else {
        return None;
    };
    // Which of co, oh, ow the parallel loop runs: all three, or those of extent above 1.
    let present: Vec<usize> = if dims.len() == 3 {
        vec![CO, OH, OW]
    } else {
        [(CO, m), (OH, oh), (OW, ow)]
            .into_iter()
            .filter(|&(_, e)| e != 1)
            .map(|(d, _)| d)
            .collect()
    };
    // A schedule's dimensions are the three of the full nest.
    if present.len() != dims.len()
        || dims.is_empty()
        || (present.len() < 3 && loop_::schedule(ctx, parallel).is_some())
    {
        return None;
    }
    // A dimension without a loop gets a value no index is computed from (the sum's f32
    // initial value), so every index reads as independent of it.
    let absent = *loop_::inits(ctx, *outer).first()?;
    let mut extents = [1i64; 6];
    let mut ivs = [absent; 6];
    for (&d, dim) in present.iter().zip(&dims) {
        extents[d] = zero_based(dim)?;
        ivs[d] = dim.induction_var;
    }
    // The chain c, kh, kw (a convolution) or kh, kw (a pool), each carrying one
    // accumulator into the next.
    let mut loops = vec![*outer];
    while loops.len() < 3 {
        let Some(inner) = single_for(ctx, loop_::body(ctx, *loops.last()?)?) else {
            break;
        };
        loops.push(inner);
    }
    if loops.len() < 2 {
        return None;
    }
    // A pool has no `c` loop: its slot has one iteration, and its induction variable is
    // `co`'s (which `linear` finds first), so no index ever reads as depending on it.
    let first_slot = KW + 1 - loops.len();
    extents[C] = 1;
    for (d, &l) in loops.iter().enumerate() {
        let dim = loop_::loop_dims(ctx, l)?.into_iter().next()?;
        extents[first_slot + d] = zero_based(&dim)?;
        ivs[first_slot + d] = dim.induction_var;
        let [init] = loop_::inits(ctx, l) else {
            return None;
        };
        if d > 0 && *init != loop_::iter_args(ctx, loops[d - 1])[0] {
            return None;
        }
        if d + 1 < loops.len() {
            let yielded = loop_::yielded(ctx, l);
            if yielded.as_slice() != [ctx.op(loops[d + 1]).results[0]] {
                return None;
            }
        }
    }
    if extents.iter().any(|&e| e < 1) {
        return None;
    }
    let init = loop_::inits(ctx, *outer)[0];
    let result = ctx.op(*outer).results[0];
    if !defined_outside(ctx, init, parallel)
        || !matches!(
            ctx.type_kind(ctx.value_type(init)),
            TypeKind::Float(FloatKind::F32)
        )
        || ctx.op(*store).operands[0] != result
        || ctx.value(result).uses.len() != 1
    {
        return None;
    }

    // The output: Y[0, co, oh, ow] of shape [1, M, OH, OW].
    let out = read_store(ctx, *store, &ivs)?;
    let own = |d: usize| {
        if present.contains(&d) {
            Linear::unit(d)
        } else {
            Linear::constant(0)
        }
    };
    let want = [Linear::constant(0), own(CO), own(OH), own(OW)];
    let out_shape = shape_of(ctx, out.0)?;
    if out.1 != want || out_shape != [1, extents[CO], extents[OH], extents[OW]] {
        return None;
    }

    // The body: acc + x * w (x the input read, w the weight read) under three loops, or a
    // pool's combine(acc, f(x)) under two.
    let kw_loop = *loops.last()?;
    let (tap, x) = if loops.len() == 3 {
        product_tap(ctx, kw_loop, &ivs, &extents)?
    } else {
        let pool = match_pool_tap(ctx, kw_loop, parallel)?;
        let x = pool.x;
        (Tap::Pool(pool), x)
    };
    let x_op = defining_op(ctx, x)?;
    let (load, condition, pad) = if ArithOp::of(ctx, x_op) == Some(ArithOp::Select) {
        let operands = &ctx.op(x_op).operands;
        let load = defining_op(ctx, operands[1])?;
        constant_value(ctx, defining_op(ctx, operands[2])?)?;
        if !defined_outside(ctx, operands[2], parallel) {
            return None;
        }
        (load, Some(operands[0]), Some(operands[2]))
    } else {
        (x_op, None, None)
    };
    let input = read(ctx, load, &ivs)?;
    let in_shape = shape_of(ctx, input.memref)?;
    let [1, in_c, in_h, in_w] = in_shape[..] else {
        return None;
    };
    if input.indices.len() != 4 || input.indices[0] != Linear::constant(0) {
        return None;
    }
    let pool = matches!(tap, Tap::Pool(_));
    let depthwise = pool || input.indices[1] != Linear::unit(C);
    if pool {
        if in_c != extents[CO] || input.indices[1] != Linear::unit(CO) {
            return None;
        }
    } else if depthwise {
        let mut co_plus_c = Linear::unit(CO);
        co_plus_c.coeffs[C] = 1;
        if extents[C] != 1 || in_c != extents[CO] || input.indices[1] != co_plus_c {
            return None;
        }
    } else if in_c != extents[C] {
        return None;
    }
    let window = |index: Linear, o: usize, k: usize| -> Option<Window> {
        let w = Window {
            stride: if present.contains(&o) {
                index.coeffs[o]
            } else {
                1
            },
            dilation: index.coeffs[k],
            offset: index.constant,
        };
        (index.only(&[o, k]) && w.stride >= 1 && w.dilation >= 0).then_some(w)
    };
    let rows = window(input.indices[2], OH, KH)?;
    let cols = window(input.indices[3], OW, KW)?;
    // The padding condition: each conjunct bounds one spatial index on one side; every
    // side the domain can cross is checked; clamps are no-ops inside the input.
    let mut checked = [[false; 2]; 4];
    if let Some(cond) = condition {
        let mut leaves = Vec::new();
        conjuncts(ctx, cond, &mut leaves)?;
        for (v, pred, bound) in leaves {
            let form = linear(ctx, v, &ivs)?;
            let dim = (2..4).find(|&i| input.indices[i] == form)?;
            let extent = in_shape[dim];
            match (pred, bound) {
                (CmpIPredicate::Sge, 0) | (CmpIPredicate::Sgt, -1) => checked[dim][0] = true,
                (CmpIPredicate::Sle, b) if b == extent - 1 => checked[dim][1] = true,
                (CmpIPredicate::Slt, b) if b == extent => checked[dim][1] = true,
                _ => return None,
            }
        }
    }
    for (i, &extent) in in_shape.iter().enumerate() {
        let (lo, hi) = input.indices[i].range(&extents);
        let (clamp_lo, clamp_hi) = input.clamps[i];
        if (lo < 0 && !checked[i][0]) || (hi > extent - 1 && !checked[i][1]) {
            return None;
        }
        if clamp_lo > 0 || clamp_hi < extent - 1 {
            return None;
        }
    }
    let padded = checked.iter().flatten().any(|&c| c);
    Some(ConvNest {
        parallel,
        extents,
        depthwise,
        input: input.memref,
        input_shape: [in_c, in_h, in_w],
        rows,
        cols,
        pad: if padded { pad } else { None },
        tap,
        output: out.0,
        init,
        loops: present,
    })
}

/// The tap of a convolution's `kw` body, `acc + x * w`: the weights and the input value `x`.
/// Only index arithmetic, the two reads and the accumulation may be in the body, so
/// nothing else is lost when the nest is replaced.
fn product_tap(
    ctx: &Context,
    kw_loop: OpId,
    ivs: &[Value; 6],
    extents: &[i64; 6],
) -> Option<(Tap, Value)> {
    let acc = loop_::iter_args(ctx, kw_loop)[0];
    let [sum] = loop_::yielded(ctx, kw_loop)[..] else {
        return None;
    };
    let add = defining_op(ctx, sum)?;
    if ArithOp::of(ctx, add) != Some(ArithOp::AddF) {
        return None;
    }
    let add_operands = ctx.op(add).operands.clone();
    let product = match add_operands.as_slice() {
        [a, p] if *a == acc => *p,
        [p, a] if *a == acc => *p,
        _ => return None,
    };
    let mul = defining_op(ctx, product)?;
    if ArithOp::of(ctx, mul) != Some(ArithOp::MulF) || ctx.value(product).uses.len() != 1 {
        return None;
    }
    let factors = ctx.op(mul).operands.clone();
    let is_weight = |v: Value| -> Option<Read> {
        let load = defining_op(ctx, v)?;
        let r = read(ctx, load, ivs)?;
        let unit = [
            Linear::unit(CO),
            Linear::unit(C),
            Linear::unit(KH),
            Linear::unit(KW),
        ];
        (r.indices == unit && r.clamps.iter().all(|&c| c == (i64::MIN, i64::MAX))).then_some(r)
    };
    let (weights, x) = match (is_weight(factors[0]), is_weight(factors[1])) {
        (Some(w), _) => (w, factors[1]),
        (None, Some(w)) => (w, factors[0]),
        _ => return None,
    };
    let w_shape = shape_of(ctx, weights.memref)?;
    if w_shape != [extents[CO], extents[C], extents[KH], extents[KW]] {
        return None;
    }
    let inner: Vec<OpId> = ctx.block_ops(loop_::body(ctx, kw_loop)?).collect();
    if !inner.iter().all(|&op| {
        ArithOp::of(ctx, op).is_some()
            || LoopOp::of(ctx, op) == Some(LoopOp::Load)
            || LoopOp::of(ctx, op) == Some(LoopOp::Yield)
    }) {
        return None;
    }
    Some((
        Tap::Product {
            weights: weights.memref,
        },
        x,
    ))
}

/// A store's memref and the linear forms of its indices.
fn read_store(ctx: &Context, store: OpId, ivs: &[Value; 6]) -> Option<(Value, Vec<Linear>)> {
    let map = loop_::access_map(ctx, store)?;
    if map.num_symbols != 0 {
        return None;
    }
    let operands = &ctx.op(store).operands;
    let forms: Vec<Linear> = operands[2..]
        .iter()
        .map(|&o| linear(ctx, o, ivs))
        .collect::<Option<_>>()?;
    let indices = map
        .results
        .iter()
        .map(|r| linear_expr(r, &forms))
        .collect::<Option<_>>()?;
    Some((operands[1], indices))
}
