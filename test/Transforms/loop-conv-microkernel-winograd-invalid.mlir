// RUN: not tb-opt --pass-pipeline="builtin.module(loop-conv-microkernel{winograd-tile=3})" %s 2>&1 | FileCheck %s
// RUN: not tb-opt --pass-pipeline="builtin.module(loop-conv-microkernel{winograd-tile=-2})" %s 2>&1 | FileCheck %s --check-prefix=NEG

// Winograd's tile is 2 or 4 outputs a side, or 0 to choose per convolution.
// CHECK: loop-conv-microkernel: winograd-tile=3 is not 0 (chosen per convolution), 2 or 4
// NEG: loop-conv-microkernel: winograd-tile=-2 is not 0 (chosen per convolution), 2 or 4
func.func @f() {
  return
}
