//! Loading models (and refusing what is not one), opset lookup, and value types.

use std::fs;

use prost::Message;
use tb_interpreter::DType;
use tb_onnx::proto::tensor_proto::DataType;
use tb_onnx::proto::tensor_shape_proto::{Dimension, dimension};
use tb_onnx::proto::{
    GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto, type_proto,
};
use tb_onnx::{Dim, Model, OnnxError, Opsets, ValueType, tensor_type, value_type};

fn opset(domain: &str, version: i64) -> OperatorSetIdProto {
    OperatorSetIdProto {
        domain: domain.into(),
        version,
    }
}

fn dim_value(n: i64) -> Dimension {
    Dimension {
        value: Some(dimension::Value::DimValue(n)),
        ..Default::default()
    }
}

fn dim_param(s: &str) -> Dimension {
    Dimension {
        value: Some(dimension::Value::DimParam(s.into())),
        ..Default::default()
    }
}

fn tensor_of(elem: DataType, dims: Option<Vec<Dimension>>) -> TypeProto {
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: elem as i32,
            shape: dims.map(|dim| TensorShapeProto { dim }),
        })),
        ..Default::default()
    }
}

fn info(name: &str, ty: Option<TypeProto>) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: ty,
        ..Default::default()
    }
}

/// A small complete model: y = Relu(x), with a weight initializer also listed as an input
/// (as IR version 3 required).
fn small_model() -> ModelProto {
    let x = tensor_of(DataType::Float, Some(vec![dim_param("N"), dim_value(4)]));
    ModelProto {
        ir_version: 8,
        producer_name: "tb-onnx tests".into(),
        opset_import: vec![opset("", 17), opset("com.microsoft", 1)],
        graph: Some(GraphProto {
            name: "g".into(),
            node: vec![NodeProto {
                op_type: "Relu".into(),
                input: vec!["x".into()],
                output: vec!["y".into()],
                ..Default::default()
            }],
            input: vec![info("x", Some(x.clone())), info("w", Some(x.clone()))],
            output: vec![info("y", Some(x))],
            initializer: vec![TensorProto {
                name: "w".into(),
                data_type: DataType::Float as i32,
                dims: vec![1, 4],
                float_data: vec![1.0; 4],
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn load_error(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.onnx");
    fs::write(&path, bytes).unwrap();
    match Model::load(&path) {
        Ok(_) => panic!("{} bytes loaded as a model", bytes.len()),
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("bad.onnx"), "no path in {text:?}");
            text
        }
    }
}

#[test]
fn loads_a_model_and_its_facts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.onnx");
    fs::write(&path, small_model().encode_to_vec()).unwrap();
    let model = Model::load(&path).unwrap();
    assert_eq!(model.path(), Some(path.as_path()));
    assert_eq!(model.ir_version(), 8);
    assert_eq!(model.proto().producer_name, "tb-onnx tests");
    assert_eq!(model.graph().node[0].op_type, "Relu");
    let inputs: Vec<&str> = model
        .runtime_inputs()
        .iter()
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(inputs, ["x"]);
    let (name, w) = model.initializers().next().unwrap().unwrap();
    assert_eq!((name, w.shape(), w.dtype()), ("w", &[1, 4][..], DType::F32));
}

#[test]
fn what_is_not_a_model_is_refused_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let e = Model::load(dir.path().join("absent.onnx")).unwrap_err();
    assert!(matches!(e, OnnxError::Io { .. }));
    assert!(e.to_string().contains("absent.onnx"), "{e}");
    let e = Model::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("is a directory, not an ONNX model file"), "{e}");

    let e = load_error(b"");
    assert!(e.contains("not an ONNX model: it has no graph"), "{e}");
    let e = load_error(b"this is plain text, not protobuf\n");
    assert!(e.contains("not an ONNX model"), "{e}");
    let e = load_error(&[0xff; 64]);
    assert!(
        e.contains("not an ONNX model (protobuf decoding failed"),
        "{e}"
    );
    // A .npy header, a likely mix-up in a test directory.
    let e = load_error(b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False}");
    assert!(e.contains("not an ONNX model"), "{e}");
}

#[test]
fn every_truncation_of_a_model_is_an_error() {
    let mut model = small_model();
    // Fields are written in tag order, so the one opset import (tag 8) comes last: any cut
    // loses a part of a field, the graph, or the import, which IR version 8 requires.
    model.opset_import.truncate(1);
    let bytes = model.encode_to_vec();
    model.opset_import.clear();
    let without_opsets = model.encode_to_vec();
    assert!(bytes.starts_with(&without_opsets));
    for len in 0..bytes.len() {
        load_error(&bytes[..len]);
    }
    assert!(load_error(&without_opsets).contains("requires opset_import"));
}

#[test]
fn opset_versions_by_domain() {
    let model = Model::from_bytes(&small_model().encode_to_vec()).unwrap();
    assert_eq!(model.opset_version(""), Some(17));
    assert_eq!(model.opset_version("ai.onnx"), Some(17));
    assert_eq!(model.opsets().onnx(), Some(17));
    assert_eq!(model.opset_version("com.microsoft"), Some(1));
    assert_eq!(model.opset_version("ai.onnx.ml"), None);
    let all: Vec<_> = model.opsets().iter().collect();
    assert_eq!(all, [("ai.onnx", 17), ("com.microsoft", 1)]);

    let e = Opsets::from_imports(&[opset("", 13), opset("ai.onnx", 14)], 8).unwrap_err();
    assert!(
        e.to_string()
            .contains("'ai.onnx' is imported more than once"),
        "{e}"
    );
    let e = Opsets::from_imports(&[opset("", 0)], 8).unwrap_err();
    assert!(e.to_string().contains("version 0"), "{e}");
    // Before IR version 3 there were no imports: version 1 of the default domain is implied.
    assert_eq!(Opsets::from_imports(&[], 2).unwrap().onnx(), Some(1));
    assert!(Opsets::from_imports(&[], 3).unwrap().is_empty());
}

#[test]
fn value_types_keep_symbolic_and_unknown_dims() {
    let ty = tensor_of(
        DataType::Float16,
        Some(vec![
            dim_param("batch"),
            dim_value(3),
            Dimension::default(),
            dim_param(""),
        ]),
    );
    let t = tensor_type(&info("x", Some(ty))).unwrap();
    assert_eq!(
        t.shape,
        Some(vec![
            Dim::Symbolic("batch".into()),
            Dim::Known(3),
            Dim::Unknown,
            Dim::Unknown
        ])
    );
    assert_eq!(t.dtype().unwrap(), DType::F16);
    assert_eq!(t.static_shape(), None);
    assert_eq!(t.to_string(), "FLOAT16[batch,3,?,?]");

    let scalar = tensor_type(&info("s", Some(tensor_of(DataType::Int64, Some(vec![]))))).unwrap();
    assert_eq!(scalar.static_shape(), Some(vec![]));
    let unranked = tensor_type(&info("u", Some(tensor_of(DataType::Bool, None)))).unwrap();
    assert_eq!(
        (unranked.shape.clone(), unranked.to_string()),
        (None, "BOOL[*]".into())
    );

    let strings = tensor_type(&info("s", Some(tensor_of(DataType::String, None)))).unwrap();
    let e = strings.dtype().unwrap_err();
    assert!(
        e.is_unsupported() && e.to_string().contains("STRING"),
        "{e}"
    );

    let negative = info(
        "n",
        Some(tensor_of(DataType::Float, Some(vec![dim_value(-2)]))),
    );
    let e = value_type(&negative).unwrap_err().to_string();
    assert!(e.contains("value 'n': dimension -2 is negative"), "{e}");

    let sequence = TypeProto {
        value: Some(type_proto::Value::SequenceType(Box::new(
            type_proto::Sequence {
                elem_type: Some(Box::new(tensor_of(DataType::Int32, None))),
            },
        ))),
        ..Default::default()
    };
    let optional = TypeProto {
        value: Some(type_proto::Value::OptionalType(Box::new(
            type_proto::Optional {
                elem_type: Some(Box::new(sequence)),
            },
        ))),
        ..Default::default()
    };
    let o = info("o", Some(optional));
    let v = value_type(&o).unwrap();
    let ValueType::Optional(Some(inner)) = &v else {
        panic!("{v:?}")
    };
    let ValueType::Sequence(Some(elem)) = inner.as_ref() else {
        panic!("{inner:?}")
    };
    assert!(matches!(elem.as_ref(), ValueType::Tensor(t) if t.elem_type == DataType::Int32 as i32));
    let e = tensor_type(&o).unwrap_err();
    assert!(e.is_unsupported(), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("value 'o': not supported: its type is optional, not tensor"),
        "{text}"
    );

    assert_eq!(value_type(&info("t", None)).unwrap(), ValueType::Unknown);
    let e = tensor_type(&info("t", None)).unwrap_err().to_string();
    assert!(e.contains("value 't': has no type"), "{e}");
}
