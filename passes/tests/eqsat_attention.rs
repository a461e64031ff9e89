//! `graph.attention`: its te lowering computes what the reference kernel computes, and
//! `graph-eqsat` recognizes the attention an exporter writes op by op (heads split by
//! reshape and transpose, K transposed, the scale a division) with the default cost model.

use tb_interpreter::check::{Tolerance, check_transform};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};

const TOLERANCE: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 1e-5,
};

/// Runs `pipeline` on `src` and checks every function against the interpreter on random
/// inputs; returns the transformed IR.
fn check(pipeline: &str, src: &str) -> String {
    let report = check_transform(
        src,
        |ctx, module| {
            let mut registry = PassRegistry::new();
            tb_passes::register_all(&mut registry);
            let pipeline = Pipeline::parse(pipeline).unwrap();
            let mut pm = PassManager::new(&pipeline, &registry).unwrap();
            let instrumentation = Instrumentation {
                verify_each: true,
                ..Instrumentation::default()
            };
            pm.run(ctx, module, &instrumentation)
        },
        TOLERANCE,
        3,
    )
    .unwrap_or_else(|e| panic!("{pipeline} changed the program's meaning:\n{e}"));
    assert!(report.skipped.is_empty(), "left out: {:?}", report.skipped);
    report.text
}

fn lower(src: &str) -> String {
    let text = check("builtin.module(convert-graph-to-te)", src);
    assert!(!text.contains("graph."), "{text}");
    text
}

#[test]
fn lowers_plain_attention() {
    lower(
        r#"
func.func @f(%q: tensor<2x3x5x4xf32>, %k: tensor<2x3x6x4xf32>, %v: tensor<2x3x6x7xf32>) -> tensor<2x3x5x7xf32> {
  %y = graph.attention %q, %k, %v : (tensor<2x3x5x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x7xf32>) -> tensor<2x3x5x7xf32>
  return %y : tensor<2x3x5x7xf32>
}
"#,
    );
}

#[test]
fn lowers_grouped_query_heads_with_scale() {
    lower(
        r#"
func.func @f(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x3xf32>) -> tensor<1x4x3x3xf32> {
  %y = graph.attention %q, %k, %v {scale = 0.7 : f32} : (tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>) -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}
"#,
    );
}

#[test]
fn lowers_broadcast_mask_causal_and_softcap() {
    lower(
        r#"
func.func @f(%q: tensor<2x2x4x3xf32>, %k: tensor<2x2x4x3xf32>, %v: tensor<2x2x4x3xf32>, %m: tensor<4x4xf32>) -> tensor<2x2x4x3xf32> {
  %y = graph.attention %q, %k, %v, %m {is_causal = true, softcap = 2.0 : f32} : (tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<4x4xf32>) -> tensor<2x2x4x3xf32>
  return %y : tensor<2x2x4x3xf32>
}
"#,
    );
}

/// One BERT-style self-attention block as the bundled encoder spells it.
const ENCODER_ATTENTION: &str = r#"
func.func @f(%x: tensor<1x8x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>) -> tensor<1x8x16xf32> {
  %c = graph.constant dense<2.0> : tensor<f32>
  %q0 = graph.matmul %x, %wq : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
  %k0 = graph.matmul %x, %wk : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
  %v0 = graph.matmul %x, %wv : (tensor<1x8x16xf32>, tensor<16x16xf32>) -> tensor<1x8x16xf32>
  %q1 = graph.reshape %q0 {shape = array<i64: 1, 8, 4, 4>} : (tensor<1x8x16xf32>) -> tensor<1x8x4x4xf32>
  %k1 = graph.reshape %k0 {shape = array<i64: 1, 8, 4, 4>} : (tensor<1x8x16xf32>) -> tensor<1x8x4x4xf32>
  %v1 = graph.reshape %v0 {shape = array<i64: 1, 8, 4, 4>} : (tensor<1x8x16xf32>) -> tensor<1x8x4x4xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x8x4xf32>
  %kt = graph.transpose %k1 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x8x4xf32>
  %s = graph.matmul %q, %kt : (tensor<1x4x8x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x8x8xf32>
  %z = graph.div %s, %c : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  %p = graph.softmax %z {axis = -1 : i64} : tensor<1x4x8x8xf32>
  %o = graph.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  %o1 = graph.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x4xf32>) -> tensor<1x8x4x4xf32>
  %y = graph.reshape %o1 {shape = array<i64: 1, 8, 16>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}
"#;

#[test]
fn eqsat_recognizes_encoder_attention() {
    let text = check("builtin.module(graph-eqsat)", ENCODER_ATTENTION);
    assert!(text.contains("graph.attention"), "{text}");
    assert!(!text.contains("graph.softmax"), "{text}");
}

#[test]
fn recognized_attention_lowers_and_keeps_meaning() {
    check(
        "builtin.module(graph-eqsat, convert-graph-to-te, te-fuse)",
        ENCODER_ATTENTION,
    );
}
