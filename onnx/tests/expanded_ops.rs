//! Operators imported as expansions into graph ops (losses, quantization, recurrent cells,
//! signal and sampling ops): what they refuse is a located error naming the node, never a
//! panic. Their numerics are checked against ONNX's expected outputs by the conformance
//! suite (`tests/conformance.rs`), interpreted and compiled.

mod common;

use common::builder::*;
use tb_onnx::proto::tensor_proto::DataType;

fn string_attr(name: &str, v: &str) -> tb_onnx::proto::AttributeProto {
    tb_onnx::proto::AttributeProto {
        name: name.into(),
        r#type: tb_onnx::proto::attribute_proto::AttributeType::String as i32,
        s: v.as_bytes().to_vec(),
        ..Default::default()
    }
}

#[test]
fn lstm_imports_unrolled_over_the_sequence() {
    let lstm = with_attr(
        node("LSTM", "cell", &["x", "w", "r"], &["y", "y_h"]),
        attr_int("hidden_size", 2),
    );
    let m = model(
        22,
        vec![lstm],
        vec![
            float("x", &[3, 1, 2]),
            float("w", &[1, 8, 2]),
            float("r", &[1, 8, 2]),
        ],
        vec![float("y", &[3, 1, 1, 2]), float("y_h", &[1, 1, 2])],
        vec![],
    );
    let text = imported_text(m, true);
    // One recurrent product per time step.
    assert_eq!(text.matches("graph.matmul").count(), 1 + 3, "{text}");
}

#[test]
fn rnn_with_shorter_sequence_lengths_is_refused_at_the_node() {
    let rnn = with_attr(
        node("RNN", "rnn0", &["x", "w", "r", "", "lens"], &["y"]),
        attr_int("hidden_size", 2),
    );
    let m = model(
        22,
        vec![rnn],
        vec![
            float("x", &[3, 2, 2]),
            float("w", &[1, 2, 2]),
            float("r", &[1, 2, 2]),
        ],
        vec![float("y", &[3, 1, 2, 2])],
        vec![tb_onnx::proto::TensorProto {
            name: "lens".into(),
            data_type: DataType::Int32 as i32,
            dims: vec![2],
            int32_data: vec![3, 1],
            ..Default::default()
        }],
    );
    let err = import_error(m);
    assert!(err.contains("RNN node 'rnn0'"), "{err}");
    assert!(
        err.contains("sequence_lens [3, 1] shorter than the sequence (3)"),
        "{err}"
    );
}

#[test]
fn compress_with_a_run_time_condition_names_the_node() {
    let compress = with_attr(
        node("Compress", "pick", &["x", "c"], &["y"]),
        attr_int("axis", 0),
    );
    let m = model(
        13,
        vec![compress],
        vec![float("x", &[3, 2]), typed("c", DataType::Bool, &[3])],
        vec![float("y", &[2, 2])],
        vec![],
    );
    let err = import_error(m);
    assert!(err.contains("Compress node 'pick'"), "{err}");
    assert!(err.contains("computed at run time"), "{err}");
}

#[test]
fn loss_target_of_the_wrong_shape_is_an_error_at_the_node() {
    let nll = with_attr(
        node("NegativeLogLikelihoodLoss", "nll", &["x", "t"], &["loss"]),
        string_attr("reduction", "none"),
    );
    let m = model(
        22,
        vec![nll],
        vec![float("x", &[2, 3]), typed("t", DataType::Int64, &[3])],
        vec![float("loss", &[2])],
        vec![],
    );
    let err = import_error(m);
    assert!(
        err.contains("NegativeLogLikelihoodLoss node 'nll'"),
        "{err}"
    );
    assert!(
        err.contains("must be the input's without the class axis, [2]"),
        "{err}"
    );
}

#[test]
fn quantization_to_int32_is_unsupported_at_the_node() {
    let q = node("QuantizeLinear", "q", &["x", "s", "zp"], &["y"]);
    let m = model(
        21,
        vec![q],
        vec![float("x", &[4])],
        vec![typed("y", DataType::Int32, &[4])],
        vec![
            floats("s", &[], &[0.5]),
            tb_onnx::proto::TensorProto {
                name: "zp".into(),
                data_type: DataType::Int32 as i32,
                int32_data: vec![0],
                ..Default::default()
            },
        ],
    );
    let err = import_error(m);
    assert!(err.contains("QuantizeLinear node 'q'"), "{err}");
    assert!(
        err.contains("quantization to i32 is not supported"),
        "{err}"
    );
}
