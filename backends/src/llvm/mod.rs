//! The translation to LLVM IR that targets share: the translator state and op dispatch
//! ([`translator`]), IR types as LLVM types ([`types`]), memref layouts ([`memref`]), affine
//! maps as integer arithmetic, and the ops of `arith`, `math`, `cf` and the vector ops of
//! `loop`.
//!
//! A target (the CPU backend today) lists, in a [`translator::Translations`] registry, the
//! [`DialectTranslation`]s it uses: the shared ones from here ([`ArithTranslation`],
//! [`MathTranslation`], [`VectorTranslation`]) and its own for what is target-specific
//! (memory allocation, functions and their ABI, loops and threads). Each translation matches
//! exhaustively over its dialect's op kinds, so a new op needs its handler to compile.

pub(crate) mod affine;
pub(crate) mod arith;
pub(crate) mod cf;
pub(crate) mod int_dot;
pub(crate) mod math;
pub(crate) mod math_approx;
pub mod memref;
pub(crate) mod translator;
pub mod types;
pub(crate) mod vector;

use tb_ir::{Context, OpId};

pub(crate) use arith::ArithTranslation;
pub(crate) use cf::CfTranslation;
pub(crate) use math::MathTranslation;
use translator::Handler;
pub(crate) use vector::VectorTranslation;

/// The LLVM translation of one dialect's ops (or of a group of them).
pub(crate) trait DialectTranslation: Sync {
    /// The handler that translates `op`, if it is one of this translation's ops and it
    /// translates it (terminators that need no code have none).
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler>;
}
