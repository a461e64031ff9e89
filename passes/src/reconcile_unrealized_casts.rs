//! `reconcile-unrealized-casts`: removes the `builtin.unrealized_conversion_cast` chains
//! that conversions leave behind when the values on both ends already have matching types,
//! and reports every cast that still carries a value between types nothing converts.

use tb_ir::builtin::UNREALIZED_CONVERSION_CAST;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::value::ValueDef;
use tb_ir::{Context, Diagnostic, OpId, Type, Value};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "reconcile-unrealized-casts",
        description: "Remove unrealized conversion casts that cancel out; report the others",
        options: &[],
        create: |_: &PassOptions| Box::new(ReconcileUnrealizedCasts),
    }
}

struct ReconcileUnrealizedCasts;

/// The values a cast's whole operand list comes from, when it is exactly the results of
/// another cast.
fn producing_cast(ctx: &Context, operands: &[Value]) -> Option<OpId> {
    let ValueDef::Result { op, .. } = ctx.value(*operands.first()?).def else {
        return None;
    };
    (ctx.op_name(op) == UNREALIZED_CONVERSION_CAST && ctx.op(op).results.as_slice() == operands)
        .then_some(op)
}

impl Pass for ReconcileUnrealizedCasts {
    fn argument(&self) -> &'static str {
        "reconcile-unrealized-casts"
    }

    fn display_name(&self) -> &'static str {
        "ReconcileUnrealizedCasts"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let mut casts = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if ctx.op_name(inner) == UNREALIZED_CONVERSION_CAST {
                casts.push(inner);
            }
        });
        // Replace each cast by the earliest values up its chain that have its result types.
        for &cast in &casts {
            if ctx.op(cast).erased {
                continue;
            }
            let want: Vec<Type> = ctx
                .op(cast)
                .results
                .iter()
                .map(|&r| ctx.value_type(r))
                .collect();
            let mut inputs = ctx.op(cast).operands.to_vec();
            let mut found = None;
            loop {
                let types: Vec<Type> = inputs.iter().map(|&v| ctx.value_type(v)).collect();
                if types == want {
                    found = Some(inputs.clone());
                }
                match producing_cast(ctx, &inputs) {
                    Some(producer) => inputs = ctx.op(producer).operands.to_vec(),
                    None => break,
                }
            }
            if let Some(values) = found {
                let results = ctx.op(cast).results.to_vec();
                for (from, to) in results.into_iter().zip(values) {
                    ctx.replace_all_uses(from, to);
                }
            }
        }
        // Unused casts go, innermost users first so chains disappear whole.
        for &cast in casts.iter().rev() {
            if !ctx.op(cast).erased
                && ctx
                    .op(cast)
                    .results
                    .iter()
                    .all(|&r| ctx.value(r).uses.is_empty())
            {
                ctx.erase_op(cast);
            }
        }
        let left: Vec<OpId> = casts.into_iter().filter(|&c| !ctx.op(c).erased).collect();
        let Some(&first) = left.first() else {
            return Ok(());
        };
        let mut diag = Diagnostic::error(
            ctx.op(first).loc,
            format!(
                "failed to legalize operation '{UNREALIZED_CONVERSION_CAST}' that was explicitly marked illegal"
            ),
        );
        for &cast in &left[1..] {
            diag = diag.with_note(
                ctx.op(cast).loc,
                "another unrealized conversion cast is left here",
            );
        }
        Err(diag)
    }
}
