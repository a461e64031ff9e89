//! Hostile and malformed models: each is refused with an error that names the node (op
//! type, name, index) or value at fault, never a panic. Where `onnx.checker.check_model(m,
//! full_check=True)` has an opinion, it rejects the same models
//! (`checker_rejects_what_we_reject`, through tests/support/check_models.py).

mod common;

use prost::Message;
use tb_onnx::proto::ModelProto;
use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::tensor_proto::DataType;

use common::builder::*;

/// One hostile model and a piece of the error it must get.
struct Case {
    name: &'static str,
    model: ModelProto,
    error: &'static str,
    /// Whether onnx.checker rejects it too (sizes that overflow 64 bits are our own rule).
    checker_rejects: bool,
}

fn case(name: &'static str, model: ModelProto, error: &'static str) -> Case {
    Case {
        name,
        model,
        error,
        checker_rejects: true,
    }
}

fn relu_model(nodes: Vec<tb_onnx::proto::NodeProto>) -> ModelProto {
    model(
        17,
        nodes,
        vec![float("x", &[2, 3])],
        vec![float("y", &[2, 3])],
        vec![],
    )
}

fn cases() -> Vec<Case> {
    let mut cases = vec![
        // Arity per schema: what used to index past the end of `node.input`/`node.output`.
        case(
            "no_outputs",
            relu_model(vec![
                node("Relu", "r", &["x"], &[]),
                node("Relu", "s", &["x"], &["y"]),
            ]),
            "Relu node 'r' (node #0): has 0 outputs, but Relu in opset 17 takes 1",
        ),
        case(
            "no_inputs",
            relu_model(vec![node("Relu", "r", &[], &["y"])]),
            "Relu node 'r' (node #0): has 0 inputs, but Relu in opset 17 takes 1",
        ),
        case(
            "required_input_empty",
            relu_model(vec![node("Relu", "r", &[""], &["y"])]),
            "Relu node 'r' (node #0): input #0 is required but is left out",
        ),
        case(
            "reshape_data_empty",
            model(
                17,
                vec![node("Reshape", "rs", &["", "s"], &["y"])],
                vec![float("x", &[2, 3])],
                vec![float("y", &[3, 2])],
                vec![ints("s", &[3, 2])],
            ),
            "Reshape node 'rs' (node #0): input #0 is required but is left out",
        ),
        case(
            "folded_node_no_outputs",
            model(
                17,
                vec![
                    node("Relu", "r", &["c"], &[]),
                    node("Relu", "s", &["x"], &["y"]),
                ],
                vec![float("x", &[2, 3])],
                vec![float("y", &[2, 3])],
                vec![floats("c", &[2], &[1.0, -1.0])],
            ),
            "Relu node 'r' (node #0): has 0 outputs",
        ),
        case(
            "too_many_outputs",
            relu_model(vec![node("Relu", "r", &["x"], &["y", "z"])]),
            "Relu node 'r' (node #0): has 2 outputs, but Relu in opset 17 takes 1",
        ),
        // SSA.
        case(
            "two_writers",
            relu_model(vec![
                node("Relu", "a", &["x"], &["y"]),
                node("Relu", "b", &["x"], &["y"]),
            ]),
            "Relu node 'b' (node #1): output #0 'y' is already an output of Relu node 'a' (node #0)",
        ),
        case(
            "output_shadows_input",
            relu_model(vec![
                node("Relu", "a", &["x"], &["x"]),
                node("Relu", "b", &["x"], &["y"]),
            ]),
            "Relu node 'a' (node #0): output #0 'x' is already a graph input",
        ),
        case(
            "output_shadows_initializer",
            model(
                17,
                vec![
                    node("Relu", "a", &["x"], &["w"]),
                    node("Add", "b", &["x", "w"], &["y"]),
                ],
                vec![float("x", &[2])],
                vec![float("y", &[2])],
                vec![floats("w", &[2], &[1.0, 2.0])],
            ),
            "Relu node 'a' (node #0): output #0 'w' is already an initializer",
        ),
        case(
            "use_before_definition",
            relu_model(vec![
                node("Relu", "a", &["t"], &["y"]),
                node("Relu", "b", &["x"], &["t"]),
            ]),
            "Relu node 'a' (node #0): input #0 't' is read before it is defined (by Relu node 'b' \
             (node #1))",
        ),
        case(
            "undefined_input",
            relu_model(vec![node("Relu", "a", &["nowhere"], &["y"])]),
            "Relu node 'a' (node #0): input #0 'nowhere' is not a graph input",
        ),
        case(
            "undefined_graph_output",
            model(
                17,
                vec![node("Relu", "a", &["x"], &["y"])],
                vec![float("x", &[2])],
                vec![float("y", &[2]), float("z", &[2])],
                vec![],
            ),
            "graph output 'z': is not defined by any node, input or initializer",
        ),
        case(
            "duplicate_graph_input",
            model(
                17,
                vec![node("Relu", "a", &["x"], &["y"])],
                vec![float("x", &[2]), float("x", &[2])],
                vec![float("y", &[2])],
                vec![],
            ),
            "graph input 'x': is listed more than once",
        ),
        case(
            "duplicate_initializer",
            model(
                17,
                vec![node("Add", "a", &["x", "w"], &["y"])],
                vec![float("x", &[2])],
                vec![float("y", &[2])],
                vec![
                    floats("w", &[2], &[1.0, 2.0]),
                    floats("w", &[2], &[1.0, 2.0]),
                ],
            ),
            "initializer 'w': is defined more than once",
        ),
        // Attributes.
        case(
            "duplicate_attribute",
            relu_model(vec![with_attr(
                with_attr(
                    node("LeakyRelu", "l", &["x"], &["y"]),
                    attr_float("alpha", 0.1),
                ),
                attr_float("alpha", 0.2),
            )]),
            "LeakyRelu node 'l' (node #0): attribute 'alpha' appears more than once",
        ),
        case(
            "untyped_attribute",
            relu_model(vec![with_attr(node("LeakyRelu", "l", &["x"], &["y"]), {
                let mut a = attr_float("alpha", 0.1);
                a.r#type = AttributeType::Undefined as i32;
                a
            })]),
            "LeakyRelu node 'l' (node #0): attribute 'alpha' has no type",
        ),
        case(
            "attribute_of_wrong_type",
            relu_model(vec![with_attr(
                node("LeakyRelu", "l", &["x"], &["y"]),
                attr_int("alpha", 2),
            )]),
            "LeakyRelu node 'l' (node #0): attribute 'alpha' must be FLOAT, found INT",
        ),
        case(
            "unknown_attribute",
            relu_model(vec![with_attr(
                node("Relu", "r", &["x"], &["y"]),
                attr_float("alpha", 1.0),
            )]),
            "Relu node 'r' (node #0): attribute 'alpha' is not an attribute of Relu in opset 17",
        ),
        case(
            "missing_required_attribute",
            model(
                11,
                vec![node("Unsqueeze", "u", &["x"], &["y"])],
                vec![float("x", &[2, 3])],
                vec![float("y", &[1, 2, 3])],
                vec![],
            ),
            "Unsqueeze node 'u' (node #0): attribute 'axes' is required by Unsqueeze in opset 11",
        ),
        // Versions.
        case(
            "absurd_opset",
            model(
                1 << 62,
                vec![node("Relu", "r", &["x"], &["y"])],
                vec![float("x", &[2])],
                vec![float("y", &[2])],
                vec![],
            ),
            "opset_import: default-domain opset 4611686018427387904 is not a plausible ONNX opset",
        ),
        case(
            "future_ir_version",
            {
                let mut m = relu_model(vec![node("Relu", "r", &["x"], &["y"])]);
                m.ir_version = 14;
                m
            },
            "model: ir_version 14 is not an IR version ONNX has released",
        ),
        case(
            "ir_version_unset",
            {
                let mut m = relu_model(vec![node("Relu", "r", &["x"], &["y"])]);
                m.ir_version = 0;
                m
            },
            "model: ir_version 0 is not an IR version",
        ),
        // Operator syntax by opset.
        case(
            "unsqueeze_axes_input_in_opset_7",
            model(
                7,
                vec![node("Unsqueeze", "u", &["x", "axes"], &["y"])],
                vec![float("x", &[2, 3])],
                vec![float("y", &[1, 2, 3])],
                vec![ints("axes", &[0])],
            ),
            "Unsqueeze node 'u' (node #0): has 2 inputs, but Unsqueeze in opset 7 takes 1",
        ),
        case(
            "unsqueeze_axes_attribute_in_opset_13",
            model(
                13,
                vec![with_attr(
                    node("Unsqueeze", "u", &["x"], &["y"]),
                    attr_ints("axes", &[0]),
                )],
                vec![float("x", &[2, 3])],
                vec![float("y", &[1, 2, 3])],
                vec![],
            ),
            "Unsqueeze node 'u' (node #0): has 1 inputs, but Unsqueeze in opset 13 takes 2",
        ),
        case(
            "operator_newer_than_opset",
            relu_model(vec![node("Gelu", "g", &["x"], &["y"])]),
            "Gelu node 'g' (node #0): operator 'Gelu' does not exist in opset 17; it was \
             introduced in opset 20",
        ),
    ];
    // Sizes: shapes whose element counts overflow 64 bits. onnx.checker does not count
    // elements, so these are ours alone.
    let sizes = [
        case(
            "flatten_of_huge_input",
            model(
                17,
                vec![
                    with_attr(node("Flatten", "fl", &["b"], &["f"]), attr_int("axis", 0)),
                    node("Add", "add", &["f", "f"], &["y"]),
                ],
                vec![float("b", &[1 << 62, 4])],
                vec![float("y", &[1, 1 << 62])],
                vec![],
            ),
            "graph input 'b': shape [4611686018427387904, 4] has a negative dimension or more \
             elements than fit in 64 bits",
        ),
        case(
            "flatten_of_empty_huge_input",
            model(
                17,
                vec![
                    with_attr(node("Flatten", "fl", &["b"], &["f"]), attr_int("axis", 1)),
                    node("Relu", "r", &["f"], &["y"]),
                ],
                vec![float("b", &[0, 1 << 40, 1 << 40])],
                vec![float("y", &[0, 0])],
                vec![],
            ),
            "graph input 'b': shape [0, 1099511627776, 1099511627776]",
        ),
        case(
            "tile_overflow",
            model(
                17,
                vec![node("Tile", "t", &["x", "r"], &["y"])],
                vec![float("x", &[1 << 31])],
                vec![float("y", &[1])],
                vec![ints("r", &[1 << 33])],
            ),
            "Tile node 't' (node #0): 'repeats' [8589934592] would give a result of more \
             elements than fit in 64 bits",
        ),
        case(
            "reshape_overflow",
            model(
                17,
                vec![node("Reshape", "rs", &["x", "s"], &["y"])],
                vec![float("x", &[4])],
                vec![float("y", &[1])],
                vec![ints("s", &[1 << 40, 1 << 40])],
            ),
            "Reshape node 'rs' (node #0): 'shape' [1099511627776, 1099511627776] would give",
        ),
        case(
            "expand_overflow",
            model(
                17,
                vec![node("Expand", "e", &["x", "s"], &["y"])],
                vec![float("x", &[1])],
                vec![float("y", &[1])],
                vec![ints("s", &[1 << 40, 1 << 40])],
            ),
            "Expand node 'e' (node #0): 'shape' [1099511627776, 1099511627776] would give",
        ),
        case(
            "range_overflow",
            model(
                17,
                vec![node("Range", "rg", &["start", "limit", "delta"], &["y"])],
                vec![],
                vec![typed("y", DataType::Int64, &[1])],
                vec![
                    scalar_int("start", i64::MIN),
                    scalar_int("limit", i64::MAX),
                    scalar_int("delta", 1),
                ],
            ),
            "Range node 'rg' (node #0): start -9223372036854776000, limit \
             9223372036854776000 and delta 1 make 1.8446744073709552e19 elements, more than 2^62",
        ),
        case(
            "constant_of_shape_overflow",
            model(
                17,
                vec![node("ConstantOfShape", "c", &["s"], &["y"])],
                vec![],
                vec![float("y", &[1])],
                vec![ints("s", &[1 << 40, 1 << 40])],
            ),
            "ConstantOfShape node 'c' (node #0): input 'shape': shape [1099511627776, \
             1099511627776] has a negative dimension or more elements than fit in 64 bits",
        ),
        case(
            "matmul_result_overflow",
            model(
                17,
                vec![node("MatMul", "mm", &["a", "b"], &["y"])],
                vec![float("a", &[1 << 40, 1]), float("b", &[1, 1 << 40])],
                vec![float("y", &[1])],
                vec![],
            ),
            "MatMul node 'mm' (node #0): cannot build 'graph.matmul': 'graph.matmul' op result \
             shape [1099511627776, 1099511627776] has more than 2^63 - 1 elements",
        ),
    ];
    cases.extend(sizes.into_iter().map(|c| Case {
        checker_rejects: false,
        ..c
    }));
    cases
}

#[test]
fn each_hostile_model_gets_a_located_error() {
    let mut failures = Vec::new();
    for c in cases() {
        let result = std::panic::catch_unwind(|| import(c.model.clone(), true));
        match result {
            Err(_) => failures.push(format!("{}: the importer panicked", c.name)),
            Ok(Ok(_)) => failures.push(format!("{}: imported without error", c.name)),
            Ok(Err(e)) => {
                let text = e.to_string();
                if !text.contains(c.error) {
                    failures.push(format!("{}: expected {:?} in\n{text}", c.name, c.error));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn checker_rejects_what_we_reject() {
    let Some(python) = common::python_or_skip("checker_rejects_what_we_reject") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cases = cases();
    for c in &cases {
        std::fs::write(
            dir.path().join(format!("{}.onnx", c.name)),
            c.model.encode_to_vec(),
        )
        .unwrap();
    }
    let report = common::run_script(&python, "check_models.py", &[dir.path()]);
    for c in cases.iter().filter(|c| c.checker_rejects) {
        let line = report
            .lines()
            .find(|l| l.starts_with(&format!("{}: ", c.name)))
            .unwrap_or_else(|| panic!("no verdict for {} in\n{report}", c.name));
        assert!(
            !line.ends_with(": ok"),
            "onnx.checker accepts {} but we reject it:\n{line}",
            c.name
        );
    }
}

#[test]
fn a_newer_opset_than_tested_imports_with_a_warning() {
    let m = model(
        22,
        vec![node("Relu", "r", &["x"], &["y"])],
        vec![float("x", &[2])],
        vec![float("y", &[2])],
        vec![],
    );
    let imported = import(m, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(imported.warnings.len(), 1, "{:?}", imported.warnings);
    assert!(
        imported.warnings[0]
            .contains("opset 22 is newer than the newest opset TensorBind is tested with (21)"),
        "{:?}",
        imported.warnings
    );
    let m = model(
        21,
        vec![node("Relu", "r", &["x"], &["y"])],
        vec![float("x", &[2])],
        vec![float("y", &[2])],
        vec![],
    );
    assert!(import(m, true).unwrap().warnings.is_empty());
    // onnx.checker accepts any opset below 2^31 (with its newest schemas); so do we.
    let m = model(
        1001,
        vec![node("Relu", "r", &["x"], &["y"])],
        vec![float("x", &[2])],
        vec![float("y", &[2])],
        vec![],
    );
    assert_eq!(import(m, true).unwrap().warnings.len(), 1);
}

/// ConstantOfShape → Cos over 2^40 elements: above the evaluation budget, so both stay
/// ops (nothing is allocated; the test would run out of memory otherwise).
#[test]
fn results_over_the_budget_are_not_evaluated() {
    let huge = model(
        17,
        vec![
            node("ConstantOfShape", "c", &["s"], &["k"]),
            node("Cos", "cos", &["k"], &["y"]),
        ],
        vec![],
        vec![float("y", &[1 << 20, 1 << 20])],
        vec![ints("s", &[1 << 20, 1 << 20])],
    );
    let text = imported_text(huge, false);
    assert!(text.contains("graph.constant_of_shape"), "{text}");
    assert!(text.contains("graph.cos"), "{text}");
    // Within the budget the same graph folds to one constant.
    let small = model(
        17,
        vec![
            node("ConstantOfShape", "c", &["s"], &["k"]),
            node("Cos", "cos", &["k"], &["y"]),
        ],
        vec![],
        vec![float("y", &[4, 4])],
        vec![ints("s", &[4, 4])],
    );
    let text = imported_text(small, false);
    assert!(!text.contains("graph.constant_of_shape"), "{text}");
    assert!(!text.contains("graph.cos"), "{text}");
}

/// A model that passes validation still imports: validation does not reject what ONNX
/// allows (optional inputs left out, trailing `""` outputs, initializers listed as inputs).
#[test]
fn valid_models_with_omitted_optionals_import() {
    let mut m = model(
        17,
        vec![
            node("Clip", "clip", &["x", "", "hi"], &["c"]),
            node("Dropout", "d", &["c"], &["y", ""]),
        ],
        vec![float("x", &[2, 3]), float("hi", &[])],
        vec![float("y", &[2, 3])],
        vec![floats("hi", &[], &[0.5])],
    );
    graph_mut(&mut m).value_info.push(float("c", &[2, 3]));
    let text = imported_text(m, true);
    assert!(text.contains("graph.clip"), "{text}");
}

/// IR version 1 predates the attribute `type` field: an untyped attribute is typed by its
/// value there, and is an error from IR version 2 on (`untyped_attribute` above).
#[test]
fn untyped_attributes_of_ir_version_1_are_typed_by_their_value() {
    let mut untyped = attr_float("alpha", 0.2);
    untyped.r#type = AttributeType::Undefined as i32;
    let mut m = relu_model(vec![with_attr(
        node("LeakyRelu", "l", &["x"], &["y"]),
        untyped,
    )]);
    m.ir_version = 1;
    let text = imported_text(m, true);
    assert!(text.contains("graph.leaky_relu"), "{text}");
}
