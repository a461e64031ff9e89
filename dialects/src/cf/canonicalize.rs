//! Canonicalization patterns of the `cf` ops, after MLIR's: branches on constants become
//! unconditional, branches whose choices agree collapse, a block reached by one `cf.br`
//! only is merged into its predecessor, branches skip blocks that only forward to another
//! block, and assertions of `true` go away.

use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::value::ValueDef;
use tb_ir::{BlockId, Context, OpId, Value};

use tb_ir::ods::OpKind;

use super::{BR, CfOp, case_values, successor_operands};

mod same_condition;

pub(crate) fn br_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(MergeSinglePredecessor));
    patterns.add(Box::new(SkipForwardingBlocks { root: BR }));
}

pub(crate) fn cond_br_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(ConstantCondition));
    patterns.add(Box::new(IdenticalSuccessors));
    patterns.add(Box::new(same_condition::CondBranchOnKnownCondition));
    patterns.add(Box::new(SkipForwardingBlocks {
        root: super::COND_BR,
    }));
}

pub(crate) fn switch_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(ResolveSwitch));
    patterns.add(Box::new(DropCasesLikeDefault));
    patterns.add(Box::new(same_condition::SwitchOnKnownCase));
    patterns.add(Box::new(same_condition::SwitchAfterDefault));
    patterns.add(Box::new(SkipForwardingBlocks {
        root: super::SWITCH,
    }));
}

pub(crate) fn assert_patterns(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseAssertTrue));
}

/// The integer constant `value` is, if its producer is a constant.
fn constant_int(ctx: &Context, value: Value) -> Option<i128> {
    let ValueDef::Result { op, .. } = ctx.value(value).def else {
        return None;
    };
    match ctx.attr_kind(constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// Replaces the branch `op` by `cf.br dest(operands)`.
fn replace_with_br(rewriter: &mut Rewriter, op: OpId, dest: BlockId, operands: Vec<Value>) {
    let ctx = rewriter.ctx_mut();
    let state = OperationState {
        name: ctx.intern_op_name(BR),
        operands,
        result_types: Vec::new(),
        successors: vec![dest],
        num_regions: 0,
        properties: None,
        attributes: Vec::new(),
        loc: ctx.op(op).loc,
    };
    rewriter.create_op_before(op, state);
    rewriter.erase_op(op);
}

/// Every (successor index) by which the terminators of `block`'s region reach `block`.
fn predecessor_count(ctx: &Context, block: BlockId) -> usize {
    let Some(region) = ctx.block(block).parent else {
        return 0;
    };
    ctx.region(region)
        .blocks
        .iter()
        .filter_map(|&b| ctx.block_terminator(b))
        .map(|t| ctx.op(t).successors.iter().filter(|&&s| s == block).count())
        .sum()
}

/// `cf.assert %true, "..."` checks nothing.
struct EraseAssertTrue;

impl RewritePattern for EraseAssertTrue {
    fn debug_name(&self) -> &'static str {
        "cf-erase-assert-true"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::ASSERT)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let condition = rewriter.ctx().op(op).operands[0];
        if constant_int(rewriter.ctx(), condition) != Some(-1)
            && constant_int(rewriter.ctx(), condition) != Some(1)
        {
            return false;
        }
        rewriter.erase_op(op);
        true
    }
}

/// `cf.cond_br %const, ^a, ^b` always takes one side.
struct ConstantCondition;

impl RewritePattern for ConstantCondition {
    fn debug_name(&self) -> &'static str {
        "cf-cond-br-constant-condition"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::COND_BR)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(condition) = constant_int(ctx, ctx.op(op).operands[0]) else {
            return false;
        };
        let index = if condition != 0 { 0 } else { 1 };
        let Some(operands) = successor_operands(ctx, op, index) else {
            return false;
        };
        let dest = ctx.op(op).successors[index];
        replace_with_br(rewriter, op, dest, operands);
        true
    }
}

/// `cf.cond_br %c, ^a(%x), ^a(%y)` goes to `^a` either way, with `arith.select %c, %x, %y`
/// for each value that differs.
struct IdenticalSuccessors;

impl RewritePattern for IdenticalSuccessors {
    fn debug_name(&self) -> &'static str {
        "cf-cond-br-identical-successors"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::COND_BR)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let successors = &ctx.op(op).successors;
        if successors[0] != successors[1] {
            return false;
        }
        let (Some(on_true), Some(on_false)) = (
            successor_operands(ctx, op, 0),
            successor_operands(ctx, op, 1),
        ) else {
            return false;
        };
        let dest = successors[0];
        let condition = ctx.op(op).operands[0];
        let loc = ctx.op(op).loc;
        let mut operands = Vec::with_capacity(on_true.len());
        for (t, f) in on_true.into_iter().zip(on_false) {
            if t == f {
                operands.push(t);
                continue;
            }
            let ctx = rewriter.ctx_mut();
            let ty = ctx.value_type(t);
            let state = OperationState {
                name: ctx.intern_op_name("arith.select"),
                operands: vec![condition, t, f],
                result_types: vec![ty],
                successors: Vec::new(),
                num_regions: 0,
                properties: None,
                attributes: Vec::new(),
                loc,
            };
            let select = rewriter.create_op_before(op, state);
            operands.push(rewriter.ctx().op(select).results[0]);
        }
        replace_with_br(rewriter, op, dest, operands);
        true
    }
}

/// `cf.switch` on a constant, or with only a default, goes to one known destination.
struct ResolveSwitch;

impl RewritePattern for ResolveSwitch {
    fn debug_name(&self) -> &'static str {
        "cf-switch-resolve"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::SWITCH)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(values) = case_values(ctx, op) else {
            return false;
        };
        let index = if values.is_empty() {
            0
        } else {
            let Some(flag) = constant_int(ctx, ctx.op(op).operands[0]) else {
                return false;
            };
            let width = match ctx.type_kind(ctx.value_type(ctx.op(op).operands[0])) {
                tb_ir::TypeKind::Integer { width, .. } => *width,
                _ => return false,
            };
            values
                .iter()
                .position(|&v| same_bits(v, flag, width))
                .map_or(0, |case| case + 1)
        };
        let Some(operands) = successor_operands(ctx, op, index) else {
            return false;
        };
        let dest = ctx.op(op).successors[index];
        replace_with_br(rewriter, op, dest, operands);
        true
    }
}

/// Whether two integers are the same `width`-bit pattern (attributes of one type may be
/// stored sign- or zero-extended).
fn same_bits(a: i128, b: i128, width: u32) -> bool {
    if width >= 128 {
        return a == b;
    }
    let mask = (1u128 << width) - 1;
    (a as u128) & mask == (b as u128) & mask
}

/// Cases that go where the default goes, with the same operands, are dropped.
struct DropCasesLikeDefault;

impl RewritePattern for DropCasesLikeDefault {
    fn debug_name(&self) -> &'static str {
        "cf-switch-drop-cases-like-default"
    }
    fn root(&self) -> Option<&'static str> {
        Some(super::SWITCH)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let successors = ctx.op(op).successors.to_vec();
        let (Some(values), Some(default_operands)) =
            (case_values(ctx, op), successor_operands(ctx, op, 0))
        else {
            return false;
        };
        let mut kept = Vec::new();
        for (case, &value) in values.iter().enumerate() {
            let Some(operands) = successor_operands(ctx, op, case + 1) else {
                return false;
            };
            if successors[case + 1] != successors[0] || operands != default_operands {
                kept.push((value, successors[case + 1], operands));
            }
        }
        if kept.len() == values.len() {
            return false;
        }
        let flag = ctx.op(op).operands[0];
        let state = switch_state(
            rewriter.ctx_mut(),
            op,
            flag,
            (successors[0], default_operands),
            kept,
        );
        rewriter.create_op_before(op, state);
        rewriter.erase_op(op);
        true
    }
}

/// A `cf.switch` like `op` (same flag, location and other attributes) with these
/// destinations.
fn switch_state(
    ctx: &mut Context,
    op: OpId,
    flag: Value,
    default: (BlockId, Vec<Value>),
    cases: Vec<(i128, BlockId, Vec<Value>)>,
) -> OperationState {
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let i32_array = |ctx: &mut Context, values: Vec<i128>| {
        ctx.intern_attr(AttrKind::DenseArray {
            element: i32_ty,
            data: tb_ir::attributes::DenseArrayData::Int(values),
        })
    };
    let mut operands = vec![flag];
    operands.extend(&default.1);
    let mut successors = vec![default.0];
    let mut segments = Vec::new();
    let mut values = Vec::new();
    let mut case_total = 0;
    for (value, block, args) in &cases {
        values.push(*value);
        successors.push(*block);
        segments.push(args.len() as i128);
        case_total += args.len();
        operands.extend(args);
    }
    let sizes = i32_array(ctx, vec![1, default.1.len() as i128, case_total as i128]);
    let segments = i32_array(ctx, segments);
    let mut properties = vec![
        ("operandSegmentSizes".to_string(), sizes),
        ("case_operand_segments".to_string(), segments),
    ];
    if !values.is_empty() {
        let flag_type = ctx.value_type(flag);
        let vector = ctx.intern_type(tb_ir::TypeKind::Vector {
            shape: vec![values.len() as i64],
            scalable: vec![false],
            element: flag_type,
        });
        let splat = values.iter().all(|&v| v == values[0]);
        let elements = if splat { &values[..1] } else { &values[..] };
        let attr = ctx.intern_attr(AttrKind::DenseElements {
            ty: vector,
            data: tb_ir::attributes::DenseData {
                splat,
                elements: elements
                    .iter()
                    .map(|&v| tb_ir::attributes::DenseElement::Int(v))
                    .collect(),
            },
        });
        properties.push(("case_values".to_string(), attr));
    }
    let properties = ctx.dictionary_attr(properties);
    let attributes = ctx.dictionary_entries(ctx.op(op).attributes).to_vec();
    OperationState {
        name: ctx.op(op).name,
        operands,
        result_types: Vec::new(),
        successors,
        num_regions: 0,
        properties: Some(properties),
        attributes,
        loc: ctx.op(op).loc,
    }
}

/// `cf.br ^b(%x)` where `^b` has no other predecessor: `^b`'s ops move into this block,
/// its arguments replaced by what the branch passed.
struct MergeSinglePredecessor;

impl RewritePattern for MergeSinglePredecessor {
    fn debug_name(&self) -> &'static str {
        "cf-br-merge-single-predecessor"
    }
    fn root(&self) -> Option<&'static str> {
        Some(BR)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let dest = ctx.op(op).successors[0];
        let Some(current) = ctx.op(op).parent else {
            return false;
        };
        if dest == current || predecessor_count(ctx, dest) != 1 {
            return false;
        }
        let Some(operands) = successor_operands(ctx, op, 0) else {
            return false;
        };
        rewriter.inline_block_before(dest, op, &operands);
        rewriter.erase_op(op);
        true
    }
}

/// A successor that only forwards to another block (its one op is a `cf.br`) is skipped:
/// the branch goes to the final block directly, with the forwarded values.
struct SkipForwardingBlocks {
    root: &'static str,
}

impl RewritePattern for SkipForwardingBlocks {
    fn debug_name(&self) -> &'static str {
        "cf-skip-forwarding-blocks"
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let successors = ctx.op(op).successors.to_vec();
        let mut targets = Vec::with_capacity(successors.len());
        let mut changed = false;
        for (index, &block) in successors.iter().enumerate() {
            let Some(operands) = successor_operands(ctx, op, index) else {
                return false;
            };
            match forwarded(ctx, block, &operands) {
                Some(target) => {
                    targets.push(target);
                    changed = true;
                }
                None => targets.push((block, operands)),
            }
        }
        if !changed {
            return false;
        }
        let state = match CfOp::of(ctx, op) {
            Some(CfOp::Br) => {
                let (dest, operands) = targets.remove(0);
                let loc = ctx.op(op).loc;
                let attributes = ctx.dictionary_entries(ctx.op(op).attributes).to_vec();
                OperationState {
                    name: ctx.op(op).name,
                    operands,
                    result_types: Vec::new(),
                    successors: vec![dest],
                    num_regions: 0,
                    properties: None,
                    attributes,
                    loc,
                }
            }
            Some(CfOp::CondBr) => cond_br_state(rewriter.ctx_mut(), op, targets),
            Some(CfOp::Switch) => {
                let Some(values) = case_values(ctx, op) else {
                    return false;
                };
                let flag = ctx.op(op).operands[0];
                let default = targets.remove(0);
                let cases = values
                    .into_iter()
                    .zip(targets)
                    .map(|(v, (b, args))| (v, b, args))
                    .collect();
                switch_state(rewriter.ctx_mut(), op, flag, default, cases)
            }
            _ => return false,
        };
        rewriter.create_op_before(op, state);
        rewriter.erase_op(op);
        true
    }
}

/// Where `block`, entered with `operands`, goes when its only op is a `cf.br` to another
/// block: that block, with the br's operands (the block's arguments replaced by
/// `operands`).
fn forwarded(ctx: &Context, block: BlockId, operands: &[Value]) -> Option<(BlockId, Vec<Value>)> {
    let mut ops = ctx.block_ops(block);
    let only = ops.next()?;
    if ops.next().is_some() || CfOp::of(ctx, only) != Some(CfOp::Br) {
        return None;
    }
    let target = ctx.op(only).successors[0];
    if target == block {
        return None;
    }
    let params = &ctx.block(block).args;
    let passed = successor_operands(ctx, only, 0)?
        .into_iter()
        .map(|v| match params.iter().position(|&p| p == v) {
            Some(i) => operands[i],
            None => v,
        })
        .collect();
    Some((target, passed))
}

/// A `cf.cond_br` like `op` (same condition, weights, location and other attributes) with
/// these two destinations.
fn cond_br_state(
    ctx: &mut Context,
    op: OpId,
    targets: Vec<(BlockId, Vec<Value>)>,
) -> OperationState {
    let condition = ctx.op(op).operands[0];
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let sizes = ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: tb_ir::attributes::DenseArrayData::Int(vec![
            1,
            targets[0].1.len() as i128,
            targets[1].1.len() as i128,
        ]),
    });
    let mut properties = vec![("operandSegmentSizes".to_string(), sizes)];
    if let Some(weights) = ctx.op_inherent_or_attr(op, "branch_weights") {
        properties.push(("branch_weights".to_string(), weights));
    }
    let properties = ctx.dictionary_attr(properties);
    let attributes = ctx.dictionary_entries(ctx.op(op).attributes).to_vec();
    let mut operands = vec![condition];
    operands.extend(&targets[0].1);
    operands.extend(&targets[1].1);
    OperationState {
        name: ctx.op(op).name,
        operands,
        result_types: Vec::new(),
        successors: vec![targets[0].0, targets[1].0],
        num_regions: 0,
        properties: Some(properties),
        attributes,
        loc: ctx.op(op).loc,
    }
}
