//! The `te` ops as Rust types: the op kinds (checked against the definitions at
//! registration) and typed views of `te.compute`, `te.read`, `te.read_at` and `te.extract`.

use tb_ir::affine::AffineMap;
use tb_ir::ods::OpKind;
use tb_ir::{Attr, BlockId, Context, OpId, Value};

use super::combiner::{Combiner, combiner_of_attr};

tb_ir::op_kinds! {
    /// The ops of `te`.
    pub enum TeOp in "te" {
        Compute = "te.compute",
        Read = "te.read",
        ReadAt = "te.read_at",
        Extract = "te.extract",
        Yield = "te.yield",
    }
}

/// `te.compute`: a tensor defined elementwise over its iteration domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputeOp(pub OpId);

impl ComputeOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<ComputeOp> {
        (TeOp::of(ctx, op)? == TeOp::Compute).then_some(ComputeOp(op))
    }

    /// The tensors the body reads.
    pub fn inputs(self, ctx: &Context) -> &[Value] {
        &ctx.op(self.0).operands
    }

    pub fn result(self, ctx: &Context) -> Value {
        ctx.op(self.0).results[0]
    }

    /// The reduction combiner; `None` without reduction axes (or for a name the verifier
    /// rejects).
    pub fn combiner(self, ctx: &Context) -> Option<Combiner> {
        let attr = ctx.op_inherent_or_attr(self.0, "combiner")?;
        combiner_of_attr(ctx, attr).ok()
    }

    /// The body block, whose arguments are the domain indices.
    pub fn body(self, ctx: &Context) -> Option<BlockId> {
        super::body(ctx, self.0)
    }

    /// The index block arguments: result dimensions, then reduction axes.
    pub fn indices(self, ctx: &Context) -> Vec<Value> {
        super::indices(ctx, self.0)
    }

    /// The extents of the reduction axes (empty without reduction).
    pub fn reduction_extents(self, ctx: &Context) -> Vec<i64> {
        super::reduction_extents(ctx, self.0)
    }

    pub fn result_shape(self, ctx: &Context) -> Vec<i64> {
        super::result_shape(ctx, self.0)
    }

    /// The result shape, then the reduction extents.
    pub fn domain(self, ctx: &Context) -> Vec<i64> {
        super::domain(ctx, self.0)
    }
}

/// `te.read %input[map]`: an input element at an affine function of the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOp(pub OpId);

impl ReadOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<ReadOp> {
        (TeOp::of(ctx, op)? == TeOp::Read).then_some(ReadOp(op))
    }

    pub fn input(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    pub fn map(self, ctx: &Context) -> Option<&AffineMap> {
        super::read_map(ctx, self.0)
    }

    /// The value read outside the input's bounds, for a padded read.
    pub fn padding(self, ctx: &Context) -> Option<Attr> {
        super::read_padding(ctx, self.0)
    }
}

/// `te.read_at %input[%i, ...]`: an input element at computed indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadAtOp(pub OpId);

impl ReadAtOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<ReadAtOp> {
        (TeOp::of(ctx, op)? == TeOp::ReadAt).then_some(ReadAtOp(op))
    }

    pub fn input(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    pub fn indices(self, ctx: &Context) -> &[Value] {
        &ctx.op(self.0).operands[1..]
    }
}

/// `te.extract %tensor[%i, ...]`: one element of a tensor as a scalar, outside any
/// `te.compute` (a run-time condition, a trip count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtractOp(pub OpId);

impl ExtractOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<ExtractOp> {
        (TeOp::of(ctx, op)? == TeOp::Extract).then_some(ExtractOp(op))
    }

    pub fn tensor(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    /// One index per dimension (none for a 0-d tensor).
    pub fn indices(self, ctx: &Context) -> &[Value] {
        &ctx.op(self.0).operands[1..]
    }

    pub fn result(self, ctx: &Context) -> Value {
        ctx.op(self.0).results[0]
    }
}
