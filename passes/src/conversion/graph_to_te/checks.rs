//! Run-time checks on the data, and the status result that reports them
//! ([`tb_dialects::entry_status`]).
//!
//! A lowering that reads at data-dependent indices (Gather, GatherElements) still clamps
//! them, so compiled code never reads outside a buffer; besides, it asks for a check: a 0-d
//! `i32` `te.compute` that reduces the indices with `max` to 1 when one is out of range,
//! marked `tb.check = "<message>"`. After the conversion, each public function's checks
//! become its status result: code `k` for the first failing check `k` in program order.
//! A check in a private function is dropped (its callers have no status to report it in),
//! so there the indices are only clamped.

use tb_dialects::entry_status::{CHECK_ATTR, STATUS_MESSAGES_ATTR, STATUS_RESULT_ATTR};
use tb_dialects::func;
use tb_ir::rewrite::conversion::location_name;
use tb_ir::{Attr, AttrKind, Context, OpId, Signedness, Value};

use super::builder::{Cmp, LowerResult, Lowering, Reduction, identity_exprs, is_empty};
use tb_dialects::te::Combiner;

impl Lowering<'_> {
    /// Asks for a check that every element of the integer tensor `indices` indexes an axis of
    /// `extent` (negative ones counting from its end); `what` names the op's role in the
    /// message (`"Gather"`).
    pub fn check_index_range(
        &mut self,
        indices: Value,
        extent: i64,
        what: &str,
    ) -> LowerResult<()> {
        let shape = self.shape(indices);
        if is_empty(&shape) {
            return Ok(());
        }
        let i32 = self.ctx.integer_type(32, Signedness::Signless);
        // A 0-d indices tensor is read once, without a reduction.
        let reduction = (!shape.is_empty()).then_some(Reduction {
            extents: &shape,
            combiner: Combiner::Max,
        });
        let flag = self.compute(&[], i32, reduction, |b| {
            let raw = b.read(indices, identity_exprs(shape.len()));
            let index_ty = b.ctx.index_type();
            let i = b.index_cast(raw, index_ty);
            let lo = b.index_constant(-extent);
            let hi = b.index_constant(extent);
            let above = b.cmp(Cmp::Ge, i, lo);
            let below = b.cmp(Cmp::Lt, i, hi);
            let inside = b.and(above, below);
            let ok = b.constant(0.0, i32);
            let bad = b.constant(1.0, i32);
            Ok(b.select(inside, ok, bad))
        })?;
        let node = match location_name(self.ctx, self.loc) {
            Some(name) => format!("{what} node '{name}'"),
            None => what.to_owned(),
        };
        let message = format!(
            "{node}: an index is out of range for an axis of size {extent} (valid indices are -{extent} to {})",
            extent - 1
        );
        let message = self.ctx.string_attr(&message);
        if let Some(check) = self.ctx.defining_op(flag) {
            set_attr(self.ctx, check, CHECK_ATTR, Some(message));
        }
        Ok(())
    }
}

/// `dict` with `name` set to `value` (or removed for `None`).
fn dictionary_with(ctx: &mut Context, dict: Option<Attr>, name: &str, value: Option<Attr>) -> Attr {
    let mut entries: Vec<(String, Attr)> = dict
        .map(|d| ctx.dictionary_entries(d).to_vec())
        .unwrap_or_default();
    entries.retain(|(n, _)| n != name);
    entries.extend(value.map(|v| (name.to_owned(), v)));
    ctx.dictionary_attr(entries)
}

fn set_attr(ctx: &mut Context, op: OpId, name: &str, value: Option<Attr>) {
    let dict = ctx.op(op).attributes;
    ctx.op_mut(op).attributes = dictionary_with(ctx, Some(dict), name, value);
}

fn set_property(ctx: &mut Context, op: OpId, name: &str, value: Attr) {
    let dict = ctx.op(op).properties;
    ctx.op_mut(op).properties = Some(dictionary_with(ctx, dict, name, Some(value)));
}

/// The checks directly in `func`'s body, in program order, with their messages.
fn checks_of(ctx: &Context, func: OpId) -> Vec<(OpId, String)> {
    let Some(body) = ctx
        .op(func)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
    else {
        return Vec::new();
    };
    ctx.block_ops(body)
        .filter_map(|op| {
            let message = ctx.dictionary_get(ctx.op(op).attributes, CHECK_ATTR)?;
            Some((op, ctx.attr_as_str(message).unwrap_or_default().to_owned()))
        })
        .collect()
}

/// Turns the checks of every function under `root` into status results (public
/// functions) or drops them (others).
pub(super) fn combine_checks(ctx: &mut Context, root: OpId) -> Result<(), tb_ir::Diagnostic> {
    let mut functions = Vec::new();
    ctx.walk_nested(root, &mut |op| {
        if ctx.op_name(op) == "func.func" {
            functions.push(op);
        }
    });
    for function in functions {
        let checks = checks_of(ctx, function);
        if checks.is_empty() {
            continue;
        }
        let public = ctx
            .op_inherent_or_attr(function, "sym_visibility")
            .and_then(|a| ctx.attr_as_str(a))
            .is_none_or(|v| v == "public");
        let ret = ctx
            .op(function)
            .regions
            .first()
            .and_then(|&r| ctx.entry_block(r))
            .and_then(|b| ctx.block(b).last)
            .filter(|&t| ctx.op_name(t) == "func.return");
        match ret {
            Some(ret) if public && func::signature(ctx, function).is_some() => {
                add_status_result(ctx, function, ret, &checks)?
            }
            _ => {
                for (check, _) in checks {
                    ctx.erase_op(check);
                }
            }
        }
    }
    Ok(())
}

/// Combines `checks` into one status value returned as `function`'s new last result.
fn add_status_result(
    ctx: &mut Context,
    function: OpId,
    ret: OpId,
    checks: &[(OpId, String)],
) -> Result<(), tb_ir::Diagnostic> {
    let flags: Vec<Value> = checks
        .iter()
        .map(|&(op, _)| ctx.op(op).results[0])
        .collect();
    let i32 = ctx.integer_type(32, Signedness::Signless);
    let loc = ctx.op(ret).loc;
    let mut at = Lowering::new(ctx, ret, Vec::new());
    let status = at
        .compute(&[], i32, None, |b| {
            // The first failing check in program order gives the code.
            let mut code = b.constant(0.0, i32);
            for (k, &flag) in flags.iter().enumerate().rev() {
                let failed = b.read(flag, Vec::new());
                let zero = b.constant(0.0, i32);
                let failed = b.cmp(Cmp::Ne, failed, zero);
                let k = b.constant((k + 1) as f64, i32);
                code = b.select(failed, k, code);
            }
            Ok(code)
        })
        .map_err(|m| tb_ir::Diagnostic::error(loc, m))?;
    for &(check, _) in checks {
        set_attr(ctx, check, CHECK_ATTR, None);
    }
    ctx.push_operand(ret, status);

    let (inputs, mut results) = func::signature(ctx, function).expect("checked by the caller");
    let old_results = results.len();
    results.push(ctx.value_type(status));
    let function_type = ctx.function_type(inputs, results);
    let function_type = ctx.type_attr(function_type);
    set_property(ctx, function, "function_type", function_type);

    let mut dicts = match ctx
        .op_inherent_or_attr(function, "res_attrs")
        .map(|a| ctx.attr_kind(a).clone())
    {
        Some(AttrKind::Array(dicts)) => dicts,
        _ => Vec::new(),
    };
    while dicts.len() < old_results {
        dicts.push(ctx.dictionary_attr(Vec::new()));
    }
    dicts.truncate(old_results);
    let unit = ctx.unit_attr();
    dicts.push(ctx.dictionary_attr(vec![(STATUS_RESULT_ATTR.to_owned(), unit)]));
    let dicts = ctx.intern_attr(AttrKind::Array(dicts));
    set_property(ctx, function, "res_attrs", dicts);

    let messages: Vec<Attr> = checks.iter().map(|(_, m)| ctx.string_attr(m)).collect();
    let messages = ctx.intern_attr(AttrKind::Array(messages));
    set_attr(ctx, function, STATUS_MESSAGES_ATTR, Some(messages));
    Ok(())
}
