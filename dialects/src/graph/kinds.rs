//! The `graph` ops as Rust types: the op kinds (one variant per registered op, checked
//! against the definitions at registration) and typed views of the ops lowerings take
//! apart. Code that handles every graph op matches on [`GraphOp`], so a new op without
//! its interpreter kernel or lowering does not compile.

use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, Value};

use super::reduction::ReduceKind;

tb_ir::op_kinds! {
    /// The ops of `graph`, in the order of their definitions.
    pub enum GraphOp in "graph" {
        Constant = "graph.constant",
        ConstantOfShape = "graph.constant_of_shape",
        Range = "graph.range",
        Shape = "graph.shape",
        Size = "graph.size",
        Relu = "graph.relu",
        LeakyRelu = "graph.leaky_relu",
        ThresholdedRelu = "graph.thresholded_relu",
        Elu = "graph.elu",
        Selu = "graph.selu",
        Celu = "graph.celu",
        Sigmoid = "graph.sigmoid",
        HardSigmoid = "graph.hard_sigmoid",
        HardSwish = "graph.hard_swish",
        Tanh = "graph.tanh",
        Gelu = "graph.gelu",
        Softplus = "graph.softplus",
        Softsign = "graph.softsign",
        Mish = "graph.mish",
        Swish = "graph.swish",
        Shrink = "graph.shrink",
        Erf = "graph.erf",
        Exp = "graph.exp",
        Log = "graph.log",
        Sqrt = "graph.sqrt",
        Reciprocal = "graph.reciprocal",
        Neg = "graph.neg",
        Abs = "graph.abs",
        Sign = "graph.sign",
        Floor = "graph.floor",
        Ceil = "graph.ceil",
        Round = "graph.round",
        Sin = "graph.sin",
        Cos = "graph.cos",
        Tan = "graph.tan",
        Asin = "graph.asin",
        Acos = "graph.acos",
        Atan = "graph.atan",
        Sinh = "graph.sinh",
        Cosh = "graph.cosh",
        Asinh = "graph.asinh",
        Acosh = "graph.acosh",
        Atanh = "graph.atanh",
        Not = "graph.not",
        Identity = "graph.identity",
        Clip = "graph.clip",
        IsNan = "graph.is_nan",
        IsInf = "graph.is_inf",
        Cast = "graph.cast",
        Add = "graph.add",
        Sub = "graph.sub",
        Mul = "graph.mul",
        Div = "graph.div",
        Pow = "graph.pow",
        Mod = "graph.mod",
        Prelu = "graph.prelu",
        Equal = "graph.equal",
        Less = "graph.less",
        LessOrEqual = "graph.less_or_equal",
        Greater = "graph.greater",
        GreaterOrEqual = "graph.greater_or_equal",
        And = "graph.and",
        Or = "graph.or",
        Xor = "graph.xor",
        BitwiseAnd = "graph.bitwise_and",
        BitwiseOr = "graph.bitwise_or",
        BitwiseXor = "graph.bitwise_xor",
        BitwiseNot = "graph.bitwise_not",
        BitShift = "graph.bit_shift",
        Where = "graph.where",
        Max = "graph.max",
        Min = "graph.min",
        Sum = "graph.sum",
        Mean = "graph.mean",
        Matmul = "graph.matmul",
        Gemm = "graph.gemm",
        Einsum = "graph.einsum",
        Attention = "graph.attention",
        Conv = "graph.conv",
        ConvTranspose = "graph.conv_transpose",
        MaxPool = "graph.max_pool",
        AveragePool = "graph.average_pool",
        GlobalAveragePool = "graph.global_average_pool",
        GlobalMaxPool = "graph.global_max_pool",
        BatchNormalization = "graph.batch_normalization",
        InstanceNormalization = "graph.instance_normalization",
        LayerNormalization = "graph.layer_normalization",
        Softmax = "graph.softmax",
        LogSoftmax = "graph.log_softmax",
        Trilu = "graph.trilu",
        CumSum = "graph.cum_sum",
        TopK = "graph.top_k",
        Hardmax = "graph.hardmax",
        GatherNd = "graph.gather_nd",
        ScatterNd = "graph.scatter_nd",
        ScatterElements = "graph.scatter_elements",
        Reshape = "graph.reshape",
        Flatten = "graph.flatten",
        Transpose = "graph.transpose",
        Squeeze = "graph.squeeze",
        Unsqueeze = "graph.unsqueeze",
        Concat = "graph.concat",
        Split = "graph.split",
        Slice = "graph.slice",
        Gather = "graph.gather",
        GatherElements = "graph.gather_elements",
        Expand = "graph.expand",
        Pad = "graph.pad",
        Tile = "graph.tile",
        DepthToSpace = "graph.depth_to_space",
        SpaceToDepth = "graph.space_to_depth",
        ReduceSum = "graph.reduce_sum",
        ReduceMean = "graph.reduce_mean",
        ReduceMax = "graph.reduce_max",
        ReduceMin = "graph.reduce_min",
        ReduceProd = "graph.reduce_prod",
        ReduceL1 = "graph.reduce_l1",
        ReduceL2 = "graph.reduce_l2",
        ReduceLogSum = "graph.reduce_log_sum",
        ReduceLogSumExp = "graph.reduce_log_sum_exp",
        ReduceSumSquare = "graph.reduce_sum_square",
        ArgMax = "graph.arg_max",
        ArgMin = "graph.arg_min",
        Resize = "graph.resize",
        If = "graph.if",
        Yield = "graph.yield",
        Loop = "graph.loop",
        Scan = "graph.scan",
    }
}

impl GraphOp {
    /// The reduction a `graph.reduce_*` op performs.
    pub fn reduce_kind(self) -> Option<ReduceKind> {
        Some(match self {
            GraphOp::ReduceSum => ReduceKind::Sum,
            GraphOp::ReduceMean => ReduceKind::Mean,
            GraphOp::ReduceMax => ReduceKind::Max,
            GraphOp::ReduceMin => ReduceKind::Min,
            GraphOp::ReduceProd => ReduceKind::Prod,
            GraphOp::ReduceL1 => ReduceKind::L1,
            GraphOp::ReduceL2 => ReduceKind::L2,
            GraphOp::ReduceLogSum => ReduceKind::LogSum,
            GraphOp::ReduceLogSumExp => ReduceKind::LogSumExp,
            GraphOp::ReduceSumSquare => ReduceKind::SumSquare,
            _ => return None,
        })
    }
}

/// `graph.matmul %a, %b`: numpy-style matrix product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulOp(pub OpId);

impl MatmulOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<MatmulOp> {
        (GraphOp::of(ctx, op)? == GraphOp::Matmul).then_some(MatmulOp(op))
    }

    pub fn lhs(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    pub fn rhs(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[1]
    }

    pub fn result(self, ctx: &Context) -> Value {
        ctx.op(self.0).results[0]
    }
}

/// A `graph.reduce_*` op with its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceOp {
    pub op: OpId,
    pub kind: ReduceKind,
}

impl ReduceOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<ReduceOp> {
        let kind = GraphOp::of(ctx, op)?.reduce_kind()?;
        Some(ReduceOp { op, kind })
    }

    pub fn input(self, ctx: &Context) -> Value {
        ctx.op(self.op).operands[0]
    }
}
