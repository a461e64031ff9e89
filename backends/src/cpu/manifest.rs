//! The manifest that travels with an emitted library: for each entry point, its C symbol and
//! the name, element type (as numpy names it) and shape of every input and output, in call
//! order, as JSON. A loader (`tb-run`, the Python package) calls the library from it alone.

use std::fmt::Write;

use super::abi::{AbiParam, EntryPoint, Role};
use super::header::parameter_names;
use super::types::ElementKind;

/// The version of the manifest's layout; bumped when a field changes meaning (2: entry
/// points return an `int32_t` status, whose messages `statuses` lists).
pub const MANIFEST_VERSION: u32 = 2;

/// numpy's name for an element type (`bfloat16` is ml_dtypes' name).
pub fn numpy_dtype(element: ElementKind) -> &'static str {
    match element {
        ElementKind::Bool => "bool",
        ElementKind::Int {
            bits,
            unsigned: false,
        } => match bits {
            8 => "int8",
            16 => "int16",
            32 => "int32",
            _ => "int64",
        },
        ElementKind::Int {
            bits,
            unsigned: true,
        } => match bits {
            8 => "uint8",
            16 => "uint16",
            32 => "uint32",
            _ => "uint64",
        },
        ElementKind::Index => "int64",
        ElementKind::F16 => "float16",
        ElementKind::BF16 => "bfloat16",
        ElementKind::F32 => "float32",
        ElementKind::F64 => "float64",
    }
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                write!(out, "\\u{:04x}", c as u32).ok();
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn param_json(param: &AbiParam, c_name: &str) -> String {
    let name = param.name.as_deref().unwrap_or(c_name);
    let shape = match &param.shape {
        Some(dims) => format!(
            "[{}]",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "null".to_owned(),
    };
    format!(
        "{{\"name\": {}, \"c_name\": {}, \"dtype\": \"{}\", \"shape\": {shape}, \"ir_type\": {}}}",
        json_string(name),
        json_string(c_name),
        numpy_dtype(param.element),
        json_string(&param.ir_type)
    )
}

/// What a manifest records besides the entry points.
pub struct ManifestInfo<'a> {
    /// The library's file name (relative to the manifest).
    pub library: &'a str,
    /// The header's file name (relative to the manifest).
    pub header: &'a str,
    /// The input the module came from.
    pub source: &'a str,
    /// The thread count parallel loops were compiled for (`None`: they run in order).
    pub threads: Option<usize>,
}

/// The manifest of a library exporting `entry_points`. A scalar input has `"shape": null`;
/// a scalar output has shape `[]`.
pub fn manifest(entry_points: &[EntryPoint], info: &ManifestInfo) -> String {
    let mut out = String::from("{\n");
    writeln!(out, "  \"format\": \"tensorbind-library\",").ok();
    writeln!(out, "  \"version\": {MANIFEST_VERSION},").ok();
    writeln!(out, "  \"library\": {},", json_string(info.library)).ok();
    writeln!(out, "  \"header\": {},", json_string(info.header)).ok();
    writeln!(out, "  \"source\": {},", json_string(info.source)).ok();
    let threads = info
        .threads
        .map_or_else(|| "null".to_owned(), |t| t.to_string());
    writeln!(out, "  \"threads\": {threads},").ok();
    out.push_str("  \"functions\": [");
    for (i, entry) in entry_points.iter().enumerate() {
        let names = parameter_names(entry);
        let list = |role: Role| {
            entry
                .params
                .iter()
                .zip(&names)
                .filter(|(p, _)| p.role == role)
                .map(|(p, n)| format!("\n        {}", param_json(p, n)))
                .collect::<Vec<_>>()
                .join(",")
        };
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        writeln!(out, "    {{").ok();
        writeln!(out, "      \"name\": {},", json_string(&entry.name)).ok();
        writeln!(out, "      \"symbol\": {},", json_string(&entry.symbol)).ok();
        writeln!(out, "      \"inputs\": [{}\n      ],", list(Role::Input)).ok();
        writeln!(out, "      \"outputs\": [{}\n      ],", list(Role::Output)).ok();
        let messages = entry.status.as_ref().map_or(&[][..], |s| &s.messages[..]);
        let statuses: Vec<String> = (1..)
            .zip(messages)
            .map(|(code, m)| {
                format!(
                    "\n        {{\"code\": {code}, \"message\": {}}}",
                    json_string(m)
                )
            })
            .collect();
        let end = if statuses.is_empty() { "" } else { "\n      " };
        writeln!(out, "      \"statuses\": [{}{end}]", statuses.join(",")).ok();
        out.push_str("    }");
    }
    out.push_str("\n  ]\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(role: Role, name: Option<&str>, shape: Option<Vec<i64>>) -> AbiParam {
        AbiParam {
            role,
            element: ElementKind::F32,
            shape,
            ir_type: "memref<2x3xf32>".to_owned(),
            read_only: true,
            name: name.map(str::to_owned),
        }
    }

    #[test]
    fn names_shapes_and_dtypes_of_every_parameter() {
        let entry = EntryPoint {
            status: None,
            name: "model".to_owned(),
            symbol: "tb_model".to_owned(),
            params: vec![
                param(Role::Input, Some("input.1"), Some(vec![2, 3])),
                param(Role::Input, None, None),
                param(Role::Output, Some("probs \"x\""), Some(vec![])),
            ],
        };
        let info = ManifestInfo {
            library: "libm.so",
            header: "libm.h",
            source: "m.onnx",
            threads: Some(4),
        };
        let text = manifest(&[entry], &info);
        assert!(text.contains("\"library\": \"libm.so\""), "{text}");
        assert!(text.contains("\"threads\": 4"), "{text}");
        assert!(
            text.contains("{\"name\": \"input.1\", \"c_name\": \"input_1\", \"dtype\": \"float32\", \"shape\": [2, 3]"),
            "{text}"
        );
        assert!(
            text.contains(
                "{\"name\": \"in1\", \"c_name\": \"in1\", \"dtype\": \"float32\", \"shape\": null"
            ),
            "{text}"
        );
        assert!(
            text.contains("\"name\": \"probs \\\"x\\\"\", \"c_name\": \"probs__x_\""),
            "{text}"
        );
    }
}
