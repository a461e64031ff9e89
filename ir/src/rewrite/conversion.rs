//! Dialect conversion: rewrite every op a [`ConversionTarget`] deems illegal with
//! [`ConversionPattern`]s, converting types with a [`TypeConverter`] and bridging values whose
//! types changed with `builtin.unrealized_conversion_cast` (removed later by
//! `reconcile-unrealized-casts` once both sides agree).
//!
//! A conversion is a transaction. Which ops must be converted is decided on the input,
//! before any pattern runs. Patterns then change the IR only through the
//! [`ConversionRewriter`], which journals every change: replaced ops stay in place (their
//! uses already moved) until the end. If every op was converted, the replaced ops are erased;
//! otherwise the journal is undone, the IR is exactly what it was, and one diagnostic lists
//! every op that could not be converted, each at its location, in program order.
//!
//! Patterns are found by the name of the op they convert (an interned-name lookup per op),
//! not tried one after the other.

use std::collections::HashMap;

use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use crate::attributes::Attr;
use crate::block::BlockId;
use crate::builtin::UNREALIZED_CONVERSION_CAST;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::location::{Location, LocationKind};
use crate::operation::{OpId, OpName, OperationState};
use crate::region::RegionId;
use crate::types::Type;
use crate::value::{Use, Value};

/// Whether an op may stay.
#[derive(Clone, Copy)]
pub enum Legality {
    Legal,
    Illegal,
    /// Legal when the function says so (e.g. "legal once its types are converted").
    Dynamic(fn(&Context, OpId) -> bool),
}

impl Legality {
    fn holds(self, ctx: &Context, op: OpId) -> bool {
        match self {
            Legality::Legal => true,
            Legality::Illegal => false,
            Legality::Dynamic(check) => check(ctx, op),
        }
    }
}

/// Which ops are legal after the conversion: by op name, by dialect, and for the ops
/// neither names.
#[derive(Default)]
pub struct ConversionTarget {
    ops: HashMap<String, Legality>,
    dialects: HashMap<String, Legality>,
    unknown: Option<Legality>,
}

impl ConversionTarget {
    pub fn new() -> ConversionTarget {
        ConversionTarget::default()
    }

    pub fn add_op(&mut self, name: &str, legality: Legality) -> &mut Self {
        self.ops.insert(name.to_string(), legality);
        self
    }

    pub fn add_dialect(&mut self, namespace: &str, legality: Legality) -> &mut Self {
        self.dialects.insert(namespace.to_string(), legality);
        self
    }

    /// The legality of ops that neither [`ConversionTarget::add_op`] nor
    /// [`ConversionTarget::add_dialect`] names (by default they have none: see
    /// [`ConversionMode`]).
    pub fn mark_unknown(&mut self, legality: Legality) -> &mut Self {
        self.unknown = Some(legality);
        self
    }

    fn legality_of(&self, name: &str) -> Option<Legality> {
        let dialect = name.split_once('.').map_or(name, |(d, _)| d);
        self.ops
            .get(name)
            .or_else(|| self.dialects.get(dialect))
            .copied()
            .or(self.unknown)
    }

    /// `Some(true/false)` for ops the target knows, `None` for the others.
    pub fn is_legal(&self, ctx: &Context, op: OpId) -> Option<bool> {
        let legality = self.legality_of(ctx.op_name(op))?;
        Some(legality.holds(ctx, op))
    }
}

/// The target's legality per interned op name, looked up once per name (a table indexed
/// by the name's id, so the walk over every op costs no hashing).
struct LegalityCache<'t> {
    target: &'t ConversionTarget,
    mode: ConversionMode,
    by_name: Vec<Option<Option<Legality>>>,
}

impl LegalityCache<'_> {
    /// Whether `op` must be converted (or, for an op a pattern created, may not stay).
    fn must_convert(&mut self, ctx: &Context, op: OpId) -> bool {
        let name = ctx.op(op).name;
        let slot = name.0 as usize;
        if self.by_name.len() <= slot {
            self.by_name.resize(slot + 1, None);
        }
        let target = self.target;
        let legality =
            *self.by_name[slot].get_or_insert_with(|| target.legality_of(ctx.op_name_str(name)));
        match (legality, self.mode) {
            (Some(legality), _) => !legality.holds(ctx, op),
            (None, ConversionMode::Full) => true,
            (None, ConversionMode::Partial) => false,
        }
    }
}

/// Maps types to their converted form; a type no rule converts stays as it is.
pub type TypeRule = Box<dyn Fn(&mut Context, Type) -> Option<Type>>;

#[derive(Default)]
pub struct TypeConverter {
    rules: Vec<TypeRule>,
}

impl TypeConverter {
    pub fn new() -> TypeConverter {
        TypeConverter::default()
    }

    /// Adds a rule; later rules are tried first, as in MLIR.
    pub fn add_rule(&mut self, rule: TypeRule) {
        self.rules.push(rule);
    }

    pub fn convert_type(&self, ctx: &mut Context, ty: Type) -> Type {
        self.rules
            .iter()
            .rev()
            .find_map(|rule| rule(ctx, ty))
            .unwrap_or(ty)
    }
}

/// The ops a pattern converts.
pub enum PatternRoots {
    /// Ops with one of these names.
    Ops(Vec<&'static str>),
    /// Any illegal op (a fallback, e.g. to explain why an op cannot be converted).
    Any,
}

/// A rewrite of illegal ops of the kinds it names.
pub trait ConversionPattern {
    fn roots(&self) -> PatternRoots;

    /// Patterns with a higher benefit are tried first.
    fn benefit(&self) -> u16 {
        1
    }

    /// Converts `op`, given `operands`, its operands converted by the type converter
    /// (casts are made where a type changes). Every change goes through `rewriter`; ops the
    /// pattern creates right before `op` are recorded for it, ops it creates elsewhere it
    /// announces with [`ConversionRewriter::notify_created`]. On failure the pattern's
    /// changes are undone and the next pattern is tried; the error of the first pattern
    /// (usually made with [`op_failure`]) is reported if none succeeds.
    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic>;
}

/// One change to existing IR, and how to take it back.
enum Change {
    Created(OpId),
    OperandSet {
        op: OpId,
        index: usize,
        old: Value,
    },
    UsesMoved {
        from: Value,
        uses: Vec<Use>,
    },
    ValueType {
        value: Value,
        old: Type,
    },
    Properties {
        op: OpId,
        old: Option<Attr>,
    },
    Replaced(OpId),
    /// An argument was appended to `block`.
    ArgumentAdded(BlockId),
    /// The blocks of region `from` were moved to the end of region `to`.
    BlocksMoved {
        from: RegionId,
        to: RegionId,
        blocks: Vec<BlockId>,
    },
}

/// Where the journal stood: [`ConversionRewriter::rollback_to`] undoes what came after.
#[derive(Clone, Copy)]
struct Mark(usize);

/// The rewriter of a conversion: every change to IR that existed before is journaled so
/// that a failed conversion can be undone; replaced ops are erased only at commit.
pub struct ConversionRewriter<'a> {
    ctx: &'a mut Context,
    types: &'a TypeConverter,
    journal: Vec<Change>,
    replaced: FxHashSet<OpId>,
}

impl<'a> ConversionRewriter<'a> {
    /// A rewriter for converting about `ops` ops (sizes its tables once).
    fn new(ctx: &'a mut Context, types: &'a TypeConverter, ops: usize) -> ConversionRewriter<'a> {
        let mut replaced = FxHashSet::default();
        replaced.reserve(ops);
        ConversionRewriter {
            ctx,
            types,
            journal: Vec::with_capacity(4 * ops),
            replaced,
        }
    }

    /// Read access to the IR.
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// Mutable access for interning types, attributes and names, and for building new ops
    /// (before the op being converted, or announced with
    /// [`ConversionRewriter::notify_created`]). Changes to ops that existed before must go
    /// through the rewriter's own methods, or a failed conversion cannot undo them.
    pub fn ctx_mut(&mut self) -> &mut Context {
        self.ctx
    }

    /// The type `ty` converts to.
    pub fn convert_type(&mut self, ty: Type) -> Type {
        self.types.convert_type(self.ctx, ty)
    }

    /// Records an op the pattern created somewhere other than right before the op it
    /// converts, so that a rollback erases it.
    pub fn notify_created(&mut self, op: OpId) {
        self.journal.push(Change::Created(op));
    }

    /// Creates an op right before `before`.
    pub fn create_op_before(&mut self, before: OpId, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.ctx.insert_op_before(before, op);
        self.journal.push(Change::Created(op));
        op
    }

    /// A value of `ty` standing for `value`: `value` itself, or an
    /// `unrealized_conversion_cast` inserted before `at`.
    pub fn materialize(&mut self, value: Value, ty: Type, at: OpId) -> Value {
        if self.ctx.value_type(value) == ty {
            return value;
        }
        let loc = self.ctx.op(at).loc;
        let name = self.ctx.intern_op_name(UNREALIZED_CONVERSION_CAST);
        let cast = self.create_op_before(
            at,
            OperationState {
                name,
                operands: vec![value],
                result_types: vec![ty],
                successors: vec![],
                num_regions: 0,
                properties: None,
                attributes: vec![],
                loc,
            },
        );
        self.ctx.op(cast).results[0]
    }

    /// Changes operand `index` of `op`.
    pub fn set_operand(&mut self, op: OpId, index: usize, value: Value) {
        let old = self.ctx.op(op).operands[index];
        if old == value {
            return;
        }
        self.journal.push(Change::OperandSet { op, index, old });
        self.ctx.set_operand(op, index, value);
    }

    /// Changes the type of `value` in place (a block argument, an op result).
    pub fn set_value_type(&mut self, value: Value, ty: Type) {
        let old = self.ctx.value_type(value);
        if old == ty {
            return;
        }
        self.journal.push(Change::ValueType { value, old });
        self.ctx.set_value_type(value, ty);
    }

    /// Replaces the inherent attributes of `op`.
    pub fn set_properties(&mut self, op: OpId, properties: Option<Attr>) {
        let old = self.ctx.op(op).properties;
        self.journal.push(Change::Properties { op, old });
        self.ctx.op_mut(op).properties = properties;
    }

    /// Moves every block of region `from` to the end of region `to` (MLIR's
    /// `inlineRegionBefore`): how a pattern gives the body of the op it replaces to the op
    /// it builds (`graph.if`'s branches become `scf.if`'s). The ops in those blocks stay
    /// what they are and are converted where they land. `to` must belong to an op the
    /// pattern created and announced (with [`ConversionRewriter::create_op_before`] or
    /// [`ConversionRewriter::notify_created`]) before the move, so that a rollback moves
    /// the blocks back before it erases that op.
    pub fn move_blocks(&mut self, from: RegionId, to: RegionId) {
        let blocks = self.ctx.take_blocks(from);
        self.ctx.insert_blocks(to, None, &blocks);
        self.journal.push(Change::BlocksMoved { from, to, blocks });
    }

    /// Appends an argument of type `ty` to `block` (a block moved into the op the pattern
    /// builds, whose region takes more arguments than the replaced op's did).
    pub fn add_block_argument(&mut self, block: BlockId, ty: Type, loc: Option<Location>) -> Value {
        let value = self.ctx.add_block_argument(block, ty, loc);
        self.journal.push(Change::ArgumentAdded(block));
        value
    }

    /// Redirects every use of `from` to `to` (whatever their types).
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from == to || self.ctx.value(from).uses.is_empty() {
            return;
        }
        let uses = self.ctx.value(from).uses.to_vec();
        self.ctx.replace_all_uses(from, to);
        self.journal.push(Change::UsesMoved { from, uses });
    }

    /// Replaces `op`'s results with `values` (one each), which its users see at once, and
    /// erases `op` when the conversion commits. The users are expected to be converted as
    /// well where a type changes; see [`ConversionRewriter::replace_op_with_casts`].
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

    /// Like [`ConversionRewriter::replace_op`], but a value whose type differs from the
    /// result it replaces reaches the users through a cast back to the old type.
    pub fn replace_op_with_casts(&mut self, op: OpId, values: &[Value]) {
        let results = self.ctx.op(op).results.to_vec();
        let bridged: Vec<Value> = results
            .iter()
            .zip(values)
            .map(|(&old, &new)| {
                let old_ty = self.ctx.value_type(old);
                if self.ctx.value(old).uses.is_empty() {
                    new
                } else {
                    self.materialize(new, old_ty, op)
                }
            })
            .collect();
        self.replace_op(op, &bridged);
    }

    /// Erases `op` when the conversion commits (its results must be unused by then).
    pub fn erase_op(&mut self, op: OpId) {
        if self.replaced.insert(op) {
            self.journal.push(Change::Replaced(op));
        }
    }

    /// Whether `op` or an op around it is replaced or erased.
    pub fn is_replaced(&self, op: OpId) -> bool {
        let mut current = Some(op);
        while let Some(op) = current {
            if self.replaced.contains(&op) {
                return true;
            }
            current = self.ctx.parent_op(op);
        }
        false
    }

    fn mark(&self) -> Mark {
        Mark(self.journal.len())
    }

    /// Records the ops inserted before `op` since its previous sibling was `prev` (and
    /// the journal stood at `since`), except those the pattern already recorded: a created
    /// op stays before the changes made to it in the journal, so that undoing them comes
    /// first.
    fn record_created_before(&mut self, op: OpId, prev: Option<OpId>, since: Mark) {
        let recorded: FxHashSet<OpId> = self.journal[since.0..]
            .iter()
            .filter_map(|c| match c {
                Change::Created(op) => Some(*op),
                _ => None,
            })
            .collect();
        let mut current = self.ctx.op(op).prev;
        let mut created = Vec::new();
        while current != prev {
            let Some(new) = current else { break };
            if !recorded.contains(&new) {
                created.push(new);
            }
            current = self.ctx.op(new).prev;
        }
        self.journal
            .extend(created.into_iter().rev().map(Change::Created));
    }

    /// Undoes every change after `mark`, newest first.
    fn rollback_to(&mut self, mark: Mark) {
        while self.journal.len() > mark.0 {
            let change = self.journal.pop().expect("above the mark");
            match change {
                Change::Created(op) => {
                    if !self.ctx.op(op).erased {
                        self.ctx.erase_op(op);
                    }
                }
                Change::OperandSet { op, index, old } => {
                    if !self.ctx.op(op).erased {
                        self.ctx.set_operand(op, index, old);
                    }
                }
                Change::UsesMoved { from, uses } => {
                    for u in uses {
                        if !self.ctx.op(u.op).erased {
                            self.ctx.set_operand(u.op, u.index as usize, from);
                        }
                    }
                }
                Change::ValueType { value, old } => self.ctx.set_value_type(value, old),
                Change::Properties { op, old } => self.ctx.op_mut(op).properties = old,
                Change::Replaced(op) => {
                    self.replaced.remove(&op);
                }
                Change::ArgumentAdded(block) => {
                    // Its users were created later and are gone by now.
                    let removed = self.ctx.pop_block_argument(block);
                    debug_assert!(removed.is_some(), "an added argument is still used");
                }
                Change::BlocksMoved { from, to, blocks } => {
                    let list = &self.ctx.region(to).blocks;
                    let keep = list.len() - blocks.len();
                    debug_assert_eq!(&list[keep..], &blocks[..]);
                    let taken = self.ctx.take_blocks(to);
                    self.ctx.insert_blocks(to, None, &taken[..keep]);
                    self.ctx.insert_blocks(from, None, &blocks);
                }
            }
        }
    }

    /// Makes the changes final: the replaced ops are erased, newest first.
    fn commit(self) {
        let replaced: Vec<OpId> = self
            .journal
            .iter()
            .filter_map(|c| match c {
                Change::Replaced(op) => Some(*op),
                _ => None,
            })
            .collect();
        for op in replaced.into_iter().rev() {
            if !self.ctx.op(op).erased {
                self.ctx.erase_op(op);
            }
        }
    }

    /// The ops created since `mark` that are still in the IR and not inside another one.
    fn created_since(&self, mark: Mark) -> Vec<OpId> {
        let created: FxHashSet<OpId> = self.journal[mark.0..]
            .iter()
            .filter_map(|c| match c {
                Change::Created(op) if !self.ctx.op(*op).erased => Some(*op),
                _ => None,
            })
            .collect();
        let mut outermost: Vec<OpId> = created
            .iter()
            .copied()
            .filter(|&op| {
                let mut parent = self.ctx.parent_op(op);
                while let Some(p) = parent {
                    if created.contains(&p) {
                        return false;
                    }
                    parent = self.ctx.parent_op(p);
                }
                true
            })
            .collect();
        outermost.sort();
        outermost
    }
}

/// The error for an op a conversion could not handle: `'graph.gemm' op <message>`,
/// naming the node the op came from when its location is a name location (as the ONNX
/// importer gives every op: `loc("my_gemm"("model.onnx":3:1))`):
/// `'graph.gemm' op (node "my_gemm") <message>`.
pub fn op_failure(ctx: &Context, op: OpId, message: impl std::fmt::Display) -> Diagnostic {
    let loc = ctx.op(op).loc;
    let node = match location_name(ctx, loc) {
        Some(name) => format!(" (node \"{}\")", name.escape_debug()),
        None => String::new(),
    };
    Diagnostic::error(loc, format!("'{}' op{node} {message}", ctx.op_name(op)))
}

/// The name of a name location, also inside a call site's callee or a fusion.
pub fn location_name(ctx: &Context, loc: Location) -> Option<&str> {
    match ctx.location_kind(loc)? {
        LocationKind::Name { name, .. } => Some(name),
        LocationKind::CallSite { callee, .. } => location_name(ctx, *callee),
        LocationKind::Fused { locations, .. } => {
            locations.iter().find_map(|&l| location_name(ctx, l))
        }
        _ => None,
    }
}

/// Full conversion fails on any op that the target does not declare legal; partial
/// conversion only on ops that it declares illegal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ConversionMode {
    Partial,
    Full,
}

/// The patterns that may convert each op name, best first: a table indexed by the
/// interned name's id, so finding an op's patterns costs one index.
struct PatternIndex<'p> {
    by_name: Vec<Option<Vec<&'p dyn ConversionPattern>>>,
    any: Vec<&'p dyn ConversionPattern>,
}

impl<'p> PatternIndex<'p> {
    fn new(ctx: &mut Context, patterns: &'p [Box<dyn ConversionPattern>]) -> PatternIndex<'p> {
        let mut by_name: Vec<Option<Vec<&'p dyn ConversionPattern>>> = Vec::new();
        let mut any = Vec::new();
        for pattern in patterns {
            match pattern.roots() {
                PatternRoots::Any => any.push(pattern.as_ref()),
                PatternRoots::Ops(names) => {
                    for name in names {
                        let slot = ctx.intern_op_name(name).0 as usize;
                        if by_name.len() <= slot {
                            by_name.resize_with(slot + 1, || None);
                        }
                        by_name[slot]
                            .get_or_insert_with(Vec::new)
                            .push(pattern.as_ref());
                    }
                }
            }
        }
        // Patterns for any op join every list, so each list is complete and sorted once.
        for list in by_name.iter_mut().flatten() {
            list.extend(any.iter().copied());
            list.sort_by_key(|p| std::cmp::Reverse(p.benefit()));
        }
        any.sort_by_key(|p| std::cmp::Reverse(p.benefit()));
        PatternIndex { by_name, any }
    }

    fn for_op(&self, name: OpName) -> &[&'p dyn ConversionPattern] {
        match self.by_name.get(name.0 as usize) {
            Some(Some(list)) => list,
            _ => &self.any,
        }
    }
}

/// Converts the ops nested under `root` that the target makes illegal (decided on the
/// input, before anything changes), all or nothing. On failure the IR is left exactly as
/// it was (use lists aside, whose order may change) and one error lists every op that
/// could not be converted in program order: the first op's error, with each other one
/// attached as an error of its own.
pub fn apply_conversion(
    ctx: &mut Context,
    root: OpId,
    target: &ConversionTarget,
    patterns: &[Box<dyn ConversionPattern>],
    types: &TypeConverter,
    mode: ConversionMode,
) -> Result<(), Diagnostic> {
    let mut legality = LegalityCache {
        target,
        mode,
        by_name: Vec::new(),
    };
    let mut illegal = Vec::new();
    ctx.walk_nested(root, &mut |op| {
        if legality.must_convert(ctx, op) {
            illegal.push(op);
        }
    });
    if illegal.is_empty() {
        return Ok(());
    }
    let index = PatternIndex::new(ctx, patterns);
    let mut rewriter = ConversionRewriter::new(ctx, types, illegal.len());
    let start = rewriter.mark();
    let mut failures = Vec::new();
    for op in illegal {
        // Ops inside a replaced op go away with it.
        if rewriter.is_replaced(op) {
            continue;
        }
        if let Err(failure) = convert_op(&mut rewriter, &index, op) {
            failures.push(failure);
        }
    }
    // What the patterns built must be legal too: the outermost new ops (a pattern is
    // trusted with the bodies it builds inside them, which would cost a second walk over
    // everything generated). After a failure, ops built on values that were not converted
    // would only repeat it.
    if failures.is_empty() {
        let ctx = rewriter.ctx();
        for created in rewriter.created_since(start) {
            if ctx.op_name(created) != UNREALIZED_CONVERSION_CAST
                && legality.must_convert(ctx, created)
            {
                failures.push(op_failure(
                    ctx,
                    created,
                    "was created by the conversion but is not legal",
                ));
            }
        }
    }
    if failures.is_empty() {
        rewriter.commit();
        return Ok(());
    }
    rewriter.rollback_to(start);
    let mut first = failures.remove(0);
    first.notes.extend(failures);
    Err(first)
}

/// Converts one op with the first pattern that succeeds, or gives the reason of the first
/// one that failed; a failed attempt leaves nothing behind.
fn convert_op(
    rewriter: &mut ConversionRewriter,
    index: &PatternIndex,
    op: OpId,
) -> Result<(), Diagnostic> {
    let candidates = index.for_op(rewriter.ctx().op(op).name);
    if candidates.is_empty() {
        return Err(op_failure(
            rewriter.ctx(),
            op,
            "failed to legalize: no conversion pattern for it",
        ));
    }
    let before_operands = rewriter.mark();
    let original: SmallVec<[Value; 4]> = rewriter.ctx().op(op).operands.clone();
    let operands: Vec<Value> = original
        .iter()
        .map(|&v| {
            let ty = rewriter.ctx().value_type(v);
            let converted = rewriter.convert_type(ty);
            rewriter.materialize(v, converted, op)
        })
        .collect();
    let mut failure = None;
    for pattern in candidates {
        let mark = rewriter.mark();
        let prev = rewriter.ctx().op(op).prev;
        let result = pattern.match_and_rewrite(op, &operands, rewriter);
        rewriter.record_created_before(op, prev, mark);
        match result {
            Ok(()) => return Ok(()),
            Err(why) => {
                rewriter.rollback_to(mark);
                // The first pattern tried is the most specific: its reason is reported.
                failure.get_or_insert(why);
            }
        }
    }
    rewriter.rollback_to(before_operands);
    Err(failure.expect("at least one pattern was tried"))
}
