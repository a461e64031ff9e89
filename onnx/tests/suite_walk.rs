//! Robustness: every case of ONNX's backend node suite loads — model, every attribute of
//! every node (subgraphs included), every declared value type, and the test data — or is
//! rejected as "unsupported" (string and complex element types, sequences, optionals).
//! Anything else is a reader bug. Prints the counts.

mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use tb_interpreter::Tensor;
use tb_onnx::attribute::attribute_type;
use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::{GraphProto, NodeProto, SparseTensorProto, TensorProto, TypeProto};
use tb_onnx::{ConformanceCase, Model, NodeAttrs, OnnxError, value_type};

/// Reads every attribute of every node in `graph` and its subgraphs through the typed
/// accessors; returns how many were read.
fn read_attributes(model: &Model, graph: &GraphProto) -> Result<usize, OnnxError> {
    let mut count = 0;
    for node in &graph.node {
        count += read_node_attributes(model, node)?;
    }
    for info in graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
    {
        value_type(info)?;
    }
    Ok(count)
}

fn read_node_attributes(model: &Model, node: &NodeProto) -> Result<usize, OnnxError> {
    let mut count = 0;
    for attr in &node.attribute {
        let name = attr.name.as_str();
        let Some(ty) = attribute_type(attr) else {
            panic!(
                "{}: attribute '{name}' has no type",
                tb_onnx::node_label(node)
            );
        };
        match ty {
            AttributeType::Int => drop(node.attr_required::<i64>(name)?),
            AttributeType::Float => drop(node.attr_required::<f32>(name)?),
            AttributeType::String => drop(node.attr_required::<String>(name)?),
            AttributeType::Ints => drop(node.attr_required::<Vec<i64>>(name)?),
            AttributeType::Floats => drop(node.attr_required::<Vec<f32>>(name)?),
            AttributeType::Strings => drop(node.attr_required::<Vec<String>>(name)?),
            AttributeType::Tensor => {
                let proto: &TensorProto = node.attr_required(name)?;
                tolerate_unsupported(model.tensor(proto).map(drop))?;
            }
            AttributeType::Tensors => {
                for t in node.attr_required::<&[TensorProto]>(name)? {
                    tolerate_unsupported(model.tensor(t).map(drop))?;
                }
            }
            AttributeType::Graph => {
                count += read_attributes(model, node.attr_required(name)?)?;
            }
            AttributeType::Graphs => {
                for g in node.attr_required::<&[GraphProto]>(name)? {
                    count += read_attributes(model, g)?;
                }
            }
            AttributeType::SparseTensor => {
                let s: &SparseTensorProto = node.attr_required(name)?;
                for t in s.values.iter().chain(&s.indices) {
                    tolerate_unsupported(model.tensor(t).map(drop))?;
                }
            }
            AttributeType::TypeProto => {
                tb_onnx::decode_type(node.attr_required::<&TypeProto>(name)?)?;
            }
            other => panic!("unexpected attribute type {other:?}"),
        }
        count += 1;
    }
    Ok(count)
}

fn tolerate_unsupported(r: Result<(), OnnxError>) -> Result<(), OnnxError> {
    match r {
        Err(e) if !e.is_unsupported() => Err(e),
        _ => Ok(()),
    }
}

/// Groups unsupported-errors by what is unsupported, for the printed summary.
fn reason(e: &OnnxError) -> String {
    let text = e.to_string();
    let what = text.rsplit("not supported: ").next().unwrap_or(&text);
    let what = what.split(';').next().unwrap_or(what);
    // "a sequence of 3 elements" and "a sequence of 2 elements" are one reason.
    what.split_whitespace()
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_suite_case_loads_or_is_unsupported() {
    let Some(suite) = common::suite_or_skip("every_suite_case_loads_or_is_unsupported") else {
        return;
    };
    let start = Instant::now();
    let names = suite.case_names().expect("list cases");
    let mut loaded = 0;
    let mut tensors = 0;
    let mut elements = 0;
    let mut attributes = 0;
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for name in &names {
        let dir = suite.case_dir(name);
        let model = match Model::load(dir.join("model.onnx")) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        match read_attributes(&model, model.graph()) {
            Ok(n) => attributes += n,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        match ConformanceCase::load(&dir) {
            Ok(case) => {
                loaded += 1;
                let all: Vec<&Tensor> = case.inputs.iter().chain(&case.outputs).collect();
                tensors += all.len();
                elements += all.iter().map(|t| t.numel()).sum::<usize>();
                assert_eq!(case.name, *name);
            }
            Err(e) if e.is_unsupported() => *unsupported.entry(reason(&e)).or_default() += 1,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let skipped: usize = unsupported.values().sum();
    println!(
        "node suite at {}: {} cases in {:.2?}: {loaded} loaded ({tensors} tensors, {elements} \
         elements, {attributes} attributes read), {skipped} unsupported, {} failed",
        suite.root().display(),
        names.len(),
        start.elapsed(),
        failures.len()
    );
    for (why, n) in &unsupported {
        println!("  unsupported {n:4}: {why}");
    }
    assert!(
        failures.is_empty(),
        "{} cases failed to load:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The pinned onnx 1.22.0 has 1,765 cases; most are plain numeric tensors.
    assert!(names.len() >= 1700, "only {} cases found", names.len());
    assert!(
        loaded >= 1500,
        "only {loaded} of {} cases loaded",
        names.len()
    );
}
