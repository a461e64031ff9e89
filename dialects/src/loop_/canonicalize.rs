//! Canonicalization of loops: a loop with a dimension of zero trip count runs nothing and
//! is erased.

use tb_ir::OpId;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};

struct EraseEmptyLoop {
    root: &'static str,
}

impl RewritePattern for EraseEmptyLoop {
    fn debug_name(&self) -> &'static str {
        "EraseEmptyLoop"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some(dims) = super::loop_dims(rewriter.ctx(), op) else {
            return false;
        };
        if !dims.iter().any(|d| d.constant_trip_count() == Some(0)) {
            return false;
        }
        rewriter.erase_op(op);
        true
    }
}

pub(crate) fn for_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseEmptyLoop { root: super::FOR }));
}

pub(crate) fn parallel_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseEmptyLoop {
        root: super::PARALLEL,
    }));
}
