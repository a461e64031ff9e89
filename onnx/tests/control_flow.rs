//! Control flow at import: an `If` whose condition is known at import time folds to the
//! nodes of the branch it selects; those nodes read outer values by name and may hold
//! further `If`s. An `If` on a run-time condition imports as a `graph.if`, which the
//! interpreter runs and the CPU pipeline compiles to a run-time branch. `Loop` and `Scan`
//! become `graph.loop` and `graph.scan`: models built by `models/control_flow_models.py`
//! match onnxruntime in the interpreter, at te and compiled, and the loops whose shapes
//! are not static are refused at the node.

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

/// Builds the Loop/Scan models with onnxruntime's outputs; `None` (after saying why) where
/// the Python environment cannot.
fn loop_scan_models(test: &str) -> Option<tempfile::TempDir> {
    common::generate_models(
        "control_flow_models.py",
        "import onnx, onnxruntime, numpy",
        "cannot import onnx, onnxruntime and numpy",
        &[],
    )
    .map_err(|why| eprintln!("{test}: skipped: {why}"))
    .ok()
}

/// Every output within tolerance of onnxruntime's (`how` says which run made them).
fn assert_matches(name: &str, how: &str, out: &[Tensor], expected: &[Tensor]) {
    assert_eq!(out.len(), expected.len(), "{name} ({how})");
    for (k, (a, e)) in out.iter().zip(expected).enumerate() {
        a.allclose(e, 1e-5, 1e-5)
            .unwrap_or_else(|m| panic!("{name} ({how}) output #{k}: {m}"));
    }
}

fn import_generated(dir: &std::path::Path) -> tb_onnx::import::Imported {
    let model = tb_onnx::Model::load(dir.join("model.onnx")).unwrap_or_else(|e| panic!("{e}"));
    let options = tb_onnx::import::ImportOptions {
        cleanup: Some(tb_passes::register_all),
        warnings_to_stderr: false,
        ..Default::default()
    };
    tb_onnx::import::import_model(&model, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Imports model `name` and runs it in the interpreter at the graph level, in the
/// interpreter after `convert-graph-to-te` and compiled for the host, comparing every run's
/// outputs with onnxruntime's; gives the imported text.
fn matches_onnxruntime(dir: &std::path::Path, name: &str) -> String {
    use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
    let dir = dir.join(name);
    let inputs = common::read_numbered(&dir, "input");
    let expected = common::read_numbered(&dir, "expected");
    let mut imported = import_generated(&dir);
    let options = tb_ir::printer::PrintOptions {
        generic: false,
        debug_info: false,
        local_scope: false,
    };
    let text = tb_ir::printer::print_operation(&imported.ctx, imported.module, options);
    let out = Interpreter::new(&imported.ctx, imported.module)
        .run_function(&imported.function, &inputs)
        .unwrap_or_else(|d| panic!("{name}: {}", d.message));
    assert_matches(name, "graph interpreter", &out, &expected);

    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse("builtin.module(convert-graph-to-te)").expect("pipeline");
    PassManager::new(&pipeline, &registry)
        .expect("registered")
        .run(
            &mut imported.ctx,
            imported.module,
            &Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            },
        )
        .unwrap_or_else(|d| panic!("{name}: convert-graph-to-te: {}", d.message));
    let out = Interpreter::new(&imported.ctx, imported.module)
        .run_function(&imported.function, &inputs)
        .unwrap_or_else(|d| panic!("{name} at te: {}", d.message));
    assert_matches(name, "te interpreter", &out, &expected);

    let mut imported = import_generated(&dir);
    let compiled = common::compile_for_host(name, &mut imported);
    let out = compiled
        .run(&imported.function, &inputs)
        .unwrap_or_else(|e| panic!("{name} compiled: {e}"));
    assert_matches(name, "compiled", &out, &expected);
    text
}

#[test]
fn loop_scan_models_match_onnxruntime() {
    let Some(dir) = loop_scan_models("loop_scan_models_match_onnxruntime") else {
        return;
    };
    // Each model with an op its import must hold and one it must not.
    for (name, op, absent) in [
        ("loop_m_only", "graph.loop", "graph.scan"),
        ("loop_cond_only", "graph.loop", "graph.scan"),
        ("loop_m_and_cond", "graph.loop", "graph.scan"),
        ("loop_outer_captures", "graph.loop", "graph.scan"),
        // Slice bounds computed from the iteration number: unrolled at import.
        ("loop_slice_by_iteration", "graph.slice", "graph.loop"),
        ("scan_reversed_axes", "graph.scan", "graph.loop"),
        ("scan_opset8_batch", "graph.scan", "graph.loop"),
    ] {
        let text = matches_onnxruntime(dir.path(), name);
        assert!(text.contains(op), "{name}:\n{text}");
        assert!(!text.contains(absent), "{name}:\n{text}");
    }
}

fn graph_attr_body(g: GraphProto) -> AttributeProto {
    graph_attr("body", g)
}

/// Loop(M, cond, x) whose body yields the condition `cond_out` (computed by `cond_nodes`),
/// x + 1 and a scan output of x.
fn loop_with_scan(inputs: &[&str], cond_nodes: Vec<NodeProto>) -> tb_onnx::proto::ModelProto {
    let mut nodes = cond_nodes;
    nodes.push(node("Add", "add", &["x_in", "one"], &["x_out"]));
    nodes.push(node("Identity", "id", &["x_in"], &["scan"]));
    let body = GraphProto {
        name: "body".into(),
        node: nodes,
        input: vec![
            typed("i", DataType::Int64, &[]),
            typed("cond_in", DataType::Bool, &[]),
            float("x_in", &[2]),
        ],
        output: vec![
            typed("cond_out", DataType::Bool, &[]),
            float("x_out", &[2]),
            float("scan", &[2]),
        ],
        ..Default::default()
    };
    model(
        16,
        vec![with_attr(
            node("Loop", "the_loop", inputs, &["x_final", "xs"]),
            graph_attr_body(body),
        )],
        vec![float("x", &[2]), typed("c", DataType::Bool, &[])],
        vec![float("x_final", &[2]), float("xs", &[3, 2])],
        vec![
            scalar_int("m", 3),
            floats("one", &[], &[1.0]),
            floats("limit", &[], &[5.0]),
        ],
    )
}

#[test]
fn loop_scan_outputs_with_a_static_trip_count_import() {
    let m = loop_with_scan(
        &["m", "", "x"],
        vec![node("Identity", "pass", &["cond_in"], &["cond_out"])],
    );
    let text = imported_text(m, true);
    assert!(text.contains("graph.loop"), "{text}");
    assert!(text.contains("tensor<3x2xf32>"), "{text}");
}

#[test]
fn loop_scan_outputs_whose_length_depends_on_data_are_refused() {
    // The body stops the loop once x reaches the limit: how many rows the scan output has
    // is known only at run time.
    let m = loop_with_scan(
        &["m", "", "x"],
        vec![
            node("ReduceMax", "peak", &["x_in"], &["p"]),
            node("Less", "below", &["p", "limit"], &["cond_out"]),
        ],
    );
    let err = import_error(m);
    assert!(err.contains("Loop node 'the_loop'"), "{err}");
    assert!(
        err.contains("scan outputs of Loop 'the_loop' have a length known only at run time"),
        "{err}"
    );
    // A run-time initial condition may stop the loop before its first iteration.
    let m = loop_with_scan(
        &["m", "c", "x"],
        vec![node("Identity", "pass", &["cond_in"], &["cond_out"])],
    );
    let err = import_error(m);
    assert!(err.contains("known only at run time"), "{err}");
    // Without M, only the condition bounds the loop.
    let m = loop_with_scan(
        &["", "c", "x"],
        vec![node("Identity", "pass", &["cond_in"], &["cond_out"])],
    );
    let err = import_error(m);
    assert!(err.contains("trip count M is omitted"), "{err}");
}

#[test]
fn loop_carried_values_whose_shape_changes_are_refused() {
    // x [2] becomes Concat(x, x) [4] in the body.
    let body = GraphProto {
        name: "body".into(),
        node: vec![
            node("Identity", "pass", &["cond_in"], &["cond_out"]),
            with_attr(
                node("Concat", "grow", &["x_in", "x_in"], &["x_out"]),
                attr_int("axis", 0),
            ),
        ],
        input: vec![
            typed("i", DataType::Int64, &[]),
            typed("cond_in", DataType::Bool, &[]),
            float("x_in", &[2]),
        ],
        output: vec![typed("cond_out", DataType::Bool, &[]), float("x_out", &[4])],
        ..Default::default()
    };
    let m = model(
        16,
        vec![with_attr(
            node("Loop", "grows", &["m", "", "x"], &["y"]),
            graph_attr_body(body),
        )],
        vec![float("x", &[2])],
        vec![float("y", &[2])],
        vec![scalar_int("m", 3)],
    );
    let err = import_error(m);
    assert!(err.contains("Loop node 'grows'"), "{err}");
    assert!(
        err.contains("loop-carried value #0 ('x_out') enters the body as tensor<2xf32> but leaves it as tensor<4xf32>"),
        "{err}"
    );
}

#[test]
fn an_unsupported_node_in_a_loop_body_is_reported_once() {
    let body = GraphProto {
        name: "body".into(),
        node: vec![
            node("Identity", "pass", &["cond_in"], &["cond_out"]),
            node("NonZero", "nz", &["x_in"], &["x_out"]),
        ],
        input: vec![
            typed("i", DataType::Int64, &[]),
            typed("cond_in", DataType::Bool, &[]),
            float("x_in", &[2]),
        ],
        output: vec![typed("cond_out", DataType::Bool, &[]), float("x_out", &[2])],
        ..Default::default()
    };
    let m = model(
        16,
        vec![with_attr(
            node("Loop", "l", &["m", "", "x"], &["y"]),
            graph_attr_body(body),
        )],
        vec![float("x", &[2])],
        vec![float("y", &[2])],
        vec![scalar_int("m", 3)],
    );
    let err = import_error(m);
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(err.contains("operator 'NonZero' is not supported"), "{err}");
}

#[test]
fn scan_with_a_bad_axis_is_refused_at_the_node() {
    let body = GraphProto {
        name: "body".into(),
        node: vec![node("Identity", "id", &["xi"], &["y"])],
        input: vec![float("xi", &[2])],
        output: vec![float("y", &[2])],
        ..Default::default()
    };
    let scan = with_attr(
        with_attr(
            node("Scan", "s", &["x"], &["ys"]),
            attr_int("num_scan_inputs", 1),
        ),
        attr_ints("scan_input_axes", &[2]),
    );
    let m = model(
        16,
        vec![with_attr(scan, graph_attr_body(body))],
        vec![float("x", &[3, 2])],
        vec![float("ys", &[3, 2])],
        vec![],
    );
    let err = import_error(m);
    assert!(err.contains("Scan node 's'"), "{err}");
    assert!(
        err.contains("scan_input_axes[0] = 2 is out of range for scan input 'x' of rank 2"),
        "{err}"
    );
}
