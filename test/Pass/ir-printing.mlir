// IR dumps around passes go to stderr, headed like MLIR's.
// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --mlir-print-ir-before=cse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// CHECK: // -----// IR Dump Before CSE (cse) //----- //
// CHECK-NEXT: func.func @f
// CHECK: // -----// IR Dump After CSE (cse) //----- //
// CHECK: // -----// IR Dump After DCE (dce) //----- //

// Only passes that change the IR are printed with --mlir-print-ir-after-change: CSE
// merges the two casts, DCE then has nothing left to remove.
// RUN: tb-opt %s --cse --dce --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// CHANGE: IR Dump After CSE (cse)
// CHANGE-NOT: IR Dump After DCE

// RUN: tb-opt %s --cse --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: ----Wall Time----  ----Name----
// TIMING-NEXT: Parser
// TIMING-NEXT: CSE
// TIMING-NEXT: Output
// TIMING-NEXT: (100.0%)  Total

// The tree display nests passes under their pipelines.
// RUN: tb-opt %s --pass-pipeline='builtin.module(func.func(cse,dce),symbol-dce)' --mlir-timing --mlir-timing-display=tree -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE:      %)  Parser
// TREE-NEXT: %)  'func.func' Pipeline
// TREE-NEXT: %)    CSE
// TREE-NEXT: %)    DCE
// TREE-NEXT: %)  SymbolDCE
// TREE-NEXT: %)  Output
// TREE-NEXT: %)  Total

"func.func"() <{function_type = (i32) -> (f32, f32), sym_name = "f"}> ({
^bb0(%a: i32):
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  %1 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> f32
  "func.return"(%0, %1) : (f32, f32) -> ()
}) : () -> ()
