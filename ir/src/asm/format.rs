//! Declarative assembly formats in MLIR's directive syntax, e.g.
//! `` $lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result) ``,
//! parsed once when an op is registered into a list of [`Element`]s that the shared
//! format parser and printer interpret.

use crate::ods::{Arity, OpDef};

/// Whose types a `type(...)` or `functional-type(...)` directive names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRef {
    Operand(usize),
    Result(usize),
    Operands,
    Results,
}

/// What makes an optional group print: its anchor (`^`) is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Operand(usize),
    Attr(usize),
    Region(usize),
    Results,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    /// `` `,` `` or a keyword; the empty literal suppresses the next space.
    Literal(String),
    Operand(usize),
    Operands,
    Attr(usize),
    Region(usize),
    Regions,
    AttrDict {
        keyword: bool,
    },
    Type(TypeRef),
    FunctionalType(TypeRef, TypeRef),
    Optional {
        then: Vec<Element>,
        otherwise: Vec<Element>,
        anchor: Anchor,
    },
}

/// A checked format.
#[derive(Clone, Debug)]
pub struct Format {
    pub elements: Vec<Element>,
    /// Attributes the format spells itself; `attr-dict` leaves them out.
    pub named_attrs: Vec<&'static str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Literal(String),
    Var(String),
    Word(String),
    Punct(char),
}

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {}
            '`' => {
                let rest = &text[i + 1..];
                let end = rest
                    .find('`')
                    .ok_or_else(|| format!("unterminated literal at offset {i}"))?;
                toks.push(Tok::Literal(rest[..end].to_string()));
                for _ in 0..=end {
                    chars.next();
                }
            }
            '$' => {
                let mut name = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        name.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                toks.push(Tok::Var(name));
            }
            '(' | ')' | '?' | '^' | ',' | ':' => toks.push(Tok::Punct(c)),
            c if c.is_ascii_alphabetic() => {
                let mut word = c.to_string();
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        word.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                toks.push(Tok::Word(word));
            }
            other => return Err(format!("unexpected '{other}' at offset {i}")),
        }
    }
    Ok(toks)
}

struct FormatParser<'d> {
    def: &'d OpDef,
    toks: Vec<Tok>,
    pos: usize,
    named_attrs: Vec<&'static str>,
}

impl Format {
    /// Parses and checks `text` against `def`.
    pub fn parse(def: &OpDef, text: &str) -> Result<Format, String> {
        let context = |e: String| format!("assembly format of '{}': {e}", def.name);
        let toks = tokenize(text).map_err(context)?;
        let mut p = FormatParser {
            def,
            toks,
            pos: 0,
            named_attrs: Vec::new(),
        };
        let mut elements = Vec::new();
        while p.pos < p.toks.len() {
            elements.push(p.element(false).map_err(context)?.0);
        }
        let format = Format {
            elements,
            named_attrs: p.named_attrs,
        };
        format.check(def).map_err(context)?;
        Ok(format)
    }

    /// Every operand and region must be spelled; `attr-dict` must be present.
    fn check(&self, def: &OpDef) -> Result<(), String> {
        let mut all = Vec::new();
        flatten(&self.elements, &mut all);
        if !all.iter().any(|e| matches!(e, Element::AttrDict { .. })) {
            return Err("'attr-dict' directive not found".into());
        }
        let has = |f: &dyn Fn(&Element) -> bool| all.iter().any(|e| f(e));
        for (i, o) in def.operands.iter().enumerate() {
            if !has(&|e| matches!(e, Element::Operand(j) if *j == i) || *e == Element::Operands) {
                return Err(format!("operand '{}' not found", o.name));
            }
        }
        for (i, r) in def.regions.iter().enumerate() {
            if !has(&|e| matches!(e, Element::Region(j) if *j == i) || *e == Element::Regions) {
                return Err(format!("region '{}' not found", r.name));
            }
        }
        Ok(())
    }
}

fn flatten<'e>(elements: &'e [Element], out: &mut Vec<&'e Element>) {
    for e in elements {
        out.push(e);
        if let Element::Optional {
            then, otherwise, ..
        } = e
        {
            flatten(then, out);
            flatten(otherwise, out);
        }
    }
}

impl FormatParser<'_> {
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        match self.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            other => Err(format!("expected '{c}', found {other:?}")),
        }
    }

    fn peek_is(&self, c: char) -> bool {
        self.toks.get(self.pos) == Some(&Tok::Punct(c))
    }

    /// One element; the flag says whether an anchor `^` followed it.
    fn element(&mut self, in_group: bool) -> Result<(Element, bool), String> {
        let element = match self.next() {
            Some(Tok::Literal(l)) => Element::Literal(l),
            Some(Tok::Var(name)) => self.variable(&name)?,
            Some(Tok::Word(w)) => self.directive(&w)?,
            Some(Tok::Punct('(')) => return self.optional_group().map(|e| (e, false)),
            other => return Err(format!("unexpected {other:?}")),
        };
        let anchored = in_group && self.peek_is('^');
        if anchored {
            self.pos += 1;
        }
        Ok((element, anchored))
    }

    fn variable(&mut self, name: &str) -> Result<Element, String> {
        let def = self.def;
        if let Some(i) = def.operands.iter().position(|o| o.name == name) {
            return Ok(Element::Operand(i));
        }
        if let Some(i) = def.attributes.iter().position(|a| a.name == name) {
            self.named_attrs.push(def.attributes[i].name);
            return Ok(Element::Attr(i));
        }
        if let Some(i) = def.regions.iter().position(|r| r.name == name) {
            return Ok(Element::Region(i));
        }
        Err(format!("'${name}' names no operand, attribute or region"))
    }

    fn type_ref(&mut self) -> Result<TypeRef, String> {
        match self.next() {
            Some(Tok::Var(name)) => {
                if let Some(i) = self.def.operands.iter().position(|o| o.name == name) {
                    return Ok(TypeRef::Operand(i));
                }
                if let Some(i) = self.def.results.iter().position(|o| o.name == name) {
                    return Ok(TypeRef::Result(i));
                }
                Err(format!("'${name}' names no operand or result"))
            }
            Some(Tok::Word(w)) if w == "operands" => Ok(TypeRef::Operands),
            Some(Tok::Word(w)) if w == "results" => Ok(TypeRef::Results),
            other => Err(format!("expected a type argument, found {other:?}")),
        }
    }

    fn directive(&mut self, word: &str) -> Result<Element, String> {
        Ok(match word {
            "attr-dict" => Element::AttrDict { keyword: false },
            "attr-dict-with-keyword" => Element::AttrDict { keyword: true },
            "operands" => Element::Operands,
            "regions" => Element::Regions,
            "type" => {
                self.expect('(')?;
                let r = self.type_ref()?;
                self.expect(')')?;
                Element::Type(r)
            }
            "functional-type" => {
                self.expect('(')?;
                let a = self.type_ref()?;
                self.expect(',')?;
                let b = self.type_ref()?;
                self.expect(')')?;
                Element::FunctionalType(a, b)
            }
            other => return Err(format!("unknown directive '{other}'")),
        })
    }

    /// `( elements )?` or `( elements ) : ( elements )?`, after the opening paren.
    fn optional_group(&mut self) -> Result<Element, String> {
        let mut then = Vec::new();
        let mut anchor = None;
        while !self.peek_is(')') {
            if self.pos >= self.toks.len() {
                return Err("unterminated optional group".into());
            }
            let (e, anchored) = self.element(true)?;
            if anchored {
                anchor = Some(match &e {
                    Element::Operand(i) => Anchor::Operand(*i),
                    Element::Attr(i) => Anchor::Attr(*i),
                    Element::Region(i) => Anchor::Region(*i),
                    Element::Type(TypeRef::Operand(i)) => Anchor::Operand(*i),
                    Element::Type(TypeRef::Results) => Anchor::Results,
                    other => return Err(format!("{other:?} cannot anchor an optional group")),
                });
            }
            then.push(e);
        }
        self.pos += 1;
        let mut otherwise = Vec::new();
        if self.peek_is(':') {
            self.pos += 1;
            self.expect('(')?;
            while !self.peek_is(')') {
                if self.pos >= self.toks.len() {
                    return Err("unterminated else group".into());
                }
                otherwise.push(self.element(false)?.0);
            }
            self.pos += 1;
        }
        self.expect('?')?;
        let anchor = anchor.ok_or("optional group has no anchor ('^')")?;
        match then.first() {
            Some(Element::Literal(_))
            | Some(Element::Operand(_))
            | Some(Element::Attr(_))
            | Some(Element::Region(_))
            | Some(Element::Type(_)) => {}
            other => {
                return Err(format!(
                    "optional group must start with a literal, operand, attribute, region or type, not {other:?}"
                ));
            }
        }
        if let Anchor::Operand(i) = anchor
            && self.def.operands[i].arity == Arity::Single
        {
            return Err(format!(
                "anchor operand '{}' of an optional group must be optional or variadic",
                self.def.operands[i].name
            ));
        }
        Ok(Element::Optional {
            then,
            otherwise,
            anchor,
        })
    }
}
