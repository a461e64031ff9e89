//! Static single assignment, as ONNX requires of a graph: every value name has one writer
//! (a graph input, an initializer or one node output), nodes are in topological order (an
//! input is defined before the node that reads it), and every graph output is defined.
//! Initializers may also be listed as graph inputs (IR version 3 required it).

use std::collections::{HashMap, HashSet};

use crate::import::Problem;
use crate::proto::GraphProto;

use super::node_at;

/// Who defines a value.
#[derive(Clone, Copy)]
enum Writer {
    GraphInput,
    Initializer,
    Node(usize),
}

impl Writer {
    fn describe(self, graph: &GraphProto) -> String {
        match self {
            Writer::GraphInput => "a graph input".into(),
            Writer::Initializer => "an initializer".into(),
            Writer::Node(i) => format!("an output of {}", node_at(i, &graph.node[i])),
        }
    }
}

pub fn check(graph: &GraphProto, errors: &mut Vec<Problem>) {
    let mut writers: HashMap<&str, Writer> = HashMap::new();
    let mut initializers = HashSet::new();
    for init in &graph.initializer {
        if !initializers.insert(init.name.as_str()) {
            errors.push(
                Problem::invalid("is defined more than once")
                    .at(format!("initializer '{}'", init.name)),
            );
        }
        writers.insert(&init.name, Writer::Initializer);
    }
    let mut inputs = HashSet::new();
    for input in &graph.input {
        let at = format!("graph input '{}'", input.name);
        if input.name.is_empty() {
            errors.push(Problem::invalid("has an empty name").at(at));
        } else if !inputs.insert(input.name.as_str()) {
            errors.push(Problem::invalid("is listed more than once").at(at));
        } else if !initializers.contains(input.name.as_str()) {
            writers.insert(&input.name, Writer::GraphInput);
        }
    }
    // Where each name is written by a node, to tell "defined later" from "never defined".
    let mut node_writer: HashMap<&str, usize> = HashMap::new();
    for (index, node) in graph.node.iter().enumerate() {
        for out in node.output.iter().filter(|o| !o.is_empty()) {
            node_writer.entry(out).or_insert(index);
        }
    }
    for (index, node) in graph.node.iter().enumerate() {
        for (i, name) in node.input.iter().enumerate() {
            if name.is_empty() || writers.contains_key(name.as_str()) {
                continue;
            }
            let message = match node_writer.get(name.as_str()) {
                Some(&w) if w >= index => format!(
                    "input #{i} '{name}' is read before it is defined (by {}): nodes must be \
                     in topological order",
                    node_at(w, &graph.node[w])
                ),
                _ => format!(
                    "input #{i} '{name}' is not a graph input, an initializer or an earlier \
                     node's output"
                ),
            };
            errors.push(Problem::invalid(message).at(node_at(index, node)));
        }
        for (k, name) in node.output.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            if let Some(previous) = writers.insert(name, Writer::Node(index)) {
                errors.push(
                    Problem::invalid(format!(
                        "output #{k} '{name}' is already {}: a value has one writer",
                        previous.describe(graph)
                    ))
                    .at(node_at(index, node)),
                );
            }
        }
    }
    for output in &graph.output {
        if !writers.contains_key(output.name.as_str()) {
            let at = format!("graph output '{}'", output.name);
            errors
                .push(Problem::invalid("is not defined by any node, input or initializer").at(at));
        }
    }
}
