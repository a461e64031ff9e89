//! The C header declaring a compiled module's entry points, with each parameter's shape.

use std::fmt::Write;

use super::abi::{AbiParam, EntryPoint, Role};

/// The include guard for a header named `file_name` (`matmul.h` -> `TB_MATMUL_H`).
fn guard(file_name: &str) -> String {
    let mut guard = String::from("TB_");
    for c in file_name.chars() {
        guard.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    if !file_name.to_ascii_lowercase().ends_with(".h") {
        guard.push_str("_H");
    }
    guard
}

fn shape_text(shape: &[i64]) -> String {
    if shape.is_empty() {
        return "one element".to_owned();
    }
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

/// The C declaration of one parameter, and the comment line describing it.
fn declare(param: &AbiParam, name: &str) -> (String, String) {
    let c_type = param.element.c_type(param.is_pointer());
    let declaration = match param.role {
        Role::Input if !param.is_pointer() => format!("{c_type} {name}"),
        Role::Input if param.read_only => format!("const {c_type}* {name}"),
        _ => format!("{c_type}* {name}"),
    };
    let mut comment = format!(" *   {name}: {}", param.ir_type);
    if let Some(shape) = &param.shape {
        write!(
            comment,
            ", {} {}",
            shape_text(shape),
            if param.role == Role::Output {
                "written by the call"
            } else if param.read_only {
                "read"
            } else {
                "read and written"
            }
        )
        .ok();
    }
    if param.is_pointer() && matches!(c_type, "uint16_t") && param.element.is_float() {
        comment.push_str(" (16-bit float bits)");
    }
    (declaration, comment)
}

/// C's keywords, which a parameter name must not be.
const C_KEYWORDS: &[&str] = &[
    "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "true", "false",
];

/// The C parameter names of `entry`: each parameter's model name made a C identifier
/// (other characters become `_`), or `in<i>`/`out<i>` where it has none, or where that
/// identifier would be a keyword, start with a digit, or repeat an earlier one.
pub fn parameter_names(entry: &EntryPoint) -> Vec<String> {
    let (mut inputs, mut outputs) = (0, 0);
    let mut taken = std::collections::HashSet::new();
    let mut names = Vec::with_capacity(entry.params.len());
    for param in &entry.params {
        let fallback = match param.role {
            Role::Input => {
                inputs += 1;
                format!("in{}", inputs - 1)
            }
            Role::Output => {
                outputs += 1;
                format!("out{}", outputs - 1)
            }
        };
        let from_model = param.name.as_deref().map(|n| {
            n.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect::<String>()
        });
        let name = from_model
            .filter(|n| {
                !n.is_empty()
                    && !n.starts_with(|c: char| c.is_ascii_digit())
                    && !n.starts_with("__")
                    && !C_KEYWORDS.contains(&n.as_str())
                    && !taken.contains(n)
            })
            .unwrap_or(fallback);
        let mut name = name;
        while taken.contains(&name) {
            name.push('_');
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

/// `text` safe inside a C block comment.
fn comment_text(text: &str) -> String {
    text.replace("*/", "* /").replace(['\n', '\r'], " ")
}

/// `text` as a C string literal.
fn c_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '?' => out.push_str("\\?"), // no trigraphs
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    write!(out, "\\{byte:03o}").ok();
                }
            }
        }
    }
    out.push('"');
    out
}

/// `static inline const char *<symbol>_status_message(int32_t code)`: the message of a
/// status code, NULL for 0.
fn status_message_function(out: &mut String, symbol: &str, messages: &[String]) {
    writeln!(
        out,
        "static inline const char *{symbol}_status_message(int32_t code) {{\n    switch (code) {{\n    case 0: return (const char *)0;"
    )
    .ok();
    for (code, message) in (1..).zip(messages) {
        writeln!(out, "    case {code}: return {};", c_string(message)).ok();
    }
    out.push_str("    default: return \"unknown status code\";\n    }\n}\n");
}

/// The header for `entry_points`, to be saved as `file_name`; `source` names the input the
/// module came from.
pub fn c_header(entry_points: &[EntryPoint], file_name: &str, source: &str) -> String {
    let guard = guard(file_name);
    let mut out = String::new();
    writeln!(
        out,
        "/* Generated by TensorBind from {source}; do not edit. */"
    )
    .ok();
    out.push_str(
        "/* Each function takes its inputs (buffers as contiguous row-major data, scalars by\n \
         * value), then one pointer per result, which the call fills. Buffers must not\n \
         * overlap, except inputs that are only read. It returns 0, or the code of a\n \
         * run-time check on the data that failed (its results are then unspecified);\n \
         * tb_<name>_status_message gives the code's message. */\n",
    );
    writeln!(out, "#ifndef {guard}\n#define {guard}\n").ok();
    out.push_str("#include <stdbool.h>\n#include <stdint.h>\n\n");
    out.push_str("#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
    for entry in entry_points {
        let names = parameter_names(entry);
        let mut declarations = Vec::new();
        let mut comments = Vec::new();
        for (param, name) in entry.params.iter().zip(&names) {
            let (declaration, comment) = declare(param, name);
            declarations.push(declaration);
            comments.push(comment);
        }
        writeln!(out, "\n/* @{}", entry.name).ok();
        for comment in comments {
            writeln!(out, "{comment}").ok();
        }
        let messages = entry.status.as_ref().map_or(&[][..], |s| &s.messages[..]);
        for (code, message) in (1..).zip(messages) {
            writeln!(out, " * returns {code}: {}", comment_text(message)).ok();
        }
        out.push_str(" */\n");
        let params = if declarations.is_empty() {
            "void".to_owned()
        } else {
            declarations.join(", ")
        };
        writeln!(out, "int32_t {}({params});", entry.symbol).ok();
        status_message_function(&mut out, &entry.symbol, messages);
    }
    out.push_str("\n#ifdef __cplusplus\n}\n#endif\n\n");
    writeln!(out, "#endif /* {guard} */").ok();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::types::ElementKind;

    fn param(role: Role, name: Option<&str>) -> AbiParam {
        AbiParam {
            role,
            element: ElementKind::F32,
            shape: Some(vec![4]),
            ir_type: "memref<4xf32>".to_owned(),
            read_only: role == Role::Input,
            name: name.map(str::to_owned),
        }
    }

    #[test]
    fn parameters_take_the_models_names_where_c_allows_them() {
        let entry = EntryPoint {
            status: None,
            name: "m".to_owned(),
            symbol: "tb_m".to_owned(),
            params: vec![
                param(Role::Input, Some("input.1")),
                param(Role::Input, Some("0x")),
                param(Role::Input, Some("int")),
                param(Role::Input, None),
                param(Role::Input, Some("input_1")),
                param(Role::Output, Some("out1")),
                param(Role::Output, None),
            ],
        };
        assert_eq!(
            parameter_names(&entry),
            vec!["input_1", "in1", "in2", "in3", "in4", "out1", "out1_"]
        );
        let header = c_header(&[entry], "m.h", "m.onnx");
        assert!(
            header.contains("int32_t tb_m(const float* input_1, const float* in1, const float* in2, const float* in3, const float* in4, float* out1, float* out1_);"),
            "{header}"
        );
    }
}
