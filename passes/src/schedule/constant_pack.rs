//! Packing constant operands at compile time. A micro-kernel that copies an operand into
//! its own layout on every call (matmul `B` panels, convolution weight panels) can, when
//! that operand is a constant (a `memref.get_global` of a constant `memref.global`, which
//! is how `convert-te-to-loop` lowers weights), read a new constant global that already
//! holds the packed layout: the copy then costs nothing at run time.

use std::sync::Arc;

use tb_dialects::memref::{self, MemRefOp};
use tb_ir::attributes::DenseElement;
use tb_ir::context::ResourceBlob;
use tb_ir::float::bits_to_f64;
use tb_ir::ods::OpKind;
use tb_ir::symbol_table::{lookup_symbol, nearest_symbol_table, symbol_name};
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, Context, FloatKind, OpId, TypeKind, Value};

use super::build::At;

/// Constants above this many elements are left to the run-time copy (their packed copy
/// would double a very large module).
const MAX_ELEMENTS: usize = 1 << 26;

/// The elements of a constant buffer (f32 unless said otherwise), row-major, and where
/// they come from.
pub(super) struct ConstantBuffer<T = f32> {
    pub shape: Vec<i64>,
    pub values: Vec<T>,
    get_global: OpId,
    global: OpId,
}

impl<T: Copy> ConstantBuffer<T> {
    /// The element at `index` (one entry per dimension), if it lies inside the buffer.
    pub fn at(&self, index: &[i64]) -> Option<T> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut linear = 0usize;
        for (&i, &extent) in index.iter().zip(&self.shape) {
            if i < 0 || i >= extent {
                return None;
            }
            linear = linear * extent as usize + i as usize;
        }
        self.values.get(linear).copied()
    }
}

/// The elements of `memref` when it is a constant: the result of a `memref.get_global` of
/// a constant `memref.global` of f32 with an identity layout, initialized by a `dense` or
/// `dense_resource` attribute.
pub(super) fn constant_f32(ctx: &Context, memref: Value) -> Option<ConstantBuffer> {
    constant_buffer(
        ctx,
        memref,
        |kind| matches!(kind, TypeKind::Float(FloatKind::F32)),
        |e| match e {
            DenseElement::Float(bits) => bits_to_f64(FloatKind::F32, *bits).map(|v| v as f32),
            _ => None,
        },
        |bytes| {
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        },
    )
}

/// [`constant_f32`] for a constant buffer of i32 (the widened weights of an integer
/// matmul, folded at import).
pub(super) fn constant_i32(ctx: &Context, memref: Value) -> Option<ConstantBuffer<i32>> {
    constant_buffer(
        ctx,
        memref,
        |kind| matches!(kind, TypeKind::Integer { width: 32, .. }),
        |e| match e {
            DenseElement::Int(v) => i32::try_from(*v).ok(),
            _ => None,
        },
        |bytes| {
            bytes
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        },
    )
}

/// [`constant_i32`] for a constant buffer of 8-bit integers (weights an integer matmul
/// widens where it reads them), as the widening gives them: zero-extended when
/// `unsigned`, sign-extended otherwise.
pub(super) fn constant_bytes(
    ctx: &Context,
    memref: Value,
    unsigned: bool,
) -> Option<ConstantBuffer<i32>> {
    let bytes = |kind: &TypeKind| matches!(kind, TypeKind::Integer { width: 8, .. });
    if unsigned {
        constant_buffer(
            ctx,
            memref,
            bytes,
            |e| match e {
                DenseElement::Int(v) => Some(i32::from(*v as u8)),
                _ => None,
            },
            |data| data.iter().map(|&b| i32::from(b)).collect(),
        )
    } else {
        constant_buffer(
            ctx,
            memref,
            bytes,
            |e| match e {
                DenseElement::Int(v) => Some(i32::from(*v as i8)),
                _ => None,
            },
            |data| data.iter().map(|&b| i32::from(b as i8)).collect(),
        )
    }
}

/// The elements of a constant `memref` whose element type `element` accepts, decoded from
/// `dense` elements or from `dense_resource` bytes.
fn constant_buffer<T: Copy>(
    ctx: &Context,
    memref: Value,
    element: fn(&TypeKind) -> bool,
    dense: fn(&DenseElement) -> Option<T>,
    bytes: fn(&[u8]) -> Vec<T>,
) -> Option<ConstantBuffer<T>> {
    let ValueDef::Result { op: get_global, .. } = ctx.value(memref).def else {
        return None;
    };
    if MemRefOp::of(ctx, get_global) != Some(MemRefOp::GetGlobal) {
        return None;
    }
    let name = ctx.op_inherent_or_attr(get_global, "name")?;
    let AttrKind::SymbolRef { root, nested } = ctx.attr_kind(name) else {
        return None;
    };
    if !nested.is_empty() {
        return None;
    }
    let global = lookup_symbol(ctx, get_global, root)?;
    if MemRefOp::of(ctx, global) != Some(MemRefOp::Global) {
        return None;
    }
    ctx.op_inherent_or_attr(global, "constant")?;
    let TypeKind::MemRef {
        shape,
        element: element_type,
        layout: None,
        ..
    } = ctx.type_kind(ctx.value_type(memref))
    else {
        return None;
    };
    if !element(ctx.type_kind(*element_type)) || shape.iter().any(|&e| e < 0) {
        return None;
    }
    let n = shape
        .iter()
        .try_fold(1usize, |n, &e| n.checked_mul(e as usize))?;
    if n > MAX_ELEMENTS {
        return None;
    }
    let initial = ctx.op_inherent_or_attr(global, "initial_value")?;
    let values: Vec<T> = match ctx.attr_kind(initial) {
        AttrKind::DenseElements { data, .. } => {
            let decoded: Vec<T> = data.elements.iter().map(dense).collect::<Option<_>>()?;
            if data.splat {
                vec![*decoded.first()?; n]
            } else {
                decoded
            }
        }
        AttrKind::DenseResource { handle, .. } => bytes(&ctx.resources.get(handle)?.data),
        _ => return None,
    };
    (values.len() == n).then(|| ConstantBuffer {
        shape: shape.clone(),
        values,
        get_global,
        global,
    })
}

/// A new private constant global beside `source`'s holding `values` as a `shape` buffer
/// (its bytes in a `dense_resource` blob), and its `memref.get_global` placed at `at`.
pub(super) fn packed_global(
    ctx: &mut Context,
    at: At,
    source: &ConstantBuffer,
    shape: Vec<i64>,
    values: &[f32],
) -> Value {
    let f32_ty = ctx.intern_type(TypeKind::Float(FloatKind::F32));
    let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    packed_bytes(ctx, at, source, shape, f32_ty, bytes)
}

/// [`packed_global`] for any element type: `bytes` are the elements of a `shape` buffer
/// of `element`, little-endian.
pub(super) fn packed_bytes<T>(
    ctx: &mut Context,
    at: At,
    source: &ConstantBuffer<T>,
    shape: Vec<i64>,
    element: tb_ir::Type,
    bytes: Vec<u8>,
) -> Value {
    let memref_ty = ctx.intern_type(TypeKind::MemRef {
        shape: shape.clone(),
        element,
        layout: None,
        memory_space: None,
    });
    let tensor_ty = ctx.intern_type(TypeKind::RankedTensor {
        shape,
        element,
        encoding: None,
    });
    let base = symbol_name(ctx, source.global).unwrap_or("__constant");
    let base = format!("{base}_packed");
    let name = match nearest_symbol_table(ctx, source.global) {
        Some(table) => {
            let mut name = base.clone();
            let mut n = 0;
            while tb_ir::symbol_table::lookup_symbol_in(ctx, table, &name).is_some() {
                name = format!("{base}_{n}");
                n += 1;
            }
            name
        }
        None => base,
    };
    let mut handle = name.clone();
    let mut n = 0;
    while ctx.resources.contains_key(&handle) {
        handle = format!("{name}_{n}");
        n += 1;
    }
    Arc::make_mut(&mut ctx.resources).insert(
        handle.clone(),
        ResourceBlob {
            alignment: 4,
            data: bytes,
        },
    );
    let initial = ctx.intern_attr(AttrKind::DenseResource {
        handle,
        ty: tensor_ty,
    });
    let i64_ty = ctx.i64();
    let properties = vec![
        ("sym_name", ctx.string_attr(&name)),
        ("sym_visibility", ctx.string_attr("private")),
        ("type", ctx.intern_attr(AttrKind::Type(memref_ty))),
        ("initial_value", initial),
        ("constant", ctx.unit_attr()),
        (
            "alignment",
            ctx.integer_attr(tb_dialects::loop_::DEFAULT_ALIGNMENT.into(), i64_ty),
        ),
    ];
    let beside = At {
        before: source.global,
        loc: ctx.op(source.global).loc,
    };
    beside.create(ctx, memref::GLOBAL, vec![], vec![], properties, 0);
    let symbol = ctx.intern_attr(AttrKind::SymbolRef {
        root: name,
        nested: vec![],
    });
    let get = at.create(
        ctx,
        memref::GET_GLOBAL,
        vec![],
        vec![memref_ty],
        vec![("name", symbol)],
        0,
    );
    ctx.op(get).results[0]
}

/// Once the kernel no longer reads `source`: its `memref.get_global` goes when nothing
/// uses it, and its global when no other `memref.get_global` names it.
pub(super) fn release<T>(ctx: &mut Context, source: &ConstantBuffer<T>) {
    let result = ctx.op(source.get_global).results[0];
    if !ctx.value(result).uses.is_empty() {
        return;
    }
    let name = symbol_name(ctx, source.global).map(str::to_owned);
    ctx.erase_op(source.get_global);
    let (Some(name), Some(table)) = (name, nearest_symbol_table(ctx, source.global)) else {
        return;
    };
    let mut named = false;
    ctx.walk_nested(table, &mut |op| {
        if MemRefOp::of(ctx, op) == Some(MemRefOp::GetGlobal)
            && ctx.op_inherent_or_attr(op, "name").is_some_and(
                |a| matches!(ctx.attr_kind(a), AttrKind::SymbolRef { root, .. } if *root == name),
            )
        {
            named = true;
        }
    });
    if !named {
        ctx.erase_op(source.global);
    }
}
