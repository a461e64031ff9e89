//! Canonicalization patterns of `arith`: reassociating constants so chains of
//! additions or multiplications by constants become one op, as MLIR does.

use super::fold::wrap;
use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{Attr, Context, OpId, TypeKind, Value};

/// `op(op(x, c0), c1)` → `op(x, c0 ∘ c1)` for an associative integer op.
struct ReassociateConstants {
    op_name: &'static str,
    debug_name: &'static str,
    combine: fn(i128, i128) -> i128,
}

fn scalar_int(ctx: &Context, v: Value) -> Option<(i128, OpId)> {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return None;
    };
    let attr: Attr = constant_value(ctx, op)?;
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => Some((*value, op)),
        _ => None,
    }
}

impl RewritePattern for ReassociateConstants {
    fn debug_name(&self) -> &'static str {
        self.debug_name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.op_name)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let (inner_value, outer_const) = (data.operands[0], data.operands[1]);
        let Some((c1, _)) = scalar_int(ctx, outer_const) else {
            return false;
        };
        let ValueDef::Result { op: inner, .. } = ctx.value(inner_value).def else {
            return false;
        };
        if ctx.op_name(inner) != self.op_name {
            return false;
        }
        let Some((c0, _)) = scalar_int(ctx, ctx.op(inner).operands[1]) else {
            return false;
        };
        let x = ctx.op(inner).operands[0];
        let ty = ctx.value_type(data.results[0]);
        let width = match ctx.type_kind(ty) {
            TypeKind::Integer { width, .. } => *width,
            TypeKind::Index => 64,
            _ => return false,
        };
        let loc = data.loc;
        let name = data.name;
        let value = wrap((self.combine)(c0, c1), width);
        let ctx = rewriter.ctx_mut();
        let attr = ctx.integer_attr(value, ty);
        let constant_props = ctx.dictionary_attr(vec![("value".to_string(), attr)]);
        let constant_name = ctx.intern_op_name("arith.constant");
        let none = tb_ir::ods::default_value(ctx, "#arith.overflow<none>");
        let props = ctx.dictionary_attr(vec![("overflowFlags".to_string(), none)]);
        let c = rewriter.create_op_before(
            op,
            OperationState {
                name: constant_name,
                operands: vec![],
                result_types: vec![ty],
                successors: vec![],
                num_regions: 0,
                properties: Some(constant_props),
                attributes: vec![],
                loc,
            },
        );
        let c = rewriter.ctx().op(c).results[0];
        let new = rewriter.create_op_before(
            op,
            OperationState {
                name,
                operands: vec![x, c],
                result_types: vec![ty],
                successors: vec![],
                num_regions: 0,
                properties: Some(props),
                attributes: vec![],
                loc,
            },
        );
        let result = rewriter.ctx().op(new).results[0];
        rewriter.replace_op(op, &[result]);
        true
    }
}

pub(crate) fn addi(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReassociateConstants {
        op_name: "arith.addi",
        debug_name: "AddIAddConstant",
        combine: i128::wrapping_add,
    }));
}

pub(crate) fn muli(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReassociateConstants {
        op_name: "arith.muli",
        debug_name: "MulIMulIConstant",
        combine: i128::wrapping_mul,
    }));
}

/// An op named `name` on `operands`, built right before `before`.
fn create_before(
    rewriter: &mut Rewriter,
    before: OpId,
    name: &str,
    operands: Vec<Value>,
    result: tb_ir::Type,
    properties: Vec<(String, Attr)>,
) -> Value {
    let ctx = rewriter.ctx_mut();
    let loc = ctx.op(before).loc;
    let name = ctx.intern_op_name(name);
    let properties = (!properties.is_empty()).then(|| ctx.dictionary_attr(properties));
    let op = rewriter.create_op_before(
        before,
        OperationState {
            name,
            operands,
            result_types: vec![result],
            successors: vec![],
            num_regions: 0,
            properties,
            attributes: vec![],
            loc,
        },
    );
    rewriter.ctx().op(op).results[0]
}

/// An extended op whose second result (carry or high half) is unused is the plain op:
/// `addui_extended` → `addi`, `mul*_extended` → `muli`.
struct ExtendedToPlain {
    op_name: &'static str,
    debug_name: &'static str,
    plain: &'static str,
}

impl RewritePattern for ExtendedToPlain {
    fn debug_name(&self) -> &'static str {
        self.debug_name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.op_name)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let (first, second) = (data.results[0], data.results[1]);
        if !ctx.value(second).uses.is_empty() {
            return false;
        }
        let operands = data.operands.to_vec();
        let ty = ctx.value_type(first);
        let none = tb_ir::ods::default_value(rewriter.ctx_mut(), "#arith.overflow<none>");
        let properties = vec![("overflowFlags".to_string(), none)];
        let plain = create_before(rewriter, op, self.plain, operands, ty, properties);
        rewriter.replace_all_uses(first, plain);
        rewriter.erase_op(op);
        true
    }
}

/// `mulsi_extended(x, 1)` is `x`, with `x`'s sign as the high half:
/// `extsi(cmpi slt, x, 0)`.
struct MulSIExtendedByOne;

impl RewritePattern for MulSIExtendedByOne {
    fn debug_name(&self) -> &'static str {
        "MulSIExtendedRHSOne"
    }

    fn root(&self) -> Option<&'static str> {
        Some("arith.mulsi_extended")
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let (x, one) = (data.operands[0], data.operands[1]);
        let ty = ctx.value_type(x);
        let element = tb_ir::ods::constraint::element_or_self(ctx, ty);
        // `index` has no sign extension to spell the high half with.
        if !matches!(ctx.type_kind(element), TypeKind::Integer { .. }) || !is_one(ctx, one) {
            return false;
        }
        let ctx = rewriter.ctx_mut();
        let zero_attr = match ctx.type_kind(ty) {
            TypeKind::Integer { .. } => ctx.integer_attr(0, ty),
            _ => ctx.intern_attr(AttrKind::DenseElements {
                ty,
                data: tb_ir::attributes::DenseData {
                    splat: true,
                    elements: vec![tb_ir::attributes::DenseElement::Int(0)],
                },
            }),
        };
        let i1 = ctx.i1();
        let bool_ty = super::fold::with_element(ctx, ty, i1);
        let i64_ty = ctx.integer_type(64, tb_ir::Signedness::Signless);
        let predicate = ctx.integer_attr(super::attrs::CmpIPredicate::Slt as i128, i64_ty);
        let zero = create_before(
            rewriter,
            op,
            "arith.constant",
            vec![],
            ty,
            vec![("value".to_string(), zero_attr)],
        );
        let negative = create_before(
            rewriter,
            op,
            "arith.cmpi",
            vec![x, zero],
            bool_ty,
            vec![("predicate".to_string(), predicate)],
        );
        let high = create_before(rewriter, op, "arith.extsi", vec![negative], ty, vec![]);
        rewriter.replace_op(op, &[x, high]);
        true
    }
}

/// Whether `v` is a constant one (scalar or splat).
fn is_one(ctx: &Context, v: Value) -> bool {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return false;
    };
    let Some(attr) = constant_value(ctx, op) else {
        return false;
    };
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => *value == 1,
        AttrKind::DenseElements { data, .. } => {
            data.splat
                && matches!(
                    data.elements.first(),
                    Some(tb_ir::attributes::DenseElement::Int(1))
                )
        }
        _ => false,
    }
}

pub(crate) fn addui_extended(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExtendedToPlain {
        op_name: "arith.addui_extended",
        debug_name: "AddUIExtendedToAddI",
        plain: "arith.addi",
    }));
}

pub(crate) fn mulsi_extended(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExtendedToPlain {
        op_name: "arith.mulsi_extended",
        debug_name: "MulSIExtendedToMulI",
        plain: "arith.muli",
    }));
    patterns.add(Box::new(MulSIExtendedByOne));
}

pub(crate) fn mului_extended(patterns: &mut PatternSet) {
    patterns.add(Box::new(ExtendedToPlain {
        op_name: "arith.mului_extended",
        debug_name: "MulUIExtendedToMulI",
        plain: "arith.muli",
    }));
}
