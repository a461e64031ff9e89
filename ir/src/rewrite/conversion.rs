//! Dialect conversion: rewrite every op a [`ConversionTarget`] deems illegal with
//! [`ConversionPattern`]s, converting types with a [`TypeConverter`] and bridging values whose
//! types changed with `builtin.unrealized_conversion_cast` (removed later by
//! `reconcile-unrealized-casts` once both sides agree).

use std::collections::HashMap;

use super::pattern::Rewriter;
use crate::builtin::UNREALIZED_CONVERSION_CAST;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::operation::{OpId, OperationState};
use crate::types::Type;
use crate::value::Value;

/// Whether an op may stay.
#[derive(Clone, Copy)]
pub enum Legality {
    Legal,
    Illegal,
    /// Legal when the function says so (e.g. "legal once its types are converted").
    Dynamic(fn(&Context, OpId) -> bool),
}

/// Which ops are legal after the conversion, by op name or by dialect.
#[derive(Default)]
pub struct ConversionTarget {
    ops: HashMap<String, Legality>,
    dialects: HashMap<String, Legality>,
}

impl ConversionTarget {
    pub fn new() -> ConversionTarget {
        ConversionTarget::default()
    }

    pub fn add_op(&mut self, name: &str, legality: Legality) -> &mut Self {
        self.ops.insert(name.to_string(), legality);
        self
    }

    pub fn add_dialect(&mut self, namespace: &str, legality: Legality) -> &mut Self {
        self.dialects.insert(namespace.to_string(), legality);
        self
    }

    /// `Some(true/false)` for ops the target knows, `None` for the others.
    pub fn is_legal(&self, ctx: &Context, op: OpId) -> Option<bool> {
        let name = ctx.op_name(op);
        let dialect = name.split_once('.').map_or(name, |(d, _)| d);
        let legality = self.ops.get(name).or_else(|| self.dialects.get(dialect))?;
        Some(match legality {
            Legality::Legal => true,
            Legality::Illegal => false,
            Legality::Dynamic(check) => check(ctx, op),
        })
    }

    fn is_explicitly_illegal(&self, ctx: &Context, op: OpId) -> bool {
        self.is_legal(ctx, op) == Some(false)
    }
}

/// Maps types to their converted form; a type no rule converts stays as it is.
pub type TypeRule = Box<dyn Fn(&mut Context, Type) -> Option<Type>>;

#[derive(Default)]
pub struct TypeConverter {
    rules: Vec<TypeRule>,
}

impl TypeConverter {
    pub fn new() -> TypeConverter {
        TypeConverter::default()
    }

    /// Adds a rule; later rules are tried first, as in MLIR.
    pub fn add_rule(&mut self, rule: TypeRule) {
        self.rules.push(rule);
    }

    pub fn convert_type(&self, ctx: &mut Context, ty: Type) -> Type {
        self.rules
            .iter()
            .rev()
            .find_map(|rule| rule(ctx, ty))
            .unwrap_or(ty)
    }

    /// A value of `ty` standing for `value`: `value` itself, or a cast inserted before `at`.
    pub fn materialize(&self, rewriter: &mut Rewriter, value: Value, ty: Type, at: OpId) -> Value {
        if rewriter.ctx().value_type(value) == ty {
            return value;
        }
        let loc = rewriter.ctx().op(at).loc;
        let name = rewriter
            .ctx_mut()
            .intern_op_name(UNREALIZED_CONVERSION_CAST);
        let cast = rewriter.create_op_before(
            at,
            OperationState {
                name,
                operands: vec![value],
                result_types: vec![ty],
                successors: vec![],
                num_regions: 0,
                properties: None,
                attributes: vec![],
                loc,
            },
        );
        rewriter.ctx().op(cast).results[0]
    }
}

/// A rewrite of one illegal op, given its operands already converted.
pub trait ConversionPattern {
    fn root(&self) -> Option<&'static str>;

    fn benefit(&self) -> u16 {
        1
    }

    /// Rewrites `op` using `operands` (converted counterparts of its operands) and returns
    /// whether it did; it must not change the IR when it returns false. Replace the op with
    /// [`replace_op_converted`], which casts back for users that still expect the old types.
    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut Rewriter,
        types: &TypeConverter,
    ) -> bool;
}

/// Replaces `op` by `values` in a conversion: a value whose type differs from the result it
/// replaces reaches the remaining users through a cast back to the old type.
pub fn replace_op_converted(
    rewriter: &mut Rewriter,
    op: OpId,
    values: &[Value],
    types: &TypeConverter,
) {
    let results = rewriter.ctx().op(op).results.to_vec();
    assert_eq!(
        results.len(),
        values.len(),
        "one replacement value per result"
    );
    let bridged: Vec<Value> = results
        .iter()
        .zip(values)
        .map(|(&old, &new)| {
            let old_ty = rewriter.ctx().value_type(old);
            types.materialize(rewriter, new, old_ty, op)
        })
        .collect();
    rewriter.replace_op(op, &bridged);
}

/// Full conversion fails on any op left that the target does not declare legal; partial
/// conversion only on ops left that it declares illegal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ConversionMode {
    Partial,
    Full,
}

/// Converts the ops nested under `root`. On failure, every op left illegal is reported,
/// each with its location, as notes of one error.
pub fn apply_conversion(
    ctx: &mut Context,
    root: OpId,
    target: &ConversionTarget,
    patterns: &[Box<dyn ConversionPattern>],
    types: &TypeConverter,
    mode: ConversionMode,
) -> Result<(), Diagnostic> {
    let mut ops = Vec::new();
    ctx.walk_nested(root, &mut |op| ops.push(op));
    let mut ordered: Vec<&dyn ConversionPattern> = patterns.iter().map(|p| p.as_ref()).collect();
    ordered.sort_by_key(|p| std::cmp::Reverse(p.benefit()));
    for op in ops {
        if ctx.op(op).erased || target.is_legal(ctx, op) == Some(true) {
            continue;
        }
        let name = ctx.op_name(op).to_string();
        for pattern in ordered
            .iter()
            .filter(|p| p.root().is_none_or(|r| r == name))
        {
            let operand_values = ctx.op(op).operands.to_vec();
            let converted_types: Vec<Type> = operand_values
                .iter()
                .map(|&v| {
                    let t = ctx.value_type(v);
                    types.convert_type(ctx, t)
                })
                .collect();
            let mut rewriter = Rewriter::new(ctx);
            let operands: Vec<Value> = operand_values
                .iter()
                .zip(&converted_types)
                .map(|(&v, &t)| types.materialize(&mut rewriter, v, t, op))
                .collect();
            if pattern.match_and_rewrite(op, &operands, &mut rewriter, types) {
                break;
            }
            // The pattern declined: drop the operand casts made for it.
            for (&v, &orig) in operands.iter().zip(&operand_values) {
                if v != orig
                    && let crate::value::ValueDef::Result { op: cast, .. } =
                        rewriter.ctx().value(v).def
                    && rewriter.ctx().value(v).uses.is_empty()
                {
                    rewriter.erase_op(cast);
                }
            }
        }
    }
    let mut left = Vec::new();
    ctx.walk_nested(root, &mut |op| {
        let bad = match mode {
            ConversionMode::Full => target.is_legal(ctx, op) != Some(true),
            ConversionMode::Partial => target.is_explicitly_illegal(ctx, op),
        };
        if bad && ctx.op_name(op) != UNREALIZED_CONVERSION_CAST {
            left.push(op);
        }
    });
    let Some(&first) = left.first() else {
        return Ok(());
    };
    let mut diag = Diagnostic::error(
        ctx.op(first).loc,
        format!("failed to legalize operation '{}'", ctx.op_name(first)),
    );
    for &op in &left[1..] {
        diag = diag.with_note(
            ctx.op(op).loc,
            format!("failed to legalize operation '{}'", ctx.op_name(op)),
        );
    }
    Err(diag)
}
