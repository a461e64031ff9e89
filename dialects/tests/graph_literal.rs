//! Constant tensors for folding (`tb_dialects::graph::literal`): the fold budget, counts
//! that do not fit, and splats that stay splats.

use tb_dialects::graph::literal::{Literal, MAX_FOLD_ELEMENTS, foldable_count};
use tb_ir::Context;
use tb_ir::parser::parse_attribute_text;
use tb_ir::printer::attr_to_string;
use tb_tensor::{DType, Tensor};

fn context() -> Context {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("every dialect registers");
    ctx
}

fn literal(ctx: &mut Context, text: &str) -> Literal {
    let attr = parse_attribute_text(ctx, text).unwrap_or_else(|d| panic!("{text}: {}", d.message));
    Literal::from_attr(ctx, attr).unwrap_or_else(|| panic!("{text} is no literal"))
}

#[test]
fn the_budget_bounds_element_counts() {
    assert_eq!(foldable_count(&[]), Some(1));
    assert_eq!(
        foldable_count(&[MAX_FOLD_ELEMENTS as i64]),
        Some(MAX_FOLD_ELEMENTS)
    );
    assert_eq!(foldable_count(&[MAX_FOLD_ELEMENTS as i64 + 1]), None);
    assert_eq!(foldable_count(&[0, 1 << 40]), Some(0));
}

/// 2^32 * (2^32 + 1) wraps to 2^32 in 64 bits, which would pass an unchecked budget.
#[test]
fn counts_beyond_i64_are_refused_not_wrapped() {
    assert_eq!(foldable_count(&[1 << 32, (1 << 32) + 1]), None);
    assert_eq!(foldable_count(&[i64::MAX, 2]), None);
}

#[test]
fn a_huge_splat_stays_a_splat() {
    let mut ctx = context();
    let l = literal(&mut ctx, "dense<3> : tensor<1099511627776xi64>");
    assert_eq!(l.shape(), &[1 << 40]);
    assert_eq!(l.splat_value(), Some(Tensor::scalar(3i64)));
    assert_eq!(l.expanded(), None, "beyond the budget, never expanded");
    assert_eq!(l.i64s(), None);
}

#[test]
fn dense_literals_round_trip_through_tensors() {
    let mut ctx = context();
    for text in [
        "dense<[1, -2, 3]> : tensor<3xi8>",
        "dense<[0, 255]> : tensor<2xui8>",
        "dense<[true, false]> : tensor<2xi1>",
        "dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>",
        "dense<[18446744073709551615, 1]> : tensor<2xui64>",
    ] {
        let attr = parse_attribute_text(&mut ctx, text).unwrap();
        let l = Literal::from_attr(&ctx, attr).unwrap();
        let ty = match ctx.attr_kind(attr) {
            tb_ir::AttrKind::DenseElements { ty, .. } => *ty,
            _ => unreachable!(),
        };
        let kind = l.to_attr_kind(&ctx, ty).unwrap();
        let back = ctx.intern_attr(kind);
        assert_eq!(attr_to_string(&ctx, back), text);
    }
    let l = literal(&mut ctx, "dense<[0, 255]> : tensor<2xui8>");
    assert_eq!(l.dtype(), DType::U8);
}
