//! Tensor constants become read-only globals: `arith.constant dense<...> : tensor<4xf32>`
//! turns into a private constant `memref.global` holding the same initializer (a `dense`
//! literal or a `dense_resource` handle, whose blob stays in the module's resources) and a
//! `memref.get_global` where the constant was. Equal constants share one global.

use std::collections::{HashMap, HashSet};

use tb_dialects::memref;
use tb_ir::printer::type_to_string;
use tb_ir::symbol_table::symbol_name;
use tb_ir::{Attr, AttrKind, Context, OpId, Type, TypeKind, Value};

use super::builder::Builder;
use super::signature::buffer_type;

/// The globals of one module: where new ones go, and those made so far.
pub(super) struct Globals {
    /// New globals are inserted before this op (the module's first function), so they
    /// come first in the module, in the order they were made.
    insert_before: OpId,
    taken: HashSet<String>,
    by_initializer: HashMap<(Attr, Type), String>,
}

impl Globals {
    /// Globals for the module whose ops are `module_ops`; new ones go before `first`.
    pub fn new(ctx: &Context, module_ops: &[OpId], first: OpId) -> Globals {
        Globals {
            insert_before: first,
            taken: module_ops
                .iter()
                .filter_map(|&op| symbol_name(ctx, op).map(str::to_owned))
                .collect(),
            by_initializer: HashMap::new(),
        }
    }

    /// The symbol of the global holding `initializer` as a `ty` buffer, and the global
    /// when this call made it (on first use).
    fn global_for(
        &mut self,
        ctx: &mut Context,
        initializer: Attr,
        ty: Type,
        loc: tb_ir::Location,
    ) -> (String, Option<OpId>) {
        if let Some(name) = self.by_initializer.get(&(initializer, ty)) {
            return (name.clone(), None);
        }
        let name = self.fresh_name(&constant_name(ctx, ty));
        let string = |ctx: &mut Context, s: &str| ctx.string_attr(s);
        let properties = vec![
            ("sym_name", string(ctx, &name)),
            ("sym_visibility", string(ctx, "private")),
            ("type", ctx.intern_attr(AttrKind::Type(ty))),
            ("initial_value", initializer),
            ("constant", ctx.unit_attr()),
            ("alignment", {
                let i64_ty = ctx.i64();
                ctx.integer_attr(tb_dialects::loop_::DEFAULT_ALIGNMENT.into(), i64_ty)
            }),
        ];
        let global = Builder::before(self.insert_before, loc).create(
            ctx,
            memref::GLOBAL,
            vec![],
            vec![],
            properties,
            0,
        );
        self.by_initializer.insert((initializer, ty), name.clone());
        (name, Some(global))
    }

    /// `base`, or `base_<n>` with the first `n` that no symbol of the module uses.
    fn fresh_name(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut n = 0;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// `__constant_2x3xf32`, as MLIR's bufferization names constant globals.
fn constant_name(ctx: &Context, ty: Type) -> String {
    let TypeKind::MemRef { shape, element, .. } = ctx.type_kind(ty) else {
        return "__constant".into();
    };
    let mut name = String::from("__constant_");
    for extent in shape {
        name.push_str(&format!("{extent}x"));
    }
    name.push_str(&type_to_string(ctx, *element));
    name
}

/// The initializer of a tensor constant a global can hold, or why there is none.
pub(super) fn initializer(ctx: &Context, op: OpId) -> Result<Attr, String> {
    let value = ctx.op_inherent_or_attr(op, "value").ok_or("has no value")?;
    match ctx.attr_kind(value) {
        AttrKind::DenseElements { .. } | AttrKind::DenseResource { .. } => Ok(value),
        _ => Err("holds a value that is neither 'dense' nor 'dense_resource'".into()),
    }
}

/// Builds, before the tensor constant `op`, a `memref.get_global` of its global (and the
/// global, first in the module, if it is new); gives the buffer that is to replace the
/// constant, and the new global.
pub(super) fn lower(
    ctx: &mut Context,
    op: OpId,
    initializer: Attr,
    globals: &mut Globals,
) -> (Value, Option<OpId>) {
    let loc = ctx.op(op).loc;
    let result = ctx.op(op).results[0];
    let ty = buffer_type(ctx, ctx.value_type(result));
    let (name, global) = globals.global_for(ctx, initializer, ty, loc);
    let symbol = ctx.intern_attr(AttrKind::SymbolRef {
        root: name,
        nested: vec![],
    });
    let buffer =
        Builder::before(op, loc).value(ctx, memref::GET_GLOBAL, vec![], ty, vec![("name", symbol)]);
    (buffer, global)
}
