//! ONNX element-type codes (`TensorProto.DataType`) and how they map to the interpreter's
//! [`DType`]. ONNX has more element types than the interpreter (strings, complex numbers,
//! 8-, 4- and 2-bit formats); those have names here but no `DType`.

use tb_interpreter::DType;

use crate::proto::tensor_proto::DataType;

/// The interpreter's element type for an ONNX data-type code, or `None` for a code the
/// interpreter has no tensors of (or that ONNX does not define).
pub fn dtype_from_onnx(code: i32) -> Option<DType> {
    Some(match DataType::try_from(code).ok()? {
        DataType::Float => DType::F32,
        DataType::Double => DType::F64,
        DataType::Float16 => DType::F16,
        DataType::Bfloat16 => DType::BF16,
        DataType::Int8 => DType::I8,
        DataType::Int16 => DType::I16,
        DataType::Int32 => DType::I32,
        DataType::Int64 => DType::I64,
        DataType::Uint8 => DType::U8,
        DataType::Uint16 => DType::U16,
        DataType::Uint32 => DType::U32,
        DataType::Uint64 => DType::U64,
        DataType::Bool => DType::Bool,
        _ => return None,
    })
}

/// The ONNX data type of an interpreter element type (every `DType` has one).
pub fn onnx_from_dtype(dtype: DType) -> DataType {
    match dtype {
        DType::F32 => DataType::Float,
        DType::F64 => DataType::Double,
        DType::F16 => DataType::Float16,
        DType::BF16 => DataType::Bfloat16,
        DType::I8 => DataType::Int8,
        DType::I16 => DataType::Int16,
        DType::I32 => DataType::Int32,
        DType::I64 => DataType::Int64,
        DType::U8 => DataType::Uint8,
        DType::U16 => DataType::Uint16,
        DType::U32 => DataType::Uint32,
        DType::U64 => DataType::Uint64,
        DType::Bool => DataType::Bool,
    }
}

/// ONNX's name for a data-type code (`FLOAT`, `BFLOAT16` ...), for messages; codes ONNX
/// does not define read as `data type 99`.
pub fn data_type_name(code: i32) -> String {
    match DataType::try_from(code) {
        Ok(t) => t.as_str_name().to_string(),
        Err(_) => format!("data type {code}"),
    }
}
