//! Control flow: `If`, `Loop` and `Scan`. A condition known at import time (a value computed from shapes or
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
use super::super::expansion::{Expander, Expansion, int_attr, ints_attr};
use super::super::node::{Branch, LoopPlan, Lowering, NodeCx, ScanPlan, Unrolled, attr_problem};
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
                ..
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
/// (renamed) names of its outputs; an `If` branch takes no inputs.
fn renamed_branch(branch: &GraphProto, prefix: &str) -> Result<Branch, Problem> {
    let renamed = renamed_subgraph(branch, prefix)?;
    let initializer = |name: &String| branch.initializer.iter().any(|t| &t.name == name);
    if let Some(input) = branch.input.iter().find(|i| !initializer(&i.name)) {
        return Err(Problem::invalid(format!(
            "a branch takes no inputs, but it declares '{}'",
            input.name
        )));
    }
    Ok(Branch {
        inputs: Vec::new(),
        ..renamed
    })
}

/// The subgraph's nodes with its local names (inputs, initializers, node outputs)
/// prefixed, its initializers as constants, and the renamed names of its inputs and
/// outputs.
fn renamed_subgraph(branch: &GraphProto, prefix: &str) -> Result<Branch, Problem> {
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
    for input in &branch.input {
        local.insert(input.name.clone(), format!("{prefix}{}", input.name));
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
    let inputs = branch
        .input
        .iter()
        .map(|info| local[&info.name].clone())
        .collect();
    Ok(Branch {
        expansion: Expansion { constants, nodes },
        inputs,
        results,
    })
}

/// The `body` attribute of a Loop or Scan.
fn body<'n>(cx: &NodeCx<'n>) -> Result<&'n GraphProto, Problem> {
    cx.node
        .attr_graph("body")
        .map_err(attr_problem)?
        .ok_or_else(|| Problem::invalid("attribute 'body' is missing"))
}

/// The prefix of a body's local names: the node's first output and `/tb.body/`.
fn body_prefix(cx: &NodeCx) -> String {
    let first = cx.node.output.first().map_or("", String::as_str);
    format!("{first}/tb.body/")
}

/// Loop: the body takes (iteration number, condition, N loop-carried values) and gives
/// (condition, N loop-carried values, K scan values); the node gives the N final values
/// and the K scan outputs. What is known of `M` and `cond` decides, once the body is
/// imported, whether the scan outputs have a static length.
pub fn loop_(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    if cx.has_input(0) {
        let m = cx.input(0)?;
        if m.dtype != DType::I64 || m.shape.iter().product::<i64>() != 1 {
            return Err(Problem::invalid(format!(
                "the trip count M must be an int64 tensor of one element, not {} of shape {:?}",
                m.dtype, m.shape
            )));
        }
    }
    if cx.has_input(1) {
        let c = cx.input(1)?;
        if c.dtype != DType::Bool || c.shape.iter().product::<i64>() != 1 {
            return Err(Problem::invalid(format!(
                "the condition must be a bool tensor of one element, not {} of shape {:?}",
                c.dtype, c.shape
            )));
        }
    }
    let graph = body(cx)?;
    let carried = cx.node.input.len().saturating_sub(2);
    if graph.input.len() != carried + 2 {
        return Err(Problem::invalid(format!(
            "the body takes {} inputs but must take the iteration number, the condition and \
             the {carried} loop-carried values",
            graph.input.len()
        )));
    }
    if graph.output.len() < carried + 1 {
        return Err(Problem::invalid(format!(
            "the body gives {} outputs but must give the condition and the {carried} \
             loop-carried values first",
            graph.output.len()
        )));
    }
    if cx.node.output.len() > graph.output.len() - 1 {
        return Err(Problem::invalid(format!(
            "the node has {} outputs but its body gives only {} loop-carried and scan values",
            cx.node.output.len(),
            graph.output.len() - 1
        )));
    }
    let known = |i: usize| {
        cx.inputs
            .get(i)
            .and_then(|x| x.as_ref())
            .and_then(|x| x.constant)
            .map(|t| t.to_f64_vec())
    };
    let trip_count = known(0).and_then(|v| v.first().map(|&m| m as i64));
    let starts_true = !cx.has_input(1) || known(1).is_some_and(|v| v.first() == Some(&1.0));
    let body = renamed_subgraph(graph, &body_prefix(cx))?;
    // Unrolling fixes the number of iterations: from constants, or from the values
    // supplied for graph inputs when scan outputs make it part of a shape anyway.
    let foldable = |i: usize| {
        cx.inputs
            .get(i)
            .and_then(|x| x.as_ref())
            .is_none_or(|x| x.foldable)
    };
    let fixed = (foldable(0) && foldable(1)) || graph.output.len() > 1 + carried;
    let unrolled = match trip_count {
        Some(m)
            if fixed
                && starts_true
                && (1..=MAX_UNROLLED).contains(&m)
                && passes_condition_on(graph) =>
        {
            Some(unrolled_loop(cx, graph, m)?)
        }
        _ => None,
    };
    Ok(Lowering::Loop(Box::new(LoopPlan {
        body,
        trip_count,
        starts_true,
        unrolled,
    })))
}

/// The most iterations a Loop is unrolled to at import.
const MAX_UNROLLED: i64 = 64;

/// Whether the body's condition output is its condition input, directly or through
/// Identity nodes.
fn passes_condition_on(graph: &GraphProto) -> bool {
    let (Some(input), Some(output)) = (graph.input.get(1), graph.output.first()) else {
        return false;
    };
    let mut name = output.name.as_str();
    loop {
        if name == input.name {
            return true;
        }
        let identity = graph.node.iter().find(|n| {
            n.op_type == "Identity" && n.output.first().map(String::as_str) == Some(name)
        });
        match identity.and_then(|n| n.input.first()) {
            Some(from) => name = from,
            None => return false,
        }
    }
}

/// The Loop as `m` renamed copies of its body, each with its iteration number a constant
/// and its loop-carried inputs the previous copy's outputs, then the outputs: the last
/// copy's carried values and the scan values stacked.
fn unrolled_loop(cx: &NodeCx, graph: &GraphProto, m: i64) -> Result<Unrolled, Problem> {
    let first = cx.node.output.first().map_or("", String::as_str);
    let carried = cx.node.input.len() - 2;
    let mut body = Expansion {
        constants: Vec::new(),
        nodes: Vec::new(),
    };
    let condition = if cx.has_input(1) {
        cx.node.input[1].clone()
    } else {
        let name = format!("{first}/tb.unrolled/condition");
        body.constants
            .push((name.clone(), tb_interpreter::Tensor::scalar(true)));
        name
    };
    let mut current: Vec<String> = cx.node.input[2..].to_vec();
    let mut scans: Vec<Vec<String>> = vec![Vec::new(); graph.output.len() - 1 - carried];
    for it in 0..m {
        let prefix = format!("{first}/tb.iteration{it}/");
        let copy = renamed_subgraph(graph, &prefix)?;
        let iteration = format!("{prefix}iteration_number");
        body.constants
            .push((iteration.clone(), tb_interpreter::Tensor::scalar(it)));
        // The copy's inputs are bound by Identity nodes from what they stand for.
        let mut sources = vec![iteration, condition.clone()];
        sources.extend(current.iter().cloned());
        for (input, source) in copy.inputs.iter().zip(&sources) {
            body.nodes.push(NodeProto {
                op_type: "Identity".into(),
                name: cx.node.name.clone(),
                input: vec![source.clone()],
                output: vec![input.clone()],
                ..Default::default()
            });
        }
        body.constants.extend(copy.expansion.constants);
        body.nodes.extend(copy.expansion.nodes);
        current = copy.results[1..1 + carried].to_vec();
        for (acc, name) in scans.iter_mut().zip(&copy.results[1 + carried..]) {
            acc.push(name.clone());
        }
    }
    let mut ex = Expander::new(cx.node);
    let axis0 = ex.ints(&[0]);
    for (k, out) in cx.node.output.iter().enumerate() {
        if out.is_empty() {
            continue;
        }
        if k < carried {
            ex.op_to("Identity", &[&current[k]], Vec::new(), out);
            continue;
        }
        let rows: Vec<String> = scans[k - carried]
            .iter()
            .map(|v| ex.op("Unsqueeze", &[v, &axis0], Vec::new()))
            .collect();
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        ex.op_to("Concat", &refs, vec![int_attr("axis", 0)], out);
    }
    Ok(Unrolled {
        body,
        glue: ex.finish(),
    })
}

/// An int-list attribute of a Scan, as long as `n` (zeros when absent).
fn scan_list(cx: &NodeCx, name: &str, n: usize) -> Result<Vec<i64>, Problem> {
    match cx.node.attr_ints(name).map_err(attr_problem)? {
        None => Ok(vec![0; n]),
        Some(v) if v.len() == n => Ok(v),
        Some(v) => Err(Problem::invalid(format!(
            "attribute '{name}' has {} entries but must have {n}",
            v.len()
        ))),
    }
}

fn check_directions(name: &str, v: &[i64]) -> Result<(), Problem> {
    match v.iter().find(|&&d| d != 0 && d != 1) {
        Some(d) => Err(Problem::invalid(format!(
            "attribute '{name}' entries must be 0 (forward) or 1 (reverse), not {d}"
        ))),
        None => Ok(()),
    }
}

/// Scan: the body takes (states, one slice per scan input) and gives (states, one value
/// per scan output). Opset 9 on has no batch axis; opset 8's (its body takes one input
/// fewer than the node, whose first input is `sequence_lens`) expands per batch entry.
pub fn scan(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let graph = body(cx)?;
    let num_scan = cx
        .node
        .attr_int("num_scan_inputs")
        .map_err(attr_problem)?
        .ok_or_else(|| Problem::invalid("attribute 'num_scan_inputs' is missing"))?;
    if graph.input.len() + 1 == cx.node.input.len() {
        return scan_opset8(cx, num_scan);
    }
    let inputs = cx.node.input.len();
    if num_scan < 1 || num_scan as usize > inputs {
        return Err(Problem::invalid(format!(
            "num_scan_inputs = {num_scan} must be between 1 and the number of inputs ({inputs})"
        )));
    }
    let num_scan = num_scan as usize;
    if graph.input.len() != inputs {
        return Err(Problem::invalid(format!(
            "the body takes {} inputs but the node gives {inputs}",
            graph.input.len()
        )));
    }
    let states = inputs - num_scan;
    if graph.output.len() < states || cx.node.output.len() > graph.output.len() {
        return Err(Problem::invalid(format!(
            "the body gives {} outputs; it must give the {states} states first, and at least \
             as many as the node's {} outputs",
            graph.output.len(),
            cx.node.output.len()
        )));
    }
    let num_outputs = graph.output.len() - states;
    let mut input_axes = scan_list(cx, "scan_input_axes", num_scan)?;
    for (k, axis) in input_axes.iter_mut().enumerate() {
        let rank = cx.shape(states + k)?.len() as i64;
        if *axis < -rank || *axis >= rank {
            return Err(Problem::invalid(format!(
                "scan_input_axes[{k}] = {axis} is out of range for scan input '{}' of rank {rank}",
                cx.node.input[states + k]
            )));
        }
        if *axis < 0 {
            *axis += rank;
        }
    }
    let input_directions = scan_list(cx, "scan_input_directions", num_scan)?;
    check_directions("scan_input_directions", &input_directions)?;
    let output_directions = scan_list(cx, "scan_output_directions", num_outputs)?;
    check_directions("scan_output_directions", &output_directions)?;
    let output_axes = scan_list(cx, "scan_output_axes", num_outputs)?;
    let body = renamed_subgraph(graph, &body_prefix(cx))?;
    Ok(Lowering::Scan(Box::new(ScanPlan {
        body,
        num_scan_inputs: num_scan,
        input_axes,
        input_directions,
        output_axes,
        output_directions,
    })))
}

/// Scan of opset 8: every input and output has a leading batch axis, and each batch entry
/// is scanned on its own (along axis 1 of the inputs). It becomes one opset-9 Scan per
/// entry, over the entry's slices (a Gather on axis 0), whose outputs are stacked again
/// (Unsqueeze and Concat). Per-entry sequence lengths (`sequence_lens`) that are shorter
/// than the sequence are not supported.
fn scan_opset8(cx: &mut NodeCx, num_scan: i64) -> Result<Lowering, Problem> {
    let inputs = cx.node.input.len() - 1;
    if num_scan < 1 || num_scan as usize > inputs {
        return Err(Problem::invalid(format!(
            "num_scan_inputs = {num_scan} must be between 1 and the number of inputs ({inputs})"
        )));
    }
    let states = inputs - num_scan as usize;
    let batch = cx.shape(1)?.first().copied().ok_or_else(|| {
        Problem::invalid("opset-8 Scan inputs need a leading batch axis, but input #1 is 0-d")
    })?;
    for i in 1..=inputs {
        let shape = cx.shape(i)?;
        let min_rank = if i > states { 2 } else { 1 };
        if shape.len() < min_rank || shape[0] != batch {
            return Err(Problem::invalid(format!(
                "opset-8 Scan input '{}' of shape {shape:?} needs the batch axis ({batch}) first{}",
                cx.node.input[i],
                if i > states {
                    " and a sequence axis"
                } else {
                    ""
                }
            )));
        }
    }
    if cx.has_input(0) {
        let length = cx.shape(1 + states)?[1];
        let lens = cx.constant_ints(0, "sequence_lens")?;
        if lens.iter().any(|&l| l != length) {
            return Err(Problem::unsupported(format!(
                "sequence_lens {lens:?} shorter than the sequence ({length}) are not supported"
            )));
        }
    }
    let directions = cx.node.attr_ints("directions").map_err(attr_problem)?;
    let mut ex = Expander::new(cx.node);
    let axis0 = ex.ints(&[0]);
    let mut per_output: Vec<Vec<String>> = vec![Vec::new(); cx.node.output.len()];
    for b in 0..batch {
        let index = ex.constant(tb_interpreter::Tensor::scalar(b));
        let mut node_inputs = Vec::new();
        for i in 1..=inputs {
            let entry = ex.op(
                "Gather",
                &[&cx.node.input[i], &index],
                vec![int_attr("axis", 0)],
            );
            node_inputs.push(entry);
        }
        let mut attrs = vec![int_attr("num_scan_inputs", num_scan)];
        if let Some(d) = &directions {
            attrs.push(ints_attr("scan_input_directions", d));
        }
        attrs.extend(
            cx.node
                .attribute
                .iter()
                .filter(|a| a.name == "body")
                .cloned(),
        );
        let refs: Vec<&str> = node_inputs.iter().map(String::as_str).collect();
        let outs = ex.op_n("Scan", &refs, attrs, cx.node.output.len());
        for (k, out) in outs.into_iter().enumerate() {
            let stacked = ex.op("Unsqueeze", &[&out, &axis0], Vec::new());
            per_output[k].push(stacked);
        }
    }
    for (k, parts) in per_output.iter().enumerate() {
        if cx.node.output[k].is_empty() {
            continue;
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        ex.op_to(
            "Concat",
            &refs,
            vec![int_attr("axis", 0)],
            &cx.node.output[k],
        );
    }
    Ok(Lowering::Expand(ex.finish()))
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
