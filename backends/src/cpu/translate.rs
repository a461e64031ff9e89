//! The CPU target's translation registry: the shared dialect translations of
//! [`crate::llvm`] and the CPU's own for functions, memory and loops.

use tb_dialects::func::FuncOp;
use tb_dialects::loop_::LoopOp;
use tb_dialects::memref::MemRefOp;
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId};

pub(crate) use crate::llvm::translator::{
    Error, FunctionTarget, Handler, TResult, Translations, Translator,
};
use crate::llvm::{
    ArithTranslation, CfTranslation, DialectTranslation, MathTranslation, VectorTranslation,
};

use super::{buffers, function, loops};

/// What the CPU backend translates.
pub(crate) static CPU_TRANSLATIONS: Translations = Translations {
    target: "CPU",
    dialects: &[
        &ArithTranslation,
        &MathTranslation,
        &CfTranslation,
        &VectorTranslation,
        &FuncTranslation,
        &MemRefTranslation,
        &LoopTranslation,
    ],
};

/// `func.call` and `func.return` with the CPU's calling convention.
struct FuncTranslation;

impl DialectTranslation for FuncTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        match FuncOp::of(ir, op)? {
            FuncOp::Return => Some(function::return_op),
            FuncOp::Call => Some(function::call),
            // Functions are defined by the module translation, not as ops in a body.
            FuncOp::Func | FuncOp::Constant => None,
        }
    }
}

/// `memref` ops on buffers the CPU runtime allocates.
struct MemRefTranslation;

impl DialectTranslation for MemRefTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        buffers::memref_handler(MemRefOp::of(ir, op)?)
    }
}

/// The loop ops other than the vector ops: loops (possibly on the thread pool) and
/// buffers.
struct LoopTranslation;

impl DialectTranslation for LoopTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        let kind = LoopOp::of(ir, op)?;
        match kind {
            LoopOp::For | LoopOp::Parallel => Some(loops::loop_handler()),
            LoopOp::Alloc | LoopOp::Dealloc | LoopOp::Load | LoopOp::Store => {
                buffers::loop_handler(kind)
            }
            // Translated by the shared `VectorTranslation`.
            LoopOp::VectorLoad
            | LoopOp::VectorStore
            | LoopOp::Broadcast
            | LoopOp::Fma
            | LoopOp::Dot => None,
            // Ends a loop body; the loop translation skips it.
            LoopOp::Yield => None,
        }
    }
}
