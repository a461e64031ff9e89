//! A few real cases of the node suite, loaded as the conformance runner will load them and
//! checked against what the operator means (|x|, x + y with broadcasting, transposition ...),
//! plus damaged copies of a case that the loader must reject.

mod common;

use std::fs;
use std::path::Path;

use half::{bf16, f16};
use tb_interpreter::{DType, Tensor};
use tb_onnx::{ConformanceCase, NodeAttrs, NodeTestSuite, OnnxError};

fn load(suite: &NodeTestSuite, name: &str) -> ConformanceCase {
    suite.load(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn f32s(t: &Tensor) -> &[f32] {
    t.as_slice::<f32>().expect("a float32 tensor")
}

#[test]
fn elementwise_cases_hold_what_the_operator_computes() {
    let Some(suite) = common::suite_or_skip("elementwise_cases_hold_what_the_operator_computes")
    else {
        return;
    };
    let abs = load(&suite, "test_abs");
    assert_eq!(abs.name, "test_abs");
    assert_eq!(abs.model.opset_version(""), Some(13));
    assert_eq!(abs.model.graph().node[0].op_type, "Abs");
    let (x, y) = (&abs.inputs[0], &abs.outputs[0]);
    assert_eq!((x.shape(), y.shape()), (&[3, 4, 5][..], &[3, 4, 5][..]));
    let expected: Vec<f32> = f32s(x).iter().map(|v| v.abs()).collect();
    assert_eq!(f32s(y), expected);
    assert!(
        f32s(x).iter().any(|&v| v < 0.0),
        "the input exercises negatives"
    );

    let add = load(&suite, "test_add_bcast");
    let (x, y, sum) = (&add.inputs[0], &add.inputs[1], &add.outputs[0]);
    assert_eq!(y.shape(), &[5]);
    let expected: Vec<f32> = f32s(x)
        .iter()
        .enumerate()
        .map(|(i, v)| v + f32s(y)[i % 5])
        .collect();
    assert_eq!(f32s(sum), expected);

    let select = load(&suite, "test_where_example");
    let cond = select.inputs[0].as_slice::<bool>().unwrap();
    let (a, b) = (f32s(&select.inputs[1]), f32s(&select.inputs[2]));
    let expected: Vec<f32> = (0..4).map(|i| if cond[i] { a[i] } else { b[i] }).collect();
    assert_eq!(f32s(&select.outputs[0]), expected);

    let transpose = load(&suite, "test_transpose_default");
    let (x, y) = (f32s(&transpose.inputs[0]), f32s(&transpose.outputs[0]));
    assert_eq!(transpose.outputs[0].shape(), &[4, 3, 2]);
    for (i, j, k) in (0..2).flat_map(|i| (0..3).flat_map(move |j| (0..4).map(move |k| (i, j, k)))) {
        assert_eq!(y[k * 6 + j * 2 + i], x[i * 12 + j * 4 + k]);
    }
}

#[test]
fn casts_to_half_precision_round_to_nearest_even() {
    let Some(suite) = common::suite_or_skip("casts_to_half_precision_round_to_nearest_even") else {
        return;
    };
    let to_f16 = load(&suite, "test_cast_FLOAT_to_FLOAT16");
    assert_eq!(
        to_f16.model.graph().node[0].attr_int("to").unwrap(),
        Some(10)
    );
    let expected: Vec<u16> = f32s(&to_f16.inputs[0])
        .iter()
        .map(|&v| f16::from_f32(v).to_bits())
        .collect();
    assert_eq!(to_f16.outputs[0].dtype(), DType::F16);
    let actual = to_f16.outputs[0].as_slice::<f16>().unwrap();
    // Bit patterns, as the inputs include NaN and infinities.
    assert_eq!(
        actual.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        expected
    );

    let to_bf16 = load(&suite, "test_cast_FLOAT_to_BFLOAT16");
    let expected: Vec<u16> = f32s(&to_bf16.inputs[0])
        .iter()
        .map(|&v| bf16::from_f32(v).to_bits())
        .collect();
    let actual = to_bf16.outputs[0].as_slice::<bf16>().unwrap();
    assert_eq!(
        actual.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        expected
    );
}

#[test]
fn attributes_and_subgraphs_of_real_cases() {
    let Some(suite) = common::suite_or_skip("attributes_and_subgraphs_of_real_cases") else {
        return;
    };
    let conv = load(&suite, "test_conv_with_strides_padding");
    let node = &conv.model.graph().node[0];
    assert_eq!(node.attr_ints("kernel_shape").unwrap(), Some(vec![3, 3]));
    assert_eq!(node.attr_ints("pads").unwrap(), Some(vec![1, 1, 1, 1]));
    assert_eq!(node.attr_ints("strides").unwrap(), Some(vec![2, 2]));
    assert_eq!(node.attr_int_or("group", 1).unwrap(), 1);
    assert_eq!(conv.outputs[0].shape(), &[1, 1, 4, 3]);

    let constant = load(&suite, "test_constant");
    assert!(constant.inputs.is_empty());
    let value = constant.model.graph().node[0]
        .attr_tensor("value")
        .unwrap()
        .unwrap();
    assert_eq!(value, constant.outputs[0]);

    // If: the output is the Constant of the branch the condition picks.
    let branch = load(&suite, "test_if");
    let cond = branch.inputs[0].as_slice::<bool>().unwrap()[0];
    let node = &branch.model.graph().node[0];
    let body = node
        .attr_graph(if cond { "then_branch" } else { "else_branch" })
        .unwrap()
        .unwrap();
    let value = body.node[0].attr_tensor("value").unwrap().unwrap();
    assert_eq!(value, branch.outputs[0]);
}

#[test]
fn non_tensor_cases_are_unsupported_with_the_reason() {
    let Some(suite) = common::suite_or_skip("non_tensor_cases_are_unsupported_with_the_reason")
    else {
        return;
    };
    for (name, reason) in [
        ("test_sequence_insert_at_back", "input 'sequence': "),
        ("test_sequence_insert_at_back", "a sequence of 3 elements"),
        (
            "test_optional_has_element_empty_optional_input",
            "an empty optional",
        ),
        ("test_equal_string", "element type STRING"),
    ] {
        let e = suite.load(name).unwrap_err();
        assert!(e.is_unsupported(), "{name}: {e}");
        assert!(e.to_string().contains(reason), "{name}: {e}");
    }
}

fn copy_case(suite: &NodeTestSuite, name: &str, to: &Path) {
    let from = suite.case_dir(name);
    fs::create_dir_all(to.join("test_data_set_0")).unwrap();
    fs::copy(from.join("model.onnx"), to.join("model.onnx")).unwrap();
    for entry in fs::read_dir(from.join("test_data_set_0")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(
            &path,
            to.join("test_data_set_0").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
}

#[test]
fn damaged_cases_are_rejected() {
    let Some(suite) = common::suite_or_skip("damaged_cases_are_rejected") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let case = tmp.path().join("test_abs");
    copy_case(&suite, "test_abs", &case);
    let data = case.join("test_data_set_0");
    assert!(ConformanceCase::load(&case).is_ok());
    let local = NodeTestSuite::at(tmp.path());
    assert_eq!(local.case_names().unwrap(), ["test_abs"]);

    let e = ConformanceCase::load_data_set(&case, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no data set test_data_set_1"), "{e}");

    // An input of the wrong element type (test_and2d's bool input for Abs's float input).
    let other = tmp.path().join("and");
    copy_case(&suite, "test_and2d", &other);
    fs::copy(
        other.join("test_data_set_0/input_0.pb"),
        data.join("input_0.pb"),
    )
    .unwrap();
    let e = ConformanceCase::load(&case).unwrap_err();
    assert!(matches!(e, OnnxError::Invalid { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("input 'x': ") && text.contains("input_0.pb"),
        "{text}"
    );
    assert!(
        text.contains("holds BOOL elements, but the model declares FLOAT"),
        "{text}"
    );

    // A float input of the wrong shape (Add's broadcast operand).
    copy_case(&suite, "test_add_bcast", &other);
    fs::copy(
        other.join("test_data_set_0/input_1.pb"),
        data.join("input_0.pb"),
    )
    .unwrap();
    let e = ConformanceCase::load(&case).unwrap_err().to_string();
    assert!(
        e.contains("has shape [5], but the model declares FLOAT[3,4,5]"),
        "{e}"
    );

    // A surplus input file, then a missing output file.
    copy_case(&suite, "test_abs", &case);
    fs::copy(data.join("input_0.pb"), data.join("input_1.pb")).unwrap();
    let e = ConformanceCase::load(&case).unwrap_err().to_string();
    assert!(
        e.contains("input_1.pb: extra file: the model has 1 input(s)"),
        "{e}"
    );
    fs::remove_file(data.join("input_1.pb")).unwrap();
    fs::remove_file(data.join("output_0.pb")).unwrap();
    let e = ConformanceCase::load(&case).unwrap_err();
    assert!(matches!(e, OnnxError::Io { .. }), "{e}");
    assert!(e.to_string().contains("output_0.pb"), "{e}");

    // A truncated input file.
    copy_case(&suite, "test_abs", &case);
    let bytes = fs::read(data.join("input_0.pb")).unwrap();
    fs::write(data.join("input_0.pb"), &bytes[..bytes.len() / 2]).unwrap();
    let e = ConformanceCase::load(&case).unwrap_err().to_string();
    assert!(e.contains("input_0.pb"), "{e}");
}
