//! Parsing builtin types, type aliases and opaque dialect types.

use super::{PResult, Parser};
use crate::attributes::{Attr, AttrKind};
use crate::lexer::TokenKind;
use crate::types::{DYNAMIC, FloatKind, Signedness, Type, TypeKind};

/// Largest integer width MLIR accepts.
const MAX_INT_WIDTH: u64 = (1 << 24) - 1;

/// A dimension list as written: sizes (DYNAMIC for `?`) and scalable flags.
struct Dims {
    shape: Vec<i64>,
    scalable: Vec<bool>,
}

impl<'a> Parser<'a> {
    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        self.nested(|p| p.parse_type_unguarded())
    }

    fn parse_type_unguarded(&mut self) -> PResult<Type> {
        match self.tok.kind {
            TokenKind::LParen => self.parse_function_type(),
            _ => self.parse_non_function_type(),
        }
    }

    /// `(T, ...) -> R` where R is one type or a parenthesized list.
    pub(crate) fn parse_function_type(&mut self) -> PResult<Type> {
        let inputs = self.parse_type_list_parens()?;
        self.expect(TokenKind::Arrow, "'->' in function type")?;
        let results = self.parse_function_result_types()?;
        Ok(self.ctx.function_type(inputs, results))
    }

    pub(crate) fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.is(TokenKind::LParen) {
            self.parse_type_list_parens()
        } else {
            Ok(vec![self.parse_non_function_type()?])
        }
    }

    pub(crate) fn parse_type_list_parens(&mut self) -> PResult<Vec<Type>> {
        self.expect(TokenKind::LParen, "'('")?;
        let mut types = Vec::new();
        self.parse_comma_list_until(TokenKind::RParen, |p| {
            types.push(p.parse_type()?);
            Ok(())
        })?;
        self.expect(TokenKind::RParen, "')'")?;
        Ok(types)
    }

    fn parse_non_function_type(&mut self) -> PResult<Type> {
        let tok = self.tok;
        match tok.kind {
            TokenKind::ExclaimIdent => self.parse_extended_type(),
            TokenKind::BareIdent => {
                let word = self.text(tok);
                if let Some(ty) = self.parse_integer_type_keyword(word)? {
                    self.advance();
                    return Ok(ty);
                }
                if let Some(kind) = FloatKind::from_keyword(word) {
                    self.advance();
                    return Ok(self.ctx.float_type(kind));
                }
                match word {
                    "index" => {
                        self.advance();
                        Ok(self.ctx.index_type())
                    }
                    "none" => {
                        self.advance();
                        Ok(self.ctx.intern_type(TypeKind::None))
                    }
                    "tensor" => self.parse_tensor_type(),
                    "memref" => self.parse_memref_type(),
                    "vector" => self.parse_vector_type(),
                    "complex" => {
                        self.advance();
                        self.expect(TokenKind::Less, "'<' in complex type")?;
                        let elem_at = self.tok.start;
                        let element = self.parse_type()?;
                        if !matches!(
                            self.ctx.type_kind(element),
                            TypeKind::Integer { .. } | TypeKind::Float(_)
                        ) {
                            return self.error_at(elem_at, "invalid element type for complex");
                        }
                        self.expect(TokenKind::Greater, "'>' in complex type")?;
                        Ok(self.ctx.intern_type(TypeKind::Complex(element)))
                    }
                    "tuple" => {
                        self.advance();
                        self.expect(TokenKind::Less, "'<' in tuple type")?;
                        let mut elements = Vec::new();
                        self.parse_comma_list_until(TokenKind::Greater, |p| {
                            elements.push(p.parse_type()?);
                            Ok(())
                        })?;
                        self.expect(TokenKind::Greater, "'>' in tuple type")?;
                        Ok(self.ctx.intern_type(TypeKind::Tuple(elements)))
                    }
                    _ => self.error("expected non-function type"),
                }
            }
            _ => self.error("expected non-function type"),
        }
    }

    /// `i32`, `si8`, `ui64`: returns `None` if `word` is not an integer type keyword.
    fn parse_integer_type_keyword(&mut self, word: &str) -> PResult<Option<Type>> {
        let (signedness, digits) = if let Some(d) = word.strip_prefix("si") {
            (Signedness::Signed, d)
        } else if let Some(d) = word.strip_prefix("ui") {
            (Signedness::Unsigned, d)
        } else if let Some(d) = word.strip_prefix('i') {
            (Signedness::Signless, d)
        } else {
            return Ok(None);
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        // Like MLIR, a width that does not fit 32 bits is invalid, a representable one
        // beyond the limit too large.
        let Ok(width) = digits.parse::<u32>() else {
            return self.error("invalid integer width");
        };
        let width = u64::from(width);
        if width > MAX_INT_WIDTH {
            return self.error(format!(
                "integer bitwidth is limited to {MAX_INT_WIDTH} bits"
            ));
        }
        Ok(Some(self.ctx.integer_type(width as u32, signedness)))
    }

    /// `!alias`, `!dialect.name<body>` or `!dialect<"body">`.
    fn parse_extended_type(&mut self) -> PResult<Type> {
        let tok = self.advance();
        let name = &self.text(tok)[1..];
        let body_follows = self.bytes.get(tok.end) == Some(&b'<');
        if let Some((dialect, rest)) = name.split_once('.') {
            let mut body = rest.to_string();
            if body_follows {
                self.reset_to(tok.end);
                let inner = self.capture_balanced()?;
                body = format!("{rest}<{inner}>");
            }
            return self.opaque_type(tok.start, dialect, body);
        }
        if let Some(&ty) = self.type_aliases.get(name) {
            return Ok(ty);
        }
        if body_follows {
            self.reset_to(tok.end);
            let inner = self.capture_balanced()?;
            return self.opaque_type(tok.start, name, format!("<{inner}>"));
        }
        self.error_at(tok.start, format!("undefined symbol alias id '{name}'"))
    }

    fn opaque_type(&mut self, at: usize, dialect: &str, body: String) -> PResult<Type> {
        match self.ctx.registered_type_from_text(dialect, &body) {
            Some(Ok(ty)) => return Ok(ty),
            Some(Err(message)) => {
                return self.error_at(at, format!("invalid '!{dialect}.{body}': {message}"));
            }
            None => {}
        }
        if self.ctx.dialect_defines_types(dialect) {
            let mnemonic = body.split('<').next().unwrap_or_default();
            return self.error_at(
                at,
                format!("dialect '{dialect}' has no type named '{mnemonic}'"),
            );
        }
        if !self.ctx.allow_unregistered_dialects {
            let (data_at, data) = super::opaque_symbol_data(at, dialect, &body);
            return self.error_at(
                data_at,
                format!(
                    "`!\"{dialect}\"<\"{data}\">` type created with unregistered dialect{}",
                    super::UNREGISTERED_HINT
                ),
            );
        }
        Ok(self.ctx.intern_type(TypeKind::Opaque {
            dialect: dialect.to_string(),
            body,
        }))
    }

    /// Scans `4x?x[8]x` directly from the bytes after `<`. Stops before the element type.
    fn parse_dimension_list(&mut self, allow_dynamic: bool, allow_scalable: bool) -> PResult<Dims> {
        let mut dims = Dims {
            shape: Vec::new(),
            scalable: Vec::new(),
        };
        let mut pos = self.tok.start;
        // MLIR lexes sizes and `x` as tokens, so blanks may separate them (`42 x i32`).
        let skip_blanks = |mut pos: usize| {
            while self.bytes.get(pos).is_some_and(u8::is_ascii_whitespace) {
                pos += 1;
            }
            pos
        };
        loop {
            pos = skip_blanks(pos);
            let start = pos;
            let (size, scalable) = match self.bytes.get(pos) {
                Some(b'?') => {
                    if !allow_dynamic {
                        return self.error_at(pos, "expected static shape");
                    }
                    pos += 1;
                    (DYNAMIC, false)
                }
                Some(b'[') if allow_scalable => {
                    pos += 1;
                    let digits_at = pos;
                    while self.bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                        pos += 1;
                    }
                    if pos == digits_at || self.bytes.get(pos) != Some(&b']') {
                        return self.error_at(
                            digits_at,
                            "expected scalable dimension size followed by ']'",
                        );
                    }
                    let size = self.dim_value(digits_at, pos)?;
                    pos += 1;
                    (size, true)
                }
                Some(c) if c.is_ascii_digit() => {
                    while self.bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                        pos += 1;
                    }
                    (self.dim_value(start, pos)?, false)
                }
                _ => break,
            };
            pos = skip_blanks(pos);
            if self.bytes.get(pos) != Some(&b'x') {
                return self.error_at(pos, "expected 'x' in dimension list");
            }
            pos += 1;
            dims.shape.push(size);
            dims.scalable.push(scalable);
        }
        self.reset_to(pos);
        Ok(dims)
    }

    fn dim_value(&self, start: usize, end: usize) -> PResult<i64> {
        self.src[start..end]
            .parse::<i64>()
            .or_else(|_| self.error_at(start, "invalid dimension"))
    }

    /// Parses the element type of a shaped type and checks it is allowed there.
    fn parse_element_type(&mut self, context: &str) -> PResult<(Type, usize)> {
        let at = self.tok.start;
        let ty = self.parse_type()?;
        let kind = self.ctx.type_kind(ty);
        let scalar = matches!(
            kind,
            TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_)
        );
        let ok = match context {
            "tensor" => {
                scalar
                    || matches!(
                        kind,
                        TypeKind::Complex(_)
                            | TypeKind::Vector { .. }
                            | TypeKind::Opaque { .. }
                            | TypeKind::Dialect(_)
                    )
            }
            "memref" => {
                scalar
                    || matches!(
                        kind,
                        TypeKind::Complex(_)
                            | TypeKind::Vector { .. }
                            | TypeKind::MemRef { .. }
                            | TypeKind::UnrankedMemRef { .. }
                    )
            }
            _ => scalar,
        };
        if !ok {
            return self.error_at(at, format!("invalid {context} element type"));
        }
        Ok((ty, at))
    }

    fn parse_tensor_type(&mut self) -> PResult<Type> {
        self.advance();
        self.expect(TokenKind::Less, "'<' in tensor type")?;
        if self.bytes.get(self.tok.start) == Some(&b'*') {
            self.reset_to(self.tok.start + 1);
            if self.bytes.get(self.tok.start) != Some(&b'x') {
                return self.error("expected 'x' in dimension list");
            }
            self.reset_to(self.tok.start + 1);
            let (element, _) = self.parse_element_type("tensor")?;
            self.expect(TokenKind::Greater, "'>' in tensor type")?;
            return Ok(self.ctx.intern_type(TypeKind::UnrankedTensor { element }));
        }
        let dims = self.parse_dimension_list(true, false)?;
        let (element, _) = self.parse_element_type("tensor")?;
        let encoding = if self.consume_if(TokenKind::Comma) {
            Some(self.parse_attribute()?)
        } else {
            None
        };
        self.expect(TokenKind::Greater, "'>' in tensor type")?;
        if dims.shape.iter().any(|&d| d < 0 && d != DYNAMIC) {
            return self.error("invalid tensor dimension size");
        }
        Ok(self.ctx.intern_type(TypeKind::RankedTensor {
            shape: dims.shape,
            element,
            encoding,
        }))
    }

    fn parse_memref_type(&mut self) -> PResult<Type> {
        let keyword_at = self.advance().start;
        self.expect(TokenKind::Less, "'<' in memref type")?;
        let unranked = self.bytes.get(self.tok.start) == Some(&b'*');
        let dims = if unranked {
            self.reset_to(self.tok.start + 1);
            if self.bytes.get(self.tok.start) != Some(&b'x') {
                return self.error("expected 'x' in dimension list");
            }
            self.reset_to(self.tok.start + 1);
            None
        } else {
            Some(self.parse_dimension_list(true, false)?)
        };
        let (element, _) = self.parse_element_type("memref")?;
        let mut layout = None;
        let mut memory_space = None;
        // `, layout-or-space (, ...)*`: MLIR's non-empty list up to the `>`.
        if !self.consume_if(TokenKind::Greater) {
            self.expect(TokenKind::Comma, "',' or '>' in memref type")?;
            if self.is(TokenKind::Greater) {
                return self.error("expected list element");
            }
            loop {
                let at = self.tok.start;
                let attr = self.parse_attribute()?;
                let is_layout = matches!(
                    self.ctx.attr_kind(attr),
                    AttrKind::AffineMap(_) | AttrKind::Strided { .. }
                );
                if is_layout && !unranked {
                    if layout.is_some() || memory_space.is_some() {
                        return self
                            .error_at(at, "expected memory space to be last in memref type");
                    }
                    layout = Some(attr);
                } else {
                    if memory_space.is_some() {
                        return self
                            .error_at(at, "multiple memory spaces specified in memref type");
                    }
                    memory_space = Some(attr);
                }
                if !self.consume_if(TokenKind::Comma) {
                    self.expect(TokenKind::Greater, "',' or '>'")?;
                    break;
                }
            }
        }
        // A registered dialect's own space (`#gpu.address_space<workgroup>`) is one too; an
        // unregistered dialect's attribute is not, as MLIR cannot know it names a space.
        let supported = |space: Attr| match self.ctx.attr_kind(space) {
            AttrKind::Integer { .. }
            | AttrKind::String { .. }
            | AttrKind::Dictionary(_)
            | AttrKind::Dialect(_) => true,
            AttrKind::Opaque { dialect, .. } => self.ctx.is_dialect_registered(dialect),
            _ => false,
        };
        if let Some(space) = memory_space
            && !supported(space)
        {
            return self.error_at(keyword_at, "unsupported memory space Attribute");
        }
        // Integer (or bool) zero is the default memory space; MLIR drops it.
        let memory_space = memory_space
            .filter(|&s| !matches!(self.ctx.attr_kind(s), AttrKind::Integer { value: 0, .. }));
        let ty = match dims {
            None => TypeKind::UnrankedMemRef {
                element,
                memory_space,
            },
            Some(dims) => {
                if let Some(layout) = layout
                    && let AttrKind::AffineMap(map) = self.ctx.attr_kind(layout)
                    && map.num_dims as usize != dims.shape.len()
                {
                    let (rank, map_dims) = (dims.shape.len(), map.num_dims);
                    return self.error_at(
                        keyword_at,
                        format!(
                            "memref layout mismatch between rank and affine map: {rank} != {map_dims}"
                        ),
                    );
                }
                if let Some(layout) = layout
                    && let AttrKind::Strided { strides, .. } = self.ctx.attr_kind(layout)
                    && strides.len() != dims.shape.len()
                {
                    return self.error_at(
                        keyword_at,
                        "expected the number of strides to match the rank",
                    );
                }
                // An identity map is the default layout; MLIR drops it.
                let layout = layout.filter(|&l| !matches!(self.ctx.attr_kind(l), AttrKind::AffineMap(m) if m.is_identity()));
                TypeKind::MemRef {
                    shape: dims.shape,
                    element,
                    layout,
                    memory_space,
                }
            }
        };
        Ok(self.ctx.intern_type(ty))
    }

    fn parse_vector_type(&mut self) -> PResult<Type> {
        let keyword_at = self.advance().start;
        self.expect(TokenKind::Less, "'<' in vector type")?;
        let dims = self.parse_dimension_list(false, true)?;
        let element = self.parse_type()?;
        if !matches!(
            self.ctx.type_kind(element),
            TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_)
        ) {
            return self.error_at(
                keyword_at,
                "failed to verify 'elementType': VectorElementTypeInterface instance",
            );
        }
        if dims.shape.contains(&0) {
            let sizes: Vec<String> = dims.shape.iter().map(|d| d.to_string()).collect();
            return self.error_at(
                keyword_at,
                format!(
                    "vector types must have positive constant sizes but got {}",
                    sizes.join(", ")
                ),
            );
        }
        self.expect(TokenKind::Greater, "'>' in vector type")?;
        Ok(self.ctx.intern_type(TypeKind::Vector {
            shape: dims.shape,
            scalable: dims.scalable,
            element,
        }))
    }
}

/// Whether a bare identifier starts a builtin type (`i32`, `f16`, `tensor`, ...).
pub(crate) fn is_type_keyword(word: &str) -> bool {
    let int_width = |digits: &str| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    matches!(
        word,
        "index" | "none" | "tensor" | "memref" | "vector" | "complex" | "tuple"
    ) || FloatKind::from_keyword(word).is_some()
        || word.strip_prefix('i').is_some_and(int_width)
        || word.strip_prefix("si").is_some_and(int_width)
        || word.strip_prefix("ui").is_some_and(int_width)
}
