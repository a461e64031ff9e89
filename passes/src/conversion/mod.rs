//! Conversions between the levels of the IR.

pub(crate) mod affine_to_loop;
pub(crate) mod graph_to_te;
pub(crate) mod loop_to_upstream;
pub(crate) mod scf_to_cf;
pub(crate) mod te_to_loop;
