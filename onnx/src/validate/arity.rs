//! Input and output counts per operator schema: a node must pass between the schema's
//! minimum and maximum number of inputs and outputs (trailing `""` included, as ONNX counts
//! them), and may leave out (`""`) no single (non-optional, non-variadic) one.

use crate::import::Problem;
use crate::proto::NodeProto;

use super::node_at;
use super::schema::{Formal, Schema};

/// Checks `node` (number `index`) against `schema`, the version opset `opset` uses.
pub fn check(
    index: usize,
    node: &NodeProto,
    schema: &Schema,
    opset: i64,
    errors: &mut Vec<Problem>,
) {
    let at = || node_at(index, node);
    let counts = [
        ("inputs", &node.input, schema.inputs),
        ("outputs", &node.output, schema.outputs),
    ];
    for (what, names, (min, max)) in counts {
        if names.len() < min || names.len() > max {
            let range = if min == max {
                format!("{min}")
            } else if max >= i32::MAX as usize {
                format!("at least {min}")
            } else {
                format!("{min} to {max}")
            };
            errors.push(
                Problem::invalid(format!(
                    "has {} {what}, but {} in opset {opset} takes {range}",
                    names.len(),
                    schema.op_type,
                ))
                .at(at()),
            );
            return;
        }
    }
    for (i, name) in node.input.iter().enumerate() {
        if name.is_empty() && schema.input_formal(i) == Formal::Single {
            errors.push(
                Problem::invalid(format!(
                    "input #{i} is required but is left out (named \"\")"
                ))
                .at(at()),
            );
        }
    }
    for (i, name) in node.output.iter().enumerate() {
        if name.is_empty() && schema.output_formal(i) == Formal::Single {
            errors.push(
                Problem::invalid(format!(
                    "output #{i} is required but is left out (named \"\")"
                ))
                .at(at()),
            );
        }
    }
}
