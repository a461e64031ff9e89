//! Hostile shape attributes: sizes the graph shape rules compute exactly and refuse when
//! they do not fit in 64 bits, with an error naming the node, where a wrapped size once
//! gave a plausible but wrong tensor.

mod common;

use common::builder::*;

/// Imports `proto` (never panicking) and returns its error text.
fn refused(proto: tb_onnx::proto::ModelProto) -> String {
    match std::panic::catch_unwind(|| import(proto, true)) {
        Err(_) => panic!("the importer panicked"),
        Ok(Ok(_)) => panic!("imported without error"),
        Ok(Err(e)) => e.to_string(),
    }
}

/// A Conv with pads of i64::MAX once returned a 1x1x4x4 tensor of zeros; onnxruntime
/// reports the integer overflow, and so do we.
#[test]
fn conv_with_pads_of_i64_max_is_refused() {
    let conv = with_attr(
        node("Conv", "c", &["x", "w"], &["y"]),
        attr_ints("pads", &[i64::MAX, i64::MAX, i64::MAX, i64::MAX]),
    );
    let text = refused(model(
        17,
        vec![conv],
        vec![float("x", &[1, 1, 4, 4])],
        vec![float("y", &[1, 1, 4, 4])],
        vec![floats("w", &[1, 1, 1, 1], &[1.0])],
    ));
    assert!(
        text.contains("Conv node 'c' (node #0)") && text.contains("overflows a 64-bit dimension"),
        "{text}"
    );
}

/// Pooling pads are checked the same way.
#[test]
fn max_pool_with_pads_of_i64_max_is_refused() {
    let pool = with_attr(
        with_attr(
            node("MaxPool", "p", &["x"], &["y"]),
            attr_ints("kernel_shape", &[1, 1]),
        ),
        attr_ints("pads", &[i64::MAX, 0, 1, 0]),
    );
    let text = refused(model(
        17,
        vec![pool],
        vec![float("x", &[1, 1, 4, 4])],
        vec![float("y", &[1, 1, 4, 4])],
        vec![],
    ));
    assert!(
        text.contains("MaxPool node 'p' (node #0)")
            && text.contains("overflows a 64-bit dimension"),
        "{text}"
    );
}

/// Flatten multiplies the dimensions on each side of its axis: a product beyond 64 bits is
/// refused, never a negative dimension.
#[test]
fn flatten_never_makes_a_negative_dimension() {
    let flatten = with_attr(node("Flatten", "f", &["x"], &["y"]), attr_int("axis", 2));
    let text = refused(model(
        17,
        vec![flatten],
        vec![float("x", &[3_037_000_500, 3_037_000_500, 2])],
        vec![float("y", &[1, 2])],
        vec![],
    ));
    assert!(
        text.contains("3037000500") && !text.contains("-"),
        "the error names the shape and no negative size: {text}"
    );
}

/// Pad sizes are added exactly: three sizes of 2^62 do not wrap to a negative one.
#[test]
fn pad_beyond_i64_is_refused() {
    let pad = node("Pad", "p", &["x", "pads"], &["y"]);
    let text = refused(model(
        18,
        vec![pad],
        vec![float("x", &[1 << 62])],
        vec![float("y", &[4])],
        vec![ints("pads", &[1 << 62, 1 << 62])],
    ));
    assert!(
        text.contains("Pad node 'p' (node #0)") && text.contains("overflows a 64-bit dimension"),
        "{text}"
    );
}

/// Range, Expand and Tile of constants over 2^40 elements are above the import-time
/// evaluation budget: each stays an op instead of allocating terabytes while importing
/// (the test would run out of memory otherwise).
#[test]
fn huge_constant_range_expand_and_tile_are_not_evaluated_at_import() {
    let range = model(
        17,
        vec![node("Range", "rg", &["start", "limit", "delta"], &["y"])],
        vec![],
        vec![typed(
            "y",
            tb_onnx::proto::tensor_proto::DataType::Int64,
            &[1 << 40],
        )],
        vec![
            scalar_int("start", 0),
            scalar_int("limit", 1 << 40),
            scalar_int("delta", 1),
        ],
    );
    assert!(imported_text(range, false).contains("graph.range"));
    let expand = model(
        17,
        vec![node("Expand", "e", &["x", "s"], &["y"])],
        vec![],
        vec![float("y", &[1 << 20, 1 << 20])],
        vec![floats("x", &[1], &[1.0]), ints("s", &[1 << 20, 1 << 20])],
    );
    assert!(imported_text(expand, false).contains("graph.expand"));
    let tile = model(
        17,
        vec![node("Tile", "t", &["x", "r"], &["y"])],
        vec![],
        vec![float("y", &[1 << 40])],
        vec![floats("x", &[1], &[1.0]), ints("r", &[1 << 40])],
    );
    assert!(imported_text(tile, false).contains("graph.tile"));
}
