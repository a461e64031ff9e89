//! Parser for the text inside `affine_map<...>` and `affine_set<...>` (MLIR 22 grammar).
//!
//! ```text
//! map        := dim-list symbol-list? '->' '(' (expr (',' expr)*)? ')'
//! set        := dim-list symbol-list? ':' '(' (constraint (',' constraint)*)? ')'
//! dim-list   := '(' (bare-id (',' bare-id)*)? ')'
//! symbol-list:= '[' (bare-id (',' bare-id)*)? ']'
//! constraint := expr ('>' '=' | '<' '=' | '=' '=') expr
//! expr       := term (('+' | '-') term)*
//! term       := atom (('*' | 'floordiv' | 'ceildiv' | 'mod') atom)*
//! atom       := bare-id | integer | '(' expr ')' | '-' atom
//! ```
//!
//! Trees are built as MLIR's grammar builds them and are not folded: `a - b` is
//! `a + b * -1`, `-a` is `a * -1`, except that `-` directly before an integer literal gives the
//! negative constant (MLIR folds `5 * -1` to `-5`; this also admits `-9223372036854775808`).
//! A constraint `a >= b` becomes `a - b >= 0`, `a <= b` becomes `b - a >= 0`, `a == b`
//! becomes `a - b == 0`, where `x - 0` is `x` and `0 - x` is `-x` (MLIR folds both; without
//! this the printed `e >= 0` would not read back as the same tree). `()` as a constraint list
//! is MLIR's universe `0 == 0`.
//!
//! Products need a symbolic-or-constant factor and `floordiv`/`ceildiv`/`mod` a
//! symbolic-or-constant right operand (checked after simplification, so MLIR-foldable forms
//! like `d0 * (d0 - d0)` pass). Trees deeper than [`MAX_EXPR_DEPTH`] are rejected so that
//! recursive code over them cannot overflow the stack.

use std::collections::HashMap;
use std::fmt;

use super::expr::{AffineBinaryKind, AffineExpr};
use super::map::AffineMap;
use super::set::IntegerSet;

/// The deepest expression tree the parser accepts, and the most parentheses or unary minus
/// signs it nests.
pub const MAX_EXPR_DEPTH: u32 = 512;

/// A parse failure at byte `offset` of the input.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AffineParseError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for AffineParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for AffineParseError {}

/// What `affine_map<...>`-style text turned out to be.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AffineMapOrSet {
    Map(AffineMap),
    Set(IntegerSet),
}

/// Parses `(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)`.
pub fn parse_affine_map(text: &str) -> Result<AffineMap, AffineParseError> {
    match parse_affine_map_or_set(text)? {
        AffineMapOrSet::Map(map) => Ok(map),
        AffineMapOrSet::Set(_) => Err(error(0, "expected AffineMap, but got IntegerSet")),
    }
}

/// Parses `(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`.
pub fn parse_integer_set(text: &str) -> Result<IntegerSet, AffineParseError> {
    match parse_affine_map_or_set(text)? {
        AffineMapOrSet::Set(set) => Ok(set),
        AffineMapOrSet::Map(_) => Err(error(0, "expected IntegerSet, but got AffineMap")),
    }
}

/// Parses either form, told apart by `->` or `:` after the identifier lists.
pub fn parse_affine_map_or_set(text: &str) -> Result<AffineMapOrSet, AffineParseError> {
    let mut p = Parser::new(text)?;
    p.parse_dim_and_symbol_lists()?;
    let parsed = match p.cur.tok {
        Tok::Arrow => {
            p.bump()?;
            let results = p.parse_paren_list("affine map range", |p| Ok(p.parse_expr()?.expr))?;
            AffineMapOrSet::Map(AffineMap {
                num_dims: p.num_dims,
                num_symbols: p.num_symbols,
                results,
            })
        }
        Tok::Colon => {
            p.bump()?;
            let parsed =
                p.parse_paren_list("integer set constraint list", Parser::parse_constraint)?;
            let (constraints, eq_flags) = if parsed.is_empty() {
                (vec![AffineExpr::Constant(0)], vec![true])
            } else {
                parsed.into_iter().unzip()
            };
            AffineMapOrSet::Set(IntegerSet {
                num_dims: p.num_dims,
                num_symbols: p.num_symbols,
                constraints,
                eq_flags,
            })
        }
        _ => return Err(p.error_here("expected '->' or ':'")),
    };
    p.expect_end()?;
    Ok(parsed)
}

/// Parses one expression whose dims and symbols are named by the given lists (position in
/// the list is the index), e.g. `parse_affine_expr("i + N", &["i"], &["N"])`.
pub fn parse_affine_expr(
    text: &str,
    dim_names: &[&str],
    symbol_names: &[&str],
) -> Result<AffineExpr, AffineParseError> {
    let mut p = Parser::new(text)?;
    for name in dim_names {
        p.declare(name, true, 0)?;
    }
    for name in symbol_names {
        p.declare(name, false, 0)?;
    }
    let expr = p.parse_expr()?.expr;
    p.expect_end()?;
    Ok(expr)
}

/// MLIR's semi-affine rule: a product needs a symbolic-or-constant factor, a division or
/// `mod` a symbolic-or-constant right operand.
fn check_semi_affine(
    kind: AffineBinaryKind,
    lhs: &Node,
    rhs: &Node,
    offset: usize,
) -> Result<(), AffineParseError> {
    // The structural test first: folding (in `is_symbolic_or_constant`) costs a simplify.
    let message = match kind {
        AffineBinaryKind::Mul
            if lhs.has_dim
                && rhs.has_dim
                && !lhs.is_symbolic_or_constant()
                && !rhs.is_symbolic_or_constant() =>
        {
            "non-affine expression: at least one of the multiply operands has to be either a \
             constant or symbolic"
                .to_string()
        }
        AffineBinaryKind::FloorDiv | AffineBinaryKind::CeilDiv | AffineBinaryKind::Mod
            if !rhs.is_symbolic_or_constant() =>
        {
            format!(
                "non-affine expression: right operand of {} has to be either a constant or \
                 symbolic",
                kind.spelling()
            )
        }
        _ => return Ok(()),
    };
    Err(error(offset, message))
}

/// `lhs <kind> rhs`, unless that makes the tree deeper than [`MAX_EXPR_DEPTH`].
fn make(
    kind: AffineBinaryKind,
    lhs: Node,
    rhs: Node,
    offset: usize,
) -> Result<Node, AffineParseError> {
    let depth = 1 + lhs.depth.max(rhs.depth);
    if depth > MAX_EXPR_DEPTH {
        return Err(too_deep(offset));
    }
    Ok(Node {
        expr: AffineExpr::binary(kind, lhs.expr, rhs.expr),
        depth,
        has_dim: lhs.has_dim || rhs.has_dim,
    })
}

fn too_deep(offset: usize) -> AffineParseError {
    error(
        offset,
        format!("expression nested deeper than {MAX_EXPR_DEPTH} levels"),
    )
}

fn error(offset: usize, message: impl Into<String>) -> AffineParseError {
    AffineParseError {
        offset,
        message: message.into(),
    }
}

// ----- Lexer (MLIR's token rules, restricted to what affine text uses) -----

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok<'a> {
    /// Bare identifier; also `floordiv`, `ceildiv`, `mod`, which are operators only after an
    /// operand (MLIR lets them name dims too).
    Ident(&'a str),
    /// Decimal or `0x` hexadecimal digits, unsigned.
    Int(&'a str),
    Float,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Plus,
    Minus,
    Star,
    Arrow,
    Colon,
    Greater,
    Less,
    Equal,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    offset: usize,
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    fn skip_while(&mut self, pred: impl Fn(u8) -> bool) {
        while self.peek_byte(0).is_some_and(&pred) {
            self.pos += 1;
        }
    }

    fn next_token(&mut self) -> Result<Token<'a>, AffineParseError> {
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.peek_byte(1) == Some(b'/') => self.skip_while(|b| b != b'\n'),
                _ => break,
            }
        }
        // Only ASCII bytes are ever consumed, so `start` is always a char boundary.
        let start = self.pos;
        let Some(first) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                offset: start,
            });
        };
        self.pos += 1;
        let tok = match first {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b',' => Tok::Comma,
            b'+' => Tok::Plus,
            b'*' => Tok::Star,
            b':' => Tok::Colon,
            b'>' => Tok::Greater,
            b'<' => Tok::Less,
            b'=' => Tok::Equal,
            b'-' if self.peek_byte(0) == Some(b'>') => {
                self.pos += 1;
                Tok::Arrow
            }
            b'-' => Tok::Minus,
            b'0' if self.peek_byte(0) == Some(b'x')
                && self.peek_byte(1).is_some_and(|b| b.is_ascii_hexdigit()) =>
            {
                self.pos += 1;
                self.skip_while(|b| b.is_ascii_hexdigit());
                Tok::Int(&self.text[start..self.pos])
            }
            b'0'..=b'9' => {
                self.skip_while(|b| b.is_ascii_digit());
                if self.peek_byte(0) == Some(b'.') {
                    self.lex_float_tail();
                    Tok::Float
                } else {
                    Tok::Int(&self.text[start..self.pos])
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                self.skip_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'));
                Tok::Ident(&self.text[start..self.pos])
            }
            _ => {
                // MLIR's lexer reads `%`, `#`, `@`... as the start of other tokens.
                let bytes = self.text.as_bytes();
                return Err(match crate::lexer::lex(bytes, start).kind {
                    crate::lexer::TokenKind::Error => {
                        let (at, message) = crate::lexer::error_message(bytes, start);
                        error(at, message)
                    }
                    crate::lexer::TokenKind::PercentIdent => {
                        error(start, "unexpected ssa identifier")
                    }
                    _ => error(start, "unexpected character"),
                });
            }
        };
        Ok(Token { tok, offset: start })
    }

    /// After the digits before `.`: the fraction and an optional exponent.
    fn lex_float_tail(&mut self) {
        self.pos += 1;
        self.skip_while(|b| b.is_ascii_digit());
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek_byte(1), Some(b'+' | b'-')));
            if self.peek_byte(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1 + sign;
                self.skip_while(|b| b.is_ascii_digit());
            }
        }
    }
}

/// The magnitude of an integer literal; `None` past `u64`.
fn literal_magnitude(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

// ----- Parser -----

/// A parsed subtree with what the checks need without walking it again.
struct Node {
    expr: AffineExpr,
    depth: u32,
    has_dim: bool,
}

impl Node {
    fn leaf(expr: AffineExpr) -> Self {
        let has_dim = matches!(expr, AffineExpr::Dim(_));
        Node {
            expr,
            depth: 1,
            has_dim,
        }
    }

    /// No dims, possibly after folding (`d0 - d0` counts), as MLIR checks its folded trees.
    fn is_symbolic_or_constant(&self) -> bool {
        !self.has_dim || self.expr.simplify().is_symbolic_or_constant()
    }
}

/// The partial expression inside one pair of parentheses; the outermost level is the whole
/// expression.
#[derive(Default)]
struct Level {
    /// The sum so far and the `+` (false) or `-` (true) after it, with its offset.
    sum: Option<(Node, bool, usize)>,
    /// The term so far and the `*`, `floordiv`, `ceildiv` or `mod` after it, with its offset.
    term: Option<(Node, AffineBinaryKind, usize)>,
    /// Offsets of unary minus signs waiting for their operand, innermost last.
    negations: Vec<usize>,
}

fn minus_one() -> Node {
    Node::leaf(AffineExpr::Constant(-1))
}

/// Where an operand is expected, for MLIR's error messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Start,
    AfterOperator,
    AfterNegation,
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    cur: Token<'a>,
    names: HashMap<&'a str, AffineExpr>,
    num_dims: u32,
    num_symbols: u32,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Result<Self, AffineParseError> {
        let mut lexer = Lexer { text, pos: 0 };
        let cur = lexer.next_token()?;
        Ok(Parser {
            lexer,
            cur,
            names: HashMap::new(),
            num_dims: 0,
            num_symbols: 0,
        })
    }

    fn bump(&mut self) -> Result<(), AffineParseError> {
        self.cur = self.lexer.next_token()?;
        Ok(())
    }

    fn error_here(&self, message: impl Into<String>) -> AffineParseError {
        error(self.cur.offset, message)
    }

    /// Consumes the current token if it is `tok`.
    fn eat(&mut self, tok: Tok<'_>) -> Result<bool, AffineParseError> {
        if self.cur.tok == tok {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect(&mut self, tok: Tok<'_>, message: &str) -> Result<(), AffineParseError> {
        if self.eat(tok)? {
            Ok(())
        } else {
            Err(self.error_here(message))
        }
    }

    fn expect_end(&self) -> Result<(), AffineParseError> {
        match self.cur.tok {
            Tok::Eof => Ok(()),
            _ => Err(self.error_here("expected end of input")),
        }
    }

    fn declare(
        &mut self,
        name: &'a str,
        is_dim: bool,
        offset: usize,
    ) -> Result<(), AffineParseError> {
        if self.names.contains_key(name) {
            return Err(error(
                offset,
                format!("redefinition of identifier '{name}'"),
            ));
        }
        let counter = if is_dim {
            &mut self.num_dims
        } else {
            &mut self.num_symbols
        };
        let position = *counter;
        *counter = position
            .checked_add(1)
            .ok_or_else(|| error(offset, "too many identifiers"))?;
        let expr = if is_dim {
            AffineExpr::Dim(position)
        } else {
            AffineExpr::Symbol(position)
        };
        self.names.insert(name, expr);
        Ok(())
    }

    /// `(a, b, ..)` for dims or `[a, b, ..]` for symbols, the opening bracket already consumed.
    fn parse_identifier_list(&mut self, is_dim: bool) -> Result<(), AffineParseError> {
        let (close, message) = if is_dim {
            (Tok::RParen, "expected ')' in dimensional identifier list")
        } else {
            (Tok::RBracket, "expected ']' in symbol list")
        };
        if self.eat(close)? {
            return Ok(());
        }
        loop {
            let Tok::Ident(name) = self.cur.tok else {
                return Err(self.error_here("expected bare identifier"));
            };
            self.declare(name, is_dim, self.cur.offset)?;
            self.bump()?;
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        self.expect(close, message)
    }

    fn parse_dim_and_symbol_lists(&mut self) -> Result<(), AffineParseError> {
        self.expect(Tok::LParen, "expected '(' in dimensional identifier list")?;
        self.parse_identifier_list(true)?;
        if self.eat(Tok::LBracket)? {
            self.parse_identifier_list(false)?;
        }
        Ok(())
    }

    /// `'(' (item (',' item)*)? ')'`.
    fn parse_paren_list<T>(
        &mut self,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Result<T, AffineParseError>,
    ) -> Result<Vec<T>, AffineParseError> {
        self.expect(Tok::LParen, &format!("expected '(' in {what}"))?;
        let mut items = Vec::new();
        if self.eat(Tok::RParen)? {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if !self.eat(Tok::Comma)? {
                break;
            }
        }
        self.expect(Tok::RParen, &format!("expected ')' in {what}"))?;
        Ok(items)
    }

    /// `lhs - rhs >= 0` (or `== 0`) from `lhs >= rhs`, `rhs <= lhs` or `lhs == rhs`.
    fn parse_constraint(&mut self) -> Result<(AffineExpr, bool), AffineParseError> {
        const EXPECTED: &str =
            "expected '== affine-expr' or '>= affine-expr' at end of affine constraint";
        let lhs = self.parse_expr()?;
        let offset = self.cur.offset;
        // MLIR lexes `>=` as two tokens, so `> =` is accepted too.
        let (is_eq, swapped) = match self.cur.tok {
            Tok::Greater => (false, false),
            Tok::Less => (false, true),
            Tok::Equal => (true, false),
            _ => return Err(self.error_here(EXPECTED)),
        };
        self.bump()?;
        if !self.eat(Tok::Equal)? {
            return Err(self.error_here(EXPECTED));
        }
        let rhs = self.parse_expr()?;
        let (a, b) = if swapped { (rhs, lhs) } else { (lhs, rhs) };
        let difference = if b.expr == AffineExpr::Constant(0) {
            a
        } else if a.expr == AffineExpr::Constant(0) {
            make(AffineBinaryKind::Mul, b, minus_one(), offset)?
        } else {
            let negated = make(AffineBinaryKind::Mul, b, minus_one(), offset)?;
            make(AffineBinaryKind::Add, a, negated, offset)?
        };
        Ok((difference.expr, is_eq))
    }

    /// One expression, up to the first token that cannot continue it.
    ///
    /// Iterative rather than recursive descent, so that nesting costs heap, not stack: each
    /// open parenthesis is a [`Level`] holding the partial sum and term to its left.
    fn parse_expr(&mut self) -> Result<Node, AffineParseError> {
        let mut levels = vec![Level::default()];
        let mut context = Context::Start;
        loop {
            // Read unary minus signs and opening parentheses up to an identifier or integer.
            let mut operand = loop {
                let level = levels.last_mut().expect("at least the outer level");
                match self.cur.tok {
                    Tok::Minus => {
                        let offset = self.cur.offset;
                        self.bump()?;
                        if let Tok::Int(text) = self.cur.tok {
                            break self.parse_integer(text, self.cur.offset, true)?;
                        }
                        if level.negations.len() >= MAX_EXPR_DEPTH as usize {
                            return Err(too_deep(offset));
                        }
                        level.negations.push(offset);
                        context = Context::AfterNegation;
                    }
                    Tok::LParen => {
                        if levels.len() > MAX_EXPR_DEPTH as usize {
                            return Err(too_deep(self.cur.offset));
                        }
                        self.bump()?;
                        if self.cur.tok == Tok::RParen {
                            return Err(self.error_here("no expression inside parentheses"));
                        }
                        levels.push(Level::default());
                        context = Context::Start;
                    }
                    Tok::Int(text) => break self.parse_integer(text, self.cur.offset, false)?,
                    _ => break self.parse_identifier(context)?,
                }
            };
            // Fold the operand into its level; a completed level becomes the operand of the
            // level around it.
            loop {
                let level = levels.last_mut().expect("at least the outer level");
                while let Some(offset) = level.negations.pop() {
                    operand = make(AffineBinaryKind::Mul, operand, minus_one(), offset)?;
                }
                let term = match level.term.take() {
                    Some((lhs, kind, offset)) => {
                        check_semi_affine(kind, &lhs, &operand, offset)?;
                        make(kind, lhs, operand, offset)?
                    }
                    None => operand,
                };
                if let Some(kind) = self.high_precedence_operator() {
                    level.term = Some((term, kind, self.cur.offset));
                    break;
                }
                let sum = match level.sum.take() {
                    Some((lhs, negate, offset)) => {
                        let rhs = if negate {
                            make(AffineBinaryKind::Mul, term, minus_one(), offset)?
                        } else {
                            term
                        };
                        make(AffineBinaryKind::Add, lhs, rhs, offset)?
                    }
                    None => term,
                };
                if matches!(self.cur.tok, Tok::Plus | Tok::Minus) {
                    level.sum = Some((sum, self.cur.tok == Tok::Minus, self.cur.offset));
                    break;
                }
                levels.pop();
                if levels.is_empty() {
                    return Ok(sum);
                }
                self.expect(Tok::RParen, "expected ')'")?;
                operand = sum;
            }
            // Consume the binary operator that ended the loop above.
            self.bump()?;
            context = Context::AfterOperator;
        }
    }

    /// The operator if the current token is `*`, `floordiv`, `ceildiv` or `mod`.
    fn high_precedence_operator(&self) -> Option<AffineBinaryKind> {
        match self.cur.tok {
            Tok::Star => Some(AffineBinaryKind::Mul),
            Tok::Ident("floordiv") => Some(AffineBinaryKind::FloorDiv),
            Tok::Ident("ceildiv") => Some(AffineBinaryKind::CeilDiv),
            Tok::Ident("mod") => Some(AffineBinaryKind::Mod),
            _ => None,
        }
    }

    /// The integer literal `text` at `offset` (the current token), negated after a unary minus.
    fn parse_integer(
        &mut self,
        text: &str,
        offset: usize,
        negative: bool,
    ) -> Result<Node, AffineParseError> {
        let magnitude = literal_magnitude(text);
        let value = if negative {
            magnitude.and_then(|m| 0i64.checked_sub_unsigned(m))
        } else {
            magnitude.and_then(|m| i64::try_from(m).ok())
        };
        let value = value.ok_or_else(|| error(offset, "constant too large for index"))?;
        self.bump()?;
        Ok(Node::leaf(AffineExpr::Constant(value)))
    }

    /// A dim or symbol name, or the error for whatever else stands where an operand should.
    fn parse_identifier(&mut self, context: Context) -> Result<Node, AffineParseError> {
        let Token { tok, offset } = self.cur;
        let message = match tok {
            Tok::Ident(name) => match self.names.get(name) {
                Some(expr) => {
                    let leaf = Node::leaf(expr.clone());
                    self.bump()?;
                    return Ok(leaf);
                }
                None => format!("use of undeclared identifier '{name}'"),
            },
            Tok::Float => "floating-point literal in affine expression".into(),
            Tok::Plus | Tok::Star if context == Context::Start => {
                "missing left operand of binary operator".into()
            }
            _ => match context {
                Context::Start => "expected affine expression",
                Context::AfterOperator => "missing right operand of binary operator",
                Context::AfterNegation => "missing operand of negation",
            }
            .into(),
        };
        Err(error(offset, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> AffineMap {
        parse_affine_map(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn set(text: &str) -> IntegerSet {
        parse_integer_set(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn map_error(text: &str) -> (usize, String) {
        let e = parse_affine_map(text).expect_err(text);
        (e.offset, e.message)
    }

    fn set_error(text: &str) -> (usize, String) {
        let e = parse_integer_set(text).expect_err(text);
        (e.offset, e.message)
    }

    fn d(i: u32) -> AffineExpr {
        AffineExpr::dim(i)
    }

    fn s(i: u32) -> AffineExpr {
        AffineExpr::symbol(i)
    }

    fn c(v: i64) -> AffineExpr {
        AffineExpr::constant(v)
    }

    #[test]
    fn parses_maps() {
        let m = map("(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)");
        assert_eq!((m.num_dims, m.num_symbols), (2, 1));
        assert_eq!(m.results, vec![d(0) + s(0), d(1).floor_div(2)]);
        assert_eq!(m.to_string(), "(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)");

        let m = map("(i, j)[N] -> (i + N)");
        assert_eq!(m.results, vec![d(0) + s(0)]);
        assert_eq!(map("() -> ()"), AffineMap::empty(0, 0));
        assert_eq!(map("(d0)[] -> (d0)"), AffineMap::identity(1));
        assert_eq!(map("()[s0] -> (s0)").to_string(), "()[s0] -> (s0)");
        // Names are just names: `d1` may be dim 0.
        assert_eq!(map("(d1, d0) -> (d0)").results, vec![d(1)]);
        assert_eq!(map(" ( x ) -> ( x ) ").results, vec![d(0)]);
        assert_eq!(
            map("(d0.x$, _a) -> (d0.x$ + _a)").results,
            vec![d(0) + d(1)]
        );
        assert_eq!(map("(d0) // comment\n -> (d0)"), AffineMap::identity(1));
    }

    #[test]
    fn keywords_can_name_dims() {
        let m = map("(mod, floordiv) -> (mod mod 2, floordiv floordiv 3)");
        assert_eq!(m.results, vec![d(0).modulo(2), d(1).floor_div(3)]);
    }

    #[test]
    fn builds_trees_as_mlir_grammar_does() {
        let m = map("(d0, d1)[s0] -> (d0 - d1, -d0, d0 - 1, -5, d0 * -2, -d0 * 2, --d0, d0 - -5)");
        assert_eq!(
            m.results,
            vec![
                d(0) + d(1) * c(-1),
                d(0) * c(-1),
                d(0) + c(1) * c(-1),
                c(-5),
                d(0) * c(-2),
                d(0) * c(-1) * c(2),
                d(0) * c(-1) * c(-1),
                d(0) + c(-5) * c(-1),
            ]
        );
        // Left associativity and precedence.
        let m = map("(d0)[s0] -> (d0 floordiv 2 floordiv 3 * 4 mod 5 ceildiv 6, d0 + d0 * 2 - s0)");
        assert_eq!(
            m.results[0],
            (d(0).floor_div(2).floor_div(3) * 4).modulo(5).ceil_div(6)
        );
        assert_eq!(m.results[1], (d(0) + d(0) * 2) + s(0) * c(-1));
        // Parentheses leave no trace.
        assert_eq!(map("(d0) -> ((((d0))))").results, vec![d(0)]);
        assert_eq!(
            map("(d0) -> (d0 + (d0 + 1))").results,
            vec![d(0) + (d(0) + 1)]
        );
        // Semi-affine forms MLIR allows.
        let m =
            map("(d0)[s0] -> (d0 * s0, s0 * d0, (d0 + 1) * s0, d0 floordiv s0, d0 mod (s0 + 2))");
        assert_eq!(m.results[1], s(0) * d(0));
        // MLIR folds `d0 - d0` to 0 before checking, so this is accepted too.
        assert_eq!(map("(d0) -> (d0 * (d0 - d0))").results.len(), 1);
    }

    #[test]
    fn integer_literals() {
        assert_eq!(
            map("() -> (9223372036854775807)").results,
            vec![c(i64::MAX)]
        );
        assert_eq!(
            map("() -> (-9223372036854775808)").results,
            vec![c(i64::MIN)]
        );
        assert_eq!(
            map("() -> (0x10, -0xFF, 007)").results,
            vec![c(16), c(-255), c(7)]
        );
        assert_eq!(
            map_error("(d0) -> (9223372036854775808)"),
            (9, "constant too large for index".into())
        );
        assert_eq!(
            map_error("(d0) -> (-9223372036854775809)").1,
            "constant too large for index"
        );
        assert_eq!(
            map_error("() -> (99999999999999999999999)").1,
            "constant too large for index"
        );
        assert_eq!(
            map_error("() -> (0x8000000000000000)").1,
            "constant too large for index"
        );
        assert_eq!(map_error("(d0) -> (d0 + 1.5)").0, 14);
        assert_eq!(
            map_error("(d0) -> (2d0)"),
            (10, "expected ')' in affine map range".into())
        );
    }

    #[test]
    fn parses_sets() {
        let st = set("(d0)[s0] : (d0 - s0 >= 0, d0 == 0)");
        assert_eq!(st.constraints, vec![d(0) + s(0) * c(-1), d(0)]);
        assert_eq!(st.eq_flags, vec![false, true]);
        assert_eq!(st.to_string(), "(d0)[s0] : (d0 - s0 >= 0, d0 == 0)");

        let st = set("(d0)[s0] : (d0 >= s0, d0 <= s0, 0 <= d0, d0 <= 0, 3 == d0, s0 > = 1)");
        assert_eq!(
            st.constraints,
            vec![
                d(0) + s(0) * c(-1),
                s(0) + d(0) * c(-1),
                d(0),
                d(0) * c(-1),
                c(3) + d(0) * c(-1),
                s(0) + c(1) * c(-1),
            ]
        );
        assert_eq!(
            st.to_string(),
            "(d0)[s0] : (d0 - s0 >= 0, s0 - d0 >= 0, d0 >= 0, -d0 >= 0, 3 - d0 == 0, s0 - 1 >= 0)"
        );
        // MLIR's parser turns an empty constraint list into the universe.
        assert_eq!(set("(d0) : ()"), IntegerSet::universe(1, 0));
        assert_eq!(set("(d0) : (1 == 0)"), IntegerSet::empty(1, 0));
        assert!(matches!(
            parse_affine_map_or_set("(d0) : (d0 >= 0)"),
            Ok(AffineMapOrSet::Set(_))
        ));
        assert!(matches!(
            parse_affine_map_or_set("(d0) -> (d0)"),
            Ok(AffineMapOrSet::Map(_))
        ));
    }

    #[test]
    fn parses_standalone_expressions() {
        let e = parse_affine_expr("i * 2 + N floordiv 4", &["i"], &["N"]).unwrap();
        assert_eq!(e, d(0) * 2 + s(0).floor_div(4));
        assert_eq!(
            parse_affine_expr("j", &["i"], &[]).unwrap_err().message,
            "use of undeclared identifier 'j'"
        );
        assert_eq!(
            parse_affine_expr("i", &["i"], &["i"]).unwrap_err().message,
            "redefinition of identifier 'i'"
        );
        assert_eq!(parse_affine_expr("i i", &["i"], &[]).unwrap_err().offset, 2);
    }

    /// Messages and offsets as mlir-opt-22 reports them (its column minus where the map starts).
    #[test]
    fn mlir_error_messages() {
        let mul = "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic";
        let cases: &[(&str, usize, &str)] = &[
            ("(d0, d1) -> (d0 * d1)", 16, mul),
            (
                "(d0, d1) -> (d0 mod d1)",
                16,
                "non-affine expression: right operand of mod has to be either a constant or symbolic",
            ),
            (
                "(d0, d1) -> (d0 floordiv d1)",
                16,
                "non-affine expression: right operand of floordiv has to be either a constant or symbolic",
            ),
            (
                "(d0, d1) -> (d0 ceildiv d1)",
                16,
                "non-affine expression: right operand of ceildiv has to be either a constant or symbolic",
            ),
            ("(d0)[s0] -> ((d0 + s0) * (d0 + 1))", 23, mul),
            ("(d0) -> (x)", 9, "use of undeclared identifier 'x'"),
            ("(d0, d0) -> (d0)", 5, "redefinition of identifier 'd0'"),
            ("(d0)[d0] -> (d0)", 5, "redefinition of identifier 'd0'"),
            (
                "(d0) -> (d0 +)",
                13,
                "missing right operand of binary operator",
            ),
            (
                "(d0) -> (d0 mod)",
                15,
                "missing right operand of binary operator",
            ),
            (
                "(d0) -> (+ d0)",
                9,
                "missing left operand of binary operator",
            ),
            (
                "(d0) -> (* d0)",
                9,
                "missing left operand of binary operator",
            ),
            ("(d0) -> (-)", 10, "missing operand of negation"),
            ("(d0) -> (d0", 11, "expected ')' in affine map range"),
            ("(d0) -> (d0 d0)", 12, "expected ')' in affine map range"),
            ("(d0) -> (d0,)", 12, "expected affine expression"),
            ("(d0) -> ((d0)", 13, "expected ')' in affine map range"),
            (
                "(d0) -> (d0 + (d0 * 2)",
                22,
                "expected ')' in affine map range",
            ),
            ("(d0) -> (d0 + (d0 * 2, 1)", 21, "expected ')'"),
            ("(d0) -> (d0 + ())", 15, "no expression inside parentheses"),
            ("(d0) (d0)", 5, "expected '->' or ':'"),
            (
                "d0 -> (d0)",
                0,
                "expected '(' in dimensional identifier list",
            ),
            (
                "(d0 -> (d0)",
                4,
                "expected ')' in dimensional identifier list",
            ),
            ("(d0,) -> (d0)", 4, "expected bare identifier"),
            ("(1) -> (d0)", 1, "expected bare identifier"),
            ("(d0)[s0 -> (d0)", 8, "expected ']' in symbol list"),
            ("(d0) -> d0", 8, "expected '(' in affine map range"),
            ("(d0) -> (d0) x", 13, "expected end of input"),
            ("(d0) -> (%x)", 9, "unexpected ssa identifier"),
            ("(d0) -> (%)", 10, "invalid SSA name"),
            ("(d0) -> (d0) é", 13, "unexpected character"),
            (
                "(d0) : (d0 >= 0)",
                0,
                "expected AffineMap, but got IntegerSet",
            ),
            ("", 0, "expected '(' in dimensional identifier list"),
        ];
        for &(text, offset, message) in cases {
            assert_eq!(map_error(text), (offset, message.to_string()), "{text}");
        }
        let expected_constraint =
            "expected '== affine-expr' or '>= affine-expr' at end of affine constraint";
        let cases: &[(&str, usize, &str)] = &[
            ("(d0) : (d0 > 0)", 13, expected_constraint),
            ("(d0) : (d0)", 10, expected_constraint),
            ("(d0) : (d0 = 0)", 13, expected_constraint),
            ("(d0) : (d0 >= 0,)", 16, "expected affine expression"),
            (
                "(d0) : d0 >= 0",
                7,
                "expected '(' in integer set constraint list",
            ),
            (
                "(d0) : (d0 >= 0",
                15,
                "expected ')' in integer set constraint list",
            ),
            ("(d0) -> (d0)", 0, "expected IntegerSet, but got AffineMap"),
            ("(d0, d1) : (d0 * d1 >= 0)", 15, mul),
        ];
        for &(text, offset, message) in cases {
            assert_eq!(set_error(text), (offset, message.to_string()), "{text}");
        }
    }

    #[test]
    fn nesting_limits() {
        let limit = MAX_EXPR_DEPTH as usize;
        let ok = format!("(d0) -> ({}d0{})", "(".repeat(limit), ")".repeat(limit));
        assert!(parse_affine_map(&ok).is_ok());
        let deep = format!(
            "(d0) -> ({}d0{})",
            "(".repeat(limit + 1),
            ")".repeat(limit + 1)
        );
        let err = parse_affine_map(&deep).unwrap_err();
        assert_eq!(
            err.message,
            format!("expression nested deeper than {limit} levels")
        );
        assert_eq!(err.offset, 9 + limit);

        // A sum chain is a left-deep tree: one level per `+`.
        let chain = |n: usize| format!("(d0) -> (d0{})", " + d0".repeat(n));
        assert!(parse_affine_map(&chain(limit - 1)).is_ok());
        let err = parse_affine_map(&chain(limit)).unwrap_err();
        assert!(err.message.contains("nested deeper"), "{err}");

        let negations = |n: usize| format!("(d0) -> ({}d0)", "-".repeat(n));
        assert!(parse_affine_map(&negations(limit - 1)).is_ok());
        assert!(parse_affine_map(&negations(limit + 1)).is_err());
        // Huge inputs fail cleanly rather than overflowing the stack.
        assert!(parse_affine_map(&format!("(d0) -> ({}d0)", "(".repeat(1_000_000))).is_err());
        assert!(parse_affine_map(&format!("(d0) -> ({}d0)", "-".repeat(1_000_000))).is_err());
        assert!(parse_affine_map(&chain(100_000)).is_err());
    }

    #[test]
    fn deepest_accepted_trees_are_usable_on_a_small_stack() {
        // Test threads get 2 MiB; everything recursive must fit in half of that on the deepest
        // trees the parser accepts, even in debug builds.
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(|| {
                let n = MAX_EXPR_DEPTH as usize - 1;
                let shapes: [fn(AffineExpr, usize) -> AffineExpr; 6] = [
                    |e, _| e + s(0),
                    |e, _| -e,
                    |e, _| e.floor_div(2),
                    |e, i| {
                        if i % 2 == 0 {
                            e.floor_div(s(0))
                        } else {
                            e * s(0)
                        }
                    },
                    |e, i| {
                        if i % 2 == 0 {
                            d(0) + e
                        } else {
                            e.modulo(s(0) + 1)
                        }
                    },
                    |e, i| if i % 2 == 0 { s(0) * e } else { e.ceil_div(7) },
                ];
                for grow in shapes {
                    let e = (0..n).fold(d(0), grow);
                    assert!(e.depth() <= MAX_EXPR_DEPTH);
                    let m = AffineMap::new(1, 1, vec![e.clone()]);
                    assert_eq!(parse_affine_map(&m.to_string()).unwrap(), m);
                    let simplified = m.simplify();
                    assert_eq!(simplified.simplify(), simplified);
                    let _ = simplified.to_string();
                    let _ = (m.evaluate(&[5], &[1]), format!("{m:?}"));
                    let _ = (
                        e.largest_known_divisor(),
                        e.is_pure_affine(),
                        e.is_semi_affine(),
                    );
                    let _ = m.compose(&AffineMap::identity(1));
                    let set = IntegerSet::new(1, 1, vec![e], vec![false]);
                    assert_eq!(parse_integer_set(&set.to_string()).unwrap(), set);
                    let _ = set.simplify();
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
