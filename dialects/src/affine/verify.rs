//! Verifiers of the `affine` ops, with MLIR 22's messages: operand counts against maps and
//! sets, dims and symbols valid in the op's affine scope ([`super::scope`]), memref ranks
//! and vector element types, loop-carried values, `affine.parallel` groups and reductions,
//! and bases of the index (de)linearizations. The DMA ops verify in [`super::dma`].

use tb_ir::affine::AffineMap;
use tb_ir::{Context, Diagnostic, OpId, Type, TypeKind, Value};

use super::scope::{affine_scope, is_valid_dim, is_valid_symbol};
use super::{APPLY, DYNAMIC_BASIS, FOR, IF, PARALLEL, REDUCTION_KINDS};

fn error(ctx: &Context, op: OpId, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(ctx.op(op).loc, message.into())
}

pub(super) fn op_error(ctx: &Context, op: OpId, message: impl std::fmt::Display) -> Diagnostic {
    error(ctx, op, format!("'{}' op {message}", ctx.op_name(op)))
}

fn required_map(ctx: &Context, op: OpId, name: &str) -> Result<AffineMap, Diagnostic> {
    super::map_named(ctx, op, name)
        .ok_or_else(|| op_error(ctx, op, format!("requires attribute '{name}'")))
}

/// MLIR's `verifyDimAndSymbolIdentifiers`: the first `num_dims` operands are valid dims,
/// the others valid symbols, in the op's affine scope.
pub(super) fn check_dims_and_symbols(
    ctx: &Context,
    op: OpId,
    operands: &[Value],
    num_dims: usize,
) -> Result<(), Diagnostic> {
    let scope = affine_scope(ctx, op);
    for (i, &operand) in operands.iter().enumerate() {
        if i < num_dims {
            if !is_valid_dim(ctx, operand, scope) {
                return Err(op_error(
                    ctx,
                    op,
                    "operand cannot be used as a dimension id",
                ));
            }
        } else if !is_valid_symbol(ctx, operand, scope) {
            return Err(op_error(ctx, op, "operand cannot be used as a symbol"));
        }
    }
    Ok(())
}

pub(crate) fn map_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let map = required_map(ctx, op, "map")?;
    let operands = &ctx.op(op).operands;
    if operands.len() != map.num_inputs() as usize {
        return Err(op_error(
            ctx,
            op,
            "operand count and affine map dimension and symbol count must match",
        ));
    }
    if ctx.op_name(op) != APPLY {
        if map.num_results() == 0 {
            return Err(op_error(ctx, op, "affine map expect at least one result"));
        }
        return Ok(());
    }
    if map.num_results() != 1 {
        return Err(op_error(ctx, op, "mapping must produce one value"));
    }
    // A value that is a dim but not a symbol (an induction variable) may not be a symbol;
    // other values are allowed, as MLIR allows them.
    let scope = affine_scope(ctx, op);
    for &operand in &operands[map.num_dims as usize..] {
        if is_valid_dim(ctx, operand, scope) && !is_valid_symbol(ctx, operand, scope) {
            return Err(error(
                ctx,
                op,
                "dimensional operand cannot be used as a symbol",
            ));
        }
    }
    Ok(())
}

pub(crate) fn for_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let lower = required_map(ctx, op, "lowerBoundMap")?;
    let upper = required_map(ctx, op, "upperBoundMap")?;
    if super::step(ctx, op).is_none_or(|s| s < 0) {
        return Err(op_error(
            ctx,
            op,
            "expected step to be representable as a positive signed integer",
        ));
    }
    let lower_operands = super::lower_operands(ctx, op);
    let upper_operands = super::upper_operands(ctx, op);
    if lower_operands.len() != lower.num_inputs() as usize {
        return Err(op_error(
            ctx,
            op,
            "lower bound operand count does not equal lower bound map input count",
        ));
    }
    if upper_operands.len() != upper.num_inputs() as usize {
        return Err(op_error(
            ctx,
            op,
            "upper bound operand count does not equal upper bound map input count",
        ));
    }
    let body = super::region_block(ctx, op, 0);
    let args = body.map(|b| ctx.block(b).args.to_vec()).unwrap_or_default();
    let index_iv = args
        .first()
        .is_some_and(|&iv| matches!(ctx.type_kind(ctx.value_type(iv)), TypeKind::Index));
    if !index_iv {
        return Err(op_error(
            ctx,
            op,
            "expected body to have a single index argument for the induction variable",
        ));
    }
    check_dims_and_symbols(ctx, op, lower_operands, lower.num_dims as usize)?;
    check_dims_and_symbols(ctx, op, upper_operands, upper.num_dims as usize)?;
    if lower.num_results() == 0 {
        return Err(op_error(
            ctx,
            op,
            "expected lower bound map to have at least one result",
        ));
    }
    if upper.num_results() == 0 {
        return Err(op_error(
            ctx,
            op,
            "expected upper bound map to have at least one result",
        ));
    }
    let results = ctx.op(op).results.len();
    let inits = super::inits(ctx, op);
    if inits.len() != results {
        return Err(op_error(
            ctx,
            op,
            "mismatch between the number of loop-carried values and results",
        ));
    }
    if args.len() != results + 1 {
        return Err(op_error(
            ctx,
            op,
            "mismatch between the number of basic block args and results",
        ));
    }
    for (i, (&init, &arg)) in inits.iter().zip(&args[1..]).enumerate() {
        let ty = ctx.value_type(ctx.op(op).results[i]);
        if ctx.value_type(init) != ty || ctx.value_type(arg) != ty {
            return Err(op_error(
                ctx,
                op,
                format!("types mismatch between {i}th iter operand and defined value"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn if_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(set) = super::condition(ctx, op) else {
        return Err(op_error(
            ctx,
            op,
            "requires an integer set attribute named 'condition'",
        ));
    };
    for index in 0..2 {
        if super::region_block(ctx, op, index).is_some_and(|b| !ctx.block(b).args.is_empty()) {
            return Err(op_error(
                ctx,
                op,
                format!("region #{index} should have no arguments"),
            ));
        }
    }
    let operands = &ctx.op(op).operands;
    if operands.len() != set.num_inputs() as usize {
        return Err(op_error(
            ctx,
            op,
            "operand count and condition integer set dimension and symbol count must match",
        ));
    }
    check_dims_and_symbols(ctx, op, operands, set.num_dims as usize)
}

pub(crate) fn yield_op(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(parent) = ctx.parent_op(op) else {
        return Err(op_error(
            ctx,
            op,
            "only terminates affine.if/for/parallel regions",
        ));
    };
    if !matches!(ctx.op_name(parent), FOR | IF | PARALLEL) {
        return Err(op_error(
            ctx,
            op,
            "only terminates affine.if/for/parallel regions",
        ));
    }
    let results = &ctx.op(parent).results;
    let operands = &ctx.op(op).operands;
    if results.len() != operands.len() {
        return Err(op_error(
            ctx,
            op,
            "parent of yield must have same number of results as the yield operands",
        ));
    }
    for (&r, &v) in results.iter().zip(operands.iter()) {
        if ctx.value_type(r) != ctx.value_type(v) {
            return Err(op_error(
                ctx,
                op,
                "types mismatch between yield op and its parent",
            ));
        }
    }
    Ok(())
}

fn memref_rank_and_element(ctx: &Context, memref: Value) -> Option<(usize, Type)> {
    match ctx.type_kind(ctx.value_type(memref)) {
        TypeKind::MemRef { shape, element, .. } => Some((shape.len(), *element)),
        _ => None,
    }
}

/// The map of a load/store/prefetch against the memref's rank and its subscripts.
fn check_access(
    ctx: &Context,
    op: OpId,
    memref: Value,
    indices: &[Value],
) -> Result<(), Diagnostic> {
    let map = required_map(ctx, op, "map")?;
    let rank = memref_rank_and_element(ctx, memref).map_or(0, |(r, _)| r);
    if map.num_results() != rank {
        return Err(op_error(
            ctx,
            op,
            "affine map num results must equal memref rank",
        ));
    }
    if map.num_inputs() as usize != indices.len() {
        return Err(op_error(
            ctx,
            op,
            "expects as many subscripts as affine map inputs",
        ));
    }
    check_dims_and_symbols(ctx, op, indices, map.num_dims as usize)
}

pub(crate) fn load(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let memref = data.operands[0];
    if let Some((_, element)) = memref_rank_and_element(ctx, memref)
        && ctx.value_type(data.results[0]) != element
    {
        return Err(op_error(
            ctx,
            op,
            "result type must match element type of memref",
        ));
    }
    check_access(ctx, op, memref, &data.operands[1..])
}

pub(crate) fn store(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let memref = data.operands[1];
    if let Some((_, element)) = memref_rank_and_element(ctx, memref)
        && ctx.value_type(data.operands[0]) != element
    {
        return Err(op_error(
            ctx,
            op,
            "value to store must have the same type as memref element type",
        ));
    }
    check_access(ctx, op, memref, &data.operands[2..])
}

/// `affine.vector_load`/`vector_store`: the access as for a scalar load, then the vector's
/// element type against the memref's (a memref of vectors is not a vector access).
fn check_vector_access(
    ctx: &Context,
    op: OpId,
    vector: Type,
    memref: Value,
    indices: &[Value],
) -> Result<(), Diagnostic> {
    check_access(ctx, op, memref, indices)?;
    let memref_element = memref_rank_and_element(ctx, memref).map(|(_, e)| e);
    let vector_element = match ctx.type_kind(vector) {
        TypeKind::Vector { element, .. } => Some(*element),
        _ => None,
    };
    if memref_element != vector_element {
        return Err(op_error(
            ctx,
            op,
            "requires memref and vector types of the same elemental type",
        ));
    }
    Ok(())
}

pub(crate) fn vector_load(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let vector = ctx.value_type(data.results[0]);
    check_vector_access(ctx, op, vector, data.operands[0], &data.operands[1..])
}

pub(crate) fn vector_store(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let vector = ctx.value_type(data.operands[0]);
    check_vector_access(ctx, op, vector, data.operands[1], &data.operands[2..])
}

pub(crate) fn prefetch(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let map = required_map(ctx, op, "map")?;
    let rank = memref_rank_and_element(ctx, data.operands[0]).map_or(0, |(r, _)| r);
    if map.num_results() != rank {
        return Err(op_error(
            ctx,
            op,
            "affine.prefetch affine map num results must equal memref rank",
        ));
    }
    if map.num_inputs() as usize + 1 != data.operands.len() {
        return Err(op_error(ctx, op, "too few operands"));
    }
    let scope = affine_scope(ctx, op);
    for &index in &data.operands[1..] {
        if !is_valid_dim(ctx, index, scope) && !is_valid_symbol(ctx, index, scope) {
            return Err(op_error(
                ctx,
                op,
                "index must be a dimension or symbol identifier",
            ));
        }
    }
    Ok(())
}

/// Whether a result of type `ty` can hold a reduction of kind `kind`.
fn reduction_fits(ctx: &Context, kind: &str, ty: Type) -> bool {
    let float = matches!(
        kind,
        "addf" | "maximumf" | "maxnumf" | "minimumf" | "minnumf" | "mulf"
    );
    let is_float = tb_ir::ods::constraint::is_float(ctx, ty);
    let is_int = matches!(ctx.type_kind(ty), TypeKind::Integer { .. });
    match kind {
        "assign" => true,
        _ if float => is_float,
        _ => is_int,
    }
}

pub(crate) fn parallel(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some((lower, upper)) = super::parallel_bounds(ctx, op) else {
        return Err(op_error(ctx, op, "requires its bound maps and groups"));
    };
    let steps = ctx
        .op_inherent_or_attr(op, "steps")
        .and_then(|a| super::int_array(ctx, a))
        .unwrap_or_default();
    let args = super::region_block(ctx, op, 0).map_or(0, |b| ctx.block(b).args.len());
    if lower.groups.len() != steps.len() || upper.groups.len() != steps.len() || args != steps.len()
    {
        return Err(op_error(
            ctx,
            op,
            format!(
                "the number of region arguments ({args}) and the number of map groups for \
                 lower ({}) and upper bound ({}), and the number of steps ({}) must all match",
                lower.groups.len(),
                upper.groups.len(),
                steps.len()
            ),
        ));
    }
    for (bounds, which) in [(&lower, "lower"), (&upper, "upper")] {
        if bounds.groups.contains(&0) {
            return Err(op_error(
                ctx,
                op,
                format!("expected {which} bound map to have at least one result"),
            ));
        }
        let expected: usize = bounds.groups.iter().sum();
        if expected != bounds.map.num_results() {
            return Err(op_error(
                ctx,
                op,
                format!("expected {which} bounds map to have {expected} results"),
            ));
        }
    }
    let reductions = ctx
        .op_inherent_or_attr(op, "reductions")
        .and_then(|a| super::int_array(ctx, a))
        .unwrap_or_default();
    let results = &ctx.op(op).results;
    if reductions.len() != results.len() {
        return Err(op_error(
            ctx,
            op,
            "a reduction must be specified for each output",
        ));
    }
    for (&kind, &result) in reductions.iter().zip(results.iter()) {
        let Some(name) = usize::try_from(kind)
            .ok()
            .and_then(|k| REDUCTION_KINDS.get(k))
        else {
            return Err(op_error(ctx, op, "invalid reduction attribute"));
        };
        if !reduction_fits(ctx, name, ctx.value_type(result)) {
            return Err(op_error(
                ctx,
                op,
                "result type cannot match reduction attribute",
            ));
        }
    }
    let operands = &ctx.op(op).operands;
    let split = (lower.map.num_inputs() as usize).min(operands.len());
    check_dims_and_symbols(ctx, op, &operands[..split], lower.map.num_dims as usize)?;
    check_dims_and_symbols(ctx, op, &operands[split..], upper.map.num_dims as usize)
}

fn check_basis(ctx: &Context, op: OpId, dynamic: usize) -> Result<Vec<i64>, Diagnostic> {
    let basis = super::static_basis(ctx, op)
        .ok_or_else(|| op_error(ctx, op, "requires attribute 'static_basis'"))?;
    let markers = basis.iter().filter(|&&b| b == DYNAMIC_BASIS).count();
    if markers != dynamic {
        return Err(op_error(
            ctx,
            op,
            "mismatch between dynamic and static basis (kDynamic marker but no corresponding \
             dynamic basis entry) -- this can only happen due to an incorrect fold/rewrite",
        ));
    }
    Ok(basis)
}

fn check_positive(ctx: &Context, op: OpId, basis: &[i64]) -> Result<(), Diagnostic> {
    if basis.iter().any(|&b| b != DYNAMIC_BASIS && b <= 0) {
        return Err(op_error(
            ctx,
            op,
            "no basis element may be statically non-positive",
        ));
    }
    Ok(())
}

pub(crate) fn delinearize(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let basis = super::static_basis(ctx, op).unwrap_or_default();
    let results = data.results.len();
    if results != basis.len() && results != basis.len() + 1 {
        return Err(op_error(
            ctx,
            op,
            "should return an index for each basis element and up to one extra index",
        ));
    }
    let basis = check_basis(ctx, op, data.operands.len() - 1)?;
    check_positive(ctx, op, &basis)
}

pub(crate) fn linearize(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let indices = tb_ir::ods::operand_group(ctx, op, 0).len();
    let dynamic = tb_ir::ods::operand_group(ctx, op, 1).len();
    let basis = super::static_basis(ctx, op).unwrap_or_default();
    if indices != basis.len() && indices != basis.len() + 1 {
        return Err(op_error(
            ctx,
            op,
            "should be passed a basis element for each index except possibly the first",
        ));
    }
    let basis = check_basis(ctx, op, dynamic)?;
    check_positive(ctx, op, &basis)
}
