// --pipeline takes a named pipeline or a textual one; a pass it does not know points to
// --list-passes, which tb-run has.
// RUN: not tb-run %s --random-inputs 1 --pipeline='builtin.module(bogus)' 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: tb-run: --pipeline: 'bogus' does not refer to a registered pass (see tb-run --list-passes)

// RUN: tb-run --list-passes | FileCheck %s --check-prefix=LIST
// LIST: Passes:
// LIST: convert-graph-to-te
// LIST: Named pipelines:
// LIST-NEXT: cpu {{.*}}graph -> te -> loop
// LIST-NEXT: = builtin.module(

// RUN: tb-run %s --random-inputs 1 --pipeline=cpu --print-limit 0 | FileCheck %s --check-prefix=NAMED
// NAMED: result #0: tensor<2x3xf32> = <6 elements>

// The lowering is observable: IR after each pass, per-pass time, time per phase (wall
// clock and the process's CPU time).
// RUN: tb-run %s --random-inputs 1 --print-limit 0 --mlir-print-ir-after-all --mlir-timing --timing 2>&1 | FileCheck %s --check-prefix=OBSERVE
// OBSERVE: IR Dump After {{.*}}convert-graph-to-te
// OBSERVE: Execution time report
// OBSERVE: timing (wall clock):
// OBSERVE-NEXT: load
// OBSERVE-NEXT: lower
// OBSERVE-NEXT: compile {{[0-9.]+}} ms cpu {{[0-9.]+}} ms
// OBSERVE-NEXT: first run
// OBSERVE-NEXT: total
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
