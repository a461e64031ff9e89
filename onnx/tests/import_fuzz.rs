//! A structure-aware mutator over small valid models: it drops, duplicates and rewires node
//! inputs and outputs, empties names, reorders nodes, sets dimensions and initializer dims
//! to extremes (0, -1, 2^62), flips and erases attribute types, duplicates attributes and
//! sets opset and IR versions to extremes. Every mutant must import or fail with located
//! problems; none may panic. The normal run tries a bounded number of seeded mutants; the
//! ignored one many more:
//!
//! ```sh
//! cargo test --release -p tb-onnx --test import_fuzz -- --ignored   # TB_FUZZ_CASES=N to size it
//! ```

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tb_onnx::proto::ModelProto;
use tb_onnx::proto::attribute_proto::AttributeType;
use tb_onnx::proto::tensor_proto::DataType;
use tb_onnx::proto::tensor_shape_proto::dimension;
use tb_onnx::proto::type_proto;

use common::builder::*;

/// The valid models mutants start from: a spread of operator families, attributes,
/// initializers and shape inputs.
fn seeds() -> Vec<ModelProto> {
    vec![
        model(
            17,
            vec![
                node("Relu", "r", &["x"], &["a"]),
                node("Add", "add", &["a", "w"], &["b"]),
                with_attr(node("Flatten", "fl", &["b"], &["c"]), attr_int("axis", 1)),
                node("Reshape", "rs", &["c", "shape"], &["d"]),
                with_attr(node("Softmax", "sm", &["d"], &["y"]), attr_int("axis", -1)),
            ],
            vec![float("x", &[2, 3, 4])],
            vec![float("y", &[6, 4])],
            vec![
                floats("w", &[4], &[1.0, 2.0, 3.0, 4.0]),
                ints("shape", &[6, 4]),
            ],
        ),
        model(
            13,
            vec![
                node("Unsqueeze", "u", &["x", "axes"], &["a"]),
                with_attr(
                    node("Concat", "cat", &["a", "a"], &["b"]),
                    attr_int("axis", 0),
                ),
                with_attr(
                    node("Transpose", "t", &["b"], &["c"]),
                    attr_ints("perm", &[2, 1, 0]),
                ),
                node("Shape", "sh", &["c"], &["s"]),
                node("ConstantOfShape", "cs", &["s"], &["z"]),
                node("Add", "add", &["c", "z"], &["y"]),
            ],
            vec![float("x", &[2, 3])],
            vec![float("y", &[3, 2, 2])],
            vec![ints("axes", &[0])],
        ),
        model(
            11,
            vec![
                with_attr(
                    with_attr(
                        node("Conv", "conv", &["x", "w", "b"], &["c"]),
                        attr_ints("pads", &[1, 1, 1, 1]),
                    ),
                    attr_ints("strides", &[1, 1]),
                ),
                with_attr(
                    with_attr(
                        node("MaxPool", "mp", &["c"], &["p"]),
                        attr_ints("kernel_shape", &[2, 2]),
                    ),
                    attr_ints("strides", &[2, 2]),
                ),
                with_attr(
                    node("Unsqueeze", "u", &["p"], &["q"]),
                    attr_ints("axes", &[0]),
                ),
                with_attr(
                    node("Squeeze", "s", &["q"], &["r"]),
                    attr_ints("axes", &[0]),
                ),
                with_attr(
                    node("Gemm", "g", &["m", "m"], &["gm"]),
                    attr_int("transB", 1),
                ),
                node("Clip", "clip", &["r", "lo", "hi"], &["y"]),
                with_attr(
                    node("Split", "sp", &["gm"], &["y1", "y2"]),
                    attr_int("axis", 0),
                ),
            ],
            vec![float("x", &[1, 1, 4, 4]), float("m", &[2, 2])],
            vec![
                float("y", &[1, 1, 2, 2]),
                float("y1", &[1, 2]),
                float("y2", &[1, 2]),
            ],
            vec![
                floats("w", &[1, 1, 3, 3], &[0.5; 9]),
                floats("b", &[1], &[0.1]),
                floats("lo", &[], &[0.0]),
                floats("hi", &[], &[6.0]),
            ],
        ),
        model(
            17,
            vec![
                node("Range", "rg", &["start", "limit", "delta"], &["r"]),
                node("Tile", "tile", &["r", "reps"], &["t"]),
                node("Expand", "e", &["x", "eshape"], &["ex"]),
                with_attr(
                    node("ReduceSum", "rsum", &["ex", "raxes"], &["s"]),
                    attr_int("keepdims", 0),
                ),
                node("Cast", "cast", &["t"], &["y"]),
                node("Dropout", "drop", &["s"], &["z", "mask"]),
            ],
            vec![float("x", &[1, 3])],
            vec![
                float("y", &[8]),
                float("z", &[3]),
                typed("mask", DataType::Bool, &[3]),
            ],
            vec![
                scalar_int("start", 0),
                scalar_int("limit", 4),
                scalar_int("delta", 1),
                ints("reps", &[2]),
                ints("eshape", &[2, 3]),
                ints("raxes", &[0]),
            ],
        ),
    ]
    .into_iter()
    .map(|mut m| {
        // Cast's `to` and the graph outputs' types are set after the fact.
        let g = graph_mut(&mut m);
        for n in &mut g.node {
            if n.op_type == "Cast" {
                n.attribute.push(attr_int("to", 1));
            }
        }
        m
    })
    .collect()
}

const EXTREMES: [i64; 6] = [0, -1, 1, 2, 1 << 62, i64::MAX];

/// Applies one random structural mutation.
fn mutate(m: &mut ModelProto, rng: &mut StdRng) {
    let g = graph_mut(m);
    let mut names: Vec<String> = g.input.iter().map(|i| i.name.clone()).collect();
    names.extend(g.node.iter().flat_map(|n| n.output.clone()));
    names.extend(g.initializer.iter().map(|t| t.name.clone()));
    names.push(String::new());
    names.push("undefined".into());
    let pick = |rng: &mut StdRng, names: &[String]| names[rng.random_range(0..names.len())].clone();
    let n_nodes = g.node.len();
    let k = rng.random_range(0..n_nodes.max(1));
    match rng.random_range(0..16) {
        0 if n_nodes > 0 && !g.node[k].input.is_empty() => {
            let i = rng.random_range(0..g.node[k].input.len());
            g.node[k].input.remove(i);
        }
        1 if n_nodes > 0 && !g.node[k].output.is_empty() => {
            let i = rng.random_range(0..g.node[k].output.len());
            g.node[k].output.remove(i);
        }
        2 if n_nodes > 0 => {
            let name = pick(rng, &names);
            g.node[k].input.push(name);
        }
        3 if n_nodes > 0 => {
            let name = pick(rng, &names);
            g.node[k].output.push(name);
        }
        4 if n_nodes > 0 && !g.node[k].input.is_empty() => {
            let i = rng.random_range(0..g.node[k].input.len());
            g.node[k].input[i] = pick(rng, &names);
        }
        5 if n_nodes > 0 && !g.node[k].output.is_empty() => {
            let i = rng.random_range(0..g.node[k].output.len());
            g.node[k].output[i] = pick(rng, &names);
        }
        6 if n_nodes > 1 => {
            let j = rng.random_range(0..n_nodes);
            g.node.swap(k, j);
        }
        7 | 8 => {
            // A dimension of a graph input, output or value_info.
            let infos: Vec<_> = g
                .input
                .iter_mut()
                .chain(g.output.iter_mut())
                .chain(g.value_info.iter_mut())
                .collect();
            if infos.is_empty() {
                return;
            }
            let len = infos.len();
            let info = infos.into_iter().nth(rng.random_range(0..len)).unwrap();
            if let Some(type_proto::Value::TensorType(t)) =
                info.r#type.as_mut().and_then(|t| t.value.as_mut())
                && let Some(shape) = t.shape.as_mut()
                && !shape.dim.is_empty()
            {
                let d = rng.random_range(0..shape.dim.len());
                let v = EXTREMES[rng.random_range(0..EXTREMES.len())];
                shape.dim[d].value = Some(dimension::Value::DimValue(v));
            }
        }
        9 if !g.initializer.is_empty() => {
            let t = rng.random_range(0..g.initializer.len());
            let init = &mut g.initializer[t];
            if init.dims.is_empty() || rng.random_bool(0.3) {
                init.dims
                    .push(EXTREMES[rng.random_range(0..EXTREMES.len())]);
            } else {
                let d = rng.random_range(0..init.dims.len());
                init.dims[d] = EXTREMES[rng.random_range(0..EXTREMES.len())];
            }
        }
        10 if n_nodes > 0 && !g.node[k].attribute.is_empty() => {
            // Flip the type (the value fields stay as they were), or erase it.
            let a = rng.random_range(0..g.node[k].attribute.len());
            let ty = rng.random_range(0..=AttributeType::TypeProtos as i32 + 1);
            g.node[k].attribute[a].r#type = ty;
        }
        11 if n_nodes > 0 && !g.node[k].attribute.is_empty() => {
            let a = rng.random_range(0..g.node[k].attribute.len());
            let copy = g.node[k].attribute[a].clone();
            g.node[k].attribute.push(copy);
        }
        12 if n_nodes > 0 => {
            // Empty names: the node's, an input's, an output's.
            match rng.random_range(0..3) {
                0 => g.node[k].name.clear(),
                1 if !g.node[k].input.is_empty() => g.node[k].input[0].clear(),
                _ if !g.node[k].output.is_empty() => g.node[k].output[0].clear(),
                _ => {}
            }
        }
        13 if n_nodes > 0 && !g.node[k].attribute.is_empty() => {
            // An int attribute value at an extreme.
            let a = rng.random_range(0..g.node[k].attribute.len());
            let attr = &mut g.node[k].attribute[a];
            let v = EXTREMES[rng.random_range(0..EXTREMES.len())];
            attr.i = v;
            if let Some(x) = attr.ints.first_mut() {
                *x = v;
            }
        }
        14 => {
            let v = [0, 1, 7, 13, 21, 22, 27, 1001, 1 << 31, 1 << 62][rng.random_range(0..10)];
            m.opset_import[0].version = v;
        }
        15 => m.ir_version = [0, 1, 3, 8, 13, 14, 1 << 62][rng.random_range(0..7)],
        _ => {}
    }
}

/// Imports `count` mutants from seed `seed` on; panics name the seed that reproduces one.
fn run(count: u64, seed: u64) {
    let seeds = seeds();
    // Every seed imports unmutated: a mutant's failure is the mutation's doing.
    for (i, s) in seeds.iter().enumerate() {
        if let Err(e) = import(s.clone(), true) {
            panic!("seed model {i} does not import:\n{e}");
        }
    }
    // Keep the log readable: one line per panic instead of a backtrace.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let (mut imported, mut refused) = (0u64, 0u64);
    for case in seed..seed + count {
        let mut rng = StdRng::seed_from_u64(case);
        let mut m = seeds[rng.random_range(0..seeds.len())].clone();
        for _ in 0..rng.random_range(1..=3) {
            mutate(&mut m, &mut rng);
        }
        match catch_unwind(AssertUnwindSafe(|| import(m.clone(), true))) {
            Err(p) => {
                let why = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("case {case}: panic: {why}"));
            }
            Ok(Err(e)) => {
                refused += 1;
                for p in &e.problems {
                    if p.at.is_none() && !p.message.contains('\'') {
                        failures.push(format!("case {case}: unlocated problem: {p}"));
                    }
                }
            }
            Ok(Ok(_)) => imported += 1,
        }
        if failures.len() >= 20 {
            break;
        }
    }
    std::panic::set_hook(hook);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{count} mutants: {imported} imported, {refused} refused with located problems");
    // Both outcomes must be common, or the mutator exercises only one side of the importer.
    assert!(
        imported * 50 > count && refused * 50 > count,
        "{imported} imported, {refused} refused"
    );
}

/// Validation is never stricter than onnx.checker: every mutant it rejects, the checker
/// rejects too (through tests/support/check_models.py).
#[test]
fn checker_rejects_every_mutant_validation_rejects() {
    let Some(python) = common::python_or_skip("checker_rejects_every_mutant_validation_rejects")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let seeds = seeds();
    let mut rejected = Vec::new();
    for case in 0..300u64 {
        let mut rng = StdRng::seed_from_u64(case);
        let mut m = seeds[rng.random_range(0..seeds.len())].clone();
        for _ in 0..rng.random_range(1..=3) {
            mutate(&mut m, &mut rng);
        }
        let Ok(model) = tb_onnx::Model::new(m.clone(), None) else {
            continue;
        };
        let report = tb_onnx::validate::validate(&model);
        if let Some(first) = report.errors.first() {
            let name = format!("case{case}");
            std::fs::write(dir.path().join(format!("{name}.onnx")), m.encode_to_vec()).unwrap();
            rejected.push((name, first.to_string()));
        }
    }
    assert!(
        rejected.len() > 50,
        "only {} mutants rejected",
        rejected.len()
    );
    let verdicts = common::run_script(&python, "check_models.py", &[dir.path()]);
    let accepted: Vec<String> = rejected
        .iter()
        .filter(|(name, _)| verdicts.lines().any(|l| l == format!("{name}: ok")))
        .map(|(name, why)| format!("{name}: we say {why}"))
        .collect();
    assert!(
        accepted.is_empty(),
        "onnx.checker accepts mutants validation rejects:\n{}",
        accepted.join("\n")
    );
}

#[test]
fn mutants_import_or_fail_with_located_errors() {
    run(2000, 0);
}

#[test]
#[ignore = "long: run with --ignored (TB_FUZZ_CASES sets the count, default 100000)"]
fn many_mutants_import_or_fail_with_located_errors() {
    let count = std::env::var("TB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    run(count, 1_000_000);
}
