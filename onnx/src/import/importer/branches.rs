//! A run-time `If` as a `graph.if`: each branch's nodes are imported into a block of their
//! own (they read outer values by name, as the regions use them), which ends in a
//! `graph.yield` of the branch's results; both branches must give the same static types.
//!
//! A `Loop` or `Scan` as a `graph.loop` or `graph.scan`: the body's nodes are imported into
//! the op's block, whose arguments stand for the body's inputs. Loop-carried values and
//! states must keep their type across iterations, and every scan output needs a length
//! known at import time: a Loop's is its trip count, when `M` is known and the condition
//! cannot stop the loop earlier (it is omitted or known true, and the body passes it on
//! unchanged or yields a constant true).

use tb_interpreter::Tensor;
use tb_ir::{BlockId, Context, Location, Type, Value};

use super::super::attrs::ints_attr;
use super::super::error::{Problem, ProblemKind};
use super::super::node::{Branch, LoopPlan, ScanPlan};
use super::super::types::{tensor_parts, tensor_type};
use super::{Importer, Known, create};
use crate::proto::NodeProto;

/// A body imported into a block: the block, its arguments and the values it yields.
struct ImportedBody {
    block: BlockId,
    args: Vec<Value>,
    yielded: Vec<Value>,
}

fn type_name(ctx: &Context, ty: Type) -> String {
    tb_ir::printer::type_to_string(ctx, ty)
}

/// The node's name for messages: `'name'`, or its first output's when it has none.
fn node_name(node: &NodeProto) -> String {
    if node.name.is_empty() {
        format!(
            "with output '{}'",
            node.output.first().map_or("", String::as_str)
        )
    } else {
        format!("'{}'", node.name)
    }
}

impl Importer<'_> {
    pub(super) fn build_if(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        node: &NodeProto,
        branches: [Branch; 2],
        loc: Location,
    ) -> Result<(), Problem> {
        let condition = self.value(ctx, &node.input[0])?;
        let outer = self.body;
        let problems_before = self.problems.len();
        let mut blocks = Vec::new();
        let mut yielded: Vec<Vec<Value>> = Vec::new();
        for branch in branches {
            let block = ctx.create_block();
            self.body = block;
            let values = self.import_branch(ctx, opset, index, branch);
            self.body = outer;
            blocks.push(block);
            match values? {
                Some(v) => yielded.push(v),
                // The failing node inside the branch has reported why.
                None => {
                    self.fail_outputs(node);
                    return Ok(());
                }
            }
        }
        if self.problems.len() > problems_before {
            self.fail_outputs(node);
            return Ok(());
        }
        let types =
            |vals: &[Value]| -> Vec<Type> { vals.iter().map(|&v| ctx.value_type(v)).collect() };
        let (then_types, else_types) = (types(&yielded[0]), types(&yielded[1]));
        if let Some(k) = (0..then_types.len()).find(|&k| then_types[k] != else_types[k]) {
            let name = |t: Type| tb_ir::printer::type_to_string(ctx, t);
            return Err(Problem::new(
                ProblemKind::UnsupportedFeature,
                format!(
                    "output #{k} is {} in the then branch but {} in the else branch: both \
                     branches must give the same static shape",
                    name(then_types[k]),
                    name(else_types[k])
                ),
            ));
        }
        for (block, values) in blocks.iter().zip(yielded) {
            let term = create(ctx, "graph.yield", values, vec![], 0, None, loc);
            ctx.append_op(*block, term);
        }
        let op = create(ctx, "graph.if", vec![condition], then_types, 2, None, loc);
        for (k, block) in blocks.into_iter().enumerate() {
            ctx.append_block(ctx.op(op).regions[k], block);
        }
        ctx.append_op(self.body, op);
        let results = ctx.op(op).results.to_vec();
        for (name, v) in node.output.iter().zip(results) {
            if name.is_empty() {
                continue;
            }
            let known = Known {
                ty: ctx.value_type(v),
                value: Some(v),
                constant: None,
                foldable: false,
            };
            self.define(ctx, name, known);
        }
        Ok(())
    }

    /// The 0-d form of a one-element value (a trip count or condition): itself, or a
    /// `graph.reshape` appended to the current block.
    fn scalar(&mut self, ctx: &mut Context, v: Value, loc: Location) -> Result<Value, Problem> {
        let (shape, dtype) = tensor_parts(ctx, ctx.value_type(v))
            .ok_or_else(|| Problem::invalid("a trip count or condition is not a static tensor"))?;
        if shape.is_empty() {
            return Ok(v);
        }
        let shape_attr = ints_attr(ctx, &[]);
        let ty = tensor_type(ctx, &[], dtype);
        let state = tb_dialects::graph::builder::op_state_with_types(
            ctx,
            "graph.reshape",
            vec![v],
            vec![("shape".to_string(), shape_attr)],
            vec![ty],
            loc,
        );
        let op = ctx.create_op(state);
        ctx.append_op(self.body, op);
        Ok(ctx.op(op).results[0])
    }

    /// A constant the importer materializes under `name` (a Loop's omitted `M`/`cond`).
    fn constant_value(
        &mut self,
        ctx: &mut Context,
        name: String,
        t: Tensor,
    ) -> Result<Value, Problem> {
        let known = Known {
            ty: tensor_type(ctx, t.shape(), t.dtype()),
            value: None,
            constant: Some(t),
            foldable: true,
        };
        self.values.insert(name.clone(), known);
        self.value(ctx, &name)
    }

    /// Imports `body` into a new block whose arguments, of `arg_types`, stand for its
    /// inputs; `None` when a node failed (it reported why).
    fn import_body(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        body: Branch,
        arg_types: &[Type],
        loc: Location,
    ) -> Result<Option<ImportedBody>, Problem> {
        let block = ctx.create_block();
        let mut args = Vec::new();
        let detached = block;
        for (name, &ty) in body.inputs.iter().zip(arg_types) {
            let v = ctx.add_block_argument(block, ty, Some(loc));
            args.push(v);
            let known = Known {
                ty,
                value: Some(v),
                constant: None,
                foldable: false,
            };
            self.values.insert(name.clone(), known);
        }
        let outer = self.body;
        let problems_before = self.problems.len();
        self.body = block;
        let values = self.import_branch(ctx, opset, index, body);
        self.body = outer;
        match values? {
            Some(yielded) if self.problems.len() == problems_before => Ok(Some(ImportedBody {
                block,
                args,
                yielded,
            })),
            _ => {
                // What the failed body built goes, so that it uses no outer value.
                ctx.erase_block(detached);
                Ok(None)
            }
        }
    }

    /// Imports an unrolled Loop: its body copies in the model's opset, the nodes giving
    /// its outputs in opset-13 form.
    fn import_unrolled(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        unrolled: super::super::node::Unrolled,
    ) {
        self.import_expansion(ctx, opset, index, unrolled.body);
        self.import_expansion(
            ctx,
            super::super::version_convert::CONVERTED_OPSET,
            index,
            unrolled.glue,
        );
    }

    /// Ends the body's block in a `graph.yield`, builds the op around it and defines the
    /// node's outputs as its results.
    fn finish_region_op(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        op: tb_ir::OpId,
        body: ImportedBody,
        loc: Location,
    ) {
        let term = create(ctx, "graph.yield", body.yielded, vec![], 0, None, loc);
        ctx.append_op(body.block, term);
        ctx.append_block(ctx.op(op).regions[0], body.block);
        ctx.append_op(self.body, op);
        let results = ctx.op(op).results.to_vec();
        for (name, v) in node.output.iter().zip(results) {
            if name.is_empty() {
                continue;
            }
            let known = Known {
                ty: ctx.value_type(v),
                value: Some(v),
                constant: None,
                foldable: false,
            };
            self.define(ctx, name, known);
        }
    }

    /// Loop-carried values (or states) that the body yields with another type than they
    /// entered with: refused, naming the first.
    fn check_carried(
        &self,
        ctx: &Context,
        what: &str,
        entered: &[Type],
        yielded: &[Value],
        names: &[String],
    ) -> Result<(), Problem> {
        for (k, (&ty, &v)) in entered.iter().zip(yielded).enumerate() {
            let out = ctx.value_type(v);
            if out != ty {
                return Err(Problem::new(
                    ProblemKind::UnsupportedFeature,
                    format!(
                        "{what} #{k} ('{}') enters the body as {} but leaves it as {}: a \
                         {what} whose shape changes across iterations is not supported",
                        // The body's own name for it, without the importer's prefix.
                        names
                            .get(k)
                            .and_then(|n| n.rsplit("/tb.body/").next())
                            .unwrap_or(""),
                        type_name(ctx, ty),
                        type_name(ctx, out)
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn build_loop(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        node: &NodeProto,
        plan: LoopPlan,
        loc: Location,
    ) -> Result<(), Problem> {
        let first = node.output.first().cloned().unwrap_or_default();
        let present = |i: usize| node.input.get(i).filter(|n| !n.is_empty());
        let trip_count = match present(0) {
            Some(m) => {
                let v = self.value(ctx, m)?;
                self.scalar(ctx, v, loc)?
            }
            // No `M`: as onnxruntime, the largest trip count.
            None => self.constant_value(
                ctx,
                format!("{first}/tb.loop.trip_count"),
                Tensor::scalar(i64::MAX),
            )?,
        };
        let condition = match present(1) {
            Some(c) => {
                let v = self.value(ctx, c)?;
                self.scalar(ctx, v, loc)?
            }
            None => self.constant_value(
                ctx,
                format!("{first}/tb.loop.condition"),
                Tensor::scalar(true),
            )?,
        };
        let mut inits = Vec::new();
        for name in node.input.iter().skip(2) {
            inits.push(self.value(ctx, name)?);
        }
        let carried: Vec<Type> = inits.iter().map(|&v| ctx.value_type(v)).collect();
        let mut arg_types = vec![ctx.value_type(trip_count), ctx.value_type(condition)];
        arg_types.extend(&carried);
        let names = plan.body.results.clone();
        let problems_before = self.problems.len();
        let imported = self.import_body(ctx, opset, index, plan.body, &arg_types, loc)?;
        let Some(mut body) = imported else {
            // A body that needs its iteration number as a constant (a Slice bound computed
            // from it) is imported unrolled instead, when the loop allows it.
            let new = &self.problems[problems_before..];
            if let Some(unrolled) = plan.unrolled
                && !new.is_empty()
                && new.iter().all(|p| p.kind == ProblemKind::NotConstant)
            {
                self.problems.truncate(problems_before);
                self.import_unrolled(ctx, opset, index, unrolled);
                return Ok(());
            }
            self.fail_outputs(node);
            return Ok(());
        };
        // The condition the body yields, in its 0-d form.
        let outer = self.body;
        self.body = body.block;
        let next = self.scalar(ctx, body.yielded[0], loc);
        self.body = outer;
        body.yielded[0] = next?;
        if ctx.value_type(body.yielded[0]) != arg_types[1] {
            return Err(Problem::invalid(format!(
                "the body's condition output is {}, not a bool tensor of one element",
                type_name(ctx, ctx.value_type(body.yielded[0]))
            )));
        }
        self.check_carried(
            ctx,
            "loop-carried value",
            &carried,
            &body.yielded[1..],
            &names[1..],
        )?;
        let scans = &body.yielded[1 + carried.len()..];
        let mut result_types = carried.clone();
        if !scans.is_empty() {
            let passes_condition_on = body.yielded[0] == body.args[1]
                || names
                    .first()
                    .and_then(|n| self.values.get(n))
                    .is_some_and(|k| {
                        k.constant
                            .as_ref()
                            .is_some_and(|t| t.to_f64_vec().first() == Some(&1.0))
                    });
            let length = match plan.trip_count {
                Some(m) if plan.starts_true && passes_condition_on => m.max(0),
                _ => {
                    return Err(Problem::new(
                        ProblemKind::UnsupportedFeature,
                        format!(
                            "scan outputs of Loop {} have a length known only at run time \
                             ({}); TensorBind compiles static shapes only",
                            node_name(node),
                            if plan.trip_count.is_none() {
                                "its trip count M is omitted or computed at run time"
                            } else {
                                "its condition may stop it before M iterations"
                            }
                        ),
                    ));
                }
            };
            for &v in scans {
                let (mut shape, dtype) = tensor_parts(ctx, ctx.value_type(v))
                    .ok_or_else(|| Problem::invalid("a scan value is not a static tensor"))?;
                shape.insert(0, length);
                result_types.push(tensor_type(ctx, &shape, dtype));
            }
        }
        let mut operands = vec![trip_count, condition];
        operands.extend(inits);
        let op = create(ctx, "graph.loop", operands, result_types, 1, None, loc);
        self.finish_region_op(ctx, node, op, body, loc);
        Ok(())
    }

    pub(super) fn build_scan(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        node: &NodeProto,
        plan: ScanPlan,
        loc: Location,
    ) -> Result<(), Problem> {
        let mut operands = Vec::new();
        for name in &node.input {
            operands.push(self.value(ctx, name)?);
        }
        let num_states = operands.len() - plan.num_scan_inputs;
        let states: Vec<Type> = operands[..num_states]
            .iter()
            .map(|&v| ctx.value_type(v))
            .collect();
        let mut arg_types = states.clone();
        let mut length = None;
        for (k, &v) in operands[num_states..].iter().enumerate() {
            let (mut shape, dtype) = tensor_parts(ctx, ctx.value_type(v))
                .ok_or_else(|| Problem::invalid("a scan input is not a static tensor"))?;
            let axis = plan.input_axes[k] as usize;
            let n = shape.remove(axis);
            if length.is_some_and(|l| l != n) {
                return Err(Problem::invalid(format!(
                    "scan input '{}' has {n} slices along axis {axis} but the first scan input \
                     has {}",
                    node.input[num_states + k],
                    length.unwrap_or(0)
                )));
            }
            length = Some(n);
            arg_types.push(tensor_type(ctx, &shape, dtype));
        }
        let length = length.unwrap_or(0);
        let names = plan.body.results.clone();
        let Some(body) = self.import_body(ctx, opset, index, plan.body, &arg_types, loc)? else {
            self.fail_outputs(node);
            return Ok(());
        };
        self.check_carried(ctx, "state", &states, &body.yielded, &names)?;
        let mut result_types = states;
        let mut output_axes = Vec::new();
        for (k, &v) in body.yielded[num_states..].iter().enumerate() {
            let (mut shape, dtype) = tensor_parts(ctx, ctx.value_type(v))
                .ok_or_else(|| Problem::invalid("a scan value is not a static tensor"))?;
            let rank = shape.len() as i64 + 1;
            let axis = plan.output_axes[k];
            if axis < -rank || axis >= rank {
                return Err(Problem::invalid(format!(
                    "scan_output_axes[{k}] = {axis} is out of range for a scan output of rank \
                     {rank}"
                )));
            }
            let axis = if axis < 0 { axis + rank } else { axis };
            shape.insert(axis as usize, length);
            result_types.push(tensor_type(ctx, &shape, dtype));
            output_axes.push(axis);
        }
        let attrs = vec![
            ("num_scan_inputs", {
                let ty = ctx.i64();
                ctx.integer_attr(plan.num_scan_inputs as i128, ty)
            }),
            ("scan_input_axes", ints_attr(ctx, &plan.input_axes)),
            (
                "scan_input_directions",
                ints_attr(ctx, &plan.input_directions),
            ),
            ("scan_output_axes", ints_attr(ctx, &output_axes)),
            (
                "scan_output_directions",
                ints_attr(ctx, &plan.output_directions),
            ),
        ];
        let entries = attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let props = ctx.dictionary_attr(entries);
        let op = create(
            ctx,
            "graph.scan",
            operands,
            result_types,
            1,
            Some(props),
            loc,
        );
        self.finish_region_op(ctx, node, op, body, loc);
        Ok(())
    }

    /// Imports the branch's nodes into the current block and gives the values of its
    /// results; `None` when a node they depend on failed (it reported why).
    fn import_branch(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        branch: Branch,
    ) -> Result<Option<Vec<Value>>, Problem> {
        for (name, t) in branch.expansion.constants {
            let known = Known {
                ty: tensor_type(ctx, t.shape(), t.dtype()),
                value: None,
                constant: Some(t),
                foldable: true,
            };
            self.values.insert(name, known);
        }
        for n in &branch.expansion.nodes {
            self.node(ctx, opset, index, n);
        }
        let mut values = Vec::new();
        for name in &branch.results {
            if self.failed.contains(name) {
                return Ok(None);
            }
            values.push(self.value(ctx, name)?);
        }
        Ok(Some(values))
    }
}
