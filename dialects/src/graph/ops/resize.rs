//! `graph.resize`: ONNX Resize (and Upsample). The importer fixes the output `sizes` and
//! the per-axis `scales` the coordinate transformation uses (from ONNX's `scales` or
//! `sizes` input, with `axes` and `keep_aspect_ratio_policy` applied), and `roi` for
//! `tf_crop_and_resize`; the other attributes keep ONNX's names and defaults.

use tb_ir::ods::{OpDef, attr, operand, optional_attr};

use super::FUNCTIONAL;
use crate::graph::attrs::{
    Attrs, BOOL_ATTR, DENSE_F64_ARRAY_ATTR, DENSE_I64_ARRAY_ATTR, F32_ATTR, STRING_ATTR,
};
use crate::graph::infer::{Inferred, RuleInput, RuleResult, graph_op};
use crate::graph::types::TENSOR_NUMERIC;
use tb_tensor::kernels::resize::{CoordinateMode, NearestMode, ResizeAttrs, ResizeMode};

const MODES: &[&str] = &["nearest", "linear", "cubic"];
const COORDINATE_MODES: &[&str] = &[
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
];
const NEAREST_MODES: &[&str] = &["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];

/// Resize's attributes as the kernel takes them (shared with the interpreter and the
/// lowering), checked: one scale per axis, all positive, `roi` two values per axis.
pub fn resize_attrs(a: &Attrs, rank: usize) -> Result<ResizeAttrs, String> {
    let parse_err = |what: &str| format!("unknown {what}");
    let mode = ResizeMode::parse(&a.choice("mode", MODES)?).ok_or_else(|| parse_err("mode"))?;
    let coordinate =
        CoordinateMode::parse(&a.choice("coordinate_transformation_mode", COORDINATE_MODES)?)
            .ok_or_else(|| parse_err("coordinate_transformation_mode"))?;
    let nearest = NearestMode::parse(&a.choice("nearest_mode", NEAREST_MODES)?)
        .ok_or_else(|| parse_err("nearest_mode"))?;
    let scales = a.floats("scales")?.ok_or("requires attribute 'scales'")?;
    if scales.len() != rank || scales.iter().any(|&s| !(s > 0.0 && s.is_finite())) {
        return Err(format!(
            "scales must be {rank} positive numbers, got {scales:?}"
        ));
    }
    let roi = a.floats("roi")?.unwrap_or_default();
    if !roi.is_empty() && roi.len() != 2 * rank {
        return Err(format!(
            "roi must hold {} numbers (starts, then ends), got {}",
            2 * rank,
            roi.len()
        ));
    }
    Ok(ResizeAttrs {
        mode,
        coordinate,
        nearest,
        cubic_coeff_a: a.f64("cubic_coeff_a")?,
        exclude_outside: a.bool("exclude_outside")?,
        extrapolation_value: a.f64("extrapolation_value")?,
        antialias: a.bool("antialias")?,
        scales,
        roi,
    })
}

fn resize(i: &RuleInput) -> RuleResult {
    let x = i.arg(0);
    let attrs = resize_attrs(&i.attrs, x.shape.len())?;
    let sizes = i.attrs.required_ints("sizes")?;
    if sizes.len() != x.shape.len() || sizes.iter().any(|&d| d < 0) {
        return Err(format!(
            "sizes must be {} non-negative sizes, got {sizes:?}",
            x.shape.len()
        ));
    }
    let float = i.kind(x.element).is_some_and(|k| k.is_float());
    if attrs.mode != ResizeMode::Nearest && !float {
        return Err("linear and cubic modes require a floating-point operand".into());
    }
    Ok(vec![Inferred::with_shape(sizes, x)])
}

pub(super) static DEFS: &[OpDef] = &[graph_op!("graph.resize", resize, {
    operands: &[operand("X", TENSOR_NUMERIC)],
    results: &[operand("Y", TENSOR_NUMERIC)],
    attributes: &[
        attr("sizes", DENSE_I64_ARRAY_ATTR),
        attr("scales", DENSE_F64_ARRAY_ATTR),
        optional_attr("roi", DENSE_F64_ARRAY_ATTR),
        optional_attr("mode", STRING_ATTR).with_default("\"nearest\""),
        optional_attr("coordinate_transformation_mode", STRING_ATTR)
            .with_default("\"half_pixel\""),
        optional_attr("nearest_mode", STRING_ATTR).with_default("\"round_prefer_floor\""),
        optional_attr("cubic_coeff_a", F32_ATTR).with_default("-7.500000e-01 : f32"),
        optional_attr("exclude_outside", BOOL_ATTR).with_default("false"),
        optional_attr("extrapolation_value", F32_ATTR).with_default("0.000000e+00 : f32"),
        optional_attr("antialias", BOOL_ATTR).with_default("false"),
    ],
    format: Some(FUNCTIONAL),
})];
