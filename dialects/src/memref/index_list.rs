//! Mixed static/dynamic index lists, `[%a, 4, %b]` (MLIR's `custom<DynamicIndexList>`):
//! a `static_*` array property holds every entry, `?` where an SSA operand stands, and
//! the operands follow in order. Used by offsets, sizes and strides of views.

use tb_ir::asm::{OpAsmParser, OpAsmPrinter, UnresolvedOperand};
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::ods::operand_group;
use tb_ir::parser::PResult;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::types::DYNAMIC;
use tb_ir::value::ValueDef;
use tb_ir::{Attr, Context, OpId, Value};

/// `[%a, 4, %b]`: the operands and the static entries (`DYNAMIC` for each operand).
pub(crate) fn parse(p: &mut OpAsmParser) -> PResult<(Vec<UnresolvedOperand>, Vec<i64>)> {
    p.parse_literal("[")?;
    let (mut operands, mut statics) = (Vec::new(), Vec::new());
    if !p.parse_optional_literal("]") {
        loop {
            if let Some(operand) = p.parse_optional_operand()? {
                operands.push(operand);
                statics.push(DYNAMIC);
            } else {
                let at = p.offset();
                let value = p.parse_integer("SSA value or integer")?;
                let Ok(value) = i64::try_from(value) else {
                    return p.error_at(at, "integer constant out of range");
                };
                statics.push(value);
            }
            if !p.parse_optional_literal(",") {
                break;
            }
        }
        p.parse_literal("]")?;
    }
    Ok((operands, statics))
}

/// Prints `statics` with each `DYNAMIC` entry replaced by the next of `values`.
pub(crate) fn print(p: &mut OpAsmPrinter, values: &[Value], statics: &[i64]) {
    p.print_str("[");
    let mut dynamic = values.iter();
    for (i, &s) in statics.iter().enumerate() {
        if i > 0 {
            p.print_str(", ");
        }
        if s != DYNAMIC {
            p.print_str(&s.to_string());
        } else if let Some(&v) = dynamic.next() {
            p.print_value(v);
        } else {
            // Unverified IR may lack the operand.
            p.print_str("?");
        }
    }
    p.print_str("]");
}

/// `array<i64: ...>`
pub(crate) fn i64_array(ctx: &mut Context, values: &[i64]) -> Attr {
    let i64_ty = ctx.i64();
    ctx.intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

/// `array<i32: ...>` of operand segment sizes.
pub(crate) fn segment_sizes(ctx: &mut Context, sizes: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&v| v as i128).collect()),
    })
}

/// The `array<i64: ...>` property `name` of `op`.
pub(crate) fn static_list(ctx: &Context, op: OpId, name: &str) -> Option<Vec<i64>> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, name)?) {
        AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        } => Some(values.iter().map(|&v| v as i64).collect()),
        _ => None,
    }
}

/// An entry of a mixed list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mixed {
    Static(i64),
    Dynamic(Value),
}

impl Mixed {
    /// The entry's value when it is static or a constant.
    pub fn constant(self, ctx: &Context) -> Option<i64> {
        match self {
            Mixed::Static(v) => Some(v),
            Mixed::Dynamic(v) => constant_index(ctx, v),
        }
    }
}

/// The integer a value is known to be, from the constant op defining it.
pub(crate) fn constant_index(ctx: &Context, v: Value) -> Option<i64> {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return None;
    };
    match ctx.attr_kind(constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// The entries of static list `name` with operand group `group` in place of its `?`s;
/// `None` if they disagree in number.
pub(crate) fn mixed(ctx: &Context, op: OpId, name: &str, group: usize) -> Option<Vec<Mixed>> {
    let statics = static_list(ctx, op, name)?;
    let values = operand_group(ctx, op, group);
    if statics.iter().filter(|&&s| s == DYNAMIC).count() != values.len() {
        return None;
    }
    let mut dynamic = values.iter();
    Some(
        statics
            .iter()
            .map(|&s| match s {
                DYNAMIC => Mixed::Dynamic(*dynamic.next().expect("counted above")),
                s => Mixed::Static(s),
            })
            .collect(),
    )
}

/// Splits mixed entries back into operands and a static list.
pub(crate) fn split(entries: &[Mixed]) -> (Vec<Value>, Vec<i64>) {
    let mut values = Vec::new();
    let statics = entries
        .iter()
        .map(|e| match *e {
            Mixed::Static(s) => s,
            Mixed::Dynamic(v) => {
                values.push(v);
                DYNAMIC
            }
        })
        .collect();
    (values, statics)
}
