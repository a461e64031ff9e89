//! `AffineMap`: `(d0, ..)[s0, ..] -> (results)`.

use std::fmt;
use std::str::FromStr;

use super::expr::AffineExpr;
use super::parse::{AffineParseError, parse_affine_map};

/// A map from `num_dims` dimensions and `num_symbols` symbols to `results.len()` values.
///
/// Invariant (checked by [`AffineMap::new`], kept by every method): results only use
/// `d0..d<num_dims-1>` and `s0..s<num_symbols-1>`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AffineMap {
    pub num_dims: u32,
    pub num_symbols: u32,
    pub results: Vec<AffineExpr>,
}

impl AffineMap {
    /// # Panics
    /// If a result uses a dim or symbol out of range.
    pub fn new(num_dims: u32, num_symbols: u32, results: Vec<AffineExpr>) -> Self {
        Self::try_new(num_dims, num_symbols, results)
            .expect("affine map result uses a dim or symbol out of range")
    }

    /// `None` if a result uses a dim or symbol out of range.
    pub fn try_new(num_dims: u32, num_symbols: u32, results: Vec<AffineExpr>) -> Option<Self> {
        results
            .iter()
            .all(|r| r.is_valid_for(num_dims, num_symbols))
            .then_some(AffineMap {
                num_dims,
                num_symbols,
                results,
            })
    }

    /// A map without results: `(d0, ..)[s0, ..] -> ()`.
    pub fn empty(num_dims: u32, num_symbols: u32) -> Self {
        AffineMap {
            num_dims,
            num_symbols,
            results: Vec::new(),
        }
    }

    /// `(d0, .., d<n-1>) -> (d0, .., d<n-1>)`.
    pub fn identity(num_dims: u32) -> Self {
        AffineMap {
            num_dims,
            num_symbols: 0,
            results: (0..num_dims).map(AffineExpr::Dim).collect(),
        }
    }

    /// The identity on the last `num_results` of `num_dims` dims (MLIR's minor identity),
    /// e.g. `(d0, d1, d2) -> (d1, d2)`; `None` if `num_results > num_dims`.
    pub fn minor_identity(num_dims: u32, num_results: u32) -> Option<Self> {
        let first = num_dims.checked_sub(num_results)?;
        let results = (first..num_dims).map(AffineExpr::Dim).collect();
        Some(AffineMap {
            num_dims,
            num_symbols: 0,
            results,
        })
    }

    /// `() -> (value)`.
    pub fn constant(value: i64) -> Self {
        Self::constants(&[value])
    }

    /// `() -> (v0, v1, ..)`.
    pub fn constants(values: &[i64]) -> Self {
        AffineMap {
            num_dims: 0,
            num_symbols: 0,
            results: values.iter().map(|&v| AffineExpr::Constant(v)).collect(),
        }
    }

    /// `(d0, .., d<n-1>) -> (d<p0>, d<p1>, ..)`; `None` unless `positions` is a permutation of
    /// `0..n`.
    pub fn permutation(positions: &[u32]) -> Option<Self> {
        let n = u32::try_from(positions.len()).ok()?;
        let map = AffineMap {
            num_dims: n,
            num_symbols: 0,
            results: positions.iter().map(|&p| AffineExpr::Dim(p)).collect(),
        };
        map.is_permutation().then_some(map)
    }

    /// Dims plus symbols.
    pub fn num_inputs(&self) -> u32 {
        self.num_dims + self.num_symbols
    }

    pub fn num_results(&self) -> usize {
        self.results.len()
    }

    pub fn get_result(&self, index: usize) -> Option<&AffineExpr> {
        self.results.get(index)
    }

    /// Whether there are no results.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// Result `i` is `d<i>` for every `i`, and there are as many results as dims (symbols are
    /// allowed, as in MLIR).
    pub fn is_identity(&self) -> bool {
        self.results.len() == self.num_dims as usize
            && self
                .results
                .iter()
                .enumerate()
                .all(|(i, r)| r.as_dim() == Some(i as u32))
    }

    /// Every result is a `Constant` node.
    pub fn is_constant(&self) -> bool {
        self.results.iter().all(|r| r.as_constant().is_some())
    }

    /// The values of the results if they are all `Constant` nodes.
    pub fn constant_results(&self) -> Option<Vec<i64>> {
        self.results.iter().map(AffineExpr::as_constant).collect()
    }

    /// Results are distinct bare dims (or, with `allow_zero_results`, the constant 0), there
    /// are no symbols and no more results than dims. E.g. `(d0, d1, d2) -> (d2, d0)`.
    pub fn is_projected_permutation(&self, allow_zero_results: bool) -> bool {
        if self.num_symbols > 0 || self.results.len() > self.num_dims as usize {
            return false;
        }
        let mut seen = vec![false; self.num_dims as usize];
        self.results.iter().all(|r| match r {
            AffineExpr::Dim(i) => seen
                .get_mut(*i as usize)
                .is_some_and(|seen| !std::mem::replace(seen, true)),
            AffineExpr::Constant(0) => allow_zero_results,
            _ => false,
        })
    }

    /// A projected permutation with as many results as dims.
    pub fn is_permutation(&self) -> bool {
        self.results.len() == self.num_dims as usize && self.is_projected_permutation(false)
    }

    /// The map with only the given results, in the given order; `None` if an index is out of
    /// range.
    pub fn sub_map(&self, result_indices: &[usize]) -> Option<Self> {
        let results = result_indices
            .iter()
            .map(|&i| self.results.get(i).cloned())
            .collect::<Option<Vec<_>>>()?;
        Some(AffineMap {
            num_dims: self.num_dims,
            num_symbols: self.num_symbols,
            results,
        })
    }

    /// MLIR's `inversePermutation`: a map from this map's results back to its dims, taking for
    /// each dim the first result that is exactly that dim. Works for permutations and for maps
    /// like `(d0, d1) -> (d1, d0, d0 + d1)`. `None` if some dim is not a bare result, or the
    /// map has symbols. The inverse of an empty map with no dims is empty.
    pub fn inverse_permutation(&self) -> Option<Self> {
        if self.num_symbols > 0 {
            return None;
        }
        let mut inverse: Vec<Option<AffineExpr>> = vec![None; self.num_dims as usize];
        for (position, result) in self.results.iter().enumerate() {
            if let AffineExpr::Dim(d) = result {
                let slot = &mut inverse[*d as usize];
                if slot.is_none() {
                    *slot = Some(AffineExpr::Dim(u32::try_from(position).ok()?));
                }
            }
        }
        let results = inverse.into_iter().collect::<Option<Vec<_>>>()?;
        let num_dims = u32::try_from(self.results.len()).ok()?;
        Some(AffineMap {
            num_dims,
            num_symbols: 0,
            results,
        })
    }

    /// `self ∘ other`: feeds `other`'s results into `self`'s dims.
    ///
    /// The result has `other.num_dims` dims and `self.num_symbols + other.num_symbols`
    /// symbols: `self`'s symbols keep positions `s0..`, `other`'s come after them (MLIR's
    /// `AffineMap::compose` convention). No simplification; call
    /// [`simplify`](Self::simplify) on the result for a canonical form.
    ///
    /// # Panics
    /// If `self.num_dims != other.num_results()`; see [`Self::try_compose`].
    pub fn compose(&self, other: &AffineMap) -> AffineMap {
        self.try_compose(other)
            .expect("compose: self.num_dims must equal other.num_results()")
    }

    /// [`Self::compose`], or `None` if `self.num_dims != other.num_results()`.
    pub fn try_compose(&self, other: &AffineMap) -> Option<AffineMap> {
        if self.num_dims as usize != other.results.len() {
            return None;
        }
        let shifted: Vec<AffineExpr> = (0..other.num_symbols)
            .map(|s| AffineExpr::Symbol(self.num_symbols + s))
            .collect();
        let inner: Vec<AffineExpr> = other
            .results
            .iter()
            .map(|r| r.replace_dims_and_symbols(&[], &shifted))
            .collect();
        let results = self
            .results
            .iter()
            .map(|r| r.replace_dims_and_symbols(&inner, &[]))
            .collect();
        Some(AffineMap {
            num_dims: other.num_dims,
            num_symbols: self.num_symbols + other.num_symbols,
            results,
        })
    }

    /// Substitutes `dims[i]` for `d<i>` and `symbols[j]` for `s<j>` in every result (positions
    /// past either slice are kept) and declares `new_num_dims` dims and `new_num_symbols`
    /// symbols. `None` if a result then uses an undeclared dim or symbol.
    pub fn replace_dims_and_symbols(
        &self,
        dims: &[AffineExpr],
        symbols: &[AffineExpr],
        new_num_dims: u32,
        new_num_symbols: u32,
    ) -> Option<AffineMap> {
        let results = self
            .results
            .iter()
            .map(|r| r.replace_dims_and_symbols(dims, symbols))
            .collect();
        AffineMap::try_new(new_num_dims, new_num_symbols, results)
    }

    /// The result values; `None` if the number of dims or symbols given differs from the
    /// map's, or on division by zero or overflow.
    pub fn evaluate(&self, dims: &[i64], symbols: &[i64]) -> Option<Vec<i64>> {
        if dims.len() != self.num_dims as usize || symbols.len() != self.num_symbols as usize {
            return None;
        }
        self.results
            .iter()
            .map(|r| r.evaluate(dims, symbols))
            .collect()
    }

    /// Every result simplified (see [`AffineExpr::simplify`]).
    pub fn simplify(&self) -> AffineMap {
        AffineMap {
            num_dims: self.num_dims,
            num_symbols: self.num_symbols,
            results: self.results.iter().map(AffineExpr::simplify).collect(),
        }
    }
}

/// Writes `(d0, d1)[s0]`, leaving out `[]` when there are no symbols, as MLIR does.
pub(crate) fn write_dims_and_symbols(
    f: &mut fmt::Formatter<'_>,
    num_dims: u32,
    num_symbols: u32,
) -> fmt::Result {
    f.write_str("(")?;
    for i in 0..num_dims {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "d{i}")?;
    }
    f.write_str(")")?;
    if num_symbols > 0 {
        f.write_str("[")?;
        for i in 0..num_symbols {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "s{i}")?;
        }
        f.write_str("]")?;
    }
    Ok(())
}

/// The text inside `affine_map<...>`, e.g. `(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)`.
impl fmt::Display for AffineMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims_and_symbols(f, self.num_dims, self.num_symbols)?;
        f.write_str(" -> (")?;
        for (i, r) in self.results.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{r}")?;
        }
        f.write_str(")")
    }
}

impl FromStr for AffineMap {
    type Err = AffineParseError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_affine_map(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(i: u32) -> AffineExpr {
        AffineExpr::dim(i)
    }

    fn s(i: u32) -> AffineExpr {
        AffineExpr::symbol(i)
    }

    fn map(text: &str) -> AffineMap {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn constructors_and_display() {
        assert_eq!(AffineMap::identity(2).to_string(), "(d0, d1) -> (d0, d1)");
        assert_eq!(AffineMap::identity(0).to_string(), "() -> ()");
        assert_eq!(AffineMap::constant(-3).to_string(), "() -> (-3)");
        assert_eq!(AffineMap::constants(&[1, 2]).to_string(), "() -> (1, 2)");
        assert_eq!(AffineMap::empty(1, 2).to_string(), "(d0)[s0, s1] -> ()");
        assert_eq!(
            AffineMap::minor_identity(3, 2).unwrap().to_string(),
            "(d0, d1, d2) -> (d1, d2)"
        );
        assert_eq!(AffineMap::minor_identity(1, 2), None);
        assert_eq!(
            AffineMap::new(2, 1, vec![d(0) + s(0), d(1).floor_div(2)]).to_string(),
            "(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2)"
        );
        assert_eq!(AffineMap::try_new(1, 0, vec![d(1)]), None);
        assert_eq!(AffineMap::try_new(1, 0, vec![s(0)]), None);
    }

    #[test]
    fn permutations() {
        let p = AffineMap::permutation(&[2, 0, 1]).unwrap();
        assert_eq!(p.to_string(), "(d0, d1, d2) -> (d2, d0, d1)");
        assert!(p.is_permutation() && p.is_projected_permutation(false) && !p.is_identity());
        assert_eq!(AffineMap::permutation(&[0, 0]), None);
        assert_eq!(AffineMap::permutation(&[0, 2]), None);
        let inv = p.inverse_permutation().unwrap();
        assert_eq!(inv.to_string(), "(d0, d1, d2) -> (d1, d2, d0)");
        assert!(p.compose(&inv).is_identity());
        assert!(inv.compose(&p).is_identity());

        assert!(map("(d0, d1, d2) -> (d2, d0)").is_projected_permutation(false));
        assert!(!map("(d0, d1, d2) -> (d2, d0)").is_permutation());
        assert!(!map("(d0, d1) -> (d0, 0)").is_projected_permutation(false));
        assert!(map("(d0, d1) -> (d0, 0)").is_projected_permutation(true));
        assert!(!map("(d0, d1) -> (d0, 1)").is_projected_permutation(true));
        assert!(!map("(d0, d1) -> (d0, d0)").is_projected_permutation(false));
        assert!(!map("(d0)[s0] -> (d0)").is_projected_permutation(false));
        assert!(!map("(d0) -> (d0, d0)").is_projected_permutation(true));
        assert!(map("(d0)[s0] -> (d0)").is_identity());
        assert!(!map("(d0, d1) -> (d0)").is_identity());

        let inv = map("(d0, d1) -> (d1, d0 + d1, d0, d1)")
            .inverse_permutation()
            .unwrap();
        assert_eq!(inv.to_string(), "(d0, d1, d2, d3) -> (d2, d0)");
        assert_eq!(map("(d0, d1) -> (d0)").inverse_permutation(), None);
        assert_eq!(map("(d0)[s0] -> (d0)").inverse_permutation(), None);
        assert_eq!(map("() -> ()").inverse_permutation(), Some(map("() -> ()")));
    }

    #[test]
    fn accessors() {
        let m = map("(d0, d1)[s0] -> (d0 + s0, d1, 4)");
        assert_eq!(m.num_inputs(), 3);
        assert_eq!(m.num_results(), 3);
        assert_eq!(m.get_result(1), Some(&d(1)));
        assert_eq!(m.get_result(3), None);
        assert_eq!(
            m.sub_map(&[2, 0]).unwrap().to_string(),
            "(d0, d1)[s0] -> (4, d0 + s0)"
        );
        assert_eq!(m.sub_map(&[3]), None);
        assert!(!m.is_constant());
        assert_eq!(map("() -> (1, -2)").constant_results(), Some(vec![1, -2]));
        assert_eq!(m.evaluate(&[1, 2], &[10]), Some(vec![11, 2, 4]));
        assert_eq!(m.evaluate(&[1, 2], &[]), None);
        assert!(AffineMap::empty(0, 0).is_empty());
    }

    #[test]
    fn compose_puts_self_symbols_first() {
        // self: (d0, d1)[s0] -> (d0 + s0, d1 * 2); other: (d0)[s0] -> (d0 + s0, d0 floordiv 2)
        let f = map("(a, b)[N] -> (a + N, b * 2)");
        let g = map("(i)[M] -> (i + M, i floordiv 2)");
        let fg = f.compose(&g);
        assert_eq!(fg.num_dims, 1);
        assert_eq!(fg.num_symbols, 2);
        assert_eq!(
            fg.to_string(),
            "(d0)[s0, s1] -> (d0 + s1 + s0, d0 floordiv 2 * 2)"
        );
        // Semantics: fg(x)[n, m] == f(g(x)[m])[n].
        for x in -5..5 {
            let (n, m) = (3, -7);
            let inner = g.evaluate(&[x], &[m]).unwrap();
            assert_eq!(fg.evaluate(&[x], &[n, m]), f.evaluate(&inner, &[n]));
        }
        assert_eq!(f.try_compose(&map("(d0) -> (d0)")), None);
        assert_eq!(
            fg.simplify().to_string(),
            "(d0)[s0, s1] -> (d0 + s0 + s1, d0 floordiv 2 * 2)"
        );
    }

    #[test]
    #[should_panic(expected = "compose")]
    fn compose_panics_on_arity_mismatch() {
        let _ = map("(d0, d1) -> (d0)").compose(&map("(d0) -> (d0)"));
    }

    #[test]
    fn replace_dims_and_symbols_redeclares() {
        let m = map("(d0, d1)[s0] -> (d0 + s0, d1)");
        let r = m.replace_dims_and_symbols(&[d(1), d(0)], &[AffineExpr::constant(5)], 2, 0);
        assert_eq!(r.unwrap().to_string(), "(d0, d1) -> (d1 + 5, d0)");
        assert_eq!(m.replace_dims_and_symbols(&[d(2)], &[], 2, 1), None);
    }
}
