//! What views with offsets, sizes and strides (`subview`, `reinterpret_cast`) share:
//! operand groups 1 to 3 hold the dynamic entries of `static_offsets`, `static_sizes`
//! and `static_strides`; MLIR checks their counts and signs the same way for both.

use tb_ir::ods::operand_group;
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Diagnostic, OpId};

use super::index_list::{Mixed, mixed, static_list};
use super::verify::error;

pub(crate) const LISTS: [(&str, &str, &str); 3] = [
    ("static_offsets", "offsets", "offset"),
    ("static_sizes", "sizes", "size"),
    ("static_strides", "strides", "stride"),
];

/// Offsets, sizes and strides, static entries and operands merged.
pub(crate) struct Slice {
    pub offsets: Vec<Mixed>,
    pub sizes: Vec<Mixed>,
    pub strides: Vec<Mixed>,
}

impl Slice {
    pub fn of(ctx: &Context, op: OpId) -> Option<Slice> {
        Some(Slice {
            offsets: mixed(ctx, op, LISTS[0].0, 1)?,
            sizes: mixed(ctx, op, LISTS[1].0, 2)?,
            strides: mixed(ctx, op, LISTS[2].0, 3)?,
        })
    }
}

/// The three static lists of `op`.
pub(crate) fn static_lists(ctx: &Context, op: OpId) -> Option<[Vec<i64>; 3]> {
    Some([
        static_list(ctx, op, LISTS[0].0)?,
        static_list(ctx, op, LISTS[1].0)?,
        static_list(ctx, op, LISTS[2].0)?,
    ])
}

/// MLIR's checks of the lists: dynamic entries match operands, the lists are as long
/// as each other and as `max_ranks` says, offsets and sizes are not negative.
pub(crate) fn verify(ctx: &Context, op: OpId, max_ranks: [usize; 3]) -> Result<(), Diagnostic> {
    let Some(lists) = static_lists(ctx, op) else {
        return Ok(());
    };
    for (i, (attr, name, _)) in LISTS.iter().enumerate() {
        let dynamic = lists[i].iter().filter(|&&v| v == DYNAMIC).count();
        let values = operand_group(ctx, op, i + 1).len();
        if dynamic != values {
            return error(
                ctx,
                op,
                format!(
                    "expected the number of '{name}' to match the number of dynamic entries in '{attr}' ({values} vs {dynamic})"
                ),
            );
        }
    }
    let [offsets, sizes, strides] = &lists;
    if !(offsets.len() == 1 && max_ranks[0] == 1) && offsets.len() != sizes.len() {
        return error(
            ctx,
            op,
            format!(
                "expected mixed offsets rank to match mixed sizes rank ({} vs {}) so the rank of the result type is well-formed.",
                offsets.len(),
                sizes.len()
            ),
        );
    }
    if sizes.len() != strides.len() {
        return error(
            ctx,
            op,
            format!(
                "expected mixed sizes rank to match mixed strides rank ({} vs {}) so the rank of the result type is well-formed.",
                sizes.len(),
                strides.len()
            ),
        );
    }
    for (i, (_, _, singular)) in LISTS.iter().enumerate() {
        if lists[i].len() != max_ranks[i] {
            return error(
                ctx,
                op,
                format!(
                    "expected {} {singular} values, got {}",
                    max_ranks[i],
                    lists[i].len()
                ),
            );
        }
    }
    for (list, name) in [(offsets, "offsets"), (sizes, "sizes")] {
        if let Some(v) = list.iter().find(|&&v| v < 0 && v != DYNAMIC) {
            return error(
                ctx,
                op,
                format!("expected {name} to be non-negative, but got {v}"),
            );
        }
    }
    Ok(())
}
