//! Boolean constants written out as `dense<...>` literals.
//!
//! TensorBind keeps large constants of `memref.global`s as `dense_resource` blobs. MLIR
//! takes those, but its translation to LLVM IR has no conversion of a resource blob of
//! `i1` elements ("no known conversion for innermost element type"), so the initial value
//! of an `i1` global is written as a `dense<...>` literal instead (one byte per element in
//! the blob, as TensorBind stores booleans).

use tb_ir::attributes::{DenseData, DenseElement};
use tb_ir::{AttrKind, Context, OpId, TypeKind};

/// Rewrites the `dense_resource` initial value of every `i1` `memref.global` in `root` to a
/// dense literal.
pub(super) fn inline_bool_resources(ctx: &mut Context, root: OpId) {
    let mut globals = Vec::new();
    ctx.walk_nested(root, &mut |o| {
        if ctx.op_name(o) == "memref.global" {
            globals.push(o);
        }
    });
    for global in globals {
        let Some(properties) = ctx.op(global).properties else {
            continue;
        };
        let Some(initial) = ctx.dictionary_get(properties, "initial_value") else {
            continue;
        };
        let AttrKind::DenseResource { handle, ty } = ctx.attr_kind(initial).clone() else {
            continue;
        };
        let (count, is_bool) = match ctx.type_kind(ty) {
            TypeKind::RankedTensor { shape, element, .. } => (
                shape.iter().product::<i64>(),
                matches!(ctx.type_kind(*element), TypeKind::Integer { width: 1, .. }),
            ),
            _ => continue,
        };
        let Some(blob) = ctx.resources.get(&handle) else {
            continue;
        };
        if !is_bool || blob.data.len() as i64 != count {
            continue;
        }
        let elements = blob
            .data
            .iter()
            .map(|&b| DenseElement::Int(i128::from(b != 0)))
            .collect();
        let literal = ctx.intern_attr(AttrKind::DenseElements {
            ty,
            data: DenseData {
                splat: false,
                elements,
            },
        });
        let mut entries = ctx.dictionary_entries(properties).to_vec();
        for (name, value) in &mut entries {
            if name == "initial_value" {
                *value = literal;
            }
        }
        let properties = ctx.dictionary_attr(entries);
        ctx.op_mut(global).properties = Some(properties);
    }
}
