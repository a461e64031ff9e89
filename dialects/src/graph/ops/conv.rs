//! Convolutions: `graph.conv` and `graph.conv_transpose`, with ONNX's window attributes
//! (`auto_pad`, `dilations`, `group`, `kernel_shape`, `pads`, `strides`) and an optional bias.
//! `graph.conv` also takes i32/i64 tensors: the integer sums of ConvInteger and QLinearConv.

use tb_ir::ods::{AttrDef, OpDef, operand, optional, optional_attr};

use super::FUNCTIONAL;
use crate::graph::attrs::{Attrs, DENSE_I64_ARRAY_ATTR, I64_ATTR, STRING_ATTR};
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op, shape_err};
use crate::graph::shape::{self, AutoPad, ConvAttrs, ConvTransposeAttrs};
use crate::graph::types::{TENSOR_FLOAT, TENSOR_FLOAT_OR_WIDE_INT};

/// `auto_pad`, `dilations`, `kernel_shape`, `pads`, `strides` as ONNX declares them.
pub(super) const WINDOW_ATTRS: [AttrDef; 5] = [
    optional_attr("auto_pad", STRING_ATTR).with_default("\"NOTSET\""),
    optional_attr("dilations", DENSE_I64_ARRAY_ATTR),
    optional_attr("kernel_shape", DENSE_I64_ARRAY_ATTR),
    optional_attr("pads", DENSE_I64_ARRAY_ATTR),
    optional_attr("strides", DENSE_I64_ARRAY_ATTR),
];

const GROUP: AttrDef = optional_attr("group", I64_ATTR).with_default("1 : i64");

/// Reads `auto_pad`.
pub(super) fn auto_pad(a: &Attrs) -> Result<AutoPad, String> {
    let text = a.choice("auto_pad", &["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])?;
    AutoPad::parse(&text)
}

/// Conv's window attributes, with ONNX defaults (shared with the interpreter).
pub fn conv_attrs(a: &Attrs) -> Result<ConvAttrs, String> {
    Ok(ConvAttrs {
        kernel_shape: a.ints("kernel_shape")?,
        strides: a.ints("strides")?.unwrap_or_default(),
        pads: a.ints("pads")?.unwrap_or_default(),
        dilations: a.ints("dilations")?.unwrap_or_default(),
        group: a.i64("group")?,
        auto_pad: auto_pad(a)?,
    })
}

fn conv(i: &RuleInput) -> RuleResult {
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)?;
    let bias = i.opt_arg(2).map(|b| b.shape.as_slice());
    let out = shape::conv(
        &i.arg(0).shape,
        &i.arg(1).shape,
        bias,
        &conv_attrs(&i.attrs)?,
    )
    .map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

/// ConvTranspose's attributes, with ONNX defaults (shared with the interpreter).
pub fn conv_transpose_attrs(a: &Attrs) -> Result<ConvTransposeAttrs, String> {
    Ok(ConvTransposeAttrs {
        conv: conv_attrs(a)?,
        output_padding: a.ints("output_padding")?.unwrap_or_default(),
        output_shape: a.ints("output_shape")?,
    })
}

fn conv_transpose(i: &RuleInput) -> RuleResult {
    let all: Vec<usize> = (0..i.operands.len()).collect();
    i.same_element(&all)?;
    let attrs = conv_transpose_attrs(&i.attrs)?;
    let bias = i.opt_arg(2).map(|b| b.shape.as_slice());
    let out =
        shape::conv_transpose(&i.arg(0).shape, &i.arg(1).shape, bias, &attrs).map_err(shape_err)?;
    Ok(vec![Inferred::with_shape(out, i.arg(0))])
}

const CONV_ATTRS: &[AttrDef] = &[
    WINDOW_ATTRS[0],
    WINDOW_ATTRS[1],
    GROUP,
    WINDOW_ATTRS[2],
    WINDOW_ATTRS[3],
    WINDOW_ATTRS[4],
];

const CONV_TRANSPOSE_ATTRS: &[AttrDef] = &[
    WINDOW_ATTRS[0],
    WINDOW_ATTRS[1],
    GROUP,
    WINDOW_ATTRS[2],
    optional_attr("output_padding", DENSE_I64_ARRAY_ATTR),
    optional_attr("output_shape", DENSE_I64_ARRAY_ATTR),
    WINDOW_ATTRS[3],
    WINDOW_ATTRS[4],
];

pub(super) static DEFS: &[OpDef] = &[
    graph_op!("graph.conv", conv, {
        operands: &[
            operand("X", TENSOR_FLOAT_OR_WIDE_INT),
            operand("W", TENSOR_FLOAT_OR_WIDE_INT),
            optional("B", TENSOR_FLOAT_OR_WIDE_INT),
        ],
        results: &[operand("Y", TENSOR_FLOAT_OR_WIDE_INT)],
        attributes: CONV_ATTRS,
        format: Some(FUNCTIONAL),
    }),
    graph_op!("graph.conv_transpose", conv_transpose, {
        operands: &[
            operand("X", TENSOR_FLOAT),
            operand("W", TENSOR_FLOAT),
            optional("B", TENSOR_FLOAT),
        ],
        results: &[operand("Y", TENSOR_FLOAT)],
        attributes: CONV_TRANSPOSE_ATTRS,
        format: Some(FUNCTIONAL),
    }),
];
