//! The MLIR text printer: generic operation form (plus `builtin.module`'s custom form),
//! builtin types, attributes and locations, and the `{-# dialect_resources #-}` trailer.
//! Values and blocks are numbered the way `mlir-opt` numbers them.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::attributes::{Attr, AttrKind, DenseArrayData, DenseData, DenseElement};
use crate::block::BlockId;
use crate::builtin;
use crate::context::{Context, ExternalResourceValue};
use crate::float;
use crate::lexer::{escape_into, is_bare_identifier};
use crate::location::{Location, LocationKind};
use crate::operation::OpId;
use crate::region::RegionId;
use crate::types::{DYNAMIC, FloatKind, Signedness, Type, TypeKind};
use crate::value::{Value, ValueDef};

/// Printer flags, named after `mlir-opt`'s.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// `--mlir-print-op-generic`: every op in generic form.
    pub generic: bool,
    /// `--mlir-print-debuginfo`: print locations.
    pub debug_info: bool,
    /// `--mlir-print-local-scope`: print everything inline (we never emit aliases).
    pub local_scope: bool,
}

/// What [`print_operation`] leaves out of large modules: `mlir-opt`'s
/// `--mlir-elide-elementsattrs-if-larger` and `--mlir-elide-resource-strings-if-larger`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Elision {
    /// A non-splat `dense<...>` with more elements than this prints as
    /// `dense_resource<__elided__>`, as MLIR prints it.
    pub elements_larger_than: Option<u64>,
    /// A `{-# ... #-}` resource entry whose value prints longer than this many characters
    /// (quotes included) is left out, with sections left empty by that.
    pub resource_strings_larger_than: Option<u64>,
}

impl Elision {
    /// Everything printed in full.
    pub const NONE: Elision = Elision {
        elements_larger_than: None,
        resource_strings_larger_than: None,
    };
}

/// `u64::MAX` stands for "no limit" in the process-wide defaults below.
static ELIDE_ELEMENTS: AtomicU64 = AtomicU64::new(u64::MAX);
static ELIDE_RESOURCE_STRINGS: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets the elision every [`print_operation`] of this process applies, as MLIR's printer
/// flags take their defaults from the command line: a tool sets it once from its
/// `--mlir-elide-*` flags, and IR dumps made anywhere (pass instrumentation included)
/// follow it. Text meant to be parsed back in full uses [`print_operation_with`].
pub fn set_default_elision(elision: Elision) {
    let raw = |limit: Option<u64>| limit.unwrap_or(u64::MAX);
    ELIDE_ELEMENTS.store(raw(elision.elements_larger_than), Ordering::Relaxed);
    ELIDE_RESOURCE_STRINGS.store(raw(elision.resource_strings_larger_than), Ordering::Relaxed);
}

/// The elision [`print_operation`] applies (none unless [`set_default_elision`] set one).
pub fn default_elision() -> Elision {
    let limit = |raw: u64| (raw != u64::MAX).then_some(raw);
    Elision {
        elements_larger_than: limit(ELIDE_ELEMENTS.load(Ordering::Relaxed)),
        resource_strings_larger_than: limit(ELIDE_RESOURCE_STRINGS.load(Ordering::Relaxed)),
    }
}

/// How one value prints.
#[derive(Clone, Copy)]
enum ValueName {
    Unnamed,
    /// `%argN`
    Argument(u32),
    /// `%N`, or `%N#i` when its op has several results.
    Numbered {
        id: u32,
        index: u32,
        group: bool,
    },
    /// A name an op suggested (`%c0_i32`), made unique: an index into `name_strings`.
    Named(u32),
}

pub(crate) struct Printer<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) options: PrintOptions,
    pub(crate) out: String,
    names: Vec<ValueName>,
    name_strings: Vec<String>,
    /// Each numbered block's position in its region, by block slot (`u32::MAX`: none), so
    /// naming a block is O(1) however many blocks its region has.
    block_numbers: Vec<u32>,
    pub(crate) attrs: AttrWriter<'a>,
    /// Resource entries printed longer than this are left out.
    elide_resource_strings: Option<u64>,
    /// Dialects whose ops print without prefix, one entry per open op region.
    default_dialects: Vec<&'static str>,
}

/// Writes types and attributes. It remembers the resource blobs they use and, unless the
/// output is local-scope, names affine maps and sets with `#map`/`#set` aliases in order of
/// first appearance, as mlir-opt does.
pub(crate) struct AttrWriter<'a> {
    ctx: &'a Context,
    resources: Vec<String>,
    aliases: Option<Aliases>,
    /// Non-splat dense elements with more elements than this print elided.
    elide_elements: Option<u64>,
}

#[derive(Default)]
struct Aliases {
    names: rustc_hash::FxHashMap<Attr, String>,
    /// Aliased attributes in order of first appearance.
    order: Vec<Attr>,
    maps: u32,
    sets: u32,
}

impl<'a> AttrWriter<'a> {
    fn new(ctx: &'a Context, use_aliases: bool) -> AttrWriter<'a> {
        AttrWriter {
            ctx,
            resources: Vec::new(),
            aliases: use_aliases.then(Aliases::default),
            elide_elements: None,
        }
    }

    /// The alias of `attr` (allocating one on first use), if it gets one.
    fn alias(&mut self, attr: Attr) -> Option<String> {
        let aliases = self.aliases.as_mut()?;
        if let Some(name) = aliases.names.get(&attr) {
            return Some(name.clone());
        }
        let (prefix, counter) = match self.ctx.attr_kind(attr) {
            AttrKind::AffineMap(_) => ("map", &mut aliases.maps),
            AttrKind::IntegerSet(_) => ("set", &mut aliases.sets),
            _ => return None,
        };
        let name = if *counter == 0 {
            format!("#{prefix}")
        } else {
            format!("#{prefix}{counter}")
        };
        *counter += 1;
        aliases.names.insert(attr, name.clone());
        aliases.order.push(attr);
        Some(name)
    }

    /// `#map = affine_map<...>` lines, maps before sets, each in numbering order.
    fn alias_definitions(&self) -> String {
        let Some(aliases) = &self.aliases else {
            return String::new();
        };
        let mut out = String::new();
        for want_map in [true, false] {
            for &attr in &aliases.order {
                let (is_map, body) = match self.ctx.attr_kind(attr) {
                    AttrKind::AffineMap(m) => (true, format!("affine_map<{m}>")),
                    AttrKind::IntegerSet(s) => (false, format!("affine_set<{s}>")),
                    _ => continue,
                };
                if is_map == want_map {
                    let _ = writeln!(out, "{} = {body}", aliases.names[&attr]);
                }
            }
        }
        out
    }
}

/// Prints `op` (usually the top-level module) and the resource trailer, eliding what the
/// process-wide default says ([`set_default_elision`]; nothing unless a tool set it).
pub fn print_operation(ctx: &Context, op: OpId, options: PrintOptions) -> String {
    print_operation_with(ctx, op, options, default_elision())
}

/// [`print_operation`] with an explicit elision ([`Elision::NONE`] prints everything).
pub fn print_operation_with(
    ctx: &Context,
    op: OpId,
    options: PrintOptions,
    elision: Elision,
) -> String {
    let mut attrs = AttrWriter::new(ctx, !options.local_scope);
    attrs.elide_elements = elision.elements_larger_than;
    let mut p = Printer {
        ctx,
        options,
        out: String::with_capacity(1 << 16),
        names: vec![ValueName::Unnamed; ctx.values.slot_bound()],
        name_strings: Vec::new(),
        block_numbers: vec![u32::MAX; ctx.blocks.slot_bound()],
        attrs,
        elide_resource_strings: elision.resource_strings_larger_than,
        default_dialects: Vec::new(),
    };
    p.number_values(op);
    p.print_op(op, 0);
    p.out.push('\n');
    p.print_resources();
    // mlir-opt ends its output with an empty line; so do we, so outputs diff cleanly.
    p.out.push('\n');
    let definitions = p.attrs.alias_definitions();
    if definitions.is_empty() {
        p.out
    } else {
        definitions + &p.out
    }
}

pub fn type_to_string(ctx: &Context, ty: Type) -> String {
    let mut s = String::new();
    write_type(&mut AttrWriter::new(ctx, false), ty, &mut s);
    s
}

pub fn attr_to_string(ctx: &Context, attr: Attr) -> String {
    let mut s = String::new();
    write_attr(&mut AttrWriter::new(ctx, false), attr, &mut s);
    s
}

/// `loc(...)` for a location.
pub fn print_location_inline(ctx: &Context, loc: Location, out: &mut String) {
    out.push_str("loc(");
    write_location_body(&mut AttrWriter::new(ctx, false), loc, out);
    out.push(')');
}

/// A region waiting to be numbered, with the counters of its enclosing scope.
struct NumberingScope {
    region: RegionId,
    next_value: u32,
    next_arg: u32,
    next_conflict: u32,
    used_len: usize,
}

fn base_or(suggested: &[Option<String>]) -> &str {
    suggested.first().and_then(|s| s.as_deref()).unwrap_or("v")
}

/// Keeps the characters MLIR allows in value names; others become `_`.
fn sanitize_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `name`, or `name_N` with the next free conflict number, as MLIR uniques names.
fn unique_name(
    name: &str,
    used: &mut rustc_hash::FxHashSet<String>,
    next_conflict: &mut u32,
) -> String {
    let mut candidate = name.to_string();
    while used.contains(&candidate) {
        candidate = format!("{name}_{}", *next_conflict);
        *next_conflict += 1;
    }
    used.insert(candidate.clone());
    candidate
}

impl Printer<'_> {
    // ---- naming ----

    /// Numbers values like MLIR: a region's block arguments and results first, then its
    /// nested regions, last-pushed first. In custom mode sibling regions restart from the
    /// counters of their parent; in generic mode counters keep running.
    fn number_values(&mut self, root: OpId) {
        // A root op printed on its own (--no-implicit-module) may have results: they come first.
        let root_results = &self.ctx.op(root).results;
        let group = root_results.len() > 1;
        for (index, &r) in root_results.iter().enumerate() {
            self.names[self.ctx.values.slot(r.0)] = ValueName::Numbered {
                id: 0,
                index: index as u32,
                group,
            };
        }
        let first = u32::from(!root_results.is_empty());
        // Names ops suggest are unique within their region and the regions around it;
        // `used` is a stack of the names in scope, truncated when a scope closes.
        let mut used: Vec<String> = Vec::new();
        let mut used_set: rustc_hash::FxHashSet<String> = Default::default();
        let mut stack: Vec<NumberingScope> = self
            .ctx
            .op(root)
            .regions
            .iter()
            .map(|&region| NumberingScope {
                region,
                next_value: first,
                next_arg: 0,
                next_conflict: 0,
                used_len: 0,
            })
            .collect();
        let (mut next_value, mut next_arg, mut next_conflict) = (first, 0u32, 0u32);
        while let Some(scope) = stack.pop() {
            if !self.options.generic {
                next_value = scope.next_value;
                next_arg = scope.next_arg;
                next_conflict = scope.next_conflict;
                for name in used.drain(scope.used_len..) {
                    used_set.remove(&name);
                }
            }
            let region = scope.region;
            for (i, &block) in self.ctx.region(region).blocks.iter().enumerate() {
                self.block_numbers[self.ctx.blocks.slot(block.0)] = i as u32;
                for &arg in &self.ctx.block(block).args {
                    self.names[self.ctx.values.slot(arg.0)] = if i == 0 {
                        next_arg += 1;
                        ValueName::Argument(next_arg - 1)
                    } else {
                        next_value += 1;
                        ValueName::Numbered {
                            id: next_value - 1,
                            index: 0,
                            group: false,
                        }
                    };
                }
                for op in self.ctx.block_ops(block) {
                    let results = &self.ctx.op(op).results;
                    if results.is_empty() {
                        continue;
                    }
                    if !self.options.generic
                        && let Some(suggest) = self.ctx.op_info_of(op).and_then(|i| i.result_names)
                    {
                        let suggested = suggest(self.ctx, op);
                        if suggested.first().is_some_and(|s| s.is_some()) {
                            // A name per result makes each its own group (`%sin, %cos`);
                            // one name is shared as `%name#i` (`%name:2 = ...`).
                            let separate = results.len() > 1
                                && suggested.len() == results.len()
                                && suggested.iter().all(Option::is_some);
                            let shared = (!separate).then(|| {
                                unique_name(
                                    &sanitize_name(base_or(&suggested)),
                                    &mut used_set,
                                    &mut next_conflict,
                                )
                            });
                            for (index, &r) in results.iter().enumerate() {
                                let name = match &shared {
                                    Some(base) if results.len() > 1 => format!("{base}#{index}"),
                                    Some(base) => base.clone(),
                                    None => unique_name(
                                        &sanitize_name(suggested[index].as_deref().unwrap_or("")),
                                        &mut used_set,
                                        &mut next_conflict,
                                    ),
                                };
                                used.push(name.clone());
                                self.names[self.ctx.values.slot(r.0)] =
                                    ValueName::Named(self.name_strings.len() as u32);
                                self.name_strings.push(name);
                            }
                            continue;
                        }
                    }
                    let group = results.len() > 1;
                    for (index, &r) in results.iter().enumerate() {
                        self.names[self.ctx.values.slot(r.0)] = ValueName::Numbered {
                            id: next_value,
                            index: index as u32,
                            group,
                        };
                    }
                    next_value += 1;
                }
            }
            for &block in &self.ctx.region(region).blocks {
                for op in self.ctx.block_ops(block) {
                    for &r in &self.ctx.op(op).regions {
                        stack.push(NumberingScope {
                            region: r,
                            next_value,
                            next_arg,
                            next_conflict,
                            used_len: used.len(),
                        });
                    }
                }
            }
        }
    }

    pub(crate) fn write_value(&mut self, v: Value) {
        match self
            .names
            .get(self.ctx.values.slot(v.0))
            .copied()
            .unwrap_or(ValueName::Unnamed)
        {
            ValueName::Argument(n) => {
                let _ = write!(self.out, "%arg{n}");
            }
            ValueName::Numbered { id, index, group } => {
                let _ = write!(self.out, "%{id}");
                if group {
                    let _ = write!(self.out, "#{index}");
                }
            }
            ValueName::Named(i) => {
                self.out.push('%');
                self.out.push_str(&self.name_strings[i as usize]);
            }
            // A value defined outside what is printed (or a placeholder).
            ValueName::Unnamed => self.out.push_str("<<UNKNOWN SSA VALUE>>"),
        }
    }

    // ---- operations ----

    fn indent(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push(' ');
        }
    }

    fn print_op(&mut self, op: OpId, indent: usize) {
        self.indent(indent);
        let data = self.ctx.op(op);
        if let Some(&first) = data.results.first() {
            let count = data.results.len();
            match self.names[self.ctx.values.slot(first.0)] {
                ValueName::Numbered { id, .. } if count > 1 => {
                    let _ = write!(self.out, "%{id}:{count}");
                }
                ValueName::Numbered { id, .. } => {
                    let _ = write!(self.out, "%{id}");
                }
                ValueName::Named(i) if count > 1 => {
                    match self.name_strings[i as usize].strip_suffix("#0") {
                        Some(group) => {
                            let _ = write!(self.out, "%{group}:{count}");
                        }
                        None => {
                            for (k, &r) in data.results.iter().enumerate() {
                                if k > 0 {
                                    self.out.push_str(", ");
                                }
                                self.write_value(r);
                            }
                        }
                    }
                }
                _ => self.write_value(first),
            }
            self.out.push_str(" = ");
        }
        let name = self.ctx.op_name_str(data.name);
        // The custom form needs the one body block a verified module has.
        let well_formed_module =
            data.regions.len() == 1 && self.ctx.region(data.regions[0]).blocks.len() == 1;
        let assembly = self.ctx.op_info_of(op).and_then(|i| i.assembly.as_ref());
        if !self.options.generic && name == builtin::MODULE && well_formed_module {
            self.print_module_custom(op, indent);
        } else if !self.options.generic
            && let Some(assembly) = assembly
        {
            self.print_custom(op, indent, assembly.clone());
        } else {
            self.print_generic(op, indent);
        }
        if self.options.debug_info {
            self.out.push(' ');
            print_location_inline(self.ctx, self.ctx.op(op).loc, &mut self.out);
        }
    }

    fn print_generic(&mut self, op: OpId, indent: usize) {
        let ctx = self.ctx;
        let data = ctx.op(op);
        escape_into(&mut self.out, ctx.op_name_str(data.name).as_bytes());
        self.out.push('(');
        for (i, &v) in data.operands.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.write_value(v);
        }
        self.out.push(')');
        if !data.successors.is_empty() {
            self.out.push('[');
            for (i, &b) in data.successors.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.write_block_name(b);
            }
            self.out.push(']');
        }
        if let Some(props) = data.properties {
            // mlir-opt prints properties in full, never through aliases.
            self.out.push_str(" <");
            let aliases = self.attrs.aliases.take();
            self.write_attr(props);
            self.attrs.aliases = aliases;
            self.out.push('>');
        }
        if !data.regions.is_empty() {
            self.out.push_str(" (");
            let default_dialect = ctx.op_info_of(op).and_then(|i| i.default_dialect);
            self.default_dialects.push(default_dialect.unwrap_or(""));
            for (i, &r) in data.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(r, indent, true, true);
            }
            self.default_dialects.pop();
            self.out.push(')');
        }
        if !ctx.dictionary_entries(data.attributes).is_empty() {
            self.out.push(' ');
            self.write_attr(data.attributes);
        }
        self.out.push_str(" : (");
        for (i, &v) in data.operands.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            write_type(&mut self.attrs, ctx.value_type(v), &mut self.out);
        }
        self.out.push_str(") -> ");
        let results: Vec<Type> = data.results.iter().map(|&v| ctx.value_type(v)).collect();
        write_result_types(&mut self.attrs, &results, &mut self.out);
    }

    /// `module @name attributes {...} {` body `}`
    fn print_module_custom(&mut self, op: OpId, indent: usize) {
        let ctx = self.ctx;
        let data = ctx.op(op);
        // Inside an op with a default dialect (a function body), the short name would be read
        // as that dialect's op (`func.module`), so MLIR spells the prefix out there.
        match self.default_dialects.last() {
            Some(d) if !d.is_empty() && *d != "builtin" => self.out.push_str("builtin.module"),
            _ => self.out.push_str("module"),
        }
        let sym_name = ctx.op_inherent_or_attr(op, "sym_name");
        if let Some(name) = sym_name.and_then(|a| ctx.attr_as_str(a)) {
            self.out.push_str(" @");
            write_symbol_name(name, &mut self.out);
        }
        let mut rest: Vec<(String, Attr)> = Vec::new();
        for dict in data.properties.into_iter().chain([data.attributes]) {
            for (k, v) in ctx.dictionary_entries(dict) {
                if k != "sym_name" || ctx.attr_as_str(*v).is_none() {
                    rest.push((k.clone(), *v));
                }
            }
        }
        if !rest.is_empty() {
            rest.sort_by(|a, b| a.0.cmp(&b.0));
            self.out.push_str(" attributes ");
            self.write_dictionary(&rest);
        }
        self.out.push(' ');
        let region = data.regions[0];
        self.default_dialects.push("");
        self.print_region(region, indent, true, false);
        self.default_dialects.pop();
    }

    pub(crate) fn push_default_dialect(&mut self, dialect: &'static str) {
        self.default_dialects.push(dialect);
    }

    pub(crate) fn pop_default_dialect(&mut self) {
        self.default_dialects.pop();
    }

    /// An op with registered custom assembly; its name loses the prefix of the default
    /// dialect in force.
    fn print_custom(&mut self, op: OpId, indent: usize, assembly: crate::registry::Assembly) {
        let info = self
            .ctx
            .op_info_of(op)
            .expect("custom assembly implies registration");
        let name = info.name;
        let default_dialect = info.default_dialect;
        match (self.default_dialects.last(), name.split_once('.')) {
            (Some(d), Some((dialect, rest))) if !d.is_empty() && *d == dialect => {
                self.out.push_str(rest)
            }
            _ => self.out.push_str(name),
        }
        let mut printer = crate::asm::OpAsmPrinter {
            p: self,
            indent,
            default_dialect,
        };
        match assembly {
            crate::registry::Assembly::Format(format) => {
                crate::asm::print_with_format(&mut printer, &format, op)
            }
            crate::registry::Assembly::Custom { print, .. } => print(&mut printer, op),
        }
    }

    /// `{` blocks `}`; the entry block's header only when it has arguments (and
    /// `print_entry_args`) or no ops (and `print_empty_block`).
    pub(crate) fn print_region(
        &mut self,
        region: RegionId,
        indent: usize,
        print_entry_args: bool,
        print_empty_block: bool,
    ) {
        self.print_region_eliding(region, indent, print_entry_args, print_empty_block, None);
    }

    /// [`Printer::print_region`], leaving out a block's last op when it is an operand-free
    /// op named `elided_terminator` (one the op's parser inserts implicitly).
    pub(crate) fn print_region_eliding(
        &mut self,
        region: RegionId,
        indent: usize,
        print_entry_args: bool,
        print_empty_block: bool,
        elided_terminator: Option<&str>,
    ) {
        self.out.push_str("{\n");
        let blocks = &self.ctx.region(region).blocks;
        let predecessors = self.predecessor_numbers(region);
        for (i, &block) in blocks.iter().enumerate() {
            let data = self.ctx.block(block);
            let show_args = !data.args.is_empty() && (i > 0 || print_entry_args);
            let header = i > 0 || show_args || (data.first.is_none() && print_empty_block);
            if header {
                self.indent(indent);
                self.write_block_name(block);
                if show_args {
                    self.out.push('(');
                    for (j, &arg) in data.args.iter().enumerate() {
                        if j > 0 {
                            self.out.push_str(", ");
                        }
                        self.write_value(arg);
                        self.out.push_str(": ");
                        write_type(&mut self.attrs, self.ctx.value_type(arg), &mut self.out);
                        if self.options.debug_info
                            && let Some(loc) = self.ctx.value(arg).loc
                        {
                            self.out.push(' ');
                            print_location_inline(self.ctx, loc, &mut self.out);
                        }
                    }
                    self.out.push(')');
                }
                self.out.push(':');
                if i > 0 {
                    self.write_predecessor_comment(&predecessors[i]);
                }
                self.out.push('\n');
            }
            for op in self.ctx.block_ops(block) {
                if Some(op) == data.last
                    && elided_terminator == Some(self.ctx.op_name(op))
                    && self.ctx.op(op).operands.is_empty()
                {
                    continue;
                }
                self.print_op(op, indent + 2);
                self.out.push('\n');
            }
        }
        self.indent(indent);
        self.out.push('}');
    }

    /// For each block of `region`, the positions of the blocks branching to it, once per
    /// branch, in block order: one pass over the region's terminators.
    fn predecessor_numbers(&self, region: RegionId) -> Vec<Vec<u32>> {
        let blocks = &self.ctx.region(region).blocks;
        let mut preds = vec![Vec::new(); blocks.len()];
        for (i, &b) in blocks.iter().enumerate() {
            let Some(term) = self.ctx.block(b).last else {
                continue;
            };
            for &succ in &self.ctx.op(term).successors {
                if self.ctx.block(succ).parent == Some(region)
                    && let Some(at) = self.block_number(succ)
                {
                    preds[at as usize].push(i as u32);
                }
            }
        }
        preds
    }

    /// `  // pred: ^bb0` or `  // 2 preds: ^bb0, ^bb1`, as MLIR annotates block headers.
    fn write_predecessor_comment(&mut self, preds: &[u32]) {
        match preds {
            [] => self.out.push_str("  // no predecessors"),
            [one] => {
                let _ = write!(self.out, "  // pred: ^bb{one}");
            }
            _ => {
                let _ = write!(self.out, "  // {} preds: ", preds.len());
                for (k, i) in preds.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    let _ = write!(self.out, "^bb{i}");
                }
            }
        }
    }

    /// The position of `block` in its region: from the numbering of the printed ops, or
    /// found in its region for a block outside them.
    fn block_number(&self, block: BlockId) -> Option<u32> {
        let slot = self.ctx.blocks.slot(block.0);
        match self.block_numbers.get(slot) {
            Some(&n) if n != u32::MAX => Some(n),
            _ => {
                let region = self.ctx.block(block).parent?;
                let blocks = &self.ctx.region(region).blocks;
                blocks.iter().position(|&b| b == block).map(|i| i as u32)
            }
        }
    }

    pub(crate) fn write_block_name(&mut self, block: BlockId) {
        match self.block_number(block) {
            Some(i) => {
                let _ = write!(self.out, "^bb{i}");
            }
            None => self.out.push_str("^INVALIDBLOCK"),
        }
    }

    pub(crate) fn write_attr(&mut self, attr: Attr) {
        write_attr(&mut self.attrs, attr, &mut self.out);
    }

    pub(crate) fn write_dictionary(&mut self, entries: &[(String, Attr)]) {
        write_dictionary(&mut self.attrs, entries, &mut self.out);
    }

    fn print_resources(&mut self) {
        // Each entry as `key: value`, without the ones elision leaves out.
        let fits = |value: &str| {
            self.elide_resource_strings
                .is_none_or(|limit| value.len() as u64 <= limit)
        };
        let entry = |key: &str, value: String| {
            let mut e = String::from("      ");
            write_resource_handle(key, &mut e);
            e.push_str(": ");
            e.push_str(&value);
            e
        };
        let blobs: Vec<String> = self
            .attrs
            .resources
            .iter()
            .filter_map(|h| self.ctx.resources.get(h).map(|b| (h, b)))
            .filter_map(|(handle, blob)| {
                let mut value = String::from("\"0x");
                for b in blob.alignment.to_le_bytes().iter().chain(&blob.data) {
                    let _ = write!(value, "{b:02X}");
                }
                value.push('"');
                fits(&value).then(|| entry(handle, value))
            })
            .collect();
        let external: Vec<String> = self
            .ctx
            .external_resources
            .iter()
            .filter_map(|(group, entries)| {
                let items: Vec<String> = entries
                    .iter()
                    .filter_map(|(key, value)| {
                        let text = match value {
                            ExternalResourceValue::Bool(b) => b.to_string(),
                            ExternalResourceValue::String(bytes) => {
                                let mut quoted = String::new();
                                escape_into(&mut quoted, bytes);
                                quoted
                            }
                        };
                        fits(&text).then(|| entry(key, text))
                    })
                    .collect();
                if items.is_empty() {
                    return None;
                }
                let mut g = String::from("    ");
                write_resource_handle(group, &mut g);
                g.push_str(": {\n");
                g.push_str(&items.join(",\n"));
                g.push_str("\n    }");
                Some(g)
            })
            .collect();
        let mut sections = Vec::new();
        if !blobs.is_empty() {
            sections.push(format!(
                "  dialect_resources: {{\n    builtin: {{\n{}\n    }}\n  }}",
                blobs.join(",\n")
            ));
        }
        if !external.is_empty() {
            sections.push(format!(
                "  external_resources: {{\n{}\n  }}",
                external.join(",\n")
            ));
        }
        if sections.is_empty() {
            return;
        }
        self.out.push_str("\n{-#\n");
        self.out.push_str(&sections.join(",\n"));
        self.out.push_str("\n#-}\n");
    }
}

fn write_resource_handle(handle: &str, out: &mut String) {
    if is_bare_identifier(handle) {
        out.push_str(handle);
    } else {
        escape_into(out, handle.as_bytes());
    }
}

pub(crate) fn write_symbol_name(name: &str, out: &mut String) {
    if is_bare_identifier(name) {
        out.push_str(name);
    } else {
        escape_into(out, name.as_bytes());
    }
}

// ---- types ----

pub(crate) fn write_result_types(w: &mut AttrWriter, results: &[Type], out: &mut String) {
    let ctx = w.ctx;
    let single_plain =
        results.len() == 1 && !matches!(ctx.type_kind(results[0]), TypeKind::Function { .. });
    if single_plain {
        write_type(w, results[0], out);
    } else {
        out.push('(');
        write_type_list(w, results, out);
        out.push(')');
    }
}

fn write_type_list(w: &mut AttrWriter, types: &[Type], out: &mut String) {
    for (i, &t) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_type(w, t, out);
    }
}

fn write_shape(shape: &[i64], scalable: Option<&[bool]>, out: &mut String) {
    for (i, &d) in shape.iter().enumerate() {
        let is_scalable = scalable.is_some_and(|s| s[i]);
        if is_scalable {
            out.push('[');
        }
        if d == DYNAMIC {
            out.push('?');
        } else {
            let _ = write!(out, "{d}");
        }
        if is_scalable {
            out.push(']');
        }
        out.push('x');
    }
}

pub(crate) fn write_type(w: &mut AttrWriter, ty: Type, out: &mut String) {
    let ctx = w.ctx;
    match ctx.type_kind(ty) {
        TypeKind::Integer { width, signedness } => {
            let prefix = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            let _ = write!(out, "{prefix}{width}");
        }
        TypeKind::Index => out.push_str("index"),
        TypeKind::Float(kind) => out.push_str(kind.keyword()),
        TypeKind::None => out.push_str("none"),
        TypeKind::Complex(e) => {
            out.push_str("complex<");
            write_type(w, *e, out);
            out.push('>');
        }
        TypeKind::Tuple(elems) => {
            out.push_str("tuple<");
            write_type_list(w, elems, out);
            out.push('>');
        }
        TypeKind::Function { inputs, results } => {
            out.push('(');
            write_type_list(w, inputs, out);
            out.push_str(") -> ");
            write_result_types(w, results, out);
        }
        TypeKind::RankedTensor {
            shape,
            element,
            encoding,
        } => {
            out.push_str("tensor<");
            write_shape(shape, None, out);
            write_type(w, *element, out);
            if let Some(enc) = encoding {
                out.push_str(", ");
                write_attr(w, *enc, out);
            }
            out.push('>');
        }
        TypeKind::UnrankedTensor { element } => {
            out.push_str("tensor<*x");
            write_type(w, *element, out);
            out.push('>');
        }
        TypeKind::MemRef {
            shape,
            element,
            layout,
            memory_space,
        } => {
            out.push_str("memref<");
            write_shape(shape, None, out);
            write_type(w, *element, out);
            if let Some(layout) = layout {
                out.push_str(", ");
                write_attr(w, *layout, out);
            }
            if let Some(space) = memory_space {
                out.push_str(", ");
                write_memory_space(w, *space, out);
            }
            out.push('>');
        }
        TypeKind::UnrankedMemRef {
            element,
            memory_space,
        } => {
            out.push_str("memref<*x");
            write_type(w, *element, out);
            if let Some(space) = memory_space {
                out.push_str(", ");
                write_memory_space(w, *space, out);
            }
            out.push('>');
        }
        TypeKind::Vector {
            shape,
            scalable,
            element,
        } => {
            out.push_str("vector<");
            write_shape(shape, Some(scalable), out);
            write_type(w, *element, out);
            out.push('>');
        }
        TypeKind::Dialect(value) => value.write(out),
        TypeKind::Opaque { dialect, body } => {
            out.push('!');
            out.push_str(dialect);
            if !body.starts_with('<') {
                out.push('.');
            }
            out.push_str(body);
        }
    }
}

/// Memory spaces print integers without their `i64` type, as MLIR does.
fn write_memory_space(w: &mut AttrWriter, space: Attr, out: &mut String) {
    let ctx = w.ctx;
    if let AttrKind::Integer { value, ty } = ctx.attr_kind(space)
        && matches!(
            ctx.type_kind(*ty),
            TypeKind::Integer {
                width: 64,
                signedness: Signedness::Signless
            }
        )
    {
        let _ = write!(out, "{value}");
        return;
    }
    write_attr(w, space, out);
}

// ---- attributes ----

fn write_dictionary(w: &mut AttrWriter, entries: &[(String, Attr)], out: &mut String) {
    let ctx = w.ctx;
    out.push('{');
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if is_bare_identifier(key) {
            out.push_str(key);
        } else {
            escape_into(out, key.as_bytes());
        }
        if !matches!(ctx.attr_kind(*value), AttrKind::Unit) {
            out.push_str(" = ");
            write_attr(w, *value, out);
        }
    }
    out.push('}');
}

fn write_int_value(ctx: &Context, value: i128, ty: Type, out: &mut String) {
    if matches!(
        ctx.type_kind(ty),
        TypeKind::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    ) {
        out.push_str(if value != 0 { "true" } else { "false" });
    } else {
        let _ = write!(out, "{value}");
    }
}

pub(crate) fn write_attr(w: &mut AttrWriter, attr: Attr, out: &mut String) {
    let ctx = w.ctx;
    if let Some(alias) = w.alias(attr) {
        out.push_str(&alias);
        return;
    }
    match ctx.attr_kind(attr) {
        AttrKind::Unit => out.push_str("unit"),
        AttrKind::Integer { value, ty } => {
            write_int_value(ctx, *value, *ty, out);
            if !matches!(
                ctx.type_kind(*ty),
                TypeKind::Integer {
                    width: 1,
                    signedness: Signedness::Signless
                }
            ) {
                out.push_str(" : ");
                write_type(w, *ty, out);
            }
        }
        AttrKind::Float { bits, ty } => {
            let TypeKind::Float(kind) = *ctx.type_kind(*ty) else {
                unreachable!("float attributes have float types")
            };
            out.push_str(&float::format_bits(kind, *bits));
            out.push_str(" : ");
            write_type(w, *ty, out);
        }
        AttrKind::String { value, ty } => {
            escape_into(out, value);
            // `none` is a string's default type and goes unsaid.
            if let Some(ty) = ty.filter(|&t| !matches!(ctx.type_kind(t), TypeKind::None)) {
                out.push_str(" : ");
                write_type(w, ty, out);
            }
        }
        AttrKind::Array(elems) => {
            out.push('[');
            for (i, &e) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                // Inside arrays MLIR leaves out the default `i64` and `f64` types.
                match ctx.attr_kind(e) {
                    AttrKind::Integer { value, ty }
                        if matches!(
                            ctx.type_kind(*ty),
                            TypeKind::Integer {
                                width: 64,
                                signedness: Signedness::Signless
                            }
                        ) =>
                    {
                        let _ = write!(out, "{value}");
                    }
                    AttrKind::Float { bits, ty }
                        if matches!(ctx.type_kind(*ty), TypeKind::Float(FloatKind::F64))
                            && !float::format_bits(FloatKind::F64, *bits).starts_with("0x") =>
                    {
                        out.push_str(&float::format_bits(FloatKind::F64, *bits));
                    }
                    _ => write_attr(w, e, out),
                }
            }
            out.push(']');
        }
        AttrKind::Dictionary(entries) => write_dictionary(w, entries, out),
        AttrKind::Type(ty) => write_type(w, *ty, out),
        AttrKind::SymbolRef { root, nested } => {
            out.push('@');
            write_symbol_name(root, out);
            for n in nested {
                out.push_str("::@");
                write_symbol_name(n, out);
            }
        }
        AttrKind::DenseElements { ty, data }
            if !data.splat
                && w.elide_elements
                    .is_some_and(|limit| data.elements.len() as u64 > limit) =>
        {
            // What MLIR prints for an elided elements attribute; it parses back as a
            // resource without data.
            out.push_str("dense_resource<__elided__> : ");
            write_type(w, *ty, out);
        }
        AttrKind::DenseElements { ty, data } => {
            out.push_str("dense<");
            write_dense(w, *ty, data, out);
            out.push_str("> : ");
            write_type(w, *ty, out);
        }
        AttrKind::DenseResource { handle, ty } => {
            out.push_str("dense_resource<");
            write_resource_handle(handle, out);
            out.push_str("> : ");
            write_type(w, *ty, out);
            if !w.resources.contains(handle) {
                w.resources.push(handle.clone());
            }
        }
        AttrKind::DenseArray { element, data } => {
            out.push_str("array<");
            write_type(w, *element, out);
            match data {
                DenseArrayData::Int(values) => {
                    for (i, v) in values.iter().enumerate() {
                        out.push_str(if i == 0 { ": " } else { ", " });
                        write_int_value(ctx, *v, *element, out);
                    }
                }
                DenseArrayData::Float(values) => {
                    let TypeKind::Float(kind) = *ctx.type_kind(*element) else {
                        unreachable!("float arrays have float elements")
                    };
                    for (i, b) in values.iter().enumerate() {
                        out.push_str(if i == 0 { ": " } else { ", " });
                        out.push_str(&float::format_bits(kind, *b));
                    }
                }
            }
            out.push('>');
        }
        AttrKind::AffineMap(map) => {
            let _ = write!(out, "affine_map<{map}>");
        }
        AttrKind::IntegerSet(set) => {
            let _ = write!(out, "affine_set<{set}>");
        }
        AttrKind::Strided { strides, offset } => {
            out.push_str("strided<[");
            for (i, &s) in strides.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_dynamic(s, out);
            }
            out.push(']');
            if *offset != 0 {
                out.push_str(", offset: ");
                write_dynamic(*offset, out);
            }
            out.push('>');
        }
        AttrKind::Location(_) => print_location_inline(ctx, attr, out),
        AttrKind::Dialect(value) => value.write(out),
        AttrKind::Opaque { dialect, body, ty } => {
            out.push('#');
            out.push_str(dialect);
            if !body.starts_with('<') {
                out.push('.');
            }
            out.push_str(body);
            if let Some(ty) = ty {
                out.push_str(" : ");
                write_type(w, *ty, out);
            }
        }
        AttrKind::WideInteger {
            negative,
            magnitude,
            ty,
        } => {
            let _ = write!(out, "{}{magnitude} : ", if *negative { "-" } else { "" });
            write_type(w, *ty, out);
        }
        AttrKind::DenseStrings { ty, splat, values } => {
            out.push_str("dense<");
            write_dense_strings(w, *ty, *splat, values, out);
            out.push_str("> : ");
            write_type(w, *ty, out);
        }
        AttrKind::Sparse {
            ty,
            index_shape,
            indices,
            values,
        } => {
            out.push_str("sparse<");
            if let Some(values) = values {
                // Indices that are all equal print as a splat, as MLIR prints them.
                // Only one index prints as a splat: several equal indices would read back as
                // one. (No index at all — one non-zero of a 0-d tensor — prints as `[[]]`.)
                let one_index = index_shape.is_empty() || index_shape[0] == 1;
                if !indices.is_empty() && one_index && indices.iter().all(|&i| i == indices[0]) {
                    let _ = write!(out, "{}", indices[0]);
                } else {
                    let elements: Vec<DenseElement> = indices
                        .iter()
                        .map(|&i| DenseElement::Int(i as i128))
                        .collect();
                    let mut index = 0;
                    let write_index = |e: &DenseElement, out: &mut String| {
                        if let DenseElement::Int(v) = e {
                            let _ = write!(out, "{v}");
                        }
                    };
                    write_nested(index_shape, &elements, &mut index, out, &write_index);
                }
                out.push_str(", ");
                match ctx.attr_kind(*values) {
                    AttrKind::DenseElements { ty, data } => write_dense(w, *ty, data, out),
                    AttrKind::DenseStrings { ty, splat, values } => {
                        write_dense_strings(w, *ty, *splat, values, out)
                    }
                    _ => unreachable!("sparse values are dense attributes"),
                }
            }
            out.push_str("> : ");
            write_type(w, *ty, out);
        }
        AttrKind::Distinct { id, inner } => {
            let _ = write!(out, "distinct[{id}]<");
            write_attr(w, *inner, out);
            out.push('>');
        }
    }
}

fn write_dynamic(v: i64, out: &mut String) {
    if v == DYNAMIC {
        out.push('?');
    } else {
        let _ = write!(out, "{v}");
    }
}

/// The body of `dense<...>`: a splat value, nested lists, or hex when some float
/// element has no exact decimal form.
fn write_dense(w: &mut AttrWriter, ty: Type, data: &DenseData, out: &mut String) {
    let ctx = w.ctx;
    let kind = ctx.type_kind(ty);
    let shape = kind.shape().unwrap_or(&[]).to_vec();
    let element = kind.element().expect("dense attributes have shaped types");
    let float_kind = match ctx.type_kind(element) {
        TypeKind::Float(k) => Some(*k),
        TypeKind::Complex(inner) => match ctx.type_kind(*inner) {
            TypeKind::Float(k) => Some(*k),
            _ => None,
        },
        _ => None,
    };
    if data.elements.is_empty() {
        return;
    }
    // Like MLIR, large non-splat data prints as raw little-endian hex.
    if !data.splat && data.elements.len() > 100 {
        write_dense_hex(w, element, &data.elements, out);
        return;
    }
    let write_elem = |e: &DenseElement, out: &mut String| match *e {
        DenseElement::Int(v) => write_int_value(ctx, v, element, out),
        DenseElement::Float(b) => {
            out.push_str(&float::format_bits(float_kind.expect("float element"), b))
        }
        DenseElement::ComplexInt(a, b) => {
            let _ = write!(out, "({a},{b})");
        }
        DenseElement::ComplexFloat(a, b) => {
            let fk = float_kind.expect("complex float element");
            let _ = write!(
                out,
                "({},{})",
                float::format_bits(fk, a),
                float::format_bits(fk, b)
            );
        }
    };
    if data.splat || data.elements.len() == 1 {
        write_elem(&data.elements[0], out);
        return;
    }
    let mut index = 0;
    write_nested(&shape, &data.elements, &mut index, out, &write_elem);
}

/// `"0x..."`: each element's bytes little-endian (complex: real then imaginary); booleans
/// are packed eight to a byte, least significant bit first.
fn write_dense_hex(w: &mut AttrWriter, element: Type, elements: &[DenseElement], out: &mut String) {
    let ctx = w.ctx;
    let mut bytes: Vec<u8> = Vec::new();
    let part_width = |ty: Type| match *ctx.type_kind(ty) {
        TypeKind::Integer { width, .. } => width,
        TypeKind::Index => 64,
        TypeKind::Float(k) => k.width(),
        _ => 64,
    };
    if matches!(ctx.type_kind(element), TypeKind::Integer { width: 1, .. }) {
        bytes.resize(elements.len().div_ceil(8), 0);
        for (i, e) in elements.iter().enumerate() {
            if matches!(e, DenseElement::Int(v) if *v != 0) {
                bytes[i / 8] |= 1 << (i % 8);
            }
        }
    } else {
        let width = match ctx.type_kind(element) {
            TypeKind::Complex(inner) => part_width(*inner),
            _ => part_width(element),
        };
        let size = (width as usize).div_ceil(8);
        let mut push = |v: u128| bytes.extend((0..size).map(|i| (v >> (8 * i)) as u8));
        for e in elements {
            match *e {
                DenseElement::Int(v) => push(v as u128),
                DenseElement::Float(b) => push(b),
                DenseElement::ComplexInt(a, b) => {
                    push(a as u128);
                    push(b as u128);
                }
                DenseElement::ComplexFloat(a, b) => {
                    push(a);
                    push(b);
                }
            }
        }
    }
    out.push_str("\"0x");
    for b in bytes {
        let _ = write!(out, "{b:02X}");
    }
    out.push('"');
}

fn write_dense_strings(
    w: &mut AttrWriter,
    ty: Type,
    splat: bool,
    values: &[Vec<u8>],
    out: &mut String,
) {
    let ctx = w.ctx;
    let shape = ctx.type_kind(ty).shape().unwrap_or(&[]).to_vec();
    if values.is_empty() {
        return;
    }
    if splat || values.len() == 1 {
        escape_into(out, &values[0]);
        return;
    }
    let elements: Vec<DenseElement> = (0..values.len())
        .map(|i| DenseElement::Int(i as i128))
        .collect();
    let write_string = |e: &DenseElement, out: &mut String| {
        if let DenseElement::Int(i) = e {
            escape_into(out, &values[*i as usize]);
        }
    };
    let mut index = 0;
    write_nested(&shape, &elements, &mut index, out, &write_string);
}

fn write_nested(
    shape: &[i64],
    elements: &[DenseElement],
    index: &mut usize,
    out: &mut String,
    write_elem: &dyn Fn(&DenseElement, &mut String),
) {
    out.push('[');
    for i in 0..shape[0] {
        if i > 0 {
            out.push_str(", ");
        }
        if shape.len() == 1 {
            write_elem(&elements[*index], out);
            *index += 1;
        } else {
            write_nested(&shape[1..], elements, index, out, write_elem);
        }
    }
    out.push(']');
}

// ---- locations ----

fn write_location_body(w: &mut AttrWriter, loc: Location, out: &mut String) {
    let ctx = w.ctx;
    let Some(kind) = ctx.location_kind(loc) else {
        out.push_str("unknown");
        return;
    };
    match kind {
        LocationKind::Unknown => out.push_str("unknown"),
        LocationKind::FileLineCol {
            file,
            line,
            col,
            end,
        } => {
            escape_into(out, file.as_bytes());
            let _ = write!(out, ":{line}:{col}");
            if let Some((end_line, end_col)) = end {
                if end_line == line {
                    let _ = write!(out, " to :{end_col}");
                } else {
                    let _ = write!(out, " to {end_line}:{end_col}");
                }
            }
        }
        LocationKind::Name { name, child } => {
            escape_into(out, name.as_bytes());
            if let Some(child) = child
                && !matches!(ctx.location_kind(*child), Some(LocationKind::Unknown))
            {
                out.push('(');
                write_location_body(w, *child, out);
                out.push(')');
            }
        }
        LocationKind::CallSite { callee, caller } => {
            out.push_str("callsite(");
            write_location_body(w, *callee, out);
            out.push_str(" at ");
            write_location_body(w, *caller, out);
            out.push(')');
        }
        LocationKind::Fused {
            locations,
            metadata,
        } => {
            out.push_str("fused");
            if let Some(m) = metadata {
                out.push('<');
                write_attr(w, *m, out);
                out.push('>');
            }
            out.push('[');
            for (i, &l) in locations.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_location_body(w, l, out);
            }
            out.push(']');
        }
    }
}

/// Values with an unknown definition site print as placeholders; this tells whether
/// a value is one (used by the verifier to report unresolved forward references).
pub fn is_placeholder(ctx: &Context, v: Value) -> bool {
    matches!(ctx.value(v).def, ValueDef::Placeholder)
}
