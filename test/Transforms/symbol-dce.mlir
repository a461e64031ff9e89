// RUN: tb-opt --symbol-dce --mlir-print-op-generic %s | FileCheck %s

// Private symbols nobody references go, including ones only reachable from other dead
// private symbols; public ones and referenced ones stay.
// CHECK-DAG: sym_name = "public_entry"
// CHECK-DAG: sym_name = "used_helper"
// CHECK-NOT: sym_name = "dead
"func.func"() <{function_type = () -> (), sym_name = "public_entry"}> ({
  "func.call"() <{callee = @used_helper}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "used_helper", sym_visibility = "private"}> ({
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "dead_caller", sym_visibility = "private"}> ({
  "func.call"() <{callee = @dead_callee}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "dead_callee", sym_visibility = "private"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// Declarations are symbols like definitions: a referenced one stays, an unreferenced
// private one goes.
// CHECK-LABEL: sym_name = "uses_declaration"
// CHECK:       sym_name = "used_declaration"
// CHECK-NOT:   sym_name = "unused_declaration"
"func.func"() <{function_type = () -> (), sym_name = "uses_declaration"}> ({
  "func.call"() <{callee = @used_declaration}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "used_declaration", sym_visibility = "private"}> ({
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "unused_declaration", sym_visibility = "private"}> ({
}) : () -> ()
