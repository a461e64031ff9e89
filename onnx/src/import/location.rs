//! Locations of imported ops: `loc("node name"("model.onnx":N:1))`, where `N` is the node's
//! 1-based position in the graph, so a later error names the ONNX node and where it sits.

use tb_ir::location::LocationKind;
use tb_ir::{Context, Location};

use crate::proto::NodeProto;

/// The name a node goes by: its own, else its first output's (most exporters name nodes,
/// but ONNX does not require it).
pub fn node_name(node: &NodeProto) -> String {
    if !node.name.is_empty() {
        node.name.clone()
    } else {
        node.output.first().cloned().unwrap_or_default()
    }
}

/// The location of node number `index` (0-based) of `file`.
pub fn node_loc(ctx: &mut Context, file: &str, index: usize, node: &NodeProto) -> Location {
    let position = ctx.file_loc(file, index as u32 + 1, 1);
    named(ctx, &node_name(node), position)
}

/// `loc("name"(child))`.
pub fn named(ctx: &mut Context, name: &str, child: Location) -> Location {
    ctx.location(LocationKind::Name {
        name: name.to_string(),
        child: Some(child),
    })
}
