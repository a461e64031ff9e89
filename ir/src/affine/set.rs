//! `IntegerSet`: `(d0, ..)[s0, ..] : (e0 >= 0, e1 == 0, ..)`.

use std::fmt;
use std::str::FromStr;

use super::expr::AffineExpr;
use super::map::write_dims_and_symbols;
use super::parse::{AffineParseError, parse_integer_set};

/// The integer points `(dims)` for given `(symbols)` satisfying every constraint: `e == 0`
/// where `eq_flags[i]` is true, `e >= 0` otherwise.
///
/// Invariant (checked by [`IntegerSet::new`]): `constraints.len() == eq_flags.len()` and
/// constraints only use declared dims and symbols. MLIR never has a set without constraints:
/// its parser turns `()` into `0 == 0` (see [`IntegerSet::universe`]); a set built here with
/// none means the same, and prints as `()`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct IntegerSet {
    pub num_dims: u32,
    pub num_symbols: u32,
    pub constraints: Vec<AffineExpr>,
    pub eq_flags: Vec<bool>,
}

impl IntegerSet {
    /// # Panics
    /// If the lengths differ or a constraint uses a dim or symbol out of range.
    pub fn new(
        num_dims: u32,
        num_symbols: u32,
        constraints: Vec<AffineExpr>,
        eq_flags: Vec<bool>,
    ) -> Self {
        Self::try_new(num_dims, num_symbols, constraints, eq_flags)
            .expect("integer set: eq_flags must match constraints, dims and symbols in range")
    }

    /// `None` if the lengths differ or a constraint uses a dim or symbol out of range.
    pub fn try_new(
        num_dims: u32,
        num_symbols: u32,
        constraints: Vec<AffineExpr>,
        eq_flags: Vec<bool>,
    ) -> Option<Self> {
        let valid = constraints.len() == eq_flags.len()
            && constraints
                .iter()
                .all(|c| c.is_valid_for(num_dims, num_symbols));
        valid.then_some(IntegerSet {
            num_dims,
            num_symbols,
            constraints,
            eq_flags,
        })
    }

    /// MLIR's canonical empty set: `1 == 0`.
    pub fn empty(num_dims: u32, num_symbols: u32) -> Self {
        IntegerSet {
            num_dims,
            num_symbols,
            constraints: vec![AffineExpr::Constant(1)],
            eq_flags: vec![true],
        }
    }

    /// The set of all points, as MLIR writes it: `0 == 0`.
    pub fn universe(num_dims: u32, num_symbols: u32) -> Self {
        IntegerSet {
            num_dims,
            num_symbols,
            constraints: vec![AffineExpr::Constant(0)],
            eq_flags: vec![true],
        }
    }

    pub fn num_inputs(&self) -> u32 {
        self.num_dims + self.num_symbols
    }

    pub fn num_constraints(&self) -> usize {
        self.constraints.len()
    }

    pub fn num_equalities(&self) -> usize {
        self.eq_flags.iter().filter(|&&eq| eq).count()
    }

    pub fn num_inequalities(&self) -> usize {
        self.eq_flags.iter().filter(|&&eq| !eq).count()
    }

    /// Constraint `index` and whether it is an equality.
    pub fn constraint(&self, index: usize) -> Option<(&AffineExpr, bool)> {
        Some((self.constraints.get(index)?, *self.eq_flags.get(index)?))
    }

    /// Every constraint with whether it is an equality.
    pub fn iter(&self) -> impl Iterator<Item = (&AffineExpr, bool)> {
        self.constraints.iter().zip(self.eq_flags.iter().copied())
    }

    /// Some constraint without dims or symbols is false (e.g. `1 == 0`, `-1 >= 0`), so no
    /// point is in the set. A `false` answer does not mean the set has points.
    pub fn is_empty_trivially(&self) -> bool {
        self.iter()
            .any(|(c, eq)| c.constant_value().is_some_and(|v| !holds(v, eq)))
    }

    /// Whether the point is in the set; `None` if the number of dims or symbols given differs
    /// from the set's, or a constraint divides by zero or overflows there.
    pub fn contains(&self, dims: &[i64], symbols: &[i64]) -> Option<bool> {
        if dims.len() != self.num_dims as usize || symbols.len() != self.num_symbols as usize {
            return None;
        }
        let mut all = true;
        for (c, eq) in self.iter() {
            // Evaluate every constraint so that an undefined one is never hidden.
            all &= holds(c.evaluate(dims, symbols)?, eq);
        }
        Some(all)
    }

    /// Substitutes `dims[i]` for `d<i>` and `symbols[j]` for `s<j>` in every constraint
    /// (positions past either slice are kept) and declares `new_num_dims` dims and
    /// `new_num_symbols` symbols. `None` if a constraint then uses an undeclared one.
    pub fn replace_dims_and_symbols(
        &self,
        dims: &[AffineExpr],
        symbols: &[AffineExpr],
        new_num_dims: u32,
        new_num_symbols: u32,
    ) -> Option<IntegerSet> {
        let constraints = self
            .constraints
            .iter()
            .map(|c| c.replace_dims_and_symbols(dims, symbols))
            .collect();
        IntegerSet::try_new(
            new_num_dims,
            new_num_symbols,
            constraints,
            self.eq_flags.clone(),
        )
    }
}

pub(crate) fn holds(value: i64, is_eq: bool) -> bool {
    if is_eq { value == 0 } else { value >= 0 }
}

/// The text inside `affine_set<...>`, e.g. `(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`.
impl fmt::Display for IntegerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims_and_symbols(f, self.num_dims, self.num_symbols)?;
        f.write_str(" : (")?;
        for (i, (c, eq)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{c} {} 0", if eq { "==" } else { ">=" })?;
        }
        f.write_str(")")
    }
}

impl FromStr for IntegerSet {
    type Err = AffineParseError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_integer_set(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> IntegerSet {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn display_and_counts() {
        let s = set("(d0)[s0] : (d0 - s0 >= 0, d0 == 0)");
        assert_eq!(s.to_string(), "(d0)[s0] : (d0 - s0 >= 0, d0 == 0)");
        assert_eq!(
            (
                s.num_constraints(),
                s.num_equalities(),
                s.num_inequalities()
            ),
            (2, 1, 1)
        );
        assert_eq!(s.num_inputs(), 2);
        assert_eq!(s.constraint(1), Some((&AffineExpr::Dim(0), true)));
        assert_eq!(s.constraint(2), None);
        assert_eq!(IntegerSet::empty(2, 0).to_string(), "(d0, d1) : (1 == 0)");
        assert_eq!(IntegerSet::universe(0, 1).to_string(), "()[s0] : (0 == 0)");
        assert_eq!(
            IntegerSet::try_new(1, 0, vec![AffineExpr::Dim(0)], vec![]),
            None
        );
        assert_eq!(
            IntegerSet::try_new(1, 0, vec![AffineExpr::Dim(1)], vec![true]),
            None
        );
    }

    #[test]
    fn trivially_empty() {
        assert!(IntegerSet::empty(1, 0).is_empty_trivially());
        assert!(!IntegerSet::universe(1, 0).is_empty_trivially());
        assert!(set("(d0) : (d0 >= 0, 2 - 3 >= 0)").is_empty_trivially());
        assert!(set("(d0) : (0 >= 1)").is_empty_trivially());
        assert!(!set("(d0) : (1 >= 0, 0 == 0)").is_empty_trivially());
        // Not trivially: needs reasoning about d0.
        assert!(!set("(d0) : (d0 >= 0, -d0 - 1 >= 0)").is_empty_trivially());
        // Undefined constants are not taken as false.
        assert!(!set("(d0) : (1 floordiv 0 >= 0)").is_empty_trivially());
    }

    #[test]
    fn contains_points() {
        let s = set("(i, j)[N] : (i >= 0, N - 1 - i >= 0, j - i * 2 == 0)");
        assert_eq!(s.contains(&[0, 0], &[4]), Some(true));
        assert_eq!(s.contains(&[3, 6], &[4]), Some(true));
        assert_eq!(s.contains(&[4, 8], &[4]), Some(false));
        assert_eq!(s.contains(&[1, 3], &[4]), Some(false));
        assert_eq!(s.contains(&[1, 3], &[]), None);
        assert_eq!(
            set("(d0)[s0] : (d0 floordiv s0 >= 0)").contains(&[1], &[0]),
            None
        );
        assert_eq!(
            set("(d0)[s0] : (-1 >= 0, d0 floordiv s0 >= 0)").contains(&[1], &[0]),
            None
        );
    }

    #[test]
    fn replace_dims() {
        let s = set("(d0, d1) : (d0 - d1 >= 0)");
        let r = s.replace_dims_and_symbols(&[AffineExpr::Symbol(0), AffineExpr::Dim(0)], &[], 1, 1);
        assert_eq!(r.unwrap().to_string(), "(d0)[s0] : (s0 - d0 >= 0)");
        assert_eq!(s.replace_dims_and_symbols(&[], &[], 1, 0), None);
    }
}
