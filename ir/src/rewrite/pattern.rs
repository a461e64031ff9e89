//! Rewrite patterns and the rewriter they mutate the IR through.

use crate::context::Context;
use crate::operation::{OpId, OperationState};
use crate::value::Value;

/// A local rewrite rooted at one operation.
pub trait RewritePattern {
    /// Name for debugging and `--mlir-print-ir`-style reports.
    fn debug_name(&self) -> &'static str;

    /// The operation name the pattern matches, or `None` for any operation.
    fn root(&self) -> Option<&'static str>;

    /// Patterns with a higher benefit are tried first.
    fn benefit(&self) -> u16 {
        1
    }

    /// Rewrites `op` if the pattern applies; returns whether it changed the IR.
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool;
}

/// Patterns sorted by decreasing benefit.
#[derive(Default)]
pub struct PatternSet {
    patterns: Vec<Box<dyn RewritePattern>>,
}

impl PatternSet {
    pub fn new() -> PatternSet {
        PatternSet::default()
    }

    pub fn add(&mut self, pattern: Box<dyn RewritePattern>) {
        let at = self
            .patterns
            .partition_point(|p| p.benefit() >= pattern.benefit());
        self.patterns.insert(at, pattern);
    }

    /// Patterns that may match an op named `name`, best first.
    pub fn for_op<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a dyn RewritePattern> + 'a {
        self.patterns
            .iter()
            .filter(move |p| p.root().is_none_or(|r| r == name))
            .map(|p| p.as_ref())
    }

    /// Whether any pattern may apply to ops named `name`.
    pub fn applies_to(&self, name: &str) -> bool {
        self.patterns
            .iter()
            .any(|p| p.root().is_none_or(|r| r == name))
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// Mutates the IR on behalf of patterns and records what a driver must revisit.
pub struct Rewriter<'a> {
    ctx: &'a mut Context,
    /// Ops created or whose operands changed, to be visited again.
    pub(crate) touched: Vec<OpId>,
    pub(crate) changed: bool,
}

impl<'a> Rewriter<'a> {
    pub fn new(ctx: &'a mut Context) -> Rewriter<'a> {
        Rewriter {
            ctx,
            touched: Vec::new(),
            changed: false,
        }
    }

    /// Read access to the IR.
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// Mutable access for interning types, attributes and names. Structural changes must go
    /// through the rewriter's own methods, or drivers will not see them.
    pub fn ctx_mut(&mut self) -> &mut Context {
        self.ctx
    }

    /// Creates an op right before `before`.
    pub fn create_op_before(&mut self, before: OpId, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.ctx.insert_op_before(before, op);
        self.touched.push(op);
        self.changed = true;
        op
    }

    /// Changes operand `index` of `op` in place (MLIR's in-place folds); `op` is revisited,
    /// and so is the producer of the old operand, which may have become dead.
    pub fn set_operand(&mut self, op: OpId, index: usize, value: Value) {
        let old = self.ctx.op(op).operands[index];
        if let crate::value::ValueDef::Result { op: producer, .. } = self.ctx.value(old).def {
            self.touched.push(producer);
        }
        self.ctx.set_operand(op, index, value);
        self.touched.push(op);
        self.changed = true;
    }

    /// Redirects every use of `from` to `to`; the users are revisited.
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        self.touched
            .extend(self.ctx.value(from).uses.iter().map(|u| u.op));
        self.ctx.replace_all_uses(from, to);
        self.changed = true;
    }

    /// Replaces `op`'s results with `values` (one each) and erases it.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) {
        let results = self.ctx.op(op).results.to_vec();
        assert_eq!(
            results.len(),
            values.len(),
            "replace_op needs one value per result"
        );
        for (from, &to) in results.into_iter().zip(values) {
            self.replace_all_uses(from, to);
        }
        self.erase_op(op);
    }

    /// Erases an op whose results are unused; the producers of its operands are revisited,
    /// as they may have become dead.
    pub fn erase_op(&mut self, op: OpId) {
        let producers: Vec<OpId> = self
            .ctx
            .op(op)
            .operands
            .iter()
            .filter_map(|&v| match self.ctx.value(v).def {
                crate::value::ValueDef::Result { op, .. } => Some(op),
                _ => None,
            })
            .collect();
        self.touched.extend(producers);
        self.ctx.erase_op(op);
        self.changed = true;
    }
}
