//! Elementwise ops: activations and unary math, binary arithmetic and comparisons with
//! numpy broadcasting, logic, `where`, `clip`, `cast` and the variadic min/max/sum/mean.

use tb_ir::ods::{AttrDef, OpDef, PURE, attr, operand, optional_attr, variadic};
use tb_ir::registry::OpTraits;

use super::{FUNCTIONAL, UNARY};
use crate::graph::attrs::{BOOL_ATTR, F32_ATTR, SCALAR_ATTR, TYPE_ATTR};
use crate::graph::infer::{Elem, Inferred, RuleInput, RuleResult, graph_op};
use crate::graph::shape;
use crate::graph::types::{
    TENSOR_ANY, TENSOR_BOOL, TENSOR_FLOAT, TENSOR_INTEGER, TENSOR_NUMERIC, TENSOR_SIGNED,
    TENSOR_UNSIGNED, element_kind,
};

const COMMUTATIVE: OpTraits = OpTraits {
    commutative: true,
    ..PURE
};

/// The result is shaped and typed like the single operand.
fn same_as_input(i: &RuleInput) -> RuleResult {
    Ok(vec![Inferred::like(i.arg(0))])
}

/// Numpy broadcasting of every operand, with the message the dialect uses for it.
fn broadcast_shapes(i: &RuleInput, which: &[usize]) -> Result<Vec<i64>, String> {
    let shapes: Vec<&[i64]> = which.iter().map(|&k| i.arg(k).shape.as_slice()).collect();
    shape::broadcast("", &shapes).map_err(|_| {
        let mut names: Vec<String> = which.iter().map(|&k| i.show(i.arg(k))).collect();
        let last = names.pop().unwrap_or_default();
        let list = if names.is_empty() {
            last
        } else {
            format!("{} and {last}", names.join(", "))
        };
        format!("operands are not broadcast-compatible: {list}")
    })
}

fn all_operands(i: &RuleInput) -> Result<Vec<usize>, String> {
    if i.operands.is_empty() {
        return Err("requires at least one operand".into());
    }
    Ok((0..i.operands.len()).collect())
}

/// Operands of one element type, broadcast; the result has that element type.
fn broadcast_same(i: &RuleInput) -> RuleResult {
    let all = all_operands(i)?;
    i.same_element(&all)?;
    let shape = broadcast_shapes(i, &all)?;
    Ok(vec![Inferred::with_shape(shape, i.arg(0))])
}

/// Comparisons: operands of one element type, broadcast, to `i1`.
fn compare(i: &RuleInput) -> RuleResult {
    i.same_element(&[0, 1])?;
    let shape = broadcast_shapes(i, &[0, 1])?;
    Ok(vec![Inferred::new(shape, Elem::I1)])
}

/// Pow: the exponent may have another numeric type; the result has the base's.
fn pow(i: &RuleInput) -> RuleResult {
    let shape = broadcast_shapes(i, &[0, 1])?;
    Ok(vec![Inferred::with_shape(shape, i.arg(0))])
}

/// Mod: floats need `fmod = true` (ONNX leaves integer-style mod of floats undefined).
fn modulo(i: &RuleInput) -> RuleResult {
    let fmod = i.attrs.bool("fmod")?;
    if !fmod && i.kind(i.arg(0).element).is_some_and(|k| k.is_float()) {
        return Err("requires fmod = true for floating-point operands".into());
    }
    broadcast_same(i)
}

/// BitShift: `direction` is `"LEFT"` or `"RIGHT"`; operands broadcast.
fn bit_shift(i: &RuleInput) -> RuleResult {
    i.attrs.choice("direction", &["LEFT", "RIGHT"])?;
    broadcast_same(i)
}

/// Where: an `i1` condition selects between two values of one element type.
fn where_(i: &RuleInput) -> RuleResult {
    i.same_element(&[1, 2])?;
    let shape = broadcast_shapes(i, &[0, 1, 2])?;
    Ok(vec![Inferred::with_shape(shape, i.arg(1))])
}

/// PRelu: the slope broadcasts to the input (unidirectionally).
fn prelu(i: &RuleInput) -> RuleResult {
    i.same_element(&[0, 1])?;
    shape::unidirectional_broadcast("PRelu", &i.arg(1).shape, &i.arg(0).shape)
        .map_err(|e| format!("slope: {}", e.message))?;
    same_as_input(i)
}

/// Clip: the optional bounds are scalars of the input's element type. `min > max` is
/// valid ONNX (opset 13+): every element becomes `max`.
fn clip(i: &RuleInput) -> RuleResult {
    let element = i.arg(0).element;
    i.attrs.scalar_of("min", element)?;
    i.attrs.scalar_of("max", element)?;
    same_as_input(i)
}

fn gelu(i: &RuleInput) -> RuleResult {
    i.attrs.choice("approximate", &["none", "tanh"])?;
    same_as_input(i)
}

/// IsNaN/IsInf: same shape, `i1` elements.
fn predicate(i: &RuleInput) -> RuleResult {
    Ok(vec![Inferred::new(i.arg(0).shape.clone(), Elem::I1)])
}

/// Cast: the result has the `to` element type.
fn cast(i: &RuleInput) -> RuleResult {
    let Some(to) = i.attrs.ty("to")? else {
        return Err("requires attribute 'to'".into());
    };
    if element_kind(i.ctx, to).is_none() {
        return Err(format!(
            "cannot cast to {}: not an ONNX element type",
            crate::graph::types::type_string(i.ctx, to)
        ));
    }
    Ok(vec![Inferred::new(i.arg(0).shape.clone(), Elem::Type(to))])
}

/// A unary op whose result has the operand's type, with optional attributes.
macro_rules! unary {
    ($name:literal, $c:expr, $rule:path $(, $attrs:expr)? $(,)?) => {
        graph_op!($name, $rule, {
            operands: &[operand("X", $c)],
            results: &[operand("Y", $c)],
            format: Some(UNARY),
            $(attributes: $attrs,)?
        })
    };
}

/// A binary op with broadcasting.
macro_rules! binary {
    ($name:literal, $c:expr, $result:expr, $traits:expr, $rule:path $(, $attrs:expr)? $(,)?) => {
        graph_op!($name, $rule, $traits, {
            operands: &[operand("A", $c), operand("B", $c)],
            results: &[operand("C", $result)],
            format: Some(FUNCTIONAL),
            $(attributes: $attrs,)?
        })
    };
}

/// A variadic op with broadcasting: `graph.max %a, %b, %c`.
macro_rules! variadic_op {
    ($name:literal, $c:expr) => {
        graph_op!($name, broadcast_same, COMMUTATIVE, {
            operands: &[variadic("data_0", $c)],
            results: &[operand("result", $c)],
            format: Some(FUNCTIONAL),
        })
    };
}

const ALPHA_1: &[AttrDef] = &[optional_attr("alpha", F32_ATTR).with_default("1.000000e+00 : f32")];

pub(super) static DEFS: &[OpDef] = &[
    // Activations.
    unary!("graph.relu", TENSOR_SIGNED, same_as_input),
    unary!(
        "graph.leaky_relu",
        TENSOR_FLOAT,
        same_as_input,
        &[optional_attr("alpha", F32_ATTR).with_default("0.00999999977 : f32")],
    ),
    unary!(
        "graph.thresholded_relu",
        TENSOR_FLOAT,
        same_as_input,
        ALPHA_1
    ),
    unary!("graph.elu", TENSOR_FLOAT, same_as_input, ALPHA_1),
    unary!(
        "graph.selu",
        TENSOR_FLOAT,
        same_as_input,
        &[
            optional_attr("alpha", F32_ATTR).with_default("1.67326319 : f32"),
            optional_attr("gamma", F32_ATTR).with_default("1.05070102 : f32"),
        ],
    ),
    unary!("graph.celu", TENSOR_FLOAT, same_as_input, ALPHA_1),
    unary!("graph.sigmoid", TENSOR_FLOAT, same_as_input),
    unary!(
        "graph.hard_sigmoid",
        TENSOR_FLOAT,
        same_as_input,
        &[
            optional_attr("alpha", F32_ATTR).with_default("2.000000e-01 : f32"),
            optional_attr("beta", F32_ATTR).with_default("5.000000e-01 : f32"),
        ],
    ),
    unary!("graph.hard_swish", TENSOR_FLOAT, same_as_input),
    unary!("graph.tanh", TENSOR_FLOAT, same_as_input),
    unary!(
        "graph.gelu",
        TENSOR_FLOAT,
        gelu,
        &[
            optional_attr("approximate", tb_ir::ods::constraint::STRING_ATTR)
                .with_default("\"none\"")
        ],
    ),
    unary!("graph.softplus", TENSOR_FLOAT, same_as_input),
    unary!("graph.softsign", TENSOR_FLOAT, same_as_input),
    unary!("graph.mish", TENSOR_FLOAT, same_as_input),
    unary!("graph.swish", TENSOR_FLOAT, same_as_input, ALPHA_1),
    unary!(
        "graph.shrink",
        TENSOR_FLOAT,
        same_as_input,
        &[
            optional_attr("bias", F32_ATTR).with_default("0.000000e+00 : f32"),
            optional_attr("lambd", F32_ATTR).with_default("5.000000e-01 : f32"),
        ],
    ),
    // Unary math.
    unary!("graph.erf", TENSOR_NUMERIC, same_as_input),
    unary!("graph.exp", TENSOR_FLOAT, same_as_input),
    unary!("graph.log", TENSOR_FLOAT, same_as_input),
    unary!("graph.sqrt", TENSOR_FLOAT, same_as_input),
    unary!("graph.reciprocal", TENSOR_FLOAT, same_as_input),
    unary!("graph.neg", TENSOR_SIGNED, same_as_input),
    unary!("graph.abs", TENSOR_NUMERIC, same_as_input),
    unary!("graph.sign", TENSOR_NUMERIC, same_as_input),
    unary!("graph.floor", TENSOR_FLOAT, same_as_input),
    unary!("graph.ceil", TENSOR_FLOAT, same_as_input),
    unary!("graph.round", TENSOR_FLOAT, same_as_input),
    unary!("graph.sin", TENSOR_FLOAT, same_as_input),
    unary!("graph.cos", TENSOR_FLOAT, same_as_input),
    unary!("graph.tan", TENSOR_FLOAT, same_as_input),
    unary!("graph.asin", TENSOR_FLOAT, same_as_input),
    unary!("graph.acos", TENSOR_FLOAT, same_as_input),
    unary!("graph.atan", TENSOR_FLOAT, same_as_input),
    unary!("graph.sinh", TENSOR_FLOAT, same_as_input),
    unary!("graph.cosh", TENSOR_FLOAT, same_as_input),
    unary!("graph.asinh", TENSOR_FLOAT, same_as_input),
    unary!("graph.acosh", TENSOR_FLOAT, same_as_input),
    unary!("graph.atanh", TENSOR_FLOAT, same_as_input),
    unary!("graph.not", TENSOR_BOOL, same_as_input),
    unary!("graph.identity", TENSOR_ANY, same_as_input),
    unary!(
        "graph.clip",
        TENSOR_NUMERIC,
        clip,
        &[
            optional_attr("min", SCALAR_ATTR),
            optional_attr("max", SCALAR_ATTR)
        ],
    ),
    graph_op!("graph.is_nan", predicate, {
        operands: &[operand("X", TENSOR_FLOAT)],
        results: &[operand("Y", TENSOR_BOOL)],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.is_inf", predicate, {
        operands: &[operand("X", TENSOR_FLOAT)],
        results: &[operand("Y", TENSOR_BOOL)],
        attributes: &[
            optional_attr("detect_negative", BOOL_ATTR).with_default("true"),
            optional_attr("detect_positive", BOOL_ATTR).with_default("true"),
        ],
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.cast", cast, {
        operands: &[operand("input", TENSOR_ANY)],
        results: &[operand("output", TENSOR_ANY)],
        attributes: &[attr("to", TYPE_ATTR)],
        format: Some(FUNCTIONAL),
    }),
    // Binary arithmetic with broadcasting.
    binary!(
        "graph.add",
        TENSOR_NUMERIC,
        TENSOR_NUMERIC,
        COMMUTATIVE,
        broadcast_same
    ),
    binary!(
        "graph.sub",
        TENSOR_NUMERIC,
        TENSOR_NUMERIC,
        PURE,
        broadcast_same
    ),
    binary!(
        "graph.mul",
        TENSOR_NUMERIC,
        TENSOR_NUMERIC,
        COMMUTATIVE,
        broadcast_same
    ),
    binary!(
        "graph.div",
        TENSOR_NUMERIC,
        TENSOR_NUMERIC,
        PURE,
        broadcast_same
    ),
    binary!("graph.pow", TENSOR_NUMERIC, TENSOR_NUMERIC, PURE, pow),
    binary!(
        "graph.mod",
        TENSOR_NUMERIC,
        TENSOR_NUMERIC,
        PURE,
        modulo,
        &[optional_attr("fmod", BOOL_ATTR).with_default("false")]
    ),
    graph_op!("graph.prelu", prelu, {
        operands: &[operand("X", TENSOR_SIGNED), operand("slope", TENSOR_SIGNED)],
        results: &[operand("Y", TENSOR_SIGNED)],
        format: Some(FUNCTIONAL),
    }),
    // Comparisons and logic.
    binary!("graph.equal", TENSOR_ANY, TENSOR_BOOL, COMMUTATIVE, compare),
    binary!("graph.less", TENSOR_NUMERIC, TENSOR_BOOL, PURE, compare),
    binary!(
        "graph.less_or_equal",
        TENSOR_NUMERIC,
        TENSOR_BOOL,
        PURE,
        compare
    ),
    binary!("graph.greater", TENSOR_NUMERIC, TENSOR_BOOL, PURE, compare),
    binary!(
        "graph.greater_or_equal",
        TENSOR_NUMERIC,
        TENSOR_BOOL,
        PURE,
        compare
    ),
    binary!("graph.and", TENSOR_BOOL, TENSOR_BOOL, COMMUTATIVE, compare),
    binary!("graph.or", TENSOR_BOOL, TENSOR_BOOL, COMMUTATIVE, compare),
    binary!("graph.xor", TENSOR_BOOL, TENSOR_BOOL, COMMUTATIVE, compare),
    // Bitwise.
    binary!(
        "graph.bitwise_and",
        TENSOR_INTEGER,
        TENSOR_INTEGER,
        COMMUTATIVE,
        broadcast_same
    ),
    binary!(
        "graph.bitwise_or",
        TENSOR_INTEGER,
        TENSOR_INTEGER,
        COMMUTATIVE,
        broadcast_same
    ),
    binary!(
        "graph.bitwise_xor",
        TENSOR_INTEGER,
        TENSOR_INTEGER,
        COMMUTATIVE,
        broadcast_same
    ),
    unary!("graph.bitwise_not", TENSOR_INTEGER, same_as_input),
    binary!(
        "graph.bit_shift",
        TENSOR_UNSIGNED,
        TENSOR_UNSIGNED,
        PURE,
        bit_shift,
        &[attr("direction", tb_ir::ods::constraint::STRING_ATTR)]
    ),
    graph_op!("graph.where", where_, {
        operands: &[
            operand("condition", TENSOR_BOOL),
            operand("X", TENSOR_ANY),
            operand("Y", TENSOR_ANY),
        ],
        results: &[operand("output", TENSOR_ANY)],
        format: Some(FUNCTIONAL),
    }),
    // Variadic.
    variadic_op!("graph.max", TENSOR_NUMERIC),
    variadic_op!("graph.min", TENSOR_NUMERIC),
    variadic_op!("graph.sum", TENSOR_FLOAT),
    variadic_op!("graph.mean", TENSOR_FLOAT),
];
