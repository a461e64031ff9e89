// RUN: split-file %s %t
// RUN: not tb-run %t/input.mlir --random-inputs 1 --interpret 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not tb-run %t/input.mlir --random-inputs 1 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: env TB_MAX_MEMORY=1M not tb-run %t/small.mlir --random-inputs 1 --interpret 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: env TB_MAX_MEMORY=8M tb-run %t/small.mlir --random-inputs 1 --interpret | FileCheck %s --check-prefix=FITS
// RUN: env TB_MAX_MEMORY=lots not tb-run %t/small.mlir --random-inputs 1 --interpret 2>&1 | FileCheck %s --check-prefix=BAD-ENV
// RUN: not tb-run %t/result.mlir --random-inputs 1 --interpret 2>&1 | FileCheck %s --check-prefix=RESULT

// Tensors larger than the memory budget (TB_MAX_MEMORY, else the memory available) are
// refused with an error naming them, before anything is allocated.

// INPUT: tb-run: @huge_input: argument #0: 'tensor<1000000x1000000xf32>' needs 4000000000000 bytes, more than the memory limit of {{[0-9]+}} bytes (set TB_MAX_MEMORY to change it)
// LIMIT: argument #0: 'tensor<1024x1024xf32>' needs 4194304 bytes, more than the memory limit of 1048576 bytes
// FITS: result #0: tensor<1024x1024xf32> = {{\[\[}}
// BAD-ENV: TB_MAX_MEMORY='lots' is not a byte count
// RESULT: error: 'graph.expand' op result #0: 'tensor<1000000x1000000x4xf32>' needs 16000000000000 bytes

//--- input.mlir
func.func @huge_input(%x: tensor<1000000x1000000xf32>) -> tensor<1000000x1000000xf32> {
  return %x : tensor<1000000x1000000xf32>
}

//--- small.mlir
func.func @small(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  return %x : tensor<1024x1024xf32>
}

//--- result.mlir
func.func @huge_result(%x: tensor<4xf32>) -> tensor<1000000x1000000x4xf32> {
  %0 = graph.expand %x {shape = array<i64: 1000000, 1000000, 4>} : (tensor<4xf32>) -> tensor<1000000x1000000x4xf32>
  return %0 : tensor<1000000x1000000x4xf32>
}
