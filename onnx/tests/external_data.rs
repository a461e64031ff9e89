//! Tensors stored outside the model file: a model saved with external data by the onnx
//! Python package, models built here with prost, and the locations that must be refused
//! because they lead out of the model's directory.

mod common;

use std::fs;
use std::path::Path;

use prost::Message;
use tb_interpreter::{Tensor, read_npy};
use tb_onnx::proto::tensor_proto::{DataLocation, DataType};
use tb_onnx::proto::{
    GraphProto, ModelProto, OperatorSetIdProto, StringStringEntryProto, TensorProto,
};
use tb_onnx::{AttrErrorKind, Model, NodeAttrs, OnnxError, read_tensor_file};

#[test]
fn model_saved_by_onnx_with_external_data() {
    let Some(fixtures) = common::fixtures_or_skip("model_saved_by_onnx_with_external_data") else {
        return;
    };
    let dir = fixtures.join("external");
    let model = Model::load(dir.join("model.onnx")).unwrap();
    let graph = model.graph();
    assert_eq!(graph.initializer.len(), 13);
    for proto in &graph.initializer {
        assert_eq!(
            proto.data_location,
            DataLocation::External as i32,
            "{}",
            proto.name
        );
        let expected = read_npy(dir.join("initializers").join(format!("{}.npy", proto.name)));
        common::assert_same(
            &model.tensor(proto).unwrap(),
            &expected.unwrap(),
            &proto.name,
        );
    }
    let by_iterator: Vec<(&str, Tensor)> = model.initializers().map(|r| r.unwrap()).collect();
    assert_eq!(by_iterator.len(), 13);
    assert_eq!(by_iterator[0].0, "w_float32");
    assert_eq!(by_iterator[0].1.shape(), &[4, 3, 5]);

    // The Constant's value went to the external file too (convert_attribute=True): the
    // inline-only accessor says so, and the model resolves it.
    let constant = &graph.node[0];
    let e = constant.attr_tensor("value").unwrap_err();
    assert!(matches!(e.kind, AttrErrorKind::Tensor(_)), "{e}");
    assert!(e.to_string().contains("no directory to find it in"), "{e}");
    let proto = constant.attr_tensor_proto("value").unwrap().unwrap();
    let expected = read_npy(dir.join("initializers/constant_value.npy")).unwrap();
    common::assert_same(&model.tensor(proto).unwrap(), &expected, "Constant value");
}

fn external(location: &str, extra: &[(&str, &str)], dims: &[i64]) -> TensorProto {
    let mut entries = vec![("location", location)];
    entries.extend_from_slice(extra);
    TensorProto {
        name: "w".into(),
        data_type: DataType::Float as i32,
        dims: dims.to_vec(),
        data_location: DataLocation::External as i32,
        external_data: entries
            .iter()
            .map(|(k, v)| StringStringEntryProto {
                key: k.to_string(),
                value: v.to_string(),
            })
            .collect(),
        ..Default::default()
    }
}

fn write_model(dir: &Path, initializer: TensorProto) -> std::path::PathBuf {
    let model = ModelProto {
        ir_version: 10,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 21,
        }],
        graph: Some(GraphProto {
            name: "g".into(),
            initializer: vec![initializer],
            ..Default::default()
        }),
        ..Default::default()
    };
    let path = dir.join("model.onnx");
    fs::write(&path, model.encode_to_vec()).unwrap();
    path
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Loads a model with `initializer` from `dir` and converts it.
fn load(dir: &Path, initializer: TensorProto) -> Result<Tensor, OnnxError> {
    let model = Model::load(write_model(dir, initializer)).unwrap();
    model.tensor(&model.graph().initializer[0])
}

fn load_error(dir: &Path, initializer: TensorProto) -> String {
    match load(dir, initializer) {
        Ok(t) => panic!("expected an error, got {t:?}"),
        Err(e) => {
            assert!(matches!(e, OnnxError::ExternalData { .. }), "{e:?}");
            e.to_string()
        }
    }
}

#[test]
fn offset_and_length_select_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = vec![0xAB; 7];
    file.extend(f32_bytes(&[1.0, -2.0, 3.5]));
    file.extend([0xCD; 5]);
    fs::create_dir(dir.path().join("data")).unwrap();
    fs::write(dir.path().join("data/w.bin"), &file).unwrap();
    let t = external(
        "./data/w.bin",
        &[("offset", "7"), ("length", "12"), ("checksum", "x")],
        &[3],
    );
    let tensor = load(dir.path(), t.clone()).unwrap();
    assert_eq!(tensor.as_slice::<f32>(), Some(&[1.0, -2.0, 3.5][..]));

    // Without `length` the tensor's size decides; a standalone .pb resolves next to itself.
    let mut no_length = external("data/w.bin", &[("offset", "7")], &[1, 3]);
    no_length.name = "standalone".into();
    let pb = dir.path().join("standalone.pb");
    fs::write(&pb, no_length.encode_to_vec()).unwrap();
    let tensor = read_tensor_file(&pb).unwrap();
    assert_eq!(tensor.shape(), &[1, 3]);
    assert_eq!(tensor.as_slice::<f32>(), Some(&[1.0, -2.0, 3.5][..]));

    // External data is looked up next to the model, "." for a bare file name.
    let model = Model::load(write_model(dir.path(), t)).unwrap();
    assert_eq!(model.base_dir(), Some(dir.path()));
    let proto = model.into_proto();
    let bare = Model::new(proto.clone(), Some("model.onnx".into())).unwrap();
    assert_eq!(bare.base_dir(), Some(Path::new(".")));
    assert_eq!(Model::new(proto, None).unwrap().base_dir(), None);
}

#[test]
fn bad_external_references_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    fs::create_dir(&models).unwrap();
    fs::write(models.join("w.bin"), f32_bytes(&[1.0, 2.0])).unwrap();
    fs::write(dir.path().join("secret.bin"), f32_bytes(&[9.0, 9.0])).unwrap();
    let m = models.as_path();

    let e = load_error(m, external("../secret.bin", &[], &[2]));
    assert!(
        e.contains("'../secret.bin' is not a path inside the model's directory"),
        "{e}"
    );
    let absolute = dir.path().join("secret.bin");
    let e = load_error(m, external(absolute.to_str().unwrap(), &[], &[2]));
    assert!(
        e.contains("is not a path inside the model's directory"),
        "{e}"
    );
    let e = load_error(m, external("sub/../../secret.bin", &[], &[2]));
    assert!(e.contains("not a path inside"), "{e}");

    // A symbolic link inside the directory that points out of it.
    std::os::unix::fs::symlink(dir.path().join("secret.bin"), models.join("link.bin")).unwrap();
    let e = load_error(m, external("link.bin", &[], &[2]));
    assert!(e.contains("leads outside the model's directory"), "{e}");

    let e = load_error(m, external("absent.bin", &[], &[2]));
    assert!(e.contains("cannot open") && e.contains("absent.bin"), "{e}");
    let e = load_error(m, external("", &[], &[2]));
    assert!(e.contains("no 'location' key"), "{e}");
    let e = load_error(m, external("w.bin", &[("offset", "-4")], &[2]));
    assert!(
        e.contains("'offset' is '-4', not a non-negative integer"),
        "{e}"
    );
    let e = load_error(m, external("w.bin", &[("length", "4")], &[2]));
    assert!(
        e.contains("'length' is 4 bytes but the tensor needs 8"),
        "{e}"
    );
    let e = load_error(m, external("w.bin", &[("offset", "4")], &[2]));
    assert!(
        e.contains("has 8 bytes, too few for 8 bytes at offset 4"),
        "{e}"
    );
    let e = load_error(
        m,
        external("w.bin", &[("offset", &u64::MAX.to_string())], &[2]),
    );
    assert!(e.contains("too few"), "{e}");
    let e = load_error(m, external("w.bin", &[("location", "w.bin")], &[2]));
    assert!(e.contains("key 'location' is given twice"), "{e}");
    fs::create_dir(models.join("dir.bin")).unwrap();
    let e = load_error(m, external("dir.bin", &[], &[2]));
    assert!(e.contains("is not a regular file"), "{e}");

    // Inline data alongside EXTERNAL is contradictory.
    let mut both = external("w.bin", &[], &[2]);
    both.raw_data = f32_bytes(&[1.0, 2.0]);
    let e = load(m, both).unwrap_err().to_string();
    assert!(
        e.contains("data_location is EXTERNAL but raw_data is set too"),
        "{e}"
    );

    // A model decoded from memory has no directory to look in.
    let bytes = fs::read(write_model(m, external("w.bin", &[], &[2]))).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let e = model
        .tensor(&model.graph().initializer[0])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tensor 'w': external data:") && e.contains("no directory"),
        "{e}"
    );
}
