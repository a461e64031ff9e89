//! `loop.dot` in upstream ops. Each i32 lane `l` of the accumulator adds
//! `sum over g of a[g] * b[G*l + g]` (`a` sign- or, with `unsigned_lhs`, zero-extended, `b`
//! sign-extended); upstream MLIR has no such op, so it is spelled out on i32 vectors:
//!
//! - `a` and `b` are extended to i32 (`arith.extsi`/`arith.extui`);
//! - `a` is repeated once per lane (`vector.shuffle` with indices `i mod G`) and multiplied
//!   with `b` elementwise (`arith.muli`): every product `a[g] * b[G*l + g]`;
//! - for each `g`, the products of the lanes (`vector.shuffle` with indices `G*l + g`) are
//!   added to the accumulator (`arith.addi`).
//!
//! The products of 8- and 16-bit integers fit i32; the sums wrap as the op's do.

use tb_dialects::loop_;
use tb_ir::attributes::DenseArrayData;
use tb_ir::{AttrKind, Context, Diagnostic, OpId, Signedness, Type, TypeKind, Value};

use crate::schedule::build::At as Builder;

/// The value `loop.dot` `op` computes, built before it.
pub(super) fn lower(ctx: &mut Context, b: Builder, op: OpId) -> Result<Value, Diagnostic> {
    let operands = ctx.op(op).operands.to_vec();
    let [acc, a, rhs] = operands[..] else {
        return Err(Diagnostic::error(
            ctx.op(op).loc,
            "'loop.dot' op expects 3 operands",
        ));
    };
    let (Some(lanes), Some(group), Some(total)) =
        (length(ctx, acc), length(ctx, a), length(ctx, rhs))
    else {
        return Err(Diagnostic::error(
            ctx.op(op).loc,
            "'loop.dot' op expects 1-D vector operands",
        ));
    };
    let lhs_extension = if loop_::dot_unsigned_lhs(ctx, op) {
        "arith.extui"
    } else {
        "arith.extsi"
    };
    let a = extend(ctx, b, a, group, lhs_extension);
    let rhs = extend(ctx, b, rhs, total, "arith.extsi");
    let repeated = shuffle(ctx, b, a, (0..total).map(|i| i % group).collect());
    let products = binary(ctx, b, "arith.muli", repeated, rhs);
    let mut sum = acc;
    for g in 0..group {
        let lane_products = shuffle(
            ctx,
            b,
            products,
            (0..lanes).map(|l| l * group + g).collect(),
        );
        sum = binary(ctx, b, "arith.addi", sum, lane_products);
    }
    Ok(sum)
}

/// The length of 1-D vector `v`.
fn length(ctx: &Context, v: Value) -> Option<i64> {
    match ctx.type_kind(ctx.value_type(v)) {
        TypeKind::Vector { shape, .. } if shape.len() == 1 => Some(shape[0]),
        _ => None,
    }
}

fn i32_vector(ctx: &mut Context, len: i64) -> Type {
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    ctx.intern_type(TypeKind::Vector {
        shape: vec![len],
        scalable: vec![false],
        element: i32_ty,
    })
}

/// `v` (`len` integers narrower than 32 bits) extended to i32 by `extension`.
fn extend(ctx: &mut Context, b: Builder, v: Value, len: i64, extension: &str) -> Value {
    let ty = i32_vector(ctx, len);
    let op = b.create(ctx, extension, vec![v], vec![ty], vec![], 0);
    ctx.op(op).results[0]
}

/// `vector.shuffle` of `v` with itself: element `i` of the result is `v[mask[i]]`.
fn shuffle(ctx: &mut Context, b: Builder, v: Value, mask: Vec<i64>) -> Value {
    let ty = i32_vector(ctx, mask.len() as i64);
    let i64_ty = ctx.i64();
    let mask = ctx.intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(mask.into_iter().map(i128::from).collect()),
    });
    let op = b.create(
        ctx,
        "vector.shuffle",
        vec![v, v],
        vec![ty],
        vec![("mask", mask)],
        0,
    );
    ctx.op(op).results[0]
}

fn binary(ctx: &mut Context, b: Builder, name: &str, lhs: Value, rhs: Value) -> Value {
    let ty = ctx.value_type(lhs);
    let op = b.create(ctx, name, vec![lhs, rhs], vec![ty], vec![], 0);
    ctx.op(op).results[0]
}
