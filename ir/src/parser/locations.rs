//! Parsing `loc(...)` locations, including deferred references to location aliases.

use super::{LocTarget, PResult, Parser};
use crate::lexer::TokenKind;
use crate::location::{Location, LocationKind};
use crate::operation::OpId;
use crate::value::Value;

/// What a trailing `loc(...)` resolved to: a location now, or an alias defined later.
pub(crate) enum TrailingLoc {
    Known(Location),
    Alias(String, usize),
}

impl<'a> Parser<'a> {
    /// Parses an optional trailing `loc(...)`, which may name an alias defined later.
    pub(crate) fn parse_optional_trailing_loc(&mut self) -> PResult<Option<TrailingLoc>> {
        if !self.is_keyword("loc") {
            return Ok(None);
        }
        self.advance();
        self.expect(TokenKind::LParen, "'(' in location")?;
        if self.is(TokenKind::HashIdent) {
            let tok = self.advance();
            let name = self.text(tok)[1..].to_string();
            self.expect(TokenKind::RParen, "')' in location")?;
            return Ok(Some(match self.attr_aliases.get(&name) {
                Some(&attr) => {
                    if self.ctx.location_kind(attr).is_none() {
                        return self.error_at(
                            tok.start,
                            format!(
                                "expected location, but found '{}'",
                                crate::printer::attr_to_string(self.ctx, attr)
                            ),
                        );
                    }
                    TrailingLoc::Known(attr)
                }
                None => TrailingLoc::Alias(name, tok.start),
            }));
        }
        let loc = self.parse_location_body()?;
        self.expect(TokenKind::RParen, "')' in location")?;
        Ok(Some(TrailingLoc::Known(loc)))
    }

    pub(crate) fn apply_trailing_loc_to_op(&mut self, op: OpId, loc: TrailingLoc) {
        match loc {
            TrailingLoc::Known(loc) => self.ctx.op_mut(op).loc = loc,
            TrailingLoc::Alias(name, at) => self.deferred_locs.push((LocTarget::Op(op), name, at)),
        }
    }

    pub(crate) fn apply_trailing_loc_to_value(&mut self, value: Value, loc: TrailingLoc) {
        match loc {
            TrailingLoc::Known(loc) => self.ctx.values[value.0 as usize].loc = Some(loc),
            TrailingLoc::Alias(name, at) => {
                self.deferred_locs.push((LocTarget::Value(value), name, at))
            }
        }
    }

    /// `loc(...)` as an attribute.
    pub(crate) fn parse_location_attr(&mut self) -> PResult<Location> {
        self.advance(); // `loc`
        self.expect(TokenKind::LParen, "'(' in location")?;
        let loc = self.parse_location_body()?;
        self.expect(TokenKind::RParen, "')' in location")?;
        Ok(loc)
    }

    /// The inside of `loc(...)`.
    pub(crate) fn parse_location_body(&mut self) -> PResult<Location> {
        self.nested(|p| p.parse_location_body_unguarded())
    }

    fn parse_location_body_unguarded(&mut self) -> PResult<Location> {
        match self.tok.kind {
            TokenKind::HashIdent => {
                let tok = self.advance();
                let name = &self.text(tok)[1..];
                match self.attr_aliases.get(name) {
                    Some(&attr) if self.ctx.location_kind(attr).is_some() => Ok(attr),
                    Some(&attr) => self.error_at(
                        tok.start,
                        format!(
                            "expected location, but found '{}'",
                            crate::printer::attr_to_string(self.ctx, attr)
                        ),
                    ),
                    None => self.error_at(tok.start, format!("undefined symbol alias id '{name}'")),
                }
            }
            TokenKind::String => self.parse_file_or_name_location(),
            TokenKind::BareIdent => match self.text(self.tok) {
                "unknown" => {
                    self.advance();
                    Ok(self.ctx.unknown_loc())
                }
                "callsite" => {
                    self.advance();
                    self.expect(TokenKind::LParen, "'(' in callsite location")?;
                    let callee = self.parse_location_body()?;
                    if !self.consume_keyword("at") {
                        return self.error("expected 'at' in callsite location");
                    }
                    let caller = self.parse_location_body()?;
                    self.expect(TokenKind::RParen, "')' in callsite location")?;
                    Ok(self.ctx.location(LocationKind::CallSite { callee, caller }))
                }
                "fused" => {
                    self.advance();
                    let metadata = if self.consume_if(TokenKind::Less) {
                        let attr = self.parse_attribute()?;
                        self.expect(TokenKind::Greater, "'>' after fused location metadata")?;
                        Some(attr)
                    } else {
                        None
                    };
                    self.expect(TokenKind::LSquare, "'[' in fused location")?;
                    let mut locations = Vec::new();
                    self.parse_comma_list_until(TokenKind::RSquare, |p| {
                        locations.push(p.parse_location_body()?);
                        Ok(())
                    })?;
                    self.expect(TokenKind::RSquare, "']' in fused location")?;
                    Ok(self.fused_location(locations, metadata))
                }
                _ => self.error("expected location instance"),
            },
            _ => self.error("expected location instance"),
        }
    }

    /// `"file":line(:col)?( to ...)?`, `"name"` or `"name"(child)`.
    fn parse_file_or_name_location(&mut self) -> PResult<Location> {
        let text = self.parse_string("location string")?;
        if self.consume_if(TokenKind::Colon) {
            let line = self.parse_u32("line number")?;
            let col = if self.consume_if(TokenKind::Colon) {
                self.parse_u32("column number")?
            } else {
                0
            };
            let mut end = None;
            if self.consume_keyword("to") {
                let (end_line, end_col) = if self.consume_if(TokenKind::Colon) {
                    (line, self.parse_u32("column number")?)
                } else {
                    let l = self.parse_u32("line number")?;
                    self.expect(TokenKind::Colon, "':' in location range")?;
                    (l, self.parse_u32("column number")?)
                };
                if (end_line, end_col) != (line, col) {
                    end = Some((end_line, end_col));
                }
            }
            return Ok(self.ctx.location(LocationKind::FileLineCol {
                file: text,
                line,
                col,
                end,
            }));
        }
        let child = if self.consume_if(TokenKind::LParen) {
            let child = self.parse_location_body()?;
            self.expect(TokenKind::RParen, "')' after child location of NameLoc")?;
            Some(child)
        } else {
            None
        };
        Ok(self.ctx.location(LocationKind::Name { name: text, child }))
    }

    /// Builds a fused location the way MLIR canonicalizes it: nested fusions without
    /// metadata flatten, duplicates and unknowns drop, and a lone location stands alone.
    fn fused_location(
        &mut self,
        locations: Vec<Location>,
        metadata: Option<crate::Attr>,
    ) -> Location {
        let mut flat: Vec<Location> = Vec::new();
        for loc in locations {
            let inner = match self.ctx.location_kind(loc) {
                Some(LocationKind::Fused {
                    locations,
                    metadata: None,
                }) => locations.clone(),
                Some(LocationKind::Unknown) => vec![],
                _ => vec![loc],
            };
            for l in inner {
                if !flat.contains(&l) {
                    flat.push(l);
                }
            }
        }
        if metadata.is_none() {
            match flat.len() {
                0 => return self.ctx.unknown_loc(),
                1 => return flat[0],
                _ => {}
            }
        }
        self.ctx.location(LocationKind::Fused {
            locations: flat,
            metadata,
        })
    }

    fn parse_u32(&mut self, what: &str) -> PResult<u32> {
        let at = self.tok.start;
        let v = self.parse_u64(what)?;
        u32::try_from(v).or_else(|_| self.error_at(at, format!("{what} out of range")))
    }
}
