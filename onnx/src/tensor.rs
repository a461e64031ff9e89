//! `TensorProto` → interpreter [`Tensor`], for every element type the interpreter has.
//!
//! ONNX stores the elements in one of several places, and the conversion accepts each of
//! them exactly where ONNX allows it:
//! - `raw_data`: little-endian bytes, row-major, for any fixed-size type;
//! - `float_data` (float32), `double_data` (float64), `int64_data` (int64),
//!   `uint64_data` (uint32, uint64);
//! - `int32_data`: int32, and the narrower int16, int8, uint16, uint8 and bool, one element
//!   per entry; float16 and bfloat16 as their 16-bit patterns, one per entry;
//! - an external file (see [`crate::external`]).
//!
//! The narrow types ([`crate::narrow`]: 8-bit floats, FLOAT4E2M1, 2- and 4-bit integers)
//! decode into their carrier type: from `raw_data` or `int32_data`, one byte per 8-bit
//! element, and the 4- and 2-bit ones packed two or four to a byte, first element lowest.
//!
//! Anything else (data in the wrong field, a count that does not match the shape, a value out
//! of its type's range) is an error naming the tensor, never a panic or a silent truncation.

use std::path::Path;

use half::{bf16, f16};
use tb_interpreter::{DType, Tensor, TensorData};

use crate::dtype::{data_type_name, dtype_from_onnx};
use crate::error::{OnnxError, Result};
use crate::external::{ExternalData, is_external};
use crate::narrow::{NarrowType, unpack};
use crate::proto::TensorProto;
use crate::proto::tensor_proto::{DataLocation, DataType};

/// How a tensor is named in messages: `tensor 'w'`, or `unnamed tensor`.
pub fn tensor_label(proto: &TensorProto) -> String {
    if proto.name.is_empty() {
        "unnamed tensor".to_string()
    } else {
        format!("tensor '{}'", proto.name)
    }
}

/// The tensor's shape; negative dimensions are an error.
pub fn tensor_dims(proto: &TensorProto) -> Result<Vec<i64>> {
    if let Some(&d) = proto.dims.iter().find(|&&d| d < 0) {
        return Err(OnnxError::invalid(
            tensor_label(proto),
            format!("dimension {d} in dims {:?} is negative", proto.dims),
        ));
    }
    Ok(proto.dims.clone())
}

/// The tensor's element type as the interpreter holds it: its own, or the carrier of a
/// narrow type.
pub fn tensor_dtype(proto: &TensorProto) -> Result<DType> {
    let code = proto.data_type;
    if let Some(dtype) = dtype_from_onnx(code) {
        return Ok(dtype);
    }
    if let Some(narrow) = NarrowType::from_onnx(code) {
        return Ok(narrow.carrier());
    }
    let label = tensor_label(proto);
    Err(match DataType::try_from(code) {
        Ok(DataType::Undefined) => OnnxError::invalid(label, "data_type is UNDEFINED"),
        Ok(_) => OnnxError::unsupported(
            label,
            format!(
                "element type {} (the interpreter has no such tensors)",
                data_type_name(code)
            ),
        ),
        Err(_) => OnnxError::invalid(label, format!("unknown data_type {code}")),
    })
}

/// Converts a tensor whose data is inside the proto. Tensors with external data need
/// [`decode_tensor_at`] (or [`crate::Model::tensor`]), which knows the model's directory.
pub fn decode_tensor(proto: &TensorProto) -> Result<Tensor> {
    decode(proto, None)
}

/// Converts a tensor, reading external data relative to `base_dir` (the model's directory).
pub fn decode_tensor_at(proto: &TensorProto, base_dir: &Path) -> Result<Tensor> {
    decode(proto, Some(base_dir))
}

fn decode(proto: &TensorProto, base_dir: Option<&Path>) -> Result<Tensor> {
    let label = tensor_label(proto);
    let dtype = tensor_dtype(proto)?;
    let shape = tensor_dims(proto)?;
    if proto.segment.is_some() {
        return Err(OnnxError::unsupported(label, "segmented tensors"));
    }
    let numel = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d as usize))
        .ok_or_else(|| OnnxError::invalid(&label, format!("dims {shape:?} overflow")))?;
    let narrow = NarrowType::from_onnx(proto.data_type);
    let nbytes = match narrow {
        Some(n) => Some(numel.div_ceil(8 / n.bits())),
        None => numel.checked_mul(dtype.size_in_bytes()),
    }
    .ok_or_else(|| OnnxError::invalid(&label, format!("dims {shape:?} overflow")))?;

    let fields = present_fields(proto);
    if fields.len() > 1 {
        return Err(OnnxError::invalid(
            label,
            format!("data in more than one field: {}", fields.join(", ")),
        ));
    }
    let data = if is_external(proto) {
        if let Some(field) = fields.first() {
            return Err(OnnxError::invalid(
                label,
                format!("data_location is EXTERNAL but {field} is set too"),
            ));
        }
        let Some(base_dir) = base_dir else {
            return Err(OnnxError::external(
                label,
                "the data is in an external file, but the tensor was not read from a file, \
                 so there is no directory to find it in",
            ));
        };
        let external = ExternalData::parse(proto, &label)?;
        let bytes = external.read(base_dir, nbytes as u64, &label)?;
        match narrow {
            Some(n) => narrow_data(n, &bytes, numel, &label)?,
            None => from_le_bytes(dtype, &bytes),
        }
    } else if proto.data_location != DataLocation::Default as i32 {
        return Err(OnnxError::invalid(
            label,
            format!("unknown data_location {}", proto.data_location),
        ));
    } else {
        match fields.first().copied() {
            None if numel == 0 => TensorData::zeros(dtype, 0),
            None => {
                return Err(OnnxError::invalid(
                    label,
                    format!("no data for its {numel} elements"),
                ));
            }
            Some("raw_data") => {
                if proto.raw_data.len() != nbytes {
                    return Err(OnnxError::invalid(
                        label,
                        format!(
                            "raw_data has {} bytes, but {numel} {} elements take {nbytes}",
                            proto.raw_data.len(),
                            data_type_name(proto.data_type)
                        ),
                    ));
                }
                match narrow {
                    Some(n) => narrow_data(n, &proto.raw_data, numel, &label)?,
                    None => from_le_bytes(dtype, &proto.raw_data),
                }
            }
            Some(field) => match narrow {
                Some(n) => narrow_from_int32_data(proto, n, field, numel, &label)?,
                None => from_typed_field(proto, dtype, field, numel, &label)?,
            },
        }
    };
    Tensor::new(shape, data).map_err(|e| OnnxError::invalid(label, e.0))
}

/// A narrow type's elements, stored packed in `bytes`, in their carrier type.
fn narrow_data(narrow: NarrowType, bytes: &[u8], numel: usize, label: &str) -> Result<TensorData> {
    let codes = unpack(narrow, bytes, numel).ok_or_else(|| {
        OnnxError::invalid(
            label,
            format!(
                "{} bytes hold {numel} {} elements, which take {}",
                bytes.len(),
                narrow.name(),
                numel.div_ceil(8 / narrow.bits())
            ),
        )
    })?;
    let values = codes.into_iter().map(|c| narrow.value_of(c));
    Ok(match narrow.carrier() {
        DType::I8 => TensorData::I8(values.map(|v| v as i8).collect()),
        DType::U8 => TensorData::U8(values.map(|v| v as u8).collect()),
        _ => TensorData::F32(values.map(|v| v as f32).collect()),
    })
}

/// A narrow type's elements from `int32_data`: one byte of packed elements per entry.
fn narrow_from_int32_data(
    proto: &TensorProto,
    narrow: NarrowType,
    field: &str,
    numel: usize,
    label: &str,
) -> Result<TensorData> {
    if field != "int32_data" {
        return Err(OnnxError::invalid(
            label,
            format!(
                "{} elements must be in int32_data or raw_data, not {field}",
                narrow.name()
            ),
        ));
    }
    let bytes = proto
        .int32_data
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            u8::try_from(v).map_err(|_| {
                OnnxError::invalid(
                    label,
                    format!(
                        "int32_data[{i}] = {v} is not a byte of {} elements",
                        narrow.name()
                    ),
                )
            })
        })
        .collect::<Result<Vec<u8>>>()?;
    narrow_data(narrow, &bytes, numel, label)
}

/// The names of the data fields that hold elements.
fn present_fields(proto: &TensorProto) -> Vec<&'static str> {
    let fields = [
        ("raw_data", proto.raw_data.is_empty()),
        ("float_data", proto.float_data.is_empty()),
        ("int32_data", proto.int32_data.is_empty()),
        ("int64_data", proto.int64_data.is_empty()),
        ("double_data", proto.double_data.is_empty()),
        ("uint64_data", proto.uint64_data.is_empty()),
        ("string_data", proto.string_data.is_empty()),
    ];
    fields
        .into_iter()
        .filter(|&(_, empty)| !empty)
        .map(|(name, _)| name)
        .collect()
}

/// Decodes little-endian elements; `bytes.len()` is a multiple of the element size.
fn from_le_bytes(dtype: DType, bytes: &[u8]) -> TensorData {
    fn each<const N: usize, T>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        bytes
            .chunks_exact(N)
            .map(|c| {
                let mut a = [0; N];
                a.copy_from_slice(c);
                f(a)
            })
            .collect()
    }
    match dtype {
        DType::F32 => TensorData::F32(each(bytes, f32::from_le_bytes)),
        DType::F64 => TensorData::F64(each(bytes, f64::from_le_bytes)),
        DType::F16 => TensorData::F16(each(bytes, |a| f16::from_bits(u16::from_le_bytes(a)))),
        DType::BF16 => TensorData::BF16(each(bytes, |a| bf16::from_bits(u16::from_le_bytes(a)))),
        DType::I8 => TensorData::I8(each(bytes, i8::from_le_bytes)),
        DType::I16 => TensorData::I16(each(bytes, i16::from_le_bytes)),
        DType::I32 => TensorData::I32(each(bytes, i32::from_le_bytes)),
        DType::I64 => TensorData::I64(each(bytes, i64::from_le_bytes)),
        DType::U8 => TensorData::U8(bytes.to_vec()),
        DType::U16 => TensorData::U16(each(bytes, u16::from_le_bytes)),
        DType::U32 => TensorData::U32(each(bytes, u32::from_le_bytes)),
        DType::U64 => TensorData::U64(each(bytes, u64::from_le_bytes)),
        // numpy reads any non-zero byte as true; so do we.
        DType::Bool => TensorData::Bool(bytes.iter().map(|&b| b != 0).collect()),
    }
}

/// Decodes the typed field `field`, which must be the one ONNX assigns to `dtype` and hold
/// exactly `numel` in-range values.
fn from_typed_field(
    proto: &TensorProto,
    dtype: DType,
    field: &str,
    numel: usize,
    label: &str,
) -> Result<TensorData> {
    let expected_field = match dtype {
        DType::F32 => "float_data",
        DType::F64 => "double_data",
        DType::I64 => "int64_data",
        DType::U32 | DType::U64 => "uint64_data",
        DType::I32
        | DType::I16
        | DType::I8
        | DType::U16
        | DType::U8
        | DType::Bool
        | DType::F16
        | DType::BF16 => "int32_data",
    };
    let type_name = data_type_name(proto.data_type);
    if field != expected_field {
        return Err(OnnxError::invalid(
            label,
            format!("{type_name} elements must be in {expected_field} or raw_data, not {field}"),
        ));
    }
    let count = match field {
        "float_data" => proto.float_data.len(),
        "double_data" => proto.double_data.len(),
        "int64_data" => proto.int64_data.len(),
        "uint64_data" => proto.uint64_data.len(),
        _ => proto.int32_data.len(),
    };
    if count != numel {
        return Err(OnnxError::invalid(
            label,
            format!("{field} has {count} elements, but the dims need {numel}"),
        ));
    }
    // Narrows each stored value into the element type, failing on the first that does not fit.
    fn narrow<S: Copy + std::fmt::Display, T>(
        values: &[S],
        convert: impl Fn(S) -> Option<T>,
        label: &str,
        field: &str,
        type_name: &str,
    ) -> Result<Vec<T>> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                convert(v).ok_or_else(|| {
                    OnnxError::invalid(
                        label,
                        format!("{field}[{i}] = {v} is out of range for {type_name}"),
                    )
                })
            })
            .collect()
    }
    macro_rules! ints {
        ($convert:expr) => {
            narrow(&proto.int32_data, $convert, label, field, &type_name)?
        };
    }
    Ok(match dtype {
        DType::F32 => TensorData::F32(proto.float_data.clone()),
        DType::F64 => TensorData::F64(proto.double_data.clone()),
        DType::I64 => TensorData::I64(proto.int64_data.clone()),
        DType::U64 => TensorData::U64(proto.uint64_data.clone()),
        DType::U32 => TensorData::U32(narrow(
            &proto.uint64_data,
            |v| u32::try_from(v).ok(),
            label,
            field,
            &type_name,
        )?),
        DType::I32 => TensorData::I32(proto.int32_data.clone()),
        DType::I16 => TensorData::I16(ints!(|v| i16::try_from(v).ok())),
        DType::I8 => TensorData::I8(ints!(|v| i8::try_from(v).ok())),
        DType::U16 => TensorData::U16(ints!(|v| u16::try_from(v).ok())),
        DType::U8 => TensorData::U8(ints!(|v| u8::try_from(v).ok())),
        DType::Bool => TensorData::Bool(ints!(|v| Some(v != 0))),
        // The 16-bit pattern, zero-extended into the int32.
        DType::F16 => TensorData::F16(ints!(|v| u16::try_from(v).ok().map(f16::from_bits))),
        DType::BF16 => TensorData::BF16(ints!(|v| u16::try_from(v).ok().map(bf16::from_bits))),
    })
}
