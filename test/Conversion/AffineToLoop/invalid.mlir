// RUN: tb-opt --verify-diagnostics --pass-pipeline='builtin.module(convert-affine-to-loop)' %s

// The loop dialect has no asynchronous copy: a DMA is refused where it is.
func.func @dma(%A: memref<16xf32>, %B: memref<16xf32>, %tag: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 16 : index
  // expected-error@+1 {{'affine.dma_start' op cannot be converted to the loop dialect: the loop dialect has no asynchronous copies}}
  affine.dma_start %A[0], %B[0], %tag[0], %n : memref<16xf32>, memref<16xf32>, memref<1xi32>
  affine.dma_wait %tag[0], %n : memref<1xi32>
  return
}
