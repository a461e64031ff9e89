// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --inline %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic --inline --symbol-dce %s | FileCheck %s --check-prefix=CLEAN

// A call to a small function becomes a copy of its body, with the call's operands for the
// callee's arguments and the returned values for the call's results.
// CHECK-LABEL: sym_name = "caller"
// CHECK-NEXT:  ^bb0(%arg0: i32):
// CHECK-NEXT:    %[[X:.*]] = "unreg.twice"(%arg0) : (i32) -> i32
// CHECK-NEXT:    %[[Y:.*]] = "unreg.plus_one"(%[[X]]) : (i32) -> i32
// CHECK-NEXT:    "func.return"(%[[Y]]) : (i32) -> ()
// A private callee nobody calls any more is removed by symbol-dce.
// CLEAN-NOT: sym_name = "helper"
"func.func"() <{function_type = (i32) -> i32, sym_name = "helper", sym_visibility = "private"}> ({
^bb0(%v: i32):
  %0 = "unreg.twice"(%v) : (i32) -> i32
  "func.return"(%0) : (i32) -> ()
}) : () -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "caller"}> ({
^bb0(%a: i32):
  %r = "func.call"(%a) <{callee = @helper}> : (i32) -> i32
  %s = "unreg.plus_one"(%r) : (i32) -> i32
  "func.return"(%s) : (i32) -> ()
}) : () -> ()

// -----

// Calls exposed by inlining are inlined in the next round.
// CHECK-LABEL: sym_name = "top"
// CHECK-NEXT:    "unreg.leaf"() : () -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "leaf"}> ({
  "unreg.leaf"() : () -> ()
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "middle"}> ({
  "func.call"() <{callee = @leaf}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "top"}> ({
  "func.call"() <{callee = @middle}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Recursive calls stay calls.
// CHECK-LABEL: sym_name = "recursive"
// CHECK:         "func.call"() <{callee = @recursive}> : () -> ()
"func.func"() <{function_type = () -> (), sym_name = "recursive"}> ({
  "func.call"() <{callee = @recursive}> : () -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A call to a declaration has no body to inline and stays a call.
// CHECK-LABEL: sym_name = "calls_declaration"
// CHECK:         "func.call"(%arg0) <{callee = @declared}> : (i32) -> i32
// CLEAN-LABEL: sym_name = "calls_declaration"
// CLEAN:         "func.call"(%arg0) <{callee = @declared}> : (i32) -> i32
// CLEAN:       sym_name = "declared"
"func.func"() <{function_type = (i32) -> i32, sym_name = "calls_declaration"}> ({
^bb0(%a: i32):
  %0 = "func.call"(%a) <{callee = @declared}> : (i32) -> i32
  "func.return"(%0) : (i32) -> ()
}) : () -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "declared", sym_visibility = "private"}> ({
}) : () -> ()
