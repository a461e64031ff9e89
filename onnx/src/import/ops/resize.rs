//! Resize (opsets 10–19) and Upsample: the output size and the per-axis scales the
//! coordinate transformation uses are fixed here, from `scales` or `sizes` (which must be
//! known at import time), `axes` and `keep_aspect_ratio_policy`; `roi` for
//! `tf_crop_and_resize`. Upsample and Resize before opset 11 map coordinates
//! asymmetrically and round nearest samples down, as their specifications say.

use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::float::bits_from_f64;
use tb_ir::{Attr, Context, FloatKind};

use super::super::attrs::ints_attr;
use super::super::error::Problem;
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

fn floats_attr(ctx: &mut Context, v: &[f64]) -> Attr {
    let element = ctx.float_type(FloatKind::F64);
    let bits = v
        .iter()
        .map(|&x| bits_from_f64(FloatKind::F64, x).unwrap_or_default())
        .collect();
    ctx.intern_attr(AttrKind::DenseArray {
        element,
        data: DenseArrayData::Float(bits),
    })
}

/// The values of optional input `i` as f64s; `None` when absent or empty (opsets 11–12
/// pass an empty tensor for "not given").
fn optional_floats(cx: &NodeCx, i: usize, what: &str) -> Result<Option<Vec<f64>>, Problem> {
    if !cx.has_input(i) || cx.shape(i)?.contains(&0) {
        return Ok(None);
    }
    let t = cx.constant(i, what)?;
    Ok(t.cast(tb_interpreter::DType::F64)
        .as_slice::<f64>()
        .map(<[f64]>::to_vec))
}

pub fn resize(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let shape = cx.shape(0)?.to_vec();
    let rank = shape.len();
    let n = cx.node;
    let legacy = n.op_type == "Upsample" || cx.opset < 11;
    let (roi_input, scales_input, sizes_input) = if legacy {
        (None, 1, None)
    } else {
        (Some(1), 2, Some(3))
    };
    let coordinate = if legacy {
        "asymmetric".to_string()
    } else {
        n.attr_string_or("coordinate_transformation_mode", "half_pixel")
            .map_err(attr_problem)?
    };
    let axes: Vec<usize> = match n.attr_ints("axes").map_err(attr_problem)? {
        None => (0..rank).collect(),
        Some(axes) => axes
            .iter()
            .map(|&a| {
                let r = rank as i64;
                if a < -r || a >= r {
                    Err(Problem::invalid(format!(
                        "axis {a} is out of range for rank {rank}"
                    )))
                } else {
                    Ok(if a < 0 { a + r } else { a } as usize)
                }
            })
            .collect::<Result<_, _>>()?,
    };
    let scales_given = match n.attr_floats("scales").map_err(attr_problem)? {
        Some(s) => Some(s.iter().map(|&v| f64::from(v)).collect()),
        None if n.op_type == "Upsample" && cx.opset < 9 => None,
        None => optional_floats(cx, scales_input, "scales")?,
    };
    let sizes_given = match sizes_input {
        Some(i) if cx.has_input(i) && !cx.shape(i)?.contains(&0) => {
            Some(cx.constant_ints(i, "sizes")?)
        }
        _ => None,
    };
    let roi = match roi_input {
        Some(i) if coordinate == "tf_crop_and_resize" => optional_floats(cx, i, "roi")?,
        _ => None,
    };
    // The roi over the resized axes, widened to every axis (starts, then ends).
    let roi = match roi {
        Some(r) if r.len() == 2 * axes.len() => {
            let mut full: Vec<f64> = vec![0.0; rank];
            full.extend(vec![1.0; rank]);
            for (k, &a) in axes.iter().enumerate() {
                full[a] = r[k];
                full[rank + a] = r[axes.len() + k];
            }
            Some(full)
        }
        Some(r) => {
            return Err(Problem::invalid(format!(
                "roi must hold {} numbers, got {}",
                2 * axes.len(),
                r.len()
            )));
        }
        None => None,
    };
    let mut scales = vec![1.0; rank];
    let mut sizes = shape.clone();
    match (scales_given, sizes_given) {
        (Some(s), None) => {
            if s.len() != axes.len() {
                return Err(Problem::invalid(format!(
                    "scales must hold {} numbers, got {}",
                    axes.len(),
                    s.len()
                )));
            }
            for (k, &a) in axes.iter().enumerate() {
                if !(s[k] > 0.0 && s[k].is_finite()) {
                    return Err(Problem::invalid(format!(
                        "scales must be positive, got {s:?}"
                    )));
                }
                scales[a] = s[k];
                // As ONNX's reference: the roi does not change the output size.
                sizes[a] = (shape[a] as f64 * s[k]).floor() as i64;
            }
        }
        (None, Some(z)) => {
            if z.len() != axes.len() || z.iter().any(|&d| d < 0) {
                return Err(Problem::invalid(format!(
                    "sizes must hold {} non-negative sizes, got {z:?}",
                    axes.len()
                )));
            }
            let ratio = |k: usize| z[k] as f64 / shape[axes[k]] as f64;
            let policy = n
                .attr_string_or("keep_aspect_ratio_policy", "stretch")
                .map_err(attr_problem)?;
            let common = match policy.as_str() {
                "stretch" => None,
                "not_larger" => Some((0..axes.len()).map(ratio).fold(f64::INFINITY, f64::min)),
                "not_smaller" => Some((0..axes.len()).map(ratio).fold(0.0, f64::max)),
                other => {
                    return Err(Problem::invalid(format!(
                        "keep_aspect_ratio_policy \"{other}\" is not one of \"stretch\", \
                         \"not_larger\", \"not_smaller\""
                    )));
                }
            };
            for (k, &a) in axes.iter().enumerate() {
                match common {
                    None => {
                        scales[a] = ratio(k);
                        sizes[a] = z[k];
                    }
                    Some(s) => {
                        scales[a] = s;
                        sizes[a] = (s * shape[a] as f64 + 0.5).floor() as i64;
                    }
                }
            }
        }
        (Some(_), Some(_)) => {
            return Err(Problem::invalid(
                "only one of 'scales' and 'sizes' may be given",
            ));
        }
        (None, None) => {
            return Err(Problem::invalid("one of 'scales' and 'sizes' is required"));
        }
    }
    if scales.iter().any(|&s| !(s > 0.0 && s.is_finite())) {
        return Err(Problem::invalid(format!(
            "the input's shape {shape:?} gives the scales {scales:?}, which are not all positive"
        )));
    }
    let mut attrs = cx.attrs(
        "graph.resize",
        &[
            "axes",
            "keep_aspect_ratio_policy",
            "scales",
            "coordinate_transformation_mode",
            "nearest_mode",
        ],
    );
    let nearest = if legacy {
        "floor".to_string()
    } else {
        n.attr_string_or("nearest_mode", "round_prefer_floor")
            .map_err(attr_problem)?
    };
    let ctx = &mut *cx.ctx;
    attrs.push((
        "coordinate_transformation_mode".into(),
        ctx.string_attr(&coordinate),
    ));
    attrs.push(("nearest_mode".into(), ctx.string_attr(&nearest)));
    attrs.push(("sizes".into(), ints_attr(ctx, &sizes)));
    attrs.push(("scales".into(), floats_attr(ctx, &scales)));
    if let Some(r) = roi {
        attrs.push(("roi".into(), floats_attr(ctx, &r)));
    }
    Ok(cx.plan("graph.resize", vec![0], attrs))
}
