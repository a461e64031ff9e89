//! Per-operator converters, one file per family. [`convert`] dispatches on the ONNX
//! operator; `None` means the graph dialect has no op for it.

mod attention;
mod composite;
mod generators;
mod normalization;
mod positional;
mod reduce;
mod resize;
mod shape_inputs;
mod simple;

use super::error::Problem;
use super::node::{Lowering, NodeCx};

/// Converts the node, or `None` for an unsupported operator.
pub fn convert(cx: &mut NodeCx) -> Option<Result<Lowering, Problem>> {
    let op = cx.node.op_type.as_str();
    if let Some(name) = simple::graph_name(op) {
        return Some(simple::convert(cx, name));
    }
    let f: fn(&mut NodeCx) -> Result<Lowering, Problem> = match op {
        "Constant" => generators::constant,
        "ConstantOfShape" => generators::constant_of_shape,
        "Range" => generators::range,
        "Shape" => generators::shape,
        "Size" => generators::size,
        "Identity" => generators::identity,
        "Dropout" => generators::dropout,
        "Reshape" => shape_inputs::reshape,
        "Expand" => shape_inputs::expand,
        "Slice" => shape_inputs::slice,
        "Pad" => shape_inputs::pad,
        "Squeeze" => shape_inputs::squeeze,
        "Unsqueeze" => shape_inputs::unsqueeze,
        "Split" => shape_inputs::split,
        "Tile" => shape_inputs::tile,
        "Clip" => simple::clip,
        "CastLike" => simple::cast_like,
        "Softmax" | "LogSoftmax" | "Hardmax" => simple::softmax,
        "Trilu" => positional::trilu,
        "Resize" | "Upsample" => resize::resize,
        "RMSNormalization" => composite::rms_normalization,
        "MeanVarianceNormalization" => composite::mean_variance_normalization,
        "LpNormalization" => composite::lp_normalization,
        "GroupNormalization" => composite::group_normalization,
        "LRN" => composite::lrn,
        "LpPool" => composite::lp_pool,
        "OneHot" => composite::one_hot,
        "CumSum" => positional::cum_sum,
        "TopK" => positional::top_k,
        "MaxPool" => normalization::max_pool,
        "BatchNormalization" => normalization::batch_norm,
        "LayerNormalization" => normalization::layer_norm,
        "Attention" => attention::attention,
        _ => {
            let name = reduce::graph_name(op)?;
            return Some(reduce::reduce(cx, name));
        }
    };
    Some(f(cx))
}

/// Every ONNX operator with a converter, for documentation and tests.
pub fn supported_operators() -> Vec<&'static str> {
    let mut ops: Vec<&'static str> = simple::OPS.iter().map(|(o, _)| *o).collect();
    ops.extend(reduce::OPS.iter().map(|(o, _)| *o));
    ops.extend([
        "Constant",
        "ConstantOfShape",
        "Range",
        "Shape",
        "Size",
        "Identity",
        "Dropout",
        "Reshape",
        "Expand",
        "Slice",
        "Pad",
        "Squeeze",
        "Unsqueeze",
        "Split",
        "Tile",
        "Clip",
        "CastLike",
        "Softmax",
        "LogSoftmax",
        "Hardmax",
        "Trilu",
        "Resize",
        "Upsample",
        "RMSNormalization",
        "MeanVarianceNormalization",
        "LpNormalization",
        "GroupNormalization",
        "LRN",
        "LpPool",
        "OneHot",
        "CumSum",
        "TopK",
        "MaxPool",
        "BatchNormalization",
        "LayerNormalization",
        "Attention",
    ]);
    ops.sort_unstable();
    ops
}
