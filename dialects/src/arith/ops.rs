//! The `arith` ops as Rust types: the op kinds (one variant per registered op, checked
//! against the definitions at registration) and typed views of the ops passes, the
//! interpreter and the backends take apart.

use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, Value};

use super::attrs::{CmpFPredicate, CmpIPredicate, FastMathFlags};

tb_ir::op_kinds! {
    /// The ops of `arith`.
    pub enum ArithOp in "arith" {
        Constant = "arith.constant",
        AddI = "arith.addi",
        AddUIExtended = "arith.addui_extended",
        SubI = "arith.subi",
        MulI = "arith.muli",
        MulSIExtended = "arith.mulsi_extended",
        MulUIExtended = "arith.mului_extended",
        DivSI = "arith.divsi",
        DivUI = "arith.divui",
        CeilDivSI = "arith.ceildivsi",
        CeilDivUI = "arith.ceildivui",
        FloorDivSI = "arith.floordivsi",
        RemSI = "arith.remsi",
        RemUI = "arith.remui",
        AndI = "arith.andi",
        OrI = "arith.ori",
        XOrI = "arith.xori",
        MaxSI = "arith.maxsi",
        MaxUI = "arith.maxui",
        MinSI = "arith.minsi",
        MinUI = "arith.minui",
        ShLI = "arith.shli",
        ShRSI = "arith.shrsi",
        ShRUI = "arith.shrui",
        AddF = "arith.addf",
        SubF = "arith.subf",
        MulF = "arith.mulf",
        DivF = "arith.divf",
        RemF = "arith.remf",
        MaximumF = "arith.maximumf",
        MinimumF = "arith.minimumf",
        MaxNumF = "arith.maxnumf",
        MinNumF = "arith.minnumf",
        NegF = "arith.negf",
        CmpI = "arith.cmpi",
        CmpF = "arith.cmpf",
        Select = "arith.select",
        ExtSI = "arith.extsi",
        ExtUI = "arith.extui",
        TruncI = "arith.trunci",
        ExtF = "arith.extf",
        TruncF = "arith.truncf",
        ScalingExtF = "arith.scaling_extf",
        ScalingTruncF = "arith.scaling_truncf",
        SIToFP = "arith.sitofp",
        UIToFP = "arith.uitofp",
        FPToSI = "arith.fptosi",
        FPToUI = "arith.fptoui",
        IndexCast = "arith.index_cast",
        IndexCastUI = "arith.index_castui",
        Bitcast = "arith.bitcast",
    }
}

impl ArithOp {
    /// Binary integer or float ops (`lhs`, `rhs` → `result` of one type); the extended
    /// ops, with two results, are not among them.
    pub fn is_binary(self) -> bool {
        use ArithOp::*;
        matches!(
            self,
            AddI | SubI
                | MulI
                | DivSI
                | DivUI
                | CeilDivSI
                | CeilDivUI
                | FloorDivSI
                | RemSI
                | RemUI
                | AndI
                | OrI
                | XOrI
                | MaxSI
                | MaxUI
                | MinSI
                | MinUI
                | ShLI
                | ShRSI
                | ShRUI
                | AddF
                | SubF
                | MulF
                | DivF
                | RemF
                | MaximumF
                | MinimumF
                | MaxNumF
                | MinNumF
        )
    }
}

/// A binary `arith` op: `%r = arith.addf %lhs, %rhs : f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinaryOp {
    pub op: OpId,
    pub kind: ArithOp,
}

impl BinaryOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<BinaryOp> {
        let kind = ArithOp::of(ctx, op)?;
        kind.is_binary().then_some(BinaryOp { op, kind })
    }

    pub fn lhs(self, ctx: &Context) -> Value {
        ctx.op(self.op).operands[0]
    }

    pub fn rhs(self, ctx: &Context) -> Value {
        ctx.op(self.op).operands[1]
    }

    pub fn result(self, ctx: &Context) -> Value {
        ctx.op(self.op).results[0]
    }

    /// The fast-math flags of a float op (none for integer ops).
    pub fn fastmath(self, ctx: &Context) -> FastMathFlags {
        FastMathFlags::of(ctx, self.op)
    }
}

/// `arith.cmpi <predicate>, %lhs, %rhs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CmpIOp(pub OpId);

impl CmpIOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<CmpIOp> {
        (ArithOp::of(ctx, op)? == ArithOp::CmpI).then_some(CmpIOp(op))
    }

    /// The predicate; `None` only for an op the verifier would reject.
    pub fn predicate(self, ctx: &Context) -> Option<CmpIPredicate> {
        CmpIPredicate::of(ctx, self.0)
    }

    pub fn lhs(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    pub fn rhs(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[1]
    }
}

/// `arith.cmpf <predicate>, %lhs, %rhs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CmpFOp(pub OpId);

impl CmpFOp {
    pub fn cast(ctx: &Context, op: OpId) -> Option<CmpFOp> {
        (ArithOp::of(ctx, op)? == ArithOp::CmpF).then_some(CmpFOp(op))
    }

    /// The predicate; `None` only for an op the verifier would reject.
    pub fn predicate(self, ctx: &Context) -> Option<CmpFPredicate> {
        CmpFPredicate::of(ctx, self.0)
    }

    pub fn lhs(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[0]
    }

    pub fn rhs(self, ctx: &Context) -> Value {
        ctx.op(self.0).operands[1]
    }

    pub fn fastmath(self, ctx: &Context) -> FastMathFlags {
        FastMathFlags::of(ctx, self.0)
    }
}
