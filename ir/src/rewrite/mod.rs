//! Pattern rewriting: [`RewritePattern`]s with a benefit, the [`Rewriter`] through which
//! every IR change goes (so drivers know what changed), and the greedy worklist driver.

pub mod conversion;
mod edit;
pub mod folder;
mod greedy;
mod pattern;

pub use greedy::{GreedyConfig, GreedyResult, Strictness, apply_patterns_greedily};
pub use pattern::{PatternSet, RewritePattern, Rewriter};
