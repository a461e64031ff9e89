//! Initializers no node reads: exporters leave them behind (folded-away weights, training
//! state). They cost nothing at import, so each gets a warning, as onnxruntime gives one.

use std::collections::HashSet;

use crate::proto::GraphProto;

use super::Report;

/// Warns once per initializer that no node input and no graph output names.
pub fn check_unused(graph: &GraphProto, report: &mut Report) {
    let read: HashSet<&str> = graph
        .node
        .iter()
        .flat_map(|n| n.input.iter())
        .chain(graph.output.iter().map(|o| &o.name))
        .map(String::as_str)
        .collect();
    for init in &graph.initializer {
        if !read.contains(init.name.as_str()) {
            report.warnings.push(format!(
                "initializer '{}' is not used by any node or graph output",
                init.name
            ));
        }
    }
}
