//! Reduction combiners as scalar arith: the identity an accumulator starts from and the op
//! that folds one more value into it. They match the interpreter's `te.compute`: integer
//! max/min are signed, float max/min propagate NaN (`arith.maximumf`/`minimumf`), integer
//! sum and product wrap.

use tb_ir::float::bits_from_f64;
use tb_ir::printer::type_to_string;
use tb_ir::{Attr, AttrKind, Context, Signedness, Type, TypeKind, Value};

use super::builder::Builder;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Combiner {
    Sum,
    Prod,
    Max,
    Min,
}

/// The element types a reduction can accumulate in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arithmetic {
    Float(tb_ir::FloatKind),
    /// A signless integer or `index` of this width.
    Integer(u32),
}

fn arithmetic(ctx: &Context, ty: Type) -> Option<Arithmetic> {
    match ctx.type_kind(ty) {
        TypeKind::Float(kind) => Some(Arithmetic::Float(*kind)),
        TypeKind::Integer {
            width,
            signedness: Signedness::Signless,
        } => Some(Arithmetic::Integer(*width)),
        TypeKind::Index => Some(Arithmetic::Integer(64)),
        _ => None,
    }
}

impl Combiner {
    /// The combiner named `name` reducing `element` values, or why it cannot be lowered.
    pub fn parse(ctx: &Context, name: &str, element: Type) -> Result<Combiner, String> {
        let combiner = match name {
            "sum" => Combiner::Sum,
            "prod" => Combiner::Prod,
            "max" => Combiner::Max,
            "min" => Combiner::Min,
            other => return Err(format!("has unknown combiner '{other}'")),
        };
        match arithmetic(ctx, element) {
            Some(Arithmetic::Integer(0)) | None => Err(format!(
                "reduces with '{name}' over element type '{}', which arith cannot accumulate",
                type_to_string(ctx, element)
            )),
            Some(_) => Ok(combiner),
        }
    }

    /// The value a reduction over no elements has: the combiner's neutral element.
    pub fn identity(self, ctx: &mut Context, element: Type) -> Attr {
        match arithmetic(ctx, element).expect("checked by parse") {
            Arithmetic::Float(kind) => {
                let value = match self {
                    Combiner::Sum => 0.0,
                    Combiner::Prod => 1.0,
                    Combiner::Max => f64::NEG_INFINITY,
                    Combiner::Min => f64::INFINITY,
                };
                let bits = bits_from_f64(kind, value).expect("every float kind has 0, 1 and inf");
                ctx.intern_attr(AttrKind::Float { bits, ty: element })
            }
            Arithmetic::Integer(width) => {
                let signed_min = -(1i128 << (width - 1));
                let value = match self {
                    Combiner::Sum => 0,
                    Combiner::Prod => 1,
                    Combiner::Max => signed_min,
                    Combiner::Min => -signed_min - 1,
                };
                // Attributes keep i1 values as 0/1.
                let value = if width == 1 { value & 1 } else { value };
                ctx.integer_attr(value, element)
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
        let name = match (self, float) {
            (Combiner::Sum, true) => "arith.addf",
            (Combiner::Sum, false) => "arith.addi",
            (Combiner::Prod, true) => "arith.mulf",
            (Combiner::Prod, false) => "arith.muli",
            (Combiner::Max, true) => "arith.maximumf",
            (Combiner::Max, false) => "arith.maxsi",
            (Combiner::Min, true) => "arith.minimumf",
            (Combiner::Min, false) => "arith.minsi",
        };
        at.binary(ctx, name, accumulator, value)
    }
}
