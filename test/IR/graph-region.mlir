// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Graph regions: values may be used before they are defined. Module bodies
// are graph regions, and a single-block region of an unregistered operation
// is treated as one too, so uses before definitions and cycles are allowed
// there. (A multi-block region of an unregistered operation IS checked for
// dominance: see invalid-ssa.mlir.)

// CHECK: "builtin.module"() ({

// Use before definition at the top level (a module body).
// CHECK-LABEL: %0 = "unreg.top_use"(%1) : (i32) -> i32
// CHECK-NEXT:   %1 = "unreg.top_def"() : () -> i32
%0 = "unreg.top_use"(%1) : (i32) -> i32
%1 = "unreg.top_def"() : () -> i32

// A cycle inside an unregistered operation's region.
// CHECK-LABEL: "unreg.graph"() ({
// CHECK-NEXT:     %4 = "unreg.node"(%5) : (i32) -> i32
// CHECK-NEXT:     %5 = "unreg.node"(%4) : (i32) -> i32
// CHECK-NEXT:   }) : () -> ()
"unreg.graph"() ({
  %a = "unreg.node"(%b) : (i32) -> i32
  %b = "unreg.node"(%a) : (i32) -> i32
}) : () -> ()

// An operation that uses its own result.
// CHECK-LABEL: "unreg.self_use"() ({
// CHECK-NEXT:     %3 = "unreg.node"(%3) : (i32) -> i32
// CHECK-NEXT:   }) : () -> ()
"unreg.self_use"() ({
  %s = "unreg.node"(%s) : (i32) -> i32
}) : () -> ()

// Use before definition in a nested module.
// CHECK-LABEL: "builtin.module"() <{sym_name = "graph_module"}> ({
// CHECK-NEXT:     "unreg.use"(%2) : (f32) -> ()
// CHECK-NEXT:     %2 = "unreg.def"() : () -> f32
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
module @graph_module {
  "unreg.use"(%later) : (f32) -> ()
  %later = "unreg.def"() : () -> f32
}
