//! The whole node suite as tb-onnx reads it, against the same description produced by the
//! onnx Python package (tests/support/describe_suite.py): opsets, value types with symbolic
//! dims, nodes, every attribute value (floats bit for bit, subgraphs included), and the
//! contents of every attribute tensor and test-data tensor as a CRC-32 of its little-endian
//! bytes — which covers every element type the interpreter has, against numpy_helper.

mod common;

use std::fmt::Write;
use std::path::Path;

use tb_interpreter::Tensor;
use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::{GraphProto, NodeProto, TensorProto};
use tb_onnx::{
    Model, NodeAttrs, ValueType, data_type_name, decode_type, read_tensor_file, read_tensor_proto,
    value_type,
};

/// CRC-32 (IEEE 802.3, as zlib.crc32 computes it).
fn crc32(bytes: &[u8]) -> u32 {
    let table: Vec<u32> = (0..256u32)
        .map(|mut c| {
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            c
        })
        .collect();
    !bytes.iter().fold(!0u32, |crc, &b| {
        table[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8)
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn type_text(t: &ValueType) -> String {
    let inner = |t: &Option<Box<ValueType>>| t.as_deref().map_or("?".into(), type_text);
    match t {
        ValueType::Tensor(t) => t.to_string(),
        ValueType::SparseTensor(t) => format!("sparse {t}"),
        ValueType::Sequence(e) => format!("sequence({})", inner(e)),
        ValueType::Optional(e) => format!("optional({})", inner(e)),
        ValueType::Map { key_type, value } => {
            format!("map({},{})", data_type_name(*key_type), inner(value))
        }
        ValueType::Unknown => "?".into(),
    }
}

/// `TYPE[dims] crc`, or `TYPE[dims] -` for element types the interpreter lacks.
fn tensor_text(proto: &TensorProto, decoded: tb_onnx::Result<Tensor>) -> String {
    let dims: Vec<String> = proto.dims.iter().map(|d| d.to_string()).collect();
    let head = format!("{}[{}]", data_type_name(proto.data_type), dims.join(","));
    match decoded {
        Ok(t) => {
            let mut bytes = common::le_bytes(&t);
            // A narrow float (FLOAT8*, FLOAT4*) is held as f32; its NaNs are compared as one
            // canonical NaN, since their sign and payload are not the narrow code's.
            let name = data_type_name(proto.data_type);
            if name.starts_with("FLOAT8") || name.starts_with("FLOAT4") {
                for chunk in bytes.chunks_exact_mut(4) {
                    let v = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                    if v.is_nan() {
                        chunk.copy_from_slice(&f32::NAN.to_le_bytes());
                    }
                }
            }
            format!("{head} {:08x}", crc32(&bytes))
        }
        Err(e) if e.is_unsupported() => format!("{head} -"),
        Err(e) => panic!("{e}"),
    }
}

fn describe_graph(model: &Model, g: &GraphProto, indent: &str, out: &mut String) {
    for (what, values) in [("input", &g.input), ("output", &g.output)] {
        for vi in values {
            let ty = value_type(vi).unwrap_or_else(|e| panic!("{e}"));
            writeln!(out, "{indent}{what} {} {}", vi.name, type_text(&ty)).unwrap();
        }
    }
    for t in &g.initializer {
        writeln!(
            out,
            "{indent}initializer {} {}",
            t.name,
            tensor_text(t, model.tensor(t))
        )
        .unwrap();
    }
    for n in &g.node {
        let op = if n.domain.is_empty() {
            n.op_type.clone()
        } else {
            format!("{}.{}", n.domain, n.op_type)
        };
        let (ins, outs) = (n.input.join(","), n.output.join(","));
        writeln!(out, "{indent}node {op} ({ins}) -> ({outs})").unwrap();
        for a in &n.attribute {
            describe_attribute(model, n, &a.name, &format!("{indent}  "), out);
        }
    }
}

fn describe_attribute(model: &Model, n: &NodeProto, name: &str, indent: &str, out: &mut String) {
    let fail = |e: tb_onnx::AttrError| -> ! { panic!("{e}") };
    let a = n.attribute(name).unwrap();
    let kind = AttributeType::try_from(a.r#type).unwrap();
    let bits = |f: &f32| f.to_bits().to_string();
    let value = match kind {
        AttributeType::Int => n
            .attr_int(name)
            .unwrap_or_else(|e| fail(e))
            .unwrap()
            .to_string(),
        AttributeType::Float => bits(&n.attr_float(name).unwrap_or_else(|e| fail(e)).unwrap()),
        AttributeType::String => hex(n
            .attr_string(name)
            .unwrap_or_else(|e| fail(e))
            .unwrap()
            .as_bytes()),
        AttributeType::Ints => {
            let v = n.attr_ints(name).unwrap_or_else(|e| fail(e)).unwrap();
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
        }
        AttributeType::Floats => {
            let v = n.attr_floats(name).unwrap_or_else(|e| fail(e)).unwrap();
            v.iter().map(bits).collect::<Vec<_>>().join(",")
        }
        AttributeType::Strings => {
            let v = n.attr_strings(name).unwrap_or_else(|e| fail(e)).unwrap();
            v.iter()
                .map(|s| hex(s.as_bytes()))
                .collect::<Vec<_>>()
                .join(",")
        }
        AttributeType::Tensor => {
            let proto = n
                .attr_tensor_proto(name)
                .unwrap_or_else(|e| fail(e))
                .unwrap();
            tensor_text(proto, model.tensor(proto))
        }
        AttributeType::Graph => {
            writeln!(out, "{indent}attr {name} GRAPH").unwrap();
            let g = n.attr_graph(name).unwrap_or_else(|e| fail(e)).unwrap();
            describe_graph(model, g, &format!("{indent}  "), out);
            return;
        }
        _ => "?".into(),
    };
    writeln!(out, "{indent}attr {name} {} {value}", kind.as_str_name()).unwrap();
}

fn describe_case(root: &Path, name: &str, out: &mut String) {
    let dir = root.join(name);
    let model = Model::load(dir.join("model.onnx")).unwrap_or_else(|e| panic!("{e}"));
    writeln!(out, "case {name}").unwrap();
    writeln!(out, "ir {}", model.ir_version()).unwrap();
    for (domain, version) in model.opsets().iter() {
        writeln!(out, "opset {domain} {version}").unwrap();
    }
    describe_graph(&model, model.graph(), "", out);
    let data = dir.join("test_data_set_0");
    let inputs = model.runtime_inputs();
    let outputs: Vec<_> = model.graph().output.iter().collect();
    for (prefix, values) in [("input", inputs), ("output", outputs)] {
        for (i, vi) in values.iter().enumerate() {
            let file = format!("{prefix}_{i}.pb");
            let ty = decode_type(vi.r#type.as_ref().unwrap()).unwrap();
            let text = match ty {
                ValueType::Tensor(_) => {
                    let path = data.join(&file);
                    let proto = read_tensor_proto(&path).unwrap_or_else(|e| panic!("{e}"));
                    tensor_text(&proto, read_tensor_file(&path))
                }
                other => other.kind().to_string(),
            };
            writeln!(out, "{file} {text}").unwrap();
        }
    }
}

#[test]
fn whole_suite_reads_as_onnx_python_reads_it() {
    const TEST: &str = "whole_suite_reads_as_onnx_python_reads_it";
    let Some(suite) = common::suite_or_skip(TEST) else {
        return;
    };
    let Some(python) = common::python_or_skip(TEST) else {
        return;
    };
    let expected = common::run_script(&python, "describe_suite.py", &[suite.root()]);
    let mut actual = String::new();
    let names = suite.case_names().unwrap();
    for name in &names {
        describe_case(suite.root(), name, &mut actual);
    }
    let (exp, act): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut case = "";
    let mut mismatches = Vec::new();
    for (i, (e, a)) in exp.iter().zip(&act).enumerate() {
        if let Some(name) = e.strip_prefix("case ") {
            case = name;
        }
        if e != a {
            mismatches.push(format!(
                "line {}, {case}:\n  onnx:    {e}\n  tb-onnx: {a}",
                i + 1
            ));
        }
    }
    let tensor_lines = exp.iter().filter(|l| l.contains(".pb ")).count();
    println!(
        "{} cases, {} description lines ({tensor_lines} test-data values), {} mismatches",
        names.len(),
        exp.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty() && exp.len() == act.len(),
        "{} mismatching lines (python {} lines, rust {}); first ones:\n{}",
        mismatches.len(),
        exp.len(),
        act.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    assert!(names.len() >= 1700, "only {} cases", names.len());
}
