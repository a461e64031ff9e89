//! Registered operations: the traits and verifiers a dialect declares for its ops.
//!
//! The core registers only `builtin`; other dialects register themselves through
//! [`Context::register_op`] and [`Context::register_dialect`] without touching this crate.

use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::operation::OpId;

/// Structural properties of an op that the parser, verifier and passes rely on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpTraits {
    /// Regions may not use values defined outside the op.
    pub isolated_from_above: bool,
    /// The op must end its block.
    pub terminator: bool,
    /// Its blocks need no terminator.
    pub no_terminator: bool,
    /// Its regions have at most one block.
    pub single_block: bool,
    /// Its regions are graph regions: no dominance, no terminators required.
    pub graph_regions: bool,
    /// Its region holds a symbol table: `sym_name`s of direct children are unique.
    pub symbol_table: bool,
    /// The op has no side effects.
    pub pure: bool,
}

/// Checks one op's own invariants (operand/result counts, attribute kinds, ...).
pub type VerifyFn = fn(&Context, OpId) -> Result<(), Diagnostic>;

/// Folds an op to values that already exist (one per result), without changing the IR;
/// `None` when it does not fold.
pub type FoldFn = fn(&Context, OpId) -> Option<Vec<crate::Value>>;

#[derive(Clone, Debug)]
pub struct OpInfo {
    pub name: &'static str,
    pub traits: OpTraits,
    /// Attribute names that are part of the op's definition; they print as properties.
    pub inherent_attrs: &'static [&'static str],
    pub verify: Option<VerifyFn>,
    /// The op's folder, used by canonicalization.
    pub fold: Option<FoldFn>,
}

impl Context {
    /// Declares a dialect namespace; ops of a registered dialect must be registered too.
    pub fn register_dialect(&mut self, namespace: &str) {
        self.dialects.insert(namespace.to_string());
    }

    pub fn register_op(&mut self, info: OpInfo) {
        let dialect = info
            .name
            .split_once('.')
            .map_or(info.name, |(d, _)| d)
            .to_string();
        self.dialects.insert(dialect);
        self.registered_ops.insert(info.name.to_string(), info);
    }

    pub fn op_info(&self, name: &str) -> Option<&OpInfo> {
        self.registered_ops.get(name)
    }

    pub fn is_dialect_registered(&self, namespace: &str) -> bool {
        self.dialects.contains(namespace)
    }

    /// Traits of `op`, or `None` when its operation is not registered.
    pub fn op_traits(&self, op: OpId) -> Option<OpTraits> {
        self.op_info(self.op_name(op)).map(|i| i.traits)
    }
}
