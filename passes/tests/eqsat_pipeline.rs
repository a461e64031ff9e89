//! `graph-eqsat` as a pass in a pipeline keeps what whole graphs compute (the rule tests
//! prove each rule alone; here all rules and the cost-based extraction work together), and
//! it makes the graphs it is meant for cheaper.

use tb_interpreter::check::{CheckReport, Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

fn check_pipeline(src: &str, pipeline: &str) -> CheckReport {
    let report = check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry).unwrap();
            let instr = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instr)
        },
        Tolerance {
            rtol: 1e-4,
            atol: 1e-5,
        },
        3,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    report
}

const PIPELINE: &str = "builtin.module(canonicalize,graph-eqsat,canonicalize)";

#[test]
fn residual_block_folds_its_batch_norms() {
    let out = check_pipeline(
        r#"
func.func @block(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %w = graph.constant dense<[[[[0.5, -0.25, 0.125], [0.25, 1.0, -0.5], [0.0, 0.75, 0.5]], [[-0.5, 0.25, 0.0], [0.5, -1.0, 0.25], [0.125, 0.0, 1.0]]], [[[1.0, 0.0, -0.5], [0.25, 0.5, 0.0], [-0.25, 0.125, 0.75]], [[0.0, 0.5, 0.5], [-0.75, 0.25, 1.0], [0.5, -0.125, 0.0]]]]> : tensor<2x2x3x3xf32>
  %s = graph.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %b = graph.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %m = graph.constant dense<[0.3, -0.1]> : tensor<2xf32>
  %v = graph.constant dense<[0.9, 1.7]> : tensor<2xf32>
  %c = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %n = graph.batch_normalization %c, %s, %b, %m, %v : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %r = graph.relu %n : tensor<1x2x5x5xf32>
  %c2 = graph.conv %r, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %n2 = graph.batch_normalization %c2, %v, %m, %b, %s : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %sum = graph.add %n2, %x : (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %y = graph.relu %sum : tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}
"#,
        PIPELINE,
    );
    assert!(!out.text.contains("batch_normalization"), "{}", out.text);
    assert_eq!(out.text.matches("graph.conv").count(), 2, "{}", out.text);
}

#[test]
fn attention_projections_are_batched() {
    let out = check_pipeline(
        r#"
func.func @attention(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %wq = graph.constant dense<0.125> : tensor<8x8xf32>
  %wk = graph.constant dense<[[0.5, -0.5, 0.25, 0.0, 0.1, 0.2, -0.3, 0.4], [0.1, 0.0, -0.2, 0.3, 0.5, -0.1, 0.2, 0.0], [0.0, 0.3, 0.1, -0.4, 0.2, 0.1, 0.0, 0.5], [0.2, 0.1, 0.0, 0.1, -0.3, 0.4, 0.1, 0.2], [-0.1, 0.2, 0.3, 0.0, 0.1, 0.0, 0.4, -0.2], [0.3, -0.2, 0.1, 0.2, 0.0, 0.5, -0.1, 0.1], [0.0, 0.1, -0.1, 0.2, 0.3, 0.0, 0.2, 0.1], [0.4, 0.0, 0.2, -0.1, 0.1, 0.3, 0.0, -0.2]]> : tensor<8x8xf32>
  %wv = graph.constant dense<-0.25> : tensor<8x8xf32>
  %bq = graph.constant dense<0.5> : tensor<8xf32>
  %q0 = graph.matmul %x, %wq : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %q = graph.add %q0, %bq : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %k = graph.matmul %x, %wk : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %v = graph.matmul %x, %wv : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %kt = graph.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
  %s = graph.matmul %q, %kt : (tensor<1x4x8xf32>, tensor<1x8x4xf32>) -> tensor<1x4x4xf32>
  %p = graph.softmax %s {axis = -1 : i64} : tensor<1x4x4xf32>
  %o = graph.matmul %p, %v : (tensor<1x4x4xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %o : tensor<1x4x8xf32>
}
"#,
        PIPELINE,
    );
    assert!(out.text.contains("tensor<8x24xf32>"), "{}", out.text);
    assert_eq!(out.text.matches("graph.slice").count(), 3, "{}", out.text);
}
