//! The printer API that custom op syntax is written against: values, types, attributes,
//! attribute dictionaries and regions, numbered and aliased as the rest of the output.

use crate::attributes::{Attr, AttrKind};
use crate::context::Context;
use crate::operation::OpId;
use crate::printer::{
    Printer, print_location_inline, write_result_types, write_symbol_name, write_type,
};
use crate::region::RegionId;
use crate::types::Type;
use crate::value::Value;

pub struct OpAsmPrinter<'p, 'a> {
    pub(crate) p: &'p mut Printer<'a>,
    /// Indentation of the op being printed.
    pub(crate) indent: usize,
    /// The op's own default dialect, in force inside its regions.
    pub(crate) default_dialect: Option<&'static str>,
}

impl<'a> OpAsmPrinter<'_, 'a> {
    pub fn ctx(&self) -> &'a Context {
        self.p.ctx
    }

    pub fn out(&mut self) -> &mut String {
        &mut self.p.out
    }

    pub fn print_str(&mut self, text: &str) {
        self.p.out.push_str(text);
    }

    pub fn print_value(&mut self, v: Value) {
        self.p.write_value(v);
    }

    /// `%a, %b`
    pub fn print_values(&mut self, values: &[Value]) {
        for (i, &v) in values.iter().enumerate() {
            if i > 0 {
                self.p.out.push_str(", ");
            }
            self.p.write_value(v);
        }
    }

    /// A line break, then the op's indentation plus `extra` spaces (for ops that lay out
    /// lists over several lines, as `cf.switch` does).
    pub fn print_newline(&mut self, extra: usize) {
        self.p.out.push('\n');
        let width = self.indent + extra;
        self.p.out.extend(std::iter::repeat_n(' ', width));
    }

    /// A successor block's name (`^bb1`).
    pub fn print_successor(&mut self, block: crate::BlockId) {
        self.p.write_block_name(block);
    }

    pub fn print_type(&mut self, ty: Type) {
        write_type(&mut self.p.attrs, ty, &mut self.p.out);
    }

    /// `T1, T2`
    pub fn print_types(&mut self, types: &[Type]) {
        for (i, &t) in types.iter().enumerate() {
            if i > 0 {
                self.p.out.push_str(", ");
            }
            self.print_type(t);
        }
    }

    /// A result type list as written after `->`: one plain type bare, else `(T1, T2)`.
    pub fn print_result_types(&mut self, types: &[Type]) {
        write_result_types(&mut self.p.attrs, types, &mut self.p.out);
    }

    /// `(T1, T2) -> R`
    pub fn print_functional_type(&mut self, inputs: &[Type], results: &[Type]) {
        self.p.out.push('(');
        self.print_types(inputs);
        self.p.out.push_str(") -> ");
        self.print_result_types(results);
    }

    pub fn print_attr(&mut self, attr: Attr) {
        self.p.write_attr(attr);
    }

    /// An elements attribute without its `: type`, for ops that spell the type elsewhere.
    pub fn print_attr_without_type(&mut self, attr: Attr) {
        let ty = match self.p.ctx.attr_kind(attr) {
            AttrKind::DenseElements { ty, .. }
            | AttrKind::DenseResource { ty, .. }
            | AttrKind::DenseStrings { ty, .. }
            | AttrKind::Sparse { ty, .. } => Some(*ty),
            _ => None,
        };
        let start = self.p.out.len();
        self.p.write_attr(attr);
        if let Some(ty) = ty {
            let mut suffix = String::from(" : ");
            write_type(&mut self.p.attrs, ty, &mut suffix);
            if self.p.out[start..].ends_with(&suffix) {
                let end = self.p.out.len() - suffix.len();
                self.p.out.truncate(end);
            }
        }
    }

    /// `@name`
    pub fn print_symbol_name(&mut self, name: &str) {
        self.p.out.push('@');
        write_symbol_name(name, &mut self.p.out);
    }

    /// ` {a = 1, b}` with the op's properties and attributes, leaving out `elided` names
    /// and nothing at all when nothing is left.
    pub fn print_optional_attr_dict(&mut self, op: OpId, elided: &[&str], keyword: bool) {
        let entries = self.remaining_attrs(op, elided);
        if entries.is_empty() {
            return;
        }
        self.p.out.push(' ');
        if keyword {
            self.p.out.push_str("attributes ");
        }
        self.p.write_dictionary(&entries);
    }

    /// The op's properties and attributes minus `elided` and defaulted ones, by name.
    pub fn remaining_attrs(&self, op: OpId, elided: &[&str]) -> Vec<(String, Attr)> {
        let ctx = self.p.ctx;
        let data = ctx.op(op);
        let def = ctx.op_info_of(op).and_then(|i| i.def);
        let mut entries: Vec<(String, Attr)> = Vec::new();
        for dict in data.properties.into_iter().chain([data.attributes]) {
            for (k, v) in ctx.dictionary_entries(dict) {
                if elided.contains(&k.as_str()) || k == "operandSegmentSizes" {
                    continue;
                }
                let is_default = def
                    .and_then(|d| d.attribute(k))
                    .and_then(|a| a.default)
                    .is_some_and(|text| attr_matches_text(ctx, *v, text));
                if !is_default {
                    entries.push((k.clone(), *v));
                }
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries
    }

    /// `{ ... }` of `region`, indented under the op, with the entry block's arguments
    /// when `print_entry_args` (a signature that declared them prints none).
    pub fn print_region(
        &mut self,
        region: RegionId,
        print_entry_args: bool,
        print_empty_block: bool,
    ) {
        let default = self.default_dialect.unwrap_or("");
        self.p.push_default_dialect(default);
        self.p
            .print_region(region, self.indent, print_entry_args, print_empty_block);
        self.p.pop_default_dialect();
    }

    /// [`OpAsmPrinter::print_region`] leaving out operand-free `terminator` ops that end a
    /// block, for ops whose parser inserts them (MLIR's `printBlockTerminators = false`).
    pub fn print_region_eliding_terminator(
        &mut self,
        region: RegionId,
        print_entry_args: bool,
        terminator: &str,
    ) {
        let default = self.default_dialect.unwrap_or("");
        self.p.push_default_dialect(default);
        self.p.print_region_eliding(
            region,
            self.indent,
            print_entry_args,
            false,
            Some(terminator),
        );
        self.p.pop_default_dialect();
    }

    /// `%arg0: i32 {attrs}` with its location in debug-info mode, for signatures.
    pub fn print_argument_declaration(&mut self, v: Value, attrs: Option<Attr>) {
        self.p.write_value(v);
        self.p.out.push_str(": ");
        let ty = self.p.ctx.value_type(v);
        self.print_type(ty);
        if let Some(dict) = attrs {
            self.p.out.push(' ');
            self.print_attr(dict);
        }
        if self.p.options.debug_info
            && let Some(loc) = self.p.ctx.value(v).loc
        {
            self.p.out.push(' ');
            print_location_inline(self.p.ctx, loc, &mut self.p.out);
        }
    }

    /// `%i`, with ` loc(...)` in debug-info mode: a region argument declared without its
    /// type (an induction variable), as [`OpAsmParser::parse_untyped_region_argument`]
    /// reads it.
    ///
    /// [`OpAsmParser::parse_untyped_region_argument`]: crate::asm::OpAsmParser::parse_untyped_region_argument
    pub fn print_untyped_region_argument(&mut self, v: Value) {
        self.p.write_value(v);
        if self.p.options.debug_info
            && let Some(loc) = self.p.ctx.value(v).loc
        {
            self.p.out.push(' ');
            print_location_inline(self.p.ctx, loc, &mut self.p.out);
        }
    }

    /// Whether `--mlir-print-debuginfo` is on.
    pub fn debug_info(&self) -> bool {
        self.p.options.debug_info
    }
}

/// Whether `attr` prints as `text` (used to leave default-valued attributes out).
pub(crate) fn attr_matches_text(ctx: &Context, attr: Attr, text: &str) -> bool {
    match ctx.attr_kind(attr) {
        AttrKind::Opaque { dialect, body, .. } => {
            text.strip_prefix('#')
                .and_then(|t| t.strip_prefix(dialect.as_str()))
                .and_then(|t| t.strip_prefix('.'))
                == Some(body.as_str())
        }
        _ => crate::printer::attr_to_string(ctx, attr) == text,
    }
}
