//! The `vector` ops TensorBind uses to build and take apart the per-lane fragments of GPU
//! matrix instructions (`nvgpu.mma.sync`), with MLIR 22's syntax:
//!
//! ```mlir
//! %a = vector.from_elements %x0, %x1, %x2, %x3 : vector<2x2xf16>
//! %e = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
//! %row = vector.extract %d[1] : vector<2xf32> from vector<2x2xf32>
//! ```
//!
//! Only these two ops of MLIR's `vector` dialect are registered; the loop level's own
//! vector ops (`loop.vector_load`, ...) cover the rest of what TensorBind computes on
//! vectors. `vector.extract` takes constant positions only.

mod asm;

use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::ods::constraint::{ANY_TYPE, ANY_VECTOR, DENSE_I64_ARRAY_ATTR};
use tb_ir::ods::{OpDef, attr, operand, variadic};
use tb_ir::registry::OpTraits;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind};

pub const FROM_ELEMENTS: &str = "vector.from_elements";
pub const EXTRACT: &str = "vector.extract";

tb_ir::op_kinds! {
    /// The registered ops of `vector`.
    pub enum VectorOp in "vector" {
        FromElements = "vector.from_elements",
        Extract = "vector.extract",
    }
}

fn op_error(ctx: &Context, op: OpId, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op {}", ctx.op_name(op), message.into()),
    )
}

/// The shape and element type of vector type `ty`.
pub fn vector_shape(ctx: &Context, ty: Type) -> Option<(&[i64], Type)> {
    match ctx.type_kind(ty) {
        TypeKind::Vector { shape, element, .. } => Some((shape.as_slice(), *element)),
        _ => None,
    }
}

/// The constant positions of a `vector.extract`.
pub fn extract_position(ctx: &Context, op: OpId) -> Option<Vec<i64>> {
    let attr = ctx.op_inherent_or_attr(op, "static_position")?;
    match ctx.attr_kind(attr) {
        AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        } => Some(values.iter().map(|&v| v as i64).collect()),
        _ => None,
    }
}

/// The type `vector.extract` gives at `depth` positions into `source`: the element for a
/// full position, else the vector of the trailing dimensions.
pub fn extracted_type(ctx: &mut Context, source: Type, depth: usize) -> Option<Type> {
    let (shape, element) = vector_shape(ctx, source)?;
    if depth > shape.len() {
        return None;
    }
    if depth == shape.len() {
        return Some(element);
    }
    let rest = shape[depth..].to_vec();
    let scalable = vec![false; rest.len()];
    Some(ctx.intern_type(TypeKind::Vector {
        shape: rest,
        scalable,
        element,
    }))
}

fn verify_from_elements(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let result = ctx.value_type(ctx.op(op).results[0]);
    let Some((shape, element)) = vector_shape(ctx, result) else {
        return Err(op_error(ctx, op, "result must be a vector"));
    };
    let lanes: i64 = shape.iter().product();
    let operands = &ctx.op(op).operands;
    if operands.len() as i64 != lanes {
        return Err(op_error(
            ctx,
            op,
            format!("has {} elements for a vector of {lanes}", operands.len()),
        ));
    }
    if operands.iter().any(|&v| ctx.value_type(v) != element) {
        return Err(op_error(
            ctx,
            op,
            "requires every element to have the result's element type",
        ));
    }
    Ok(())
}

fn verify_extract(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    if data.operands.len() != 1 {
        return Err(op_error(
            ctx,
            op,
            "dynamic positions are not supported by TensorBind yet",
        ));
    }
    let source = ctx.value_type(data.operands[0]);
    let Some((shape, element)) = vector_shape(ctx, source) else {
        return Err(op_error(ctx, op, "source must be a vector"));
    };
    let position = extract_position(ctx, op)
        .ok_or_else(|| op_error(ctx, op, "requires a 'static_position' array"))?;
    if position.len() > shape.len() {
        return Err(op_error(
            ctx,
            op,
            "expected position attribute of rank no greater than vector rank",
        ));
    }
    for (i, (&p, &d)) in position.iter().zip(shape).enumerate() {
        if !(0..d).contains(&p) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "expected position attribute #{} to be a non-negative integer smaller than the corresponding vector dimension",
                    i + 1
                ),
            ));
        }
    }
    let result = ctx.value_type(data.results[0]);
    let expected_ok = if position.len() == shape.len() {
        result == element
    } else {
        vector_shape(ctx, result)
            .is_some_and(|(s, e)| s == &shape[position.len()..] && e == element)
    };
    if !expected_ok {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type {} does not match the source's {} at {} positions",
                tb_ir::printer::type_to_string(ctx, result),
                tb_ir::printer::type_to_string(ctx, source),
                position.len()
            ),
        ));
    }
    Ok(())
}

const PURE: OpTraits = OpTraits {
    pure: true,
    ..OpDef::EMPTY.traits
};

static FROM_ELEMENTS_DEF: OpDef = OpDef {
    name: FROM_ELEMENTS,
    summary: "a vector of the given elements, in row-major order",
    operands: &[variadic("elements", ANY_TYPE)],
    results: &[operand("dest", ANY_VECTOR)],
    traits: PURE,
    custom_assembly: Some((asm::parse_from_elements, asm::print_from_elements)),
    verify: Some(verify_from_elements),
    ..OpDef::EMPTY
};

static EXTRACT_DEF: OpDef = OpDef {
    name: EXTRACT,
    summary: "the element, or the sub-vector, of a vector at constant positions",
    operands: &[
        operand("vector", ANY_VECTOR),
        variadic("dynamic_position", tb_ir::ods::constraint::INDEX),
    ],
    results: &[operand("result", ANY_TYPE)],
    attributes: &[attr("static_position", DENSE_I64_ARRAY_ATTR)],
    traits: PURE,
    custom_assembly: Some((asm::parse_extract, asm::print_extract)),
    verify: Some(verify_extract),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    for def in [&FROM_ELEMENTS_DEF, &EXTRACT_DEF] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<VectorOp>()
}
