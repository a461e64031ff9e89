//! `graph` ops: each runs the ONNX-semantics kernel of its operator, with the op's
//! attributes read through the dialect's own accessors (so ONNX defaults are the ones the
//! verifier used), and checks what the kernel produced against the op's declared types.

use tb_dialects::graph::attrs::Attrs;
use tb_dialects::graph::{conv_attrs, conv_transpose_attrs, pool_attrs};
use tb_ir::{AttrKind, OpId};

use super::value::{ElemType, RtValue, Scalar, static_shape, write_element};
use super::{Env, ExecResult, Handler, Interpreter, attr};
use crate::kernels::elementwise::{self as ew, Binary, Compare, Logic, Unary};
use crate::kernels::matmul::{self, GemmAttrs};
use crate::kernels::reduce::{self, ReduceOp};
use crate::kernels::shape_ops::{self as so, DepthToSpaceMode, PadMode};
use crate::kernels::{KernelError, conv, normalization as norm, pool, softmax};
use crate::tensor::{Tensor, TensorData};

pub(super) fn handler(name: &str) -> Option<Handler> {
    name.strip_prefix("graph.")?;
    Some(run)
}

fn kernel(e: KernelError) -> super::ExecError {
    e.message.into()
}

fn run(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let name = ctx.op_name(op);
    let short = name.strip_prefix("graph.").unwrap_or(name);
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

    let results: Vec<Tensor> = match short {
        "constant" => {
            let value = a.get("value").ok_or("has no value")?;
            match attr::attr_to_value(ctx, value, interp.result_type(op, 0))? {
                RtValue::Tensor(t) => vec![t],
                _ => return Err("value is not a tensor constant".into()),
            }
        }
        "constant_of_shape" => {
            let value = a
                .get("value")
                .map(|v| scalar_tensor(interp, v))
                .transpose()?;
            one(so::constant_of_shape(
                &a.required_ints("shape")?,
                value.as_ref(),
            ))?
        }
        "range" => {
            let get = |n: &str| -> ExecResult<Tensor> {
                scalar_tensor(interp, a.get(n).ok_or_else(|| format!("has no {n}"))?)
            };
            one(so::range(&get("start")?, &get("limit")?, &get("delta")?))?
        }
        "shape" => one(so::shape_of(x(0)?, a.opt_i64("start")?, a.opt_i64("end")?))?,
        "size" => vec![Tensor::scalar(x(0)?.numel() as i64)],

        "relu" => unary(Unary::Relu)?,
        "leaky_relu" => unary(Unary::LeakyRelu {
            alpha: f32_attr("alpha")?,
        })?,
        "thresholded_relu" => unary(Unary::ThresholdedRelu {
            alpha: f32_attr("alpha")?,
        })?,
        "elu" => unary(Unary::Elu {
            alpha: f32_attr("alpha")?,
        })?,
        "selu" => unary(Unary::Selu {
            alpha: f32_attr("alpha")?,
            gamma: f32_attr("gamma")?,
        })?,
        "celu" => unary(Unary::Celu {
            alpha: f32_attr("alpha")?,
        })?,
        "sigmoid" => unary(Unary::Sigmoid)?,
        "hard_sigmoid" => unary(Unary::HardSigmoid {
            alpha: f32_attr("alpha")?,
            beta: f32_attr("beta")?,
        })?,
        "hard_swish" => unary(Unary::HardSwish)?,
        "tanh" => unary(Unary::Tanh)?,
        "gelu" => unary(Unary::Gelu {
            tanh_approximation: a.choice("approximate", &["none", "tanh"])? == "tanh",
        })?,
        "softplus" => unary(Unary::Softplus)?,
        "softsign" => unary(Unary::Softsign)?,
        "mish" => unary(Unary::Mish)?,
        "erf" => unary(Unary::Erf)?,
        "exp" => unary(Unary::Exp)?,
        "log" => unary(Unary::Log)?,
        "sqrt" => unary(Unary::Sqrt)?,
        "reciprocal" => unary(Unary::Reciprocal)?,
        "neg" => unary(Unary::Neg)?,
        "abs" => unary(Unary::Abs)?,
        "sign" => unary(Unary::Sign)?,
        "floor" => unary(Unary::Floor)?,
        "ceil" => unary(Unary::Ceil)?,
        "round" => unary(Unary::Round)?,
        "sin" => unary(Unary::Sin)?,
        "cos" => unary(Unary::Cos)?,
        "tan" => unary(Unary::Tan)?,
        "asin" => unary(Unary::Asin)?,
        "acos" => unary(Unary::Acos)?,
        "atan" => unary(Unary::Atan)?,
        "sinh" => unary(Unary::Sinh)?,
        "cosh" => unary(Unary::Cosh)?,
        "asinh" => unary(Unary::Asinh)?,
        "acosh" => unary(Unary::Acosh)?,
        "atanh" => unary(Unary::Atanh)?,
        "not" => one(ew::not(x(0)?))?,
        "identity" => vec![x(0)?.clone()],
        "clip" => {
            let min = a.get("min").map(|v| scalar_tensor(interp, v)).transpose()?;
            let max = a.get("max").map(|v| scalar_tensor(interp, v)).transpose()?;
            one(ew::clip(x(0)?, min.as_ref(), max.as_ref()))?
        }
        "is_nan" => one(ew::is_nan(x(0)?))?,
        "is_inf" => one(ew::is_inf(
            x(0)?,
            a.bool("detect_negative")?,
            a.bool("detect_positive")?,
        ))?,
        "cast" => {
            let to = a.ty("to")?.ok_or("has no `to` type")?;
            one(so::cast(x(0)?, ElemType::of(ctx, to)?.dtype()?))?
        }

        "add" => one(ew::add(x(0)?, x(1)?))?,
        "sub" => one(ew::sub(x(0)?, x(1)?))?,
        "mul" => one(ew::mul(x(0)?, x(1)?))?,
        "div" => one(ew::div(x(0)?, x(1)?))?,
        "pow" => one(ew::pow(x(0)?, x(1)?))?,
        "mod" => one(ew::binary(
            x(0)?,
            x(1)?,
            Binary::Mod {
                fmod: a.bool("fmod")?,
            },
        ))?,
        "prelu" => {
            // PRelu(x, slope) = x < 0 ? slope * x : x, with slope broadcast to x.
            let (v, slope) = (x(0)?, x(1)?);
            let zero = Tensor::zeros(v.dtype(), Vec::new()).map_err(|e| e.0)?;
            let negative = ew::compare(v, &zero, Compare::Less).map_err(kernel)?;
            let scaled = ew::mul(v, slope).map_err(kernel)?;
            one(ew::where_(&negative, &scaled, v))?
        }
        "equal" => one(ew::compare(x(0)?, x(1)?, Compare::Equal))?,
        "less" => one(ew::compare(x(0)?, x(1)?, Compare::Less))?,
        "less_or_equal" => one(ew::compare(x(0)?, x(1)?, Compare::LessOrEqual))?,
        "greater" => one(ew::compare(x(0)?, x(1)?, Compare::Greater))?,
        "greater_or_equal" => one(ew::compare(x(0)?, x(1)?, Compare::GreaterOrEqual))?,
        "and" => one(ew::logic(x(0)?, x(1)?, Logic::And))?,
        "or" => one(ew::logic(x(0)?, x(1)?, Logic::Or))?,
        "xor" => one(ew::logic(x(0)?, x(1)?, Logic::Xor))?,
        "where" => one(ew::where_(x(0)?, x(1)?, x(2)?))?,
        "max" => one(ew::max(&all()?))?,
        "min" => one(ew::min(&all()?))?,
        "sum" => one(ew::sum(&all()?))?,
        "mean" => one(ew::mean(&all()?))?,

        "matmul" => one(matmul::matmul(x(0)?, x(1)?))?,
        "gemm" => one(matmul::gemm(
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
        "conv" => one(conv::conv(x(0)?, x(1)?, opt(2)?, &conv_attrs(&a)?))?,
        "conv_transpose" => one(conv::conv_transpose(
            x(0)?,
            x(1)?,
            opt(2)?,
            &conv_transpose_attrs(&a)?,
        ))?,
        "max_pool" => {
            let (y, indices) =
                pool::max_pool(x(0)?, &pool_attrs(&a)?, a.i64("storage_order")?).map_err(kernel)?;
            vec![y, indices]
        }
        "average_pool" => one(pool::average_pool(
            x(0)?,
            &pool_attrs(&a)?,
            a.bool("count_include_pad")?,
        ))?,
        "global_average_pool" => one(pool::global_average_pool(x(0)?))?,
        "global_max_pool" => one(pool::global_max_pool(x(0)?))?,

        "batch_normalization" => one(norm::batch_norm(
            x(0)?,
            x(1)?,
            x(2)?,
            x(3)?,
            x(4)?,
            f32_attr("epsilon")?,
        ))?,
        "instance_normalization" => one(norm::instance_norm(
            x(0)?,
            x(1)?,
            x(2)?,
            f32_attr("epsilon")?,
        ))?,
        "layer_normalization" => {
            let out = norm::layer_norm(x(0)?, x(1)?, opt(2)?, a.i64("axis")?, f32_attr("epsilon")?)
                .map_err(kernel)?;
            vec![out.y, out.mean, out.inv_std_dev]
        }
        "softmax" => one(softmax::softmax(x(0)?, a.i64("axis")?))?,
        "log_softmax" => one(softmax::log_softmax(x(0)?, a.i64("axis")?))?,

        "reshape" => one(so::reshape(
            x(0)?,
            &a.required_ints("shape")?,
            a.bool("allowzero")?,
        ))?,
        "flatten" => one(so::flatten(x(0)?, a.i64("axis")?))?,
        "transpose" => one(so::transpose(x(0)?, a.ints("perm")?.as_deref()))?,
        "squeeze" => one(so::squeeze(x(0)?, a.ints("axes")?.as_deref()))?,
        "unsqueeze" => one(so::unsqueeze(x(0)?, &a.required_ints("axes")?))?,
        "concat" => one(so::concat(&all()?, a.i64("axis")?))?,
        "split" => {
            let sizes = a.ints("split")?;
            let parts = match a.opt_i64("num_outputs")? {
                Some(n) => Some(n),
                None if sizes.is_none() => Some(ctx.op(op).results.len() as i64),
                None => None,
            };
            so::split(x(0)?, a.i64("axis")?, sizes.as_deref(), parts).map_err(kernel)?
        }
        "slice" => one(so::slice(
            x(0)?,
            &a.required_ints("starts")?,
            &a.required_ints("ends")?,
            a.ints("axes")?.as_deref(),
            a.ints("steps")?.as_deref(),
        ))?,
        "gather" => one(so::gather(x(0)?, x(1)?, a.i64("axis")?))?,
        "gather_elements" => one(so::gather_elements(x(0)?, x(1)?, a.i64("axis")?))?,
        "expand" => one(so::expand(x(0)?, &a.required_ints("shape")?))?,
        "pad" => {
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
        "tile" => one(so::tile(x(0)?, &a.required_ints("repeats")?))?,
        "depth_to_space" => {
            let mode = match a.choice("mode", &["DCR", "CRD"])?.as_str() {
                "CRD" => DepthToSpaceMode::Crd,
                _ => DepthToSpaceMode::Dcr,
            };
            one(so::depth_to_space(x(0)?, a.i64("blocksize")?, mode))?
        }
        "space_to_depth" => one(so::space_to_depth(x(0)?, a.i64("blocksize")?))?,

        "arg_max" => one(reduce::arg_max(
            x(0)?,
            a.i64("axis")?,
            a.bool("keepdims")?,
            a.bool("select_last_index")?,
        ))?,
        "arg_min" => one(reduce::arg_min(
            x(0)?,
            a.i64("axis")?,
            a.bool("keepdims")?,
            a.bool("select_last_index")?,
        ))?,
        reduction if reduction.starts_with("reduce_") => {
            let which = match &reduction["reduce_".len()..] {
                "sum" => ReduceOp::Sum,
                "mean" => ReduceOp::Mean,
                "max" => ReduceOp::Max,
                "min" => ReduceOp::Min,
                "prod" => ReduceOp::Prod,
                "l1" => ReduceOp::L1,
                "l2" => ReduceOp::L2,
                "log_sum" => ReduceOp::LogSum,
                "log_sum_exp" => ReduceOp::LogSumExp,
                "sum_square" => ReduceOp::SumSquare,
                _ => return Err("is not supported by the interpreter".into()),
            };
            one(reduce::reduce(
                x(0)?,
                which,
                &a.ints("axes")?.unwrap_or_default(),
                a.bool("keepdims")?,
                a.bool("noop_with_empty_axes")?,
            ))?
        }
        _ => return Err("is not supported by the interpreter".into()),
    };
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
