//! The signatures of a module's `func.func`s as MLIR's C interface passes their values:
//! which arguments and results are memrefs (strided descriptors) and which are scalars,
//! with the element type each holds.

use std::collections::HashMap;

use melior::ir::attribute::{StringAttribute, TypeAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::{DimSize, FunctionType, MemRefType};
use melior::ir::{BlockLike, Module, ShapedTypeLike, Type};
use tb_tensor::DType;

/// One argument or result of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A ranked memref, passed as a strided descriptor; `None` sizes are dynamic.
    MemRef {
        element: DType,
        sizes: Vec<Option<i64>>,
        /// The strides the type fixes (`None` where dynamic); row-major for the identity
        /// layout.
        strides: Vec<Option<i64>>,
    },
    /// A scalar, passed by value.
    Scalar(DType),
}

impl Param {
    pub fn element(&self) -> DType {
        match self {
            Param::MemRef { element, .. } | Param::Scalar(element) => *element,
        }
    }
}

/// The arguments and results of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub arguments: Vec<Param>,
    pub results: Vec<Param>,
}

/// The signature of every `func.func` at the top of `module` that has a body, by name.
/// A function whose signature holds a type the C interface marshalling here does not
/// handle maps to why.
pub fn signatures(module: &Module) -> HashMap<String, Result<Signature, String>> {
    let mut found = HashMap::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("func.func") {
            continue;
        }
        let Some(name) = op
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(|a| a.value().to_owned())
        else {
            continue;
        };
        let signature = op
            .attribute("function_type")
            .ok()
            .and_then(|a| TypeAttribute::try_from(a).ok())
            .and_then(|a| FunctionType::try_from(a.value()).ok())
            .ok_or_else(|| "it has no function type".to_owned())
            .and_then(|ty| {
                let arguments = (0..ty.input_count())
                    .map(|i| param(ty.input(i).expect("index in range")))
                    .collect::<Result<_, _>>()?;
                let results = (0..ty.result_count())
                    .map(|i| param(ty.result(i).expect("index in range")))
                    .collect::<Result<_, _>>()?;
                Ok(Signature { arguments, results })
            });
        found.insert(name, signature);
    }
    found
}

fn param(ty: Type) -> Result<Param, String> {
    if let Ok(memref) = MemRefType::try_from(ty) {
        let element = element(memref.element())?;
        let sizes = (0..memref.rank())
            .map(|d| match memref.dim_size(d) {
                Ok(DimSize::Static(n)) => Some(n as i64),
                _ => None,
            })
            .collect();
        let (strides, _offset) = memref.strides_and_offset();
        let dynamic = <MemRefType as ShapedTypeLike>::dynamic_stride_or_offset();
        let strides = strides
            .into_iter()
            .map(|s| (s != dynamic).then_some(s))
            .collect();
        return Ok(Param::MemRef {
            element,
            sizes,
            strides,
        });
    }
    let text = ty.to_string();
    if text.starts_with("memref<*") {
        return Err(format!("unranked '{text}' is not passed"));
    }
    element(ty).map(Param::Scalar)
}

/// The tensor element type that holds values of MLIR type `ty` with the same bits:
/// signless integers map to the signed types, `i1` to bool, `index` to `i64` (64-bit
/// hosts).
fn element(ty: Type) -> Result<DType, String> {
    let text = ty.to_string();
    Ok(match text.as_str() {
        "f32" => DType::F32,
        "f64" => DType::F64,
        "f16" => DType::F16,
        "bf16" => DType::BF16,
        "i1" => DType::Bool,
        "i8" | "si8" => DType::I8,
        "i16" | "si16" => DType::I16,
        "i32" | "si32" => DType::I32,
        "i64" | "si64" | "index" => DType::I64,
        "ui8" => DType::U8,
        "ui16" => DType::U16,
        "ui32" => DType::U32,
        "ui64" => DType::U64,
        _ => return Err(format!("element type '{text}' is not passed")),
    })
}
