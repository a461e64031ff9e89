//! The affine expression tree, its queries, evaluation and MLIR-syntax printing.

use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};
use std::sync::Arc;

/// An affine (or semi-affine) expression over dimensions `d<i>`, symbols `s<i>` and constants.
///
/// The tree is kept exactly as built: `a - b` is `Add(a, Mul(b, -1))`, `-a` is `Mul(a, -1)`,
/// and nothing is folded until [`AffineExpr::simplify`] is called. Children are shared
/// (`Arc`), so cloning is cheap. The derived `Ord` (dims, then symbols, then constants, then
/// compound nodes) is what [`AffineExpr::simplify`] uses to order the terms of a sum.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum AffineExpr {
    Dim(u32),
    Symbol(u32),
    Constant(i64),
    Add(Arc<AffineExpr>, Arc<AffineExpr>),
    Mul(Arc<AffineExpr>, Arc<AffineExpr>),
    FloorDiv(Arc<AffineExpr>, Arc<AffineExpr>),
    CeilDiv(Arc<AffineExpr>, Arc<AffineExpr>),
    Mod(Arc<AffineExpr>, Arc<AffineExpr>),
}

/// The operator of a binary [`AffineExpr`] node.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum AffineBinaryKind {
    Add,
    Mul,
    FloorDiv,
    CeilDiv,
    Mod,
}

impl AffineBinaryKind {
    /// The operator as written in MLIR text (`+`, `*`, `floordiv`, `ceildiv`, `mod`).
    pub fn spelling(self) -> &'static str {
        match self {
            AffineBinaryKind::Add => "+",
            AffineBinaryKind::Mul => "*",
            AffineBinaryKind::FloorDiv => "floordiv",
            AffineBinaryKind::CeilDiv => "ceildiv",
            AffineBinaryKind::Mod => "mod",
        }
    }

    /// Applies the operator to two constants; `None` on division by zero or overflow.
    pub fn apply(self, lhs: i64, rhs: i64) -> Option<i64> {
        match self {
            AffineBinaryKind::Add => lhs.checked_add(rhs),
            AffineBinaryKind::Mul => lhs.checked_mul(rhs),
            AffineBinaryKind::FloorDiv => checked_floor_div(lhs, rhs),
            AffineBinaryKind::CeilDiv => checked_ceil_div(lhs, rhs),
            AffineBinaryKind::Mod => checked_mod(lhs, rhs),
        }
    }
}

/// `floor(a / b)`; `None` if `b == 0` or the result overflows (`i64::MIN / -1`).
pub fn checked_floor_div(a: i64, b: i64) -> Option<i64> {
    // checked_div rejects b == 0 and i64::MIN / -1; it truncates toward zero.
    let q = a.checked_div(b)?;
    let inexact = a % b != 0;
    Some(if inexact && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// `ceil(a / b)`; `None` if `b == 0` or the result overflows (`i64::MIN / -1`).
pub fn checked_ceil_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let inexact = a % b != 0;
    Some(if inexact && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    })
}

/// `a - b * floor(a / b)`: takes the sign of `b`, so it lies in `[0, b)` for `b > 0`.
/// `None` only if `b == 0`.
pub fn checked_mod(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    // Only i64::MIN % -1 overflows in Rust, and its remainder is 0.
    let r = a.checked_rem(b).unwrap_or(0);
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

impl AffineExpr {
    pub fn dim(position: u32) -> Self {
        AffineExpr::Dim(position)
    }

    pub fn symbol(position: u32) -> Self {
        AffineExpr::Symbol(position)
    }

    pub fn constant(value: i64) -> Self {
        AffineExpr::Constant(value)
    }

    /// Builds `lhs <kind> rhs` without any simplification.
    pub fn binary(kind: AffineBinaryKind, lhs: AffineExpr, rhs: AffineExpr) -> Self {
        let (l, r) = (Arc::new(lhs), Arc::new(rhs));
        match kind {
            AffineBinaryKind::Add => AffineExpr::Add(l, r),
            AffineBinaryKind::Mul => AffineExpr::Mul(l, r),
            AffineBinaryKind::FloorDiv => AffineExpr::FloorDiv(l, r),
            AffineBinaryKind::CeilDiv => AffineExpr::CeilDiv(l, r),
            AffineBinaryKind::Mod => AffineExpr::Mod(l, r),
        }
    }

    /// `self floordiv rhs`, unsimplified.
    pub fn floor_div(self, rhs: impl Into<AffineExpr>) -> Self {
        Self::binary(AffineBinaryKind::FloorDiv, self, rhs.into())
    }

    /// `self ceildiv rhs`, unsimplified.
    pub fn ceil_div(self, rhs: impl Into<AffineExpr>) -> Self {
        Self::binary(AffineBinaryKind::CeilDiv, self, rhs.into())
    }

    /// `self mod rhs`, unsimplified.
    pub fn modulo(self, rhs: impl Into<AffineExpr>) -> Self {
        Self::binary(AffineBinaryKind::Mod, self, rhs.into())
    }

    /// The operator and operands of a binary node.
    pub fn as_binary(&self) -> Option<(AffineBinaryKind, &AffineExpr, &AffineExpr)> {
        match self {
            AffineExpr::Add(l, r) => Some((AffineBinaryKind::Add, l, r)),
            AffineExpr::Mul(l, r) => Some((AffineBinaryKind::Mul, l, r)),
            AffineExpr::FloorDiv(l, r) => Some((AffineBinaryKind::FloorDiv, l, r)),
            AffineExpr::CeilDiv(l, r) => Some((AffineBinaryKind::CeilDiv, l, r)),
            AffineExpr::Mod(l, r) => Some((AffineBinaryKind::Mod, l, r)),
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => None,
        }
    }

    /// The value of a `Constant` node (not of a constant subtree; see [`Self::constant_value`]).
    pub fn as_constant(&self) -> Option<i64> {
        match self {
            AffineExpr::Constant(c) => Some(*c),
            _ => None,
        }
    }

    pub fn as_dim(&self) -> Option<u32> {
        match self {
            AffineExpr::Dim(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_symbol(&self) -> Option<u32> {
        match self {
            AffineExpr::Symbol(i) => Some(*i),
            _ => None,
        }
    }

    /// The value of an expression without dims or symbols, e.g. `2 * 3 - 1`;
    /// `None` if it has any, or divides by zero or overflows.
    pub fn constant_value(&self) -> Option<i64> {
        self.evaluate(&[], &[])
    }

    /// Nodes on the longest path from the root to a leaf (a leaf alone is 1).
    pub fn depth(&self) -> u32 {
        match self.as_binary() {
            Some((_, l, r)) => 1 + l.depth().max(r.depth()),
            None => 1,
        }
    }

    /// Visits every node, parent before children, left before right.
    pub fn walk(&self, visit: &mut impl FnMut(&AffineExpr)) {
        visit(self);
        if let Some((_, l, r)) = self.as_binary() {
            l.walk(visit);
            r.walk(visit);
        }
    }

    /// Whether any node satisfies `pred` (stops at the first).
    fn any_node(&self, pred: &impl Fn(&AffineExpr) -> bool) -> bool {
        pred(self)
            || self
                .as_binary()
                .is_some_and(|(_, l, r)| l.any_node(pred) || r.any_node(pred))
    }

    /// No dims and no symbols anywhere in the tree.
    pub fn is_constant_expr(&self) -> bool {
        !self.any_node(&|e| matches!(e, AffineExpr::Dim(_) | AffineExpr::Symbol(_)))
    }

    /// No dims anywhere in the tree (MLIR's `isSymbolicOrConstant`).
    pub fn is_symbolic_or_constant(&self) -> bool {
        !self.any_node(&|e| matches!(e, AffineExpr::Dim(_)))
    }

    /// Whether `d<position>` occurs in the tree.
    pub fn is_function_of_dim(&self, position: u32) -> bool {
        self.any_node(&|e| *e == AffineExpr::Dim(position))
    }

    /// Whether `s<position>` occurs in the tree.
    pub fn is_function_of_symbol(&self, position: u32) -> bool {
        self.any_node(&|e| *e == AffineExpr::Symbol(position))
    }

    /// Whether every dim index is `< num_dims` and every symbol index `< num_symbols`.
    pub fn is_valid_for(&self, num_dims: u32, num_symbols: u32) -> bool {
        !self.any_node(&|e| match e {
            AffineExpr::Dim(i) => *i >= num_dims,
            AffineExpr::Symbol(i) => *i >= num_symbols,
            _ => false,
        })
    }

    /// Pure affine as MLIR defines it: every product has a constant factor and every
    /// `floordiv`/`ceildiv`/`mod` has a constant right operand. "Constant" here means a subtree
    /// without dims or symbols, since trees are not folded until simplified.
    pub fn is_pure_affine(&self) -> bool {
        match self {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => true,
            AffineExpr::Add(l, r) => l.is_pure_affine() && r.is_pure_affine(),
            AffineExpr::Mul(l, r) => {
                l.is_pure_affine()
                    && r.is_pure_affine()
                    && (l.is_constant_expr() || r.is_constant_expr())
            }
            AffineExpr::FloorDiv(l, r) | AffineExpr::CeilDiv(l, r) | AffineExpr::Mod(l, r) => {
                l.is_pure_affine() && r.is_constant_expr()
            }
        }
    }

    /// Semi-affine as MLIR's parser accepts it: every product has a symbolic-or-constant factor
    /// and every `floordiv`/`ceildiv`/`mod` a symbolic-or-constant right operand.
    pub fn is_semi_affine(&self) -> bool {
        match self {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => true,
            AffineExpr::Add(l, r) => l.is_semi_affine() && r.is_semi_affine(),
            AffineExpr::Mul(l, r) => {
                l.is_semi_affine()
                    && r.is_semi_affine()
                    && (l.is_symbolic_or_constant() || r.is_symbolic_or_constant())
            }
            AffineExpr::FloorDiv(l, r) | AffineExpr::CeilDiv(l, r) | AffineExpr::Mod(l, r) => {
                l.is_semi_affine() && r.is_semi_affine() && r.is_symbolic_or_constant()
            }
        }
    }

    /// A number the value is always a multiple of, for any dims and symbols (MLIR's
    /// `getLargestKnownDivisor`, conservative: 1 when nothing is known). 0 means the value
    /// is always 0.
    pub fn largest_known_divisor(&self) -> u64 {
        match self {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) => 1,
            AffineExpr::Constant(c) => c.unsigned_abs(),
            AffineExpr::Mul(l, r) => {
                let (a, b) = (l.largest_known_divisor(), r.largest_known_divisor());
                // A multiple of both a and b is in particular a multiple of the larger one.
                a.checked_mul(b).unwrap_or(a.max(b))
            }
            AffineExpr::Add(l, r) | AffineExpr::Mod(l, r) => {
                gcd(l.largest_known_divisor(), r.largest_known_divisor())
            }
            AffineExpr::FloorDiv(l, r) | AffineExpr::CeilDiv(l, r) => match **r {
                // An exact division keeps the quotient of the divisors.
                AffineExpr::Constant(c) if c != 0 => {
                    let lhs = l.largest_known_divisor();
                    let c = c.unsigned_abs();
                    if lhs % c == 0 { lhs / c } else { 1 }
                }
                _ => 1,
            },
        }
    }

    /// The value for the given dim and symbol values; `None` on division by zero, overflow,
    /// or a dim/symbol index without a value.
    pub fn evaluate(&self, dims: &[i64], symbols: &[i64]) -> Option<i64> {
        match self {
            AffineExpr::Dim(i) => dims.get(*i as usize).copied(),
            AffineExpr::Symbol(i) => symbols.get(*i as usize).copied(),
            AffineExpr::Constant(c) => Some(*c),
            _ => {
                let (kind, l, r) = self.as_binary()?;
                let l = l.evaluate(dims, symbols)?;
                let r = r.evaluate(dims, symbols)?;
                kind.apply(l, r)
            }
        }
    }

    /// Substitutes `dims[i]` for `d<i>` and `symbols[j]` for `s<j>`; positions past the end of
    /// either slice are left as they are. No simplification.
    pub fn replace_dims_and_symbols(&self, dims: &[AffineExpr], symbols: &[AffineExpr]) -> Self {
        match self {
            AffineExpr::Dim(i) => dims.get(*i as usize).unwrap_or(self).clone(),
            AffineExpr::Symbol(i) => symbols.get(*i as usize).unwrap_or(self).clone(),
            AffineExpr::Constant(_) => self.clone(),
            _ => {
                let (kind, l, r) = self.as_binary().expect("compound node");
                Self::binary(
                    kind,
                    l.replace_dims_and_symbols(dims, symbols),
                    r.replace_dims_and_symbols(dims, symbols),
                )
            }
        }
    }
}

pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

// ----- Operators: they build nodes exactly as MLIR's grammar does, without folding. -----

impl From<i64> for AffineExpr {
    fn from(value: i64) -> Self {
        AffineExpr::Constant(value)
    }
}

impl From<&AffineExpr> for AffineExpr {
    fn from(value: &AffineExpr) -> Self {
        value.clone()
    }
}

impl<T: Into<AffineExpr>> Add<T> for AffineExpr {
    type Output = AffineExpr;
    fn add(self, rhs: T) -> AffineExpr {
        AffineExpr::binary(AffineBinaryKind::Add, self, rhs.into())
    }
}

impl<T: Into<AffineExpr>> Mul<T> for AffineExpr {
    type Output = AffineExpr;
    fn mul(self, rhs: T) -> AffineExpr {
        AffineExpr::binary(AffineBinaryKind::Mul, self, rhs.into())
    }
}

/// `a - b` is `a + b * -1`, as MLIR's parser builds it.
impl<T: Into<AffineExpr>> Sub<T> for AffineExpr {
    type Output = AffineExpr;
    fn sub(self, rhs: T) -> AffineExpr {
        self + -rhs.into()
    }
}

/// `-a` is `a * -1`, as MLIR's parser builds it.
impl Neg for AffineExpr {
    type Output = AffineExpr;
    fn neg(self) -> AffineExpr {
        self * -1
    }
}

impl<T: Into<AffineExpr>> Add<T> for &AffineExpr {
    type Output = AffineExpr;
    fn add(self, rhs: T) -> AffineExpr {
        self.clone() + rhs
    }
}

impl<T: Into<AffineExpr>> Mul<T> for &AffineExpr {
    type Output = AffineExpr;
    fn mul(self, rhs: T) -> AffineExpr {
        self.clone() * rhs
    }
}

impl<T: Into<AffineExpr>> Sub<T> for &AffineExpr {
    type Output = AffineExpr;
    fn sub(self, rhs: T) -> AffineExpr {
        self.clone() - rhs
    }
}

impl Neg for &AffineExpr {
    type Output = AffineExpr;
    fn neg(self) -> AffineExpr {
        -self.clone()
    }
}

impl Add<AffineExpr> for i64 {
    type Output = AffineExpr;
    fn add(self, rhs: AffineExpr) -> AffineExpr {
        AffineExpr::Constant(self) + rhs
    }
}

impl Mul<AffineExpr> for i64 {
    type Output = AffineExpr;
    fn mul(self, rhs: AffineExpr) -> AffineExpr {
        AffineExpr::Constant(self) * rhs
    }
}

impl Sub<AffineExpr> for i64 {
    type Output = AffineExpr;
    fn sub(self, rhs: AffineExpr) -> AffineExpr {
        AffineExpr::Constant(self) - rhs
    }
}

// ----- Printing -----
//
// The grammar (MLIR's): expr := term (('+' | '-') term)*, term := atom (op atom)* with op one of
// `*`, `floordiv`, `ceildiv`, `mod`, atom := id | int | '(' expr ')' | '-' atom. Both levels are
// left-associative. `-` followed directly by an integer literal is a negative constant; before
// anything else it is `atom * -1`; binary `x - y` is `x + y * -1`. The printer picks the form
// whose re-parse is the identical tree, with as few parentheses as that allows.

/// What the surrounding syntax accepts at a position, loosest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    /// Anything: a whole expression, or the left operand of `+`/`-`.
    Sum,
    /// No top-level `+`/`-`: the right operand of `+`/`-`, the left operand of `*` etc.
    Term,
    /// A single operand: the right operand of `*` etc., or what follows unary `-`.
    Atom,
}

/// `y` if `e` is `y * -1`.
fn negated_operand(e: &AffineExpr) -> Option<&AffineExpr> {
    match e {
        AffineExpr::Mul(y, m) if **m == AffineExpr::Constant(-1) => Some(y),
        _ => None,
    }
}

fn write_expr(e: &AffineExpr, slot: Slot, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match e {
        AffineExpr::Dim(i) => write!(f, "d{i}"),
        AffineExpr::Symbol(i) => write!(f, "s{i}"),
        // A negative value prints as `-5`, which reads back as the constant -5.
        AffineExpr::Constant(c) => write!(f, "{c}"),
        AffineExpr::Add(l, r) => {
            if slot > Slot::Sum {
                f.write_str("(")?;
            }
            write_expr(l, Slot::Sum, f)?;
            // `x - y` reads back as `x + y * -1` for any y, literal or not.
            if let Some(y) = negated_operand(r) {
                f.write_str(" - ")?;
                write_expr(y, Slot::Term, f)?;
            } else {
                f.write_str(" + ")?;
                write_expr(r, Slot::Term, f)?;
            }
            if slot > Slot::Sum {
                f.write_str(")")?;
            }
            Ok(())
        }
        _ => {
            let (kind, l, r) = e.as_binary().expect("compound node");
            // Unary minus: `-y` is itself an atom. Not for a literal y, since `-5` is the
            // constant -5 rather than `5 * -1`.
            if let Some(y) = negated_operand(e)
                && !matches!(y, AffineExpr::Constant(_))
            {
                f.write_str("-")?;
                return write_expr(y, Slot::Atom, f);
            }
            if slot == Slot::Atom {
                f.write_str("(")?;
            }
            write_expr(l, Slot::Term, f)?;
            write!(f, " {} ", kind.spelling())?;
            write_expr(r, Slot::Atom, f)?;
            if slot == Slot::Atom {
                f.write_str(")")?;
            }
            Ok(())
        }
    }
}

/// MLIR syntax with dims named `d0, d1, ...` and symbols `s0, s1, ...`.
impl fmt::Display for AffineExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(self, Slot::Sum, f)
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

    fn c(v: i64) -> AffineExpr {
        AffineExpr::constant(v)
    }

    #[test]
    fn integer_division_semantics() {
        assert_eq!(checked_floor_div(7, 2), Some(3));
        assert_eq!(checked_floor_div(-7, 2), Some(-4));
        assert_eq!(checked_floor_div(7, -2), Some(-4));
        assert_eq!(checked_floor_div(-7, -2), Some(3));
        assert_eq!(checked_floor_div(-8, 2), Some(-4));
        assert_eq!(checked_ceil_div(7, 2), Some(4));
        assert_eq!(checked_ceil_div(-7, 2), Some(-3));
        assert_eq!(checked_ceil_div(7, -2), Some(-3));
        assert_eq!(checked_ceil_div(-7, -2), Some(4));
        assert_eq!(checked_mod(7, 3), Some(1));
        assert_eq!(checked_mod(-7, 3), Some(2));
        assert_eq!(checked_mod(7, -3), Some(-2));
        assert_eq!(checked_mod(-7, -3), Some(-1));
        assert_eq!(checked_mod(-6, 3), Some(0));
        assert_eq!(checked_floor_div(1, 0), None);
        assert_eq!(checked_ceil_div(1, 0), None);
        assert_eq!(checked_mod(1, 0), None);
        assert_eq!(checked_floor_div(i64::MIN, -1), None);
        assert_eq!(checked_ceil_div(i64::MIN, -1), None);
        assert_eq!(checked_mod(i64::MIN, -1), Some(0));
        assert_eq!(checked_floor_div(i64::MIN, 1), Some(i64::MIN));
        assert_eq!(checked_ceil_div(i64::MAX, 2), Some(i64::MAX / 2 + 1));
        assert_eq!(checked_mod(i64::MIN, i64::MAX), Some(i64::MAX - 1));
    }

    #[test]
    fn operators_build_mlir_trees() {
        assert_eq!(d(0) - d(1), d(0) + d(1) * -1);
        assert_eq!(-d(0), d(0) * c(-1));
        assert_eq!(
            d(0) - 1,
            AffineExpr::Add(Arc::new(d(0)), Arc::new(c(1) * -1))
        );
        assert_eq!(&d(0) + &s(0), d(0) + s(0));
        assert_eq!(2 * d(0), c(2) * d(0));
        assert_eq!(3 - d(0), c(3) + d(0) * -1);
        assert_eq!(
            d(0).floor_div(2).as_binary(),
            Some((AffineBinaryKind::FloorDiv, &d(0), &c(2)))
        );
    }

    #[test]
    fn display_uses_minimal_parentheses() {
        let cases: Vec<(AffineExpr, &str)> = vec![
            (d(0) + s(0), "d0 + s0"),
            (d(1).floor_div(2), "d1 floordiv 2"),
            (d(0) - d(1), "d0 - d1"),
            (d(0) - 1, "d0 - 1"),
            (d(0) + -1, "d0 + -1"),
            (d(0) + d(1) * -3, "d0 + d1 * -3"),
            (d(0) - d(1) * 3, "d0 - d1 * 3"),
            (d(0) - (d(1) + 2), "d0 - (d1 + 2)"),
            ((d(0) + 1) * 2, "(d0 + 1) * 2"),
            (d(0) * (s(0) * 2), "d0 * (s0 * 2)"),
            (d(0) * 2 * 3, "d0 * 2 * 3"),
            (d(0) + (d(1) + d(2)), "d0 + (d1 + d2)"),
            ((d(0) + d(1)) + d(2), "d0 + d1 + d2"),
            (-d(0), "-d0"),
            (-(d(0) + 1), "-(d0 + 1)"),
            (-(d(0) * 2), "-(d0 * 2)"),
            (-d(0) * 2, "-d0 * 2"),
            (-(-d(0)), "--d0"),
            (c(5) * -1, "5 * -1"),
            (c(-5), "-5"),
            (c(-5) * d(0), "-5 * d0"),
            (d(0) - -5, "d0 - -5"),
            (d(0) - c(-1), "d0 - -1"),
            (d(0) - -d(1), "d0 - -d1"),
            (d(0).modulo(s(0) + 2), "d0 mod (s0 + 2)"),
            (
                d(0).floor_div(2).ceil_div(3) * 4,
                "d0 floordiv 2 ceildiv 3 * 4",
            ),
            (d(0) * (c(5) * -1), "d0 * (5 * -1)"),
            (d(0) * -d(1), "d0 * -d1"),
            (c(i64::MIN), "-9223372036854775808"),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text, "{e:?}");
        }
    }

    #[test]
    fn evaluate_follows_mlir_semantics() {
        let e = (d(0) - s(0)).floor_div(2) + d(1).modulo(3) + d(1).ceil_div(4);
        // -3 floordiv 2 = -2, -7 mod 3 = 2, -7 ceildiv 4 = -1.
        assert_eq!(e.evaluate(&[1, -7], &[4]), Some(-1));
        assert_eq!(d(0).floor_div(s(0)).evaluate(&[3], &[0]), None);
        assert_eq!((d(0) * 2).evaluate(&[i64::MAX], &[]), None);
        assert_eq!(d(2).evaluate(&[1, 2], &[]), None);
        assert_eq!((c(2) * 3 - 1).constant_value(), Some(5));
        assert_eq!(d(0).constant_value(), None);
    }

    #[test]
    fn classification_queries() {
        assert!((d(0) * 2 + s(0).floor_div(3)).is_pure_affine());
        assert!((d(0) * (c(2) - 1)).is_pure_affine());
        assert!(!(d(0) * s(0)).is_pure_affine());
        assert!((d(0) * s(0)).is_semi_affine());
        assert!(!(d(0) * d(1)).is_semi_affine());
        assert!(!d(0).modulo(d(1)).is_semi_affine());
        assert!(d(0).modulo(s(1)).is_semi_affine());
        assert!(!d(0).floor_div(s(0)).is_pure_affine());
        assert!((s(0) * 3 + 1).is_symbolic_or_constant());
        assert!(!(s(0) + d(0)).is_symbolic_or_constant());
        assert!((s(0) + d(2)).is_function_of_dim(2));
        assert!(!(s(0) + d(2)).is_function_of_dim(0));
        assert!((s(0) + d(2)).is_function_of_symbol(0));
        assert!((d(1) + s(0)).is_valid_for(2, 1));
        assert!(!(d(1) + s(0)).is_valid_for(1, 1));
        assert!(!(d(1) + s(0)).is_valid_for(2, 0));
    }

    #[test]
    fn largest_known_divisor_cases() {
        assert_eq!(d(0).largest_known_divisor(), 1);
        assert_eq!(c(-12).largest_known_divisor(), 12);
        assert_eq!((d(0) * 4 + s(0) * 6).largest_known_divisor(), 2);
        assert_eq!((d(0) * 4 * 3).largest_known_divisor(), 12);
        assert_eq!((d(0) * 8).floor_div(2).largest_known_divisor(), 4);
        assert_eq!((d(0) * 8).floor_div(3).largest_known_divisor(), 1);
        assert_eq!((d(0) * 8).modulo(4).largest_known_divisor(), 4);
        assert_eq!((d(0) * c(0)).largest_known_divisor(), 0);
        assert_eq!(c(i64::MIN).largest_known_divisor(), 1 << 63);
        assert_eq!((c(i64::MIN) * c(i64::MIN)).largest_known_divisor(), 1 << 63);
    }

    #[test]
    fn replace_and_walk() {
        let e = d(0) + s(0) * d(1);
        let r = e.replace_dims_and_symbols(&[d(1) + 1], &[c(7)]);
        assert_eq!(r, (d(1) + 1) + c(7) * d(1));
        let mut count = 0;
        e.walk(&mut |_| count += 1);
        assert_eq!(count, 5);
    }
}
