//! Operators whose positions are fixed by constant shapes, imported with constant index or
//! coordinate tables: AffineGrid (a matrix product of the normalized base grid with each
//! affine matrix) and Col2Im (a scatter-add of the column blocks into the padded image,
//! then the padding sliced away). Their `size` / `image_shape` / `block_shape` inputs fix
//! the result's shape, so they must be known at import time.

use tb_interpreter::Tensor;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, string_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use super::super::sizes::FOLD_BUDGET;
use crate::attribute::NodeAttrs;

fn table(shape: Vec<i64>, values: Vec<f64>) -> Result<Tensor, Problem> {
    Tensor::from_vec(shape, values).map_err(|m| Problem::invalid(m.0))
}

/// AffineGrid: `grid[n, spatial..., :] = theta[n] @ (x, y[, z], 1)` over the positions of
/// a [-1, 1] grid of `size` (pixel centers, or corners with `align_corners`).
pub fn affine_grid(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    let size = cx.constant_ints(1, "size")?;
    let theta = cx.shape(0)?.to_vec();
    let spatial = size.len().saturating_sub(2);
    if !(spatial == 2 || spatial == 3)
        || theta != [size[0], spatial as i64, spatial as i64 + 1]
        || !dtype.is_float()
    {
        return Err(Problem::invalid(format!(
            "expects a float theta [N, r, r + 1] and size [N, C, r spatial sizes] for r = 2 or \
             3, got theta {theta:?} and size {size:?}"
        )));
    }
    let align = n.attr_int_or("align_corners", 0).map_err(attr_problem)? != 0;
    let dims = &size[2..];
    let positions: i64 = dims.iter().product();
    if positions.saturating_mul(spatial as i64 + 1) > FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "a grid of {positions} positions is not supported"
        )));
    }
    let coordinate = |i: i64, len: i64| {
        if align {
            if len == 1 {
                0.0
            } else {
                -1.0 + 2.0 * i as f64 / (len - 1) as f64
            }
        } else {
            (2 * i + 1) as f64 / len as f64 - 1.0
        }
    };
    // Rows (x, y[, z], 1) in row-major order of the spatial positions; x runs along the
    // last spatial axis.
    let mut base = Vec::with_capacity((positions as usize) * (spatial + 1));
    for flat in 0..positions {
        let mut rest = flat;
        let mut index = vec![0; spatial];
        for a in (0..spatial).rev() {
            index[a] = rest % dims[a];
            rest /= dims[a];
        }
        for a in (0..spatial).rev() {
            base.push(coordinate(index[a], dims[a]));
        }
        base.push(1.0);
    }
    let base = table(vec![positions, spatial as i64 + 1], base)?.cast(dtype);
    let mut e = Expander::new(n);
    let base = e.constant(base);
    let theta_t = e.op(
        "Transpose",
        &[&n.input[0]],
        vec![ints_attr("perm", &[0, 2, 1])],
    );
    let grid = e.op("MatMul", &[&base, &theta_t], vec![]);
    let mut out = vec![size[0]];
    out.extend_from_slice(dims);
    out.push(spatial as i64);
    let out = e.ints(&out);
    e.op_to("Reshape", &[&grid, &out], vec![], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}

/// Col2Im: column `k * L + l` of each channel (block offset k, block l) is added into the
/// padded image at `l`'s block origin (strides) plus `k`'s offset (dilations).
pub fn col2im(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let image = cx.constant_ints(1, "image_shape")?;
    let block = cx.constant_ints(2, "block_shape")?;
    let r = image.len();
    let input = cx.shape(0)?.to_vec();
    let ones = vec![1; r];
    let dilations = n
        .attr_ints("dilations")
        .map_err(attr_problem)?
        .unwrap_or(ones.clone());
    let strides = n
        .attr_ints("strides")
        .map_err(attr_problem)?
        .unwrap_or(ones);
    let pads = n
        .attr_ints("pads")
        .map_err(attr_problem)?
        .unwrap_or(vec![0; 2 * r]);
    let block_size: i64 = block.iter().product();
    let bad = r == 0
        || block.len() != r
        || dilations.len() != r
        || strides.len() != r
        || pads.len() != 2 * r
        || input.len() != 3
        || block
            .iter()
            .chain(&image)
            .chain(&strides)
            .chain(&dilations)
            .any(|&v| v <= 0)
        || pads.iter().any(|&p| p < 0)
        || input[1] % block_size != 0;
    if bad {
        return Err(Problem::invalid(format!(
            "inconsistent Col2Im: input {input:?}, image_shape {image:?}, block_shape \
             {block:?}, strides {strides:?}, dilations {dilations:?}, pads {pads:?}"
        )));
    }
    let padded: Vec<i64> = (0..r).map(|a| image[a] + pads[a] + pads[r + a]).collect();
    let blocks: Vec<i64> = (0..r)
        .map(|a| (padded[a] - dilations[a] * (block[a] - 1) - 1) / strides[a] + 1)
        .collect();
    let count: i64 = blocks.iter().product();
    if blocks.iter().any(|&b| b <= 0) || count != input[2] {
        return Err(Problem::invalid(format!(
            "the input holds {} blocks, the image and block shapes make {count}",
            input[2]
        )));
    }
    let columns = block_size * count;
    if columns > FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "Col2Im of {columns} columns per channel is not supported"
        )));
    }
    let unflatten = |mut flat: i64, dims: &[i64]| {
        let mut index = vec![0; dims.len()];
        for a in (0..dims.len()).rev() {
            index[a] = flat % dims[a];
            flat /= dims[a];
        }
        index
    };
    let mut targets = Vec::with_capacity(columns as usize);
    for k in 0..block_size {
        let offset = unflatten(k, &block);
        for l in 0..count {
            let origin = unflatten(l, &blocks);
            let mut flat = 0;
            for a in 0..r {
                flat = flat * padded[a] + origin[a] * strides[a] + offset[a] * dilations[a];
            }
            targets.push(flat);
        }
    }
    let (batch, channels) = (input[0], input[1] / block_size);
    let pixels: i64 = padded.iter().product();
    let mut e = Expander::new(n);
    let targets =
        Tensor::from_vec(vec![1, 1, columns], targets).map_err(|m| Problem::invalid(m.0))?;
    let targets = e.constant(targets);
    let full = e.ints(&[batch, channels, columns]);
    let targets = e.op("Expand", &[&targets, &full], vec![]);
    let values = e.op("Reshape", &[&n.input[0], &full], vec![]);
    let dtype = cx.input(0)?.dtype;
    let zeros = Tensor::from_vec(vec![1], vec![0.0]).map_err(|m| Problem::invalid(m.0))?;
    let zero = e.constant(zeros.cast(dtype));
    // The scatter's indices may not be longer than its data: a canvas of at least
    // `columns` pixels, cut back to the image's after the scatter.
    let canvas_shape = e.ints(&[batch, channels, pixels.max(columns)]);
    let canvas = e.op("Expand", &[&zero, &canvas_shape], vec![]);
    let summed = e.op(
        "ScatterElements",
        &[&canvas, &targets, &values],
        vec![int_attr("axis", 2), string_attr("reduction", "add")],
    );
    let summed = if columns > pixels {
        let (s, en, ax) = (e.ints(&[0]), e.ints(&[pixels]), e.ints(&[2]));
        e.op("Slice", &[&summed, &s, &en, &ax], vec![])
    } else {
        summed
    };
    let mut image_view = vec![batch, channels];
    image_view.extend_from_slice(&padded);
    let image_view = e.ints(&image_view);
    let summed = e.op("Reshape", &[&summed, &image_view], vec![]);
    let axes: Vec<i64> = (2..2 + r as i64).collect();
    let starts: Vec<i64> = pads[..r].to_vec();
    let ends: Vec<i64> = (0..r).map(|a| pads[a] + image[a]).collect();
    let (s, en, ax) = (e.ints(&starts), e.ints(&ends), e.ints(&axes));
    e.op_to("Slice", &[&summed, &s, &en, &ax], vec![], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}
