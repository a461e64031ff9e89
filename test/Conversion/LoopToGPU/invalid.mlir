// RUN: not tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu{block-size=2048})" %s 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu)" %s 2>&1 | FileCheck %s --check-prefix=BLOCKS

// RUN: not tb-opt --pass-pipeline="builtin.module(convert-loop-to-gpu{block-reduce-min=-1})" %s 2>&1 | FileCheck %s --check-prefix=REDUCE

// BLOCK: convert-loop-to-gpu: block-size=2048 is outside [1, 1024]
// REDUCE: convert-loop-to-gpu: block-reduce-min=-1 is negative
// BLOCKS: error: convert-loop-to-gpu: functions with several blocks (cf branches) are not mapped to the GPU yet
func.func @branches(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}
