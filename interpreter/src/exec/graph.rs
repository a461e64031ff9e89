//! `graph` ops: each runs the ONNX-semantics kernel of its operator, with the op's
//! attributes read through the dialect's own accessors (so ONNX defaults are the ones the
//! verifier used), and checks what the kernel produced against the op's declared types.

use tb_dialects::graph::attrs::Attrs;
use tb_dialects::graph::{
    GraphOp, Unary, UnaryOfOp, conv_attrs, conv_transpose_attrs, pool_attrs, resize_attrs,
};
use tb_dialects::graph::{LoopOp, ScanOp};
use tb_ir::ods::OpKind;
use tb_ir::{AttrKind, OpId};

use super::value::{ElemType, RtValue, Scalar, static_shape, write_element};
use super::{Env, ExecError, ExecResult, Interpreter, attr};
use crate::kernels::bitwise::{self as bw, Bitwise};
use crate::kernels::elementwise::{self as ew, Binary, Compare, Logic};
use crate::kernels::matmul::{self, GemmAttrs};
use crate::kernels::reduce;
use crate::kernels::shape_ops::{self as so, DepthToSpaceMode, PadMode};
use crate::kernels::{
    KernelError, conv, einsum, indexing, normalization as norm, pool, positional, resize, softmax,
    top_k,
};
use crate::tensor::{Tensor, TensorData};

fn scatter_reduction(a: &Attrs) -> ExecResult<indexing::ScatterReduction> {
    let name = a.choice("reduction", &["none", "add", "mul", "max", "min"])?;
    Ok(indexing::ScatterReduction::parse(&name).ok_or("unknown reduction")?)
}

fn kernel(e: KernelError) -> super::ExecError {
    e.message.into()
}

/// Runs a graph op: an exhaustive match over [`GraphOp`], so a graph op without its kernel
/// here does not compile.
pub(super) fn run(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    use GraphOp as G;
    let ctx = interp.ctx;
    let kind = GraphOp::of(ctx, op).ok_or("is not a registered graph op")?;
    match kind {
        G::If => return run_if(interp, env, op),
        G::Loop => return run_loop(interp, env, op),
        G::Scan => return run_scan(interp, env, op),
        _ => {}
    }
    let a = Attrs::of_op(ctx, op);
    let count = ctx.op(op).operands.len();
    let x = |i: usize| interp.tensor_arg(env, op, i);
    let opt = |i: usize| -> ExecResult<Option<&Tensor>> {
        if i < count { Ok(Some(x(i)?)) } else { Ok(None) }
    };
    let all = || (0..count).map(x).collect::<ExecResult<Vec<_>>>();
    let f32_attr = |n: &str| -> ExecResult<f32> { Ok(a.f64(n)? as f32) };
    let one = |t: Result<Tensor, KernelError>| -> ExecResult<Vec<Tensor>> {
        Ok(vec![t.map_err(kernel)?])
    };
    let unary = |u: Unary| one(ew::unary(x(0)?, u));

    let results: Vec<Tensor> = match kind {
        G::Constant => {
            let value = a.get("value").ok_or("has no value")?;
            match attr::attr_to_value(ctx, value, interp.result_type(op, 0))? {
                RtValue::Tensor(t) => vec![t],
                _ => return Err("value is not a tensor constant".into()),
            }
        }
        G::ConstantOfShape => {
            let value = a
                .get("value")
                .map(|v| scalar_tensor(interp, v))
                .transpose()?;
            one(so::constant_of_shape(
                &a.required_ints("shape")?,
                value.as_ref(),
            ))?
        }
        G::Range => {
            let get = |n: &str| -> ExecResult<Tensor> {
                scalar_tensor(interp, a.get(n).ok_or_else(|| format!("has no {n}"))?)
            };
            one(so::range(&get("start")?, &get("limit")?, &get("delta")?))?
        }
        G::Shape => one(so::shape_of(x(0)?, a.opt_i64("start")?, a.opt_i64("end")?))?,
        G::Size => vec![Tensor::scalar(x(0)?.numel() as i64)],

        G::Relu
        | G::LeakyRelu
        | G::ThresholdedRelu
        | G::Elu
        | G::Selu
        | G::Celu
        | G::Sigmoid
        | G::HardSigmoid
        | G::HardSwish
        | G::Tanh
        | G::Gelu
        | G::Softplus
        | G::Softsign
        | G::Mish
        | G::Swish
        | G::Shrink
        | G::Erf
        | G::Exp
        | G::Log
        | G::Sqrt
        | G::Reciprocal
        | G::Neg
        | G::Abs
        | G::Sign
        | G::Floor
        | G::Ceil
        | G::Round
        | G::Sin
        | G::Cos
        | G::Tan
        | G::Asin
        | G::Acos
        | G::Atan
        | G::Sinh
        | G::Cosh
        | G::Asinh
        | G::Acosh
        | G::Atanh => {
            let u = Unary::of(ctx, op)?.ok_or("is not a unary function")?;
            unary(u)?
        }
        G::Not => one(ew::not(x(0)?))?,
        G::Identity => vec![x(0)?.clone()],
        G::Clip => {
            let min = a.get("min").map(|v| scalar_tensor(interp, v)).transpose()?;
            let max = a.get("max").map(|v| scalar_tensor(interp, v)).transpose()?;
            one(ew::clip(x(0)?, min.as_ref(), max.as_ref()))?
        }
        G::IsNan => one(ew::is_nan(x(0)?))?,
        G::IsInf => one(ew::is_inf(
            x(0)?,
            a.bool("detect_negative")?,
            a.bool("detect_positive")?,
        ))?,
        G::Cast => {
            let to = a.ty("to")?.ok_or("has no `to` type")?;
            one(so::cast(x(0)?, ElemType::of(ctx, to)?.dtype()?))?
        }

        G::Add => one(ew::add(x(0)?, x(1)?))?,
        G::Sub => one(ew::sub(x(0)?, x(1)?))?,
        G::Mul => one(ew::mul(x(0)?, x(1)?))?,
        G::Div => one(ew::div(x(0)?, x(1)?))?,
        G::Pow => one(ew::pow(x(0)?, x(1)?))?,
        G::Mod => one(ew::binary(
            x(0)?,
            x(1)?,
            Binary::Mod {
                fmod: a.bool("fmod")?,
            },
        ))?,
        G::Prelu => {
            // PRelu(x, slope) = x < 0 ? slope * x : x, with slope broadcast to x.
            let (v, slope) = (x(0)?, x(1)?);
            let zero = Tensor::zeros(v.dtype(), Vec::new()).map_err(|e| e.0)?;
            let negative = ew::compare(v, &zero, Compare::Less).map_err(kernel)?;
            let scaled = ew::mul(v, slope).map_err(kernel)?;
            one(ew::where_(&negative, &scaled, v))?
        }
        G::Equal => one(ew::compare(x(0)?, x(1)?, Compare::Equal))?,
        G::Less => one(ew::compare(x(0)?, x(1)?, Compare::Less))?,
        G::LessOrEqual => one(ew::compare(x(0)?, x(1)?, Compare::LessOrEqual))?,
        G::Greater => one(ew::compare(x(0)?, x(1)?, Compare::Greater))?,
        G::GreaterOrEqual => one(ew::compare(x(0)?, x(1)?, Compare::GreaterOrEqual))?,
        G::And => one(ew::logic(x(0)?, x(1)?, Logic::And))?,
        G::Or => one(ew::logic(x(0)?, x(1)?, Logic::Or))?,
        G::Xor => one(ew::logic(x(0)?, x(1)?, Logic::Xor))?,
        G::BitwiseAnd => one(bw::bitwise(x(0)?, x(1)?, Bitwise::And))?,
        G::BitwiseOr => one(bw::bitwise(x(0)?, x(1)?, Bitwise::Or))?,
        G::BitwiseXor => one(bw::bitwise(x(0)?, x(1)?, Bitwise::Xor))?,
        G::BitwiseNot => one(bw::bitwise_not(x(0)?))?,
        G::BitShift => {
            let op = match a.choice("direction", &["LEFT", "RIGHT"])?.as_str() {
                "LEFT" => Bitwise::ShiftLeft,
                _ => Bitwise::ShiftRight,
            };
            one(bw::bitwise(x(0)?, x(1)?, op))?
        }
        G::Where => one(ew::where_(x(0)?, x(1)?, x(2)?))?,
        G::Max => one(ew::max(&all()?))?,
        G::Min => one(ew::min(&all()?))?,
        G::Sum => one(ew::sum(&all()?))?,
        G::Mean => one(ew::mean(&all()?))?,

        G::TopK => {
            top_k::top_k(x(0)?, a.i64("k")?, a.i64("axis")?, a.bool("largest")?).map_err(kernel)?
        }
        G::GatherNd => one(indexing::gather_nd(x(0)?, x(1)?, a.i64("batch_dims")?))?,
        G::ScatterNd => one(indexing::scatter_nd(
            x(0)?,
            x(1)?,
            x(2)?,
            scatter_reduction(&a)?,
        ))?,
        G::ScatterElements => one(indexing::scatter_elements(
            x(0)?,
            x(1)?,
            x(2)?,
            a.i64("axis")?,
            scatter_reduction(&a)?,
        ))?,
        G::Resize => {
            let input = x(0)?;
            let attrs = resize_attrs(&a, input.rank())?;
            one(resize::resize(input, &a.required_ints("sizes")?, &attrs))?
        }
        G::Trilu => one(positional::trilu(x(0)?, a.bool("upper")?, a.i64("k")?))?,
        G::CumSum => one(positional::cum_sum(
            x(0)?,
            a.i64("axis")?,
            a.bool("exclusive")?,
            a.bool("reverse")?,
        ))?,
        G::Hardmax => one(positional::hardmax(x(0)?, a.i64("axis")?))?,

        G::Matmul => one(matmul::matmul(x(0)?, x(1)?))?,
        G::Einsum => {
            let inputs = all()?;
            one(einsum::einsum(&a.string("equation")?, &inputs))?
        }
        G::Gemm => one(matmul::gemm(
            x(0)?,
            x(1)?,
            opt(2)?,
            &GemmAttrs {
                alpha: f32_attr("alpha")?,
                beta: f32_attr("beta")?,
                trans_a: a.bool("trans_a")?,
                trans_b: a.bool("trans_b")?,
            },
        ))?,
        G::Attention => one(crate::kernels::attention::attention(
            x(0)?,
            x(1)?,
            x(2)?,
            opt(3)?,
            &tb_dialects::graph::attention_attrs(&a)?,
        ))?,
        G::Conv => one(conv::conv(x(0)?, x(1)?, opt(2)?, &conv_attrs(&a)?))?,
        G::ConvTranspose => one(conv::conv_transpose(
            x(0)?,
            x(1)?,
            opt(2)?,
            &conv_transpose_attrs(&a)?,
        ))?,
        G::MaxPool => {
            let (y, indices) =
                pool::max_pool(x(0)?, &pool_attrs(&a)?, a.i64("storage_order")?).map_err(kernel)?;
            vec![y, indices]
        }
        G::AveragePool => one(pool::average_pool(
            x(0)?,
            &pool_attrs(&a)?,
            a.bool("count_include_pad")?,
        ))?,
        G::GlobalAveragePool => one(pool::global_average_pool(x(0)?))?,
        G::GlobalMaxPool => one(pool::global_max_pool(x(0)?))?,

        G::BatchNormalization => one(norm::batch_norm(
            x(0)?,
            x(1)?,
            x(2)?,
            x(3)?,
            x(4)?,
            f32_attr("epsilon")?,
        ))?,
        G::InstanceNormalization => one(norm::instance_norm(
            x(0)?,
            x(1)?,
            x(2)?,
            f32_attr("epsilon")?,
        ))?,
        G::LayerNormalization => {
            let out = norm::layer_norm(x(0)?, x(1)?, opt(2)?, a.i64("axis")?, f32_attr("epsilon")?)
                .map_err(kernel)?;
            vec![out.y, out.mean, out.inv_std_dev]
        }
        G::Softmax => one(softmax::softmax(x(0)?, a.i64("axis")?))?,
        G::LogSoftmax => one(softmax::log_softmax(x(0)?, a.i64("axis")?))?,

        G::Reshape => one(so::reshape(
            x(0)?,
            &a.required_ints("shape")?,
            a.bool("allowzero")?,
        ))?,
        G::Flatten => one(so::flatten(x(0)?, a.i64("axis")?))?,
        G::Transpose => one(so::transpose(x(0)?, a.ints("perm")?.as_deref()))?,
        G::Squeeze => one(so::squeeze(x(0)?, a.ints("axes")?.as_deref()))?,
        G::Unsqueeze => one(so::unsqueeze(x(0)?, &a.required_ints("axes")?))?,
        G::Concat => one(so::concat(&all()?, a.i64("axis")?))?,
        G::Split => {
            let sizes = a.ints("split")?;
            let parts = match a.opt_i64("num_outputs")? {
                Some(n) => Some(n),
                None if sizes.is_none() => Some(ctx.op(op).results.len() as i64),
                None => None,
            };
            so::split(x(0)?, a.i64("axis")?, sizes.as_deref(), parts).map_err(kernel)?
        }
        G::Slice => one(so::slice(
            x(0)?,
            &a.required_ints("starts")?,
            &a.required_ints("ends")?,
            a.ints("axes")?.as_deref(),
            a.ints("steps")?.as_deref(),
        ))?,
        G::Gather => one(so::gather(x(0)?, x(1)?, a.i64("axis")?))?,
        G::GatherElements => one(so::gather_elements(x(0)?, x(1)?, a.i64("axis")?))?,
        G::Expand => one(so::expand(x(0)?, &a.required_ints("shape")?))?,
        G::Pad => {
            let value = a
                .get("constant_value")
                .map(|v| scalar_tensor(interp, v))
                .transpose()?;
            one(so::pad(
                x(0)?,
                &a.required_ints("pads")?,
                PadMode::parse(&a.string("mode")?)?,
                value.as_ref(),
                a.ints("axes")?.as_deref(),
            ))?
        }
        G::Tile => one(so::tile(x(0)?, &a.required_ints("repeats")?))?,
        G::DepthToSpace => {
            let mode = match a.choice("mode", &["DCR", "CRD"])?.as_str() {
                "CRD" => DepthToSpaceMode::Crd,
                _ => DepthToSpaceMode::Dcr,
            };
            one(so::depth_to_space(x(0)?, a.i64("blocksize")?, mode))?
        }
        G::SpaceToDepth => one(so::space_to_depth(x(0)?, a.i64("blocksize")?))?,

        G::ArgMax => one(reduce::arg_max(
            x(0)?,
            a.i64("axis")?,
            a.bool("keepdims")?,
            a.bool("select_last_index")?,
        ))?,
        G::ArgMin => one(reduce::arg_min(
            x(0)?,
            a.i64("axis")?,
            a.bool("keepdims")?,
            a.bool("select_last_index")?,
        ))?,
        G::ReduceSum
        | G::ReduceMean
        | G::ReduceMax
        | G::ReduceMin
        | G::ReduceProd
        | G::ReduceL1
        | G::ReduceL2
        | G::ReduceLogSum
        | G::ReduceLogSumExp
        | G::ReduceSumSquare => {
            let which = kind.reduce_kind().ok_or("is not a reduction")?;
            one(reduce::reduce(
                x(0)?,
                which,
                &a.ints("axes")?.unwrap_or_default(),
                a.bool("keepdims")?,
                a.bool("noop_with_empty_axes")?,
            ))?
        }
        // `graph.if`, `graph.loop` and `graph.scan` ran above; `graph.yield` ends their
        // regions, whose runner reads it.
        G::If | G::Loop | G::Scan | G::Yield => {
            return Err("runs only as part of its region's parent".into());
        }
    };
    store_results(interp, env, op, results)
}

/// `graph.if`: runs the region the condition selects in the current environment (it uses
/// values defined above it) and takes what its `graph.yield` gives as the results.
fn run_if(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let condition = interp.tensor_arg(env, op, 0)?;
    let taken = *condition
        .to_f64_vec()
        .first()
        .ok_or("condition has no element")?
        != 0.0;
    let region = ctx.op(op).regions[if taken { 0 } else { 1 }];
    let block = ctx
        .entry_block(region)
        .ok_or("runs a region without blocks")?;
    let tensors = run_body(interp, env, block, Vec::new())?;
    store_results(interp, env, op, tensors)
}

/// Runs a region's block on `args` in the current environment and gives the tensors its
/// `graph.yield` gives.
fn run_body(
    interp: &mut Interpreter,
    env: &mut Env,
    block: tb_ir::BlockId,
    args: Vec<Tensor>,
) -> ExecResult<Vec<Tensor>> {
    let args = args.into_iter().map(RtValue::Tensor).collect();
    let values = interp
        .run_nested_block(env, block, args)
        .map_err(|d| ExecError::Located(Box::new(d)))?;
    values
        .into_iter()
        .map(|v| match v {
            RtValue::Tensor(t) => Ok(t),
            _ => Err(ExecError::from(
                "its region yields a value that is not a tensor",
            )),
        })
        .collect()
}

/// The one element of a trip count or condition.
fn single(t: &Tensor, what: &str) -> ExecResult<f64> {
    match t.to_f64_vec()[..] {
        [v] => Ok(v),
        _ => Err(format!("{what} has {} elements, not one", t.numel()).into()),
    }
}

/// `values` (one per iteration, in the order to stack) stacked along a new `axis`; with no
/// iteration, the empty tensor of the declared type `result`.
fn stack(
    interp: &Interpreter,
    op: OpId,
    result: usize,
    values: &[Tensor],
    axis: usize,
) -> ExecResult<Tensor> {
    if values.is_empty() {
        let ty = interp.result_type(op, result);
        let dtype = ElemType::of(interp.ctx, ty)?.dtype()?;
        return Ok(Tensor::zeros(dtype, static_shape(interp.ctx, ty)?).map_err(|e| e.0)?);
    }
    let expanded = values
        .iter()
        .map(|v| so::unsqueeze(v, &[axis as i64]))
        .collect::<Result<Vec<_>, _>>()
        .map_err(kernel)?;
    let refs: Vec<&Tensor> = expanded.iter().collect();
    so::concat(&refs, axis as i64).map_err(kernel)
}

/// `graph.loop`: runs the body while the iteration number is below the trip count and the
/// condition holds, feeding each iteration's yielded condition and carried values to the
/// next; scan values are stacked in iteration order.
fn run_loop(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let view = LoopOp(op);
    let trip_count = single(interp.tensor_arg(env, op, 0)?, "the trip count")?;
    let mut condition = interp.tensor_arg(env, op, 1)?.clone();
    let mut carried = (2..ctx.op(op).operands.len())
        .map(|i| interp.tensor_arg(env, op, i).cloned())
        .collect::<ExecResult<Vec<Tensor>>>()?;
    let block = view.body(ctx).ok_or("has a body without blocks")?;
    let num_scans = view.num_scan_outputs(ctx);
    let mut scans: Vec<Vec<Tensor>> = vec![Vec::new(); num_scans];
    let limit = super::max_branches()?;
    let mut iteration: i64 = 0;
    while (iteration as f64) < trip_count && single(&condition, "the condition")? != 0.0 {
        if iteration as u64 >= limit {
            return Err(format!(
                "ran more than {limit} iterations: an endless loop? (TB_MAX_BRANCHES raises \
                 the limit)"
            )
            .into());
        }
        let mut args = vec![Tensor::scalar(iteration), condition];
        args.extend(carried);
        let mut yielded = run_body(interp, env, block, args)?;
        let scanned = yielded.split_off(yielded.len() - num_scans);
        for (acc, v) in scans.iter_mut().zip(scanned) {
            acc.push(v);
        }
        condition = yielded.remove(0);
        carried = yielded;
        iteration += 1;
    }
    let first_scan = carried.len();
    let mut results = carried;
    for (k, values) in scans.iter().enumerate() {
        results.push(stack(interp, op, first_scan + k, values, 0)?);
    }
    store_results(interp, env, op, results)
}

/// `graph.scan`: one body run per slice of the scan inputs (in each input's direction),
/// carrying the states; scan values are stacked along their axes, in each output's
/// direction.
fn run_scan(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let view = ScanOp::of(ctx, op)?;
    let mut states = (0..view.num_states)
        .map(|i| interp.tensor_arg(env, op, i).cloned())
        .collect::<ExecResult<Vec<Tensor>>>()?;
    let inputs = (view.num_states..ctx.op(op).operands.len())
        .map(|i| interp.tensor_arg(env, op, i).cloned())
        .collect::<ExecResult<Vec<Tensor>>>()?;
    let block = view.body(ctx).ok_or("has a body without blocks")?;
    let num_scans = view.num_scan_outputs(ctx);
    let mut scans: Vec<Vec<Tensor>> = vec![Vec::new(); num_scans];
    for i in 0..view.length {
        let mut args = states;
        for (k, input) in inputs.iter().enumerate() {
            let at = if view.input_reversed[k] {
                view.length - 1 - i
            } else {
                i
            };
            let axis = view.input_axes[k] as i64;
            let slice = so::slice(input, &[at], &[at + 1], Some(&[axis]), None).map_err(kernel)?;
            args.push(so::squeeze(&slice, Some(&[axis])).map_err(kernel)?);
        }
        let mut yielded = run_body(interp, env, block, args)?;
        let scanned = yielded.split_off(view.num_states);
        for (acc, v) in scans.iter_mut().zip(scanned) {
            acc.push(v);
        }
        states = yielded;
    }
    let mut results = states;
    for (k, values) in scans.iter_mut().enumerate() {
        if view.output_reversed[k] {
            values.reverse();
        }
        results.push(stack(
            interp,
            op,
            view.num_states + k,
            values,
            view.output_axes[k],
        )?);
    }
    store_results(interp, env, op, results)
}

/// Stores the kernel's outputs as the op's results, checking each against its declared type:
/// a disagreement between kernel and IR is a bug to report, not a value to pass on.
fn store_results(
    interp: &Interpreter,
    env: &mut Env,
    op: OpId,
    results: Vec<Tensor>,
) -> ExecResult {
    let ctx = interp.ctx;
    let declared = ctx.op(op).results.len();
    if results.len() < declared {
        return Err(format!(
            "kernel produced {} results, the op has {declared}",
            results.len()
        )
        .into());
    }
    // Optional ONNX outputs the op does not declare are dropped.
    for (i, tensor) in results.into_iter().take(declared).enumerate() {
        let ty = interp.result_type(op, i);
        let dtype = ElemType::of(ctx, ty)?.dtype()?;
        let shape = static_shape(ctx, ty)?;
        if tensor.dtype() != dtype || tensor.shape() != shape.as_slice() {
            return Err(format!(
                "kernel produced a {} tensor of shape {:?} for result #{i}, declared {}",
                tensor.dtype(),
                tensor.shape(),
                tb_ir::printer::type_to_string(ctx, ty)
            )
            .into());
        }
        interp.set_result(env, op, i, RtValue::Tensor(tensor))?;
    }
    Ok(())
}

/// A 0-d tensor holding an integer or float attribute, in the attribute's own type.
fn scalar_tensor(interp: &Interpreter, value: tb_ir::Attr) -> ExecResult<Tensor> {
    let ctx = interp.ctx;
    let (ty, s) = match ctx.attr_kind(value) {
        AttrKind::Integer { value, ty } => (*ty, Scalar::Int(*value as i64)),
        AttrKind::Float { ty, .. } => match attr::attr_to_value(ctx, value, *ty)? {
            RtValue::Scalar(s) => (*ty, s),
            _ => return Err("float attribute is not a scalar".into()),
        },
        _ => return Err("expected an integer or float attribute".into()),
    };
    let elem = ElemType::of(ctx, ty)?;
    let mut data = TensorData::zeros(elem.dtype()?, 1);
    write_element(&mut data, 0, elem.normalize(s));
    Ok(Tensor::new(Vec::new(), data).map_err(|e| e.0)?)
}
