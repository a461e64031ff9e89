//! Typed attribute access: values of every kind, defaults, and the errors for missing,
//! mistyped and malformed attributes.

use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::tensor_proto::DataType;
use tb_onnx::proto::{AttributeProto, GraphProto, NodeProto, TensorProto};
use tb_onnx::{AttrErrorKind, NodeAttrs, OnnxError, node_label};

fn attr(name: &str, ty: AttributeType, fill: impl FnOnce(&mut AttributeProto)) -> AttributeProto {
    let mut a = AttributeProto {
        name: name.into(),
        r#type: ty as i32,
        ..Default::default()
    };
    fill(&mut a);
    a
}

fn node() -> NodeProto {
    let value = TensorProto {
        data_type: DataType::Int64 as i32,
        dims: vec![2],
        int64_data: vec![5, -6],
        ..Default::default()
    };
    NodeProto {
        op_type: "Conv".into(),
        name: "conv1".into(),
        output: vec!["y".into()],
        attribute: vec![
            attr("group", AttributeType::Int, |a| a.i = 2),
            attr("alpha", AttributeType::Float, |a| a.f = 0.5),
            attr("auto_pad", AttributeType::String, |a| {
                a.s = b"SAME_UPPER".to_vec()
            }),
            attr("pads", AttributeType::Ints, |a| a.ints = vec![1, 1, 2, 2]),
            attr("scales", AttributeType::Floats, |a| {
                a.floats = vec![1.0, 2.5]
            }),
            attr("modes", AttributeType::Strings, |a| {
                a.strings = vec![b"a".to_vec(), b"bc".to_vec()]
            }),
            attr("value", AttributeType::Tensor, |a| a.t = Some(value)),
            attr("body", AttributeType::Graph, |a| {
                a.g = Some(GraphProto {
                    name: "body".into(),
                    ..Default::default()
                })
            }),
            attr("empty", AttributeType::Ints, |_| {}),
        ],
        ..Default::default()
    }
}

#[test]
fn values_of_every_kind() {
    let n = node();
    assert_eq!(n.attr_int("group").unwrap(), Some(2));
    assert_eq!(n.attr_float("alpha").unwrap(), Some(0.5));
    assert_eq!(
        n.attr_string("auto_pad").unwrap().as_deref(),
        Some("SAME_UPPER")
    );
    assert_eq!(n.attr_ints("pads").unwrap(), Some(vec![1, 1, 2, 2]));
    assert_eq!(n.attr_floats("scales").unwrap(), Some(vec![1.0, 2.5]));
    assert_eq!(
        n.attr_strings("modes").unwrap(),
        Some(vec!["a".into(), "bc".into()])
    );
    let value = n.attr_tensor("value").unwrap().unwrap();
    assert_eq!(
        (value.shape(), value.as_slice::<i64>()),
        (&[2][..], Some(&[5, -6][..]))
    );
    assert_eq!(
        n.attr_tensor_proto("value").unwrap().unwrap().int64_data,
        [5, -6]
    );
    assert_eq!(n.attr_graph("body").unwrap().unwrap().name, "body");
    assert_eq!(
        n.attr::<&[u8]>("auto_pad").unwrap(),
        Some(&b"SAME_UPPER"[..])
    );
    assert_eq!(n.attr::<&[i64]>("pads").unwrap(), Some(&[1, 1, 2, 2][..]));
    // An INTS attribute with no elements is an empty list, not an absent attribute.
    assert_eq!(n.attr_ints("empty").unwrap(), Some(vec![]));
}

#[test]
fn defaults_apply_only_when_absent() {
    let n = node();
    assert_eq!(n.attr_int_or("group", 1).unwrap(), 2);
    assert_eq!(n.attr_int_or("axis", -1).unwrap(), -1);
    assert_eq!(n.attr_float_or("beta", 1.0).unwrap(), 1.0);
    assert_eq!(n.attr_string_or("mode", "constant").unwrap(), "constant");
    assert_eq!(n.attr_or("strides", vec![1i64, 1]).unwrap(), [1, 1]);
    assert_eq!(n.attr_ints("strides").unwrap(), None);
    // A default does not hide a mistyped attribute.
    assert!(n.attr_int_or("pads", 0).is_err());
}

#[test]
fn errors_name_node_attribute_and_problem() {
    let n = node();
    let e = n.attr_required::<i64>("kernel_shape").unwrap_err();
    assert!(matches!(e.kind, AttrErrorKind::Missing));
    assert_eq!(
        e.to_string(),
        "Conv node 'conv1': attribute 'kernel_shape': required but missing"
    );

    let e = n.attr_int("pads").unwrap_err();
    assert!(matches!(
        e.kind,
        AttrErrorKind::WrongType {
            expected: AttributeType::Int,
            found: AttributeType::Ints
        }
    ));
    assert_eq!(
        e.to_string(),
        "Conv node 'conv1': attribute 'pads': expected INT, found INTS"
    );
    assert!(n.attr_float("group").is_err());
    assert!(n.attr_graph("value").is_err());

    let mut bad = node();
    bad.attribute = vec![
        attr("s", AttributeType::String, |a| a.s = vec![0xff, 0xfe]),
        attr("t", AttributeType::Tensor, |_| {}),
        attr("r", AttributeType::Int, |a| {
            a.ref_attr_name = "outer".into()
        }),
        attr("u", AttributeType::Undefined, |_| {}),
        attr("x", AttributeType::Tensor, |a| {
            a.t = Some(TensorProto {
                data_type: DataType::String as i32,
                dims: vec![1],
                string_data: vec![b"s".to_vec()],
                ..Default::default()
            })
        }),
    ];
    let e = bad.attr_string("s").unwrap_err().to_string();
    assert!(e.contains("attribute 's': string is not UTF-8"), "{e}");
    let e = bad.attr_tensor("t").unwrap_err().to_string();
    assert!(e.contains("TENSOR attribute without a tensor"), "{e}");
    let e = bad.attr_int("r").unwrap_err().to_string();
    assert!(
        e.contains("refers to attribute 'outer' of the calling node"),
        "{e}"
    );
    let e = bad.attr_int("u").unwrap_err().to_string();
    assert!(e.contains("attribute 'u': has no known type"), "{e}");
    // A tensor the interpreter cannot hold stays recognisable as "unsupported".
    let e = OnnxError::from(bad.attr_tensor("x").unwrap_err());
    assert!(e.is_unsupported(), "{e}");
    assert!(
        e.to_string()
            .contains("attribute 'x': unnamed tensor: not supported"),
        "{e}"
    );
}

#[test]
fn untyped_attributes_from_old_files_are_typed_by_their_value() {
    let mut n = node();
    n.attribute = vec![
        attr("i", AttributeType::Undefined, |a| a.i = 3),
        attr("fs", AttributeType::Undefined, |a| a.floats = vec![1.0]),
        attr("s", AttributeType::Undefined, |a| a.s = b"x".to_vec()),
    ];
    assert_eq!(n.attr_int("i").unwrap(), Some(3));
    assert_eq!(n.attr_floats("fs").unwrap(), Some(vec![1.0]));
    assert_eq!(n.attr_string("s").unwrap().as_deref(), Some("x"));
}

#[test]
fn node_labels() {
    let mut n = node();
    assert_eq!(node_label(&n), "Conv node 'conv1'");
    n.name.clear();
    assert_eq!(node_label(&n), "Conv node producing 'y'");
    n.domain = "com.microsoft".into();
    n.output.clear();
    assert_eq!(node_label(&n), "com.microsoft.Conv node");
}
