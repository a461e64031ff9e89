//! The op definitions of the `graph` dialect, one file per operator family.

pub(crate) mod attention;
pub(crate) mod control_flow;
pub(crate) mod conv;
mod einsum;
mod elementwise;
mod generators;
mod indexing;
pub(crate) mod loops;
mod matmul;
mod normalization;
pub(crate) mod pool;
mod positional;
mod reduce;
pub(crate) mod resize;
mod shape_ops;

use tb_ir::ods::OpDef;

/// Ops whose result has the operand's type: `graph.relu %x : tensor<2x3xf32>`.
const UNARY: &str = "operands attr-dict `:` type(operands)";

/// Every other op spells operand and result types:
/// `graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>`.
const FUNCTIONAL: &str = "operands attr-dict `:` functional-type(operands, results)";

/// Every op definition of the dialect.
pub fn defs() -> impl Iterator<Item = &'static OpDef> {
    [
        generators::DEFS,
        elementwise::DEFS,
        matmul::DEFS,
        einsum::DEFS,
        attention::DEFS,
        conv::DEFS,
        pool::DEFS,
        normalization::DEFS,
        positional::DEFS,
        shape_ops::DEFS,
        indexing::DEFS,
        reduce::DEFS,
        resize::DEFS,
        control_flow::DEFS,
        loops::DEFS,
    ]
    .into_iter()
    .flatten()
}
