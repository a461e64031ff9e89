//! Reduction combiners as scalar arith: the identity an accumulator starts from and the op
//! that folds one more value into it. They match the interpreter's `te.compute`: integer
//! max/min are signed, unsigned for an unsigned result, float max/min propagate NaN (`arith.maximumf`/`minimumf`), integer
//! sum and product wrap.

use tb_ir::float::bits_from_f64;
use tb_ir::printer::type_to_string;
use tb_ir::{Attr, AttrKind, Context, Signedness, Type, TypeKind, Value};

use super::builder::Builder;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sum,
    Prod,
    Max,
    Min,
}

/// A combiner of a reduction; the accumulator holds the result's elements in their
/// signless type, and `unsigned` makes max and min compare unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Combiner {
    kind: Kind,
    unsigned: bool,
}

/// The element types a reduction can accumulate in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arithmetic {
    Float(tb_ir::FloatKind),
    /// An integer (signless, signed or unsigned) or `index` of this width.
    Integer(u32),
}

fn arithmetic(ctx: &Context, ty: Type) -> Option<Arithmetic> {
    match ctx.type_kind(ty) {
        TypeKind::Float(kind) => Some(Arithmetic::Float(*kind)),
        TypeKind::Integer { width, .. } => Some(Arithmetic::Integer(*width)),
        TypeKind::Index => Some(Arithmetic::Integer(64)),
        _ => None,
    }
}

impl Combiner {
    /// The combiner named `name` reducing `element` values, or why it cannot be lowered.
    pub fn parse(ctx: &Context, name: &str, element: Type) -> Result<Combiner, String> {
        let kind = match name {
            "sum" => Kind::Sum,
            "prod" => Kind::Prod,
            "max" => Kind::Max,
            "min" => Kind::Min,
            other => return Err(format!("has unknown combiner '{other}'")),
        };
        let unsigned = matches!(
            ctx.type_kind(element),
            TypeKind::Integer {
                signedness: Signedness::Unsigned,
                ..
            }
        );
        match arithmetic(ctx, element) {
            Some(Arithmetic::Integer(0)) | None => Err(format!(
                "reduces with '{name}' over element type '{}', which arith cannot accumulate",
                type_to_string(ctx, element)
            )),
            Some(_) => Ok(Combiner { kind, unsigned }),
        }
    }

    /// The value a reduction over no elements has: the combiner's neutral element, an
    /// attribute of the signless `scalar` type the accumulator has.
    pub fn identity(self, ctx: &mut Context, scalar: Type) -> Attr {
        match arithmetic(ctx, scalar).expect("checked by parse") {
            Arithmetic::Float(kind) => {
                let value = match self.kind {
                    Kind::Sum => 0.0,
                    Kind::Prod => 1.0,
                    Kind::Max => f64::NEG_INFINITY,
                    Kind::Min => f64::INFINITY,
                };
                let bits = bits_from_f64(kind, value).expect("every float kind has 0, 1 and inf");
                ctx.intern_attr(AttrKind::Float { bits, ty: scalar })
            }
            Arithmetic::Integer(width) => {
                let signed_min = -(1i128 << (width - 1));
                let value = match (self.kind, self.unsigned) {
                    (Kind::Sum, _) => 0,
                    (Kind::Prod, _) => 1,
                    // The unsigned extremes 0 and all ones, as signless bits.
                    (Kind::Max, true) => 0,
                    (Kind::Min, true) => -1,
                    (Kind::Max, false) => signed_min,
                    (Kind::Min, false) => -signed_min - 1,
                };
                // Attributes keep i1 values as 0/1.
                let value = if width == 1 { value & 1 } else { value };
                ctx.integer_attr(value, scalar)
            }
        }
    }

    /// Emits `accumulator <combine> value`.
    pub fn combine(
        self,
        ctx: &mut Context,
        at: &Builder,
        accumulator: Value,
        value: Value,
    ) -> Value {
        let float = matches!(
            arithmetic(ctx, ctx.value_type(value)),
            Some(Arithmetic::Float(_))
        );
        let name = match (self.kind, float, self.unsigned) {
            (Kind::Sum, true, _) => "arith.addf",
            (Kind::Sum, false, _) => "arith.addi",
            (Kind::Prod, true, _) => "arith.mulf",
            (Kind::Prod, false, _) => "arith.muli",
            (Kind::Max, true, _) => "arith.maximumf",
            (Kind::Max, false, false) => "arith.maxsi",
            (Kind::Max, false, true) => "arith.maxui",
            (Kind::Min, true, _) => "arith.minimumf",
            (Kind::Min, false, false) => "arith.minsi",
            (Kind::Min, false, true) => "arith.minui",
        };
        at.binary(ctx, name, accumulator, value)
    }
}
