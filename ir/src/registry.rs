//! Registered operations and dialects: the traits, verifiers, folders, canonicalization
//! patterns and assembly a dialect declares for its ops.
//!
//! The core registers only `builtin`; other dialects register themselves through
//! [`Context::register_op`], [`Context::register_op_def`] and [`Context::register_dialect_info`]
//! without touching this crate.

use std::sync::Arc;

use crate::asm::{CustomParseFn, CustomPrintFn, Format, OpAsmPrinter};
use crate::attributes::Attr;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::location::Location;
use crate::operation::OpId;
use crate::rewrite::PatternSet;
use crate::types::Type;
use crate::value::Value;

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
    /// Its only effects read memory or allocate its own results: with its results unused
    /// it may be erased, though unlike a pure op it may not be merged or moved.
    pub removable_if_unused: bool,
    /// Stack allocations (`memref.alloca`) in its regions are freed when it returns.
    pub automatic_allocation_scope: bool,
    /// The op materializes the constant in its `value` attribute.
    pub constant_like: bool,
    /// Operands may be swapped: folding moves constants to the right.
    pub commutative: bool,
    /// A symbol with a body region (a function): with no blocks it is a declaration, and
    /// a declaration must not be public.
    pub function_like: bool,
}

/// What a folder produces for one result: an existing value or a constant (an
/// attribute that exists, or one the driver interns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoldResult {
    Value(Value),
    Attr(Attr),
    NewAttr(crate::attributes::AttrKind),
}

/// Checks one op's own invariants (operand/result counts, attribute kinds, ...).
pub type VerifyFn = fn(&Context, OpId) -> Result<(), Diagnostic>;

/// Folds an op without changing the IR: one result per op result, or `None`. The slice
/// holds, per operand, the constant it is known to be (from a constant-like producer).
pub type FoldFn = fn(&Context, OpId, &[Option<Attr>]) -> Option<Vec<FoldResult>>;

/// Adds the op's canonicalization patterns.
pub type CanonicalizeFn = fn(&mut PatternSet);

/// Computes result types from operand types and attributes, for ops whose custom form
/// does not spell them out (type inference).
pub type InferTypesFn = fn(&mut Context, &InferInput) -> Result<Vec<Type>, String>;

/// Suggests names for the op's results in the custom form (`%c0_i32`, `%cst`).
pub type ResultNamesFn = fn(&Context, OpId) -> Vec<Option<String>>;

/// What type inference sees of an op being built or parsed.
pub struct InferInput<'a> {
    pub operand_types: &'a [Type],
    /// Properties and attributes by name.
    pub attributes: &'a [(String, Attr)],
    pub loc: Location,
}

impl InferInput<'_> {
    pub fn attr(&self, name: &str) -> Option<Attr> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    }
}

/// How an op prints and parses in custom form.
#[derive(Clone)]
pub enum Assembly {
    /// A declarative format in MLIR's directive syntax, checked at registration.
    Format(Arc<Format>),
    /// Hand-written parser and printer.
    Custom {
        parse: CustomParseFn,
        print: CustomPrintFn,
    },
}

#[derive(Clone)]
pub struct OpInfo {
    pub name: &'static str,
    pub traits: OpTraits,
    /// Attribute names that are part of the op's definition; they print as properties.
    pub inherent_attrs: &'static [&'static str],
    pub verify: Option<VerifyFn>,
    /// The op's folder, used by canonicalization.
    pub fold: Option<FoldFn>,
    pub canonicalize: Option<CanonicalizeFn>,
    pub assembly: Option<Assembly>,
    pub infer_types: Option<InferTypesFn>,
    pub result_names: Option<ResultNamesFn>,
    /// Ops of this dialect print and parse without prefix inside the op's regions.
    pub default_dialect: Option<&'static str>,
    /// The declarative definition this entry was built from, if any.
    pub def: Option<&'static crate::ods::OpDef>,
}

impl OpInfo {
    /// An op with no traits, attributes or hooks.
    pub fn new(name: &'static str) -> OpInfo {
        OpInfo {
            name,
            traits: OpTraits::default(),
            inherent_attrs: &[],
            verify: None,
            fold: None,
            canonicalize: None,
            assembly: None,
            infer_types: None,
            result_names: None,
            default_dialect: None,
            def: None,
        }
    }
}

/// Builds the constant op of a dialect for a folded value (`arith.constant 3 : i32`).
pub type MaterializeConstantFn = fn(&mut Context, Attr, Type, Location) -> Option<OpId>;

/// Dialect-wide hooks.
#[derive(Clone, Default)]
pub struct DialectInfo {
    pub namespace: &'static str,
    pub materialize_constant: Option<MaterializeConstantFn>,
    /// Prints a dialect attribute in its pretty form; `None` keeps the opaque text.
    pub print_attr: Option<fn(&Context, Attr, &mut OpAsmPrinter) -> bool>,
}

impl Context {
    /// Declares a dialect namespace; ops of a registered dialect must be registered too.
    pub fn register_dialect(&mut self, namespace: &str) {
        self.dialects.insert(namespace.to_string());
    }

    /// Declares a dialect with its hooks.
    pub fn register_dialect_info(&mut self, info: DialectInfo) {
        self.register_dialect(info.namespace);
        self.dialect_infos.insert(info.namespace.to_string(), info);
    }

    pub fn dialect_info(&self, namespace: &str) -> Option<&DialectInfo> {
        self.dialect_infos.get(namespace)
    }

    pub fn register_op(&mut self, info: OpInfo) {
        let dialect = info
            .name
            .split_once('.')
            .map_or(info.name, |(d, _)| d)
            .to_string();
        self.dialects.insert(dialect);
        let name = self.intern_op_name(info.name);
        let index = name.0 as usize;
        if self.op_info_by_name.len() <= index {
            self.op_info_by_name.resize(index + 1, None);
        }
        let info = Arc::new(info);
        self.op_info_by_name[index] = Some(info.clone());
        self.registered_ops.insert(info.name.to_string(), info);
    }

    pub fn op_info(&self, name: &str) -> Option<&OpInfo> {
        self.registered_ops.get(name).map(|i| i.as_ref())
    }

    /// The registration of `op`'s operation, looked up by interned name.
    pub fn op_info_of(&self, op: OpId) -> Option<&OpInfo> {
        let name = self.op(op).name;
        self.op_info_by_name
            .get(name.0 as usize)
            .and_then(|i| i.as_deref())
    }

    /// Every registered op, in no particular order.
    pub fn registered_op_infos(&self) -> impl Iterator<Item = &OpInfo> {
        self.registered_ops.values().map(|i| i.as_ref())
    }

    pub fn is_dialect_registered(&self, namespace: &str) -> bool {
        self.dialects.contains(namespace)
    }

    /// Traits of `op`, or `None` when its operation is not registered.
    pub fn op_traits(&self, op: OpId) -> Option<OpTraits> {
        self.op_info_of(op).map(|i| i.traits)
    }
}
