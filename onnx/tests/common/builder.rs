//! Small ONNX models built in Rust with the crate's protobuf types, for the validation,
//! size and fuzz tests.

use tb_onnx::Model;
use tb_onnx::import::cleanup::RegisterPasses;
use tb_onnx::import::{ImportError, ImportOptions, Imported, import_model};
use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::tensor_proto::DataType;
use tb_onnx::proto::tensor_shape_proto::{Dimension, dimension};
use tb_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto, type_proto,
};

/// A `FLOAT` tensor value with static dims.
pub fn float(name: &str, dims: &[i64]) -> ValueInfoProto {
    typed(name, DataType::Float, dims)
}

pub fn typed(name: &str, elem: DataType, dims: &[i64]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|&d| Dimension {
            value: Some(dimension::Value::DimValue(d)),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: elem as i32,
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: name.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

pub fn with_attr(mut n: NodeProto, a: AttributeProto) -> NodeProto {
    n.attribute.push(a);
    n
}

pub fn attr_int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i: v,
        ..Default::default()
    }
}

pub fn attr_float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f: v,
        ..Default::default()
    }
}

pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: v.to_vec(),
        ..Default::default()
    }
}

pub fn ints(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        data_type: DataType::Int64 as i32,
        dims: vec![v.len() as i64],
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

pub fn scalar_int(name: &str, v: i64) -> TensorProto {
    TensorProto {
        name: name.into(),
        data_type: DataType::Int64 as i32,
        int64_data: vec![v],
        ..Default::default()
    }
}

pub fn floats(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        data_type: DataType::Float as i32,
        dims: dims.to_vec(),
        float_data: v.to_vec(),
        ..Default::default()
    }
}

/// A model of opset `opset` (IR version 8).
pub fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(GraphProto {
            name: "g".into(),
            node: nodes,
            input: inputs,
            output: outputs,
            initializer: initializers,
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub fn graph_mut(m: &mut ModelProto) -> &mut GraphProto {
    m.graph.as_mut().expect("built models have a graph")
}

/// Reads and imports `proto` as `tb-translate` would, warnings kept out of stderr.
pub fn import(proto: ModelProto, cleanup: bool) -> Result<Imported, ImportError> {
    let model = Model::new(proto, None).map_err(|e| ImportError {
        file: "model.onnx".into(),
        problems: vec![tb_onnx::import::Problem::invalid(e.to_string())],
    })?;
    let options = ImportOptions {
        cleanup: cleanup.then_some(tb_passes::register_all as RegisterPasses),
        warnings_to_stderr: false,
        ..ImportOptions::default()
    };
    import_model(&model, &options)
}

/// The import error's text, panicking if the import succeeds.
pub fn import_error(proto: ModelProto) -> String {
    match import(proto, true) {
        Ok(_) => panic!("the model imported"),
        Err(e) => e.to_string(),
    }
}

/// The imported module as text, panicking on an import error.
pub fn imported_text(proto: ModelProto, cleanup: bool) -> String {
    let imported = import(proto, cleanup).unwrap_or_else(|e| panic!("{e}"));
    let options = tb_ir::printer::PrintOptions {
        generic: false,
        debug_info: false,
        local_scope: false,
    };
    tb_ir::printer::print_operation(&imported.ctx, imported.module, options)
}
