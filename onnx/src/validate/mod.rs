//! Structural validation of a model before import, the part of
//! `onnx.checker.check_model(model, full_check=True)` that concerns what the importer reads:
//!
//! - [`versions`]: `ir_version` and default-domain opset in range (a warning for opsets newer
//!   than the importer is tested with);
//! - [`ssa`]: one writer per value name, no node output shadowing a graph input or
//!   initializer, every input defined before the node that reads it, every graph output
//!   defined;
//! - [`arity`]: input and output counts per operator schema and opset, no `""` where the
//!   schema wants a single (non-optional) value;
//! - [`attributes`]: no repeated or untyped attribute; against the schema, no unknown
//!   attribute, no missing required one, no attribute of the wrong type;
//! - [`initializers`]: a warning for each initializer no node reads;
//! - [`value_info`]: a declared `value_info` or graph output type that disagrees with the
//!   type the importer infers gets a warning (the importer calls it as it defines values).
//!
//! Operator schemas ([`schema`]) cover the operators the importer supports; other
//! operators are left to the importer's "not supported" report. Every problem names the
//! node by op type, name and index in the graph ([`node_at`]).

pub mod arity;
pub mod attributes;
pub mod initializers;
pub mod schema;
mod schemas;
pub mod ssa;
pub mod value_info;
pub mod versions;

use crate::import::Problem;
use crate::model::Model;
use crate::proto::NodeProto;

/// What validation found: errors make the model unusable, warnings do not.
#[derive(Debug, Default)]
pub struct Report {
    pub errors: Vec<Problem>,
    pub warnings: Vec<String>,
}

/// Validates `model`'s main graph.
pub fn validate(model: &Model) -> Report {
    let mut report = Report::default();
    versions::check(model, &mut report);
    ssa::check(model.graph(), &mut report.errors);
    initializers::check_unused(model.graph(), &mut report);
    let opset = model.opset_version("");
    for (index, node) in model.graph().node.iter().enumerate() {
        let before = report.errors.len();
        attributes::check_well_formed(index, node, model.ir_version(), &mut report.errors);
        if !is_default_domain(node) || report.errors.len() > before {
            continue;
        }
        let Some(opset) = opset else {
            report.errors.push(
                Problem::invalid("the model imports no default-domain opset for this operator")
                    .at(node_at(index, node)),
            );
            continue;
        };
        match schema::lookup(&node.op_type, opset) {
            schema::Lookup::Found(s) => {
                arity::check(index, node, s, opset, &mut report.errors);
                attributes::check_against(index, node, s, opset, &mut report.errors);
            }
            schema::Lookup::TooNew { since } => report.errors.push(
                Problem::invalid(format!(
                    "operator '{}' does not exist in opset {opset}; it was introduced in \
                     opset {since}",
                    node.op_type
                ))
                .at(node_at(index, node)),
            ),
            schema::Lookup::Unknown => {}
        }
    }
    report
}

pub(crate) fn is_default_domain(node: &NodeProto) -> bool {
    node.domain.is_empty() || node.domain == crate::DEFAULT_DOMAIN
}

/// How validation names a node: op type, name (or first output) and index in the graph,
/// e.g. `Relu node 'r' (node #3)`.
pub fn node_at(index: usize, node: &NodeProto) -> String {
    format!("{} (node #{index})", crate::node_label(node))
}
