//! What exporters write that a strict reading would refuse, read as onnxruntime reads it:
//! a declared dimension of -1 is unknown and a declared 0 takes the size `--input-shape`
//! gives; symbolic dimensions are one size across inputs; unused initializers and declared
//! types that disagree with inference are warnings.

mod common;

use std::collections::HashMap;

use common::builder::*;
use tb_onnx::import::{ImportError, ImportOptions, Imported, import_model};
use tb_onnx::proto::tensor_proto::DataType;
use tb_onnx::proto::tensor_shape_proto::{Dimension, dimension};
use tb_onnx::proto::{ModelProto, ValueInfoProto};
use tb_onnx::{Dim, Model, tensor_type};

/// A `FLOAT` value whose dimensions are numbers (`"-1"`, `"3"`) or symbols (`"N"`).
fn declared(name: &str, dims: &[&str]) -> ValueInfoProto {
    let mut info = float(name, &[]);
    let Some(tb_onnx::proto::type_proto::Value::TensorType(t)) =
        info.r#type.as_mut().and_then(|t| t.value.as_mut())
    else {
        unreachable!("float() builds a tensor type")
    };
    t.shape.as_mut().unwrap().dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d.parse::<i64>() {
                Ok(n) => dimension::Value::DimValue(n),
                Err(_) => dimension::Value::DimParam(d.to_string()),
            }),
            ..Default::default()
        })
        .collect();
    info
}

fn import_with(proto: ModelProto, shapes: &[(&str, &[i64])]) -> Result<Imported, ImportError> {
    let model = Model::new(proto, None).unwrap();
    let options = ImportOptions {
        input_shapes: shapes
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_vec()))
            .collect::<HashMap<_, _>>(),
        warnings_to_stderr: false,
        ..ImportOptions::default()
    };
    import_model(&model, &options)
}

/// The types of the imported function's arguments, as text.
fn argument_types(imported: &Imported) -> Vec<String> {
    let ctx = &imported.ctx;
    let module_block = ctx.region(ctx.op(imported.module).regions[0]).blocks[0];
    let func = ctx.block_ops(module_block).next().expect("one function");
    let body = ctx.region(ctx.op(func).regions[0]).blocks[0];
    ctx.block(body)
        .args
        .iter()
        .map(|&v| tb_ir::printer::type_to_string(ctx, ctx.value_type(v)))
        .collect()
}

fn relu(input: ValueInfoProto, output: ValueInfoProto) -> ModelProto {
    model(
        17,
        vec![node("Relu", "r", &["x"], &["y"])],
        vec![input],
        vec![output],
        vec![],
    )
}

fn add(x: ValueInfoProto, y: ValueInfoProto, z: ValueInfoProto) -> ModelProto {
    model(
        17,
        vec![node("Add", "a", &["x", "y"], &["z"])],
        vec![x, y],
        vec![z],
        vec![],
    )
}

#[test]
fn a_minus_one_dimension_is_unknown() {
    let t = tensor_type(&declared("x", &["-1", "3"])).unwrap();
    assert_eq!(t.shape, Some(vec![Dim::Unknown, Dim::Known(3)]));
}

#[test]
fn a_minus_one_input_dimension_needs_input_shape() {
    let m = relu(declared("x", &["-1", "3"]), declared("y", &["-1", "3"]));
    let e = import_with(m.clone(), &[])
        .err()
        .expect("unfixed")
        .to_string();
    assert!(
        e.contains("graph input 'x': has dynamic shape [?, 3]; fix it with --input-shape x="),
        "{e}"
    );
    let imported = import_with(m, &[("x", &[2, 3])]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(argument_types(&imported), ["tensor<2x3xf32>"]);
}

#[test]
fn a_zero_input_dimension_takes_the_given_size() {
    let m = relu(declared("x", &["0", "3"]), declared("y", &["0", "3"]));
    let imported = import_with(m.clone(), &[("x", &[4, 3])]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(argument_types(&imported), ["tensor<4x3xf32>"]);
    let imported = import_with(m, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(argument_types(&imported), ["tensor<0x3xf32>"]);
}

#[test]
fn a_known_input_dimension_must_match_the_given_size() {
    let m = relu(declared("x", &["2", "3"]), declared("y", &["2", "3"]));
    let e = import_with(m, &[("x", &[4, 3])])
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("--input-shape x=4x3 does not fit its declared shape [2, 3]"),
        "{e}"
    );
}

#[test]
fn a_shared_symbolic_dimension_must_get_one_size() {
    let m = add(
        declared("x", &["N", "3"]),
        declared("y", &["N", "3"]),
        declared("z", &["N", "3"]),
    );
    let e = import_with(m, &[("x", &[2, 3]), ("y", &[4, 3])])
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("symbolic dimension 'N' is 2 in input 'x' but 4 in input 'y'"),
        "{e}"
    );
}

#[test]
fn a_symbolic_dimension_fixed_by_one_input_fixes_the_others() {
    let m = add(
        declared("x", &["N", "3"]),
        declared("y", &["N", "3"]),
        declared("z", &["N", "3"]),
    );
    let imported = import_with(m, &[("x", &[2, 3])]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        argument_types(&imported),
        ["tensor<2x3xf32>", "tensor<2x3xf32>"]
    );
}

#[test]
fn a_question_mark_dimension_is_anonymous_not_a_shared_symbol() {
    // PaddlePaddle writes `?` for every unknown dimension: `[-1, 3, ?, ?]` is not a square.
    let m = relu(
        declared("x", &["-1", "3", "?", "?"]),
        declared("y", &["-1", "3", "?", "?"]),
    );
    let imported = import_with(m, &[("x", &[1, 3, 48, 192])]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(argument_types(&imported), ["tensor<1x3x48x192xf32>"]);
}

#[test]
fn a_question_mark_dimension_fixes_nothing_in_other_inputs() {
    let m = add(
        declared("x", &["?", "3"]),
        declared("y", &["?", "3"]),
        declared("z", &["?", "3"]),
    );
    let e = import_with(m, &[("x", &[2, 3])])
        .err()
        .expect("y stays open")
        .to_string();
    assert!(
        e.contains("graph input 'y'") && e.contains("--input-shape y="),
        "{e}"
    );
}

#[test]
fn an_empty_dimension_name_is_anonymous() {
    let m = add(
        declared("x", &["", "3"]),
        declared("y", &["", "3"]),
        declared("z", &["", "3"]),
    );
    // Two sizes for the anonymous dimensions are no conflict (Add broadcasts 1 to 2).
    let imported =
        import_with(m, &[("x", &[2, 3]), ("y", &[1, 3])]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        argument_types(&imported),
        ["tensor<2x3xf32>", "tensor<1x3xf32>"]
    );
}

#[test]
fn an_unused_initializer_is_a_warning() {
    let m = model(
        17,
        vec![node("Relu", "r", &["x"], &["y"])],
        vec![float("x", &[2])],
        vec![float("y", &[2])],
        vec![floats("stale", &[1], &[1.0])],
    );
    let imported = import(m, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        imported.warnings,
        ["initializer 'stale' is not used by any node or graph output"]
    );
}

#[test]
fn a_value_info_that_disagrees_with_inference_is_a_warning() {
    let mut m = model(
        17,
        vec![
            node("Relu", "a", &["x"], &["t"]),
            node("Relu", "b", &["t"], &["y"]),
        ],
        vec![float("x", &[2, 3])],
        vec![float("y", &[2, 3])],
        vec![],
    );
    graph_mut(&mut m).value_info.push(float("t", &[5, 5]));
    let imported = import(m, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        imported.warnings,
        [
            "value_info 't' is declared FLOAT[5,5] but the imported graph computes FLOAT[2,3]; \
          the computed type is used"
        ]
    );
}

#[test]
fn a_graph_output_that_disagrees_with_inference_is_a_warning() {
    let m = relu(float("x", &[2, 3]), typed("y", DataType::Float, &[7]));
    let imported = import(m, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        imported.warnings,
        [
            "graph output 'y': is declared FLOAT[7] but the imported graph computes FLOAT[2,3]; \
          the computed type is used"
        ]
    );
    assert_eq!(argument_types(&imported), ["tensor<2x3xf32>"]);
}
