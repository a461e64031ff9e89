//! Affine expressions, affine maps and integer sets, as in MLIR 22's builtin
//! `affine_map<...>` and `affine_set<...>` attributes.
//!
//! - [`AffineExpr`] is a plain expression tree over dimensions `d<i>`, symbols `s<i>` and
//!   64-bit constants. Trees are kept exactly as built or parsed; [`AffineExpr::simplify`]
//!   is the only place that rewrites them.
//! - [`AffineMap`] is `(dims)[symbols] -> (results)`, [`IntegerSet`] is
//!   `(dims)[symbols] : (constraints)` with each constraint `e >= 0` or `e == 0`.
//! - [`parse_affine_map`], [`parse_integer_set`] and [`parse_affine_map_or_set`] read the
//!   text between the angle brackets of the attributes; `Display` writes it back so that
//!   parsing the printed text gives the identical tree.
//!
//! Arithmetic follows MLIR: `floordiv` rounds toward negative infinity, `ceildiv` toward
//! positive infinity, and `a mod b` is `a - b * (a floordiv b)`, so it is non-negative for a
//! positive divisor. [`AffineExpr::evaluate`] gives `None` on division by zero or overflow.
//!
//! Conventions worth knowing:
//! - [`AffineMap::compose`]`(f, g)` is `f ∘ g`; its symbols are `f`'s, then `g`'s (MLIR's order).
//! - Printing needs no parentheses beyond MLIR's precedence, so `Add(x, Constant(-1))` prints
//!   as `x + -1` while `x - 1` is the tree `Add(x, Mul(1, -1))`.
//! - `i64::MIN` prints as `-9223372036854775808`, like MLIR; this parser reads it back, MLIR's
//!   does not.
//! - Expression trees deeper than [`MAX_EXPR_DEPTH`] are refused by the parser; everything
//!   here recurses over trees, and that bound keeps it within a small thread stack.

mod expr;
mod interval;
mod map;
mod parse;
mod set;
mod simplify;

pub use expr::{AffineBinaryKind, AffineExpr, checked_ceil_div, checked_floor_div, checked_mod};
pub use interval::{Interval, expr_interval};
pub use map::AffineMap;
pub use parse::{
    AffineMapOrSet, AffineParseError, MAX_EXPR_DEPTH, parse_affine_expr, parse_affine_map,
    parse_affine_map_or_set, parse_integer_set,
};
pub use set::IntegerSet;
pub use simplify::Linear;

/// Property tests across the module: printing round-trips, simplification keeps values.
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DIM_NAMES: [&str; 3] = ["d0", "d1", "d2"];
    const SYMBOL_NAMES: [&str; 2] = ["s0", "s1"];

    fn small_constant() -> BoxedStrategy<i64> {
        prop_oneof![-4i64..=4, -40i64..=40].boxed()
    }

    /// Includes the values that stress printing: -1 (negation forms), 0, extremes.
    fn any_constant() -> BoxedStrategy<i64> {
        prop_oneof![
            -4i64..=4,
            Just(-1i64),
            Just(i64::MIN),
            Just(i64::MAX),
            Just(i64::MIN + 1),
            any::<i64>()
        ]
        .boxed()
    }

    fn leaf(constants: BoxedStrategy<i64>, with_dims: bool) -> BoxedStrategy<AffineExpr> {
        let symbols = (0u32..2).prop_map(AffineExpr::Symbol);
        let constants = constants.prop_map(AffineExpr::Constant);
        if with_dims {
            prop_oneof![(0u32..3).prop_map(AffineExpr::Dim), symbols, constants].boxed()
        } else {
            prop_oneof![symbols, constants].boxed()
        }
    }

    fn binary(kind: AffineBinaryKind) -> impl Fn((AffineExpr, AffineExpr)) -> AffineExpr + Clone {
        move |(l, r)| AffineExpr::binary(kind, l, r)
    }

    /// Any tree, affine or not.
    fn any_tree(constants: BoxedStrategy<i64>) -> BoxedStrategy<AffineExpr> {
        leaf(constants, true)
            .prop_recursive(6, 48, 2, |inner| {
                let pair = (inner.clone(), inner.clone());
                prop_oneof![
                    pair.clone().prop_map(binary(AffineBinaryKind::Add)),
                    pair.clone().prop_map(binary(AffineBinaryKind::Mul)),
                    pair.clone().prop_map(binary(AffineBinaryKind::FloorDiv)),
                    pair.clone().prop_map(binary(AffineBinaryKind::CeilDiv)),
                    pair.clone().prop_map(binary(AffineBinaryKind::Mod)),
                    pair.prop_map(|(l, r)| l - r),
                    inner.prop_map(|e| -e),
                ]
            })
            .boxed()
    }

    /// Trees MLIR's parser accepts: products have a dim-free factor, divisors are dim-free.
    fn semi_affine_tree(constants: BoxedStrategy<i64>) -> BoxedStrategy<AffineExpr> {
        let symbolic = leaf(constants.clone(), false)
            .prop_recursive(3, 12, 2, |inner| {
                let pair = (inner.clone(), inner.clone());
                prop_oneof![
                    pair.clone().prop_map(binary(AffineBinaryKind::Add)),
                    pair.clone().prop_map(binary(AffineBinaryKind::Mul)),
                    pair.clone().prop_map(binary(AffineBinaryKind::FloorDiv)),
                    pair.prop_map(binary(AffineBinaryKind::Mod)),
                    inner.prop_map(|e| -e),
                ]
            })
            .boxed();
        leaf(constants, true)
            .prop_recursive(6, 48, 2, move |inner| {
                let with_symbolic = (inner.clone(), symbolic.clone());
                prop_oneof![
                    (inner.clone(), inner.clone()).prop_map(binary(AffineBinaryKind::Add)),
                    (inner.clone(), inner.clone()).prop_map(|(l, r)| l - r),
                    with_symbolic
                        .clone()
                        .prop_map(binary(AffineBinaryKind::Mul)),
                    (symbolic.clone(), inner.clone()).prop_map(binary(AffineBinaryKind::Mul)),
                    with_symbolic
                        .clone()
                        .prop_map(binary(AffineBinaryKind::FloorDiv)),
                    with_symbolic
                        .clone()
                        .prop_map(binary(AffineBinaryKind::CeilDiv)),
                    with_symbolic.prop_map(binary(AffineBinaryKind::Mod)),
                    inner.prop_map(|e| -e),
                ]
            })
            .boxed()
    }

    fn reparse(e: &AffineExpr) -> Result<AffineExpr, AffineParseError> {
        parse_affine_expr(&e.to_string(), &DIM_NAMES, &SYMBOL_NAMES)
    }

    fn point() -> impl Strategy<Value = (Vec<i64>, Vec<i64>)> {
        (
            prop::collection::vec(-30i64..=30, 3),
            prop::collection::vec(-30i64..=30, 2),
        )
    }

    proptest! {
        // Kept small for CI; these ran with 30 000 cases each during development.
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn printing_round_trips(e in semi_affine_tree(any_constant())) {
            prop_assert_eq!(reparse(&e), Ok(e.clone()), "printed as {}", e);
        }

        #[test]
        fn printing_round_trips_for_every_tree_mlir_accepts(e in any_tree(any_constant())) {
            // Not every tree is semi-affine; those that are must read back identically.
            if e.is_semi_affine() {
                prop_assert_eq!(reparse(&e), Ok(e.clone()), "printed as {}", e);
            }
        }

        #[test]
        fn maps_and_sets_round_trip(
            results in prop::collection::vec(semi_affine_tree(any_constant()), 0..4),
            eq_flags in prop::collection::vec(any::<bool>(), 1..4),
        ) {
            let map = AffineMap::new(3, 2, results.clone());
            prop_assert_eq!(parse_affine_map(&map.to_string()), Ok(map.clone()));
            let mut constraints = results;
            constraints.resize(eq_flags.len(), AffineExpr::Dim(0));
            let set = IntegerSet::new(3, 2, constraints, eq_flags);
            prop_assert_eq!(parse_integer_set(&set.to_string()), Ok(set.clone()));
        }

        #[test]
        fn simplify_keeps_values(e in any_tree(small_constant()), (dims, syms) in point()) {
            let simplified = e.simplify();
            if let Some(value) = e.evaluate(&dims, &syms) {
                prop_assert_eq!(simplified.evaluate(&dims, &syms), Some(value),
                    "{} simplified to {}", e, simplified);
            }
        }

        #[test]
        fn simplify_keeps_values_with_large_numbers(
            e in any_tree(any_constant()),
            dims in prop::collection::vec(any::<i64>(), 3),
            syms in prop::collection::vec(any::<i64>(), 2),
        ) {
            // With overflow possible, only points where both forms are defined are compared.
            let simplified = e.simplify();
            if let (Some(a), Some(b)) = (e.evaluate(&dims, &syms), simplified.evaluate(&dims, &syms)) {
                prop_assert_eq!(a, b, "{} simplified to {}", e, simplified);
            }
        }

        #[test]
        fn simplify_is_idempotent(e in any_tree(any_constant())) {
            let once = e.simplify();
            prop_assert_eq!(once.simplify(), once.clone(), "{} simplified to {}", e, once);
        }

        #[test]
        fn simplified_semi_affine_stays_parseable(e in semi_affine_tree(small_constant())) {
            let simplified = e.simplify();
            prop_assert!(simplified.is_semi_affine(), "{} simplified to {}", e, simplified);
            prop_assert_eq!(reparse(&simplified), Ok(simplified.clone()));
        }

        #[test]
        fn largest_known_divisor_divides(e in any_tree(small_constant()), (dims, syms) in point()) {
            if let Some(value) = e.evaluate(&dims, &syms) {
                let divisor = e.largest_known_divisor();
                if divisor == 0 {
                    prop_assert_eq!(value, 0, "{}", e);
                } else {
                    prop_assert_eq!(value.unsigned_abs() % divisor, 0, "{} with divisor {}", e, divisor);
                }
            }
        }

        #[test]
        fn compose_evaluates_as_function_composition(
            outer in prop::collection::vec(semi_affine_tree(small_constant()), 1..3),
            inner in prop::collection::vec(semi_affine_tree(small_constant()), 3),
            (dims, syms) in point(),
            outer_syms in prop::collection::vec(-30i64..=30, 2),
        ) {
            let f = AffineMap::new(3, 2, outer);
            let g = AffineMap::new(3, 2, inner);
            let fg = f.compose(&g);
            prop_assert_eq!((fg.num_dims, fg.num_symbols), (3, 4));
            // fg's symbols are f's followed by g's.
            let all_syms: Vec<i64> = outer_syms.iter().chain(&syms).copied().collect();
            if let Some(mid) = g.evaluate(&dims, &syms)
                && let Some(expected) = f.evaluate(&mid, &outer_syms)
            {
                prop_assert_eq!(fg.evaluate(&dims, &all_syms), Some(expected.clone()));
                prop_assert_eq!(fg.simplify().evaluate(&dims, &all_syms), Some(expected));
            }
        }

        #[test]
        fn set_simplify_keeps_membership(
            constraints in prop::collection::vec(any_tree(small_constant()), 1..4),
            eq_flags in prop::collection::vec(any::<bool>(), 4),
            (dims, syms) in point(),
        ) {
            let n = constraints.len();
            let set = IntegerSet::new(3, 2, constraints, eq_flags[..n].to_vec());
            let simplified = set.simplify();
            if let Some(inside) = set.contains(&dims, &syms) {
                prop_assert_eq!(simplified.contains(&dims, &syms), Some(inside),
                    "{} simplified to {}", set, simplified);
            }
            prop_assert_eq!(simplified.simplify(), simplified.clone());
            if simplified.is_empty_trivially() {
                prop_assert_ne!(set.contains(&dims, &syms), Some(true));
            }
        }

        #[test]
        fn parser_never_panics_on_arbitrary_text(text in "\\PC{0,40}") {
            let _ = parse_affine_map_or_set(&text);
            let _ = parse_affine_expr(&text, &DIM_NAMES, &SYMBOL_NAMES);
        }

        #[test]
        fn parser_never_panics_on_near_miss_text(
            e in semi_affine_tree(any_constant()),
            edits in prop::collection::vec((any::<prop::sample::Index>(), "[-+*()\\[\\],:<>=0-9a-z ]{0,2}"), 1..4),
        ) {
            let mut text = format!("(d0, d1, d2)[s0, s1] -> ({e}, {e})").into_bytes();
            for (at, insert) in edits {
                let at = at.index(text.len() + 1);
                let cut = (at + 1).min(text.len());
                text.splice(at..cut, insert.bytes());
            }
            let text = String::from_utf8(text).expect("ASCII edits");
            if let Err(err) = parse_affine_map_or_set(&text) {
                prop_assert!(err.offset <= text.len());
            }
        }
    }
}
