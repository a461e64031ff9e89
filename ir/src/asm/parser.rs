//! The parser API that custom op syntax is written against: operands, types,
//! attributes, keywords and regions, with MLIR's errors. Both declarative formats and
//! hand-written parsers use it.

use crate::attributes::Attr;
use crate::context::Context;
use crate::lexer::TokenKind;
use crate::location::Location;
use crate::parser::locations::TrailingLoc;
use crate::parser::operations::OperandRef;
use crate::parser::{PResult, ParseError, Parser};
use crate::region::RegionId;
use crate::types::Type;
use crate::value::Value;

/// An operand as written, resolved once its type is known.
pub struct UnresolvedOperand(pub(crate) OperandRef);

impl UnresolvedOperand {
    pub fn offset(&self) -> usize {
        self.0.offset
    }
}

/// A region entry-block argument declared outside the region (`%arg0: i32`).
pub struct RegionArgument {
    pub name: String,
    pub ty: Type,
    pub offset: usize,
    pub(crate) loc: Option<TrailingLoc>,
}

/// What a custom parser produces; the op is built from it.
#[derive(Default)]
pub struct OperationParseState {
    pub operands: Vec<Value>,
    pub result_types: Vec<Type>,
    /// Properties and attributes together: registered inherent names become properties.
    pub attributes: Vec<(String, Attr)>,
    pub regions: Vec<RegionId>,
    pub successors: Vec<crate::BlockId>,
}

impl OperationParseState {
    pub fn add_attr(&mut self, name: &str, value: Attr) {
        self.attributes.retain(|(k, _)| k != name);
        self.attributes.push((name.to_string(), value));
    }

    pub fn attr(&self, name: &str) -> Option<Attr> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    }
}

pub struct OpAsmParser<'p, 'a> {
    pub(crate) p: &'p mut Parser<'a>,
    /// The op being parsed (for default dialects of its regions).
    pub(crate) op_name: &'static str,
    pub(crate) default_dialect: Option<&'static str>,
    pub(crate) isolated: bool,
    /// Where the op name starts.
    pub(crate) op_offset: usize,
}

impl<'p, 'a> OpAsmParser<'p, 'a> {
    pub fn ctx(&mut self) -> &mut Context {
        self.p.ctx
    }

    pub fn op_name(&self) -> &'static str {
        self.op_name
    }

    /// Offset of the current token, for errors reported later.
    pub fn offset(&self) -> usize {
        self.p.tok.start
    }

    pub fn op_offset(&self) -> usize {
        self.op_offset
    }

    pub fn location_at(&mut self, offset: usize) -> Location {
        self.p.loc_at(offset)
    }

    pub fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        self.p.error(message)
    }

    pub fn error_at<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        self.p.error_at(offset, message)
    }

    // ---- punctuation and keywords ----

    fn punct_kind(text: &str) -> Option<TokenKind> {
        Some(match text {
            "(" => TokenKind::LParen,
            ")" => TokenKind::RParen,
            "[" => TokenKind::LSquare,
            "]" => TokenKind::RSquare,
            "{" => TokenKind::LBrace,
            "}" => TokenKind::RBrace,
            "<" => TokenKind::Less,
            ">" => TokenKind::Greater,
            "," => TokenKind::Comma,
            ":" => TokenKind::Colon,
            "=" => TokenKind::Equal,
            "->" => TokenKind::Arrow,
            "?" => TokenKind::Question,
            "*" => TokenKind::Star,
            "+" => TokenKind::Plus,
            "-" => TokenKind::Minus,
            "..." => TokenKind::Ellipsis,
            _ => return None,
        })
    }

    /// Whether the next token is `literal` (punctuation or keyword).
    pub fn peek_literal(&self, literal: &str) -> bool {
        match Self::punct_kind(literal) {
            Some(kind) => self.p.is(kind),
            None => self.p.is_keyword(literal),
        }
    }

    /// Consumes `literal` if it is next.
    pub fn parse_optional_literal(&mut self, literal: &str) -> bool {
        match Self::punct_kind(literal) {
            Some(kind) => self.p.consume_if(kind),
            None => self.p.consume_keyword(literal),
        }
    }

    /// Requires `literal` next.
    pub fn parse_literal(&mut self, literal: &str) -> PResult<()> {
        if self.parse_optional_literal(literal) {
            return Ok(());
        }
        // MLIR reports a missing keyword at the token found instead, and missing
        // punctuation right after what precedes it.
        if literal.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return self
                .p
                .error_at(self.p.tok.start, format!("expected '{literal}'"));
        }
        self.p.error(format!("expected '{literal}'"))
    }

    /// Any bare identifier.
    pub fn parse_optional_keyword_ident(&mut self) -> Option<String> {
        if self.p.is(TokenKind::BareIdent) {
            Some(self.p.take_text().to_string())
        } else {
            None
        }
    }

    pub fn parse_keyword_ident(&mut self, what: &str) -> PResult<String> {
        match self.parse_optional_keyword_ident() {
            Some(word) => Ok(word),
            None => self.p.error(format!("expected {what}")),
        }
    }

    pub fn peek_is(&self, kind: TokenKind) -> bool {
        self.p.is(kind)
    }

    // ---- values ----

    pub fn peek_operand(&self) -> bool {
        self.p.is(TokenKind::PercentIdent)
    }

    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand> {
        Ok(UnresolvedOperand(self.p.parse_operand_ref()?))
    }

    pub fn parse_optional_operand(&mut self) -> PResult<Option<UnresolvedOperand>> {
        if self.peek_operand() {
            return self.parse_operand().map(Some);
        }
        Ok(None)
    }

    /// `%a, %b, ...` (possibly empty).
    pub fn parse_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand>> {
        let mut list = Vec::new();
        if !self.peek_operand() {
            return Ok(list);
        }
        loop {
            list.push(self.parse_operand()?);
            if !self.p.consume_if(TokenKind::Comma) {
                return Ok(list);
            }
        }
    }

    pub fn resolve_operand(&mut self, operand: &UnresolvedOperand, ty: Type) -> PResult<Value> {
        self.p.resolve_operand(&operand.0, ty)
    }

    /// Resolves `operands` against `types`, which must be as many.
    pub fn resolve_operands(
        &mut self,
        operands: &[UnresolvedOperand],
        types: &[Type],
        at: usize,
    ) -> PResult<Vec<Value>> {
        if operands.len() != types.len() {
            return self.p.error_at(
                at,
                format!(
                    "{} operands present, but expected {}",
                    operands.len(),
                    types.len()
                ),
            );
        }
        operands
            .iter()
            .zip(types)
            .map(|(o, &t)| self.resolve_operand(o, t))
            .collect()
    }

    // ---- types and attributes ----

    pub fn parse_type(&mut self) -> PResult<Type> {
        self.p.parse_type()
    }

    pub fn parse_colon_type(&mut self) -> PResult<Type> {
        self.parse_literal(":")?;
        self.parse_type()
    }

    /// `T1, T2, ...` (at least one).
    pub fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut types = vec![self.parse_type()?];
        while self.p.consume_if(TokenKind::Comma) {
            types.push(self.parse_type()?);
        }
        Ok(types)
    }

    /// A type list that may be empty: it ends where no type starts.
    pub fn parse_optional_type_list(&mut self) -> PResult<Vec<Type>> {
        if !self.type_follows() {
            return Ok(Vec::new());
        }
        self.parse_type_list()
    }

    /// Whether the next token can start a type.
    pub fn type_follows(&self) -> bool {
        match self.p.tok.kind {
            TokenKind::ExclaimIdent | TokenKind::LParen => true,
            TokenKind::BareIdent => {
                let w = self.p.text(self.p.tok);
                crate::parser::is_type_keyword(w)
            }
            _ => false,
        }
    }

    /// `(T1, T2)` or a single type, as result lists are written after `->`.
    pub fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        self.p.parse_function_result_types()
    }

    /// `(T1, T2)`
    pub fn parse_paren_type_list(&mut self) -> PResult<Vec<Type>> {
        self.p.parse_type_list_parens()
    }

    pub fn parse_attribute(&mut self) -> PResult<Attr> {
        self.p.parse_attribute()
    }

    /// An attribute written without its type `ty` (`dense<1.0>` for a known tensor type).
    pub fn parse_attribute_of_type(&mut self, ty: Type) -> PResult<Attr> {
        self.p.parse_attribute_of_type(ty)
    }

    /// An affine map written bare, `(d0, d1) -> (d1)`, or as an attribute
    /// (`affine_map<...>`, `#map`), as custom syntax for map-indexed accesses spells it.
    pub fn parse_affine_map(&mut self) -> PResult<crate::affine::AffineMap> {
        if self.p.is(TokenKind::LParen) {
            return self.p.parse_bare_affine_map();
        }
        let at = self.offset();
        let attr = self.p.parse_attribute()?;
        match self.p.ctx.attr_kind(attr) {
            crate::attributes::AttrKind::AffineMap(map) => Ok(map.clone()),
            _ => self.p.error_at(at, "expected an affine map"),
        }
    }

    /// `{a = 1, b}` if present.
    pub fn parse_optional_attr_dict(&mut self) -> PResult<Vec<(String, Attr)>> {
        if self.p.is(TokenKind::LBrace) {
            return self.p.parse_dictionary_entries();
        }
        Ok(Vec::new())
    }

    /// `attributes {a = 1}` if present.
    pub fn parse_optional_attr_dict_with_keyword(&mut self) -> PResult<Vec<(String, Attr)>> {
        if self.p.consume_keyword("attributes") {
            if !self.p.is(TokenKind::LBrace) {
                return self.p.error("expected '{' in attribute dictionary");
            }
            return self.p.parse_dictionary_entries();
        }
        Ok(Vec::new())
    }

    /// `@name`
    pub fn parse_symbol_name(&mut self) -> PResult<String> {
        if !self.p.is(TokenKind::AtIdent) {
            return self
                .p
                .error("expected valid '@'-identifier for symbol name");
        }
        self.p.parse_symbol_name()
    }

    pub fn parse_optional_symbol_name(&mut self) -> PResult<Option<String>> {
        if self.p.is(TokenKind::AtIdent) {
            return self.p.parse_symbol_name().map(Some);
        }
        Ok(None)
    }

    pub fn parse_integer(&mut self, what: &str) -> PResult<i128> {
        // As MLIR's custom-op `parseInteger`, a token that cannot start an integer is
        // reported where it stands.
        if !self.p.is(TokenKind::Integer) && !self.p.is(TokenKind::Minus) {
            return self.p.error_at(self.p.tok.start, "expected integer value");
        }
        self.p.parse_i128(what)
    }

    pub fn parse_string(&mut self, what: &str) -> PResult<String> {
        self.p.parse_string(what)
    }

    // ---- regions ----

    /// A region argument `%name: type loc(...)?` of a signature.
    pub fn parse_region_argument(&mut self) -> PResult<RegionArgument> {
        let tok = self.p.expect(TokenKind::PercentIdent, "SSA identifier")?;
        let name = self.p.text(tok)[1..].to_string();
        let ty = self.parse_colon_type()?;
        let loc = self.p.parse_optional_trailing_loc()?;
        Ok(RegionArgument {
            name,
            ty,
            offset: tok.start,
            loc,
        })
    }

    /// `%name: type {attrs}? loc(...)?`, as function signatures declare arguments; the
    /// dictionary is empty when none is written.
    pub fn parse_region_argument_with_attrs(&mut self) -> PResult<(RegionArgument, Attr)> {
        let tok = self.p.expect(TokenKind::PercentIdent, "SSA identifier")?;
        let name = self.p.text(tok)[1..].to_string();
        let ty = self.parse_colon_type()?;
        let entries = self.parse_optional_attr_dict()?;
        let dict = self.p.ctx.dictionary_attr(entries);
        let loc = self.p.parse_optional_trailing_loc()?;
        Ok((
            RegionArgument {
                name,
                ty,
                offset: tok.start,
                loc,
            },
            dict,
        ))
    }

    /// `%i loc(...)?`: a region argument whose type `ty` is given elsewhere, with its
    /// optional location (an induction variable, as MLIR's loops declare it).
    pub fn parse_untyped_region_argument(&mut self, ty: Type) -> PResult<RegionArgument> {
        let tok = self.p.expect(TokenKind::PercentIdent, "SSA operand")?;
        let name = self.p.text(tok)[1..].to_string();
        if self.p.is(TokenKind::HashIdent) && self.p.tok.start == tok.end {
            return self.p.error_at(tok.start, "result number not allowed");
        }
        let loc = self.p.parse_optional_trailing_loc()?;
        Ok(RegionArgument {
            name,
            ty,
            offset: tok.start,
            loc,
        })
    }

    /// A region argument whose type is given elsewhere (`%i` of a loop).
    pub fn region_argument(&self, operand: UnresolvedOperand, ty: Type) -> RegionArgument {
        RegionArgument {
            name: operand.0.name,
            ty,
            offset: operand.0.offset,
            loc: None,
        }
    }

    /// A fresh region for the op under construction.
    pub fn new_region(&mut self) -> RegionId {
        self.p.ctx.create_region(None)
    }

    /// `{ ... }` into `region`; `arguments` become the entry block's arguments.
    pub fn parse_region(
        &mut self,
        region: RegionId,
        arguments: Vec<RegionArgument>,
    ) -> PResult<()> {
        let defaults = self.default_dialect.unwrap_or("");
        self.p.default_dialects.push(defaults);
        let result = self
            .p
            .parse_region_with_arguments(region, self.isolated, arguments);
        self.p.default_dialects.pop();
        result
    }

    /// Parses a region if one starts here.
    pub fn parse_optional_region(
        &mut self,
        region: RegionId,
        arguments: Vec<RegionArgument>,
    ) -> PResult<bool> {
        if !self.p.is(TokenKind::LBrace) {
            return Ok(false);
        }
        self.parse_region(region, arguments)?;
        Ok(true)
    }

    pub fn parse_successor(&mut self) -> PResult<crate::BlockId> {
        self.p.parse_successor()
    }

    /// A parse error with a note, for custom checks.
    pub fn error_with_note<T>(
        &self,
        offset: usize,
        message: impl Into<String>,
        note_at: usize,
        note: impl Into<String>,
    ) -> PResult<T> {
        Err(ParseError {
            offset,
            message: message.into(),
            notes: vec![(note_at, note.into())],
        })
    }
}
