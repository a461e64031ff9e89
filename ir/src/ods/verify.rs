//! The verifier every declaratively defined op gets: counts, type and attribute
//! constraints, type-equality traits and region shapes, with MLIR's messages.

use super::{Arity, OpDef, group_sizes, segment_sizes};
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::operation::OpId;
use crate::printer::type_to_string;
use crate::types::Type;

pub fn verify_op(ctx: &Context, op: OpId, def: &OpDef) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let err = |m: String| {
        Err(Diagnostic::error(
            data.loc,
            format!("'{}' op {m}", def.name),
        ))
    };

    for attr in def.attributes {
        match ctx.op_inherent_or_attr(op, attr.name) {
            None if !attr.optional => return err(format!("requires attribute '{}'", attr.name)),
            None => {}
            Some(value) if !(attr.constraint.check)(ctx, value) => {
                return err(format!(
                    "attribute '{}' failed to satisfy constraint: {}",
                    attr.name, attr.constraint.description
                ));
            }
            Some(_) => {}
        }
    }
    if def.attr_sized_operand_segments {
        let Some(sizes) = segment_sizes(ctx, op) else {
            return err("requires dense i32 array attribute 'operandSegmentSizes'".into());
        };
        if sizes.len() != def.operands.len() {
            return err(format!(
                "'operandSegmentSizes' attribute for specifying operand segments must have {} elements, but got {}",
                def.operands.len(),
                sizes.len()
            ));
        }
        let total: usize = sizes.iter().sum();
        if total != data.operands.len() {
            return err(format!(
                "operand count ({}) does not match with the total size ({total}) specified in attribute 'operandSegmentSizes'",
                data.operands.len()
            ));
        }
    }
    check_group_counts(def.operands, data.operands.len(), "operand").or_else(&err)?;
    check_group_counts(def.results, data.results.len(), "result").or_else(&err)?;

    let operand_types: Vec<Type> = data.operands.iter().map(|&v| ctx.value_type(v)).collect();
    let result_types: Vec<Type> = data.results.iter().map(|&v| ctx.value_type(v)).collect();
    for (kind, groups, types, sizes) in [
        (
            "operand",
            def.operands,
            &operand_types,
            group_sizes(ctx, op, def.operands, operand_types.len(), true),
        ),
        (
            "result",
            def.results,
            &result_types,
            group_sizes(ctx, op, def.results, result_types.len(), false),
        ),
    ] {
        let mut index = 0;
        for (group, size) in groups.iter().zip(sizes) {
            for &ty in types.iter().skip(index).take(size) {
                if !(group.constraint.check)(ctx, ty) {
                    let variadic = if group.arity == Arity::Variadic {
                        "variadic of "
                    } else {
                        ""
                    };
                    return err(format!(
                        "{kind} #{index} must be {variadic}{}, but got '{}'",
                        group.constraint.description,
                        type_to_string(ctx, ty)
                    ));
                }
                index += 1;
            }
        }
    }

    if def.same_operands_and_result_type {
        let mut all = operand_types.iter().chain(&result_types);
        if let Some(first) = all.next()
            && all.any(|t| t != first)
        {
            return err("requires the same type for all operands and results".into());
        }
    }
    if def.same_type_operands
        && let Some((first, rest)) = operand_types.split_first()
        && rest.iter().any(|t| t != first)
    {
        return err("requires all operands to have the same type".into());
    }
    for names in def.all_types_match {
        let mut types = names
            .iter()
            .filter_map(|n| named_type(ctx, op, def, n, &operand_types, &result_types));
        if let Some(first) = types.next()
            && types.any(|t| t != first)
        {
            return err(format!(
                "failed to verify that all of {{{}}} have same type",
                names.join(", ")
            ));
        }
    }

    let variadic_regions = def.regions.last().is_some_and(|r| r.variadic);
    if variadic_regions {
        let fixed = def.regions.len() - 1;
        if data.regions.len() < fixed {
            return err(format!(
                "expected at least {fixed} region{}",
                if fixed == 1 { "" } else { "s" }
            ));
        }
    } else if data.regions.len() != def.regions.len() {
        // MLIR's wording for its ZeroRegions, OneRegion and NRegions<N> traits.
        return err(match def.regions.len() {
            0 => "requires zero regions".to_string(),
            1 => "requires one region".to_string(),
            n => format!("expected {n} regions"),
        });
    }
    // The trailing regions beyond the fixed ones are all of the variadic kind.
    let region_defs = def.regions.iter().chain(
        std::iter::repeat(def.regions.last())
            .flatten()
            .filter(|r| r.variadic),
    );
    for (i, (r, region_def)) in data.regions.iter().zip(region_defs).enumerate() {
        if region_def.single_block && ctx.region(*r).blocks.len() > 1 {
            return err(format!("expects region #{i} to have 0 or 1 blocks"));
        }
    }
    Ok(())
}

/// Checks that `count` values can be split among `groups`.
fn check_group_counts(groups: &[super::ArgDef], count: usize, kind: &str) -> Result<(), String> {
    let fixed = groups.iter().filter(|g| g.arity == Arity::Single).count();
    let variadic = groups.iter().any(|g| g.arity == Arity::Variadic);
    let optional = groups.iter().filter(|g| g.arity == Arity::Optional).count();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if variadic {
        if count < fixed {
            return Err(format!(
                "expected {fixed} or more {kind}s, but found {count}"
            ));
        }
    } else if optional > 0 {
        if count < fixed || count > fixed + optional {
            return Err(format!(
                "expected between {fixed} and {} {kind}s, but found {count}",
                fixed + optional
            ));
        }
    } else if count != fixed {
        // MLIR's `ZeroOperands`/`OneResult`/`NOperands<N>`... traits, with their texts.
        return Err(match (fixed, kind) {
            (0, _) => format!("requires zero {kind}s"),
            (1, "operand") => "requires a single operand".to_string(),
            (1, _) => format!("requires one {kind}"),
            _ => format!(
                "expected {fixed} {kind}{}, but found {count}",
                plural(fixed)
            ),
        });
    }
    Ok(())
}

/// The type of the single operand or result called `name`.
fn named_type(
    ctx: &Context,
    op: OpId,
    def: &OpDef,
    name: &str,
    operand_types: &[Type],
    result_types: &[Type],
) -> Option<Type> {
    if let Some(i) = def.operands.iter().position(|a| a.name == name) {
        let sizes = group_sizes(ctx, op, def.operands, operand_types.len(), true);
        let start: usize = sizes[..i].iter().sum();
        return operand_types.get(start).copied();
    }
    let i = def.results.iter().position(|a| a.name == name)?;
    let sizes = group_sizes(ctx, op, def.results, result_types.len(), false);
    let start: usize = sizes[..i].iter().sum();
    result_types.get(start).copied()
}
