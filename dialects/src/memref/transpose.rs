//! `memref.transpose`: the same buffer with its dimensions permuted, only the sizes and
//! strides of the type change. MLIR 22's syntax (`%m (d0, d1) -> (d1, d0) : T to U`),
//! verifier and folds: an identity permutation to the same type is its input, and a
//! transpose of a transpose is one transpose by the composed permutation.

use tb_ir::affine::{AffineBinaryKind, AffineExpr, AffineMap};
use tb_ir::asm::{OpAsmParser, OpAsmPrinter, OperationParseState};
use tb_ir::attributes::AttrKind;
use tb_ir::parser::PResult;
use tb_ir::printer::type_to_string;
use tb_ir::registry::FoldResult;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, Diagnostic, OpId};

use super::layout::{Described, MemRef, canonical_strides};
use super::verify::op_error;

const PERMUTATION: &str = "permutation";

fn permutation(ctx: &Context, op: OpId) -> Option<&AffineMap> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, PERMUTATION)?) {
        AttrKind::AffineMap(map) => Some(map),
        _ => None,
    }
}

/// The dimension each result of a permutation map reads.
fn positions(map: &AffineMap) -> Option<Vec<usize>> {
    map.results
        .iter()
        .map(|r| match r {
            AffineExpr::Dim(d) => Some(*d as usize),
            _ => None,
        })
        .collect()
}

/// `%in <map> attr-dict : T to U`
pub(crate) fn parse(p: &mut OpAsmParser, state: &mut OperationParseState) -> PResult<()> {
    let input = p.parse_operand()?;
    let map = p.parse_affine_map()?;
    for (k, v) in p.parse_optional_attr_dict()? {
        state.add_attr(&k, v);
    }
    p.parse_literal(":")?;
    let source_ty = p.parse_type()?;
    state.operands = vec![p.resolve_operand(&input, source_ty)?];
    p.parse_literal("to")?;
    state.result_types = vec![p.parse_type()?];
    let attr = p.ctx().intern_attr(AttrKind::AffineMap(map));
    state.add_attr(PERMUTATION, attr);
    Ok(())
}

pub(crate) fn print(p: &mut OpAsmPrinter, op: OpId) {
    let data = p.ctx().op(op);
    let (input, result) = (data.operands[0], data.results[0]);
    p.print_str(" ");
    p.print_value(input);
    if let Some(map) = permutation(p.ctx(), op) {
        let text = format!(" {map}");
        p.print_str(&text);
    }
    p.print_optional_attr_dict(op, &[PERMUTATION], false);
    p.print_str(" : ");
    let (ty_in, ty_out) = (p.ctx().value_type(input), p.ctx().value_type(result));
    p.print_type(ty_in);
    p.print_str(" to ");
    p.print_type(ty_out);
}

/// The strided type of `source` with sizes and strides permuted by `perm`.
fn transposed(ctx: &Context, source: &MemRef, perm: &[usize]) -> Option<Described> {
    let (strides, offset) = source.strides_and_offset(ctx)?;
    Some(Described {
        shape: perm.iter().map(|&d| source.shape[d]).collect(),
        element: source.element,
        strided: Some((perm.iter().map(|&d| strides[d]).collect(), offset)),
        memory_space: source.memory_space,
    })
}

/// Whether `ty` is `expected` up to how the layout is written (strided or affine map).
fn equivalent(ctx: &Context, ty: &MemRef, expected: &Described) -> bool {
    ty.shape == expected.shape
        && ty.element == expected.element
        && ty.memory_space == expected.memory_space
        && ty.strides_and_offset(ctx) == Some(expected.strides_and_offset())
}

pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(map) = permutation(ctx, op) else {
        return Ok(());
    };
    if !map.is_permutation() {
        return op_error(ctx, op, "expected a permutation map".to_string());
    }
    let data = ctx.op(op);
    let (Some(source), Some(result)) = (
        MemRef::of(ctx, ctx.value_type(data.operands[0])),
        MemRef::of(ctx, ctx.value_type(data.results[0])),
    ) else {
        return Ok(());
    };
    if map.num_dims as usize != source.rank() {
        return op_error(
            ctx,
            op,
            "expected a permutation map of same rank as the input".to_string(),
        );
    }
    let Some(expected) = positions(map).and_then(|perm| transposed(ctx, &source, &perm)) else {
        return Ok(());
    };
    if equivalent(ctx, &result, &expected) {
        return Ok(());
    }
    op_error(
        ctx,
        op,
        format!(
            "result type '{}' is not equivalent to the canonical transposed input type '{}'",
            type_to_string(ctx, ctx.value_type(data.results[0])),
            canonical_text(ctx, &expected)
        ),
    )
}

/// The strided layout `strides`/`offset` as MLIR's linear layout map: the offset (a
/// symbol if dynamic) plus each dim times its stride (a symbol if dynamic), simplified.
fn linear_layout_map(strides: &[i64], offset: i64) -> AffineMap {
    let mut symbols = 0u32;
    let mut next = |v: i64| {
        if v == DYNAMIC {
            symbols += 1;
            AffineExpr::Symbol(symbols - 1)
        } else {
            AffineExpr::Constant(v)
        }
    };
    let mut expr = next(offset);
    for (d, &s) in strides.iter().enumerate() {
        let term = AffineExpr::binary(AffineBinaryKind::Mul, AffineExpr::dim(d as u32), next(s));
        expr = AffineExpr::binary(AffineBinaryKind::Add, expr, term);
    }
    AffineMap::new(strides.len() as u32, symbols, vec![expr]).simplify()
}

/// `ty` as MLIR prints its canonical strided form: no layout when it is the row-major
/// one, else its linear layout map.
fn canonical_text(ctx: &Context, ty: &Described) -> String {
    let (strides, offset) = ty.strides_and_offset();
    let plain = Described {
        strided: None,
        ..ty.clone()
    };
    let text = plain.to_text(ctx);
    if offset == 0 && strides == canonical_strides(&ty.shape) {
        return text;
    }
    let map = format!(", affine_map<{}>", linear_layout_map(&strides, offset));
    // The layout goes right after the element type, before any memory space.
    let element = type_to_string(ctx, ty.element);
    let at = text
        .find(&format!("x{element}"))
        .map(|i| i + 1 + element.len());
    let at = at.unwrap_or_else(|| "memref<".len() + element.len());
    format!("{}{}{}", &text[..at], map, &text[at..])
}

/// An identity permutation to the input's own type is the input.
pub(crate) fn fold(ctx: &Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let (input, result) = (data.operands[0], data.results[0]);
    (permutation(ctx, op)?.is_identity() && ctx.value_type(input) == ctx.value_type(result))
        .then(|| vec![FoldResult::Value(input)])
}

/// `transpose(transpose(%x, p), q)` → `transpose(%x, q ∘ p)`, in place.
struct ComposeTransposes;

impl RewritePattern for ComposeTransposes {
    fn debug_name(&self) -> &'static str {
        "TransposeOfTranspose"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::TRANSPOSE)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(inner) = ctx
            .defining_op(ctx.op(op).operands[0])
            .filter(|&i| ctx.op_name(i) == super::TRANSPOSE)
        else {
            return false;
        };
        let (Some(outer_map), Some(inner_map)) = (permutation(ctx, op), permutation(ctx, inner))
        else {
            return false;
        };
        let Some(composed) = outer_map.try_compose(inner_map) else {
            return false;
        };
        let source = ctx.op(inner).operands[0];
        let attr = rewriter
            .ctx_mut()
            .intern_attr(AttrKind::AffineMap(composed.simplify()));
        rewriter.set_operand(op, 0, source);
        rewriter.set_property(op, PERMUTATION, attr);
        true
    }
}

pub(crate) fn canonicalize(patterns: &mut PatternSet) {
    patterns.add(Box::new(ComposeTransposes));
}
