//! The `builtin` dialect's operations: `builtin.module` and
//! `builtin.unrealized_conversion_cast`.

use crate::attributes::AttrKind;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::operation::OpId;
use crate::registry::{FoldResult, OpInfo, OpTraits};

pub const MODULE: &str = "builtin.module";
pub const UNREALIZED_CONVERSION_CAST: &str = "builtin.unrealized_conversion_cast";

pub fn register(ctx: &mut Context) {
    ctx.register_op(OpInfo {
        traits: OpTraits {
            isolated_from_above: true,
            no_terminator: true,
            single_block: true,
            graph_regions: true,
            symbol_table: true,
            ..OpTraits::default()
        },
        inherent_attrs: &["sym_name", "sym_visibility"],
        verify: Some(verify_module),
        ..OpInfo::new(MODULE)
    });
    ctx.register_op(OpInfo {
        traits: OpTraits {
            pure: true,
            ..OpTraits::default()
        },
        inherent_attrs: &[],
        verify: Some(verify_cast),
        fold: Some(fold_cast),
        ..OpInfo::new(UNREALIZED_CONVERSION_CAST)
    });
}

fn verify_module(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let err = |m: &str| Err(Diagnostic::error(data.loc, format!("'{MODULE}' op {m}")));
    if !data.operands.is_empty() || !data.results.is_empty() || !data.successors.is_empty() {
        return err("requires zero operands, results and successors");
    }
    if data.regions.len() != 1 {
        return err("requires one region");
    }
    let blocks = &ctx.region(data.regions[0]).blocks;
    if blocks.len() != 1 {
        return err("expects a non-empty block");
    }
    if let Some(&b) = blocks.first()
        && !ctx.block(b).args.is_empty()
    {
        return err("region should have no arguments");
    }
    if let Some(name) = ctx.op_inherent_or_attr(op, "sym_name")
        && !matches!(ctx.attr_kind(name), AttrKind::String { ty: None, .. })
    {
        return err("attribute 'sym_name' failed to satisfy constraint: string attribute");
    }
    for (name, _) in ctx.dictionary_entries(data.attributes) {
        if !name.contains('.') {
            return err(&format!(
                "can only contain attributes with dialect-prefixed names, found: '{name}'"
            ));
        }
    }
    Ok(())
}

fn verify_cast(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    if !data.regions.is_empty() || !data.successors.is_empty() {
        return Err(Diagnostic::error(
            data.loc,
            format!("'{UNREALIZED_CONVERSION_CAST}' op requires zero regions and successors"),
        ));
    }
    if data.results.is_empty() {
        return Err(Diagnostic::error(
            data.loc,
            format!("'{UNREALIZED_CONVERSION_CAST}' op requires one or more results"),
        ));
    }
    Ok(())
}

/// A cast to the types it casts from is its input, and so is a cast undoing another cast
/// (`cast(cast(x : A) : B) : A` is `x`), as MLIR folds them.
fn fold_cast(ctx: &Context, op: OpId, _: &[Option<crate::Attr>]) -> Option<Vec<FoldResult>> {
    Some(
        fold_cast_to_values(ctx, op)?
            .into_iter()
            .map(FoldResult::Value)
            .collect(),
    )
}

fn fold_cast_to_values(ctx: &Context, op: OpId) -> Option<Vec<crate::Value>> {
    let data = ctx.op(op);
    let result_types: Vec<_> = data.results.iter().map(|&r| ctx.value_type(r)).collect();
    let operand_types: Vec<_> = data.operands.iter().map(|&v| ctx.value_type(v)).collect();
    if !data.operands.is_empty() && operand_types == result_types {
        return Some(data.operands.to_vec());
    }
    // Every operand must be a result of one and the same cast, in order.
    let first = *data.operands.first()?;
    let crate::value::ValueDef::Result { op: producer, .. } = ctx.value(first).def else {
        return None;
    };
    let produced = &ctx.op(producer).results;
    if ctx.op_name(producer) != UNREALIZED_CONVERSION_CAST
        || produced.as_slice() != data.operands.as_slice()
    {
        return None;
    }
    let inputs = &ctx.op(producer).operands;
    let input_types: Vec<_> = inputs.iter().map(|&v| ctx.value_type(v)).collect();
    (input_types == result_types).then(|| inputs.to_vec())
}
