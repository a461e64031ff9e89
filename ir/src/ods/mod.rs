//! Declarative op definitions: an [`OpDef`] names an op's operands, results, attributes
//! and regions with their constraints, its traits, hooks and custom assembly format. A
//! dialect writes one `const` per op; registration turns it into an [`OpInfo`] whose
//! verifier and assembly are shared, non-generic code driven by the definition.

pub mod constraint;
pub mod kinds;
mod verify;

use std::sync::Arc;

pub use constraint::{AttrConstraint, TypeConstraint};
pub use kinds::OpKind;
pub use verify::verify_op;

use crate::asm::{CustomParseFn, CustomPrintFn, Format};
use crate::attributes::{Attr, AttrKind, DenseArrayData};
use crate::context::Context;
use crate::operation::OpId;
use crate::registry::{
    Assembly, CanonicalizeFn, FoldFn, InferTypesFn, OpInfo, OpTraits, ResultNamesFn, VerifyFn,
};
use crate::value::Value;

/// How many values an operand or result group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Single,
    Optional,
    Variadic,
}

/// A named operand or result group.
#[derive(Clone, Copy)]
pub struct ArgDef {
    pub name: &'static str,
    pub constraint: TypeConstraint,
    pub arity: Arity,
}

/// How an attribute is spelled where the assembly format names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrSyntax {
    /// The attribute as MLIR writes any attribute (typed values with `: type`).
    Plain,
    /// As `Plain`, with the attribute's constraint checked as soon as it is read, as MLIR's
    /// generated parsers check an attribute's storage kind ('invalid kind of attribute
    /// specified'), before the rest of the op is read. For constraints that are exactly a
    /// kind of attribute (a flat symbol reference, a string, ...).
    PlainOfKind,
    /// A string attribute written as a symbol name (`@f`).
    SymbolName,
    /// An `i64` integer attribute written as one of these keywords (its index).
    Enum(&'static [&'static str]),
    /// A dialect attribute `#dialect.mnemonic<body>` written without its prefix (`<body>`).
    Stripped(&'static str),
    /// A bit-flag attribute written without its prefix (`<nnan,ninf>`), kept canonical.
    BitEnum(&'static BitEnum),
}

/// A bit-flag enum attribute `#dialect.mnemonic<flag, ...>` (MLIR's `BitEnumAttr`). Its
/// canonical spelling lists the set flags in bit order; the empty set and, if named, the
/// full set have names of their own (`none`, `fast`).
#[derive(Debug, PartialEq, Eq)]
pub struct BitEnum {
    /// `dialect.mnemonic`
    pub attr: &'static str,
    /// Flag names, lowest bit first.
    pub flags: &'static [&'static str],
    pub none: &'static str,
    pub all: Option<&'static str>,
    /// What goes between flags when printed (MLIR differs per enum: `,` or `, `).
    pub separator: &'static str,
}

impl BitEnum {
    /// The mask `words` name, or the first word that names nothing.
    pub fn mask<'w>(&self, words: impl IntoIterator<Item = &'w str>) -> Result<u64, &'w str> {
        let full = (1u64 << self.flags.len()) - 1;
        let mut mask = 0;
        for word in words {
            mask |= if word == self.none {
                0
            } else if Some(word) == self.all {
                full
            } else {
                let bit = self.flags.iter().position(|f| *f == word).ok_or(word)?;
                1 << bit
            };
        }
        Ok(mask)
    }

    /// The canonical spelling of `mask`, without the angle brackets.
    pub fn spell(&self, mask: u64) -> String {
        let full = (1u64 << self.flags.len()) - 1;
        match (mask, self.all) {
            (0, _) => self.none.to_string(),
            (m, Some(all)) if m == full => all.to_string(),
            _ => self
                .flags
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, f)| *f)
                .collect::<Vec<_>>()
                .join(self.separator),
        }
    }

    /// The canonical form of an attribute body `mnemonic<words>` as written.
    pub fn canonical_body(&self, body: &str) -> Option<String> {
        let mnemonic = self.attr.split_once('.').map_or(self.attr, |(_, m)| m);
        let words = body
            .strip_prefix(mnemonic)?
            .strip_prefix('<')?
            .strip_suffix('>')?;
        let mask = self.mask(words.split(',').map(str::trim)).ok()?;
        Some(format!("{mnemonic}<{}>", self.spell(mask)))
    }
}

/// A named attribute of the op's definition (printed as a property).
#[derive(Clone, Copy)]
pub struct AttrDef {
    pub name: &'static str,
    pub constraint: AttrConstraint,
    pub optional: bool,
    /// The value a missing attribute takes, in MLIR syntax; printing leaves it out.
    pub default: Option<&'static str>,
    /// Whether parsing and building store the default when the attribute is missing
    /// (MLIR's `DefaultValuedAttr`) or leave it absent (`DefaultValuedOptionalAttr`).
    pub store_default: bool,
    pub syntax: AttrSyntax,
}

/// A named region.
#[derive(Clone, Copy)]
pub struct RegionDef {
    pub name: &'static str,
    pub single_block: bool,
    /// Any number of regions (zero included) of this kind; only the last region may be.
    pub variadic: bool,
}

pub const fn operand(name: &'static str, constraint: TypeConstraint) -> ArgDef {
    ArgDef {
        name,
        constraint,
        arity: Arity::Single,
    }
}

pub const fn variadic(name: &'static str, constraint: TypeConstraint) -> ArgDef {
    ArgDef {
        name,
        constraint,
        arity: Arity::Variadic,
    }
}

pub const fn optional(name: &'static str, constraint: TypeConstraint) -> ArgDef {
    ArgDef {
        name,
        constraint,
        arity: Arity::Optional,
    }
}

pub const fn attr(name: &'static str, constraint: AttrConstraint) -> AttrDef {
    AttrDef {
        name,
        constraint,
        optional: false,
        default: None,
        store_default: false,
        syntax: AttrSyntax::Plain,
    }
}

pub const fn optional_attr(name: &'static str, constraint: AttrConstraint) -> AttrDef {
    AttrDef {
        name,
        constraint,
        optional: true,
        default: None,
        store_default: false,
        syntax: AttrSyntax::Plain,
    }
}

impl AttrDef {
    pub const fn with_default(mut self, default: &'static str) -> AttrDef {
        self.default = Some(default);
        self.optional = true;
        self.store_default = true;
        self
    }

    /// A default that printing leaves out but that is never stored for a missing value.
    pub const fn with_optional_default(mut self, default: &'static str) -> AttrDef {
        self.default = Some(default);
        self.optional = true;
        self.store_default = false;
        self
    }

    pub const fn with_syntax(mut self, syntax: AttrSyntax) -> AttrDef {
        self.syntax = syntax;
        self
    }
}

pub const fn region(name: &'static str) -> RegionDef {
    RegionDef {
        name,
        single_block: false,
        variadic: false,
    }
}

pub const fn single_block_region(name: &'static str) -> RegionDef {
    RegionDef {
        name,
        single_block: true,
        variadic: false,
    }
}

/// Any number of single-block regions, last in the op's region list (`VariadicRegion<SizedRegion<1>>`).
pub const fn variadic_single_block_regions(name: &'static str) -> RegionDef {
    RegionDef {
        name,
        single_block: true,
        variadic: true,
    }
}

/// Everything a dialect declares about one op.
#[derive(Clone, Copy)]
pub struct OpDef {
    pub name: &'static str,
    pub summary: &'static str,
    pub operands: &'static [ArgDef],
    pub results: &'static [ArgDef],
    pub attributes: &'static [AttrDef],
    pub regions: &'static [RegionDef],
    pub traits: OpTraits,
    /// Operands and results all have one type.
    pub same_operands_and_result_type: bool,
    /// MLIR's `SameTypeOperands`: every operand has the first operand's type.
    pub same_type_operands: bool,
    /// Groups of operand/result names whose types must be equal.
    pub all_types_match: &'static [&'static [&'static str]],
    /// Several optional or variadic operand groups: sizes live in `operandSegmentSizes`.
    pub attr_sized_operand_segments: bool,
    /// MLIR's declarative assembly format (`$lhs `,` $rhs attr-dict `:` type($result)`).
    pub format: Option<&'static str>,
    /// Hand-written assembly, where no format can express it.
    pub custom_assembly: Option<(CustomParseFn, CustomPrintFn)>,
    /// Ops of this dialect print without prefix inside this op's regions.
    pub default_dialect: Option<&'static str>,
    pub verify: Option<VerifyFn>,
    /// Checks of the symbols the op refers to (MLIR's `verifySymbolUses`): they run once
    /// every op, dominance included, has been verified.
    pub verify_symbol_uses: Option<VerifyFn>,
    pub fold: Option<FoldFn>,
    pub canonicalize: Option<CanonicalizeFn>,
    pub infer_types: Option<InferTypesFn>,
    pub result_names: Option<ResultNamesFn>,
}

impl OpDef {
    /// A definition with nothing declared; spell ops as `OpDef { name, .., ..OpDef::EMPTY }`.
    pub const EMPTY: OpDef = OpDef {
        name: "",
        summary: "",
        operands: &[],
        results: &[],
        attributes: &[],
        regions: &[],
        traits: OpTraits {
            isolated_from_above: false,
            terminator: false,
            no_terminator: false,
            single_block: false,
            graph_regions: false,
            symbol_table: false,
            pure: false,
            removable_if_unused: false,
            automatic_allocation_scope: false,
            constant_like: false,
            commutative: false,
            function_like: false,
        },
        same_operands_and_result_type: false,
        same_type_operands: false,
        all_types_match: &[],
        attr_sized_operand_segments: false,
        format: None,
        custom_assembly: None,
        default_dialect: None,
        verify: None,
        verify_symbol_uses: None,
        fold: None,
        canonicalize: None,
        infer_types: None,
        result_names: None,
    };

    pub fn attribute(&self, name: &str) -> Option<&AttrDef> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

/// Traits of a pure op (no side effects).
pub const PURE: OpTraits = OpTraits {
    pure: true,
    ..OpDef::EMPTY.traits
};

/// Names of the inherent attributes of `def`, leaked once per definition so that
/// [`OpInfo::inherent_attrs`] can stay a static slice.
fn inherent_names(def: &'static OpDef) -> &'static [&'static str] {
    let mut names: Vec<&'static str> = def.attributes.iter().map(|a| a.name).collect();
    if def.attr_sized_operand_segments {
        names.push("operandSegmentSizes");
    }
    Box::leak(names.into_boxed_slice())
}

impl Context {
    /// Registers the op `def` describes. A malformed assembly format is a bug in the
    /// dialect; it is reported here, at registration, with the offending directive.
    pub fn register_op_def(&mut self, def: &'static OpDef) -> Result<(), String> {
        let assembly = match (def.format, def.custom_assembly) {
            (Some(_), Some(_)) => {
                return Err(format!(
                    "'{}' declares both a format and custom assembly",
                    def.name
                ));
            }
            (Some(text), None) => Some(Assembly::Format(Arc::new(Format::parse(def, text)?))),
            (None, Some((parse, print))) => Some(Assembly::Custom { parse, print }),
            (None, None) => None,
        };
        self.register_op(OpInfo {
            name: def.name,
            traits: def.traits,
            inherent_attrs: inherent_names(def),
            verify: def.verify,
            fold: def.fold,
            canonicalize: def.canonicalize,
            assembly,
            infer_types: def.infer_types,
            result_names: def.result_names,
            def: Some(def),
            default_dialect: def.default_dialect,
        });
        Ok(())
    }
}

/// The values of operand group `index` of `op`, by its definition.
pub fn operand_group(ctx: &Context, op: OpId, index: usize) -> &[Value] {
    let operands = &ctx.op(op).operands;
    let Some(def) = ctx.op_info_of(op).and_then(|i| i.def) else {
        return &operands[index.min(operands.len())..index.min(operands.len())];
    };
    let sizes = group_sizes(ctx, op, def.operands, operands.len(), true);
    let start: usize = sizes[..index].iter().sum();
    let end = (start + sizes[index]).min(operands.len());
    &operands[start.min(end)..end]
}

/// The single value of the operand named `name` (panics on a name the definition lacks:
/// that is a bug in the dialect, not in the input).
pub fn operand_named(ctx: &Context, op: OpId, name: &str) -> Value {
    let def = ctx
        .op_info_of(op)
        .and_then(|i| i.def)
        .expect("operand_named on an op without definition");
    let index = def
        .operands
        .iter()
        .position(|a| a.name == name)
        .unwrap_or_else(|| panic!("'{}' has no operand '{name}'", def.name));
    operand_group(ctx, op, index)[0]
}

/// How many values each group of `groups` holds, for `total` values. With operand
/// segments the sizes come from `operandSegmentSizes`; otherwise one variadic or optional
/// group takes what the single groups leave.
pub fn group_sizes(
    ctx: &Context,
    op: OpId,
    groups: &[ArgDef],
    total: usize,
    operands: bool,
) -> Vec<usize> {
    if operands
        && let Some(def) = ctx.op_info_of(op).and_then(|i| i.def)
        && def.attr_sized_operand_segments
        && let Some(sizes) = segment_sizes(ctx, op)
    {
        return sizes;
    }
    let fixed = groups.iter().filter(|g| g.arity == Arity::Single).count();
    let rest = total.saturating_sub(fixed);
    groups
        .iter()
        .map(|g| match g.arity {
            Arity::Single => 1,
            _ => rest,
        })
        .collect()
}

/// The `operandSegmentSizes` property as sizes.
pub fn segment_sizes(ctx: &Context, op: OpId) -> Option<Vec<usize>> {
    let attr = ctx.op_inherent_or_attr(op, "operandSegmentSizes")?;
    match ctx.attr_kind(attr) {
        AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        } => Some(values.iter().map(|&v| v.max(0) as usize).collect()),
        _ => None,
    }
}

/// The constant an attribute-typed property holds, for folders (`value` of constants).
pub fn attr_named(ctx: &Context, op: OpId, name: &str) -> Option<Attr> {
    ctx.op_inherent_or_attr(op, name)
}

/// The attribute a default-value text names, parsed once per context.
pub fn default_value(ctx: &mut Context, text: &'static str) -> Attr {
    if let Some(&attr) = ctx.parsed_defaults.get(text) {
        return attr;
    }
    let attr = crate::parser::parse_attribute_text(ctx, text).unwrap_or_else(|d| {
        panic!(
            "bad default value '{text}' in a dialect definition: {}",
            d.message
        )
    });
    ctx.parsed_defaults.insert(text, attr);
    attr
}

/// Fills in the default-valued attributes `op` lacks (for ops built through the API).
pub fn fill_defaults(ctx: &mut Context, op: OpId) {
    let Some(def) = ctx.op_info_of(op).and_then(|i| i.def) else {
        return;
    };
    let mut props: Vec<(String, Attr)> = ctx
        .op(op)
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    let before = props.len();
    for attr in def.attributes {
        if let Some(text) = attr.default
            && attr.store_default
            && !props.iter().any(|(k, _)| k == attr.name)
        {
            let value = default_value(ctx, text);
            props.push((attr.name.to_string(), value));
        }
    }
    if props.len() != before {
        let dict = ctx.dictionary_attr(props);
        ctx.op_mut(op).properties = Some(dict);
    }
}
