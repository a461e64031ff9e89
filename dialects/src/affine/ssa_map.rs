//! Affine maps written with SSA values in place of dims and symbols, as MLIR's
//! `parseAffineMapOfSSAIds` reads them: `%A[%i + 1, symbol(%n) floordiv 2]`.
//!
//! A bare value is a dimension, `symbol(%v)` a symbol; each distinct value is one input
//! (dims in order of first use, then symbols). Trees are built as the map parser builds
//! them (`a - b` is `a + b * -1`), so printing and re-reading gives the same map.

use tb_ir::Value;
use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};
use tb_ir::asm::{OpAsmParser, OpAsmPrinter};
use tb_ir::lexer::TokenKind;
use tb_ir::parser::PResult;

/// The inputs met so far while reading one map of SSA values.
#[derive(Default)]
pub(crate) struct SsaMapBuilder {
    dims: Vec<Value>,
    symbols: Vec<Value>,
}

impl SsaMapBuilder {
    /// The map of `results` over the inputs met, and those inputs (dims, then symbols).
    pub(crate) fn finish(self, results: Vec<AffineExpr>) -> (AffineMap, Vec<Value>) {
        let map = AffineMap::new(self.dims.len() as u32, self.symbols.len() as u32, results);
        let mut operands = self.dims;
        operands.extend(self.symbols);
        (map, operands)
    }

    fn input(&mut self, p: &mut OpAsmParser, symbol: bool) -> PResult<AffineExpr> {
        let operand = p.parse_operand()?;
        let index = p.ctx().index_type();
        let value = p.resolve_operand(&operand, index)?;
        let list = if symbol {
            &mut self.symbols
        } else {
            &mut self.dims
        };
        let position = match list.iter().position(|&v| v == value) {
            Some(i) => i,
            None => {
                list.push(value);
                list.len() - 1
            }
        } as u32;
        Ok(if symbol {
            AffineExpr::symbol(position)
        } else {
            AffineExpr::dim(position)
        })
    }

    /// `term (('+' | '-') term)*`
    pub(crate) fn parse_expr(&mut self, p: &mut OpAsmParser) -> PResult<AffineExpr> {
        let mut lhs = self.parse_term(p)?;
        loop {
            if p.parse_optional_literal("+") {
                let rhs = self.parse_term(p)?;
                lhs = AffineExpr::binary(AffineBinaryKind::Add, lhs, rhs);
            } else if p.parse_optional_literal("-") {
                let rhs = self.parse_term(p)?;
                let negated =
                    AffineExpr::binary(AffineBinaryKind::Mul, rhs, AffineExpr::constant(-1));
                lhs = AffineExpr::binary(AffineBinaryKind::Add, lhs, negated);
            } else {
                return Ok(lhs);
            }
        }
    }

    fn parse_term(&mut self, p: &mut OpAsmParser) -> PResult<AffineExpr> {
        let mut lhs = self.parse_atom(p)?;
        loop {
            let kind = if p.parse_optional_literal("*") {
                AffineBinaryKind::Mul
            } else if p.parse_optional_literal("floordiv") {
                AffineBinaryKind::FloorDiv
            } else if p.parse_optional_literal("ceildiv") {
                AffineBinaryKind::CeilDiv
            } else if p.parse_optional_literal("mod") {
                AffineBinaryKind::Mod
            } else {
                return Ok(lhs);
            };
            let rhs = self.parse_atom(p)?;
            lhs = AffineExpr::binary(kind, lhs, rhs);
        }
    }

    fn parse_atom(&mut self, p: &mut OpAsmParser) -> PResult<AffineExpr> {
        if p.peek_operand() {
            return self.input(p, false);
        }
        if p.parse_optional_literal("symbol") {
            p.parse_literal("(")?;
            let expr = self.input(p, true)?;
            p.parse_literal(")")?;
            return Ok(expr);
        }
        if p.peek_is(TokenKind::Integer) {
            return integer(p, false);
        }
        if p.parse_optional_literal("(") {
            let expr = self.parse_expr(p)?;
            p.parse_literal(")")?;
            return Ok(expr);
        }
        if p.parse_optional_literal("-") {
            if p.peek_is(TokenKind::Integer) {
                return integer(p, true);
            }
            let operand = self.parse_atom(p)?;
            return Ok(AffineExpr::binary(
                AffineBinaryKind::Mul,
                operand,
                AffineExpr::constant(-1),
            ));
        }
        p.error("expected affine expression")
    }

    /// `expr (',' expr)*` up to `close` (consumed); empty when `close` comes first.
    pub(crate) fn parse_list(
        &mut self,
        p: &mut OpAsmParser,
        close: &str,
    ) -> PResult<Vec<AffineExpr>> {
        let mut results = Vec::new();
        if p.parse_optional_literal(close) {
            return Ok(results);
        }
        loop {
            results.push(self.parse_expr(p)?);
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal(close)?;
        Ok(results)
    }
}

fn integer(p: &mut OpAsmParser, negative: bool) -> PResult<AffineExpr> {
    let at = p.offset();
    let value = p.parse_integer("integer")?;
    let value = if negative { -value } else { value };
    match i64::try_from(value) {
        Ok(v) => Ok(AffineExpr::constant(v)),
        Err(_) => p.error_at(at, "constant too large for index"),
    }
}

/// `[expr, ...]`: a map of SSA values between square brackets.
pub(crate) fn parse_bracketed(p: &mut OpAsmParser) -> PResult<(AffineMap, Vec<Value>)> {
    p.parse_literal("[")?;
    let mut builder = SsaMapBuilder::default();
    let results = builder.parse_list(p, "]")?;
    Ok(builder.finish(results))
}

/// The printed name of `v` (`%arg0`, `%3#1`).
pub(crate) fn value_name(p: &mut OpAsmPrinter, v: Value) -> String {
    let start = p.out().len();
    p.print_value(v);
    p.out().split_off(start)
}

/// `expr` with dim `i` written as `operands[i]` and symbol `j` as
/// `symbol(operands[num_dims + j])`.
pub(crate) fn expr_text(
    p: &mut OpAsmPrinter,
    expr: &AffineExpr,
    num_dims: usize,
    operands: &[Value],
) -> String {
    let text = expr.to_string();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let word_start = start == 0 || !text[..start].ends_with(|b: char| b.is_alphanumeric());
        if word_start && (c == 'd' || c == 's') {
            let digits: String = text[start + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let ends = !text[start + 1 + digits.len()..].starts_with(|b: char| b.is_alphanumeric());
            if !digits.is_empty() && ends {
                let position: usize = digits.parse().unwrap_or(usize::MAX);
                let index = if c == 'd' {
                    position
                } else {
                    num_dims + position
                };
                if let Some(&v) = operands.get(index) {
                    let name = value_name(p, v);
                    if c == 'd' {
                        out.push_str(&name);
                    } else {
                        out.push_str(&format!("symbol({name})"));
                    }
                    for _ in 0..digits.len() {
                        chars.next();
                    }
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// The results of `map` over `operands`, comma-separated.
pub(crate) fn print_results(p: &mut OpAsmPrinter, map: &AffineMap, operands: &[Value]) {
    let texts: Vec<String> = map
        .results
        .iter()
        .map(|e| expr_text(p, e, map.num_dims as usize, operands))
        .collect();
    p.print_str(&texts.join(", "));
}
