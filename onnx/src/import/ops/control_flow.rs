//! Control flow: `If`. A condition known at import time (a value computed from shapes or
//! initializers) selects a branch, whose nodes are imported in place of the `If`: the
//! branch's subgraph reads outer values by name, so its nodes import as if they were the
//! outer graph's, and a nested `If` folds the same way. A condition known only at run time
//! becomes a `graph.if` whose regions hold the two branches' nodes. The branch's own names
//! (its initializers and node outputs) are prefixed with the `If`'s first output and a
//! `/tb.then_branch/` (`/tb.else_branch/`) segment so that they cannot clash with the outer
//! graph's or the other branch's.

use std::collections::HashMap;

use tb_interpreter::DType;

use super::super::error::{Problem, ProblemKind};
use super::super::expansion::Expansion;
use super::super::node::{Branch, Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::{GraphProto, NodeProto};
use crate::tensor::decode_tensor;

const BRANCHES: [&str; 2] = ["then_branch", "else_branch"];

/// If: the branch a constant condition selects, expanded in place; otherwise both branches,
/// for a `graph.if`.
pub fn if_(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let input = cx.input(0)?;
    if input.dtype != DType::Bool || input.shape.iter().product::<i64>() != 1 {
        return Err(Problem::invalid(format!(
            "the condition must be a bool tensor of one element, not {} of shape {:?}",
            input.dtype, input.shape
        )));
    }
    let outputs: Vec<&str> = cx.node.output.iter().map(String::as_str).collect();
    let first = outputs.first().copied().unwrap_or("");
    let branch = |k: usize| -> Result<Branch, Problem> {
        let attr = BRANCHES[k];
        let graph = cx
            .node
            .attr_graph(attr)
            .map_err(attr_problem)?
            .ok_or_else(|| Problem::invalid(format!("attribute '{attr}' is missing")))?;
        if graph.output.len() != outputs.len() {
            return Err(Problem::invalid(format!(
                "'{attr}' has {} outputs but the node has {}",
                graph.output.len(),
                outputs.len()
            )));
        }
        renamed_branch(graph, &format!("{first}/tb.{attr}/"))
    };
    match input.constant {
        Some(condition) if input.foldable => {
            let taken = if condition.to_f64_vec()[0] != 0.0 {
                0
            } else {
                1
            };
            let Branch {
                mut expansion,
                results,
            } = branch(taken)?;
            for (result, &out) in results.iter().zip(&outputs) {
                if out.is_empty() {
                    continue;
                }
                expansion.nodes.push(NodeProto {
                    op_type: "Identity".into(),
                    name: cx.node.name.clone(),
                    input: vec![result.clone()],
                    output: vec![out.to_string()],
                    ..Default::default()
                });
            }
            Ok(Lowering::Expand(expansion))
        }
        _ => Ok(Lowering::If(Box::new([branch(0)?, branch(1)?]))),
    }
}

/// The branch's nodes with its local names prefixed, its initializers as constants, and the
/// (renamed) names of its outputs.
fn renamed_branch(branch: &GraphProto, prefix: &str) -> Result<Branch, Problem> {
    let mut local: HashMap<String, String> = HashMap::new();
    let mut constants = Vec::new();
    for init in &branch.initializer {
        let t = decode_tensor(init).map_err(|e| {
            let kind = if e.is_unsupported() {
                ProblemKind::UnsupportedType
            } else {
                ProblemKind::Invalid
            };
            Problem::new(kind, format!("branch initializer '{}': {e}", init.name))
        })?;
        let name = format!("{prefix}{}", init.name);
        local.insert(init.name.clone(), name.clone());
        constants.push((name, t));
    }
    if let Some(input) = branch.input.iter().find(|i| !local.contains_key(&i.name)) {
        return Err(Problem::invalid(format!(
            "a branch takes no inputs, but it declares '{}'",
            input.name
        )));
    }
    for node in &branch.node {
        for out in node.output.iter().filter(|o| !o.is_empty()) {
            local.insert(out.clone(), format!("{prefix}{out}"));
        }
    }
    let nodes = branch.node.iter().map(|n| renamed(n, &local)).collect();
    let results = branch
        .output
        .iter()
        .map(|info| local.get(&info.name).unwrap_or(&info.name).clone())
        .collect();
    Ok(Branch {
        expansion: Expansion { constants, nodes },
        results,
    })
}

/// `node` with every name in `local` replaced, in its inputs and outputs and in the
/// subgraphs of its attributes (which may read the branch's values by name).
fn renamed(node: &NodeProto, local: &HashMap<String, String>) -> NodeProto {
    let rename = |names: &[String]| -> Vec<String> {
        names
            .iter()
            .map(|n| local.get(n).cloned().unwrap_or_else(|| n.clone()))
            .collect()
    };
    let mut node = node.clone();
    node.input = rename(&node.input);
    node.output = rename(&node.output);
    for attr in &mut node.attribute {
        if attr.r#type == AttributeType::Graph as i32
            && let Some(g) = attr.g.as_mut()
        {
            rename_in_graph(g, local);
        }
        for g in &mut attr.graphs {
            rename_in_graph(g, local);
        }
    }
    node
}

/// Renames the outer values a nested subgraph reads; names it defines itself shadow them.
fn rename_in_graph(graph: &mut GraphProto, local: &HashMap<String, String>) {
    let mut visible = local.clone();
    for name in graph
        .input
        .iter()
        .map(|i| &i.name)
        .chain(graph.initializer.iter().map(|t| &t.name))
        .chain(graph.node.iter().flat_map(|n| &n.output))
    {
        visible.remove(name);
    }
    for node in &mut graph.node {
        *node = renamed(node, &visible);
    }
    for out in &mut graph.output {
        if let Some(n) = visible.get(&out.name) {
            out.name = n.clone();
        }
    }
}
