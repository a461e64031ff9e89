//! Parsing operations, regions and blocks, and resolving SSA names and block labels.

use rustc_hash::FxHashMap as HashMap;

use smallvec::SmallVec;

use super::{PResult, ParseError, Parser};
use crate::asm::{OpAsmParser, OperationParseState, RegionArgument};
use crate::attributes::AttrKind;
use crate::block::BlockId;
use crate::builtin;
use crate::context::Context;
use crate::lexer::TokenKind;
use crate::operation::{OpId, OperationState};
use crate::region::RegionId;
use crate::registry::Assembly;
use crate::types::{Type, TypeKind};
use crate::value::{Value, ValueDef};

/// A visible SSA name: its values (one per result) and where it was defined.
struct Definition {
    values: SmallVec<[Value; 1]>,
    offset: usize,
}

/// A use of a name not defined yet.
struct ForwardRef {
    placeholder: Value,
    offset: usize,
}

/// Names of one isolated-from-above scope.
#[derive(Default)]
struct IsolatedScope {
    values: HashMap<String, Definition>,
    forward: HashMap<(String, u32), ForwardRef>,
    /// Names defined in each open region, dropped when the region closes.
    region_defs: Vec<Vec<String>>,
}

/// Block labels of one region.
#[derive(Default)]
struct BlockScope {
    blocks: HashMap<String, (BlockId, Option<usize>, usize)>, // (block, defined at, first ref)
}

#[derive(Default)]
pub(crate) struct SsaState {
    scopes: Vec<IsolatedScope>,
    block_scopes: Vec<BlockScope>,
}

impl SsaState {
    pub(crate) fn push_isolated_scope(&mut self) {
        self.scopes.push(IsolatedScope {
            region_defs: vec![Vec::new()],
            ..Default::default()
        });
    }

    /// Closes an isolated scope; any name still unresolved was never defined.
    pub(crate) fn pop_isolated_scope(&mut self, _ctx: &mut Context) -> PResult<()> {
        let scope = self.scopes.pop().expect("balanced scopes");
        if let Some(first) = scope.forward.values().min_by_key(|f| f.offset) {
            return Err(ParseError {
                offset: first.offset,
                message: "use of undeclared SSA value name".into(),
                notes: vec![],
            });
        }
        Ok(())
    }

    fn scope(&mut self) -> &mut IsolatedScope {
        self.scopes.last_mut().expect("an open scope")
    }
}

/// An operand as written: `%name` or `%name#index`.
pub(crate) struct OperandRef {
    pub(crate) name: String,
    pub(crate) index: u32,
    pub(crate) offset: usize,
}

/// A result group as written: `%name` or `%name:count`.
struct ResultGroup {
    name: String,
    count: u32,
    offset: usize,
}

impl<'a> Parser<'a> {
    /// Parses one operation (with its result bindings and trailing location) and
    /// appends nothing: the caller decides where it goes.
    pub(crate) fn parse_operation(&mut self) -> PResult<OpId> {
        let op_start = self.tok.start;
        let mut groups = Vec::new();
        if self.is(TokenKind::PercentIdent) {
            loop {
                let tok = self.expect(TokenKind::PercentIdent, "valid ssa identifier")?;
                let name = self.text(tok)[1..].to_string();
                let mut count = 1;
                if self.consume_if(TokenKind::Colon) {
                    let at = self.tok.start;
                    let n = self.parse_u64("integer number of results")?;
                    if n == 0 || n > u32::MAX as u64 {
                        return self
                            .error_at(at, "expected named operation to have at least 1 result");
                    }
                    count = n as u32;
                }
                groups.push(ResultGroup {
                    name,
                    count,
                    offset: tok.start,
                });
                if !self.consume_if(TokenKind::Comma) {
                    break;
                }
            }
            self.expect(TokenKind::Equal, "'=' after SSA name")?;
        }
        let op = match self.tok.kind {
            TokenKind::String => self.parse_generic_operation()?,
            // MLIR lexes `i32`, `si8`... as integer types, which never name an op.
            TokenKind::BareIdent if !crate::lexer::is_integer_type_keyword(self.text(self.tok)) => {
                self.parse_custom_operation(!groups.is_empty())?
            }
            _ => return self.error("expected operation name in quotes"),
        };
        if let Some(loc) = self.parse_optional_trailing_loc()? {
            self.apply_trailing_loc_to_op(op, loc);
        }
        self.move_inherent_attrs_to_properties(op);
        let results = self.ctx.op(op).results.clone();
        if !groups.is_empty() {
            let wanted: u32 = groups.iter().map(|g| g.count).sum();
            if results.is_empty() {
                return self.error_at(op_start, "cannot name an operation with no results");
            }
            if wanted as usize != results.len() {
                return self.error_at(
                    op_start,
                    format!(
                        "operation defines {} results but was provided {} to bind",
                        results.len(),
                        wanted
                    ),
                );
            }
            let mut next = 0usize;
            for group in groups {
                let values: SmallVec<[Value; 1]> = results[next..next + group.count as usize]
                    .iter()
                    .copied()
                    .collect();
                next += group.count as usize;
                self.define_values(group.name, values, group.offset)?;
            }
        }
        Ok(op)
    }

    /// `"dialect.op"(%a, %b)[^bb1] <{props}> ({...}) {attrs} : (T, T) -> T`
    fn parse_generic_operation(&mut self) -> PResult<OpId> {
        let name_tok = self.tok;
        let name = self.parse_string("operation name")?;
        let loc = self.loc_at(name_tok.start);
        if name.is_empty() {
            return self.error_at(name_tok.start, "empty operation name is invalid");
        }
        if name.contains('\0') {
            return self.error_at(
                name_tok.start,
                "null character not allowed in operation name",
            );
        }
        self.check_op_registered(&name, name_tok.start)?;
        self.expect(TokenKind::LParen, "'(' to start operand list")?;
        let mut operands = Vec::new();
        self.parse_comma_list_until(TokenKind::RParen, |p| {
            operands.push(p.parse_operand_ref()?);
            Ok(())
        })?;
        self.expect(TokenKind::RParen, "')' to end operand list")?;
        let mut successors = Vec::new();
        if self.is(TokenKind::LSquare)
            && self
                .ctx
                .op_info(&name)
                .is_some_and(|info| !info.traits.terminator)
        {
            return self.error_at(self.tok.start, "successors in non-terminator");
        }
        if self.consume_if(TokenKind::LSquare) {
            // As in MLIR, `[]` is not an empty successor list: a list is non-empty.
            if self.is(TokenKind::RSquare) {
                return self.error("expected list element");
            }
            self.parse_comma_list_until(TokenKind::RSquare, |p| {
                successors.push(p.parse_successor()?);
                Ok(())
            })?;
            self.expect(TokenKind::RSquare, "']' to end successor list")?;
        }
        let mut properties = None;
        if self.consume_if(TokenKind::Less) {
            let props = self.parse_attribute()?;
            self.expect(TokenKind::Greater, "'>' to close properties")?;
            properties = Some(props);
        }
        // The op is created before its regions so they can be attached to it; operands
        // and results follow once the trailing type is known.
        let op_name = self.ctx.intern_op_name(&name);
        let state = OperationState {
            name: op_name,
            operands: vec![],
            result_types: vec![],
            successors,
            num_regions: 0,
            properties,
            attributes: vec![],
            loc,
        };
        let op = self.ctx.create_op(state);
        if self.consume_if(TokenKind::LParen) {
            let info = self.ctx.op_info(&name);
            let isolated = info.is_some_and(|i| i.traits.isolated_from_above);
            // As in MLIR, only custom assembly sets the default dialect: the regions of a
            // generic op resolve unprefixed names as the enclosing custom op says.
            loop {
                let region = self.ctx.create_region(Some(op));
                self.ctx.op_mut(op).regions.push(region);
                self.parse_region(region, isolated)?;
                if !self.consume_if(TokenKind::Comma) {
                    break;
                }
            }
            self.expect(TokenKind::RParen, "')' to end region list")?;
        }
        if self.is(TokenKind::LBrace) {
            let entries = self.parse_dictionary_entries()?;
            let dict = self.ctx.intern_attr(crate::AttrKind::Dictionary(entries));
            self.ctx.op_mut(op).attributes = dict;
        }
        self.expect(TokenKind::Colon, "':' followed by operation type")?;
        let type_at = self.tok.start;
        let fn_ty = self.parse_type()?;
        let TypeKind::Function { inputs, results } = self.ctx.type_kind(fn_ty).clone() else {
            return self.error_at(type_at, "expected function type");
        };
        if inputs.len() != operands.len() {
            return self.error_at(
                type_at,
                format!(
                    "expected {} operand type{} but had {}",
                    operands.len(),
                    if operands.len() == 1 { "" } else { "s" },
                    inputs.len()
                ),
            );
        }
        for (r, ty) in operands.iter().zip(inputs) {
            let value = self.resolve_operand(r, ty)?;
            self.ctx.push_operand(op, value);
        }
        for (i, ty) in results.into_iter().enumerate() {
            let v = self.ctx.new_value(
                ty,
                ValueDef::Result {
                    op,
                    index: i as u32,
                },
                None,
            );
            self.ctx.op_mut(op).results.push(v);
        }
        Ok(op)
    }

    /// A registered op's inherent attributes live in its properties, whichever syntax
    /// the text used for them.
    fn move_inherent_attrs_to_properties(&mut self, op: OpId) {
        let Some(info) = self.ctx.op_info(self.ctx.op_name(op)) else {
            return;
        };
        let inherent = info.inherent_attrs;
        let def = info.def;
        let data = self.ctx.op(op);
        let attrs = self.ctx.dictionary_entries(data.attributes).to_vec();
        let props = match data.properties {
            Some(p) if !matches!(self.ctx.attr_kind(p), AttrKind::Dictionary(_)) => return,
            Some(p) => self.ctx.dictionary_entries(p).to_vec(),
            None => Vec::new(),
        };
        let (moved, kept): (Vec<_>, Vec<_>) = attrs
            .into_iter()
            .partition(|(k, _)| inherent.contains(&k.as_str()));
        // Properties a registered op does not define have nowhere to live; MLIR drops them.
        let mut props: Vec<_> = props
            .into_iter()
            .filter(|(k, _)| inherent.contains(&k.as_str()))
            .collect();
        props.extend(moved);
        // Default-valued attributes always hold a value, as MLIR's properties do.
        if let Some(def) = def {
            for attr in def.attributes {
                if let Some(text) = attr.default
                    && attr.store_default
                    && !props.iter().any(|(k, _)| k == attr.name)
                {
                    let value = crate::ods::default_value(self.ctx, text);
                    props.push((attr.name.to_string(), value));
                }
            }
        }
        let props = (!props.is_empty()).then(|| self.ctx.dictionary_attr(props));
        let kept = self.ctx.dictionary_attr(kept);
        let data = self.ctx.op_mut(op);
        data.properties = props;
        data.attributes = kept;
    }

    fn check_op_registered(&self, name: &str, at: usize) -> PResult<()> {
        let dialect = name.split_once('.').map_or("", |(d, _)| d);
        if self.ctx.op_info(name).is_some() {
            return Ok(());
        }
        if self.ctx.is_dialect_registered(dialect) {
            return self.error_at(at, format!("unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"));
        }
        if !self.ctx.allow_unregistered_dialects {
            return self.error_at(
                at,
                format!("operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used ('{name}')"),
            );
        }
        Ok(())
    }

    /// Custom assembly: `module`, `builtin.unrealized_conversion_cast`, and every registered
    /// op with a declarative format or hand-written syntax. A name without a dialect prefix
    /// belongs to the default dialect of the enclosing op (`return` in `func.func`).
    fn parse_custom_operation(&mut self, has_results: bool) -> PResult<OpId> {
        let name_tok = self.tok;
        let word = self.text(name_tok);
        match word {
            "module" | "builtin.module" => {
                if has_results {
                    return self
                        .error_at(name_tok.start, "cannot name an operation with no results");
                }
                self.advance();
                return self.parse_module_body(name_tok.start);
            }
            "builtin.unrealized_conversion_cast" => {
                self.advance();
                return self.parse_cast_body(name_tok.start);
            }
            _ => {}
        }
        // A name without a dialect prefix is looked up in the default dialect of the
        // enclosing custom op (`builtin` at the top level).
        let full_name = if word.contains('.') {
            word.to_string()
        } else {
            let dialect = self.default_dialects.last().copied().unwrap_or("builtin");
            format!("{dialect}.{word}")
        };
        let info = self
            .ctx
            .op_info(word)
            .or_else(|| self.ctx.op_info(&full_name))
            .cloned();
        let Some(info) = info else {
            let dialect = full_name.split_once('.').map_or("", |(d, _)| d);
            if !self.ctx.is_dialect_registered(dialect) && dialect != "builtin" {
                return self.error_at(
                    name_tok.start,
                    format!("Dialect `{dialect}' not found for custom op '{word}' "),
                );
            }
            let tried = if full_name != word {
                format!(" (tried '{full_name}' as well)")
            } else {
                String::new()
            };
            return self.error_at(
                name_tok.start,
                format!("custom op '{word}' is unknown{tried}"),
            );
        };
        let Some(assembly) = info.assembly.clone() else {
            return self.error_at(
                name_tok.start,
                format!("custom op '{word}' has no custom assembly form"),
            );
        };
        self.advance();
        let loc = self.loc_at(name_tok.start);
        let mut state = OperationParseState::default();
        {
            let mut asm = OpAsmParser {
                p: self,
                op_name: info.name,
                default_dialect: info.default_dialect,
                isolated: info.traits.isolated_from_above,
                op_offset: name_tok.start,
            };
            match assembly {
                Assembly::Format(format) => {
                    crate::asm::parse_with_format(&mut asm, &format, &mut state)?
                }
                Assembly::Custom { parse, .. } => parse(&mut asm, &mut state)?,
            }
        }
        let name = self.ctx.intern_op_name(info.name);
        let op = self.ctx.create_op(OperationState {
            name,
            operands: state.operands,
            result_types: state.result_types,
            successors: state.successors,
            num_regions: 0,
            properties: None,
            attributes: state.attributes,
            loc,
        });
        for region in state.regions {
            self.ctx.attach_region(op, region);
        }
        Ok(op)
    }

    /// `module @name? (attributes {...})? { ... }`
    fn parse_module_body(&mut self, at: usize) -> PResult<OpId> {
        let loc = self.loc_at(at);
        let mut attributes = Vec::new();
        if self.is(TokenKind::AtIdent) {
            let name = self.parse_symbol_name()?;
            let attr = self.ctx.string_attr(&name);
            attributes.push(("sym_name".to_string(), attr));
        }
        if self.consume_keyword("attributes") {
            let entries = self.parse_dictionary_entries()?;
            if let Some((dup, _)) = entries
                .iter()
                .find(|(k, _)| k == "sym_name" && !attributes.is_empty())
            {
                return self.error(format!("duplicate key '{dup}' in dictionary attribute"));
            }
            attributes.extend(entries);
        }
        let name = self.ctx.intern_op_name(builtin::MODULE);
        let op = self.ctx.create_op(OperationState {
            name,
            operands: vec![],
            result_types: vec![],
            successors: vec![],
            num_regions: 1,
            properties: None,
            attributes,
            loc,
        });
        let region = self.ctx.op(op).regions[0];
        if !self.is(TokenKind::LBrace) {
            return self.error("expected '{' to begin a region");
        }
        self.parse_region(region, true)?;
        // The custom form always has a body block.
        if self.ctx.region(region).blocks.is_empty() {
            let block = self.ctx.create_block();
            self.ctx.append_block(region, block);
        }
        Ok(op)
    }

    /// `%a, %b : T1, T2 to T3, T4`
    fn parse_cast_body(&mut self, at: usize) -> PResult<OpId> {
        let loc = self.loc_at(at);
        let mut operands = Vec::new();
        if self.is(TokenKind::PercentIdent) {
            loop {
                operands.push(self.parse_operand_ref()?);
                if !self.consume_if(TokenKind::Comma) {
                    break;
                }
            }
            self.expect(TokenKind::Colon, "':'")?;
        } else if !self.consume_keyword("to") {
            // `builtin.unrealized_conversion_cast to T` has no operands.
            return self.error("expected SSA operand");
        }
        let mut input_types = Vec::new();
        if !operands.is_empty() {
            loop {
                input_types.push(self.parse_type()?);
                if !self.consume_if(TokenKind::Comma) {
                    break;
                }
            }
            if !self.consume_keyword("to") {
                return self.error("expected 'to'");
            }
        }
        let mut result_types = Vec::new();
        loop {
            result_types.push(self.parse_type()?);
            if !self.consume_if(TokenKind::Comma) {
                break;
            }
        }
        let attributes = if self.is(TokenKind::LBrace) {
            self.parse_dictionary_entries()?
        } else {
            vec![]
        };
        if input_types.len() != operands.len() {
            return self.error_at(
                at,
                format!(
                    "{} operands present, but expected {}",
                    operands.len(),
                    input_types.len()
                ),
            );
        }
        let mut values = Vec::new();
        for (r, ty) in operands.iter().zip(input_types) {
            values.push(self.resolve_operand(r, ty)?);
        }
        let name = self.ctx.intern_op_name(builtin::UNREALIZED_CONVERSION_CAST);
        Ok(self.ctx.create_op(OperationState {
            name,
            operands: values,
            result_types,
            successors: vec![],
            num_regions: 0,
            properties: None,
            attributes,
            loc,
        }))
    }

    pub(crate) fn parse_operand_ref(&mut self) -> PResult<OperandRef> {
        let tok = self.expect(TokenKind::PercentIdent, "SSA operand")?;
        let name = self.text(tok)[1..].to_string();
        let mut index = 0;
        if self.is(TokenKind::HashIdent) && self.tok.start == tok.end {
            let h = self.advance();
            let digits = &self.text(h)[1..];
            index = digits
                .parse::<u32>()
                .or_else(|_| self.error_at(h.start, "invalid SSA value result number"))?;
        }
        Ok(OperandRef {
            name,
            index,
            offset: tok.start,
        })
    }

    /// Resolves a use against the names in scope, or makes a forward reference.
    pub(crate) fn resolve_operand(&mut self, r: &OperandRef, ty: Type) -> PResult<Value> {
        let scope = self.ssa.scope();
        if let Some(def) = scope.values.get(&r.name) {
            let Some(&value) = def.values.get(r.index as usize) else {
                return self.error_at(r.offset, "reference to invalid result number");
            };
            let def_offset = def.offset;
            return self.check_use_type(r, value, ty, def_offset);
        }
        let key = (r.name.clone(), r.index);
        if let Some(f) = scope.forward.get(&key) {
            let (value, offset) = (f.placeholder, f.offset);
            return self.check_use_type(r, value, ty, offset);
        }
        let placeholder = self.ctx.new_value(ty, ValueDef::Placeholder, None);
        self.ssa.scope().forward.insert(
            key,
            ForwardRef {
                placeholder,
                offset: r.offset,
            },
        );
        Ok(placeholder)
    }

    fn check_use_type(
        &self,
        r: &OperandRef,
        value: Value,
        ty: Type,
        prior: usize,
    ) -> PResult<Value> {
        let actual = self.ctx.value_type(value);
        if actual != ty {
            let msg = format!(
                "use of value '%{}' expects different type than prior uses: '{}' vs '{}'",
                r.name,
                crate::printer::type_to_string(self.ctx, ty),
                crate::printer::type_to_string(self.ctx, actual)
            );
            return Err(ParseError {
                offset: r.offset,
                message: msg,
                notes: vec![(prior, "prior use here".into())],
            });
        }
        Ok(value)
    }

    /// Binds `name` to `values`, resolving earlier forward references to it.
    pub(crate) fn define_values(
        &mut self,
        name: String,
        values: SmallVec<[Value; 1]>,
        offset: usize,
    ) -> PResult<()> {
        if let Some(prev) = self.ssa.scope().values.get(&name) {
            let prev = prev.offset;
            return Err(ParseError {
                offset,
                message: format!("redefinition of SSA value '%{name}'"),
                notes: vec![(prev, "previously defined here".into())],
            });
        }
        let mut resolved = Vec::new();
        let scope = self.ssa.scope();
        if !scope.forward.is_empty() {
            for (i, &v) in values.iter().enumerate() {
                if let Some(f) = scope.forward.remove(&(name.clone(), i as u32)) {
                    resolved.push((f, v, i));
                }
            }
            let dangling = scope
                .forward
                .keys()
                .find(|(n, i)| *n == name && *i as usize >= values.len())
                .cloned();
            if let Some(key) = dangling {
                let offset = scope.forward[&key].offset;
                return self.error_at(offset, "reference to invalid result number");
            }
        }
        scope
            .region_defs
            .last_mut()
            .expect("an open region")
            .push(name.clone());
        scope
            .values
            .insert(name.clone(), Definition { values, offset });
        for (f, v, i) in resolved {
            let used = self.ctx.value_type(f.placeholder);
            let actual = self.ctx.value_type(v);
            if used != actual {
                return Err(ParseError {
                    offset,
                    message: format!(
                        "definition of SSA value '%{name}#{i}' has type '{}'",
                        crate::printer::type_to_string(self.ctx, actual)
                    ),
                    notes: vec![(
                        f.offset,
                        format!(
                            "previously used here with type '{}'",
                            crate::printer::type_to_string(self.ctx, used)
                        ),
                    )],
                });
            }
            self.ctx.replace_all_uses(f.placeholder, v);
        }
        Ok(())
    }

    // ---- regions and blocks ----

    /// `{ ops... ^bb1(%a: T): ops... }` into `region`. `isolated` starts a fresh name scope.
    pub(crate) fn parse_region(&mut self, region: RegionId, isolated: bool) -> PResult<()> {
        self.nested(|p| p.parse_region_unguarded(region, isolated, Vec::new()))
    }

    /// A region whose entry-block arguments were declared before it (`func.func`'s).
    pub(crate) fn parse_region_with_arguments(
        &mut self,
        region: RegionId,
        isolated: bool,
        arguments: Vec<RegionArgument>,
    ) -> PResult<()> {
        self.nested(|p| p.parse_region_unguarded(region, isolated, arguments))
    }

    fn parse_region_unguarded(
        &mut self,
        region: RegionId,
        isolated: bool,
        arguments: Vec<RegionArgument>,
    ) -> PResult<()> {
        self.expect(TokenKind::LBrace, "'{' to begin a region")?;
        if isolated {
            self.ssa.push_isolated_scope();
        } else {
            self.ssa.scope().region_defs.push(Vec::new());
        }
        self.ssa.block_scopes.push(BlockScope::default());
        let has_arguments = !arguments.is_empty();
        if has_arguments {
            let entry = self.ctx.create_block();
            self.ctx.append_block(region, entry);
            for arg in arguments {
                // As in MLIR, an entry argument may not reuse a name that is already
                // defined or referenced in the enclosing name scope.
                let scope = self.ssa.scope();
                let earlier = scope
                    .values
                    .get(&arg.name)
                    .map(|d| d.offset)
                    .or_else(|| scope.forward.get(&(arg.name.clone(), 0)).map(|f| f.offset));
                if let Some(prev) = earlier {
                    return Err(ParseError {
                        offset: arg.offset,
                        message: format!("region entry argument '%{}' is already in use", arg.name),
                        notes: vec![(prev, "previously referenced here".into())],
                    });
                }
                let value = self.ctx.add_block_argument(entry, arg.ty, None);
                match arg.loc {
                    Some(loc) => self.apply_trailing_loc_to_value(value, loc),
                    None => {
                        let loc = self.loc_at(arg.offset);
                        self.ctx.values[value.0 as usize].loc = Some(loc);
                    }
                }
                self.define_values(arg.name, SmallVec::from_elem(value, 1), arg.offset)?;
            }
            if self.is(TokenKind::CaretIdent) {
                return self.error("invalid block name in region with named arguments");
            }
            self.parse_block_body(entry)?;
        }
        if !self.is(TokenKind::RBrace) {
            if !has_arguments && !self.is(TokenKind::CaretIdent) {
                let entry = self.ctx.create_block();
                self.ctx.append_block(region, entry);
                self.parse_block_body(entry)?;
            }
            while self.is(TokenKind::CaretIdent) {
                self.parse_block(region)?;
            }
        }
        self.expect(TokenKind::RBrace, "'}' to end a region")?;
        let scope = self.ssa.block_scopes.pop().expect("balanced block scopes");
        if let Some(first_ref) = scope
            .blocks
            .values()
            .filter(|(_, def, _)| def.is_none())
            .map(|(_, _, r)| *r)
            .min()
        {
            return self.error_at(first_ref, "reference to an undefined block");
        }

        if isolated {
            self.ssa.pop_isolated_scope(self.ctx)?;
        } else {
            let scope = self.ssa.scope();
            for name in scope.region_defs.pop().expect("balanced regions") {
                scope.values.remove(&name);
            }
        }
        Ok(())
    }

    /// `^name(%a: T loc(...), ...):` followed by the block's operations.
    fn parse_block(&mut self, region: RegionId) -> PResult<()> {
        let tok = self.advance();
        let name = self.text(tok)[1..].to_string();
        let block = self.block_for_label(&name, tok.start, true)?;
        self.ctx.append_block(region, block);
        if self.consume_if(TokenKind::LParen) {
            let mut args = Vec::new();
            self.parse_comma_list_until(TokenKind::RParen, |p| {
                let arg_tok = p.expect(TokenKind::PercentIdent, "SSA operand")?;
                let arg_name = p.text(arg_tok)[1..].to_string();
                p.expect(TokenKind::Colon, "':' and type for SSA operand")?;
                let ty = p.parse_type()?;
                let value = p.ctx.add_block_argument(block, ty, None);
                if let Some(loc) = p.parse_optional_trailing_loc()? {
                    p.apply_trailing_loc_to_value(value, loc);
                } else {
                    let loc = p.loc_at(arg_tok.start);
                    p.ctx.values[value.0 as usize].loc = Some(loc);
                }
                args.push((arg_name, value, arg_tok.start));
                Ok(())
            })?;
            self.expect(TokenKind::RParen, "')' to end argument list")?;
            for (arg_name, value, at) in args {
                self.define_values(arg_name, SmallVec::from_elem(value, 1), at)?;
            }
        }
        self.expect(TokenKind::Colon, "':' after block name")?;
        self.parse_block_body(block)
    }

    /// Operations until the next block label or the end of the region.
    fn parse_block_body(&mut self, block: BlockId) -> PResult<()> {
        while !self.is(TokenKind::CaretIdent) && !self.is(TokenKind::RBrace) {
            if self.is(TokenKind::Eof) {
                return self.error("expected '}' to end a region");
            }
            let op = self.parse_operation()?;
            self.ctx.append_op(block, op);
        }
        Ok(())
    }

    /// `^name` as a successor.
    pub(crate) fn parse_successor(&mut self) -> PResult<BlockId> {
        let tok = self.expect(TokenKind::CaretIdent, "block name")?;
        let name = self.text(tok)[1..].to_string();
        self.block_for_label(&name, tok.start, false)
    }

    /// The block named `name` in the current region, created on first mention.
    fn block_for_label(&mut self, name: &str, at: usize, defining: bool) -> PResult<BlockId> {
        if self.ssa.block_scopes.is_empty() {
            return self.error_at(at, "successors are only allowed inside a region");
        }
        let scope = self.ssa.block_scopes.last_mut().expect("checked above");
        if let Some(entry) = scope.blocks.get_mut(name) {
            if defining {
                if entry.1.is_some() {
                    return self.error_at(at, format!("redefinition of block '^{name}'"));
                }
                entry.1 = Some(at);
            }
            return Ok(entry.0);
        }
        let block = self.ctx.create_block();
        let scope = self.ssa.block_scopes.last_mut().expect("checked above");
        scope
            .blocks
            .insert(name.to_string(), (block, defining.then_some(at), at));
        Ok(block)
    }
}
