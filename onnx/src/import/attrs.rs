//! ONNX node attributes as graph-op attributes: the name turned into snake_case, the value
//! converted to the attribute kind the op's definition declares (`i64`, `f32`, bool,
//! `array<i64: ...>`, string, type). An attribute the op does not declare is unsupported.

use tb_ir::attributes::DenseArrayData;
use tb_ir::{Attr, AttrKind, Context, FloatKind};

use crate::attribute::{NodeAttrs, attribute_type};
use crate::dtype::{data_type_name, dtype_from_onnx};
use crate::proto::NodeProto;

use super::types::element_type;

/// `transA` → `trans_a`, `kernel_shape` unchanged.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else {
            out.push(c);
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

pub fn i64_attr(ctx: &mut Context, v: i64) -> Attr {
    let ty = ctx.i64();
    ctx.integer_attr(v.into(), ty)
}

pub fn bool_attr(ctx: &mut Context, v: bool) -> Attr {
    let ty = ctx.i1();
    ctx.integer_attr(v.into(), ty)
}

pub fn f32_attr(ctx: &mut Context, v: f32) -> Attr {
    let ty = ctx.float_type(FloatKind::F32);
    ctx.intern_attr(AttrKind::Float {
        bits: v.to_bits().into(),
        ty,
    })
}

pub fn ints_attr(ctx: &mut Context, v: &[i64]) -> Attr {
    let element = ctx.i64();
    ctx.intern_attr(AttrKind::DenseArray {
        element,
        data: DenseArrayData::Int(v.iter().map(|&x| x.into()).collect()),
    })
}

/// Converts every attribute of `node` except those in `skip` (handled by the caller) for
/// the graph op `op`; each attribute that cannot be converted adds a message to `errors`.
pub fn convert_all(
    ctx: &mut Context,
    node: &NodeProto,
    op: &str,
    skip: &[&str],
    errors: &mut Vec<String>,
) -> Vec<(String, Attr)> {
    let defs = ctx
        .op_info(op)
        .and_then(|i| i.def)
        .map(|d| d.attributes)
        .unwrap_or(&[]);
    let mut out = Vec::new();
    for a in &node.attribute {
        if skip.contains(&a.name.as_str()) {
            continue;
        }
        let name = snake_case(&a.name);
        let Some(def) = defs.iter().find(|d| d.name == name) else {
            errors.push(format!("attribute '{}' is not supported", a.name));
            continue;
        };
        match convert_one(ctx, node, &a.name, def.constraint.description) {
            Ok(v) => out.push((name, v)),
            Err(e) => errors.push(e),
        }
    }
    out
}

/// One attribute as the constraint `kind` (a constraint description) asks.
fn convert_one(
    ctx: &mut Context,
    node: &NodeProto,
    name: &str,
    kind: &str,
) -> Result<Attr, String> {
    let ty = node.attribute(name).and_then(attribute_type);
    let wrong = |want: &str| {
        format!(
            "attribute '{name}' must be {want}, found {}",
            ty.map(|t| t.as_str_name())
                .unwrap_or("an untyped attribute")
        )
    };
    let err = |e: crate::attribute::AttrError| e.to_string();
    match kind {
        "bool attribute" => {
            let v = node
                .attr_int(name)
                .map_err(err)?
                .ok_or_else(|| wrong("INT"))?;
            if v != 0 && v != 1 {
                return Err(format!("attribute '{name}' must be 0 or 1, found {v}"));
            }
            Ok(bool_attr(ctx, v == 1))
        }
        "64-bit signless integer attribute" => {
            let v = node
                .attr_int(name)
                .map_err(err)?
                .ok_or_else(|| wrong("INT"))?;
            Ok(i64_attr(ctx, v))
        }
        "32-bit float attribute" => {
            let v = node
                .attr_float(name)
                .map_err(err)?
                .ok_or_else(|| wrong("FLOAT"))?;
            Ok(f32_attr(ctx, v))
        }
        "i64 dense array attribute" => {
            let v = node
                .attr_ints(name)
                .map_err(err)?
                .ok_or_else(|| wrong("INTS"))?;
            Ok(ints_attr(ctx, &v))
        }
        "string attribute" => {
            let v = node
                .attr_string(name)
                .map_err(err)?
                .ok_or_else(|| wrong("STRING"))?;
            Ok(ctx.string_attr(&v))
        }
        "any type attribute" => {
            let code = node
                .attr_int(name)
                .map_err(err)?
                .ok_or_else(|| wrong("INT"))?;
            let dtype = dtype_from_onnx(code as i32).ok_or_else(|| {
                format!(
                    "attribute '{name}': element type {} is not supported",
                    data_type_name(code as i32)
                )
            })?;
            let ty = element_type(ctx, dtype);
            Ok(ctx.type_attr(ty))
        }
        other => Err(format!(
            "attribute '{name}' ({}) cannot be converted to a {other}",
            ty.map(|t| t.as_str_name()).unwrap_or("untyped")
        )),
    }
}
