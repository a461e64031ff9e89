//! The MLIR text parser: the generic operation form, `builtin.module`'s custom form,
//! every builtin type, attribute and location, aliases and the `{-# ... #-}` trailer.
//!
//! Parsing stops at the first error, like MLIR's, and reports it with a location.

mod attributes;
pub(crate) mod locations;
pub(crate) mod operations;
mod types;
pub(crate) use types::is_type_keyword;

use std::collections::HashMap;

use crate::attributes::Attr;
use crate::context::{Context, ResourceBlob};
use crate::diagnostics::Diagnostic;
use crate::lexer::{self, Token, TokenKind};
use crate::location::Location;
use crate::operation::OpId;
use crate::types::Type;
use crate::value::Value;

/// How deeply regions, attributes, types and locations may nest. Parsing, printing and
/// verification recurse, so an unbounded depth would overflow the stack on hostile input.
pub const MAX_NESTING: u32 = 128;

/// A parse error at a byte offset, with optional notes at other offsets.
#[derive(Debug)]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
    pub notes: Vec<(usize, String)>,
}

pub type PResult<T> = Result<T, ParseError>;

/// Parser configuration.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Keep the top-level operations as they are instead of wrapping them in a module;
    /// when false, a lone `builtin.module` is returned as is and anything else is wrapped.
    pub no_implicit_module: bool,
    /// Lines before this buffer in its file (for `--split-input-file` chunks), so
    /// locations carry the file's own line numbers.
    pub line_offset: u32,
}

/// Where a deferred `loc(#alias)` must be patched once the alias is known.
enum LocTarget {
    Op(OpId),
    Value(Value),
}

pub struct Parser<'a> {
    pub(crate) ctx: &'a mut Context,
    src: &'a str,
    bytes: &'a [u8],
    filename: String,
    pub(crate) tok: Token,
    line_starts: Vec<usize>,
    line_offset: u32,
    attr_aliases: HashMap<String, Attr>,
    type_aliases: HashMap<String, Type>,
    deferred_locs: Vec<(LocTarget, String, usize)>,
    /// `distinct[id]` payloads seen so far; one id names one attribute.
    distinct_ids: HashMap<u64, Attr>,
    depth: u32,
    ssa: operations::SsaState,
    /// Dialects whose ops may be written without prefix, one entry per open op region.
    pub(crate) default_dialects: Vec<&'static str>,
    /// The type the next elements literal has when its `: type` goes unwritten.
    pub(crate) implied_elements_type: Option<Type>,
}

/// Parses a whole source buffer into a top-level operation (a `builtin.module`).
pub fn parse_source(
    ctx: &mut Context,
    src: &str,
    filename: &str,
    options: &ParseOptions,
) -> Result<OpId, Diagnostic> {
    let mut parser = Parser::new(ctx, src, filename);
    parser.line_offset = options.line_offset;
    match parser.parse_top_level(options) {
        Ok(op) => Ok(op),
        Err(err) => Err(parser.to_diagnostic(err)),
    }
}

/// Parses one attribute from `text` (e.g. a default value in a dialect definition).
pub fn parse_attribute_text(ctx: &mut Context, text: &str) -> Result<Attr, Diagnostic> {
    let allow = ctx.allow_unregistered_dialects;
    ctx.allow_unregistered_dialects = true;
    let mut parser = Parser::new(ctx, text, "<attribute>");
    let result = parser.parse_attribute().and_then(|a| {
        if parser.is(TokenKind::Eof) {
            Ok(a)
        } else {
            parser.error("expected end of attribute")
        }
    });
    let result = result.map_err(|e| parser.to_diagnostic(e));
    ctx.allow_unregistered_dialects = allow;
    result
}

impl<'a> Parser<'a> {
    fn new(ctx: &'a mut Context, src: &'a str, filename: &str) -> Parser<'a> {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(memchr_lines(bytes));
        let tok = lexer::lex(bytes, 0);
        Parser {
            ctx,
            src,
            bytes,
            filename: filename.to_string(),
            tok,
            line_starts,
            line_offset: 0,
            attr_aliases: HashMap::new(),
            type_aliases: HashMap::new(),
            deferred_locs: Vec::new(),
            distinct_ids: HashMap::new(),
            depth: 0,
            ssa: operations::SsaState::default(),
            default_dialects: Vec::new(),
            implied_elements_type: None,
        }
    }

    /// Converts a parse error into a located diagnostic.
    pub fn to_diagnostic(&mut self, err: ParseError) -> Diagnostic {
        let loc = self.loc_at(err.offset);
        let mut diag = Diagnostic::error(loc, err.message);
        for (offset, note) in err.notes {
            let loc = self.loc_at(offset);
            diag = diag.with_note(loc, note);
        }
        diag
    }

    /// Runs a recursive parse step one nesting level deeper, refusing to go past
    /// [`MAX_NESTING`].
    pub(crate) fn nested<T>(&mut self, step: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return self.error_at(
                self.tok.start,
                format!("nesting is too deep: more than {MAX_NESTING} levels"),
            );
        }
        self.depth += 1;
        let result = step(self);
        self.depth -= 1;
        result
    }

    // ---- positions ----

    fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        (
            line as u32 + 1 + self.line_offset,
            (offset - self.line_starts[line]) as u32 + 1,
        )
    }

    /// A `file:line:col` location for a byte offset.
    pub(crate) fn loc_at(&mut self, offset: usize) -> Location {
        let (line, col) = self.line_col(offset);
        let file = self.filename.clone();
        self.ctx.file_loc(&file, line, col)
    }

    // ---- tokens ----

    pub(crate) fn text(&self, tok: Token) -> &'a str {
        &self.src[tok.start..tok.end]
    }

    /// Consumes the current token and returns its text.
    pub(crate) fn take_text(&mut self) -> &'a str {
        let t = self.advance();
        &self.src[t.start..t.end]
    }

    pub(crate) fn advance(&mut self) -> Token {
        let t = self.tok;
        self.tok = lexer::lex(self.bytes, t.end);
        t
    }

    /// Moves the cursor to `pos` and lexes from there.
    pub(crate) fn reset_to(&mut self, pos: usize) {
        self.tok = lexer::lex(self.bytes, pos);
    }

    pub(crate) fn is(&self, kind: TokenKind) -> bool {
        self.tok.kind == kind
    }

    pub(crate) fn is_keyword(&self, word: &str) -> bool {
        self.tok.kind == TokenKind::BareIdent && self.text(self.tok) == word
    }

    pub(crate) fn consume_if(&mut self, kind: TokenKind) -> bool {
        if self.is(kind) {
            self.advance();
            true
        } else {
            false
        }
    }

    pub(crate) fn consume_keyword(&mut self, word: &str) -> bool {
        if self.is_keyword(word) {
            self.advance();
            true
        } else {
            false
        }
    }

    pub(crate) fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(self.error_here(message))
    }

    pub(crate) fn error_here(&self, message: impl Into<String>) -> ParseError {
        let message = message.into();
        // A malformed token gets the lexer's message, as it is what the user must fix.
        if self.tok.kind == TokenKind::Error {
            let (offset, message) = crate::lexer::error_message(self.bytes, self.tok.start);
            return ParseError {
                offset,
                message: message.into(),
                notes: vec![],
            };
        }
        if message.starts_with("expected") {
            return ParseError {
                offset: self.wrong_token_offset(),
                message,
                notes: vec![],
            };
        }
        self.error_at_token(message)
    }

    /// An error at the current token, or at the last character when the input is over,
    /// as MLIR places `emitError()` without a location.
    pub(crate) fn error_at_token(&self, message: impl Into<String>) -> ParseError {
        let offset = if self.tok.kind == TokenKind::Eof {
            self.tok.start.saturating_sub(1)
        } else {
            self.tok.start
        };
        ParseError {
            offset,
            message: message.into(),
            notes: vec![],
        }
    }

    /// Where an "expected ..." error goes, as MLIR places it: right after the last
    /// meaningful character before the current token, skipping blank lines and `//`
    /// comments, so the error points at the line that is missing something.
    fn wrong_token_offset(&self) -> usize {
        let mut end = self.tok.start;
        if self.tok.kind == TokenKind::Eof && end > 0 {
            end -= 1;
        }
        let original = end;
        loop {
            while end > 0 && matches!(self.bytes[end - 1], b' ' | b'\t') {
                end -= 1;
            }
            if end == 0 {
                return original;
            }
            if !matches!(self.bytes[end - 1], b'\n' | b'\r') {
                return end;
            }
            end -= 1;
            // A `//` on the line above starts a comment: back up to before it.
            let line_start = self.bytes[..end]
                .iter()
                .rposition(|&b| b == b'\n' || b == b'\r')
                .map_or(0, |i| i + 1);
            if let Some(c) = self.src[line_start..end].find("//") {
                end = line_start + c;
            }
        }
    }

    pub(crate) fn error_at<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            offset,
            message: message.into(),
            notes: vec![],
        })
    }

    pub(crate) fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        if self.is(kind) {
            Ok(self.advance())
        } else {
            self.error(format!("expected {what}"))
        }
    }

    /// Parses `elem (, elem)*` up to (not including) `close`, allowing an empty list.
    pub(crate) fn parse_comma_list_until(
        &mut self,
        close: TokenKind,
        mut elem: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if self.is(close) {
            return Ok(());
        }
        loop {
            elem(self)?;
            if !self.consume_if(TokenKind::Comma) {
                return Ok(());
            }
        }
    }

    /// The decoded contents of the current string token.
    pub(crate) fn string_value(&self, tok: Token) -> PResult<Vec<u8>> {
        let body = &self.bytes[tok.start + 1..tok.end - 1];
        lexer::unescape(body).map_err(|(at, msg)| ParseError {
            offset: tok.start + 1 + at,
            message: msg.into(),
            notes: vec![],
        })
    }

    pub(crate) fn parse_string(&mut self, what: &str) -> PResult<String> {
        if !self.is(TokenKind::String) {
            return self.error(format!("expected {what}"));
        }
        let tok = self.advance();
        let bytes = self.string_value(tok)?;
        String::from_utf8(bytes).map_err(|_| ParseError {
            offset: tok.start,
            message: format!("{what} is not valid UTF-8"),
            notes: vec![],
        })
    }

    /// Parses a (possibly negative) integer literal into an i128.
    pub(crate) fn parse_i128(&mut self, what: &str) -> PResult<i128> {
        let start = self.tok.start;
        let negative = self.consume_if(TokenKind::Minus);
        if !self.is(TokenKind::Integer) {
            return self.error(format!("expected {what}"));
        }
        let tok = self.advance();
        let magnitude = parse_u128(self.text(tok)).ok_or_else(|| ParseError {
            offset: start,
            message: "integer constant out of range".into(),
            notes: vec![],
        })?;
        if negative {
            if magnitude > i128::MAX as u128 + 1 {
                return self.error_at(start, "integer constant out of range");
            }
            Ok((magnitude as i128).wrapping_neg())
        } else {
            i128::try_from(magnitude)
                .or_else(|_| self.error_at(start, "integer constant out of range"))
        }
    }

    /// Parses an unsigned decimal integer that fits in `u32`/`u64`-sized fields.
    pub(crate) fn parse_u64(&mut self, what: &str) -> PResult<u64> {
        if !self.is(TokenKind::Integer) {
            return self.error(format!("expected {what}"));
        }
        let tok = self.advance();
        parse_u128(self.text(tok))
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| ParseError {
                offset: tok.start,
                message: format!("{what} out of range"),
                notes: vec![],
            })
    }

    /// Captures a balanced `<...>`, `(...)`, `[...]` or `{...}` body starting at the
    /// current token (which must be the opener), returning the text between the
    /// delimiters and leaving the cursor after the closer. Strings are skipped whole.
    pub(crate) fn capture_balanced(&mut self) -> PResult<&'a str> {
        let open_at = self.tok.start;
        let mut stack = Vec::new();
        let mut i = open_at;
        while i < self.bytes.len() {
            let c = self.bytes[i];
            match c {
                b'<' | b'(' | b'[' | b'{' => stack.push(c),
                // `->` is an arrow, and `>` inside other brackets (as in `>=`) closes nothing.
                b'>' if self.bytes[i - 1] == b'-' || stack.last() != Some(&b'<') => {}
                b'>' | b')' | b']' | b'}' => {
                    let want = match c {
                        b'>' => b'<',
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if stack.last() != Some(&want) {
                        return self.unbalanced_body_error(open_at, &stack);
                    }
                    stack.pop();
                    if stack.is_empty() {
                        let body = &self.src[open_at + 1..i];
                        self.reset_to(i + 1);
                        return Ok(body);
                    }
                }
                b'"' => {
                    let t = lexer::lex(self.bytes, i);
                    if t.kind != TokenKind::String {
                        return self.error_at(i, "expected '\"' in string literal");
                    }
                    i = t.end;
                    continue;
                }
                // A NUL ends the body as the end of the buffer does.
                0 => break,
                _ => {}
            }
            i += 1;
        }
        self.unbalanced_body_error(open_at, &stack)
    }

    /// MLIR's error for a dialect body whose brackets do not match: it names the innermost
    /// bracket still open and points at the body's opening `<`.
    fn unbalanced_body_error<T>(&self, open_at: usize, open: &[u8]) -> PResult<T> {
        match open.last() {
            Some(&c) => self.error_at(
                open_at,
                format!(
                    "unbalanced '{}' character in pretty dialect name",
                    c as char
                ),
            ),
            None => self.error_at(open_at, "unexpected nul or EOF in pretty dialect name"),
        }
    }

    // ---- top level ----

    fn parse_top_level(&mut self, options: &ParseOptions) -> PResult<OpId> {
        let mut top_ops = Vec::new();
        self.ssa.push_isolated_scope();
        loop {
            match self.tok.kind {
                TokenKind::Eof => break,
                TokenKind::HashIdent => self.parse_attribute_alias_def()?,
                TokenKind::ExclaimIdent => self.parse_type_alias_def()?,
                TokenKind::FileMetadataBegin => self.parse_file_metadata()?,
                _ => {
                    let op = self.parse_operation()?;
                    top_ops.push(op);
                }
            }
        }
        self.ssa.pop_isolated_scope(self.ctx)?;
        self.resolve_deferred_locations()?;
        let module_name = self.ctx.intern_op_name("builtin.module");
        if top_ops.len() == 1
            && (options.no_implicit_module || self.ctx.op(top_ops[0]).name == module_name)
        {
            return Ok(top_ops[0]);
        }
        // Wrap everything in an implicit module located at the file's start.
        let file = self.filename.clone();
        let loc = self.ctx.file_loc(&file, 0, 0);
        let module = self.ctx.create_op(crate::operation::OperationState {
            name: module_name,
            operands: vec![],
            result_types: vec![],
            successors: vec![],
            num_regions: 1,
            properties: None,
            attributes: vec![],
            loc,
        });
        let region = self.ctx.op(module).regions[0];
        let block = self.ctx.create_block();
        self.ctx.append_block(region, block);
        for op in top_ops {
            self.ctx.append_op(block, op);
        }
        Ok(module)
    }

    fn parse_attribute_alias_def(&mut self) -> PResult<()> {
        let tok = self.advance();
        let name = &self.text(tok)[1..];
        if name.contains('.') {
            return self.error_at(
                tok.start,
                "attribute names with a '.' are reserved for dialect-defined names",
            );
        }
        if self.attr_aliases.contains_key(name) {
            return self.error_at(
                tok.start,
                format!("redefinition of attribute alias id '{name}'"),
            );
        }
        self.expect(TokenKind::Equal, "'=' in attribute alias definition")?;
        let attr = self.parse_attribute()?;
        self.attr_aliases.insert(name.to_string(), attr);
        Ok(())
    }

    fn parse_type_alias_def(&mut self) -> PResult<()> {
        let tok = self.advance();
        let name = &self.text(tok)[1..];
        if name.contains('.') {
            return self.error_at(
                tok.start,
                "type names with a '.' are reserved for dialect-defined names",
            );
        }
        if self.type_aliases.contains_key(name) {
            return self.error_at(tok.start, format!("redefinition of type alias id '{name}'"));
        }
        self.expect(TokenKind::Equal, "'=' in type alias definition")?;
        let ty = self.parse_type()?;
        self.type_aliases.insert(name.to_string(), ty);
        Ok(())
    }

    /// `{-# dialect_resources: { builtin: { name: "0x..." } }, external_resources: {...} #-}`
    fn parse_file_metadata(&mut self) -> PResult<()> {
        self.advance();
        self.parse_comma_list_until(TokenKind::FileMetadataEnd, |p| {
            let key_tok = p.tok;
            if !p.is(TokenKind::BareIdent) {
                return Err(p.error_at_token("expected identifier key in file metadata dictionary"));
            }
            p.advance();
            p.expect(TokenKind::Colon, "':'")?;
            match p.text(key_tok) {
                "dialect_resources" | "external_resources" => {
                    let external = p.text(key_tok) == "external_resources";
                    p.parse_resource_section(external)
                }
                other => p.error_at(
                    key_tok.start,
                    format!("unknown key '{other}' in file metadata dictionary"),
                ),
            }
        })?;
        self.expect(TokenKind::FileMetadataEnd, "'#-}'")?;
        Ok(())
    }

    fn parse_resource_section(&mut self, external: bool) -> PResult<()> {
        self.expect(TokenKind::LBrace, "'{'")?;
        self.parse_comma_list_until(TokenKind::RBrace, |p| {
            let owner_tok = p.tok;
            if !p.is(TokenKind::BareIdent) {
                return p.error_at(p.tok.start, "expected identifier key for 'resource' entry");
            }
            p.advance();
            let owner = p.text(owner_tok);
            p.expect(TokenKind::Colon, "':'")?;
            p.expect(TokenKind::LBrace, "'{'")?;
            // Only a known dialect with resources (here `builtin`) may own a section.
            if !external && owner != "builtin" {
                if !p.ctx.is_dialect_registered(owner) {
                    return p.error_at(owner_tok.start, format!("dialect '{owner}' is unknown"));
                }
                return p.error(format!(
                    "unexpected 'resource' section for dialect '{owner}'"
                ));
            }
            p.parse_comma_list_until(TokenKind::RBrace, |p| {
                let key = match p.tok.kind {
                    TokenKind::BareIdent => p.take_text().to_string(),
                    TokenKind::String => p.parse_string("resource key")?,
                    _ => {
                        return p
                            .error_at(p.tok.start, "expected identifier key for 'resource' entry");
                    }
                };
                p.expect(TokenKind::Colon, "':'")?;
                if external {
                    let value = p.parse_external_resource_value()?;
                    p.ctx
                        .external_resources
                        .entry(owner.to_string())
                        .or_default()
                        .push((key, value));
                    return Ok(());
                }
                let value_tok = p.tok;
                let blob = p.parse_string("resource blob")?;
                let blob = parse_hex_blob(&blob).ok_or_else(|| ParseError {
                    offset: value_tok.start,
                    message: "expected hex string blob for key '".to_string() + &key + "'",
                    notes: vec![],
                })?;
                // As in MLIR, a key given twice takes its last value.
                std::sync::Arc::make_mut(&mut p.ctx.resources).insert(key, blob);
                Ok(())
            })?;
            p.expect(TokenKind::RBrace, "'}'")?;
            Ok(())
        })?;
        self.expect(TokenKind::RBrace, "'}'")?;
        Ok(())
    }

    /// External resources are not interpreted, but must be well formed: a bool, a string,
    /// or a hex blob with a valid alignment.
    fn parse_external_resource_value(&mut self) -> PResult<crate::context::ExternalResourceValue> {
        use crate::context::ExternalResourceValue;
        if self.is_keyword("true") || self.is_keyword("false") {
            return Ok(ExternalResourceValue::Bool(self.take_text() == "true"));
        }
        if !self.is(TokenKind::String) {
            return self.error_at(
                self.tok.start,
                "expected a string, a boolean or a hex blob as resource value",
            );
        }
        let tok = self.advance();
        let bytes = self.string_value(tok)?;
        if bytes.starts_with(b"0x")
            && std::str::from_utf8(&bytes)
                .ok()
                .and_then(parse_hex_blob)
                .is_none()
        {
            return self.error_at(
                tok.start,
                "expected hex string blob with a valid alignment prefix",
            );
        }
        Ok(ExternalResourceValue::String(bytes))
    }

    fn resolve_deferred_locations(&mut self) -> PResult<()> {
        for (target, name, offset) in std::mem::take(&mut self.deferred_locs) {
            let Some(&loc) = self.attr_aliases.get(&name) else {
                return self.error_at(offset, "operation location alias was never defined");
            };
            if self.ctx.location_kind(loc).is_none() {
                return self.error_at(
                    offset,
                    format!(
                        "expected location, but found '{}'",
                        crate::printer::attr_to_string(self.ctx, loc)
                    ),
                );
            }
            match target {
                LocTarget::Op(op) => self.ctx.op_mut(op).loc = loc,
                LocTarget::Value(v) => self.ctx.values[v.0 as usize].loc = Some(loc),
            }
        }
        Ok(())
    }
}

fn memchr_lines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
}

/// Parses a decimal or `0x` hexadecimal integer literal.
/// How to accept a type or attribute of a dialect that is not registered, after MLIR's
/// "... created with unregistered dialect" messages.
pub(crate) const UNREGISTERED_HINT: &str =
    ". If this is intended, use --allow-unregistered-dialect";

/// Where an opaque dialect symbol's data starts and what it is, as MLIR reports it: the
/// text after `dialect.` for the pretty form (`#d.data`), or inside the angle brackets for
/// `#d<data>` (then reported at the symbol's start, `at`). `body` is the text after the
/// dialect name and its dot, brackets included.
pub(crate) fn opaque_symbol_data<'b>(at: usize, dialect: &str, body: &'b str) -> (usize, &'b str) {
    match body.strip_prefix('<').and_then(|b| b.strip_suffix('>')) {
        Some(inner) => (at, inner),
        None => (at + 1 + dialect.len() + 1, body),
    }
}

pub(crate) fn parse_u128(text: &str) -> Option<u128> {
    match text.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Decodes a resource blob `"0xAAAAAAAA<data>"`: a little-endian u32 alignment, then data.
fn parse_hex_blob(text: &str) -> Option<ResourceBlob> {
    let hex = text.strip_prefix("0x")?.as_bytes();
    if !hex.len().is_multiple_of(2) || hex.len() < 8 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let bytes: Vec<u8> = hex
        .chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect::<Option<_>>()?;
    let alignment = u32::from_le_bytes(bytes[..4].try_into().ok()?);
    if alignment == 0 || !alignment.is_power_of_two() {
        return None;
    }
    Some(ResourceBlob {
        alignment,
        data: bytes[4..].to_vec(),
    })
}
