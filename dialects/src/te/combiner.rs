//! Reduction combiners: how a reducing `te.compute` folds the values its body yields over
//! the reduction axes. This is the one definition of their meaning — the verifier, the
//! lowerings, the interpreter and the backends all ask it.
//!
//! A combiner is a typed attribute, `#te.combiner<sum>` in the generic form and
//! `combiner = sum` in `te.compute`'s custom form. For a lowering it gives:
//!
//! - [`Combiner::identity_attr`]: the neutral element an accumulator starts from, as an
//!   attribute of the (signless) scalar type (`0.0`, `1`, `-inf`, the integer extremes);
//! - [`Combiner::arith_op`]: the `arith` op that folds one more value into the
//!   accumulator (`arith.addf`, `arith.maxui`, `arith.maximumf` ...);
//!
//! and for an evaluator [`Combiner::combine_floats`] / [`Combiner::combine_ints`], which
//! compute exactly what that arith op computes. Integer sums and products wrap; max and min
//! of an unsigned result compare unsigned; float max and min propagate NaN. The identities
//! and the arithmetic are `tb_tensor::Combiner`'s ([`Combiner::semantics`]), which the ONNX
//! reduction kernels use too; this type is their IR face (keyword, attribute, arith op).

use tb_ir::dialect_attr::{TypedAttr, angle_words};
use tb_ir::float::bits_from_f64;
use tb_ir::{Attr, AttrKind, Context, Type, TypeKind};

use crate::arith::ArithOp;

/// A reduction combiner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    Sum,
    Max,
    Min,
    Prod,
}

impl Combiner {
    pub const ALL: &'static [Combiner] =
        &[Combiner::Sum, Combiner::Max, Combiner::Min, Combiner::Prod];

    /// The keyword (`sum`, `max`, `min`, `prod`).
    pub fn keyword(self) -> &'static str {
        match self {
            Combiner::Sum => "sum",
            Combiner::Max => "max",
            Combiner::Min => "min",
            Combiner::Prod => "prod",
        }
    }

    pub fn from_keyword(word: &str) -> Option<Combiner> {
        Self::ALL.iter().copied().find(|c| c.keyword() == word)
    }

    /// The message for a word that names no combiner.
    pub fn unknown(word: &str) -> String {
        format!("unknown combiner '{word}'; expected one of sum, max, min, prod")
    }

    /// What the combiner computes: defined once, in `tb-tensor`, which the ONNX reduction
    /// kernels share.
    pub fn semantics(self) -> tb_tensor::Combiner {
        match self {
            Combiner::Sum => tb_tensor::Combiner::Sum,
            Combiner::Max => tb_tensor::Combiner::Max,
            Combiner::Min => tb_tensor::Combiner::Min,
            Combiner::Prod => tb_tensor::Combiner::Prod,
        }
    }

    /// The neutral element for floats.
    pub fn float_identity(self) -> f64 {
        self.semantics().float_identity()
    }

    /// The neutral element for `width`-bit integers, in the form integer attributes keep
    /// (sign-extended, `i1` as 0/1); `unsigned` selects the unsigned extremes for max/min.
    pub fn int_identity(self, width: u32, unsigned: bool) -> i128 {
        self.semantics().int_identity(width, unsigned)
    }

    /// The neutral element as an attribute of the scalar type `scalar` (a float, integer
    /// or `index`); `None` for other types.
    pub fn identity_attr(self, ctx: &mut Context, scalar: Type, unsigned: bool) -> Option<Attr> {
        match *ctx.type_kind(scalar) {
            TypeKind::Float(kind) => {
                let bits = bits_from_f64(kind, self.float_identity())?;
                Some(ctx.intern_attr(AttrKind::Float { bits, ty: scalar }))
            }
            TypeKind::Integer { width, .. } if width > 0 => {
                Some(ctx.integer_attr(self.int_identity(width, unsigned), scalar))
            }
            TypeKind::Index => Some(ctx.integer_attr(self.int_identity(64, unsigned), scalar)),
            _ => None,
        }
    }

    /// The `arith` op that combines an accumulator with one more value.
    pub fn arith_op(self, float: bool, unsigned: bool) -> ArithOp {
        match (self, float, unsigned) {
            (Combiner::Sum, true, _) => ArithOp::AddF,
            (Combiner::Sum, false, _) => ArithOp::AddI,
            (Combiner::Prod, true, _) => ArithOp::MulF,
            (Combiner::Prod, false, _) => ArithOp::MulI,
            (Combiner::Max, true, _) => ArithOp::MaximumF,
            (Combiner::Max, false, true) => ArithOp::MaxUI,
            (Combiner::Max, false, false) => ArithOp::MaxSI,
            (Combiner::Min, true, _) => ArithOp::MinimumF,
            (Combiner::Min, false, true) => ArithOp::MinUI,
            (Combiner::Min, false, false) => ArithOp::MinSI,
        }
    }

    /// `acc` combined with `v` as floats (before rounding to the element format).
    pub fn combine_floats(self, acc: f64, v: f64) -> f64 {
        self.semantics().combine_floats(acc, v)
    }

    /// `acc` combined with `v` as `width`-bit integers held in `i64` (before wrapping to
    /// the width); max and min compare unsigned when `unsigned`.
    pub fn combine_ints(self, acc: i64, v: i64, width: u32, unsigned: bool) -> i64 {
        self.semantics()
            .combine_ints(i128::from(acc), i128::from(v), width, unsigned) as i64
    }
}

impl TypedAttr for Combiner {
    const DIALECT: &'static str = "te";
    const MNEMONIC: &'static str = "combiner";

    fn parse(body: &str) -> Result<Self, String> {
        match angle_words(body).as_deref() {
            Some([word]) => Combiner::from_keyword(word).ok_or_else(|| Combiner::unknown(word)),
            _ => Err("expected #te.combiner<sum|max|min|prod>".into()),
        }
    }

    fn print(&self, out: &mut String) {
        out.push('<');
        out.push_str(self.keyword());
        out.push('>');
    }
}

/// The combiner an attribute holds, which must be the typed `#te.combiner<...>`; `Err`
/// says what it holds instead.
pub(crate) fn combiner_of_attr(ctx: &Context, attr: Attr) -> Result<Combiner, String> {
    match ctx.typed_attr::<Combiner>(attr) {
        Some(&c) => Ok(c),
        None => Err(format!(
            "combiner must be a #te.combiner attribute (one of sum, max, min, prod), not {}",
            tb_ir::printer::attr_to_string(ctx, attr)
        )),
    }
}
