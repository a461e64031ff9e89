//! Initializers no node reads: exporters leave them behind (folded-away weights, training
//! state). They cost nothing at import, so each gets a warning, as onnxruntime gives one.

use std::collections::HashSet;

use crate::proto::GraphProto;

use super::Report;

/// Warns once per initializer that no node input (of the graph or of a subgraph, whose
/// nodes read outer values by name) and no graph output names.
pub fn check_unused(graph: &GraphProto, report: &mut Report) {
    let mut read: HashSet<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
    reads(graph, &mut read);
    for init in &graph.initializer {
        if !read.contains(init.name.as_str()) {
            report.warnings.push(format!(
                "initializer '{}' is not used by any node or graph output",
                init.name
            ));
        }
    }
}

/// The names the nodes of `graph` and of its subgraphs read, with the subgraphs' outputs.
fn reads<'g>(graph: &'g GraphProto, read: &mut HashSet<&'g str>) {
    for node in &graph.node {
        read.extend(node.input.iter().map(String::as_str));
        for attr in &node.attribute {
            for g in attr.g.iter().chain(&attr.graphs) {
                read.extend(g.output.iter().map(|o| o.name.as_str()));
                reads(g, read);
            }
        }
    }
}
