//! Declared types (`value_info`, graph outputs) against the types the importer infers. A
//! declaration may leave the element type or any dimension unknown or symbolic; what it
//! does state must hold, or the file lies about its own values.

use tb_interpreter::DType;

use crate::proto::ValueInfoProto;
use crate::value_type::{Dim, ValueType, value_type};

/// Why `declared` does not describe a tensor of `shape` and `dtype`, if it does not.
pub fn mismatch(declared: &ValueInfoProto, shape: &[i64], dtype: DType) -> Option<String> {
    let computed = || {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        format!(
            "{}[{}]",
            crate::data_type_name(crate::onnx_from_dtype(dtype) as i32),
            dims.join(",")
        )
    };
    let tensor = match value_type(declared) {
        Ok(ValueType::Tensor(t)) => t,
        Ok(ValueType::Unknown) => return None,
        Ok(other) => {
            return Some(format!(
                "is declared a {} but the imported graph computes the tensor {}",
                other.kind(),
                computed()
            ));
        }
        Err(e) => return Some(format!("has an invalid declared type: {e}")),
    };
    let dtype_ok = tensor.elem_type == 0 || tensor.dtype().ok() == Some(dtype);
    let shape_ok = match &tensor.shape {
        None => true,
        Some(dims) => {
            dims.len() == shape.len()
                && dims
                    .iter()
                    .zip(shape)
                    .all(|(d, &s)| !matches!(d, Dim::Known(n) if *n != s))
        }
    };
    if dtype_ok && shape_ok {
        return None;
    }
    Some(format!(
        "is declared {tensor} but the imported graph computes {}",
        computed()
    ))
}
