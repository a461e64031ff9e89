//! `memref.extract_strided_metadata`: the base buffer, offset, sizes and strides of a
//! strided memref, as MLIR 22 has it: results inferred from the source type, offsets,
//! sizes and strides the type pins down replaced by constants, a cast before it looked
//! through; and the `reinterpret_cast` of such metadata that rebuilds the very memref
//! becomes that memref (through a cast when the types differ).

use tb_ir::attributes::AttrKind;
use tb_ir::printer::type_to_string;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind, Value};

use super::canonicalize::{create, replace_with_cast};
use super::index_list::{Mixed, constant_index};
use super::layout::{Described, MemRef};
use super::offsets::Slice;
use super::verify::op_error;

/// The result types MLIR infers: a rank-0 memref of the element type and memory space,
/// then `index` for the offset, each size and each stride.
pub(crate) fn inferred_types(ctx: &mut Context, source: Type) -> Option<Vec<Type>> {
    let m = MemRef::of(ctx, source)?;
    let base = ctx.intern_type(TypeKind::MemRef {
        shape: vec![],
        element: m.element,
        layout: None,
        memory_space: m.memory_space,
    });
    let index = ctx.index_type();
    let mut types = vec![base, index];
    types.extend(std::iter::repeat_n(index, 2 * m.rank()));
    Some(types)
}

pub(crate) fn infer(
    ctx: &mut Context,
    input: &tb_ir::registry::InferInput,
) -> Result<Vec<Type>, String> {
    let source = *input
        .operand_types
        .first()
        .ok_or("extract_strided_metadata needs a source")?;
    inferred_types(ctx, source).ok_or_else(|| "expected a ranked memref source".to_string())
}

/// The results must be the inferred ones, in number and type.
pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let source = ctx.value_type(data.operands[0]);
    let Some(m) = MemRef::of(ctx, source) else {
        return Ok(());
    };
    let is_index = |t: Type| matches!(ctx.type_kind(t), TypeKind::Index);
    let results: Vec<Type> = data.results.iter().map(|&r| ctx.value_type(r)).collect();
    let base = Described {
        shape: vec![],
        element: m.element,
        strided: None,
        memory_space: m.memory_space,
    };
    let base_ok = results.first().is_some_and(|&b| base.is(ctx, b));
    let rest_ok = results.len() == 2 + 2 * m.rank() && results[1..].iter().all(|&t| is_index(t));
    if base_ok && rest_ok {
        return Ok(());
    }

    let list = |types: &[String]| {
        types
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut inferred = vec![base.to_text(ctx)];
    inferred.extend(std::iter::repeat_n("index".to_string(), 1 + 2 * m.rank()));
    let actual: Vec<String> = results.iter().map(|&t| type_to_string(ctx, t)).collect();
    op_error(
        ctx,
        op,
        format!(
            "inferred type(s) {} are incompatible with return type(s) of operation {}",
            list(&inferred),
            list(&actual)
        ),
    )
}

/// What the source type says of the offset, sizes and strides (`?` where it says
/// nothing).
fn static_metadata(ctx: &Context, source: Type) -> Option<(i64, Vec<i64>, Vec<i64>)> {
    let m = MemRef::of(ctx, source)?;
    let (strides, offset) = m.strides_and_offset(ctx)?;
    Some((offset, m.shape, strides))
}

/// Entries known from the type become static; the others stay as they are.
fn constify(entries: &[Mixed], known: &[i64]) -> Vec<Mixed> {
    entries
        .iter()
        .zip(known)
        .map(|(&e, &k)| if k != DYNAMIC { Mixed::Static(k) } else { e })
        .collect()
}

/// The offset, sizes and strides of an extract_strided_metadata, constant where its
/// source type is static.
fn constified_metadata(ctx: &Context, op: OpId) -> Option<[Vec<Mixed>; 3]> {
    let data = ctx.op(op);
    let (offset, shape, strides) = static_metadata(ctx, ctx.value_type(data.operands[0]))?;
    let rank = shape.len();
    if data.results.len() != 2 + 2 * rank {
        return None;
    }
    let dynamic =
        |values: &[Value]| -> Vec<Mixed> { values.iter().map(|&v| Mixed::Dynamic(v)).collect() };
    Some([
        constify(&dynamic(&data.results[1..2]), &[offset]),
        constify(&dynamic(&data.results[2..2 + rank]), &shape),
        constify(&dynamic(&data.results[2 + rank..]), &strides),
    ])
}

/// MLIR's fold of `extract_strided_metadata`, as one rewrite: uses of an offset, size or
/// stride the source type makes static take a constant, and the op reads the source of a
/// `memref.cast` of a ranked memref (a cast changes no metadata). Both happen in the same
/// step, as in MLIR, so the cast is dead (and goes) before the next sweep hoists the new
/// constants, which therefore keep the order they were made in.
struct MetadataFold;

impl RewritePattern for MetadataFold {
    fn debug_name(&self) -> &'static str {
        "ExtractStridedMetadataFold"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::EXTRACT_STRIDED_METADATA)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let constants = replace_constant_uses(op, rewriter);
        let cast = read_through_cast(op, rewriter);
        constants || cast
    }
}

/// Gives the used results the source type makes static a constant each.
fn replace_constant_uses(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let Some(lists) = constified_metadata(ctx, op) else {
        return false;
    };
    let results = ctx.op(op).results[1..].to_vec();
    let replacements: Vec<(Value, i64)> = results
        .iter()
        .zip(lists.iter().flatten())
        .filter_map(|(&r, e)| match e {
            // Only used results get a constant: an unused one would loop forever.
            Mixed::Static(c) if !ctx.value(r).uses.is_empty() => Some((r, *c)),
            _ => None,
        })
        .collect();
    if replacements.is_empty() {
        return false;
    }
    let index = rewriter.ctx_mut().index_type();
    for (result, value) in replacements {
        let attr = rewriter.ctx_mut().intern_attr(AttrKind::Integer {
            value: value as i128,
            ty: index,
        });
        let constant = create(
            rewriter,
            op,
            "arith.constant",
            vec![],
            vec![index],
            vec![("value".to_string(), attr)],
        );
        let constant = rewriter.ctx().op(constant).results[0];
        rewriter.replace_all_uses(result, constant);
    }
    true
}

/// `extract_strided_metadata(cast(%x))` reads `%x` when `%x` is ranked.
fn read_through_cast(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let Some(cast) = ctx
        .defining_op(ctx.op(op).operands[0])
        .filter(|&c| ctx.op_name(c) == super::CAST)
    else {
        return false;
    };
    let source = ctx.op(cast).operands[0];
    if MemRef::of(ctx, ctx.value_type(source)).is_none() {
        return false;
    }
    rewriter.set_operand(op, 0, source);
    true
}

/// Two entries are the same: the same static number, the same value, or a value that is
/// a constant equal to the static number.
fn same_entry(ctx: &Context, a: Mixed, b: Mixed) -> bool {
    match (a, b) {
        (Mixed::Dynamic(x), Mixed::Dynamic(y)) => x == y,
        (Mixed::Static(x), Mixed::Static(y)) => x == y,
        (Mixed::Static(x), Mixed::Dynamic(v)) | (Mixed::Dynamic(v), Mixed::Static(x)) => {
            constant_index(ctx, v) == Some(x)
        }
    }
}

/// The offset, sizes and strides of a reinterpret_cast, static where its result type or
/// a constant operand says so.
fn constified_reinterpret(ctx: &Context, op: OpId) -> Option<[Vec<Mixed>; 3]> {
    let slice = Slice::of(ctx, op)?;
    let result = ctx.value_type(ctx.op(op).results[0]);
    let (offset, shape, strides) = static_metadata(ctx, result)?;
    let known_constants = |entries: Vec<Mixed>| -> Vec<Mixed> {
        entries
            .into_iter()
            .map(|e| match e.constant(ctx) {
                Some(c) => Mixed::Static(c),
                None => e,
            })
            .collect()
    };
    Some([
        known_constants(constify(&slice.offsets, &[offset])),
        known_constants(constify(&slice.sizes, &shape)),
        known_constants(constify(&slice.strides, &strides)),
    ])
}

/// `reinterpret_cast(extract_strided_metadata(%x))` that rebuilds `%x`'s own offset,
/// sizes and strides is `%x` (cast to the result type when it differs); otherwise the
/// reinterpret_cast takes `%x` as its source, which holds the same buffer.
struct ReinterpretOfMetadata;

impl RewritePattern for ReinterpretOfMetadata {
    fn debug_name(&self) -> &'static str {
        "ReinterpretCastOpExtractStridedMetadataFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::REINTERPRET_CAST)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(metadata) = ctx
            .defining_op(ctx.op(op).operands[0])
            .filter(|&m| ctx.op_name(m) == super::EXTRACT_STRIDED_METADATA)
        else {
            return false;
        };
        let source = ctx.op(metadata).operands[0];
        let (Some(from), Some(to)) = (
            constified_metadata(ctx, metadata),
            constified_reinterpret(ctx, op),
        ) else {
            return false;
        };
        let same_list = |a: &[Mixed], b: &[Mixed]| {
            a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| same_entry(ctx, x, y))
        };
        let noop = same_list(&from[2], &to[2])
            && same_list(&from[1], &to[1])
            && same_list(&from[0], &to[0]);
        if noop {
            replace_with_cast(rewriter, op, source);
        } else {
            rewriter.set_operand(op, 0, source);
        }
        true
    }
}

pub(crate) fn extract_strided_metadata(patterns: &mut PatternSet) {
    patterns.add(Box::new(MetadataFold));
}

pub(crate) fn reinterpret_cast(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReinterpretOfMetadata));
}
