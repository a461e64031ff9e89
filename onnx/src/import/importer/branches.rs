//! A run-time `If` as a `graph.if`: each branch's nodes are imported into a block of their
//! own (they read outer values by name, as the regions use them), which ends in a
//! `graph.yield` of the branch's results; both branches must give the same static types.

use tb_ir::{Context, Location, Type, Value};

use super::super::error::{Problem, ProblemKind};
use super::super::node::Branch;
use super::super::types::tensor_type;
use super::{Importer, Known, create};
use crate::proto::NodeProto;

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
