//! The `graph` dialect: one op per ONNX operator family, value semantics on statically
//! shaped tensors, ONNX semantics (opsets 13–21).
//!
//! Ops are named `graph.<ONNX name in snake_case>` (`Conv` → `graph.conv`,
//! `BatchNormalization` → `graph.batch_normalization`, `ReduceMean` → `graph.reduce_mean`).
//! Attributes keep ONNX's names and defaults ([`attrs`] states the conventions).
//!
//! Every ONNX *input* that must be known to know the result shape is an attribute here,
//! because every graph value has a static shape: Reshape/Expand `shape`, Slice
//! `starts`/`ends`/`axes`/`steps`, Pad `pads`/`axes` (and `constant_value`), Squeeze/
//! Unsqueeze/Reduce* `axes`, Split `split`, Tile `repeats`, ConstantOfShape's shape, Range's
//! `start`/`limit`/`delta`, and Clip's `min`/`max`. The importer folds those constant inputs
//! into attributes; shape subgraphs that compute them (`Shape → Gather → Concat ...`) are
//! graph ops first and fold to `graph.constant` ([`fold`]).
//!
//! Each op has one shape rule ([`infer`]) over [`shape`], the static ONNX shape functions
//! the interpreter also uses: the verifier checks declared result types against it, and
//! type inference and [`builder`] use it to compute them.

pub mod attrs;
pub mod builder;
mod canonicalize;
pub mod fold;
pub mod infer;
mod kinds;
pub mod literal;
mod ops;
mod reduce_constant;
mod reduction;
pub mod types;
mod unary;

use tb_ir::registry::DialectInfo;
use tb_ir::{Attr, Context, Location, OpId, Type};

pub use kinds::{GraphOp, MatmulOp, ReduceOp};
pub use ops::attention::attention_attrs;
pub use ops::conv::{conv_attrs, conv_transpose_attrs};
pub use ops::defs;
pub use ops::loops::{LoopOp, ScanOp};
pub use ops::pool::pool_attrs;
pub use ops::resize::resize_attrs;
pub use reduction::{ReduceCombiner, ReduceKind};
pub use tb_tensor::kernels::attention::{AttentionAttrs, AttentionDims, attention_dims};
pub use tb_tensor::kernels::einsum::{EinsumPlan, einsum_plan};
pub use tb_tensor::kernels::resize::{AxisTaps, ResizeAttrs, ResizeMode, resize_taps};
/// The static ONNX shape rules, defined below the IR in `tb_tensor`.
pub use tb_tensor::shape;
pub use unary::{Unary, UnaryOfOp};

/// Folded values become `graph.constant`s when the attribute has the tensor type wanted.
fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<OpId> {
    if attrs::elements_type(ctx, value)? != ty || types::static_tensor(ctx, ty).is_none() {
        return None;
    }
    let state = builder::op_state_with_types(
        ctx,
        "graph.constant",
        vec![],
        vec![("value".to_string(), value)],
        vec![ty],
        loc,
    );
    Some(ctx.create_op(state))
}

pub fn register(ctx: &mut Context) -> Result<(), String> {
    ctx.register_dialect_info(DialectInfo {
        namespace: "graph",
        materialize_constant: Some(materialize_constant),
        print_attr: None,
    });
    for def in defs() {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<GraphOp>()
}
