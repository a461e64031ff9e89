// RUN: split-file %s %t
// RUN: not tb-run %t/input.mlir --input %t/input.mlir --interpret 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not tb-run %t/input.mlir --input %t/input.mlir 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not tb-run %t/result.mlir --random-inputs 1 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not tb-run %t/scratch.mlir --random-inputs 1 2>&1 | FileCheck %s --check-prefix=SCRATCH
// RUN: not tb-run %t/scratch.mlir --random-inputs 1 --interpret 2>&1 | FileCheck %s --check-prefix=SCRATCH
// RUN: not tb-run %t/small.mlir --input /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// RUN: not tb-run %t/small.mlir --input /dev/zero --interpret 2>&1 | FileCheck %s --check-prefix=ENDLESS
// RUN: rm -rf %t/out && not tb-run %t/input.mlir --input %t/input.mlir --output-dir %t/out
// RUN: not ls %t/out/output_0.npy

// tb-run, compiled or interpreted, refuses a tensor or buffer it cannot hold under the
// memory budget (TB_MAX_MEMORY, else the memory available) before allocating it, with an
// error naming it, a non-zero exit and no output. A 10^12-element argument is refused
// before its --input file is read at all. (The scratch buffer is written and read back in
// reverse order by two loops, so the CPU pipeline can neither fuse them nor replace the
// buffer by the values it carries.)

// INPUT: tb-run: @huge_input: argument #0: 'tensor<1000000x1000000xf32>' needs 4000000000000 bytes, more than the memory limit of {{[0-9]+}} bytes (set TB_MAX_MEMORY to change it)
// RESULT: tb-run: @huge_result: result #0: 'tensor<1000000x1000000x4xf32>' needs 16000000000000 bytes, more than the memory limit
// SCRATCH: scratch.mlir:2:{{[0-9]+}}: error: 'loop.alloc' op result #0: 'memref<1000000x1000000xf32>' needs 4000000000000 bytes, more than the memory limit
// ENDLESS: tb-run: /dev/zero: holds more than the {{[0-9]+}} bytes an argument of type 'tensor<4xf32>' can take

//--- input.mlir
func.func @huge_input(%x: tensor<1000000x1000000xf32>) -> tensor<1000000x1000000xf32> {
  return %x : tensor<1000000x1000000xf32>
}

//--- result.mlir
func.func @huge_result(%x: tensor<4xf32>) -> tensor<1000000x1000000x4xf32> {
  %0 = graph.expand %x {shape = array<i64: 1000000, 1000000, 4>} : (tensor<4xf32>) -> tensor<1000000x1000000x4xf32>
  return %0 : tensor<1000000x1000000x4xf32>
}

//--- scratch.mlir
func.func @scratch(%x: memref<4xf32>) -> memref<4xf32> {
  %big = loop.alloc() : memref<1000000x1000000xf32>
  %out = loop.alloc() : memref<4xf32>
  loop.for %i = 0 to 4 {
    %v = loop.load %x[%i] : memref<4xf32>
    loop.store %v, %big[%i, %i] : memref<1000000x1000000xf32>
  }
  loop.for %i = 0 to 4 {
    %w = loop.load %big[(d0) -> (3 - d0, 3 - d0)](%i) : memref<1000000x1000000xf32>
    loop.store %w, %out[%i] : memref<4xf32>
  }
  loop.dealloc %big : memref<1000000x1000000xf32>
  return %out : memref<4xf32>
}

//--- small.mlir
func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
