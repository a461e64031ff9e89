//! Which buffers an outlined parallel body captures are provably disjoint from every other
//! buffer it captures, so that its pointer may be marked `noalias`.
//!
//! An outlined body reads its buffers' addresses from a context struct, and LLVM assumes
//! any two of them may overlap: a copy from an input into a stack buffer, or a store to
//! the result between loads of the weights, then stays scalar or reloads what it had. The
//! function itself knows better: its arguments are `noalias`, distinct allocations are
//! distinct, and `plan-buffers` places the buffers alive together at disjoint byte ranges
//! of one arena. Each captured buffer is traced through view-like ops to the buffer it
//! lies in (its root) and, where the offsets are constants, the byte range it covers
//! there. Two captured buffers conflict when they share a root and their ranges are not
//! known to be disjoint; one that conflicts with none gets `noalias`. Buffers inside a
//! global (a view of `memref.get_global`) never do: the body may reach the global by name.

use tb_ir::{Context, TypeKind, Value};

use crate::llvm::types::ElementKind;

/// Where a captured buffer lies: its root buffer and, when known, its byte range in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placement {
    root: Value,
    bytes: Option<(i128, i128)>,
}

/// What tracing a buffer to its root found.
enum Traced {
    /// It lies in a fresh allocation or an argument of an exported function.
    At(Placement),
    /// It lies in a global.
    InGlobal,
    /// Its root is made by an op this does not know: it might be any other buffer.
    Unknown,
}

/// For each of `values` (the captured values of one body), whether it is a buffer
/// disjoint from every other captured buffer. None is when some buffer's root is unknown.
pub(crate) fn disjoint(ir: &Context, values: &[Value]) -> Vec<bool> {
    let traced: Vec<Option<Traced>> = values
        .iter()
        .map(|&v| is_buffer(ir, v).then(|| trace(ir, v)))
        .collect();
    if traced.iter().any(|t| matches!(t, Some(Traced::Unknown))) {
        return vec![false; values.len()];
    }
    let placements: Vec<Option<Placement>> = traced
        .iter()
        .map(|t| match t {
            Some(Traced::At(p)) => Some(*p),
            _ => None,
        })
        .collect();
    placements
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let Some(p) = p else { return false };
            placements.iter().enumerate().all(|(j, q)| match q {
                Some(q) if i != j => !may_overlap(*p, *q),
                _ => true,
            })
        })
        .collect()
}

fn is_buffer(ir: &Context, v: Value) -> bool {
    matches!(ir.type_kind(ir.value_type(v)), TypeKind::MemRef { .. })
}

fn may_overlap(a: Placement, b: Placement) -> bool {
    if a.root != b.root {
        return false;
    }
    match (a.bytes, b.bytes) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => true,
    }
}

/// Traces buffer `v` through view-like ops to the buffer it lies in.
fn trace(ir: &Context, v: Value) -> Traced {
    let mut current = v;
    // Bytes from the root's start to `current`'s, while every step is a known shift.
    let mut shift: Option<i128> = Some(0);
    loop {
        let Some(def) = ir.defining_op(current) else {
            if !is_exported_argument(ir, current) {
                return Traced::Unknown;
            }
            break;
        };
        match ir.op_name(def) {
            "memref.get_global" => return Traced::InGlobal,
            "loop.alloc" | "memref.alloc" | "memref.alloca" => break,
            "memref.view" => {
                let op = ir.op(def);
                shift = shift.zip(constant(ir, op.operands[1])).map(|(s, c)| s + c);
                current = op.operands[0];
            }
            "memref.subview" | "memref.reinterpret_cast"
                if current == v && (static_strided(ir, v).is_some() || row_major(ir, v)) =>
            {
                // The buffer itself, a view with constant strides and offset (none for a
                // row-major view) of a buffer laid out row-major, whose base pointer it
                // shares: it starts `offset` elements after that buffer's start.
                let source = ir.op(def).operands[0];
                let offset = Some(static_strided(ir, v).map_or(0, |(_, offset)| offset));
                shift = match (shift, offset, element_bytes(ir, v)) {
                    (Some(s), Some(k), Some(e)) if row_major(ir, source) => Some(s + k as i128 * e),
                    _ => None,
                };
                current = source;
            }
            "memref.subview"
            | "memref.reinterpret_cast"
            | "memref.collapse_shape"
            | "memref.expand_shape"
            | "memref.cast" => {
                // A view at an offset this does not work out: the whole root.
                shift = None;
                current = ir.op(def).operands[0];
            }
            _ => return Traced::Unknown,
        }
    }
    let bytes = shift
        .zip(span_bytes(ir, v))
        .map(|(start, size)| (start, start + size));
    Traced::At(Placement {
        root: current,
        bytes,
    })
}

/// Whether `v` is an argument of a public `func.func`: an exported entry point, whose
/// buffers must not overlap (except inputs only read, which `noalias` allows).
fn is_exported_argument(ir: &Context, v: Value) -> bool {
    let tb_ir::value::ValueDef::BlockArgument { block, .. } = ir.value(v).def else {
        return false;
    };
    let Some(parent) = ir
        .block(block)
        .parent
        .and_then(|region| ir.region(region).parent)
    else {
        return false;
    };
    if ir.op_name(parent) != "func.func" {
        return false;
    }
    let private = ir
        .op_inherent_or_attr(parent, "sym_visibility")
        .is_some_and(|a| matches!(ir.attr_kind(a), tb_ir::AttrKind::String { value, .. } if value.as_slice() == b"private"));
    !private
}

/// The value of an `arith.constant` integer.
fn constant(ir: &Context, v: Value) -> Option<i128> {
    let def = ir.defining_op(v)?;
    if ir.op_name(def) != "arith.constant" {
        return None;
    }
    let attr = ir.op_inherent_or_attr(def, "value")?;
    match ir.attr_kind(attr) {
        tb_ir::AttrKind::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// The bytes a statically shaped buffer spans (identity layout).
/// Whether `v` is a memref laid out row-major (no layout).
fn row_major(ir: &Context, v: Value) -> bool {
    matches!(
        ir.type_kind(ir.value_type(v)),
        TypeKind::MemRef { layout: None, .. }
    )
}

/// The constant strides and offset (in elements) of a strided memref type whose sizes are
/// all known and positive.
fn static_strided(ir: &Context, v: Value) -> Option<(Vec<i64>, i64)> {
    let TypeKind::MemRef {
        shape,
        layout: Some(layout),
        ..
    } = ir.type_kind(ir.value_type(v))
    else {
        return None;
    };
    let tb_ir::AttrKind::Strided { strides, offset } = ir.attr_kind(*layout) else {
        return None;
    };
    let known = |x: i64| x != tb_ir::types::DYNAMIC;
    (shape.iter().all(|&d| d > 0)
        && strides.iter().all(|&s| known(s) && s >= 0)
        && known(*offset)
        && *offset >= 0)
        .then(|| (strides.clone(), *offset))
}

fn element_bytes(ir: &Context, v: Value) -> Option<i128> {
    match ir.type_kind(ir.value_type(v)) {
        TypeKind::MemRef { element, .. } => {
            Some(ElementKind::of(ir, *element).ok()?.size_in_bytes() as i128)
        }
        _ => None,
    }
}

/// Bytes from `v`'s first element to just past its last: its size for a row-major buffer;
/// for a strided view, the span its strides reach (the elements between its rows
/// included).
fn span_bytes(ir: &Context, v: Value) -> Option<i128> {
    let Some((strides, _)) = static_strided(ir, v) else {
        return byte_size(ir, v);
    };
    let TypeKind::MemRef { shape, .. } = ir.type_kind(ir.value_type(v)) else {
        return None;
    };
    let last = shape
        .iter()
        .zip(&strides)
        .try_fold(0i128, |sum, (&size, &stride)| {
            sum.checked_add((size as i128 - 1).checked_mul(stride as i128)?)
        })?;
    (last + 1).checked_mul(element_bytes(ir, v)?)
}

fn byte_size(ir: &Context, v: Value) -> Option<i128> {
    match ir.type_kind(ir.value_type(v)) {
        TypeKind::MemRef {
            shape,
            element,
            layout: None,
            ..
        } => {
            let element = ElementKind::of(ir, *element).ok()?.size_in_bytes() as i128;
            shape.iter().try_fold(element, |bytes, &d| {
                (d >= 0).then(|| bytes.checked_mul(d as i128)).flatten()
            })
        }
        _ => None,
    }
}
