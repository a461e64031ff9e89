//! The attributes and enums of `arith`, shared with `math` and read by the verifier, the
//! interpreter and the backends: fast-math flags (`#arith.fastmath<nnan,ninf>`), integer
//! overflow flags (`#arith.overflow<nsw, nuw>`), and the `cmpi`/`cmpf` predicates.
//!
//! The flag attributes are typed dialect attributes ([`tb_ir::dialect_attr`]): parsed once,
//! printed in MLIR 22's canonical spelling, compared and hashed as values.

use tb_ir::dialect_attr::{TypedAttr, angle_words};
use tb_ir::ods::BitEnum;
use tb_ir::{Attr, Context, OpId};

/// The spelling of `#arith.overflow`: `none`, `nsw`, `nuw`, `nsw, nuw`.
pub(crate) const OVERFLOW_FLAGS: BitEnum = BitEnum {
    attr: "arith.overflow",
    flags: &["nsw", "nuw"],
    none: "none",
    all: None,
    separator: ", ",
};

/// The spelling of `#arith.fastmath`: `none`, `fast`, or flags joined by `,`.
pub const FASTMATH_FLAGS: BitEnum = BitEnum {
    attr: "arith.fastmath",
    flags: &["reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"],
    none: "none",
    all: Some("fast"),
    separator: ",",
};

/// Parses `<word, ...>` as a mask of `flags`, with MLIR's message for a bad word.
fn parse_mask(flags: &BitEnum, body: &str) -> Result<u64, String> {
    let words = angle_words(body).ok_or_else(|| format!("expected '<' after #{}", flags.attr))?;
    flags.mask(words).map_err(|_| {
        let mut names = vec![flags.none];
        names.extend(flags.flags);
        names.extend(flags.all);
        format!(
            "expected #{} flags to be one of: {}",
            flags.attr,
            names.join(", ")
        )
    })
}

/// `#arith.fastmath<...>`: the assumptions a floating-point op may make (LLVM's fast-math
/// flags, one bit each, in MLIR's order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FastMathFlags(u8);

impl FastMathFlags {
    pub const NONE: FastMathFlags = FastMathFlags(0);
    pub const REASSOC: FastMathFlags = FastMathFlags(1);
    pub const NNAN: FastMathFlags = FastMathFlags(1 << 1);
    pub const NINF: FastMathFlags = FastMathFlags(1 << 2);
    pub const NSZ: FastMathFlags = FastMathFlags(1 << 3);
    pub const ARCP: FastMathFlags = FastMathFlags(1 << 4);
    pub const CONTRACT: FastMathFlags = FastMathFlags(1 << 5);
    pub const AFN: FastMathFlags = FastMathFlags(1 << 6);
    pub const FAST: FastMathFlags = FastMathFlags(0x7f);

    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn contains(self, other: FastMathFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The `fastmath` property of `op`; an op without one makes no assumption.
    pub fn of(ctx: &Context, op: OpId) -> FastMathFlags {
        ctx.op_inherent_or_attr(op, "fastmath")
            .and_then(|a| ctx.typed_attr::<FastMathFlags>(a))
            .copied()
            .unwrap_or_default()
    }
}

impl std::ops::BitOr for FastMathFlags {
    type Output = FastMathFlags;
    fn bitor(self, rhs: FastMathFlags) -> FastMathFlags {
        FastMathFlags(self.0 | rhs.0)
    }
}

impl TypedAttr for FastMathFlags {
    const DIALECT: &'static str = "arith";
    const MNEMONIC: &'static str = "fastmath";

    fn parse(body: &str) -> Result<Self, String> {
        parse_mask(&FASTMATH_FLAGS, body).map(|m| FastMathFlags(m as u8))
    }

    fn print(&self, out: &mut String) {
        out.push('<');
        out.push_str(&FASTMATH_FLAGS.spell(self.0 as u64));
        out.push('>');
    }
}

/// `#arith.overflow<...>`: the wrapping an integer op may assume does not happen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OverflowFlags {
    /// No signed wrap.
    pub nsw: bool,
    /// No unsigned wrap.
    pub nuw: bool,
}

impl OverflowFlags {
    /// The `overflowFlags` property of `op` (none when absent).
    pub fn of(ctx: &Context, op: OpId) -> OverflowFlags {
        ctx.op_inherent_or_attr(op, "overflowFlags")
            .and_then(|a| ctx.typed_attr::<OverflowFlags>(a))
            .copied()
            .unwrap_or_default()
    }
}

impl TypedAttr for OverflowFlags {
    const DIALECT: &'static str = "arith";
    const MNEMONIC: &'static str = "overflow";

    fn parse(body: &str) -> Result<Self, String> {
        let mask = parse_mask(&OVERFLOW_FLAGS, body)?;
        Ok(OverflowFlags {
            nsw: mask & 1 != 0,
            nuw: mask & 2 != 0,
        })
    }

    fn print(&self, out: &mut String) {
        let mask = self.nsw as u64 | (self.nuw as u64) << 1;
        out.push('<');
        out.push_str(&OVERFLOW_FLAGS.spell(mask));
        out.push('>');
    }
}

/// Whether `attr` is a `#arith.fastmath` attribute (the ODS constraint of `fastmath`).
pub(crate) fn is_fastmath(ctx: &Context, attr: Attr) -> bool {
    ctx.typed_attr::<FastMathFlags>(attr).is_some()
}

/// Whether `attr` is a `#arith.overflow` attribute.
pub(crate) fn is_overflow(ctx: &Context, attr: Attr) -> bool {
    ctx.typed_attr::<OverflowFlags>(attr).is_some()
}

/// Declares a comparison predicate enum whose discriminants are MLIR's attribute values.
macro_rules! predicates {
    ($(#[$meta:meta])* $name:ident, $words:ident { $($variant:ident = $word:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant),*
        }

        /// The keywords of the predicates, indexed by their attribute value.
        pub const $words: &[&str] = &[$($word),*];

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The predicate an attribute value (`predicate = 3 : i64`) stands for.
            pub fn from_i64(value: i64) -> Option<$name> {
                usize::try_from(value).ok().and_then(|i| Self::ALL.get(i).copied())
            }

            /// The attribute value of the predicate.
            pub fn to_i64(self) -> i64 {
                self as i64
            }

            /// MLIR's keyword (`slt`, `oeq`).
            pub fn keyword(self) -> &'static str {
                $words[self as usize]
            }

            /// The `predicate` property of `op`, if it holds a known predicate.
            pub fn of(ctx: &Context, op: OpId) -> Option<$name> {
                let value = ctx.op_inherent_or_attr(op, "predicate")?;
                match ctx.attr_kind(value) {
                    tb_ir::AttrKind::Integer { value, .. } => Self::from_i64(*value as i64),
                    _ => None,
                }
            }
        }
    };
}

predicates!(
    /// An `arith.cmpi` predicate: signed (`s`) or unsigned (`u`) order, or equality.
    CmpIPredicate, CMPI_PREDICATES {
        Eq = "eq", Ne = "ne", Slt = "slt", Sle = "sle", Sgt = "sgt", Sge = "sge",
        Ult = "ult", Ule = "ule", Ugt = "ugt", Uge = "uge",
    }
);

predicates!(
    /// An `arith.cmpf` predicate: ordered (`o`, false on NaN) or unordered (`u`, true on
    /// NaN) comparisons, and the constant predicates.
    CmpFPredicate, CMPF_PREDICATES {
        False = "false", Oeq = "oeq", Ogt = "ogt", Oge = "oge", Olt = "olt", Ole = "ole",
        One = "one", Ord = "ord", Ueq = "ueq", Ugt = "ugt", Uge = "uge", Ult = "ult",
        Ule = "ule", Une = "une", Uno = "uno", True = "true",
    }
);

pub fn register(ctx: &mut Context) {
    ctx.register_attr::<FastMathFlags>();
    ctx.register_attr::<OverflowFlags>();
}

/// `arith.truncf`'s rounding mode: an `i32` enum attribute (`roundingmode = 1 : i32`)
/// written as its keyword, with LLVM's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundingMode {
    ToNearestEven = 0,
    Downward = 1,
    Upward = 2,
    TowardZero = 3,
    ToNearestAway = 4,
}

impl RoundingMode {
    pub const ALL: [RoundingMode; 5] = [
        RoundingMode::ToNearestEven,
        RoundingMode::Downward,
        RoundingMode::Upward,
        RoundingMode::TowardZero,
        RoundingMode::ToNearestAway,
    ];

    pub fn keyword(self) -> &'static str {
        match self {
            RoundingMode::ToNearestEven => "to_nearest_even",
            RoundingMode::Downward => "downward",
            RoundingMode::Upward => "upward",
            RoundingMode::TowardZero => "toward_zero",
            RoundingMode::ToNearestAway => "to_nearest_away",
        }
    }

    fn from_attr(ctx: &Context, attr: Attr) -> Option<RoundingMode> {
        match ctx.attr_kind(attr) {
            tb_ir::AttrKind::Integer { value, ty }
                if matches!(
                    ctx.type_kind(*ty),
                    tb_ir::TypeKind::Integer { width: 32, .. }
                ) =>
            {
                usize::try_from(*value)
                    .ok()
                    .and_then(|i| Self::ALL.get(i).copied())
            }
            _ => None,
        }
    }

    /// The `roundingmode` property of `op`, when it has a valid one.
    pub fn of(ctx: &Context, op: OpId) -> Option<RoundingMode> {
        Self::from_attr(ctx, ctx.op_inherent_or_attr(op, "roundingmode")?)
    }
}

/// Whether `attr` is a valid `roundingmode` (the ODS constraint).
pub(crate) fn is_rounding_mode(ctx: &Context, attr: Attr) -> bool {
    RoundingMode::from_attr(ctx, attr).is_some()
}
