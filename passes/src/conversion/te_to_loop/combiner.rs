//! Reduction combiners as scalar arith, for an accumulator in the signless `scalar` type of
//! a reduction's result. What a combiner means (identity, combining op, unsigned and NaN
//! behaviour) is `te::Combiner`'s; this file only checks that the element type can
//! accumulate and emits the ops.

use tb_dialects::te;
use tb_ir::ods::OpKind;
use tb_ir::printer::type_to_string;
use tb_ir::{Attr, Context, Signedness, Type, TypeKind, Value};

use super::builder::Builder;

/// A combiner of a reduction whose result elements have a given type; `unsigned` makes
/// max and min compare unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Combiner {
    kind: te::Combiner,
    unsigned: bool,
}

impl Combiner {
    /// `kind` reducing `element` values, or why arith cannot accumulate them.
    pub fn new(ctx: &Context, kind: te::Combiner, element: Type) -> Result<Combiner, String> {
        let accumulates = match ctx.type_kind(element) {
            TypeKind::Float(_) | TypeKind::Index => true,
            TypeKind::Integer { width, .. } => *width > 0,
            _ => false,
        };
        if !accumulates {
            return Err(format!(
                "reduces with '{}' over element type '{}', which arith cannot accumulate",
                kind.keyword(),
                type_to_string(ctx, element)
            ));
        }
        let unsigned = matches!(
            ctx.type_kind(element),
            TypeKind::Integer {
                signedness: Signedness::Unsigned,
                ..
            }
        );
        Ok(Combiner { kind, unsigned })
    }

    /// The value a reduction over no elements has, an attribute of the signless `scalar`
    /// type the accumulator has.
    pub fn identity(self, ctx: &mut Context, scalar: Type) -> Attr {
        self.kind
            .identity_attr(ctx, scalar, self.unsigned)
            .expect("checked by new: the scalar type accumulates")
    }

    /// Emits `accumulator <combine> value`.
    pub fn combine(
        self,
        ctx: &mut Context,
        at: &Builder,
        accumulator: Value,
        value: Value,
    ) -> Value {
        let float = matches!(ctx.type_kind(ctx.value_type(value)), TypeKind::Float(_));
        let op = self.kind.arith_op(float, self.unsigned);
        at.binary(ctx, op.name(), accumulator, value)
    }
}
