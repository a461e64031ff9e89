//! Conversions between the levels of the IR.

pub(crate) mod graph_to_te;
