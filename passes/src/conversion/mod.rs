//! Conversions between the levels of the IR.

pub(crate) mod affine_to_loop;
pub(crate) mod graph_to_te;
pub(crate) mod te_to_loop;
