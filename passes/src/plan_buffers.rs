//! `plan-buffers`: memory planning for loop-level functions. Buffers a function allocates
//! and frees in its own body (`loop.alloc` ... `loop.dealloc` in the top-level block) are
//! packed into one 64-byte aligned arena by their lifetimes: two buffers share bytes only
//! when one is freed before the other is allocated. Each buffer becomes a `memref.view` at
//! its offset, so its type, and every use, stays as it was.
//!
//! Placement is greedy by size: largest first, each at the lowest offset that does not
//! overlap a placed buffer live at the same time. The function records what it saved as
//! `tb.arena_bytes` (the arena) and `tb.requested_bytes` (the buffers before planning, each
//! rounded up to the alignment as its own allocation would be).
//!
//! Byte sizes and offsets are checked: buffers whose arena would not fit in `i64` bytes are
//! an error at the function, never a wrapped offset.

use tb_dialects::loop_;
use tb_ir::operation::OperationState;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{BlockId, Context, Diagnostic, OpId, Type, TypeKind};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "plan-buffers",
        description: "Pack the buffers each function allocates and frees into one arena by their lifetimes",
        options: &[],
        create: |_: &PassOptions| Box::new(PlanBuffers),
    }
}

/// Every planned buffer starts at a multiple of this many bytes.
const ALIGNMENT: i64 = loop_::DEFAULT_ALIGNMENT;

struct PlanBuffers;

impl Pass for PlanBuffers {
    fn argument(&self) -> &'static str {
        "plan-buffers"
    }

    fn display_name(&self) -> &'static str {
        "PlanBuffers"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let mut functions = Vec::new();
        if ctx.op_name(op) == "func.func" {
            functions.push(op);
        } else {
            ctx.walk_nested(op, &mut |inner| {
                if ctx.op_name(inner) == "func.func" {
                    functions.push(inner);
                }
            });
        }
        for func in functions {
            plan_function(ctx, func)?;
        }
        Ok(())
    }
}

/// A buffer the function allocates and frees itself: live from `start` to `end` (positions
/// of its alloc and dealloc in the top-level block).
#[derive(Clone, Debug)]
struct Lifetime {
    alloc: OpId,
    dealloc: OpId,
    start: usize,
    end: usize,
    bytes: i64,
}

/// `bytes` rounded up to a whole number of alignment units (at least one); `None` when that
/// does not fit in `i64`.
fn aligned(bytes: i64) -> Option<i64> {
    Some(bytes.max(1).checked_add(ALIGNMENT - 1)? / ALIGNMENT * ALIGNMENT)
}

/// The offset of each buffer (same order as `buffers`) and the arena size: largest first,
/// each at the lowest aligned offset clear of the placed buffers live at the same time.
/// `None` when an offset or the arena would not fit in `i64`.
fn place(buffers: &[(usize, usize, i64)]) -> Option<(Vec<i64>, i64)> {
    let sizes = buffers
        .iter()
        .map(|b| aligned(b.2))
        .collect::<Option<Vec<i64>>>()?;
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (-buffers[i].2, buffers[i].0));
    let mut offsets = vec![-1i64; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut arena = 0;
    for i in order {
        let (start, end, _) = buffers[i];
        let size = sizes[i];
        // Placed buffers end within the arena, which fits in i64.
        let mut busy: Vec<(i64, i64)> = placed
            .iter()
            .filter(|&&j| buffers[j].0 <= end && start <= buffers[j].1)
            .map(|&j| (offsets[j], offsets[j] + sizes[j]))
            .collect();
        busy.sort_unstable();
        let mut offset: i64 = 0;
        for (lo, hi) in busy {
            if offset.checked_add(size).is_some_and(|e| e <= lo) {
                break;
            }
            offset = offset.max(hi);
        }
        offsets[i] = offset;
        arena = arena.max(offset.checked_add(size)?);
        placed.push(i);
    }
    Some((offsets, arena))
}

fn plan_function(ctx: &mut Context, func: OpId) -> Result<(), Diagnostic> {
    let Some(block) = ctx
        .op(func)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
    else {
        return Ok(());
    };
    let buffers = lifetimes(ctx, block);
    if buffers.len() < 2 {
        return Ok(());
    }
    let spans: Vec<(usize, usize, i64)> =
        buffers.iter().map(|b| (b.start, b.end, b.bytes)).collect();
    let planned = place(&spans).zip(
        buffers
            .iter()
            .try_fold(0i64, |sum, b| sum.checked_add(aligned(b.bytes)?)),
    );
    let Some(((offsets, arena_bytes), requested)) = planned else {
        return Err(Diagnostic::error(
            ctx.op(func).loc,
            format!(
                "'{}' op allocates {} buffers whose arena would need more than 2^63 - 1 bytes",
                ctx.op_name(func),
                buffers.len()
            ),
        ));
    };

    let first = ctx.block(block).first.expect("has buffers, so has ops");
    let terminator = ctx.block_terminator(block).expect("a function body ends");
    let loc = ctx.op(func).loc;
    let i8_type = ctx.integer_type(8, tb_ir::Signedness::Signless);
    let arena_type = ctx.intern_type(TypeKind::MemRef {
        shape: vec![arena_bytes],
        element: i8_type,
        layout: None,
        memory_space: None,
    });
    let arena_op = create(ctx, loop_::ALLOC, vec![], vec![arena_type], loc);
    ctx.insert_op_before(first, arena_op);
    let arena = ctx.op(arena_op).results[0];
    let index = ctx.index_type();
    for (buffer, offset) in buffers.iter().zip(offsets) {
        let loc = ctx.op(buffer.alloc).loc;
        let value = ctx.integer_attr(offset as i128, index);
        let shift = tb_dialects::arith::build_constant(ctx, value, index, loc);
        ctx.insert_op_before(buffer.alloc, shift);
        let shift = ctx.op(shift).results[0];
        let old = ctx.op(buffer.alloc).results[0];
        let ty = ctx.value_type(old);
        let view = create(ctx, "memref.view", vec![arena, shift], vec![ty], loc);
        ctx.insert_op_before(buffer.alloc, view);
        let view = ctx.op(view).results[0];
        ctx.erase_op(buffer.dealloc);
        ctx.replace_all_uses(old, view);
        ctx.erase_op(buffer.alloc);
    }
    let free = create(ctx, loop_::DEALLOC, vec![arena], vec![], loc);
    ctx.insert_op_before(terminator, free);

    let i64_type = ctx.i64();
    for (name, bytes) in [
        ("tb.arena_bytes", arena_bytes),
        ("tb.requested_bytes", requested),
    ] {
        let value = ctx.integer_attr(bytes as i128, i64_type);
        set_attr(ctx, func, name, value);
    }
    Ok(())
}

/// The buffers of `block` that can be planned, in program order.
fn lifetimes(ctx: &Context, block: BlockId) -> Vec<Lifetime> {
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let positions: std::collections::HashMap<OpId, usize> =
        ops.iter().enumerate().map(|(i, &op)| (op, i)).collect();
    let position = |op: OpId| positions.get(&op).copied();
    let mut found = Vec::new();
    for (start, &alloc) in ops.iter().enumerate() {
        if ctx.op_name(alloc) != loop_::ALLOC || !ctx.op(alloc).operands.is_empty() {
            continue;
        }
        let result = ctx.op(alloc).results[0];
        let Some(bytes) = static_bytes(ctx, ctx.value_type(result)) else {
            continue;
        };
        let users: Vec<OpId> = ctx.value(result).uses.iter().map(|u| u.op).collect();
        let deallocs: Vec<OpId> = users
            .iter()
            .copied()
            .filter(|&u| ctx.op_name(u) == loop_::DEALLOC && ctx.op(u).parent == Some(block))
            .collect();
        let [dealloc] = deallocs[..] else {
            continue;
        };
        let Some(end) = position(dealloc) else {
            continue;
        };
        // Every other use must happen while the buffer is live, inside this body, and must
        // not hand the buffer out (a returned buffer belongs to the caller).
        let contained = users.iter().all(|&u| {
            u == dealloc
                || (ctx.op_name(u) != "func.return"
                    && top_level_ancestor(ctx, u, block)
                        .and_then(position)
                        .is_some_and(|p| start < p && p < end))
        });
        if contained {
            found.push(Lifetime {
                alloc,
                dealloc,
                start,
                end,
                bytes,
            });
        }
    }
    found
}

/// The op of `block` that contains `op` (or is it).
fn top_level_ancestor(ctx: &Context, op: OpId, block: BlockId) -> Option<OpId> {
    let mut at = op;
    loop {
        if ctx.op(at).parent == Some(block) {
            return Some(at);
        }
        at = ctx.parent_op(at)?;
    }
}

/// Bytes of a static, identity-layout memref type.
fn static_bytes(ctx: &Context, ty: Type) -> Option<i64> {
    let TypeKind::MemRef {
        shape,
        element,
        layout: None,
        memory_space: None,
    } = ctx.type_kind(ty)
    else {
        return None;
    };
    let element_bytes = match ctx.type_kind(*element) {
        TypeKind::Float(kind) => i64::from(kind.width().div_ceil(8)),
        TypeKind::Integer { width, .. } => i64::from(width.div_ceil(8)),
        TypeKind::Index => 8,
        _ => return None,
    };
    shape.iter().try_fold(element_bytes, |acc, &d| {
        (d >= 0).then(|| acc.checked_mul(d))?
    })
}

fn create(
    ctx: &mut Context,
    name: &str,
    operands: Vec<tb_ir::Value>,
    result_types: Vec<Type>,
    loc: tb_ir::Location,
) -> OpId {
    let name = ctx.intern_op_name(name);
    ctx.create_op(OperationState {
        name,
        operands,
        result_types,
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc,
    })
}

/// Sets the discardable attribute `name` of `op`.
fn set_attr(ctx: &mut Context, op: OpId, name: &str, value: tb_ir::Attr) {
    let mut entries: Vec<(String, tb_ir::Attr)> = ctx
        .dictionary_entries(ctx.op(op).attributes)
        .iter()
        .filter(|(k, _)| k != name)
        .cloned()
        .collect();
    entries.push((name.to_string(), value));
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(op).attributes = dict;
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn buffers_live_apart_share_bytes() {
        // a: [0, 2], b: [1, 3] overlap in time; c: [3, 5] only overlaps b.
        let (offsets, arena) = place(&[(0, 2, 100), (1, 3, 64), (3, 5, 100)]).unwrap();
        assert_eq!(offsets, vec![0, 128, 0]);
        assert_eq!(arena, 192);
    }

    #[test]
    fn buffers_live_together_never_overlap() {
        let spans = [(0, 9, 10), (1, 8, 200), (2, 7, 64), (3, 4, 1000)];
        let (offsets, arena) = place(&spans).unwrap();
        for i in 0..spans.len() {
            for j in 0..i {
                let end = |k: usize| offsets[k] + super::aligned(spans[k].2).unwrap();
                assert!(
                    end(i) <= offsets[j] || end(j) <= offsets[i],
                    "{i} and {j} overlap"
                );
            }
        }
        assert_eq!(arena, 64 + 256 + 64 + 1024);
    }

    #[test]
    fn arenas_beyond_i64_are_refused() {
        assert_eq!(super::aligned(i64::MAX), None);
        // Each buffer fits, two live together do not.
        let half = i64::MAX / 2 + 1;
        assert!(place(&[(0, 2, half), (1, 3, half)]).is_none());
        // Apart in time they share the bytes.
        let big = i64::MAX - 63;
        assert_eq!(place(&[(0, 1, big), (2, 3, big)]), Some((vec![0, 0], big)));
    }
}
