//! TensorProto → Tensor for every element type and every storage ONNX allows, against what
//! onnx's numpy_helper decodes the same files to (fixtures written at test time by
//! tests/support/make_fixtures.py); and the malformed tensors the conversion must reject
//! with a message.

mod common;

use std::collections::BTreeSet;
use std::fs;

use prost::Message;
use tb_interpreter::{DType, read_npy};
use tb_onnx::proto::TensorProto;
use tb_onnx::proto::tensor_proto::{DataType, Segment};
use tb_onnx::{OnnxError, decode_tensor, read_tensor_file, tensor_dtype};

#[test]
fn every_dtype_in_every_storage_matches_numpy() {
    let Some(fixtures) = common::fixtures_or_skip("every_dtype_in_every_storage_matches_numpy")
    else {
        return;
    };
    let dir = fixtures.join("tensors");
    let mut seen = BTreeSet::new();
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let pb = entry.unwrap().path();
        if pb.extension().is_none_or(|e| e != "pb") {
            continue;
        }
        let name = pb.file_stem().unwrap().to_string_lossy().into_owned();
        let actual = read_tensor_file(&pb).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = read_npy(pb.with_extension("npy")).unwrap();
        common::assert_same(&actual, &expected, &name);
        // Which storage the file used: the name ends in the field ("raw", "int32_data" ...).
        let storage = name.rsplit_once('_').map(|(rest, last)| {
            if last == "data" {
                rest.rsplit_once('_').unwrap().1.to_string() + "_data"
            } else {
                last.to_string()
            }
        });
        seen.insert((actual.dtype().name(), storage.unwrap()));
        count += 1;
    }
    println!("{count} tensors match numpy_helper; (dtype, storage) pairs: {seen:?}");
    // Each of the 13 element types in raw_data and in its typed field.
    for dtype in DType::ALL {
        let stored: Vec<_> = seen.iter().filter(|(d, _)| *d == dtype.name()).collect();
        assert_eq!(stored.len(), 2, "{dtype}: storages covered: {stored:?}");
    }
    assert_eq!(count, 91);
}

fn tensor(data_type: DataType, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: "t".into(),
        data_type: data_type as i32,
        dims: dims.to_vec(),
        ..Default::default()
    }
}

fn error(t: &TensorProto) -> OnnxError {
    match decode_tensor(t) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn assert_message(e: &OnnxError, parts: &[&str]) {
    let text = e.to_string();
    for part in parts {
        assert!(text.contains(part), "message {text:?} lacks {part:?}");
    }
}

#[test]
fn element_types_the_interpreter_lacks_are_unsupported() {
    for (ty, name) in [
        (DataType::String, "STRING"),
        (DataType::Complex64, "COMPLEX64"),
        (DataType::Complex128, "COMPLEX128"),
    ] {
        let mut t = tensor(ty, &[1]);
        t.string_data = vec![b"x".to_vec()];
        let e = error(&t);
        assert!(e.is_unsupported(), "{e}");
        assert_message(&e, &["tensor 't'", "not supported", name]);
        assert!(tensor_dtype(&t).unwrap_err().is_unsupported());
    }
    let mut t = tensor(DataType::Float, &[2]);
    t.float_data = vec![1.0, 2.0];
    t.segment = Some(Segment { begin: 0, end: 2 });
    let e = error(&t);
    assert!(e.is_unsupported());
    assert_message(&e, &["segmented"]);
}

#[test]
fn narrow_floats_decode_into_f32_carriers() {
    // FLOAT8E4M3FN: 0x38 = 1.0, 0xB8 = -1.0, 0x7E = 448 (the largest), 0x7F = NaN.
    let mut t = tensor(DataType::Float8e4m3fn, &[4]);
    t.raw_data = vec![0x38, 0xB8, 0x7E, 0x7F];
    let v = decode_tensor(&t).unwrap();
    assert_eq!(v.dtype(), DType::F32);
    let v = v.as_slice::<f32>().unwrap();
    assert_eq!(&v[..3], &[1.0, -1.0, 448.0]);
    assert!(v[3].is_nan());
    // The same codes one per int32_data entry.
    let mut t = tensor(DataType::Float8e4m3fn, &[4]);
    t.int32_data = vec![0x38, 0xB8, 0x7E, 0x7F];
    assert_eq!(
        decode_tensor(&t).unwrap().as_slice::<f32>().unwrap()[..3],
        [1.0, -1.0, 448.0]
    );
    // FLOAT4E2M1, two to a byte, first element in the low nibble: 0x7 = 6, 0x1 = 0.5.
    let mut t = tensor(DataType::Float4e2m1, &[3]);
    t.raw_data = vec![0x17, 0x0A];
    assert_eq!(
        decode_tensor(&t).unwrap().as_slice::<f32>().unwrap(),
        [6.0, 0.5, -1.0]
    );
}

#[test]
fn sub_byte_integers_decode_into_8_bit_carriers() {
    let mut t = tensor(DataType::Int4, &[3]);
    t.raw_data = vec![0x8F, 0x07];
    let v = decode_tensor(&t).unwrap();
    assert_eq!(v.dtype(), DType::I8);
    assert_eq!(v.as_slice::<i8>().unwrap(), [-1, -8, 7]);
    let mut t = tensor(DataType::Uint2, &[5]);
    t.int32_data = vec![0b1110_0100, 0b11];
    let v = decode_tensor(&t).unwrap();
    assert_eq!(v.dtype(), DType::U8);
    assert_eq!(v.as_slice::<u8>().unwrap(), [0, 1, 2, 3, 3]);
}

#[test]
fn malformed_narrow_tensors_are_errors_that_name_the_problem() {
    let mut short = tensor(DataType::Int4, &[3]);
    short.raw_data = vec![0x12];
    assert_message(
        &error(&short),
        &[
            "tensor 't'",
            "raw_data has 1 bytes",
            "3 INT4 elements take 2",
        ],
    );
    let mut packed = tensor(DataType::Int4, &[3]);
    packed.int32_data = vec![0x12];
    assert_message(&error(&packed), &["1 bytes hold 3 INT4 elements", "take 2"]);
    let mut wide = tensor(DataType::Uint4, &[2]);
    wide.int32_data = vec![300];
    assert_message(&error(&wide), &["int32_data[0] = 300", "UINT4"]);
    let mut field = tensor(DataType::Float8e5m2, &[1]);
    field.float_data = vec![1.0];
    assert_message(
        &error(&field),
        &["FLOAT8E5M2", "int32_data or raw_data", "float_data"],
    );
}

#[test]
fn malformed_tensors_are_errors_that_name_the_problem() {
    let undefined = tensor(DataType::Undefined, &[]);
    assert_message(&error(&undefined), &["UNDEFINED"]);

    let mut unknown = tensor(DataType::Float, &[]);
    unknown.data_type = 99;
    assert_message(&error(&unknown), &["unknown data_type 99"]);

    let mut short = tensor(DataType::Float, &[2, 3]);
    short.raw_data = vec![0; 20];
    assert_message(
        &error(&short),
        &["raw_data has 20 bytes", "6 FLOAT elements take 24"],
    );

    let mut count = tensor(DataType::Int64, &[4]);
    count.int64_data = vec![1, 2, 3];
    assert_message(&error(&count), &["int64_data has 3 elements", "need 4"]);

    let mut wrong_field = tensor(DataType::Float, &[1]);
    wrong_field.int64_data = vec![1];
    assert_message(
        &error(&wrong_field),
        &["FLOAT elements must be in float_data or raw_data, not int64_data"],
    );

    let mut two_fields = tensor(DataType::Float, &[1]);
    two_fields.float_data = vec![1.0];
    two_fields.raw_data = vec![0; 4];
    assert_message(
        &error(&two_fields),
        &["more than one field: raw_data, float_data"],
    );

    let mut u8_range = tensor(DataType::Uint8, &[2]);
    u8_range.int32_data = vec![7, 256];
    assert_message(
        &error(&u8_range),
        &["int32_data[1] = 256 is out of range for UINT8"],
    );

    let mut i8_range = tensor(DataType::Int8, &[1]);
    i8_range.int32_data = vec![-129];
    assert_message(&error(&i8_range), &["-129 is out of range for INT8"]);

    let mut f16_bits = tensor(DataType::Float16, &[1]);
    f16_bits.int32_data = vec![0x1_0000];
    assert_message(&error(&f16_bits), &["65536 is out of range for FLOAT16"]);

    let mut u32_range = tensor(DataType::Uint32, &[1]);
    u32_range.uint64_data = vec![1 << 32];
    assert_message(&error(&u32_range), &["out of range for UINT32"]);

    let negative = tensor(DataType::Float, &[2, -1]);
    assert_message(&error(&negative), &["dimension -1", "negative"]);

    // A huge shape must be rejected before anything is allocated for it.
    let mut huge = tensor(DataType::Float, &[1 << 40, 1 << 40]);
    huge.raw_data = vec![0; 4];
    assert_message(&error(&huge), &["overflow"]);
    let mut big = tensor(DataType::Double, &[1 << 20, 1 << 20]);
    big.raw_data = vec![0; 8];
    assert_message(&error(&big), &["raw_data has 8 bytes"]);

    let no_data = tensor(DataType::Int32, &[3]);
    assert_message(&error(&no_data), &["no data for its 3 elements"]);

    let mut location = tensor(DataType::Float, &[]);
    location.data_location = 5;
    location.float_data = vec![1.0];
    assert_message(&error(&location), &["unknown data_location 5"]);

    let mut unnamed = tensor(DataType::Int32, &[3]);
    unnamed.name.clear();
    assert_message(&error(&unnamed), &["unnamed tensor"]);
}

#[test]
fn empty_and_scalar_tensors_need_no_or_one_element() {
    let empty = decode_tensor(&tensor(DataType::Int16, &[0, 4])).unwrap();
    assert_eq!((empty.shape(), empty.numel()), (&[0, 4][..], 0));
    let mut scalar = tensor(DataType::Bool, &[]);
    scalar.int32_data = vec![1];
    let t = decode_tensor(&scalar).unwrap();
    assert_eq!((t.rank(), t.as_slice::<bool>()), (0, Some(&[true][..])));
}

#[test]
fn tensor_files_report_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = tensor(DataType::Float, &[2, 2]);
    t.float_data = vec![1.0, 2.0, 3.0, 4.0];
    // Unnamed, so that the data is the last field written and every cut damages it.
    t.name.clear();
    let bytes = t.encode_to_vec();

    let whole = dir.path().join("whole.pb");
    fs::write(&whole, &bytes).unwrap();
    let read = read_tensor_file(&whole).unwrap();
    assert_eq!(read.as_slice::<f32>(), Some(&[1.0, 2.0, 3.0, 4.0][..]));

    // Every strict prefix either fails to decode or decodes to a tensor whose data no longer
    // matches its dims; none panics.
    for len in 0..bytes.len() {
        let cut = dir.path().join("cut.pb");
        fs::write(&cut, &bytes[..len]).unwrap();
        let e = read_tensor_file(&cut).unwrap_err();
        assert!(e.to_string().contains("cut.pb"), "prefix {len}: {e}");
    }

    let missing = dir.path().join("missing.pb");
    let e = read_tensor_file(&missing).unwrap_err();
    assert!(matches!(e, OnnxError::Io { .. }));
    assert_message(&e, &["missing.pb"]);

    let garbage = dir.path().join("garbage.pb");
    fs::write(&garbage, [0xff; 16]).unwrap();
    let e = read_tensor_file(&garbage).unwrap_err();
    assert!(matches!(e, OnnxError::Decode { .. }), "{e}");
    assert_message(&e, &["garbage.pb", "not a serialized ONNX TensorProto"]);
}
