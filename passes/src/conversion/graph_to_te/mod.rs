//! `convert-graph-to-te`: lowers every `graph` op (ONNX semantics on tensors) to
//! `te.compute` tensor expressions, `graph.constant` to `arith.constant`, and `graph.if`
//! to `scf.if` on tensors with its branches lowered inside ([`control_flow`]), `graph.loop`
//! and `graph.scan` to `scf.while` with their bodies lowered inside ([`loops`]).
//!
//! Function signatures stay tensor-typed; each graph op becomes one or more `te.compute`s
//! (softmax: a max reduction, a sum of exponentials and a division ...) located at the op.
//! Bodies follow the graph interpreter's kernels, so results agree within rounding.
//!
//! Bodies use affine `te.read`s, padded reads (convolution and pooling windows, `Pad`)
//! and `te.read_at` for data-dependent lookups (gathers, `Pad`'s reflect/edge modes), and
//! `arith`/`math` scalar ops. An op te cannot express fails the pass with
//! `'graph.xxx' op has no lowering to te: <why>` at its location (with the ONNX node's name
//! when the op has one: `'graph.gemm' op (node "my_gemm") has no lowering ...`).
//!
//! The pass is a dialect conversion (`tb_ir::rewrite::conversion`): the graph dialect is
//! illegal, te/arith/math/func/builtin legal, and each operator family is one
//! [`ConversionPattern`] whose roots are the family's [`GraphOp`] kinds. The conversion is
//! all or nothing: when any op fails, every failing op is reported and the module is left
//! exactly as it was.
//!
//! One file per operator family; each exposes `lowering(kind)`, the function that lowers
//! the graph op of that kind. [`family`] assigns every [`GraphOp`] its family by an
//! exhaustive match, so a new graph op does not compile until it has one.

mod attention;
mod builder;
mod checks;
mod control_flow;
mod conv;
mod conv_integer;
mod einsum;
mod elementwise;
mod generators;
mod indexing;
mod loops;
mod matmul;
mod normalization;
mod pad;
mod pool;
mod positional;
mod reduce;
mod resize;
mod shape_ops;

use tb_dialects::graph::GraphOp;
use tb_ir::ods::OpKind;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::rewrite::conversion::{
    ConversionMode, ConversionPattern, ConversionRewriter, ConversionTarget, Legality,
    PatternRoots, TypeConverter, apply_conversion, op_failure,
};
use tb_ir::{Context, Diagnostic, OpId, Value};

use builder::{LowerResult, Lowering};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-graph-to-te",
        description: "Lower graph dialect ops to te.compute tensor expressions",
        options: &[],
        create: |_: &PassOptions| Box::new(ConvertGraphToTe),
    }
}

struct ConvertGraphToTe;

/// Lowers one graph op; returns the values that replace its results.
type LowerFn = fn(&mut Lowering) -> LowerResult;

/// The operator families, one conversion pattern each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Family {
    Elementwise,
    Generators,
    Matmul,
    Conv,
    Pool,
    Normalization,
    Reduce,
    ShapeOps,
    Pad,
    Positional,
    Resize,
    Indexing,
    Einsum,
    Attention,
    /// `graph.if`, `graph.loop`, `graph.scan` and their `graph.yield`s: not lowered op by
    /// op but by the patterns of [`control_flow`] and [`loops`], which move the regions
    /// into an `scf.if` or `scf.while`.
    ControlFlow,
}

impl Family {
    const ALL: [Family; 15] = [
        Family::Elementwise,
        Family::Generators,
        Family::Matmul,
        Family::Conv,
        Family::Pool,
        Family::Normalization,
        Family::Reduce,
        Family::ShapeOps,
        Family::Pad,
        Family::Positional,
        Family::Resize,
        Family::Indexing,
        Family::Einsum,
        Family::Attention,
        Family::ControlFlow,
    ];

    /// The lowering of `kind` in this family's file.
    fn lowering(self, kind: GraphOp) -> Option<LowerFn> {
        match self {
            Family::Elementwise => elementwise::lowering(kind),
            Family::Generators => generators::lowering(kind),
            Family::Matmul => matmul::lowering(kind),
            Family::Conv => conv::lowering(kind),
            Family::Pool => pool::lowering(kind),
            Family::Normalization => normalization::lowering(kind),
            Family::Reduce => reduce::lowering(kind),
            Family::ShapeOps => shape_ops::lowering(kind),
            Family::Pad => pad::lowering(kind),
            Family::Positional => positional::lowering(kind),
            Family::Resize => resize::lowering(kind),
            Family::Indexing => indexing::lowering(kind),
            Family::Einsum => einsum::lowering(kind),
            Family::Attention => attention::lowering(kind),
            Family::ControlFlow => None,
        }
    }
}

/// The family that lowers `kind`.
fn family(kind: GraphOp) -> Family {
    use GraphOp as G;
    match kind {
        G::Constant | G::ConstantOfShape | G::Range | G::Shape | G::Size => Family::Generators,
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
        | G::Atanh
        | G::Not
        | G::Identity
        | G::Clip
        | G::IsNan
        | G::IsInf
        | G::Cast
        | G::Add
        | G::Sub
        | G::Mul
        | G::Div
        | G::Pow
        | G::Mod
        | G::Prelu
        | G::Equal
        | G::Less
        | G::LessOrEqual
        | G::Greater
        | G::GreaterOrEqual
        | G::And
        | G::Or
        | G::Xor
        | G::BitwiseAnd
        | G::BitwiseOr
        | G::BitwiseXor
        | G::BitwiseNot
        | G::BitShift
        | G::Where
        | G::Max
        | G::Min
        | G::Sum
        | G::Mean => Family::Elementwise,
        G::Matmul | G::Gemm => Family::Matmul,
        G::Einsum => Family::Einsum,
        G::Attention => Family::Attention,
        G::Conv | G::ConvTranspose => Family::Conv,
        G::MaxPool | G::AveragePool | G::GlobalAveragePool | G::GlobalMaxPool => Family::Pool,
        G::BatchNormalization
        | G::InstanceNormalization
        | G::LayerNormalization
        | G::Softmax
        | G::LogSoftmax => Family::Normalization,
        G::Reshape
        | G::Flatten
        | G::Transpose
        | G::Squeeze
        | G::Unsqueeze
        | G::Concat
        | G::Split
        | G::Slice
        | G::Gather
        | G::GatherElements
        | G::Expand
        | G::Tile
        | G::DepthToSpace
        | G::SpaceToDepth => Family::ShapeOps,
        G::Pad => Family::Pad,
        G::Trilu | G::CumSum | G::Hardmax => Family::Positional,
        G::Resize => Family::Resize,
        G::TopK | G::GatherNd | G::ScatterNd | G::ScatterElements => Family::Indexing,
        G::ReduceSum
        | G::ReduceMean
        | G::ReduceMax
        | G::ReduceMin
        | G::ReduceProd
        | G::ReduceL1
        | G::ReduceL2
        | G::ReduceLogSum
        | G::ReduceLogSumExp
        | G::ReduceSumSquare
        | G::ArgMax
        | G::ArgMin => Family::Reduce,
        G::If | G::Yield => Family::ControlFlow,
        // `graph.loop` and `graph.scan` become `scf.while`s by the patterns of [`loops`].
        G::Loop | G::Scan => Family::ControlFlow,
    }
}

/// The lowering of `kind`, if te can express it.
#[cfg(test)]
fn lowering(kind: GraphOp) -> Option<LowerFn> {
    family(kind).lowering(kind)
}

/// Lowers the ops of one family: builds the te ops before the graph op and replaces it.
struct FamilyPattern(Family);

impl ConversionPattern for FamilyPattern {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(
            GraphOp::ALL
                .iter()
                .filter(|&&kind| family(kind) == self.0)
                .map(|kind| kind.name())
                .collect(),
        )
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let ctx = rewriter.ctx();
        let lower = GraphOp::of(ctx, op)
            .and_then(|kind| self.0.lowering(kind))
            .ok_or_else(|| op_failure(ctx, op, "has no lowering to te"))?;
        let mut lowering = Lowering::new(rewriter.ctx_mut(), op, operands.to_vec());
        let values = lower(&mut lowering).map_err(|why| op_failure(rewriter.ctx(), op, why))?;
        rewriter.replace_op(op, &values);
        Ok(())
    }
}

impl Pass for ConvertGraphToTe {
    fn argument(&self) -> &'static str {
        "convert-graph-to-te"
    }

    fn display_name(&self) -> &'static str {
        "ConvertGraphToTe"
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> Result<(), Diagnostic> {
        let mut target = ConversionTarget::new();
        target.add_dialect("graph", Legality::Illegal);
        for legal in ["te", "arith", "math", "func", "builtin", "scf"] {
            target.add_dialect(legal, Legality::Legal);
        }
        let mut patterns: Vec<Box<dyn ConversionPattern>> = Family::ALL
            .iter()
            .filter(|&&f| f != Family::ControlFlow)
            .map(|&f| Box::new(FamilyPattern(f)) as Box<dyn ConversionPattern>)
            .collect();
        patterns.extend(control_flow::patterns());
        patterns.extend(loops::patterns());
        // Types stay tensors: the type converter has no rule.
        apply_conversion(
            ctx,
            root,
            &target,
            &patterns,
            &TypeConverter::new(),
            ConversionMode::Partial,
        )?;
        checks::combine_checks(ctx, root)
    }
}

#[cfg(test)]
mod tests {
    use tb_dialects::graph::GraphOp;
    use tb_ir::ods::OpKind;

    /// A graph op added to the dialect without a lowering fails here, not in a user's model
    /// (without a family it does not compile). Control flow (`graph.if`, its
    /// `graph.yield`) has patterns of its own rather than a per-op lowering.
    #[test]
    fn every_graph_op_has_a_lowering() {
        let missing: Vec<&str> = GraphOp::ALL
            .iter()
            .filter(|&&kind| {
                !matches!(
                    kind,
                    GraphOp::If | GraphOp::Yield | GraphOp::Loop | GraphOp::Scan
                )
            })
            .filter(|&&kind| super::lowering(kind).is_none())
            .map(|kind| kind.name())
            .collect();
        assert!(
            missing.is_empty(),
            "graph ops without a lowering to te: {missing:?}"
        );
    }
}
