//! Analyses cached across passes: a pass asks the [`AnalysisManager`] for an analysis of an
//! op, which computes it once and hands the cached result to every later pass until a pass
//! that may have changed the op's IR runs. A pass states which analyses it kept valid with
//! [`PreservedAnalyses`]; everything else about the op it ran on, the ops nested in it and
//! the ops enclosing it is dropped.

use std::any::{Any, TypeId};
use std::collections::HashMap;

use crate::context::Context;
use crate::operation::OpId;

/// Facts computed from the IR under one op (dominance, symbol tables, dependence graphs).
pub trait Analysis: Any + Send + Sync {
    /// Computes the analysis of `op` and what is nested in it.
    fn compute(ctx: &Context, op: OpId) -> Self
    where
        Self: Sized;
}

/// Which analyses a pass left valid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreservedAnalyses {
    all: bool,
    kinds: Vec<TypeId>,
}

impl PreservedAnalyses {
    /// The pass may have changed anything: every analysis it could affect is dropped.
    pub fn none() -> Self {
        PreservedAnalyses::default()
    }

    /// The pass changed no IR.
    pub fn all() -> Self {
        PreservedAnalyses {
            all: true,
            kinds: Vec::new(),
        }
    }

    /// Also keeps `A`, which the pass's changes left valid.
    pub fn preserve<A: Analysis>(mut self) -> Self {
        self.kinds.push(TypeId::of::<A>());
        self
    }

    pub fn is_preserved<A: Analysis>(&self) -> bool {
        self.keeps(TypeId::of::<A>())
    }

    fn keeps(&self, kind: TypeId) -> bool {
        self.all || self.kinds.contains(&kind)
    }
}

/// Analyses computed so far, by op and analysis type.
#[derive(Default)]
pub struct AnalysisManager {
    cache: HashMap<(OpId, TypeId), Box<dyn Any + Send + Sync>>,
    computed: usize,
}

impl AnalysisManager {
    pub fn new() -> Self {
        AnalysisManager::default()
    }

    /// `A` of `op`: the cached result, or computed now and cached.
    pub fn get<A: Analysis>(&mut self, ctx: &Context, op: OpId) -> &A {
        let key = (op, TypeId::of::<A>());
        if !self.cache.contains_key(&key) {
            self.computed += 1;
            self.cache.insert(key, Box::new(A::compute(ctx, op)));
        }
        self.cache[&key]
            .downcast_ref::<A>()
            .expect("the cache is keyed by the analysis type")
    }

    /// `A` of `op` if it is cached, without computing it.
    pub fn cached<A: Analysis>(&self, op: OpId) -> Option<&A> {
        self.cache
            .get(&(op, TypeId::of::<A>()))
            .and_then(|a| a.downcast_ref::<A>())
    }

    /// How many analyses have been computed (cache misses) since this manager was made.
    pub fn computed(&self) -> usize {
        self.computed
    }

    /// Drops what a pass on `op` may have made stale: the analyses of `op`, of every op
    /// nested in it and of every op enclosing it (their IR contains `op`'s), except those
    /// `preserved` names. Analyses of erased ops go too.
    pub fn invalidate(&mut self, ctx: &Context, op: OpId, preserved: &PreservedAnalyses) {
        if preserved.all {
            return;
        }
        let enclosing: Vec<OpId> = std::iter::successors(Some(op), |&o| ctx.parent_op(o)).collect();
        self.cache.retain(|&(cached, kind), _| {
            if ctx.op(cached).erased {
                return false;
            }
            let affected = enclosing.contains(&cached) || is_nested_in(ctx, cached, op);
            !affected || preserved.keeps(kind)
        });
    }

    /// Forgets everything (the IR was changed outside the pass manager).
    pub fn clear(&mut self) {
        self.cache.clear();
    }
}

/// Whether `op` lies (at any depth) inside `ancestor`'s regions.
fn is_nested_in(ctx: &Context, op: OpId, ancestor: OpId) -> bool {
    std::iter::successors(ctx.parent_op(op), |&o| ctx.parent_op(o)).any(|o| o == ancestor)
}
