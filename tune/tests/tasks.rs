//! Tasks: kernels keyed by structure, weighted by occurrence, extracted standalone.

mod common;

use common::{MODEL, model_tasks};
use tb_tune::space::Space;
use tb_tune::task::{TASK_FUNCTION, parse_module, task_nest};

#[test]
fn identical_kernels_are_one_task_weighted_by_count() {
    let tasks = model_tasks(MODEL);
    let matmuls: Vec<_> = tasks
        .iter()
        .filter(|t| t.summary.starts_with("matmul"))
        .collect();
    assert_eq!(matmuls.len(), 2, "{tasks:#?}");
    assert_eq!(matmuls[0].summary, "matmul 1x32x24x16");
    assert_eq!(matmuls[0].task.weight, 2);
    assert_eq!(matmuls[1].summary, "matmul 1x32x8x24");
    assert_eq!(matmuls[1].task.weight, 1);
    let total: usize = tasks.iter().map(|t| t.task.weight).sum();
    assert_eq!(
        total, 4,
        "four nests: three matmuls, the add and relu fused into one"
    );
}

#[test]
fn keys_ignore_names_and_weights_but_not_shapes() {
    let renamed = MODEL
        .replace("%a", "%lhs")
        .replace("\"model\"", "\"other\"");
    let a: Vec<String> = model_tasks(MODEL).into_iter().map(|t| t.task.key).collect();
    let b: Vec<String> = model_tasks(&renamed)
        .into_iter()
        .map(|t| t.task.key)
        .collect();
    assert_eq!(a, b);
    let reshaped = MODEL
        .replace("24x8xf32", "24x12xf32")
        .replace("32x8xf32", "32x12xf32");
    let c: Vec<String> = model_tasks(&reshaped)
        .into_iter()
        .map(|t| t.task.key)
        .collect();
    assert_eq!(a[..a.len() - 1], c[..c.len() - 1]);
    assert_ne!(a.last(), c.last());
}

#[test]
fn a_task_is_a_standalone_function_on_buffers() {
    for t in model_tasks(MODEL) {
        let (ctx, module) = parse_module(&t.task.ir).expect("the task module parses and verifies");
        assert!(task_nest(&ctx, module).is_some());
        assert!(
            t.task
                .ir
                .contains(&format!("sym_name = \"{TASK_FUNCTION}\""))
        );
        assert!(!t.task.ir.contains("graph."), "{}", t.task.ir);
    }
}

#[test]
fn elementwise_nests_get_a_space_or_say_why_not() {
    for t in model_tasks(MODEL) {
        if t.summary.starts_with("nest") {
            match &t.space {
                Space::Fixed(why) => assert!(why.contains("does not apply"), "{why}"),
                Space::Schedule(s) => assert!(s.size() > 1),
                Space::MicroKernel(_) => panic!("an elementwise nest is no matmul"),
                Space::Conv(_) => panic!("an elementwise nest is no convolution"),
            }
        }
    }
}

#[test]
fn tasks_come_from_the_cpu_pipelines_own_front_half() {
    // `tb-run --db` lowers with the front half, then runs the whole CPU pipeline: a pass
    // the front half skipped (equality saturation, te fusion) would find nothing left to
    // do, and the tuned model would run unfused kernels.
    let passes = |pipeline: &str| -> Vec<String> {
        pipeline
            .trim_start_matches("builtin.module(")
            .trim_end_matches(')')
            .split(", ")
            .map(str::to_owned)
            .collect()
    };
    let front = passes(tb_tune::FRONT_PIPELINE);
    let cpu = passes(tb_passes::pipelines::CPU);
    assert_eq!(front[..], cpu[..front.len()], "{front:?} against {cpu:?}");
    assert_eq!(cpu[front.len()], "loop-matmul-microkernel", "{cpu:?}");
}

#[test]
fn weights_stay_constant_in_a_task_and_do_not_split_it() {
    // Two matmuls of one shape with different constant weights: one task, whose weights
    // are a constant global of ones (so compile-time packing and the other passes that
    // need constant operands apply as in the model), not an argument.
    let model = "func.func @weights(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {\n\
                 %w1 = graph.constant dense<2.0> : tensor<16x16xf32>\n\
                 %w2 = graph.constant dense<3.0> : tensor<16x16xf32>\n\
                 %0 = graph.matmul %a, %w1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>\n\
                 %1 = graph.matmul %0, %w2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>\n\
                 return %1 : tensor<8x16xf32>\n}\n";
    let tasks = model_tasks(model);
    let matmuls: Vec<_> = tasks
        .iter()
        .filter(|t| t.summary.starts_with("matmul"))
        .collect();
    assert_eq!(matmuls.len(), 1, "{tasks:#?}");
    assert_eq!(matmuls[0].task.weight, 2);
    let ir = &matmuls[0].task.ir;
    assert!(
        ir.contains("\"memref.global\"() <{constant, initial_value = dense<1.000000e+00> : tensor<16x16xf32>"),
        "{ir}"
    );
    assert!(ir.contains("\"memref.get_global\""), "{ir}");
    assert!(
        ir.contains("function_type = (memref<8x16xf32>) -> memref<8x16xf32>"),
        "the weights are not an argument: {ir}"
    );
}
