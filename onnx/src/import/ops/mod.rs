//! Per-operator converters, one file per family. [`convert`] dispatches on the ONNX
//! operator; `None` means the graph dialect has no op for it.

mod attention;
mod causal_conv;
mod composite;
mod control_flow;
mod det;
mod dft;
mod gathers;
mod generators;
mod grid_sample;
mod linear_attention;
mod loss;
mod max_unpool;
mod narrow_cast;
mod normalization;
mod positional;
mod quantize;
mod recurrent;
mod reduce;
mod resize;
mod rotary;
mod shape_inputs;
mod simple;
mod spatial_maps;

use super::error::Problem;
use super::node::{Lowering, NodeCx};

/// Converts the node, or `None` for an unsupported operator.
pub fn convert(cx: &mut NodeCx) -> Option<Result<Lowering, Problem>> {
    let op = cx.node.op_type.as_str();
    if op == "Cast" {
        return Some(narrow_cast::cast(cx));
    }
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
        "CastLike" => narrow_cast::cast_like,
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
        "NegativeLogLikelihoodLoss" => loss::negative_log_likelihood_loss,
        "SoftmaxCrossEntropyLoss" => loss::softmax_cross_entropy_loss,
        "CumSum" => positional::cum_sum,
        "Det" => det::det,
        "MaxUnpool" => max_unpool::max_unpool,
        "AffineGrid" => spatial_maps::affine_grid,
        "Col2Im" => spatial_maps::col2im,
        "GridSample" => grid_sample::grid_sample,
        "DFT" => dft::dft,
        "LinearAttention" => linear_attention::linear_attention,
        "CausalConvWithState" => causal_conv::causal_conv_with_state,
        "RotaryEmbedding" => rotary::rotary_embedding,
        "RNN" => recurrent::rnn,
        "GRU" => recurrent::gru,
        "LSTM" => recurrent::lstm,
        "CenterCropPad" => composite::center_crop_pad,
        "CumProd" => composite::cum_prod,
        "EyeLike" => generators::eye_like,
        "HannWindow" => generators::window,
        "HammingWindow" => generators::window,
        "BlackmanWindow" => generators::window,
        "ReverseSequence" => gathers::reverse_sequence,
        "Compress" => gathers::compress,
        "QuantizeLinear" => quantize::quantize_linear,
        "DequantizeLinear" => quantize::dequantize_linear,
        "DynamicQuantizeLinear" => quantize::dynamic_quantize_linear,
        "MatMulInteger" => quantize::matmul_integer,
        "ConvInteger" => quantize::conv_integer,
        "QLinearMatMul" => quantize::qlinear_matmul,
        "QLinearConv" => quantize::qlinear_conv,
        "TopK" => positional::top_k,
        "MaxPool" => normalization::max_pool,
        "BatchNormalization" => normalization::batch_norm,
        "LayerNormalization" => normalization::layer_norm,
        "Attention" => attention::attention,
        "If" => control_flow::if_,
        "Loop" => control_flow::loop_,
        "Scan" => control_flow::scan,
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
        "NegativeLogLikelihoodLoss",
        "SoftmaxCrossEntropyLoss",
        "CumSum",
        "Det",
        "MaxUnpool",
        "AffineGrid",
        "Col2Im",
        "GridSample",
        "DFT",
        "LinearAttention",
        "CausalConvWithState",
        "RotaryEmbedding",
        "RNN",
        "GRU",
        "LSTM",
        "CenterCropPad",
        "CumProd",
        "EyeLike",
        "HannWindow",
        "HammingWindow",
        "BlackmanWindow",
        "ReverseSequence",
        "Compress",
        "QuantizeLinear",
        "DequantizeLinear",
        "DynamicQuantizeLinear",
        "MatMulInteger",
        "ConvInteger",
        "QLinearMatMul",
        "QLinearConv",
        "TopK",
        "MaxPool",
        "BatchNormalization",
        "LayerNormalization",
        "Attention",
        "If",
        "Loop",
        "Scan",
    ]);
    ops.sort_unstable();
    ops
}
