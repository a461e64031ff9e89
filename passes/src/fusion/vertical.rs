//! Vertical fusion: a producer `te.compute` inlined into a consumer by map composition.
//!
//! Each `te.read %producer[m]` of the consumer becomes a copy of the producer's body
//! whose own reads `te.read %x[f]` read `%x[f ∘ m]` over the consumer's domain (padding
//! kept), and the read's value becomes the copy's yielded value. The consumer is then
//! rebuilt with the producer's inputs in place of the producer, so the producer's buffer
//! and its loop nest disappear once nothing else reads it.
//!
//! Preconditions (checked by [`super::plan::decide`]): the producer does not reduce, does
//! not use its indices as values, and the consumer reads it only through unpadded affine
//! reads.

use std::collections::{HashMap, HashSet};

use tb_dialects::te::{self, TeOp};
use tb_ir::ods::OpKind;
use tb_ir::operation::OperationState;
use tb_ir::{Context, OpId, Value};

use super::compose::{compose_reads, set_read_map};

/// Inlines `producer` into every read of it in `consumer`; gives the rebuilt consumer.
/// On an error (a read whose map does not chain) the IR is unchanged.
pub fn inline_producer(ctx: &mut Context, producer: OpId, consumer: OpId) -> Result<OpId, String> {
    let produced = ctx.op(producer).results[0];
    let body = te::body(ctx, producer).ok_or("the producer has no body")?;
    let body_ops: Vec<OpId> = ctx.block_ops(body).collect();
    let Some((&yield_op, computing)) = body_ops.split_last() else {
        return Err("the producer's body is empty".into());
    };
    let yielded = ctx.op(yield_op).operands[0];

    let mut reads = Vec::new();
    ctx.walk_nested(consumer, &mut |op| {
        if ctx.op(op).operands.first() == Some(&produced) {
            reads.push(op);
        }
    });
    // Check every composition before changing anything.
    let mut plans = Vec::with_capacity(reads.len());
    for &read in &reads {
        if TeOp::of(ctx, read) != Some(TeOp::Read) || te::read_padding(ctx, read).is_some() {
            return Err("a read of the producer is not a plain affine read".into());
        }
        let outer = te::read_map(ctx, read)
            .cloned()
            .ok_or("a read has no map")?;
        let mut inner_maps = HashMap::new();
        for &op in computing {
            let mut nested = vec![op];
            ctx.walk_nested(op, &mut |o| nested.push(o));
            for o in nested {
                if TeOp::of(ctx, o) == Some(TeOp::Read) {
                    let map = te::read_map(ctx, o).ok_or("a producer read has no map")?;
                    let composed = compose_reads(map, &outer).ok_or("read maps do not compose")?;
                    inner_maps.insert(o, composed);
                }
            }
        }
        plans.push((read, inner_maps));
    }

    for (read, inner_maps) in plans {
        let mut mapping: HashMap<Value, Value> = HashMap::new();
        for &op in computing {
            let copy = ctx.clone_op(op, &mut mapping);
            ctx.insert_op_before(read, copy);
            // Pair the original nested ops with their copies, in the same pre-order.
            let mut originals = vec![op];
            ctx.walk_nested(op, &mut |o| originals.push(o));
            let mut copies = vec![copy];
            ctx.walk_nested(copy, &mut |o| copies.push(o));
            for (original, copied) in originals.into_iter().zip(copies) {
                if let Some(map) = inner_maps.get(&original) {
                    set_read_map(ctx, copied, map.clone());
                }
            }
        }
        let value = mapping.get(&yielded).copied().unwrap_or(yielded);
        let old = ctx.op(read).results[0];
        ctx.replace_all_uses(old, value);
        ctx.erase_op(read);
    }

    let mut inputs: Vec<Value> = ctx.op(consumer).operands.to_vec();
    inputs.retain(|&v| v != produced);
    inputs.extend(ctx.op(producer).operands.iter().copied());
    let mut seen = HashSet::new();
    inputs.retain(|&v| seen.insert(v));
    Ok(rebuild_with_inputs(ctx, consumer, inputs))
}

/// Replaces `compute` by the same compute (body moved, attributes kept) with `inputs`
/// as its operands; gives the new op.
fn rebuild_with_inputs(ctx: &mut Context, compute: OpId, inputs: Vec<Value>) -> OpId {
    let data = ctx.op(compute);
    let (name, properties, loc) = (data.name, data.properties, data.loc);
    let attributes = ctx.dictionary_entries(data.attributes).to_vec();
    let old_result = data.results[0];
    let old_region = data.regions[0];
    let result_type = ctx.value_type(old_result);
    let rebuilt = ctx.create_op(OperationState {
        name,
        operands: inputs,
        result_types: vec![result_type],
        successors: Vec::new(),
        num_regions: 1,
        properties,
        attributes,
        loc,
    });
    let new_region = ctx.op(rebuilt).regions[0];
    let blocks = ctx.take_blocks(old_region);
    ctx.insert_blocks(new_region, None, &blocks);
    ctx.insert_op_before(compute, rebuilt);
    let new_result = ctx.op(rebuilt).results[0];
    ctx.replace_all_uses(old_result, new_result);
    ctx.erase_op(compute);
    rebuilt
}
