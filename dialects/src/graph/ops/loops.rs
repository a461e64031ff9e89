//! Iteration: `graph.loop` (ONNX Loop) and `graph.scan` (ONNX Scan). Each has one
//! single-block body region ending in `graph.yield`; like `graph.if`'s regions, the body
//! uses values defined above the op directly (an ONNX body reads outer values by name).
//!
//! `graph.loop %trip_count, %condition, %inits...` runs its body while the iteration number
//! is below the trip count and the condition holds (both are checked before every
//! iteration, so a false initial condition or a zero trip count runs nothing). The body's
//! block arguments are the iteration number (`tensor<i64>`), the condition (`tensor<i1>`)
//! and the loop-carried values; it yields the next condition, the next loop-carried values
//! and one value per scan output. The results are the final loop-carried values, then each
//! scan output's per-iteration values stacked along a new first axis, whose static length
//! is the number of iterations the loop runs (a run that makes another number is an error).
//! An ONNX Loop without `M` has the largest i64 as its trip count, and one without `cond`
//! the constant true: as onnxruntime does, the condition the body yields is always read.
//!
//! ```mlir
//! %r:2 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>)
//!     -> (tensor<2xf32>, tensor<5x2xf32>) {
//! ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
//!   %next = graph.add %acc, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
//!   graph.yield %cond, %next, %next : tensor<i1>, tensor<2xf32>, tensor<2xf32>
//! }
//! ```
//!
//! `graph.scan %states..., %scan_inputs... {num_scan_inputs = K}` runs its body once per
//! slice of its scan inputs along their scan axes (`scan_input_axes`, default 0), in the
//! order `scan_input_directions` gives (0 forward, 1 reverse; default forward). The block
//! arguments are the states, then one slice (the axis removed) per scan input; the body
//! yields the next states, then one value per scan output. The results are the final
//! states, then each scan output's values stacked along `scan_output_axes` (default 0), in
//! iteration order or reversed (`scan_output_directions`). Negative axes count from the
//! end, as in ONNX.
//!
//! Canonicalization replaces a `graph.loop` that runs no iteration (a constant zero trip
//! count or a constant false condition) and has no scan outputs by its initial values.

use tb_ir::ods::{OpDef, attr, operand, optional_attr, single_block_region, variadic};
use tb_ir::printer::type_to_string;
use tb_ir::registry::OpTraits;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Context, Diagnostic, OpId, Type, Value};

use super::control_flow::yield_of;
use crate::graph::attrs::Attrs;
use crate::graph::literal::Literal;
use crate::graph::types::{TENSOR_ANY, TENSOR_BOOL, TENSOR_I64, static_tensor};

pub const LOOP: &str = "graph.loop";
pub const SCAN: &str = "graph.scan";

fn op_error(ctx: &Context, op: OpId, message: impl AsRef<str>) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {}", ctx.op_name(op), message.as_ref()),
    )
}

fn list(ctx: &Context, tys: &[Type]) -> String {
    tys.iter()
        .map(|&t| type_to_string(ctx, t))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The statically shaped tensor `ty`, or an error naming `what`.
fn static_parts<'c>(
    ctx: &'c Context,
    op: OpId,
    ty: Type,
    what: &str,
) -> Result<(&'c [i64], Type), Diagnostic> {
    static_tensor(ctx, ty).ok_or_else(|| {
        op_error(
            ctx,
            op,
            format!(
                "{what} must be a statically shaped tensor, not {}",
                type_to_string(ctx, ty)
            ),
        )
    })
}

/// The body's block argument types and the types its `graph.yield` gives.
fn body_signature(ctx: &Context, op: OpId) -> Result<(Vec<Type>, Vec<Type>), Diagnostic> {
    let Some(&region) = ctx.op(op).regions.first() else {
        return Err(op_error(ctx, op, "needs a body region"));
    };
    let Some(&block) = ctx.region(region).blocks.first() else {
        return Err(op_error(ctx, op, "body region must have a block"));
    };
    let Some(term) = yield_of(ctx, region) else {
        return Err(op_error(
            ctx,
            op,
            format!("body region must end in '{}'", super::control_flow::YIELD),
        ));
    };
    let args = ctx
        .block(block)
        .args
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    let yielded = ctx
        .op(term)
        .operands
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    Ok((args, yielded))
}

/// `got` equals `want`, or an error saying which list (`what`) disagrees.
fn same_types(
    ctx: &Context,
    op: OpId,
    what: &str,
    got: &[Type],
    want: &[Type],
) -> Result<(), Diagnostic> {
    if got == want {
        return Ok(());
    }
    Err(op_error(
        ctx,
        op,
        format!(
            "{what} are ({}) but must be ({})",
            list(ctx, got),
            list(ctx, want)
        ),
    ))
}

/// `ty` is a 0-d tensor of `element` (`i64` or `i1`), the type of a loop's trip count,
/// condition and iteration number.
fn is_scalar_of(ctx: &Context, ty: Type, width: u32) -> bool {
    matches!(static_tensor(ctx, ty), Some((shape, e)) if shape.is_empty()
        && matches!(ctx.type_kind(e), tb_ir::TypeKind::Integer { width: w, .. } if *w == width))
}

/// A typed view of `graph.loop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopOp(pub OpId);

impl LoopOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<LoopOp> {
        (ctx.op_name(op) == LOOP).then_some(LoopOp(op))
    }

    pub fn trip_count(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    pub fn condition(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[1]
    }

    /// The initial values of the loop-carried values.
    pub fn inits(self, ctx: &Context) -> &[Value] {
        &ctx.op(self.0).operands[2..]
    }

    pub fn num_carried(self, ctx: &Context) -> usize {
        ctx.op(self.0).operands.len() - 2
    }

    pub fn num_scan_outputs(self, ctx: &Context) -> usize {
        ctx.op(self.0)
            .results
            .len()
            .saturating_sub(self.num_carried(ctx))
    }

    pub fn body(self, ctx: &Context) -> Option<tb_ir::BlockId> {
        ctx.entry_block(*ctx.op(self.0).regions.first()?)
    }
}

/// Trip count and condition are 0-d; the body takes (iteration number, condition,
/// carried values...) and yields (condition, carried values..., scan values...); results
/// are the carried values, then each scan value with a leading iteration axis.
fn verify_loop(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    if data.operands.len() < 2 {
        return Err(op_error(ctx, op, "needs a trip count and a condition"));
    }
    let view = LoopOp(op);
    let (trip, cond) = (
        ctx.value_type(view.trip_count(ctx)),
        ctx.value_type(view.condition(ctx)),
    );
    if !is_scalar_of(ctx, trip, 64) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "trip count must be a tensor<i64>, not {}",
                type_to_string(ctx, trip)
            ),
        ));
    }
    if !is_scalar_of(ctx, cond, 1) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "condition must be a tensor<i1>, not {}",
                type_to_string(ctx, cond)
            ),
        ));
    }
    let carried: Vec<Type> = view.inits(ctx).iter().map(|&v| ctx.value_type(v)).collect();
    let results: Vec<Type> = data.results.iter().map(|&r| ctx.value_type(r)).collect();
    if results.len() < carried.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} results but {} loop-carried values",
                results.len(),
                carried.len()
            ),
        ));
    }
    for (i, &ty) in results.iter().enumerate() {
        static_parts(ctx, op, ty, &format!("result #{i}"))?;
    }
    same_types(
        ctx,
        op,
        "the loop-carried results",
        &results[..carried.len()],
        &carried,
    )?;
    let (args, yielded) = body_signature(ctx, op)?;
    let mut want_args = vec![trip, cond];
    want_args.extend(&carried);
    same_types(ctx, op, "the body's block arguments", &args, &want_args)?;
    let scans = &results[carried.len()..];
    if yielded.len() != 1 + carried.len() + scans.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "body yields {} values but must yield the condition, {} loop-carried values \
                 and {} scan values",
                yielded.len(),
                carried.len(),
                scans.len()
            ),
        ));
    }
    same_types(
        ctx,
        op,
        "the body's yielded condition and loop-carried values",
        &yielded[..1 + carried.len()],
        &want_args[1..],
    )?;
    for (k, (&elem, &stacked)) in yielded[1 + carried.len()..].iter().zip(scans).enumerate() {
        let (elem_shape, elem_ty) = static_parts(ctx, op, elem, &format!("scan value #{k}"))?;
        let (shape, ty) = static_parts(ctx, op, stacked, "")?;
        if ty != elem_ty || shape.len() != elem_shape.len() + 1 || shape[1..] != *elem_shape {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "scan output #{k} is {} but the body yields {}: it must be the yielded \
                     type with a leading iteration axis",
                    type_to_string(ctx, stacked),
                    type_to_string(ctx, elem)
                ),
            ));
        }
    }
    Ok(())
}

/// The value of a one-element constant, as f64.
fn constant_scalar(ctx: &Context, value: Value) -> Option<f64> {
    let ValueDef::Result { op, .. } = ctx.value(value).def else {
        return None;
    };
    let literal = Literal::from_attr(ctx, constant_value(ctx, op)?)?;
    literal.splat_value()?.to_f64_vec().first().copied()
}

/// A `graph.loop` that runs no iteration and has no scan outputs: its results are its
/// initial values.
struct LoopWithoutIterations;

impl RewritePattern for LoopWithoutIterations {
    fn debug_name(&self) -> &'static str {
        "graph-loop-without-iterations"
    }

    fn root(&self) -> Option<&'static str> {
        Some(LOOP)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let view = LoopOp(op);
        if ctx.op(op).operands.len() < 2 || view.num_scan_outputs(ctx) != 0 {
            return false;
        }
        let never = constant_scalar(ctx, view.trip_count(ctx)).is_some_and(|m| m <= 0.0)
            || constant_scalar(ctx, view.condition(ctx)) == Some(0.0);
        if !never {
            return false;
        }
        let inits = view.inits(ctx).to_vec();
        rewriter.replace_op(op, &inits);
        true
    }
}

fn loop_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(LoopWithoutIterations));
}

/// A typed view of `graph.scan`, with its axes and directions normalized and defaulted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanOp {
    pub op: OpId,
    pub num_states: usize,
    /// Per scan input: the axis its slices are taken along (non-negative).
    pub input_axes: Vec<usize>,
    /// Per scan input: whether it is read from its last slice to its first.
    pub input_reversed: Vec<bool>,
    /// Per scan output: the axis its values are stacked along (non-negative).
    pub output_axes: Vec<usize>,
    /// Per scan output: whether the last iteration's value comes first.
    pub output_reversed: Vec<bool>,
    /// The number of iterations: the length of every scan input along its axis.
    pub length: i64,
}

/// `attr` as a list of `n` integers (zeros when absent).
fn ints_or_zeros(a: &Attrs, name: &str, n: usize) -> Result<Vec<i64>, String> {
    match a.ints(name)? {
        None => Ok(vec![0; n]),
        Some(v) if v.len() == n => Ok(v),
        Some(v) => Err(format!(
            "'{name}' has {} entries but there are {n} {}",
            v.len(),
            if name.starts_with("scan_input") {
                "scan inputs"
            } else {
                "scan outputs"
            }
        )),
    }
}

fn directions(a: &Attrs, name: &str, n: usize) -> Result<Vec<bool>, String> {
    ints_or_zeros(a, name, n)?
        .into_iter()
        .map(|d| match d {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(format!(
                "'{name}' entries must be 0 (forward) or 1 (reverse), not {d}"
            )),
        })
        .collect()
}

fn normalize(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(format!("{what} {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

impl ScanOp {
    /// The view of a `graph.scan` whose attributes and operand types are consistent.
    pub fn of(ctx: &Context, op: OpId) -> Result<ScanOp, String> {
        if ctx.op_name(op) != SCAN {
            return Err(format!("is not a '{SCAN}'"));
        }
        let a = Attrs::of_op(ctx, op);
        let operands = &ctx.op(op).operands;
        let num_scan = a.i64("num_scan_inputs")?;
        if num_scan < 1 || num_scan as usize > operands.len() {
            return Err(format!(
                "num_scan_inputs = {num_scan} must be between 1 and the number of operands ({})",
                operands.len()
            ));
        }
        let num_scan = num_scan as usize;
        let num_states = operands.len() - num_scan;
        let num_outputs = ctx.op(op).results.len().saturating_sub(num_states);
        let mut input_axes = Vec::new();
        let mut length = None;
        for (k, axis) in ints_or_zeros(&a, "scan_input_axes", num_scan)?
            .into_iter()
            .enumerate()
        {
            let ty = ctx.value_type(operands[num_states + k]);
            let (shape, _) = static_tensor(ctx, ty)
                .ok_or_else(|| format!("scan input #{k} must be a statically shaped tensor"))?;
            let axis = normalize(axis, shape.len(), &format!("scan input #{k}'s axis"))?;
            match length {
                None => length = Some(shape[axis]),
                Some(l) if l != shape[axis] => {
                    return Err(format!(
                        "scan input #{k} has {} slices along its axis but scan input #0 has {l}",
                        shape[axis]
                    ));
                }
                Some(_) => {}
            }
            input_axes.push(axis);
        }
        let mut output_axes = Vec::new();
        for (k, axis) in ints_or_zeros(&a, "scan_output_axes", num_outputs)?
            .into_iter()
            .enumerate()
        {
            let ty = ctx.value_type(ctx.op(op).results[num_states + k]);
            let (shape, _) = static_tensor(ctx, ty)
                .ok_or_else(|| format!("scan output #{k} must be a statically shaped tensor"))?;
            output_axes.push(normalize(
                axis,
                shape.len(),
                &format!("scan output #{k}'s axis"),
            )?);
        }
        Ok(ScanOp {
            op,
            num_states,
            input_axes,
            input_reversed: directions(&a, "scan_input_directions", num_scan)?,
            output_axes,
            output_reversed: directions(&a, "scan_output_directions", num_outputs)?,
            length: length.unwrap_or(0),
        })
    }

    pub fn states<'c>(&self, ctx: &'c Context) -> &'c [Value] {
        &ctx.op(self.op).operands[..self.num_states]
    }

    pub fn scan_inputs<'c>(&self, ctx: &'c Context) -> &'c [Value] {
        &ctx.op(self.op).operands[self.num_states..]
    }

    pub fn num_scan_outputs(&self, ctx: &Context) -> usize {
        ctx.op(self.op).results.len() - self.num_states
    }

    pub fn body(&self, ctx: &Context) -> Option<tb_ir::BlockId> {
        ctx.entry_block(*ctx.op(self.op).regions.first()?)
    }
}

/// `shape` without `axis`.
fn without(shape: &[i64], axis: usize) -> Vec<i64> {
    let mut s = shape.to_vec();
    s.remove(axis);
    s
}

/// The body takes (states..., one slice per scan input) and yields (states..., one value
/// per scan output); results are the states, then each scan value stacked along its axis.
fn verify_scan(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let view = ScanOp::of(ctx, op).map_err(|m| op_error(ctx, op, m))?;
    let data = ctx.op(op);
    let results: Vec<Type> = data.results.iter().map(|&r| ctx.value_type(r)).collect();
    if results.len() < view.num_states {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} results but {} state variables",
                results.len(),
                view.num_states
            ),
        ));
    }
    for (i, &ty) in results.iter().enumerate() {
        static_parts(ctx, op, ty, &format!("result #{i}"))?;
    }
    let states: Vec<Type> = view
        .states(ctx)
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    same_types(
        ctx,
        op,
        "the state results",
        &results[..view.num_states],
        &states,
    )?;
    let (args, yielded) = body_signature(ctx, op)?;
    if args.len() != data.operands.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "body has {} block arguments but must take {} states and {} scan slices",
                args.len(),
                view.num_states,
                view.input_axes.len()
            ),
        ));
    }
    same_types(
        ctx,
        op,
        "the body's state arguments",
        &args[..view.num_states],
        &states,
    )?;
    for (k, (&input, &axis)) in view
        .scan_inputs(ctx)
        .iter()
        .zip(&view.input_axes)
        .enumerate()
    {
        let (shape, elem) = static_parts(ctx, op, ctx.value_type(input), "scan input")?;
        let arg = args[view.num_states + k];
        let ok = static_tensor(ctx, arg)
            .is_some_and(|(s, e)| e == elem && s == without(shape, axis).as_slice());
        if !ok {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "the body's argument for scan input #{k} is {} but a slice of {} along \
                     axis {axis} is not",
                    type_to_string(ctx, arg),
                    type_to_string(ctx, ctx.value_type(input))
                ),
            ));
        }
    }
    let scans = &results[view.num_states..];
    if yielded.len() != view.num_states + scans.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "body yields {} values but must yield {} states and {} scan values",
                yielded.len(),
                view.num_states,
                scans.len()
            ),
        ));
    }
    same_types(
        ctx,
        op,
        "the body's yielded states",
        &yielded[..view.num_states],
        &states,
    )?;
    for (k, (&elem, &stacked)) in yielded[view.num_states..].iter().zip(scans).enumerate() {
        let (elem_shape, elem_ty) = static_parts(ctx, op, elem, &format!("scan value #{k}"))?;
        let (shape, ty) = static_parts(ctx, op, stacked, "")?;
        let axis = view.output_axes[k];
        let ok = ty == elem_ty
            && shape.len() == elem_shape.len() + 1
            && shape[axis] == view.length
            && without(shape, axis) == elem_shape;
        if !ok {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "scan output #{k} is {} but must be the yielded {} with {} iterations \
                     inserted at axis {axis}",
                    type_to_string(ctx, stacked),
                    type_to_string(ctx, elem),
                    view.length
                ),
            ));
        }
    }
    Ok(())
}

const BODY_FORMAT: &str = "$inputs attr-dict `:` functional-type(operands, results) $body";

pub(super) static DEFS: &[OpDef] = &[
    OpDef {
        name: LOOP,
        summary: "runs its body while the iteration number is below the trip count and the \
                  condition holds, carrying values between iterations and stacking scan \
                  values",
        operands: &[
            operand("trip_count", TENSOR_I64),
            operand("condition", TENSOR_BOOL),
            variadic("inits", TENSOR_ANY),
        ],
        results: &[variadic("results", TENSOR_ANY)],
        regions: &[single_block_region("body")],
        traits: OpTraits {
            single_block: true,
            removable_if_unused: true,
            ..OpDef::EMPTY.traits
        },
        format: Some(
            "$trip_count `,` $condition (`,` $inits^)? attr-dict `:` \
             functional-type(operands, results) $body",
        ),
        verify: Some(verify_loop),
        canonicalize: Some(loop_patterns),
        ..OpDef::EMPTY
    },
    OpDef {
        name: SCAN,
        summary: "runs its body once per slice of its scan inputs, carrying state values \
                  between iterations and stacking scan values",
        operands: &[variadic("inputs", TENSOR_ANY)],
        results: &[variadic("results", TENSOR_ANY)],
        attributes: &[
            attr("num_scan_inputs", tb_ir::ods::constraint::I64_ATTR),
            optional_attr(
                "scan_input_axes",
                tb_ir::ods::constraint::DENSE_I64_ARRAY_ATTR,
            ),
            optional_attr(
                "scan_input_directions",
                tb_ir::ods::constraint::DENSE_I64_ARRAY_ATTR,
            ),
            optional_attr(
                "scan_output_axes",
                tb_ir::ods::constraint::DENSE_I64_ARRAY_ATTR,
            ),
            optional_attr(
                "scan_output_directions",
                tb_ir::ods::constraint::DENSE_I64_ARRAY_ATTR,
            ),
        ],
        regions: &[single_block_region("body")],
        traits: OpTraits {
            single_block: true,
            removable_if_unused: true,
            ..OpDef::EMPTY.traits
        },
        format: Some(BODY_FORMAT),
        verify: Some(verify_scan),
        ..OpDef::EMPTY
    },
];
