//! Parsing builtin attributes, attribute aliases and opaque dialect attributes.

use super::{PResult, ParseError, Parser, parse_u128};
use crate::affine;
use crate::attributes::{Attr, AttrKind, DenseArrayData, DenseData, DenseElement};
use crate::float;
use crate::lexer::TokenKind;
use crate::types::{DYNAMIC, FloatKind, Signedness, Type, TypeKind};

/// A parsed but not yet typed `dense<...>` (or sparse values) literal.
enum DenseLiteral {
    Empty,
    /// A lone string: hex data for numeric elements, a string splat otherwise.
    Str(Vec<u8>, usize),
    Tree(DenseTree),
}

/// A dense literal as written: nested lists of scalars.
enum DenseTree {
    Scalar(Scalar, usize),
    List(Vec<DenseTree>, usize),
}

impl DenseTree {
    fn flatten_into(self, out: &mut Vec<(Scalar, usize)>) {
        match self {
            DenseTree::Scalar(s, at) => out.push((s, at)),
            DenseTree::List(children, _) => children.into_iter().for_each(|c| c.flatten_into(out)),
        }
    }
}

/// MLIR's out-of-range messages for an integer attribute, an element of a `dense<...>`
/// literal and an element of an `array<...>`.
const ATTR_RANGE: &str = "integer constant out of range for attribute";
const ELEMENT_RANGE: &str = "integer constant out of range for type";
const ARRAY_RANGE: &str = "integer constant out of range";

/// One scalar of a dense literal, with its source offset kept for errors.
#[derive(Clone)]

enum Scalar {
    Str(Vec<u8>),
    Int {
        negative: bool,
        magnitude: u128,
        hex: bool,
    },
    Float(f64),
    Bool(bool),
    Complex {
        re: (ScalarPart, usize),
        im: (ScalarPart, usize),
    },
}

#[derive(Clone, Copy)]
enum ScalarPart {
    Int {
        negative: bool,
        magnitude: u128,
        hex: bool,
    },
    Float(f64),
}

impl<'a> Parser<'a> {
    /// Parses any attribute.
    pub(crate) fn parse_attribute(&mut self) -> PResult<Attr> {
        self.nested(|p| p.parse_attribute_unguarded())
    }

    fn parse_attribute_unguarded(&mut self) -> PResult<Attr> {
        let tok = self.tok;
        match tok.kind {
            TokenKind::Integer | TokenKind::Float | TokenKind::Minus => self.parse_number_attr(),
            TokenKind::String => {
                let value = {
                    let t = self.advance();
                    self.string_value(t)?
                };
                let ty = if self.consume_if(TokenKind::Colon) {
                    Some(self.parse_type()?)
                } else {
                    None
                };
                Ok(self.ctx.intern_attr(AttrKind::String { value, ty }))
            }
            TokenKind::LSquare => {
                self.advance();
                let mut elements = Vec::new();
                self.parse_comma_list_until(TokenKind::RSquare, |p| {
                    elements.push(p.parse_attribute()?);
                    Ok(())
                })?;
                self.expect(TokenKind::RSquare, "',' or ']'")?;
                Ok(self.ctx.intern_attr(AttrKind::Array(elements)))
            }
            TokenKind::LBrace => self.parse_dictionary_attr(),
            TokenKind::AtIdent => self.parse_symbol_ref(),
            TokenKind::HashIdent => self.parse_extended_attr(),
            TokenKind::BareIdent => match self.text(tok) {
                "unit" => {
                    self.advance();
                    Ok(self.ctx.unit_attr())
                }
                "true" | "false" => {
                    let value = self.take_text() == "true";
                    let i1 = self.ctx.i1();
                    Ok(self.ctx.integer_attr(value as i128, i1))
                }
                "dense" => self.parse_dense_attr(),
                "sparse" => self.parse_sparse_attr(),
                "distinct" => self.parse_distinct_attr(),
                "dense_resource" => self.parse_dense_resource_attr(),
                "array" => self.parse_dense_array_attr(),
                "affine_map" | "affine_set" => self.parse_affine_attr(),
                "strided" => self.parse_strided_attr(),
                "loc" => self.parse_location_attr(),
                word if is_builtin_type_keyword(word) => {
                    let ty = self.parse_type()?;
                    Ok(self.ctx.type_attr(ty))
                }
                _ => self.error("expected attribute value"),
            },
            TokenKind::ExclaimIdent | TokenKind::LParen => {
                let ty = self.parse_type()?;
                Ok(self.ctx.type_attr(ty))
            }
            _ => self.error("expected attribute value"),
        }
    }

    /// `{key = value, unit_key, "quoted" = value}`.
    pub(crate) fn parse_dictionary_attr(&mut self) -> PResult<Attr> {
        let entries = self.parse_dictionary_entries()?;
        Ok(self.ctx.intern_attr(AttrKind::Dictionary(entries)))
    }

    /// The entries of `{...}`, sorted, rejecting duplicate keys.
    pub(crate) fn parse_dictionary_entries(&mut self) -> PResult<Vec<(String, Attr)>> {
        self.expect(TokenKind::LBrace, "'{'")?;
        let mut entries: Vec<(String, Attr, usize)> = Vec::new();
        self.parse_comma_list_until(TokenKind::RBrace, |p| {
            let at = p.tok.start;
            let key = match p.tok.kind {
                TokenKind::BareIdent => p.take_text().to_string(),
                TokenKind::String => {
                    let key = p.parse_string("attribute name")?;
                    if key.is_empty() {
                        return p.error_at(at, "expected valid attribute name");
                    }
                    key
                }
                _ => return p.error("expected attribute name"),
            };
            if entries.iter().any(|(k, _, _)| *k == key) {
                return p.error_at(at, format!("duplicate key '{key}' in dictionary attribute"));
            }
            let value = if p.consume_if(TokenKind::Equal) {
                p.parse_attribute()?
            } else {
                p.ctx.unit_attr()
            };
            entries.push((key, value, at));
            Ok(())
        })?;
        self.expect(TokenKind::RBrace, "'}' in attribute dictionary")?;
        let mut entries: Vec<(String, Attr)> =
            entries.into_iter().map(|(k, v, _)| (k, v)).collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    fn parse_symbol_ref(&mut self) -> PResult<Attr> {
        let root = self.parse_symbol_name()?;
        let mut nested = Vec::new();
        loop {
            let pos = crate::lexer::skip_trivia(self.bytes, self.tok.start);
            if !(self.bytes[pos..].starts_with(b"::") && self.tok.kind == TokenKind::Colon) {
                break;
            }
            self.reset_to(pos + 2);
            if !self.is(TokenKind::AtIdent) {
                return self.error("expected nested symbol reference identifier");
            }
            nested.push(self.parse_symbol_name()?);
        }
        Ok(self.ctx.intern_attr(AttrKind::SymbolRef { root, nested }))
    }

    /// `@name` or `@"name"` to its string.
    pub(crate) fn parse_symbol_name(&mut self) -> PResult<String> {
        let tok = self.advance();
        let text = &self.text(tok)[1..];
        if text.starts_with('"') {
            let body = &self.bytes[tok.start + 2..tok.end - 1];
            let bytes = crate::lexer::unescape(body).map_err(|(at, m)| ParseError {
                offset: tok.start + 2 + at,
                message: m.into(),
                notes: vec![],
            })?;
            return String::from_utf8(bytes)
                .or_else(|_| self.error_at(tok.start, "symbol name is not valid UTF-8"));
        }
        Ok(text.to_string())
    }

    /// `#alias`, `#dialect.name<body>` or `#dialect<"body">`.
    fn parse_extended_attr(&mut self) -> PResult<Attr> {
        let tok = self.advance();
        let name = &self.text(tok)[1..];
        let body_follows = self.bytes.get(tok.end) == Some(&b'<');
        let (dialect, body) = if let Some((dialect, rest)) = name.split_once('.') {
            let mut body = rest.to_string();
            if body_follows {
                self.reset_to(tok.end);
                body = format!("{rest}<{}>", self.capture_balanced()?);
            }
            (dialect, body)
        } else if let Some(&attr) = self.attr_aliases.get(name) {
            return Ok(attr);
        } else if body_follows {
            self.reset_to(tok.end);
            (name, format!("<{}>", self.capture_balanced()?))
        } else {
            return self.error_at(tok.start, format!("undefined symbol alias id '{name}'"));
        };
        // The optional type comes first, as MLIR reads it before building the attribute.
        let ty = if self.consume_if(TokenKind::Colon) {
            Some(self.parse_type()?)
        } else {
            None
        };
        if !self.ctx.allow_unregistered_dialects && !self.ctx.is_dialect_registered(dialect) {
            let (data_at, data) = super::opaque_symbol_data(tok.start, dialect, &body);
            let ty_text = match ty {
                Some(ty) => crate::printer::type_to_string(self.ctx, ty),
                None => "none".to_string(),
            };
            return self.error_at(
                data_at,
                format!(
                    "#\"{dialect}\"<\"{data}\"> : '{ty_text}' attribute created with unregistered dialect{}",
                    super::UNREGISTERED_HINT
                ),
            );
        }
        // Typed when the dialect registered the mnemonic (`crate::dialect_attr`).
        match self.ctx.dialect_attr_from_text(dialect, &body, ty) {
            Ok(attr) => Ok(attr),
            Err(message) => self.error_at(tok.start, message),
        }
    }

    // ---- numbers ----

    fn parse_number_attr(&mut self) -> PResult<Attr> {
        let start = self.tok.start;
        let negative = self.consume_if(TokenKind::Minus);
        let tok = self.tok;
        match tok.kind {
            TokenKind::Float => {
                self.advance();
                let value = self.float_literal_value(tok.start, negative)?;
                let ty = if self.consume_if(TokenKind::Colon) {
                    let ty_at = self.tok.start;
                    let ty = self.parse_type()?;
                    if !matches!(self.ctx.type_kind(ty), TypeKind::Float(_)) {
                        return self
                            .error_at(ty_at, "floating point value not valid for specified type");
                    }
                    ty
                } else {
                    self.ctx.float_type(FloatKind::F64)
                };
                self.make_float_attr(start, value, ty)
            }
            TokenKind::Integer => {
                self.advance();
                let text = self.text(tok);
                let magnitude = parse_u128(text).ok_or_else(|| ParseError {
                    offset: tok.start,
                    message: "integer constant out of range for attribute".into(),
                    notes: vec![],
                })?;
                let ty = if self.consume_if(TokenKind::Colon) {
                    self.parse_type()?
                } else {
                    self.ctx.i64()
                };
                if let TypeKind::Float(kind) = *self.ctx.type_kind(ty) {
                    if !text.starts_with("0x") {
                        return Err(ParseError {
                            offset: tok.start,
                            message:
                                "unexpected decimal integer literal for a floating point value"
                                    .into(),
                            notes: vec![(
                                tok.start,
                                "add a trailing dot to make the literal a float".into(),
                            )],
                        });
                    }
                    if negative {
                        return self.error_at(
                            tok.start,
                            "hexadecimal float literal should not have a leading minus",
                        );
                    }
                    return self.make_hex_float_attr(tok.start, kind, magnitude, ty);
                }
                if let TypeKind::Integer { width, signedness } = *self.ctx.type_kind(ty)
                    && width > 128
                    && magnitude > i128::MAX as u128
                {
                    if negative && signedness == Signedness::Unsigned {
                        return self.error_at(
                            tok.start,
                            "negative integer literal not valid for unsigned integer type",
                        );
                    }
                    return Ok(self.ctx.intern_attr(AttrKind::WideInteger {
                        negative,
                        magnitude,
                        ty,
                    }));
                }
                let value = self.check_integer(tok.start, negative, magnitude, ty, ATTR_RANGE)?;
                Ok(self.ctx.integer_attr(value, ty))
            }
            _ if negative => self.error("expected constant integer or floating point value"),
            _ => self.error("expected attribute value"),
        }
    }

    fn float_literal_value(&self, at: usize, negative: bool) -> PResult<f64> {
        let end = crate::lexer::lex(self.bytes, at).end;
        let v: f64 = self.src[at..end]
            .parse()
            .or_else(|_| self.error_at(at, "invalid floating point literal"))?;
        Ok(if negative { -v } else { v })
    }

    fn make_float_attr(&mut self, at: usize, value: f64, ty: Type) -> PResult<Attr> {
        let TypeKind::Float(kind) = *self.ctx.type_kind(ty) else {
            return self.error_at(at, "floating point value not valid for specified type");
        };
        let bits = float::bits_from_f64(kind, value).ok_or_else(|| ParseError {
            offset: at,
            message: format!(
                "decimal literals for '{}' are not supported; use a hexadecimal bit pattern",
                kind.keyword()
            ),
            notes: vec![],
        })?;
        Ok(self.ctx.intern_attr(AttrKind::Float { bits, ty }))
    }

    fn make_hex_float_attr(
        &mut self,
        at: usize,
        kind: FloatKind,
        bits: u128,
        ty: Type,
    ) -> PResult<Attr> {
        if kind.width() < 128 && bits >> kind.width() != 0 {
            return self.error_at(at, "hexadecimal float constant out of range for type");
        }
        Ok(self.ctx.intern_attr(AttrKind::Float { bits, ty }))
    }

    /// Checks an integer literal against its type and returns its canonical value, with
    /// MLIR's rules: the magnitude must fit the width, a negated value must have its sign
    /// bit set (so `-0` is out of range), and a positive signed or index value must not.
    /// `range_error` is the out-of-range message of the calling context.
    pub(crate) fn check_integer(
        &self,
        at: usize,
        negative: bool,
        magnitude: u128,
        ty: Type,
        range_error: &str,
    ) -> PResult<i128> {
        let (width, signedness, sign_checked) = match *self.ctx.type_kind(ty) {
            TypeKind::Integer { width, signedness } => {
                (width, signedness, signedness == Signedness::Signed)
            }
            TypeKind::Index => (64, Signedness::Signless, true),
            _ => return self.error_at(at, "integer literal not valid for specified type"),
        };
        if negative && signedness == Signedness::Unsigned {
            return self.error_at(
                at,
                "negative integer literal not valid for unsigned integer type",
            );
        }
        let out_of_range = || ParseError {
            offset: at,
            message: range_error.into(),
            notes: vec![],
        };
        if width == 0 {
            return if magnitude == 0 && !negative {
                Ok(0)
            } else {
                Err(out_of_range())
            };
        }
        if negative && magnitude == 0 {
            return Err(out_of_range());
        }
        if width >= 128 {
            // Values are kept in 128 bits: i128 wraps like MLIR's APInt, wider types accept
            // whatever fits there (wider magnitudes are `WideInteger`s).
            let half = 1u128 << 127;
            return match (negative, width == 128 && !sign_checked) {
                (true, _) if magnitude <= half => Ok((magnitude as i128).wrapping_neg()),
                (false, true) => Ok(magnitude as i128),
                (false, false) if magnitude < half => Ok(magnitude as i128),
                _ => Err(out_of_range()),
            };
        }
        if width == 1 {
            // Booleans are 0 or 1; `-1 : i1` is `true` too.
            return if magnitude > 1 {
                Err(out_of_range())
            } else {
                Ok(magnitude as i128)
            };
        }
        let limit = 1u128 << width;
        let half = 1u128 << (width - 1);
        if negative {
            if magnitude > half {
                return Err(out_of_range());
            }
            return Ok(-(magnitude as i128));
        }
        if magnitude >= limit || (sign_checked && magnitude >= half) {
            return Err(out_of_range());
        }
        // Signless values keep MLIR's signed view: sign-extend from `width`.
        Ok(match signedness {
            Signedness::Unsigned => magnitude as i128,
            _ if magnitude >= half => magnitude as i128 - limit as i128,
            _ => magnitude as i128,
        })
    }

    // ---- dense ----

    fn parse_dense_attr(&mut self) -> PResult<Attr> {
        let attr_at = self.tok.start;
        self.advance();
        self.expect(TokenKind::Less, "'<' after 'dense'")?;
        let literal_at = self.tok.start;
        let literal = self.parse_dense_literal()?;
        let (ty, _, _) = self.parse_elements_type(attr_at)?;
        self.build_dense(literal_at, literal, ty)
    }

    /// An attribute whose elements type `ty` goes unwritten, as ops that spell the type
    /// elsewhere print their elements literals (`= dense<1.0>`, `= sparse<...>`).
    pub(crate) fn parse_attribute_of_type(&mut self, ty: Type) -> PResult<Attr> {
        self.implied_elements_type = Some(ty);
        let result = self.parse_attribute();
        self.implied_elements_type = None;
        result
    }

    /// `> : type` closing an elements literal: a shaped type with a static shape. Returns the
    /// type, its shape and where it was written.
    /// The `: type` after a `dense<...>`/`sparse<...>` literal; its errors point at the
    /// attribute (at `attr_at`), as MLIR's do.
    fn parse_elements_type(&mut self, attr_at: usize) -> PResult<(Type, Vec<i64>, usize)> {
        self.expect(TokenKind::Greater, "'>'")?;
        let ty_at = self.tok.start;
        let ty = match self.implied_elements_type.take() {
            Some(ty) => ty,
            None => {
                self.expect(TokenKind::Colon, "':'")?;
                self.parse_type()?
            }
        };
        let Some(shape) = self.ctx.type_kind(ty).shape().map(<[i64]>::to_vec) else {
            return self.error_at(attr_at, "elements literal must be a shaped type");
        };
        if shape.contains(&DYNAMIC) {
            return self.error_at(attr_at, "elements literal type must have static shape");
        }
        Ok((ty, shape, ty_at))
    }

    /// The literal inside `dense<...>`, up to (not including) the closing `>` or `,`.
    fn parse_dense_literal(&mut self) -> PResult<DenseLiteral> {
        if self.is(TokenKind::Greater) {
            return Ok(DenseLiteral::Empty);
        }
        if self.is(TokenKind::String) {
            let tok = self.advance();
            return Ok(DenseLiteral::Str(self.string_value(tok)?, tok.start));
        }
        Ok(DenseLiteral::Tree(self.parse_dense_tree()?))
    }

    /// Types a dense literal against the shaped type `ty`.
    fn build_dense(&mut self, at: usize, literal: DenseLiteral, ty: Type) -> PResult<Attr> {
        let kind = self.ctx.type_kind(ty);
        let shape = kind.shape().expect("shaped type").to_vec();
        let element = kind.element().expect("shaped types have elements");
        let Some(count) = crate::types::shape_num_elements(&shape)
            .ok()
            .filter(|&c| c <= 1 << 40)
        else {
            return self.error_at(at, "elements literal type has too many elements");
        };
        let numeric = matches!(
            self.ctx.type_kind(element),
            TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_) | TypeKind::Complex(_)
        );
        if !numeric {
            let (splat, values) = match literal {
                DenseLiteral::Empty => (false, vec![]),
                DenseLiteral::Str(s, _) => (count != 1, vec![s]),
                DenseLiteral::Tree(tree) => {
                    let literal_shape = self.dense_tree_shape(&tree)?;
                    let mut scalars = Vec::new();
                    tree.flatten_into(&mut scalars);
                    let splat = literal_shape.is_empty() && count != 1;
                    if !literal_shape.is_empty() && literal_shape != shape {
                        return self.shape_mismatch(at, &literal_shape, &shape);
                    }
                    let mut values = Vec::new();
                    for (scalar, scalar_at) in scalars {
                        let token_at = match scalar {
                            Scalar::Str(s) => {
                                values.push(s);
                                continue;
                            }
                            // A complex literal's first token is its real part.
                            Scalar::Complex { re: (_, re_at), .. } => re_at,
                            _ => scalar_at,
                        };
                        let spelling = self.literal_spelling(token_at);
                        return self.error_at(at, format!("expected string token, got {spelling}"));
                    }
                    (splat, values)
                }
            };
            if values.is_empty() && count != 0 {
                return self.no_elements_error(at, ty);
            }
            return Ok(self
                .ctx
                .intern_attr(AttrKind::DenseStrings { ty, splat, values }));
        }
        let data = match literal {
            DenseLiteral::Empty => {
                if count != 0 {
                    return self.no_elements_error(at, ty);
                }
                DenseData {
                    splat: false,
                    elements: vec![],
                }
            }
            DenseLiteral::Str(text, str_at) => {
                let bytes = std::str::from_utf8(&text)
                    .ok()
                    .and_then(|t| t.strip_prefix("0x"))
                    .and_then(decode_hex);
                let Some(bytes) = bytes else {
                    return self.error_at(
                        str_at,
                        "expected string containing hex digits starting with `0x`",
                    );
                };
                self.dense_from_hex(str_at, &bytes, element, count)?
            }
            DenseLiteral::Tree(tree) => {
                let literal_shape = self.dense_tree_shape(&tree)?;
                let mut scalars = Vec::new();
                tree.flatten_into(&mut scalars);
                let splat = literal_shape.is_empty();
                if !splat && literal_shape != shape {
                    return self.shape_mismatch(at, &literal_shape, &shape);
                }
                // MLIR counts a complex literal's numbers: two per element, a pair or not.
                if matches!(self.ctx.type_kind(element), TypeKind::Complex(_)) {
                    let parsed: i64 = scalars
                        .iter()
                        .map(|(s, _)| {
                            if matches!(s, Scalar::Complex { .. }) {
                                2
                            } else {
                                1
                            }
                        })
                        .sum();
                    let (expected, shown) = if splat { (2, element) } else { (2 * count, ty) };
                    if (!splat || count != 0) && parsed != expected {
                        return self.error_at(
                            at,
                            format!(
                                "parsed {parsed} elements, but type ('{}') expected {expected} elements",
                                crate::printer::type_to_string(self.ctx, shown)
                            ),
                        );
                    }
                }
                let mut elements = Vec::with_capacity(scalars.len());
                for (scalar, at) in scalars {
                    elements.push(self.dense_element(at, scalar, element)?);
                }
                DenseData { splat, elements }
            }
        };
        let data = normalize_splat(data, count);
        Ok(self.ctx.intern_attr(AttrKind::DenseElements { ty, data }))
    }

    fn no_elements_error<T>(&self, at: usize, ty: Type) -> PResult<T> {
        self.error_at(
            at,
            format!(
                "parsed zero elements, but type ('{}') expected at least 1",
                crate::printer::type_to_string(self.ctx, ty)
            ),
        )
    }

    fn shape_mismatch<T>(&self, at: usize, literal: &[i64], ty: &[i64]) -> PResult<T> {
        self.error_at(
            at,
            format!(
                "inferred shape of elements literal ([{}]) does not match type ([{}])",
                join(literal),
                join(ty)
            ),
        )
    }

    /// `sparse<indices, values> : type` or `sparse<> : type`.
    fn parse_sparse_attr(&mut self) -> PResult<Attr> {
        let attr_at = self.tok.start;
        self.advance();
        self.expect(TokenKind::Less, "'<' after 'sparse'")?;
        let mut index_shape = vec![0, 0];
        let mut indices = Vec::new();
        let mut values_literal = None;
        if !self.is(TokenKind::Greater) {
            let tree = self.parse_dense_tree()?;
            index_shape = self.dense_tree_shape(&tree)?;
            let mut scalars = Vec::new();
            tree.flatten_into(&mut scalars);
            for (scalar, at) in scalars {
                match scalar {
                    Scalar::Int {
                        negative: false,
                        magnitude,
                        ..
                    } if magnitude <= i64::MAX as u128 => indices.push(magnitude as i64),
                    Scalar::Float(_) => {
                        return self
                            .error_at(at, "expected integer elements, but parsed floating-point");
                    }
                    _ => return self.error_at(at, "expected a non-negative integer sparse index"),
                }
            }
            self.expect(TokenKind::Comma, "','")?;
            let at = self.tok.start;
            values_literal = Some((at, self.parse_dense_literal()?));
        }
        let (ty, shape, _) = self.parse_elements_type(attr_at)?;
        let element = self.ctx.type_kind(ty).element().expect("shaped");
        // As MLIR, the values are typed first, then checked against the indices and the
        // type, then the indices against the type's bounds.
        let values = match values_literal {
            None => None,
            Some((at, literal)) => {
                // MLIR's shape of the indices: one coordinate written alone is one index.
                let num_indices = if index_shape.is_empty() {
                    1
                } else {
                    index_shape[0]
                };
                // A lone value (a scalar or a hex string) stands for one value per index.
                let (stored_shape, values_shape) = match &literal {
                    DenseLiteral::Tree(DenseTree::Scalar(..)) => (vec![], vec![num_indices]),
                    DenseLiteral::Tree(tree) => {
                        let literal_shape = self.dense_tree_shape(tree)?;
                        (literal_shape.clone(), literal_shape)
                    }
                    _ => (vec![num_indices], vec![num_indices]),
                };
                let values_ty = self.ctx.intern_type(TypeKind::RankedTensor {
                    shape: stored_shape,
                    element,
                    encoding: None,
                });
                let values = self.build_dense(at, literal, values_ty)?;
                self.check_sparse_shapes(attr_at, &shape, &index_shape, &values_shape)?;
                Some(values)
            }
        };
        let rank = shape.len().max(1);
        // One coordinate written alone stands for the same value in every dimension.
        let coordinates: Vec<Vec<i64>> = if index_shape.is_empty() {
            indices
                .first()
                .map(|&i| vec![i; rank])
                .into_iter()
                .collect()
        } else {
            indices.chunks(rank).map(<[i64]>::to_vec).collect()
        };
        for (number, index) in coordinates.iter().enumerate() {
            let outside = index
                .iter()
                .enumerate()
                .any(|(d, &i)| i >= shape.get(d).copied().unwrap_or(1));
            if outside {
                return self.error_at(
                    attr_at,
                    format!(
                        "sparse index #{number} is not contained within the value shape, with index=[{}], and type='{}'",
                        join(index),
                        crate::printer::type_to_string(self.ctx, ty)
                    ),
                );
            }
        }
        Ok(self.ctx.intern_attr(AttrKind::Sparse {
            ty,
            index_shape,
            indices,
            values,
        }))
    }

    /// MLIR's checks of a sparse literal's shapes: 1-d values, indices that are a list of
    /// coordinates of the type's rank (or, for a 1-d type, a list of positions), and one
    /// value per index. `index_shape` is empty for one coordinate written alone.
    fn check_sparse_shapes(
        &self,
        attr_at: usize,
        shape: &[i64],
        index_shape: &[i64],
        values_shape: &[i64],
    ) -> PResult<()> {
        if values_shape.len() != 1 {
            return self.error_at(attr_at, "expected 1-d tensor for sparse element values");
        }
        let rank = shape.len() as i64;
        let indices_shape = if index_shape.is_empty() {
            vec![1, rank]
        } else {
            index_shape.to_vec()
        };
        let indices_fit = match indices_shape.len() {
            2 => indices_shape[1] == rank,
            1 => rank == 1,
            _ => false,
        };
        if !indices_fit || indices_shape[0] != values_shape[0] {
            return self.error_at(
                attr_at,
                format!(
                    "expected shape ([{}]); inferred shape of indices literal ([{}]); inferred shape of values literal ([{}])",
                    join(shape),
                    join(&indices_shape),
                    join(values_shape)
                ),
            );
        }
        Ok(())
    }

    /// `distinct[id]<attr>`
    fn parse_distinct_attr(&mut self) -> PResult<Attr> {
        let at = self.tok.start;
        self.advance();
        self.expect(TokenKind::LSquare, "'[' after 'distinct'")?;
        if !self.is(TokenKind::Integer) {
            return self.error("expected distinct ID");
        }
        let id_tok = self.advance();
        let Some(id) = super::parse_u128(self.text(id_tok)).and_then(|v| u64::try_from(v).ok())
        else {
            return Err(self.error_at_token("expected an unsigned 64-bit integer"));
        };
        self.expect(TokenKind::RSquare, "']' to close distinct ID")?;
        self.expect(TokenKind::Less, "'<' after distinct ID")?;
        // `distinct[N]<>` refers to the unit attribute.
        let inner = if self.consume_if(TokenKind::Greater) {
            self.ctx.unit_attr()
        } else {
            let inner = self.parse_attribute()?;
            self.expect(TokenKind::Greater, "'>' to close distinct attribute")?;
            inner
        };
        match self.distinct_ids.get(&id) {
            Some(&prev) if prev != inner => {
                return self.error_at(
                    at,
                    format!(
                        "referenced attribute does not match previous definition: {}",
                        crate::printer::attr_to_string(self.ctx, prev)
                    ),
                );
            }
            _ => {
                self.distinct_ids.insert(id, inner);
            }
        }
        Ok(self.ctx.intern_attr(AttrKind::Distinct { id, inner }))
    }

    /// Parses a nested list `[[1, 2], [3, 4]]` or a single scalar.
    fn parse_dense_tree(&mut self) -> PResult<DenseTree> {
        self.nested(|p| p.parse_dense_tree_unguarded())
    }

    fn parse_dense_tree_unguarded(&mut self) -> PResult<DenseTree> {
        if !self.is(TokenKind::LSquare) {
            let at = self.tok.start;
            return Ok(DenseTree::Scalar(self.parse_dense_scalar()?, at));
        }
        let open = self.advance();
        let mut children = Vec::new();
        self.parse_comma_list_until(TokenKind::RSquare, |p| {
            children.push(p.parse_dense_tree()?);
            Ok(())
        })?;
        self.expect(TokenKind::RSquare, "']' in dense elements literal")?;
        Ok(DenseTree::List(children, open.start))
    }

    /// The text of the literal token at `at`, without a leading minus sign (MLIR keeps the
    /// sign apart from an element's token).
    fn literal_spelling(&self, at: usize) -> &'a str {
        let mut pos = crate::lexer::skip_trivia(self.bytes, at);
        if self.bytes.get(pos) == Some(&b'-') {
            pos += 1;
        }
        let tok = crate::lexer::lex(self.bytes, pos);
        self.text(tok)
    }

    /// The shape a literal tree implies, checking every sub-list agrees.
    fn dense_tree_shape(&self, tree: &DenseTree) -> PResult<Vec<i64>> {
        match tree {
            DenseTree::Scalar(..) => Ok(vec![]),
            DenseTree::List(children, at) => {
                let mut shape = vec![children.len() as i64];
                if let Some(first) = children.first() {
                    let inner = self.dense_tree_shape(first)?;
                    for child in &children[1..] {
                        if self.dense_tree_shape(child)? != inner {
                            return self.error_at(*at, "tensor literal is invalid; ranks are not consistent between elements");
                        }
                    }
                    shape.extend(inner);
                }
                Ok(shape)
            }
        }
    }

    fn parse_dense_scalar(&mut self) -> PResult<Scalar> {
        if self.is(TokenKind::LParen) {
            self.advance();
            let re_at = self.tok.start;
            let re = self.parse_scalar_part()?;
            self.expect(TokenKind::Comma, "',' between complex elements")?;
            let im_at = self.tok.start;
            let im = self.parse_scalar_part()?;
            self.expect(TokenKind::RParen, "')' after complex elements")?;
            return Ok(Scalar::Complex {
                re: (re, re_at),
                im: (im, im_at),
            });
        }
        if self.is_keyword("true") || self.is_keyword("false") {
            return Ok(Scalar::Bool(self.take_text() == "true"));
        }
        if self.is(TokenKind::String) {
            let tok = self.advance();
            return Ok(Scalar::Str(self.string_value(tok)?));
        }
        let negative = self.consume_if(TokenKind::Minus);
        let tok = self.tok;
        match tok.kind {
            TokenKind::Integer => {
                self.advance();
                let text = self.text(tok);
                let magnitude = parse_u128(text).ok_or_else(|| ParseError {
                    offset: tok.start,
                    message: "integer constant out of range".into(),
                    notes: vec![],
                })?;
                Ok(Scalar::Int {
                    negative,
                    magnitude,
                    hex: text.starts_with("0x"),
                })
            }
            TokenKind::Float => {
                self.advance();
                Ok(Scalar::Float(
                    self.float_literal_value(tok.start, negative)?,
                ))
            }
            _ => self.error("expected element literal of primitive type"),
        }
    }

    fn parse_scalar_part(&mut self) -> PResult<ScalarPart> {
        let negative = self.consume_if(TokenKind::Minus);
        let tok = self.tok;
        match tok.kind {
            TokenKind::Integer => {
                self.advance();
                let magnitude = parse_u128(self.text(tok)).ok_or_else(|| ParseError {
                    offset: tok.start,
                    message: "integer constant out of range".into(),
                    notes: vec![],
                })?;
                Ok(ScalarPart::Int {
                    negative,
                    magnitude,
                    hex: self.text(tok).starts_with("0x"),
                })
            }
            TokenKind::Float => {
                self.advance();
                Ok(ScalarPart::Float(
                    self.float_literal_value(tok.start, negative)?,
                ))
            }
            _ => self.error("expected element literal of primitive type"),
        }
    }

    fn dense_element(&self, at: usize, scalar: Scalar, element: Type) -> PResult<DenseElement> {
        match (self.ctx.type_kind(element).clone(), scalar) {
            (TypeKind::Integer { width: 1, .. }, Scalar::Bool(b)) => {
                Ok(DenseElement::Int(b as i128))
            }
            (
                TypeKind::Integer { width: 1, .. },
                Scalar::Int {
                    negative: false,
                    magnitude,
                    ..
                },
            ) if magnitude <= 1 => Ok(DenseElement::Int(magnitude as i128)),
            (
                TypeKind::Integer {
                    signedness: Signedness::Unsigned,
                    ..
                },
                Scalar::Int { negative: true, .. },
            ) => self.error_at(
                at,
                "expected unsigned integer elements, but parsed negative value",
            ),
            (
                TypeKind::Integer { .. } | TypeKind::Index,
                Scalar::Int {
                    negative,
                    magnitude,
                    ..
                },
            ) => Ok(DenseElement::Int(self.check_integer(
                at,
                negative,
                magnitude,
                element,
                ELEMENT_RANGE,
            )?)),
            (TypeKind::Integer { .. } | TypeKind::Index, Scalar::Bool(_)) => {
                self.error_at(at, "expected i1 type for 'true' or 'false' values")
            }
            (TypeKind::Integer { .. } | TypeKind::Index, _) => {
                self.error_at(at, "expected integer elements, but parsed floating-point")
            }
            (TypeKind::Float(kind), Scalar::Float(v)) => float::bits_from_f64(kind, v)
                .map(DenseElement::Float)
                .ok_or_else(|| ParseError {
                    offset: at,
                    message: format!(
                        "decimal literals for '{}' are not supported",
                        kind.keyword()
                    ),
                    notes: vec![],
                }),
            (
                TypeKind::Float(kind),
                Scalar::Int {
                    negative: false,
                    magnitude,
                    hex: true,
                },
            ) => {
                if kind.width() < 128 && magnitude >> kind.width() != 0 {
                    return self.error_at(at, "hexadecimal float constant out of range for type");
                }
                Ok(DenseElement::Float(magnitude))
            }
            (TypeKind::Float(_), Scalar::Int { hex, .. }) => Err(integer_for_float_error(at, hex)),
            (TypeKind::Float(_), _) => self.error_at(at, "expected floating point literal"),
            (TypeKind::Complex(inner), Scalar::Complex { re, im }) => match *self
                .ctx
                .type_kind(inner)
            {
                TypeKind::Float(kind) => {
                    let part = |(p, at): (ScalarPart, usize)| match p {
                        ScalarPart::Float(v) => {
                            float::bits_from_f64(kind, v).ok_or_else(|| ParseError {
                                offset: at,
                                message: "unsupported float type".into(),
                                notes: vec![],
                            })
                        }
                        // A hexadecimal integer is the part's bit pattern.
                        ScalarPart::Int {
                            negative: false,
                            magnitude,
                            hex: true,
                        } if kind.width() >= 128 || magnitude >> kind.width() == 0 => Ok(magnitude),
                        ScalarPart::Int { hex, .. } => Err(integer_for_float_error(at, hex)),
                    };
                    Ok(DenseElement::ComplexFloat(part(re)?, part(im)?))
                }
                _ => {
                    let part = |(p, at): (ScalarPart, usize)| match p {
                        ScalarPart::Int {
                            negative,
                            magnitude,
                            ..
                        } => self.check_integer(at, negative, magnitude, inner, ELEMENT_RANGE),
                        ScalarPart::Float(_) => Err(ParseError {
                            offset: at,
                            message: "expected integer elements, but parsed floating-point".into(),
                            notes: vec![],
                        }),
                    };
                    Ok(DenseElement::ComplexInt(part(re)?, part(im)?))
                }
            },
            (TypeKind::Complex(_), _) => {
                self.error_at(at, "expected complex element literal '(re, im)'")
            }
            (_, Scalar::Str(_)) => {
                self.error_at(at, "expected numeric elements, but parsed a string")
            }
            _ => self.error_at(at, "dense elements literal has an unsupported element type"),
        }
    }

    /// Decodes raw little-endian element data, one element (a splat) or all of them.
    /// Booleans are packed eight to a byte, least significant bit first.
    fn dense_from_hex(
        &self,
        at: usize,
        bytes: &[u8],
        element: Type,
        count: i64,
    ) -> PResult<DenseData> {
        let count = count as usize;
        if matches!(
            self.ctx.type_kind(element),
            TypeKind::Integer { width: 1, .. }
        ) {
            if bytes.len() == 1 && (bytes[0] == 0 || bytes[0] == 0xff) {
                return Ok(DenseData {
                    splat: count != 1,
                    elements: vec![DenseElement::Int((bytes[0] != 0) as i128)],
                });
            }
            if bytes.len() != count.div_ceil(8) {
                return self.error_at(at, format!("elements hex data size is invalid for provided type: got {} bytes, expected {}", bytes.len(), count.div_ceil(8)));
            }
            let elements = (0..count)
                .map(|i| DenseElement::Int(((bytes[i / 8] >> (i % 8)) & 1) as i128))
                .collect();
            return Ok(DenseData {
                splat: false,
                elements,
            });
        }
        let scalar = |ty: Type| -> Option<(usize, u32, bool, bool)> {
            // (bytes, width, is_float, unsigned)
            match *self.ctx.type_kind(ty) {
                TypeKind::Integer { width, signedness } if (1..=64).contains(&width) => Some((
                    (width as usize).div_ceil(8),
                    width,
                    false,
                    signedness == Signedness::Unsigned,
                )),
                TypeKind::Index => Some((8, 64, false, false)),
                TypeKind::Float(kind) if kind.width() <= 64 => Some((
                    (kind.width() as usize).div_ceil(8),
                    kind.width(),
                    true,
                    false,
                )),
                _ => None,
            }
        };
        let (part, complex) = match *self.ctx.type_kind(element) {
            TypeKind::Complex(inner) => (scalar(inner), true),
            _ => (scalar(element), false),
        };
        let Some((size, width, is_float, unsigned)) = part else {
            return self.error_at(at, "hex dense literals are supported for integer, index, float and complex elements up to 64 bits");
        };
        let decode_part = |b: &[u8]| -> (bool, u128, i128) {
            (
                is_float,
                le_u128(b),
                sign_or_zero_extend(le_u128(b), width, unsigned),
            )
        };
        let decode = |b: &[u8]| -> DenseElement {
            if complex {
                let (f, re_bits, re) = decode_part(&b[..size]);
                let (_, im_bits, im) = decode_part(&b[size..]);
                if f {
                    DenseElement::ComplexFloat(re_bits, im_bits)
                } else {
                    DenseElement::ComplexInt(re, im)
                }
            } else {
                let (f, bits, v) = decode_part(b);
                if f {
                    DenseElement::Float(bits)
                } else {
                    DenseElement::Int(v)
                }
            }
        };
        let elem_size = if complex { 2 * size } else { size };
        if bytes.len() == elem_size {
            return Ok(DenseData {
                splat: count != 1,
                elements: vec![decode(bytes)],
            });
        }
        if bytes.len() != elem_size * count {
            return self.error_at(at, format!("elements hex data size is invalid for provided type: got {} bytes, expected {}", bytes.len(), elem_size * count));
        }
        Ok(DenseData {
            splat: false,
            elements: bytes.chunks(elem_size).map(decode).collect(),
        })
    }

    // ---- other builtin attributes ----

    fn parse_dense_resource_attr(&mut self) -> PResult<Attr> {
        self.advance();
        self.expect(TokenKind::Less, "'<' after 'dense_resource'")?;
        let handle = match self.tok.kind {
            TokenKind::BareIdent => self.take_text().to_string(),
            TokenKind::String => self.parse_string("resource handle")?,
            _ => return self.error("expected identifier key for 'resource' entry"),
        };
        self.expect(TokenKind::Greater, "'>'")?;
        let ty_at = self.tok.start;
        let ty = match self.implied_elements_type.take() {
            Some(ty) => ty,
            None => {
                self.expect(TokenKind::Colon, "':'")?;
                self.parse_type()?
            }
        };
        if !self.ctx.type_kind(ty).is_shaped() {
            return self.error_at(ty_at, "`dense_resource` expected a shaped type");
        }
        Ok(self.ctx.intern_attr(AttrKind::DenseResource { handle, ty }))
    }

    fn parse_dense_array_attr(&mut self) -> PResult<Attr> {
        self.advance();
        self.expect(TokenKind::Less, "'<' after 'array'")?;
        let ty_at = self.tok.start;
        let element = self.parse_type()?;
        let kind = self.ctx.type_kind(element).clone();
        let is_float = match kind {
            TypeKind::Integer {
                width: 1 | 8 | 16 | 32 | 64,
                signedness: Signedness::Signless,
            } => false,
            TypeKind::Float(FloatKind::F32 | FloatKind::F64) => true,
            // MLIR's checks, in its order, before what TensorBind does not store.
            TypeKind::Integer { width, .. } if width != 1 && width % 8 != 0 => {
                return self.error_at(ty_at, "element type bitwidth must be a multiple of 8");
            }
            TypeKind::Float(kind) if kind.width() % 8 != 0 => {
                return self.error_at(ty_at, "element type bitwidth must be a multiple of 8");
            }
            TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_) => {
                return self.error_at(
                    ty_at,
                    "expected integer or float type, got: unsupported element type for array attribute",
                );
            }
            _ => {
                return self.error_at(
                    ty_at,
                    format!(
                        "expected integer or float type, got: {}",
                        crate::printer::type_to_string(self.ctx, element)
                    ),
                );
            }
        };
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        if !self.is(TokenKind::Greater) {
            self.expect(TokenKind::Colon, "':' after dense array type")?;
            loop {
                let at = self.tok.start;
                let scalar = self.parse_dense_scalar()?;
                let is_bool = matches!(kind, TypeKind::Integer { width: 1, .. });
                match (is_float, scalar.clone()) {
                    (false, Scalar::Bool(b)) if is_bool => ints.push(b as i128),
                    (false, _) if is_bool => {
                        return self.error_at(at, "expected 'true' or 'false' values for i1 type");
                    }
                    (
                        false,
                        Scalar::Int {
                            negative,
                            magnitude,
                            ..
                        },
                    ) => ints.push(self.check_integer(
                        at,
                        negative,
                        magnitude,
                        element,
                        ARRAY_RANGE,
                    )?),
                    (false, _) => match self.dense_element(at, scalar, element)? {
                        DenseElement::Int(v) => ints.push(v),
                        _ => unreachable!("integer element types decode to ints"),
                    },
                    (true, _) => match self.dense_element(at, scalar, element)? {
                        DenseElement::Float(b) => floats.push(b),
                        _ => unreachable!("float element types decode to floats"),
                    },
                }
                if !self.consume_if(TokenKind::Comma) {
                    break;
                }
            }
        }
        self.expect(TokenKind::Greater, "'>' to close an array attribute")?;
        let data = if is_float {
            DenseArrayData::Float(floats)
        } else {
            DenseArrayData::Int(ints)
        };
        Ok(self.ctx.intern_attr(AttrKind::DenseArray { element, data }))
    }

    fn parse_affine_attr(&mut self) -> PResult<Attr> {
        let keyword = self.take_text();
        if !self.is(TokenKind::Less) {
            return self.error(format!("expected '<' after '{keyword}'"));
        }
        let body = match self.capture_affine_body() {
            Ok(body) => body,
            Err(unclosed) => return Err(self.unclosed_affine_error(keyword, unclosed)),
        };
        let body_offset = body.as_ptr() as usize - self.src.as_ptr() as usize;
        let kind = if keyword == "affine_map" {
            affine::parse_affine_map(body).map(AttrKind::AffineMap)
        } else {
            affine::parse_integer_set(body).map(AttrKind::IntegerSet)
        };
        match kind {
            Ok(kind) => Ok(self.ctx.intern_attr(kind)),
            Err(e) => self.error_at(body_offset + e.offset, e.message),
        }
    }

    /// A bare affine map `(d0, ..)[s0, ..] -> (results)` as custom op syntax writes it,
    /// without the `affine_map<...>` wrapper (the current token must be its `(`).
    pub(crate) fn parse_bare_affine_map(&mut self) -> PResult<affine::AffineMap> {
        let start = self.tok.start;
        if !self.is(TokenKind::LParen) {
            return self.error("expected '(' to start an affine map");
        }
        self.capture_balanced()?;
        if self.is(TokenKind::LSquare) {
            self.capture_balanced()?;
        }
        self.expect(TokenKind::Arrow, "'->' in affine map")?;
        if !self.is(TokenKind::LParen) {
            return self.error("expected '(' before the results of an affine map");
        }
        let results = self.capture_balanced()?;
        let end = results.as_ptr() as usize - self.src.as_ptr() as usize + results.len() + 1;
        let text = &self.src[start..end];
        affine::parse_affine_map(text).or_else(|e| self.error_at(start + e.offset, e.message))
    }

    /// Why an `affine_map<`/`affine_set<` (the current token is its `<`) has no closing
    /// `>`. MLIR reads the map token by token, so a malformed map on the line is reported
    /// where it goes wrong; only a well-formed one is reported as unclosed.
    fn unclosed_affine_error(&self, keyword: &str, unclosed: ParseError) -> ParseError {
        let start = self.tok.start + 1;
        let rest = &self.src[start..];
        let mut line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        if let Some(comment) = line.find("//") {
            line = &line[..comment];
        }
        let line = line.trim_end();
        let parsed = if keyword == "affine_map" {
            affine::parse_affine_map(line).map(|_| ())
        } else {
            affine::parse_integer_set(line).map(|_| ())
        };
        match parsed {
            Err(e) if e.offset < line.len() && e.message != "expected end of input" => ParseError {
                offset: start + e.offset,
                message: e.message,
                notes: vec![],
            },
            _ => unclosed,
        }
    }

    /// The text between `<` and the matching `>` of an affine map or set, where `<` and
    /// `>` appear only in `->`, `<=` and `>=` and never nest.
    fn capture_affine_body(&mut self) -> PResult<&'a str> {
        let open = self.tok.start;
        let mut depth = 0i32;
        let mut i = open + 1;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'>' if depth == 0 && self.bytes[i - 1] != b'-' => {
                    let body = &self.src[open + 1..i];
                    self.reset_to(i + 1);
                    return Ok(body);
                }
                _ => {}
            }
            i += 1;
        }
        self.error_at(open, "expected '>' to close the affine map or set")
    }

    /// `strided<[s0, s1, ...]>` or `strided<[...], offset: o>`, `?` for dynamic.
    fn parse_strided_attr(&mut self) -> PResult<Attr> {
        self.advance();
        self.expect(TokenKind::Less, "'<' after 'strided'")?;
        self.expect(TokenKind::LSquare, "'['")?;
        let mut strides = Vec::new();
        self.parse_comma_list_until(TokenKind::RSquare, |p| {
            strides.push(p.parse_dynamic_i64()?);
            Ok(())
        })?;
        self.expect(TokenKind::RSquare, "']'")?;
        let mut offset = 0;
        if self.consume_if(TokenKind::Comma) {
            if !self.consume_keyword("offset") {
                return self.error("expected 'offset' after comma");
            }
            self.expect(TokenKind::Colon, "':' after 'offset'")?;
            offset = self.parse_dynamic_i64()?;
        }
        self.expect(TokenKind::Greater, "'>'")?;
        Ok(self.ctx.intern_attr(AttrKind::Strided { strides, offset }))
    }

    fn parse_dynamic_i64(&mut self) -> PResult<i64> {
        if self.consume_if(TokenKind::Question) {
            return Ok(DYNAMIC);
        }
        let at = self.tok.start;
        let v = self.parse_i128("a 64-bit signed integer or '?'")?;
        match i64::try_from(v) {
            Ok(v) if v != DYNAMIC => Ok(v),
            _ => self.error_at(at, "integer value out of range"),
        }
    }
}

/// A splat covering a single element is just that element.
fn normalize_splat(mut data: DenseData, count: i64) -> DenseData {
    if data.elements.len() == 1 && count != 1 {
        data.splat = true;
    } else if count == 1 {
        data.splat = false;
    } else if data.elements.len() > 1 && data.elements.iter().all(|e| *e == data.elements[0]) {
        // MLIR stores uniform data as a splat too.
        data.elements.truncate(1);
        data.splat = true;
    }
    data
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    let hex = hex.as_bytes();
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    hex.chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

fn le_u128(bytes: &[u8]) -> u128 {
    bytes
        .iter()
        .rev()
        .fold(0u128, |acc, &b| (acc << 8) | b as u128)
}

fn sign_or_zero_extend(raw: u128, width: u32, unsigned: bool) -> i128 {
    let raw = if width < 128 {
        raw & ((1u128 << width) - 1)
    } else {
        raw
    };
    if unsigned || width == 0 || width >= 128 || raw >> (width - 1) == 0 {
        raw as i128
    } else {
        raw as i128 - (1i128 << width)
    }
}

fn join(shape: &[i64]) -> String {
    shape
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// MLIR's error for an integer literal where a float element is expected: a decimal one
/// needs a trailing dot, a hexadecimal one (a bit pattern) may not be negated.
fn integer_for_float_error(at: usize, hex: bool) -> ParseError {
    if hex {
        return ParseError {
            offset: at,
            message: "hexadecimal float literal should not have a leading minus".into(),
            notes: vec![],
        };
    }
    ParseError {
        offset: at,
        message: "unexpected decimal integer literal for a floating point value".into(),
        notes: vec![(at, "add a trailing dot to make the literal a float".into())],
    }
}

/// Whether a bare identifier starts a builtin type (`i32`, `f16`, `index`, `tensor`...), so
/// that an attribute written there is a type attribute.
fn is_builtin_type_keyword(word: &str) -> bool {
    crate::lexer::is_integer_type_keyword(word)
        || FloatKind::from_keyword(word).is_some()
        || matches!(
            word,
            "index" | "none" | "tensor" | "memref" | "vector" | "complex" | "tuple"
        )
}
