//! Type inference of the graph dialect through its registered hooks, one test per op
//! family: what the ONNX importer sees when it builds ops without spelling result types.
//! Also the builder (defaults filled in, errors instead of panics), the declared defaults
//! and folding through the API.

use tb_dialects::graph::builder::op_state;
use tb_ir::attributes::AttrKind;
use tb_ir::parser::parse_attribute_text;
use tb_ir::printer::{attr_to_string, type_to_string};
use tb_ir::registry::{FoldResult, InferInput};
use tb_ir::{Attr, Context, Type, Value};

fn context() -> Context {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("every dialect registers");
    ctx
}

fn ty(ctx: &mut Context, text: &str) -> Type {
    let attr = parse_attribute_text(ctx, text).unwrap_or_else(|d| panic!("{text}: {}", d.message));
    match ctx.attr_kind(attr) {
        AttrKind::Type(t) => *t,
        other => panic!("{text} is not a type: {other:?}"),
    }
}

fn attrs(ctx: &mut Context, list: &[(&str, &str)]) -> Vec<(String, Attr)> {
    list.iter()
        .map(|(k, v)| {
            let a = parse_attribute_text(ctx, v).unwrap_or_else(|d| panic!("{v}: {}", d.message));
            (k.to_string(), a)
        })
        .collect()
}

/// The result types `name` infers for `operands` and `attributes`, printed.
fn infer(
    name: &str,
    operands: &[&str],
    attributes: &[(&str, &str)],
) -> Result<Vec<String>, String> {
    let mut ctx = context();
    let operand_types: Vec<Type> = operands.iter().map(|t| ty(&mut ctx, t)).collect();
    let attributes = attrs(&mut ctx, attributes);
    let infer = ctx
        .op_info(name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .infer_types
        .expect("graph ops infer their types");
    let loc = ctx.unknown_loc();
    let types = infer(
        &mut ctx,
        &InferInput {
            operand_types: &operand_types,
            attributes: &attributes,
            loc,
        },
    )?;
    Ok(types.iter().map(|&t| type_to_string(&ctx, t)).collect())
}

fn one(name: &str, operands: &[&str], attributes: &[(&str, &str)]) -> String {
    let types = infer(name, operands, attributes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(types.len(), 1, "{name} infers one result");
    types[0].clone()
}

fn error(name: &str, operands: &[&str], attributes: &[(&str, &str)]) -> String {
    match infer(name, operands, attributes) {
        Ok(types) => panic!("{name} inferred {types:?} but should fail"),
        Err(e) => e,
    }
}

#[test]
fn elementwise() {
    let f = "tensor<2x3xf32>";
    assert_eq!(one("graph.relu", &[f], &[]), f);
    assert_eq!(one("graph.gelu", &[f], &[("approximate", "\"tanh\"")]), f);
    assert_eq!(one("graph.add", &[f, "tensor<3xf32>"], &[]), f);
    assert_eq!(
        one("graph.sub", &["tensor<4x1xi64>", "tensor<5xi64>"], &[]),
        "tensor<4x5xi64>"
    );
    assert_eq!(
        one("graph.less", &[f, "tensor<1xf32>"], &[]),
        "tensor<2x3xi1>"
    );
    assert_eq!(
        one("graph.pow", &[f, "tensor<i32>"], &[]),
        "tensor<2x3xf32>"
    );
    assert_eq!(
        one(
            "graph.where",
            &["tensor<2x1xi1>", "tensor<3xf16>", "tensor<f16>"],
            &[]
        ),
        "tensor<2x3xf16>"
    );
    assert_eq!(
        one("graph.max", &["tensor<3xf32>", f, "tensor<1x1xf32>"], &[]),
        f
    );
    assert_eq!(
        one("graph.cast", &[f], &[("to", "bf16")]),
        "tensor<2x3xbf16>"
    );
    assert_eq!(one("graph.is_inf", &[f], &[]), "tensor<2x3xi1>");
    assert_eq!(
        one("graph.clip", &["tensor<4xi8>"], &[("min", "0 : i8")]),
        "tensor<4xi8>"
    );
    assert_eq!(
        error("graph.add", &[f, "tensor<4xf32>"], &[]),
        "'graph.add' op operands are not broadcast-compatible: tensor<2x3xf32> and tensor<4xf32>"
    );
    assert_eq!(
        error("graph.sigmoid", &["tensor<3xi32>"], &[]),
        "'graph.sigmoid' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<3xi32>'"
    );
    assert!(error("graph.cast", &[f], &[]).contains("requires attribute 'to'"));
    assert!(error("graph.clip", &[f], &[("min", "0 : i8")]).contains("has type i8"));
    assert!(error("graph.mod", &[f, f], &[]).contains("fmod = true"));
}

#[test]
fn matmul_and_gemm() {
    assert_eq!(
        one(
            "graph.matmul",
            &["tensor<2x1x4x8xf32>", "tensor<3x8x5xf32>"],
            &[]
        ),
        "tensor<2x3x4x5xf32>"
    );
    assert_eq!(
        one("graph.matmul", &["tensor<8xf32>", "tensor<8xf32>"], &[]),
        "tensor<f32>"
    );
    assert_eq!(
        one(
            "graph.gemm",
            &["tensor<8x4xf32>", "tensor<5x8xf32>", "tensor<1xf32>"],
            &[("trans_a", "true"), ("trans_b", "true")]
        ),
        "tensor<4x5xf32>"
    );
    assert!(
        error("graph.gemm", &["tensor<8x4xf32>", "tensor<5x8xf32>"], &[])
            .contains("inner dimensions differ")
    );
    assert!(
        error("graph.matmul", &["tensor<2x3xf32>", "tensor<3x4xf16>"], &[])
            .contains("same element type")
    );
}

#[test]
fn convolutions() {
    let x = "tensor<1x3x224x224xf32>";
    assert_eq!(
        one(
            "graph.conv",
            &[x, "tensor<64x3x7x7xf32>", "tensor<64xf32>"],
            &[
                ("strides", "array<i64: 2, 2>"),
                ("pads", "array<i64: 3, 3, 3, 3>")
            ]
        ),
        "tensor<1x64x112x112xf32>"
    );
    assert_eq!(
        one(
            "graph.conv",
            &["tensor<1x8x5x5xf32>", "tensor<8x1x3x3xf32>"],
            &[("group", "8"), ("auto_pad", "\"SAME_LOWER\"")]
        ),
        "tensor<1x8x5x5xf32>"
    );
    assert_eq!(
        one(
            "graph.conv_transpose",
            &["tensor<1x8x5x5xf32>", "tensor<8x2x3x3xf32>"],
            &[
                ("strides", "array<i64: 2, 2>"),
                ("output_padding", "array<i64: 1, 1>")
            ]
        ),
        "tensor<1x2x12x12xf32>"
    );
    assert!(
        error("graph.conv", &[x, "tensor<64x4x7x7xf32>"], &[])
            .contains("input has 3 channels but weight expects 4")
    );
    assert!(
        error(
            "graph.conv",
            &[x, "tensor<64x3x7x7xf32>"],
            &[("group", "1.0 : f32")]
        )
        .contains("attribute 'group' must be a 64-bit integer")
    );
}

#[test]
fn pooling() {
    let x = "tensor<1x64x112x112xf32>";
    let k = ("kernel_shape", "array<i64: 3, 3>");
    assert_eq!(
        one(
            "graph.max_pool",
            &[x],
            &[
                k,
                ("strides", "array<i64: 2, 2>"),
                ("pads", "array<i64: 1, 1, 1, 1>")
            ]
        ),
        "tensor<1x64x56x56xf32>"
    );
    assert_eq!(
        one(
            "graph.average_pool",
            &["tensor<1x1x4x4xf32>"],
            &[k, ("strides", "array<i64: 2, 2>"), ("ceil_mode", "true")]
        ),
        "tensor<1x1x2x2xf32>"
    );
    assert_eq!(
        one("graph.global_max_pool", &[x], &[]),
        "tensor<1x64x1x1xf32>"
    );
    assert!(error("graph.max_pool", &[x], &[]).contains("requires attribute 'kernel_shape'"));
}

#[test]
fn normalization_and_softmax() {
    let c = "tensor<3xf32>";
    assert_eq!(
        one(
            "graph.batch_normalization",
            &["tensor<2x3x4xf32>", c, c, c, c],
            &[]
        ),
        "tensor<2x3x4xf32>"
    );
    assert_eq!(
        one(
            "graph.instance_normalization",
            &["tensor<2x3x4xf32>", c, c],
            &[]
        ),
        "tensor<2x3x4xf32>"
    );
    assert_eq!(
        one("graph.layer_normalization", &["tensor<2x5x3xf32>", c], &[]),
        "tensor<2x5x3xf32>"
    );
    assert_eq!(
        one("graph.softmax", &["tensor<2x5xf32>"], &[("axis", "0")]),
        "tensor<2x5xf32>"
    );
    assert!(
        error(
            "graph.batch_normalization",
            &["tensor<2x4xf32>", c, c, c, c],
            &[]
        )
        .contains("scale must be [4]")
    );
    assert!(
        error("graph.log_softmax", &["tensor<2x5xf32>"], &[("axis", "-3")])
            .contains("axis -3 is out of range")
    );
}

#[test]
fn data_movement() {
    let x = "tensor<2x3x4xf32>";
    assert_eq!(
        one("graph.reshape", &[x], &[("shape", "array<i64: 0, -1>")]),
        "tensor<2x12xf32>"
    );
    assert_eq!(one("graph.flatten", &[x], &[]), "tensor<2x12xf32>");
    assert_eq!(one("graph.transpose", &[x], &[]), "tensor<4x3x2xf32>");
    assert_eq!(
        one("graph.squeeze", &["tensor<1x3x1xf32>"], &[]),
        "tensor<3xf32>"
    );
    assert_eq!(
        one("graph.unsqueeze", &[x], &[("axes", "array<i64: -1>")]),
        "tensor<2x3x4x1xf32>"
    );
    assert_eq!(
        one("graph.concat", &[x, "tensor<2x1x4xf32>"], &[("axis", "-2")]),
        "tensor<2x4x4xf32>"
    );
    assert_eq!(
        infer(
            "graph.split",
            &[x],
            &[("axis", "2"), ("split", "array<i64: 1, 3>")]
        ),
        Ok(vec![
            "tensor<2x3x1xf32>".to_string(),
            "tensor<2x3x3xf32>".to_string()
        ])
    );
    assert_eq!(
        infer("graph.split", &[x], &[("num_outputs", "3"), ("axis", "1")]).map(|t| t.len()),
        Ok(3)
    );
    assert!(error("graph.split", &[x], &[]).contains("needs 'split' or 'num_outputs'"));
    assert!(
        error(
            "graph.split",
            &["tensor<0xf32>"],
            &[("num_outputs", "1000000000000")]
        )
        .contains("cannot split a dimension of 0")
    );
    assert_eq!(
        one(
            "graph.slice",
            &[x],
            &[
                ("starts", "array<i64: -1>"),
                ("ends", "array<i64: -9223372036854775808>"),
                ("steps", "array<i64: -1>")
            ]
        ),
        x
    );
    assert_eq!(
        one("graph.gather", &[x, "tensor<5xi32>"], &[("axis", "1")]),
        "tensor<2x5x4xf32>"
    );
    assert_eq!(
        one("graph.gather_elements", &[x, "tensor<1x3x4xi64>"], &[]),
        "tensor<1x3x4xf32>"
    );
    assert_eq!(
        one(
            "graph.expand",
            &["tensor<3x1xf32>"],
            &[("shape", "array<i64: 2, 1, 6>")]
        ),
        "tensor<2x3x6xf32>"
    );
    assert_eq!(
        one(
            "graph.pad",
            &[x],
            &[("pads", "array<i64: 1, 2>"), ("axes", "array<i64: 0>")]
        ),
        "tensor<5x3x4xf32>"
    );
    assert_eq!(
        one("graph.tile", &[x], &[("repeats", "array<i64: 2, 1, 0>")]),
        "tensor<4x3x0xf32>"
    );
    assert_eq!(
        one(
            "graph.depth_to_space",
            &["tensor<1x8x2x3xf32>"],
            &[("blocksize", "2")]
        ),
        "tensor<1x2x4x6xf32>"
    );
    assert_eq!(
        one(
            "graph.space_to_depth",
            &["tensor<1x2x4x6xf32>"],
            &[("blocksize", "2")]
        ),
        "tensor<1x8x2x3xf32>"
    );
    assert!(
        error("graph.reshape", &[x], &[("shape", "array<i64: 5, -1>")]).contains("cannot infer -1")
    );
}

#[test]
fn reductions() {
    let x = "tensor<2x3x4xf32>";
    assert_eq!(
        one("graph.reduce_mean", &[x], &[("axes", "array<i64: 1>")]),
        "tensor<2x1x4xf32>"
    );
    assert_eq!(
        one("graph.reduce_sum", &[x], &[("keepdims", "false")]),
        "tensor<f32>"
    );
    assert_eq!(
        one(
            "graph.reduce_max",
            &[x],
            &[("noop_with_empty_axes", "true")]
        ),
        x
    );
    assert_eq!(
        one(
            "graph.arg_max",
            &[x],
            &[("axis", "-1"), ("keepdims", "false")]
        ),
        "tensor<2x3xi64>"
    );
    assert!(
        error("graph.reduce_min", &[x], &[("keepdims", "1")])
            .contains("attribute 'keepdims' must be a bool")
    );
}

#[test]
fn generators() {
    assert_eq!(
        one(
            "graph.constant",
            &[],
            &[("value", "dense<[1, 2]> : tensor<2xi32>")]
        ),
        "tensor<2xi32>"
    );
    assert_eq!(
        one(
            "graph.constant_of_shape",
            &[],
            &[("shape", "array<i64: 2, 3>")]
        ),
        "tensor<2x3xf32>"
    );
    assert_eq!(
        one(
            "graph.constant_of_shape",
            &[],
            &[("shape", "array<i64: 4>"), ("value", "1 : i64")]
        ),
        "tensor<4xi64>"
    );
    assert_eq!(
        one(
            "graph.range",
            &[],
            &[
                ("start", "10 : i32"),
                ("limit", "4 : i32"),
                ("delta", "-3 : i32")
            ]
        ),
        "tensor<2xi32>"
    );
    assert_eq!(
        one(
            "graph.range",
            &[],
            &[
                ("start", "0.0 : f32"),
                ("limit", "1.0 : f32"),
                ("delta", "0.3 : f32")
            ]
        ),
        "tensor<4xf32>"
    );
    assert_eq!(
        one("graph.shape", &["tensor<2x3x4xf16>"], &[("start", "-2")]),
        "tensor<2xi64>"
    );
    assert_eq!(one("graph.size", &["tensor<2x3xi1>"], &[]), "tensor<i64>");
    assert!(
        error(
            "graph.range",
            &[],
            &[
                ("start", "0 : ui8"),
                ("limit", "4 : ui8"),
                ("delta", "1 : ui8")
            ]
        )
        .contains("signed integers or floats")
    );
}

/// Operand counts are checked before a rule looks at operands: no panics on bad input.
#[test]
fn wrong_operand_counts_are_errors() {
    let f = "tensor<2xf32>";
    assert_eq!(
        error("graph.add", &[f], &[]),
        "'graph.add' op expects 2 operands, got 1"
    );
    assert_eq!(
        error("graph.gemm", &[f, f, f, f], &[]),
        "'graph.gemm' op expects 2 to 3 operands, got 4"
    );
    assert!(error("graph.where", &[], &[]).contains("expects 3 operands, got 0"));
    assert!(error("graph.relu", &["tensor<?xf32>"], &[]).contains("statically shaped"));
    assert!(error("graph.concat", &[], &[("axis", "0")]).contains("at least one operand"));
}

/// Built ops get their ONNX defaults as properties and verify.
#[test]
fn builder_fills_defaults() {
    let mut ctx = context();
    let block = ctx.create_block();
    let x_ty = ty(&mut ctx, "tensor<1x3x8x8xf32>");
    let w_ty = ty(&mut ctx, "tensor<4x3x3x3xf32>");
    let x = ctx.add_block_argument(block, x_ty, None);
    let w = ctx.add_block_argument(block, w_ty, None);
    let loc = ctx.unknown_loc();
    let a = attrs(&mut ctx, &[("pads", "array<i64: 1, 1, 1, 1>")]);
    let state = op_state(&mut ctx, "graph.conv", vec![x, w], a, loc).expect("conv builds");
    let op = ctx.create_op(state);
    ctx.append_op(block, op);
    let result = ctx.op(op).results[0];
    assert_eq!(
        type_to_string(&ctx, ctx.value_type(result)),
        "tensor<1x4x8x8xf32>"
    );
    let group = ctx
        .op_inherent_or_attr(op, "group")
        .expect("group is filled in");
    assert_eq!(attr_to_string(&ctx, group), "1 : i64");
    let auto_pad = ctx
        .op_inherent_or_attr(op, "auto_pad")
        .expect("auto_pad is filled in");
    assert_eq!(attr_to_string(&ctx, auto_pad), "\"NOTSET\"");
    let verify = ctx.op_info("graph.conv").and_then(|i| i.verify).unwrap();
    verify(&ctx, op).expect("a built op verifies");

    let err = op_state(&mut ctx, "graph.conv", vec![x], vec![], loc)
        .err()
        .expect("one operand is too few");
    assert_eq!(err, "'graph.conv' op expects 2 to 3 operands, got 1");
    assert!(op_state(&mut ctx, "graph.nope", vec![], vec![], loc).is_err());
}

/// Every declared default parses, satisfies its constraint and prints as written, so
/// that printers leave default values out.
#[test]
fn declared_defaults_are_canonical() {
    let mut ctx = context();
    let mut checked = 0;
    for def in tb_dialects::graph::defs() {
        assert!(def.name.starts_with("graph."), "{}", def.name);
        for a in def.attributes {
            let Some(text) = a.default else { continue };
            let value = parse_attribute_text(&mut ctx, text)
                .unwrap_or_else(|d| panic!("{} {}: {}", def.name, a.name, d.message));
            assert!((a.constraint.check)(&ctx, value), "{} {}", def.name, a.name);
            assert_eq!(attr_to_string(&ctx, value), text, "{} {}", def.name, a.name);
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} defaults");
}

fn block_with(ctx: &mut Context, types: &[&str]) -> (tb_ir::BlockId, Vec<Value>) {
    let block = ctx.create_block();
    let values = types
        .iter()
        .map(|t| {
            let t = ty(ctx, t);
            ctx.add_block_argument(block, t, None)
        })
        .collect();
    (block, values)
}

/// The importer folds shape subgraphs as it builds them: `graph.shape` of a static
/// tensor folds to its dimensions without any pass.
#[test]
fn fold_through_the_api() {
    let mut ctx = context();
    let (block, args) = block_with(&mut ctx, &["tensor<2x3x4xf32>"]);
    let loc = ctx.unknown_loc();
    let state = op_state(&mut ctx, "graph.shape", args.clone(), vec![], loc).unwrap();
    let op = ctx.create_op(state);
    ctx.append_op(block, op);
    let fold = ctx
        .op_info_of(op)
        .and_then(|i| i.fold)
        .expect("graph ops fold");
    let folded = fold(&ctx, op, &[None]).expect("shape folds");
    let [FoldResult::NewAttr(kind)] = folded.as_slice() else {
        panic!("shape folds to a new constant, got {folded:?}")
    };
    let attr = ctx.intern_attr(kind.clone());
    assert_eq!(
        attr_to_string(&ctx, attr),
        "dense<[2, 3, 4]> : tensor<3xi64>"
    );

    // Identity folds to its operand; an op with unknown operands does not fold.
    let state = op_state(&mut ctx, "graph.identity", args.clone(), vec![], loc).unwrap();
    let id = ctx.create_op(state);
    ctx.append_op(block, id);
    assert_eq!(
        fold(&ctx, id, &[None]),
        Some(vec![FoldResult::Value(args[0])])
    );
    let state = op_state(&mut ctx, "graph.neg", args.clone(), vec![], loc).unwrap();
    let neg = ctx.create_op(state);
    ctx.append_op(block, neg);
    assert_eq!(fold(&ctx, neg, &[None]), None);
}

/// Every registered graph op appears in the round-trip test.
#[test]
fn every_op_is_in_the_round_trip_test() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/Dialect/graph/ops.mlir"
    );
    let text = std::fs::read_to_string(path).expect("test/Dialect/graph/ops.mlir is readable");
    let missing: Vec<&str> = tb_dialects::graph::defs()
        .map(|d| d.name)
        .filter(|name| !text.contains(&format!("{name} ")))
        .collect();
    assert!(missing.is_empty(), "not in ops.mlir: {missing:?}");
}
