//! Control flow at import: an `If` whose condition is known at import time folds to the
//! nodes of the branch it selects; those nodes read outer values by name and may hold
//! further `If`s. An `If` on a run-time condition imports as a `graph.if`, which the
//! interpreter runs and the CPU pipeline compiles to a run-time branch.

mod common;

use common::builder::*;
use tb_interpreter::Tensor;
use tb_interpreter::exec::Interpreter;
use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::tensor_proto::DataType;
use tb_onnx::proto::{AttributeProto, GraphProto, NodeProto, TensorProto, ValueInfoProto};

fn branch(name: &str, nodes: Vec<NodeProto>, outputs: Vec<ValueInfoProto>) -> GraphProto {
    GraphProto {
        name: name.into(),
        node: nodes,
        output: outputs,
        ..Default::default()
    }
}

fn graph_attr(name: &str, g: GraphProto) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Graph as i32,
        g: Some(g),
        ..Default::default()
    }
}

fn if_node(name: &str, cond: &str, then: GraphProto, els: GraphProto, out: &str) -> NodeProto {
    let n = with_attr(
        node("If", name, &[cond], &[out]),
        graph_attr("then_branch", then),
    );
    with_attr(n, graph_attr("else_branch", els))
}

fn bool_scalar(name: &str, v: bool) -> TensorProto {
    TensorProto {
        name: name.into(),
        data_type: DataType::Bool as i32,
        int32_data: vec![i32::from(v)],
        ..Default::default()
    }
}

/// `If(cond)` over `x` [2, 3]: then Relu(x), else Neg(x).
fn relu_or_neg(cond: &str, extra: Vec<NodeProto>) -> Vec<NodeProto> {
    let then = branch(
        "then",
        vec![node("Relu", "r", &["x"], &["t"])],
        vec![float("t", &[2, 3])],
    );
    let els = branch(
        "else",
        vec![node("Neg", "n", &["x"], &["e"])],
        vec![float("e", &[2, 3])],
    );
    let mut nodes = extra;
    nodes.push(if_node("choose", cond, then, els, "y"));
    nodes
}

#[test]
fn if_on_a_constant_imports_only_the_taken_branch() {
    for (value, kept, dropped) in [
        (true, "graph.relu", "graph.neg"),
        (false, "graph.neg", "graph.relu"),
    ] {
        let m = model(
            16,
            relu_or_neg("c", vec![]),
            vec![float("x", &[2, 3])],
            vec![float("y", &[2, 3])],
            vec![bool_scalar("c", value)],
        );
        let text = imported_text(m, true);
        assert!(text.contains(kept), "{text}");
        assert!(!text.contains(dropped), "{text}");
        assert!(!text.contains("If"), "{text}");
    }
}

#[test]
fn if_on_a_condition_computed_from_shapes_folds() {
    // Size(x) = 6 > 4 selects the then branch, as exporters' shape checks do.
    let size = node("Size", "size", &["x"], &["n"]);
    let greater = node("Greater", "gt", &["n", "four"], &["c"]);
    let m = model(
        16,
        relu_or_neg("c", vec![size, greater]),
        vec![float("x", &[2, 3])],
        vec![float("y", &[2, 3])],
        vec![scalar_int("four", 4)],
    );
    let text = imported_text(m, true);
    assert!(text.contains("graph.relu"), "{text}");
    assert!(!text.contains("graph.neg"), "{text}");
}

/// then: t = Relu(x), then an inner If(c) { Neg(t) } else { Abs(t) } that reads `t`, a
/// name local to the outer branch; else: Sigmoid(x).
fn nested_ifs(c: bool) -> tb_onnx::proto::ModelProto {
    let inner_then = branch(
        "inner_then",
        vec![node("Neg", "n", &["t"], &["v"])],
        vec![float("v", &[2, 3])],
    );
    let inner_else = branch(
        "inner_else",
        vec![node("Abs", "a", &["t"], &["w"])],
        vec![float("w", &[2, 3])],
    );
    let then = branch(
        "then",
        vec![
            node("Relu", "r", &["x"], &["t"]),
            if_node("inner", "c", inner_then, inner_else, "u"),
        ],
        vec![float("u", &[2, 3])],
    );
    let els = branch(
        "else",
        vec![node("Sigmoid", "s", &["x"], &["e"])],
        vec![float("e", &[2, 3])],
    );
    model(
        16,
        vec![if_node("outer", "c", then, els, "y")],
        vec![float("x", &[2, 3])],
        vec![float("y", &[2, 3])],
        vec![bool_scalar("c", c)],
    )
}

#[test]
fn a_nested_if_reads_the_enclosing_branchs_values() {
    let text = imported_text(nested_ifs(true), true);
    assert!(text.contains("graph.relu"), "{text}");
    assert!(text.contains("graph.neg"), "{text}");
    assert!(!text.contains("graph.abs"), "{text}");
    assert!(!text.contains("graph.sigmoid"), "{text}");
}

#[test]
fn a_nested_if_in_the_branch_not_taken_is_not_imported() {
    let text = imported_text(nested_ifs(false), true);
    assert!(text.contains("graph.sigmoid"), "{text}");
    assert!(!text.contains("graph.relu"), "{text}");
}

#[test]
fn a_branch_initializer_and_an_outer_output_as_branch_output() {
    // then: outputs its own initializer `k`; else: outputs the outer `x` unchanged.
    let then = GraphProto {
        name: "then".into(),
        initializer: vec![floats("k", &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])],
        output: vec![float("k", &[2, 3])],
        ..Default::default()
    };
    let els = branch("else", vec![], vec![float("x", &[2, 3])]);
    for (value, expect) in [(true, "dense<[[1.0"), (false, "return %arg0 :")] {
        let m = model(
            16,
            vec![if_node("choose", "c", then.clone(), els.clone(), "y")],
            vec![float("x", &[2, 3])],
            vec![float("y", &[2, 3])],
            vec![bool_scalar("c", value)],
        );
        let text = imported_text(m, true);
        assert!(text.contains(expect), "{text}");
    }
}

/// The model of [`relu_or_neg`] with the condition a graph input.
fn run_time_if() -> tb_onnx::proto::ModelProto {
    model(
        16,
        relu_or_neg("c", vec![]),
        vec![float("x", &[2, 3]), typed("c", DataType::Bool, &[])],
        vec![float("y", &[2, 3])],
        vec![],
    )
}

#[test]
fn if_on_a_run_time_condition_imports_as_graph_if() {
    let text = imported_text(run_time_if(), true);
    assert!(text.contains("graph.if %arg1"), "{text}");
    assert!(text.contains("graph.relu %arg0"), "{text}");
    assert!(text.contains("graph.neg %arg0"), "{text}");
    assert_eq!(text.matches("graph.yield").count(), 2, "{text}");
}

#[test]
fn graph_if_runs_the_branch_the_condition_selects() {
    let imported = import(run_time_if(), true).unwrap_or_else(|e| panic!("{e}"));
    let x = Tensor::from_vec(vec![2, 3], vec![-1.0f32, 2.0, -3.0, 4.0, 0.5, -0.5]).unwrap();
    for (c, expected) in [
        (true, vec![0.0f32, 2.0, 0.0, 4.0, 0.5, 0.0]),
        (false, vec![1.0f32, -2.0, 3.0, -4.0, -0.5, 0.5]),
    ] {
        let cond = Tensor::from_vec(vec![], vec![c]).unwrap();
        let mut interp = Interpreter::new(&imported.ctx, imported.module);
        let out = interp
            .run_function(&imported.function, &[x.clone(), cond])
            .unwrap_or_else(|d| panic!("{}", d.message));
        assert_eq!(out[0], Tensor::from_vec(vec![2, 3], expected).unwrap());
    }
}

#[test]
fn graph_if_compiles_to_a_run_time_branch() {
    let mut imported = import(run_time_if(), true).unwrap_or_else(|e| panic!("{e}"));
    let compiled = common::compile_for_host("run_time_if", &mut imported);
    let x = Tensor::from_vec(vec![2, 3], vec![-1.0f32, 2.0, -3.0, 4.0, 0.5, -0.5]).unwrap();
    for (c, expected) in [
        (true, vec![0.0f32, 2.0, 0.0, 4.0, 0.5, 0.0]),
        (false, vec![1.0f32, -2.0, 3.0, -4.0, -0.5, 0.5]),
    ] {
        let cond = Tensor::from_vec(vec![], vec![c]).unwrap();
        let out = compiled
            .run(&imported.function, &[x.clone(), cond])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out[0], Tensor::from_vec(vec![2, 3], expected).unwrap());
    }
}

#[test]
fn branches_of_different_shapes_are_refused_at_the_node() {
    // then: x [2, 3]; else: Flatten(x) [1, 6].
    let then = branch("then", vec![], vec![float("x", &[2, 3])]);
    let els = branch(
        "else",
        vec![with_attr(
            node("Flatten", "f", &["x"], &["e"]),
            attr_int("axis", 0),
        )],
        vec![float("e", &[1, 6])],
    );
    let m = model(
        16,
        vec![if_node("choose", "c", then, els, "y")],
        vec![float("x", &[2, 3]), typed("c", DataType::Bool, &[])],
        vec![float("y", &[2, 3])],
        vec![],
    );
    let err = import_error(m);
    assert!(err.contains("If node 'choose'"), "{err}");
    assert!(
        err.contains("output #0 is tensor<2x3xf32> in the then branch but tensor<1x6xf32>"),
        "{err}"
    );
}

#[test]
fn an_unsupported_node_in_a_branch_is_reported_once() {
    let then = branch(
        "then",
        vec![node("NonZero", "nz", &["x"], &["t"])],
        vec![float("t", &[2, 3])],
    );
    let els = branch("else", vec![], vec![float("x", &[2, 3])]);
    let m = model(
        16,
        vec![if_node("choose", "c", then, els, "y")],
        vec![float("x", &[2, 3]), typed("c", DataType::Bool, &[])],
        vec![float("y", &[2, 3])],
        vec![],
    );
    let err = import_error(m);
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(err.contains("operator 'NonZero' is not supported"), "{err}");
}
