//! The elementwise unary functions of ONNX (activations and unary math), parameters
//! included: the one definition the kernels, constant folding and the lowerings share. The
//! `graph` dialect reads them from its ops' attributes (`tb_dialects::graph::UnaryOfOp`).

/// A unary function of one tensor element, parameters included (ONNX semantics).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unary {
    Relu,
    LeakyRelu {
        alpha: f64,
    },
    ThresholdedRelu {
        alpha: f64,
    },
    Elu {
        alpha: f64,
    },
    Selu {
        alpha: f64,
        gamma: f64,
    },
    Celu {
        alpha: f64,
    },
    Sigmoid,
    HardSigmoid {
        alpha: f64,
        beta: f64,
    },
    HardSwish,
    Tanh,
    /// `approximate = "tanh"` selects the tanh approximation.
    Gelu {
        tanh_approximation: bool,
    },
    Softplus,
    Softsign,
    Mish,
    /// `x * sigmoid(alpha * x)`.
    Swish {
        alpha: f64,
    },
    /// `x + bias` below `-lambd`, `x - bias` above `lambd`, 0 between.
    Shrink {
        lambd: f64,
        bias: f64,
    },
    Erf,
    Exp,
    Log,
    Sqrt,
    Reciprocal,
    Neg,
    Abs,
    Sign,
    Floor,
    Ceil,
    /// Rounds half to even.
    Round,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
}
