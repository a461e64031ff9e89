//! `#loop.schedule<...>`: the schedule of one loop nest as data, so that a heuristic can
//! write it, a tuner can search and store it, a lit test can spell it by hand, and one set
//! of loop transformations applies it.
//!
//! A schedule speaks of the nest's iteration domain, one dimension per loop of the nest
//! from the outermost inwards (for the nests `convert-te-to-loop` writes: the dimensions of
//! the `loop.parallel`, then its reduction `loop.for`s):
//!
//! ```mlir
//! #loop.schedule<tiles = [[64, 8], [256, 16], [128]], order = [0, 2, 1], parallel = [0],
//!                vector = 8, unroll = 4, pack = rhs>
//! ```
//!
//! - `tiles`: per dimension, its tile sizes from the outermost level inwards (`[]` leaves it
//!   untiled); a tile need not divide its loop: the last tile of a loop is partial;
//! - `order`: the order of the dimensions' outermost tile loops (a permutation; identity by
//!   default);
//! - `parallel`: the dimensions whose outermost loop runs on threads;
//! - `vector`: the vector width of the innermost dimension (1: scalar);
//! - `unroll`: the unroll factor of the innermost loop (1: none);
//! - `pack`: which operands of a contraction are copied into contiguous panels first.
//!
//! Fields at their default are omitted when printing; parsing takes them in any order.

use std::fmt::Write;

use tb_ir::dialect_attr::TypedAttr;

/// Which operands of a contraction a schedule copies into contiguous panels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Packing {
    #[default]
    None,
    /// The left operand (rows of the result).
    Lhs,
    /// The right operand (columns of the result).
    Rhs,
    Both,
}

impl Packing {
    pub const ALL: [Packing; 4] = [Packing::None, Packing::Lhs, Packing::Rhs, Packing::Both];

    pub fn keyword(self) -> &'static str {
        match self {
            Packing::None => "none",
            Packing::Lhs => "lhs",
            Packing::Rhs => "rhs",
            Packing::Both => "both",
        }
    }

    pub fn from_keyword(word: &str) -> Option<Packing> {
        Packing::ALL.into_iter().find(|p| p.keyword() == word)
    }

    pub fn packs_lhs(self) -> bool {
        matches!(self, Packing::Lhs | Packing::Both)
    }

    pub fn packs_rhs(self) -> bool {
        matches!(self, Packing::Rhs | Packing::Both)
    }
}

/// The schedule of a loop nest (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub tiles: Vec<Vec<i64>>,
    pub order: Vec<usize>,
    pub parallel: Vec<usize>,
    pub vector: i64,
    pub unroll: i64,
    pub pack: Packing,
}

impl Schedule {
    /// The schedule that changes nothing on a nest of `rank` loops.
    pub fn identity(rank: usize) -> Schedule {
        Schedule {
            tiles: vec![Vec::new(); rank],
            order: (0..rank).collect(),
            parallel: Vec::new(),
            vector: 1,
            unroll: 1,
            pack: Packing::None,
        }
    }

    /// The order of the outermost tile loops, identity when none is given.
    pub fn effective_order(&self) -> Vec<usize> {
        if self.order.is_empty() {
            (0..self.tiles.len()).collect()
        } else {
            self.order.clone()
        }
    }

    /// Checks the schedule against a nest of `rank` loops, `reduction[d]` telling whether
    /// dimension `d` is a reduction (which cannot run on threads). The divisibility and
    /// budget constraints of a knob space are checked by the space itself.
    pub fn verify(&self, rank: usize, reduction: &[bool]) -> Result<(), String> {
        if self.tiles.len() != rank {
            return Err(format!(
                "schedule tiles {} dimensions but the nest has {rank}",
                self.tiles.len()
            ));
        }
        for (d, levels) in self.tiles.iter().enumerate() {
            if let Some(bad) = levels.iter().find(|&&t| t <= 0) {
                return Err(format!("tile size {bad} of dimension {d} is not positive"));
            }
            if levels.windows(2).any(|w| w[1] > w[0]) {
                return Err(format!(
                    "tile sizes of dimension {d} grow inwards ({levels:?}); each level must be at most the one outside it"
                ));
            }
        }
        let order = self.effective_order();
        let mut seen = vec![false; rank];
        if order.len() != rank
            || order
                .iter()
                .any(|&d| d >= rank || std::mem::replace(&mut seen[d], true))
        {
            return Err(format!("order {order:?} is not a permutation of 0..{rank}"));
        }
        let mut seen = vec![false; rank];
        for &d in &self.parallel {
            if d >= rank {
                return Err(format!(
                    "parallel dimension {d} is outside the nest of {rank}"
                ));
            }
            if std::mem::replace(&mut seen[d], true) {
                return Err(format!("parallel dimension {d} is listed twice"));
            }
            if reduction.get(d).copied().unwrap_or(false) {
                return Err(format!(
                    "dimension {d} is a reduction and cannot run on threads"
                ));
            }
        }
        if self.vector < 1 {
            return Err(format!("vector width {} is not positive", self.vector));
        }
        if self.unroll < 1 {
            return Err(format!("unroll factor {} is not positive", self.unroll));
        }
        Ok(())
    }
}

impl TypedAttr for Schedule {
    const DIALECT: &'static str = "loop";
    const MNEMONIC: &'static str = "schedule";

    fn parse(body: &str) -> Result<Self, String> {
        let mut lexer = Lexer::new(body);
        lexer.expect('<')?;
        let mut schedule = Schedule::identity(0);
        let mut given: Vec<String> = Vec::new();
        if !lexer.eat('>') {
            loop {
                let key = lexer.word()?;
                if given.contains(&key) {
                    return Err(format!("schedule field '{key}' is given twice"));
                }
                lexer.expect('=')?;
                match key.as_str() {
                    "tiles" => {
                        schedule.tiles = lexer.list(|l| l.list(|l| l.integer()))?;
                    }
                    "order" => schedule.order = lexer.list(|l| l.index())?,
                    "parallel" => schedule.parallel = lexer.list(|l| l.index())?,
                    "vector" => schedule.vector = lexer.integer()?,
                    "unroll" => schedule.unroll = lexer.integer()?,
                    "pack" => {
                        let word = lexer.word()?;
                        schedule.pack = Packing::from_keyword(&word).ok_or_else(|| {
                            format!("unknown packing '{word}' (expected none, lhs, rhs or both)")
                        })?;
                    }
                    other => {
                        return Err(format!(
                            "unknown schedule field '{other}' (expected tiles, order, parallel, vector, unroll or pack)"
                        ));
                    }
                }
                given.push(key);
                if lexer.eat('>') {
                    break;
                }
                lexer.expect(',')?;
            }
        }
        lexer.end()?;
        if schedule.order.is_empty() {
            schedule.order = (0..schedule.tiles.len()).collect();
        }
        schedule.verify(schedule.tiles.len(), &[])?;
        Ok(schedule)
    }

    fn print(&self, out: &mut String) {
        let mut fields = Vec::new();
        let list = |items: &[String]| format!("[{}]", items.join(", "));
        let tiles: Vec<String> = self
            .tiles
            .iter()
            .map(|levels| list(&levels.iter().map(i64::to_string).collect::<Vec<_>>()))
            .collect();
        fields.push(format!("tiles = {}", list(&tiles)));
        if self.effective_order() != (0..self.tiles.len()).collect::<Vec<_>>() {
            let order: Vec<String> = self.order.iter().map(usize::to_string).collect();
            fields.push(format!("order = {}", list(&order)));
        }
        if !self.parallel.is_empty() {
            let dims: Vec<String> = self.parallel.iter().map(usize::to_string).collect();
            fields.push(format!("parallel = {}", list(&dims)));
        }
        if self.vector != 1 {
            fields.push(format!("vector = {}", self.vector));
        }
        if self.unroll != 1 {
            fields.push(format!("unroll = {}", self.unroll));
        }
        if self.pack != Packing::None {
            fields.push(format!("pack = {}", self.pack.keyword()));
        }
        let _ = write!(out, "<{}>", fields.join(", "));
    }
}

/// A small tokenizer over the attribute body.
struct Lexer<'a> {
    rest: &'a str,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer { rest: text }
    }

    fn skip_space(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected '{c}' in schedule at '{}'",
                self.excerpt()
            ))
        }
    }

    fn excerpt(&self) -> &str {
        let end = self
            .rest
            .char_indices()
            .nth(16)
            .map_or(self.rest.len(), |(i, _)| i);
        &self.rest[..end]
    }

    fn word(&mut self) -> Result<String, String> {
        self.skip_space();
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(format!(
                "expected a name in schedule at '{}'",
                self.excerpt()
            ));
        }
        let (word, rest) = self.rest.split_at(end);
        self.rest = rest;
        Ok(word.to_string())
    }

    fn integer(&mut self) -> Result<i64, String> {
        self.skip_space();
        let digits_from = usize::from(self.rest.starts_with('-'));
        let end = self.rest[digits_from..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(self.rest.len(), |i| i + digits_from);
        if end == digits_from {
            return Err(format!(
                "expected an integer in schedule at '{}'",
                self.excerpt()
            ));
        }
        let (text, rest) = self.rest.split_at(end);
        let value = text
            .parse()
            .map_err(|_| format!("integer {text} in schedule is out of range"))?;
        self.rest = rest;
        Ok(value)
    }

    fn index(&mut self) -> Result<usize, String> {
        let value = self.integer()?;
        usize::try_from(value).map_err(|_| format!("dimension {value} is negative"))
    }

    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        self.expect('[')?;
        let mut items = Vec::new();
        if self.eat(']') {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat(']') {
                return Ok(items);
            }
            self.expect(',')?;
        }
    }

    fn end(&mut self) -> Result<(), String> {
        self.skip_space();
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(format!("unexpected '{}' after schedule", self.excerpt()))
        }
    }
}
