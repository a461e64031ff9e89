//! The elementwise unary functions of `graph` (activations and unary math): the function
//! itself is `tb_tensor`'s [`Unary`]; this file reads it, parameters included, from a graph
//! op's kind and attributes, once for the interpreter and the lowerings.

use super::attrs::Attrs;
use super::kinds::GraphOp;
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId};

pub use tb_tensor::Unary;

/// How a graph op names its [`Unary`] function (bring it into scope to call `Unary::of`).
pub trait UnaryOfOp: Sized {
    /// The function a unary graph op computes, its parameters read from its attributes
    /// (with ONNX's defaults); `Ok(None)` for other ops.
    fn of(ctx: &Context, op: OpId) -> Result<Option<Self>, String>;

    /// Whether the graph op named `name` (`graph.relu`) computes a unary function.
    fn is_unary_op(name: &str) -> bool;
}

impl UnaryOfOp for Unary {
    fn of(ctx: &Context, op: OpId) -> Result<Option<Unary>, String> {
        let Some(kind) = GraphOp::of(ctx, op) else {
            return Ok(None);
        };
        let attrs = Attrs::of_op(ctx, op);
        unary_of_kind(kind, &|name| attrs.f64(name), &|| {
            Ok(attrs.choice("approximate", &["none", "tanh"])? == "tanh")
        })
    }

    fn is_unary_op(name: &str) -> bool {
        GraphOp::ALL
            .iter()
            .find(|kind| kind.name() == name)
            .is_some_and(|&kind| {
                unary_of_kind(kind, &|_| Ok(0.0), &|| Ok(false)).is_ok_and(|u| u.is_some())
            })
    }
}

/// The unary function of the graph op kind `kind`, its parameters read through `float`
/// and `tanh_approximation`; `Ok(None)` for kinds that compute none.
fn unary_of_kind(
    kind: GraphOp,
    float: &dyn Fn(&str) -> Result<f64, String>,
    tanh_approximation: &dyn Fn() -> Result<bool, String>,
) -> Result<Option<Unary>, String> {
    use GraphOp as G;
    Ok(Some(match kind {
        G::Relu => Unary::Relu,
        G::LeakyRelu => Unary::LeakyRelu {
            alpha: float("alpha")?,
        },
        G::ThresholdedRelu => Unary::ThresholdedRelu {
            alpha: float("alpha")?,
        },
        G::Elu => Unary::Elu {
            alpha: float("alpha")?,
        },
        G::Selu => Unary::Selu {
            alpha: float("alpha")?,
            gamma: float("gamma")?,
        },
        G::Celu => Unary::Celu {
            alpha: float("alpha")?,
        },
        G::Sigmoid => Unary::Sigmoid,
        G::HardSigmoid => Unary::HardSigmoid {
            alpha: float("alpha")?,
            beta: float("beta")?,
        },
        G::HardSwish => Unary::HardSwish,
        G::Tanh => Unary::Tanh,
        G::Gelu => Unary::Gelu {
            tanh_approximation: tanh_approximation()?,
        },
        G::Softplus => Unary::Softplus,
        G::Softsign => Unary::Softsign,
        G::Mish => Unary::Mish,
        G::Swish => Unary::Swish {
            alpha: float("alpha")?,
        },
        G::Shrink => Unary::Shrink {
            lambd: float("lambd")?,
            bias: float("bias")?,
        },
        G::Erf => Unary::Erf,
        G::Exp => Unary::Exp,
        G::Log => Unary::Log,
        G::Sqrt => Unary::Sqrt,
        G::Reciprocal => Unary::Reciprocal,
        G::Neg => Unary::Neg,
        G::Abs => Unary::Abs,
        G::Sign => Unary::Sign,
        G::Floor => Unary::Floor,
        G::Ceil => Unary::Ceil,
        G::Round => Unary::Round,
        G::Sin => Unary::Sin,
        G::Cos => Unary::Cos,
        G::Tan => Unary::Tan,
        G::Asin => Unary::Asin,
        G::Acos => Unary::Acos,
        G::Atan => Unary::Atan,
        G::Sinh => Unary::Sinh,
        G::Cosh => Unary::Cosh,
        G::Asinh => Unary::Asinh,
        G::Acosh => Unary::Acosh,
        G::Atanh => Unary::Atanh,
        _ => return Ok(None),
    }))
}
