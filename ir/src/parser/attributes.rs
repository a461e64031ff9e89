//! Parsing builtin attributes, attribute aliases and opaque dialect attributes.

use super::{PResult, ParseError, Parser, parse_u128};
use crate::affine;
use crate::attributes::{Attr, AttrKind, DenseArrayData, DenseData, DenseElement};
use crate::float;
use crate::lexer::TokenKind;
use crate::types::{DYNAMIC, FloatKind, Signedness, Type, TypeKind};

/// A parsed but not yet typed `dense<...>` literal.
enum DenseLiteral {
    Hex(Vec<u8>),
    /// Elements in row-major order with the shape the nesting implies.
    Elements { shape: Vec<i64>, scalars: Vec<(Scalar, usize)> },
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

/// One scalar of a dense literal, with its source offset kept for errors.
#[derive(Clone, Copy)]
enum Scalar {
    Int { negative: bool, magnitude: u128, hex: bool },
    Float(f64),
    Bool(bool),
    Complex { re: (ScalarPart, usize), im: (ScalarPart, usize) },
}

#[derive(Clone, Copy)]
enum ScalarPart {
    Int { negative: bool, magnitude: u128 },
    Float(f64),
}

impl<'a> Parser<'a> {
    /// Parses any attribute. `ty` is a type already known from context (unused by most).
    pub(crate) fn parse_attribute(&mut self, _ty: Option<Type>) -> PResult<Attr> {
        let tok = self.tok;
        match tok.kind {
            TokenKind::Integer | TokenKind::Float | TokenKind::Minus => self.parse_number_attr(),
            TokenKind::String => {
                let value = {
                    let t = self.advance();
                    self.string_value(t)?
                };
                let ty = if self.consume_if(TokenKind::Colon) { Some(self.parse_type()?) } else { None };
                Ok(self.ctx.intern_attr(AttrKind::String { value, ty }))
            }
            TokenKind::LSquare => {
                self.advance();
                let mut elements = Vec::new();
                self.parse_comma_list_until(TokenKind::RSquare, |p| {
                    elements.push(p.parse_attribute(None)?);
                    Ok(())
                })?;
                self.expect(TokenKind::RSquare, "']' in array attribute")?;
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
                "dense_resource" => self.parse_dense_resource_attr(),
                "array" => self.parse_dense_array_attr(),
                "affine_map" | "affine_set" => self.parse_affine_attr(),
                "strided" => self.parse_strided_attr(),
                "loc" => self.parse_location_attr(),
                _ => {
                    let ty = self.parse_type()?;
                    Ok(self.ctx.type_attr(ty))
                }
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
            let value = if p.consume_if(TokenKind::Equal) { p.parse_attribute(None)? } else { p.ctx.unit_attr() };
            entries.push((key, value, at));
            Ok(())
        })?;
        self.expect(TokenKind::RBrace, "'}' in attribute dictionary")?;
        let mut entries: Vec<(String, Attr)> = entries.into_iter().map(|(k, v, _)| (k, v)).collect();
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
            let bytes = crate::lexer::unescape(body).map_err(|(at, m)| ParseError { offset: tok.start + 2 + at, message: m.into(), notes: vec![] })?;
            return String::from_utf8(bytes).or_else(|_| self.error_at(tok.start, "symbol name is not valid UTF-8"));
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
        if !self.ctx.allow_unregistered_dialects {
            return self.error_at(tok.start, format!("dialect '{dialect}' provided by attribute is not registered (use --allow-unregistered-dialect)"));
        }
        Ok(self.ctx.intern_attr(AttrKind::Opaque { dialect: dialect.to_string(), body }))
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
                        return self.error_at(ty_at, "floating point value not valid for specified type");
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
                let magnitude = parse_u128(text).ok_or_else(|| ParseError { offset: tok.start, message: "integer constant out of range for attribute".into(), notes: vec![] })?;
                let ty = if self.consume_if(TokenKind::Colon) { self.parse_type()? } else { self.ctx.i64() };
                if let TypeKind::Float(kind) = *self.ctx.type_kind(ty) {
                    if !text.starts_with("0x") {
                        return Err(ParseError {
                            offset: tok.start,
                            message: "unexpected decimal integer literal for a floating point value".into(),
                            notes: vec![(tok.start, "add a trailing dot to make the literal a float".into())],
                        });
                    }
                    if negative {
                        return self.error_at(tok.start, "hexadecimal float literal should not have a leading minus");
                    }
                    return self.make_hex_float_attr(tok.start, kind, magnitude, ty);
                }
                let value = self.check_integer(tok.start, negative, magnitude, ty)?;
                Ok(self.ctx.integer_attr(value, ty))
            }
            _ => self.error("expected attribute value"),
        }
    }

    fn float_literal_value(&self, at: usize, negative: bool) -> PResult<f64> {
        let end = crate::lexer::lex(self.bytes, at).end;
        let v: f64 = self.src[at..end].parse().or_else(|_| self.error_at(at, "invalid floating point literal"))?;
        Ok(if negative { -v } else { v })
    }

    fn make_float_attr(&mut self, at: usize, value: f64, ty: Type) -> PResult<Attr> {
        let TypeKind::Float(kind) = *self.ctx.type_kind(ty) else {
            return self.error_at(at, "floating point value not valid for specified type");
        };
        let bits = float::bits_from_f64(kind, value).ok_or_else(|| ParseError {
            offset: at,
            message: format!("decimal literals for '{}' are not supported; use a hexadecimal bit pattern", kind.keyword()),
            notes: vec![],
        })?;
        Ok(self.ctx.intern_attr(AttrKind::Float { bits, ty }))
    }

    fn make_hex_float_attr(&mut self, at: usize, kind: FloatKind, bits: u128, ty: Type) -> PResult<Attr> {
        if kind.width() < 128 && bits >> kind.width() != 0 {
            return self.error_at(at, format!("hexadecimal float constant out of range for type"));
        }
        Ok(self.ctx.intern_attr(AttrKind::Float { bits, ty }))
    }

    /// Checks an integer literal against its type and returns its canonical value.
    pub(crate) fn check_integer(&self, at: usize, negative: bool, magnitude: u128, ty: Type) -> PResult<i128> {
        let (width, signedness) = match *self.ctx.type_kind(ty) {
            TypeKind::Integer { width, signedness } => (width, signedness),
            TypeKind::Index => (64, Signedness::Signless),
            _ => return self.error_at(at, "integer literal not valid for specified type"),
        };
        if negative && signedness == Signedness::Unsigned {
            return self.error_at(at, "negative integer literal not valid for unsigned integer type");
        }
        let out_of_range = || ParseError { offset: at, message: "integer constant out of range for attribute".into(), notes: vec![] };
        if width >= 127 {
            // Values are kept in 128 bits; wider types accept whatever fits there.
            let v = i128::try_from(magnitude).map_err(|_| out_of_range())?;
            return Ok(if negative { -v } else { v });
        }
        let limit = 1u128 << width;
        let half = 1u128 << (width - 1).min(126);
        if negative {
            let max_neg = if width == 1 { 1 } else { half };
            if magnitude > max_neg {
                return Err(out_of_range());
            }
            return Ok(-(magnitude as i128));
        }
        if magnitude >= limit || (signedness == Signedness::Signed && magnitude >= half) {
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
        self.advance();
        self.expect(TokenKind::Less, "'<' after 'dense'")?;
        let literal_at = self.tok.start;
        let literal = if self.is(TokenKind::Greater) {
            DenseLiteral::Elements { shape: vec![0], scalars: vec![] }
        } else if self.is(TokenKind::String) {
            let tok = self.advance();
            let text = String::from_utf8(self.string_value(tok)?).unwrap_or_default();
            let bytes = text.strip_prefix("0x").and_then(decode_hex);
            match bytes {
                Some(bytes) => DenseLiteral::Hex(bytes),
                None => return self.error_at(tok.start, "expected hex string (\"0x...\") in dense elements literal"),
            }
        } else {
            let tree = self.parse_dense_tree()?;
            let shape = self.dense_tree_shape(&tree)?;
            let mut scalars = Vec::new();
            tree.flatten_into(&mut scalars);
            DenseLiteral::Elements { shape, scalars }
        };
        self.expect(TokenKind::Greater, "'>'")?;
        self.expect(TokenKind::Colon, "':'")?;
        let ty_at = self.tok.start;
        let ty = self.parse_type()?;
        let Some(shape) = self.ctx.type_kind(ty).shape().map(<[i64]>::to_vec) else {
            return self.error_at(ty_at, "elements literal must be a shaped type");
        };
        if shape.contains(&DYNAMIC) {
            return self.error_at(ty_at, "elements literal type must have static shape");
        }
        let element = self.ctx.type_kind(ty).element().expect("shaped types have elements");
        let count: i64 = shape.iter().product();
        let data = match literal {
            DenseLiteral::Hex(bytes) => self.dense_from_hex(literal_at, &bytes, element, count)?,
            DenseLiteral::Elements { shape: literal_shape, scalars } => {
                let splat = scalars.len() == 1 && literal_shape.is_empty();
                if !splat && literal_shape != shape && !(scalars.is_empty() && count == 0) {
                    return self.error_at(
                        literal_at,
                        format!("inferred shape of elements literal ([{}]) does not match type ([{}])", join(&literal_shape), join(&shape)),
                    );
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

    /// Parses a nested list `[[1, 2], [3, 4]]` or a single scalar.
    fn parse_dense_tree(&mut self) -> PResult<DenseTree> {
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
            self.expect(TokenKind::Comma, "',' in complex literal")?;
            let im_at = self.tok.start;
            let im = self.parse_scalar_part()?;
            self.expect(TokenKind::RParen, "')' in complex literal")?;
            return Ok(Scalar::Complex { re: (re, re_at), im: (im, im_at) });
        }
        if self.is_keyword("true") || self.is_keyword("false") {
            return Ok(Scalar::Bool(self.take_text() == "true"));
        }
        let negative = self.consume_if(TokenKind::Minus);
        let tok = self.tok;
        match tok.kind {
            TokenKind::Integer => {
                self.advance();
                let text = self.text(tok);
                let magnitude = parse_u128(text).ok_or_else(|| ParseError { offset: tok.start, message: "integer constant out of range".into(), notes: vec![] })?;
                Ok(Scalar::Int { negative, magnitude, hex: text.starts_with("0x") })
            }
            TokenKind::Float => {
                self.advance();
                Ok(Scalar::Float(self.float_literal_value(tok.start, negative)?))
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
                let magnitude = parse_u128(self.text(tok)).ok_or_else(|| ParseError { offset: tok.start, message: "integer constant out of range".into(), notes: vec![] })?;
                Ok(ScalarPart::Int { negative, magnitude })
            }
            TokenKind::Float => {
                self.advance();
                Ok(ScalarPart::Float(self.float_literal_value(tok.start, negative)?))
            }
            _ => self.error("expected element literal of primitive type"),
        }
    }

    fn dense_element(&self, at: usize, scalar: Scalar, element: Type) -> PResult<DenseElement> {
        match (self.ctx.type_kind(element).clone(), scalar) {
            (TypeKind::Integer { width: 1, .. }, Scalar::Bool(b)) => Ok(DenseElement::Int(b as i128)),
            (TypeKind::Integer { width: 1, .. }, Scalar::Int { negative: false, magnitude, .. }) if magnitude <= 1 => Ok(DenseElement::Int(magnitude as i128)),
            (TypeKind::Integer { .. } | TypeKind::Index, Scalar::Int { negative, magnitude, .. }) => {
                Ok(DenseElement::Int(self.check_integer(at, negative, magnitude, element)?))
            }
            (TypeKind::Integer { .. } | TypeKind::Index, Scalar::Bool(_)) => self.error_at(at, "expected integer elements, but parsed boolean"),
            (TypeKind::Integer { .. } | TypeKind::Index, _) => self.error_at(at, "expected integer elements, but parsed floating-point"),
            (TypeKind::Float(kind), Scalar::Float(v)) => float::bits_from_f64(kind, v)
                .map(DenseElement::Float)
                .ok_or_else(|| ParseError { offset: at, message: format!("decimal literals for '{}' are not supported", kind.keyword()), notes: vec![] }),
            (TypeKind::Float(kind), Scalar::Int { negative: false, magnitude, hex: true }) => {
                if kind.width() < 128 && magnitude >> kind.width() != 0 {
                    return self.error_at(at, "hexadecimal float constant out of range for type");
                }
                Ok(DenseElement::Float(magnitude))
            }
            (TypeKind::Float(_), Scalar::Int { .. }) => self.error_at(at, "expected floating-point elements, but parsed integer"),
            (TypeKind::Float(_), _) => self.error_at(at, "expected floating-point elements"),
            (TypeKind::Complex(inner), Scalar::Complex { re, im }) => match *self.ctx.type_kind(inner) {
                TypeKind::Float(kind) => {
                    let part = |(p, at): (ScalarPart, usize)| match p {
                        ScalarPart::Float(v) => float::bits_from_f64(kind, v).ok_or_else(|| ParseError { offset: at, message: "unsupported float type".into(), notes: vec![] }),
                        ScalarPart::Int { .. } => Err(ParseError { offset: at, message: "expected floating-point elements, but parsed integer".into(), notes: vec![] }),
                    };
                    Ok(DenseElement::ComplexFloat(part(re)?, part(im)?))
                }
                _ => {
                    let part = |(p, at): (ScalarPart, usize)| match p {
                        ScalarPart::Int { negative, magnitude } => self.check_integer(at, negative, magnitude, inner),
                        ScalarPart::Float(_) => Err(ParseError { offset: at, message: "expected integer elements, but parsed floating-point".into(), notes: vec![] }),
                    };
                    Ok(DenseElement::ComplexInt(part(re)?, part(im)?))
                }
            },
            (TypeKind::Complex(_), _) => self.error_at(at, "expected complex element literal '(re, im)'"),
            _ => self.error_at(at, "dense elements literal has an unsupported element type"),
        }
    }

    /// Decodes raw little-endian element data, one element (a splat) or all of them.
    fn dense_from_hex(&self, at: usize, bytes: &[u8], element: Type, count: i64) -> PResult<DenseData> {
        let (size, decode): (usize, Box<dyn Fn(&[u8]) -> DenseElement>) = match *self.ctx.type_kind(element) {
            TypeKind::Integer { width, signedness } if width <= 64 => {
                let size = (width as usize).div_ceil(8);
                let unsigned = signedness == Signedness::Unsigned || width == 1;
                (size, Box::new(move |b: &[u8]| DenseElement::Int(sign_or_zero_extend(le_u128(b), width, unsigned))))
            }
            TypeKind::Index => (8, Box::new(|b: &[u8]| DenseElement::Int(le_u128(b) as u64 as i64 as i128))),
            TypeKind::Float(kind) if kind.width() <= 64 && kind.width() % 8 == 0 => {
                (kind.width() as usize / 8, Box::new(|b: &[u8]| DenseElement::Float(le_u128(b))))
            }
            _ => return self.error_at(at, "hex dense literals are supported for integer, index and float elements up to 64 bits"),
        };
        let count = count as usize;
        if bytes.len() == size {
            return Ok(DenseData { splat: count != 1, elements: vec![decode(bytes)] });
        }
        if bytes.len() != size * count {
            return self.error_at(at, format!("elements hex data size is invalid for provided type: got {} bytes, expected {}", bytes.len(), size * count));
        }
        Ok(DenseData { splat: false, elements: bytes.chunks(size).map(|c| decode(c)).collect() })
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
        self.expect(TokenKind::Colon, "':'")?;
        let ty_at = self.tok.start;
        let ty = self.parse_type()?;
        if !self.ctx.type_kind(ty).is_shaped() {
            return self.error_at(ty_at, "expected a shaped type for dense_resource elements");
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
            TypeKind::Integer { width: 1 | 8 | 16 | 32 | 64, signedness: Signedness::Signless } => false,
            TypeKind::Float(FloatKind::F32 | FloatKind::F64) => true,
            _ => return self.error_at(ty_at, "expected integer or float type, got: unsupported element type for array attribute"),
        };
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        if self.consume_if(TokenKind::Colon) {
            loop {
                let at = self.tok.start;
                let scalar = self.parse_dense_scalar()?;
                match (is_float, scalar) {
                    (false, _) => match self.dense_element(at, scalar, element)? {
                        DenseElement::Int(v) => ints.push(v),
                        _ => unreachable!("integer element types decode to ints"),
                    },
                    (true, Scalar::Int { negative, magnitude, hex: false }) => {
                        let v = magnitude as f64;
                        let TypeKind::Float(fk) = kind else { unreachable!() };
                        floats.push(float::bits_from_f64(fk, if negative { -v } else { v }).expect("f32/f64"));
                    }
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
        let data = if is_float { DenseArrayData::Float(floats) } else { DenseArrayData::Int(ints) };
        Ok(self.ctx.intern_attr(AttrKind::DenseArray { element, data }))
    }

    fn parse_affine_attr(&mut self) -> PResult<Attr> {
        let keyword = self.take_text();
        if !self.is(TokenKind::Less) {
            return self.error(format!("expected '<' after '{keyword}'"));
        }
        let body = self.capture_balanced()?;
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
        let v = self.parse_i128("integer or '?'")?;
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
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}

fn le_u128(bytes: &[u8]) -> u128 {
    bytes.iter().rev().fold(0u128, |acc, &b| (acc << 8) | b as u128)
}

fn sign_or_zero_extend(raw: u128, width: u32, unsigned: bool) -> i128 {
    let raw = if width < 128 { raw & ((1u128 << width) - 1) } else { raw };
    if unsigned || width >= 128 || raw >> (width - 1) == 0 { raw as i128 } else { raw as i128 - (1i128 << width) }
}

fn join(shape: &[i64]) -> String {
    shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}
