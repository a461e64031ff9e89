//! Parsing an op's custom form by interpreting its declarative [`Format`]: operands,
//! attributes, regions and types as the format spells them, then result and operand
//! types completed from type-equality traits and type inference.

use super::format::{Element, Format, TypeRef};
use super::parser::{OpAsmParser, OperationParseState, UnresolvedOperand};
use crate::attributes::{AttrKind, DenseArrayData};
use crate::lexer::TokenKind;
use crate::ods::{Arity, AttrSyntax, OpDef};
use crate::parser::PResult;
use crate::registry::InferInput;
use crate::types::Type;

/// What the elements produced, before types are complete.
struct Parsed {
    operands: Vec<Vec<UnresolvedOperand>>,
    operand_types: Vec<Option<Vec<Type>>>,
    result_types: Vec<Option<Vec<Type>>>,
    /// From `operands` / `type(operands)`: every operand, across groups.
    flat_operands: Option<Vec<UnresolvedOperand>>,
    flat_operand_types: Option<Vec<Type>>,
    flat_result_types: Option<Vec<Type>>,
}

pub fn parse_with_format(
    p: &mut OpAsmParser,
    format: &Format,
    state: &mut OperationParseState,
) -> PResult<()> {
    let name = p.op_name();
    let def: &'static OpDef = p
        .ctx()
        .op_info(name)
        .and_then(|i| i.def)
        .expect("formats belong to defined ops");
    let mut parsed = Parsed {
        operands: def.operands.iter().map(|_| Vec::new()).collect(),
        operand_types: vec![None; def.operands.len()],
        result_types: vec![None; def.results.len()],
        flat_operands: None,
        flat_operand_types: None,
        flat_result_types: None,
    };
    let mut regions = vec![None; def.regions.len()];
    parse_elements(p, def, &format.elements, &mut parsed, state, &mut regions)?;
    state.regions.extend(regions.into_iter().flatten());
    complete_types(p, def, parsed, state)
}

fn parse_elements(
    p: &mut OpAsmParser,
    def: &'static OpDef,
    elements: &[Element],
    parsed: &mut Parsed,
    state: &mut OperationParseState,
    regions: &mut [Option<crate::RegionId>],
) -> PResult<()> {
    for element in elements {
        match element {
            Element::Literal(l) if l.is_empty() || l == " " => {}
            Element::Literal(l) => p.parse_literal(l)?,
            Element::Operand(i) => {
                parsed.operands[*i] = match def.operands[*i].arity {
                    Arity::Single => vec![p.parse_operand()?],
                    Arity::Optional => p.parse_optional_operand()?.into_iter().collect(),
                    Arity::Variadic => p.parse_operand_list()?,
                };
            }
            Element::Operands => parsed.flat_operands = Some(p.parse_operand_list()?),
            Element::Attr(i) => {
                let attr_def = &def.attributes[*i];
                let at = p.offset();
                let value = parse_attr(p, attr_def.name, attr_def.syntax)?;
                if attr_def.syntax == AttrSyntax::PlainOfKind
                    && !(attr_def.constraint.check)(p.ctx(), value)
                {
                    return p.error_at(at, "invalid kind of attribute specified");
                }
                state.add_attr(attr_def.name, value);
            }
            Element::Region(i) => {
                let region = p.new_region();
                p.parse_region(region, Vec::new())?;
                regions[*i] = Some(region);
            }
            Element::Regions => {
                for slot in regions.iter_mut() {
                    let region = p.new_region();
                    p.parse_region(region, Vec::new())?;
                    *slot = Some(region);
                    if !p.parse_optional_literal(",") {
                        break;
                    }
                }
            }
            Element::AttrDict { keyword } => {
                let entries = if *keyword {
                    p.parse_optional_attr_dict_with_keyword()?
                } else {
                    p.parse_optional_attr_dict()?
                };
                for (k, v) in entries {
                    state.add_attr(&k, v);
                }
            }
            Element::Type(r) => parse_type_ref(p, def, *r, parsed, false)?,
            Element::FunctionalType(a, b) => {
                parse_type_ref(p, def, *a, parsed, true)?;
                p.parse_literal("->")?;
                let results = p.parse_function_result_types()?;
                assign_types(def, *b, results, parsed);
            }
            Element::Optional {
                then, otherwise, ..
            } => {
                if group_present(p, def, then) {
                    parse_elements(p, def, then, parsed, state, regions)?;
                } else {
                    parse_elements(p, def, otherwise, parsed, state, regions)?;
                }
            }
        }
    }
    Ok(())
}

/// Whether an optional group starting with `first` is written here.
fn group_present(p: &OpAsmParser, def: &OpDef, elements: &[Element]) -> bool {
    // Empty literals only control spacing; the group starts at what follows them.
    let Some(first) = elements
        .iter()
        .find(|e| !matches!(e, Element::Literal(l) if l.is_empty() || l == " "))
    else {
        return false;
    };
    match first {
        Element::Literal(l) => p.peek_literal(l),
        Element::Operand(_) | Element::Operands => p.peek_operand(),
        Element::Region(_) | Element::Regions => p.peek_is(TokenKind::LBrace),
        Element::Type(_) | Element::FunctionalType(..) => p.type_follows(),
        Element::Attr(i) => match def.attributes[*i].syntax {
            AttrSyntax::Enum(words) => words.iter().any(|w| p.peek_literal(w)),
            AttrSyntax::Stripped(_) | AttrSyntax::BitEnum(_) => p.peek_is(TokenKind::Less),
            AttrSyntax::SymbolName => p.peek_is(TokenKind::AtIdent),
            AttrSyntax::Plain | AttrSyntax::PlainOfKind => [
                TokenKind::Integer,
                TokenKind::Float,
                TokenKind::String,
                TokenKind::LSquare,
                TokenKind::HashIdent,
                TokenKind::AtIdent,
                TokenKind::Minus,
            ]
            .iter()
            .any(|&k| p.peek_is(k)),
        },
        Element::AttrDict { .. } | Element::Optional { .. } => false,
    }
}

fn parse_attr(p: &mut OpAsmParser, name: &str, syntax: AttrSyntax) -> PResult<crate::Attr> {
    match syntax {
        AttrSyntax::Plain | AttrSyntax::PlainOfKind => p.parse_attribute(),
        AttrSyntax::SymbolName => {
            let name = p.parse_symbol_name()?;
            Ok(p.ctx().string_attr(&name))
        }
        AttrSyntax::Enum(words) => {
            // A keyword or a string naming one of the cases; MLIR reports anything else,
            // an unknown case included, with one message.
            let at = p.offset();
            let word = match p.parse_optional_keyword_ident() {
                Some(word) => Some(word),
                None if p.peek_is(TokenKind::String) => Some(p.parse_string("a string")?),
                None => None,
            };
            let Some(index) = word.and_then(|word| words.iter().position(|w| *w == word)) else {
                return p.error_at(
                    at,
                    format!(
                        "expected string or keyword containing one of the following enum values for attribute '{name}' [{}]",
                        words.join(", ")
                    ),
                );
            };
            let i64_ty = p.ctx().i64();
            Ok(p.ctx().integer_attr(index as i128, i64_ty))
        }
        AttrSyntax::BitEnum(flags) => {
            let (dialect, mnemonic) = flags.attr.split_once('.').unwrap_or(("", flags.attr));
            let at = p.offset();
            p.parse_literal("<")?;
            let mut mask = 0;
            loop {
                let at = p.offset();
                let word = p.parse_keyword_ident("a keyword")?;
                mask |= match flags.mask([word.as_str()]) {
                    Ok(m) => m,
                    Err(_) => {
                        let mut names = vec![flags.none];
                        names.extend(flags.flags);
                        names.extend(flags.all);
                        return p.error_at(
                            at,
                            format!(
                                "expected #{} flags to be one of: {}",
                                flags.attr,
                                names.join(", ")
                            ),
                        );
                    }
                };
                if !p.parse_optional_literal(",") {
                    break;
                }
            }
            p.parse_literal(">")?;
            let body = format!("{mnemonic}<{}>", flags.spell(mask));
            dialect_attr(p, at, dialect, &body)
        }
        AttrSyntax::Stripped(name) => {
            let (dialect, mnemonic) = name.split_once('.').unwrap_or(("", name));
            let at = p.offset();
            p.parse_literal("<")?;
            let mut words = Vec::new();
            loop {
                words.push(p.parse_keyword_ident("a keyword")?);
                if !p.parse_optional_literal(",") {
                    break;
                }
            }
            p.parse_literal(">")?;
            let body = format!("{mnemonic}<{}>", words.join(", "));
            dialect_attr(p, at, dialect, &body)
        }
    }
}

/// `#dialect.body`, typed when the dialect registered it, else opaque; a body the
/// dialect's attribute rejects is an error at `at`.
fn dialect_attr(p: &mut OpAsmParser, at: usize, dialect: &str, body: &str) -> PResult<crate::Attr> {
    match p.ctx().dialect_attr_from_text(dialect, body, None) {
        Ok(attr) => Ok(attr),
        Err(message) => p.error_at(at, message),
    }
}

/// Parses the types a `type(...)` directive (or the inputs of `functional-type`) names.
fn parse_type_ref(
    p: &mut OpAsmParser,
    def: &OpDef,
    r: TypeRef,
    parsed: &mut Parsed,
    parenthesized: bool,
) -> PResult<()> {
    let types = if parenthesized {
        p.parse_paren_type_list()?
    } else {
        let arity = match r {
            TypeRef::Operand(i) => def.operands[i].arity,
            TypeRef::Result(i) => def.results[i].arity,
            TypeRef::Operands | TypeRef::Results => Arity::Variadic,
        };
        match arity {
            Arity::Single => vec![p.parse_type()?],
            Arity::Optional => {
                let present = match r {
                    TypeRef::Operand(i) => !parsed.operands[i].is_empty(),
                    _ => p.type_follows(),
                };
                if present {
                    vec![p.parse_type()?]
                } else {
                    Vec::new()
                }
            }
            Arity::Variadic => p.parse_optional_type_list()?,
        }
    };
    assign_types(def, r, types, parsed);
    Ok(())
}

fn assign_types(def: &OpDef, r: TypeRef, types: Vec<Type>, parsed: &mut Parsed) {
    match r {
        TypeRef::Operand(i) => parsed.operand_types[i] = Some(types),
        TypeRef::Result(i) => parsed.result_types[i] = Some(types),
        TypeRef::Operands => parsed.flat_operand_types = Some(types),
        TypeRef::Results => {
            // With a single result group, the flat list is that group's.
            if def.results.len() == 1 {
                parsed.result_types[0] = Some(types.clone());
            }
            parsed.flat_result_types = Some(types)
        }
    }
}

/// Fills in types the text leaves out, resolves operands and sets the op's operands,
/// result types and operand segment sizes.
fn complete_types(
    p: &mut OpAsmParser,
    def: &OpDef,
    mut parsed: Parsed,
    state: &mut OperationParseState,
) -> PResult<()> {
    let at = p.op_offset();
    let grouped = parsed.flat_operands.is_none();
    // Counted before the groups are emptied into one list below.
    let group_counts: Vec<usize> = parsed.operands.iter().map(|g| g.len()).collect();
    let operand_refs: Vec<UnresolvedOperand> = match parsed.flat_operands.take() {
        Some(flat) => flat,
        None => parsed
            .operands
            .iter_mut()
            .flat_map(std::mem::take)
            .collect(),
    };
    // A group written with no operands needs no types.
    if parsed.flat_operand_types.is_none() && operand_refs.len() == group_counts.iter().sum() {
        for (types, &n) in parsed.operand_types.iter_mut().zip(&group_counts) {
            if n == 0 && types.is_none() {
                *types = Some(Vec::new());
            }
        }
    }
    let mut operand_types: Option<Vec<Type>> = parsed.flat_operand_types.take();
    if operand_types.is_none() {
        operand_types = all_known(&parsed.operand_types);
    }
    let mut result_types: Option<Vec<Type>> = parsed.flat_result_types.take();
    if result_types.is_none() {
        result_types = all_known(&parsed.result_types);
    }

    // Type equality: one known type stands for every operand and result.
    let single_known = parsed
        .operand_types
        .iter()
        .chain(&parsed.result_types)
        .flatten()
        .flatten()
        .next()
        .copied();
    if def.same_operands_and_result_type
        && let Some(ty) = single_known.or_else(|| operand_types.as_ref()?.first().copied())
    {
        operand_types.get_or_insert_with(|| vec![ty; operand_refs.len()]);
        result_types.get_or_insert_with(|| vec![ty; def.results.len()]);
    }
    // `SameTypeOperands`: one known operand type stands for every operand.
    if def.same_type_operands
        && let Some(ty) = parsed
            .operand_types
            .iter()
            .flatten()
            .flatten()
            .next()
            .copied()
    {
        for (i, types) in parsed.operand_types.iter_mut().enumerate() {
            types.get_or_insert_with(|| vec![ty; group_counts[i].max(1)]);
        }
    }
    for names in def.all_types_match {
        let known = names.iter().find_map(|n| named_known(def, &parsed, n));
        if let Some(ty) = known {
            for n in names.iter() {
                if let Some(i) = def.operands.iter().position(|o| o.name == *n) {
                    parsed.operand_types[i].get_or_insert_with(|| vec![ty; group_counts[i].max(1)]);
                }
                if let Some(i) = def.results.iter().position(|o| o.name == *n) {
                    parsed.result_types[i].get_or_insert_with(|| vec![ty]);
                }
            }
        }
    }
    // A buildable constraint (`index`) names the type the text leaves out.
    for (i, group) in def.operands.iter().enumerate() {
        if grouped
            && parsed.operand_types[i].is_none()
            && let Some(build) = group.constraint.buildable
        {
            parsed.operand_types[i] = Some(vec![build(p.ctx()); group_counts[i]]);
        }
    }
    for (i, group) in def.results.iter().enumerate() {
        if def.infer_types.is_none()
            && group.arity == Arity::Single
            && parsed.result_types[i].is_none()
            && let Some(build) = group.constraint.buildable
        {
            parsed.result_types[i] = Some(vec![build(p.ctx())]);
        }
    }
    if operand_types.is_none() {
        operand_types = all_known(&parsed.operand_types);
    }
    if result_types.is_none() {
        result_types = all_known(&parsed.result_types);
    }
    if def.operands.is_empty() {
        operand_types.get_or_insert_with(Vec::new);
    }
    let Some(operand_types) = operand_types else {
        return p.error_at(at, format!("'{}' cannot infer its operand types", def.name));
    };
    let operands = p.resolve_operands(&operand_refs, &operand_types, at)?;
    let result_types = match result_types {
        Some(t) => t,
        None if def.results.is_empty() => Vec::new(),
        None => {
            let Some(infer) = def.infer_types else {
                return p.error_at(at, format!("'{}' cannot infer its result types", def.name));
            };
            let loc = p.location_at(at);
            let input = InferInput {
                operand_types: &operand_types,
                attributes: &state.attributes,
                loc,
            };
            match infer(p.ctx(), &input) {
                Ok(types) => types,
                Err(message) => return p.error_at(at, message),
            }
        }
    };
    if def.attr_sized_operand_segments {
        let sizes: Vec<i128> = group_counts.iter().map(|&n| n as i128).collect();
        let i32_ty = p.ctx().integer_type(32, crate::Signedness::Signless);
        let attr = p.ctx().intern_attr(AttrKind::DenseArray {
            element: i32_ty,
            data: DenseArrayData::Int(sizes),
        });
        state.add_attr("operandSegmentSizes", attr);
    }
    state.operands = operands;
    state.result_types = result_types;
    Ok(())
}

/// Every group's types in order, once every group's are known.
fn all_known(groups: &[Option<Vec<Type>>]) -> Option<Vec<Type>> {
    groups
        .iter()
        .all(|t| t.is_some())
        .then(|| groups.iter().flatten().flatten().copied().collect())
}

fn named_known(def: &OpDef, parsed: &Parsed, name: &str) -> Option<Type> {
    if let Some(i) = def.operands.iter().position(|o| o.name == name) {
        return parsed.operand_types[i].as_ref()?.first().copied();
    }
    let i = def.results.iter().position(|o| o.name == name)?;
    parsed.result_types[i].as_ref()?.first().copied()
}
