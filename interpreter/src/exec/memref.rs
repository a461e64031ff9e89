//! `memref` ops: allocation, element access, and the view ops (subview, cast,
//! reinterpret_cast, collapse_shape, expand_shape), which make new strided views of the same
//! storage exactly as MLIR's layouts describe them.
//!
//! `memref.view` of a byte buffer as bytes is an ordinary view of the same storage. As another
//! element type it reinterprets bytes, which typed storage cannot model: such a view gets
//! fresh storage (filled with the poison pattern) after its byte range is checked against
//! the source. A program that reads, through one view, bytes another view
//! wrote is therefore not reproduced; planned buffers never do that, and compiled code is
//! compared with the interpreter to catch a plan that overlaps live buffers.

use tb_dialects::memref::MemRefOp;
use tb_ir::attributes::DenseArrayData;
use tb_ir::{AttrKind, OpId, TypeKind};

use super::buffer::{Buffer, contiguous_strides};
use super::loop_::new_buffer;
use super::value::{RtValue, Scalar};
use super::{Env, ExecResult, Handler, Interpreter};

/// MLIR's marker for a dynamic entry in `static_offsets`/`static_sizes`/`static_strides`.
const DYNAMIC: i64 = i64::MIN;

/// The handler of a memref op; `memref.global` is read when the interpreter starts and
/// has nothing to do when reached.
pub(super) fn handler(kind: MemRefOp) -> Option<Handler> {
    use MemRefOp as M;
    Some(match kind {
        M::Alloc | M::Alloca => alloc,
        M::Dealloc => dealloc,
        M::Load => load,
        M::Store => store,
        M::GenericAtomicRmw => generic_atomic_rmw,
        // The terminator: the op running its region reads its operand.
        M::AtomicYield => return None,
        M::Copy => copy,
        M::Cast | M::AssumeAlignment | M::MemorySpaceCast => cast,
        M::DistinctObjects => distinct_objects,
        M::Transpose => transpose,
        M::ExtractStridedMetadata => extract_strided_metadata,
        // Not run yet: reported as an op the interpreter does not support.
        M::AtomicRmw | M::DmaStart | M::DmaWait => return None,
        // A hint only: nothing to do.
        M::Prefetch => prefetch,
        M::Subview => subview,
        M::ReinterpretCast => reinterpret_cast,
        M::CollapseShape => collapse_shape,
        M::ExpandShape => expand_shape,
        M::Dim => dim,
        M::Rank => rank,
        M::GetGlobal => get_global,
        M::View => view,
        M::Realloc => realloc,
        M::Reshape => reshape,
        M::Global => return None,
    })
}

fn operands_from(
    interp: &Interpreter,
    env: &Env,
    op: OpId,
    range: std::ops::Range<usize>,
) -> ExecResult<Vec<i64>> {
    range.map(|i| interp.index_arg(env, op, i)).collect()
}

/// The sizes of an op's operand groups (`operandSegmentSizes`), or one group of all operands.
fn segments(interp: &Interpreter, op: OpId) -> Vec<usize> {
    let ctx = interp.ctx;
    match ctx
        .op_inherent_or_attr(op, "operandSegmentSizes")
        .map(|a| ctx.attr_kind(a))
    {
        Some(AttrKind::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        }) => v.iter().map(|&n| n as usize).collect(),
        _ => vec![ctx.op(op).operands.len()],
    }
}

fn dense_i64s(interp: &Interpreter, op: OpId, name: &str) -> ExecResult<Vec<i64>> {
    let ctx = interp.ctx;
    match ctx.op_inherent_or_attr(op, name).map(|a| ctx.attr_kind(a)) {
        Some(AttrKind::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        }) => Ok(v.iter().map(|&n| n as i64).collect()),
        _ => Err(format!("has no `{name}` array").into()),
    }
}

/// Static entries with each `DYNAMIC` replaced by the next of `dynamic`.
fn mixed(static_values: &[i64], dynamic: &[i64]) -> ExecResult<Vec<i64>> {
    let mut next = dynamic.iter();
    static_values
        .iter()
        .map(|&v| {
            if v == DYNAMIC {
                next.next()
                    .copied()
                    .ok_or_else(|| "fewer dynamic operands than dynamic entries".into())
            } else {
                Ok(v)
            }
        })
        .collect()
}

fn alloc(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    // Operands: dynamic sizes, then layout symbols (which do not change the elements).
    let sizes_count = segments(interp, op)[0];
    let sizes = operands_from(interp, env, op, 0..sizes_count)?;
    let buffer = new_buffer(interp.ctx, interp.result_type(op, 0), &sizes)?;
    interp.set_result(env, op, 0, RtValue::Buffer(buffer))
}

fn dealloc(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    Ok(interp.buffer_arg(env, op, 0)?.free()?)
}

fn load(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    let n = interp.ctx.op(op).operands.len();
    let indices = operands_from(interp, env, op, 1..n)?;
    super::gpu::note_shared_access(interp, op, 0, &buffer, &indices, false)?;
    let v = buffer.load(&indices)?;
    interp.set_result(env, op, 0, RtValue::Scalar(v))
}

fn store(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let value = interp.scalar_arg(env, op, 0)?;
    let buffer = interp.buffer_arg(env, op, 1)?;
    let n = interp.ctx.op(op).operands.len();
    let indices = operands_from(interp, env, op, 2..n)?;
    super::gpu::note_shared_access(interp, op, 1, &buffer, &indices, true)?;
    Ok(buffer.store(&indices, value)?)
}

/// Reads the element, runs the body on it and stores (and gives) the value it yields. The
/// interpreter runs one thread, so the read-modify-write is atomic as it is.
fn generic_atomic_rmw(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    let n = interp.ctx.op(op).operands.len();
    let indices = operands_from(interp, env, op, 1..n)?;
    let current = buffer.load(&indices)?;
    let block = interp
        .ctx
        .op(op)
        .regions
        .first()
        .and_then(|&r| interp.ctx.entry_block(r))
        .ok_or("has no body")?;
    let yielded = interp
        .run_nested_block(env, block, vec![RtValue::Scalar(current)])
        .map_err(|d| super::ExecError::Located(Box::new(d)))?;
    let Some(RtValue::Scalar(new)) = yielded.into_iter().next() else {
        return Err("has a body that yields no scalar".into());
    };
    buffer.store(&indices, new)?;
    interp.set_result(env, op, 0, RtValue::Scalar(new))
}

fn copy(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let target = interp.buffer_arg(env, op, 1)?;
    Ok(target.copy_from(&source)?)
}

/// Ops whose result is the operand's view unchanged.
fn cast(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    interp.set_result(env, op, 0, RtValue::Buffer(buffer))
}

fn prefetch(_: &mut Interpreter, _: &mut Env, _: OpId) -> ExecResult {
    Ok(())
}

/// Each result is its operand's view unchanged.
fn distinct_objects(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    for i in 0..interp.ctx.op(op).operands.len() {
        let buffer = interp.buffer_arg(env, op, i)?;
        interp.set_result(env, op, i, RtValue::Buffer(buffer))?;
    }
    Ok(())
}

/// The operand's view with sizes and strides permuted: result dimension `i` is the
/// dimension the permutation map's result `i` names.
fn transpose(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let ctx = interp.ctx;
    let Some(AttrKind::AffineMap(map)) = ctx
        .op_inherent_or_attr(op, "permutation")
        .map(|a| ctx.attr_kind(a))
    else {
        return Err("transpose needs a permutation map".into());
    };
    let mut perm = Vec::with_capacity(map.results.len());
    for r in &map.results {
        match r {
            tb_ir::affine::AffineExpr::Dim(d) if (*d as usize) < source.rank() => {
                perm.push(*d as usize)
            }
            _ => return Err("transpose needs a permutation of the dimensions".into()),
        }
    }
    let shape = perm.iter().map(|&d| source.shape[d]).collect();
    let strides = perm.iter().map(|&d| source.strides[d]).collect();
    let view = source.view(shape, strides, source.offset);
    interp.set_result(env, op, 0, RtValue::Buffer(view))
}

/// The rank-0 base buffer (the storage from its start), then the offset, sizes and
/// strides of the operand's view.
fn extract_strided_metadata(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let base = source.view(Vec::new(), Vec::new(), 0);
    interp.set_result(env, op, 0, RtValue::Buffer(base))?;
    let metadata = std::iter::once(source.offset)
        .chain(source.shape.iter().copied())
        .chain(source.strides.iter().copied());
    for (i, v) in metadata.enumerate() {
        interp.set_result(env, op, i + 1, RtValue::Scalar(Scalar::Int(v)))?;
    }
    Ok(())
}

/// The offsets, sizes and strides of a subview or reinterpret_cast: each static entry, with
/// `DYNAMIC` ones taken in order from the op's operand group for that list.
fn offsets_sizes_strides(interp: &Interpreter, env: &Env, op: OpId) -> ExecResult<[Vec<i64>; 3]> {
    let seg = segments(interp, op);
    let [_, counts @ ..] = seg.as_slice() else {
        return Err("needs operandSegmentSizes".into());
    };
    if counts.len() != 3 {
        return Err("needs operandSegmentSizes with four groups".into());
    }
    let mut first = 1;
    let mut lists = [Vec::new(), Vec::new(), Vec::new()];
    for (k, name) in ["static_offsets", "static_sizes", "static_strides"]
        .into_iter()
        .enumerate()
    {
        let dynamic = operands_from(interp, env, op, first..first + counts[k])?;
        lists[k] = mixed(&dense_i64s(interp, op, name)?, &dynamic)?;
        first += counts[k];
    }
    Ok(lists)
}

fn subview(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let [offsets, sizes, steps] = offsets_sizes_strides(interp, env, op)?;
    if offsets.len() != source.rank()
        || sizes.len() != source.rank()
        || steps.len() != source.rank()
    {
        return Err("offsets, sizes and strides must each have one entry per dimension".into());
    }
    let mut offset = source.offset;
    for k in 0..source.rank() {
        let last = offsets[k] + (sizes[k] - 1).max(0) * steps[k];
        if sizes[k] > 0 && (offsets[k] < 0 || last >= source.shape[k]) {
            return Err(format!(
                "dimension {k}: offset {} size {} stride {} leaves the source extent {}",
                offsets[k], sizes[k], steps[k], source.shape[k]
            )
            .into());
        }
        offset += offsets[k] * source.strides[k];
    }
    let strides: Vec<i64> = (0..source.rank())
        .map(|k| source.strides[k] * steps[k])
        .collect();
    // A rank-reducing subview drops unit dimensions the result type does not have.
    let result_shape = match interp.ctx.type_kind(interp.result_type(op, 0)) {
        TypeKind::MemRef { shape, .. } => shape.clone(),
        _ => return Err("result is not a memref".into()),
    };
    let mut drops = sizes.len().saturating_sub(result_shape.len());
    let (mut kept_sizes, mut kept_strides) = (Vec::new(), Vec::new());
    for k in 0..sizes.len() {
        let j = kept_sizes.len();
        if drops > 0 && sizes[k] == 1 && (j >= result_shape.len() || result_shape[j] != 1) {
            drops -= 1;
            continue;
        }
        kept_sizes.push(sizes[k]);
        kept_strides.push(strides[k]);
    }
    let view = source.view(kept_sizes, kept_strides, offset);
    interp.set_result(env, op, 0, RtValue::Buffer(view))
}

fn reinterpret_cast(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let [offsets, sizes, strides] = offsets_sizes_strides(interp, env, op)?;
    let offset = *offsets.first().ok_or("needs one offset")?;
    // The new view addresses the source's storage from its base, as MLIR's does.
    let view = source.view(sizes, strides, offset);
    interp.set_result(env, op, 0, RtValue::Buffer(view))
}

fn reassociation(interp: &Interpreter, op: OpId) -> ExecResult<Vec<Vec<usize>>> {
    let ctx = interp.ctx;
    let attr = ctx
        .op_inherent_or_attr(op, "reassociation")
        .ok_or("has no reassociation")?;
    let AttrKind::Array(groups) = ctx.attr_kind(attr) else {
        return Err("reassociation is not an array".into());
    };
    groups
        .iter()
        .map(|&g| match ctx.attr_kind(g) {
            AttrKind::Array(dims) => dims
                .iter()
                .map(|&d| match ctx.attr_kind(d) {
                    AttrKind::Integer { value, .. } => Ok(*value as usize),
                    _ => Err("reassociation entries must be integers".into()),
                })
                .collect(),
            _ => Err("reassociation groups must be arrays".into()),
        })
        .collect()
}

fn collapse_shape(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let groups = reassociation(interp, op)?;
    let (mut shape, mut strides) = (Vec::new(), Vec::new());
    for group in &groups {
        let mut size = 1;
        for (n, &k) in group.iter().enumerate() {
            let k_stride = *source.strides.get(k).ok_or("reassociation out of range")?;
            // Each collapsed group must be contiguous in storage.
            if let Some(&next) = group.get(n + 1)
                && source.shape[next] != 1
                && k_stride != source.strides[next] * source.shape[next]
            {
                return Err(
                    format!("dimensions {group:?} are not contiguous in the source view").into(),
                );
            }
            size *= source.shape[k];
        }
        shape.push(size);
        strides.push(group.last().map_or(1, |&k| source.strides[k]));
    }
    let view = source.view(shape, strides, source.offset);
    interp.set_result(env, op, 0, RtValue::Buffer(view))
}

fn expand_shape(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let groups = reassociation(interp, op)?;
    let n = interp.ctx.op(op).operands.len();
    let output_shape = mixed(
        &dense_i64s(interp, op, "static_output_shape")?,
        &operands_from(interp, env, op, 1..n)?,
    )?;
    if groups.len() != source.rank() {
        return Err("needs one reassociation group per source dimension".into());
    }
    let mut strides = vec![0; output_shape.len()];
    for (k, group) in groups.iter().enumerate() {
        let mut stride = source.strides[k];
        for &d in group.iter().rev() {
            *strides.get_mut(d).ok_or("reassociation out of range")? = stride;
            stride *= output_shape[d];
        }
        let product: i64 = group.iter().map(|&d| output_shape[d]).product();
        if product != source.shape[k] {
            return Err(format!(
                "group {group:?} has {product} elements, source dimension {k} has {}",
                source.shape[k]
            )
            .into());
        }
    }
    let view = source.view(output_shape, strides, source.offset);
    interp.set_result(env, op, 0, RtValue::Buffer(view))
}

/// A new 1-D buffer holding the source's leading elements (the rest is poison); the source
/// is freed, as MLIR's realloc may free it.
fn realloc(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let n = interp.ctx.op(op).operands.len();
    let sizes = operands_from(interp, env, op, 1..n)?;
    let result = new_buffer(interp.ctx, interp.result_type(op, 0), &sizes)?;
    let length = |b: &Buffer| b.shape.first().copied().unwrap_or(0);
    let (old, new) = (length(&source), length(&result));
    for i in 0..old.min(new) {
        result.store(&[i], source.load(&[i])?)?;
    }
    source.free()?;
    interp.set_result(env, op, 0, RtValue::Buffer(result))
}

/// The source's contiguous elements seen with the shape read from a 1-D memref.
fn reshape(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let shape_buffer = interp.buffer_arg(env, op, 1)?;
    if source.strides != contiguous_strides(&source.shape) {
        return Err("reshape of a non-contiguous memref".into());
    }
    let shape = (0..shape_buffer.shape.first().copied().unwrap_or(0))
        .map(|i| shape_buffer.load(&[i]).map(|s| s.as_int()))
        .collect::<Result<Vec<i64>, String>>()?;
    if let Some(&d) = shape.iter().find(|&&d| d < 0) {
        return Err(format!("negative size {d} in the shape operand").into());
    }
    let (old, new) = (
        source.shape.iter().product::<i64>(),
        shape.iter().product::<i64>(),
    );
    if old != new {
        return Err(format!("shape {shape:?} has {new} elements, the source has {old}").into());
    }
    let strides = contiguous_strides(&shape);
    let view = source.view(shape, strides, source.offset);
    interp.set_result(env, op, 0, RtValue::Buffer(view))
}

fn dim(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    let k = interp.index_arg(env, op, 1)?;
    let size = *buffer
        .shape
        .get(usize::try_from(k).map_err(|_| format!("dimension {k} is negative"))?)
        .ok_or_else(|| format!("dimension {k} is out of range for rank {}", buffer.rank()))?;
    interp.set_result(env, op, 0, RtValue::Scalar(Scalar::Int(size)))
}

fn rank(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    interp.set_result(
        env,
        op,
        0,
        RtValue::Scalar(Scalar::Int(buffer.rank() as i64)),
    )
}

fn get_global(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let name = match ctx
        .op_inherent_or_attr(op, "name")
        .map(|a| ctx.attr_kind(a))
    {
        Some(AttrKind::SymbolRef { root, .. }) => root.clone(),
        _ => return Err("has no @name".into()),
    };
    let buffer = interp.global(&name).cloned().ok_or_else(|| {
        format!("@{name} is not a memref.global of the module with a usable initial value")
    })?;
    interp.set_result(env, op, 0, RtValue::Buffer(buffer))
}

/// The storage of a `memref.global`: its initial value, or uninitialized elements.
pub(super) fn global_buffer(interp: &Interpreter, op: OpId) -> Result<Buffer, String> {
    let ctx = interp.ctx;
    let ty = match ctx
        .op_inherent_or_attr(op, "type")
        .map(|a| ctx.attr_kind(a))
    {
        Some(AttrKind::Type(ty)) => *ty,
        _ => return Err("memref.global has no type".into()),
    };
    match ctx.op_inherent_or_attr(op, "initial_value") {
        Some(init) if !matches!(ctx.attr_kind(init), AttrKind::Unit) => {
            match super::attr::attr_to_value(ctx, init, ty)? {
                RtValue::Buffer(b) => Ok(b),
                _ => Err("memref.global initial value is not a memref constant".into()),
            }
        }
        _ => {
            let shape = super::value::static_shape(ctx, ty)?;
            let dtype = super::value::ElemType::of(ctx, ty)?.dtype()?;
            Ok(Buffer::alloc(dtype, shape))
        }
    }
}

fn view(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let source = interp.buffer_arg(env, op, 0)?;
    let shift = interp.index_arg(env, op, 1)?;
    let n = interp.ctx.op(op).operands.len();
    let sizes = operands_from(interp, env, op, 2..n)?;
    let result_ty = interp.result_type(op, 0);
    let buffer = new_buffer(interp.ctx, result_ty, &sizes)?;
    let element_bytes = buffer.dtype().size_in_bytes() as i64;
    let bytes = buffer.shape.iter().product::<i64>() * element_bytes;
    let available = source.shape.iter().product::<i64>();
    source.check_live()?;
    if shift < 0 || shift + bytes > available {
        return Err(format!(
            "views bytes [{shift}, {}) of a {available}-byte buffer",
            shift + bytes
        )
        .into());
    }
    let buffer = if buffer.dtype() == source.dtype() {
        let strides = super::buffer::contiguous_strides(&buffer.shape);
        source.view(buffer.shape.clone(), strides, source.offset + shift)
    } else {
        buffer
    };
    interp.set_result(env, op, 0, RtValue::Buffer(buffer))
}
