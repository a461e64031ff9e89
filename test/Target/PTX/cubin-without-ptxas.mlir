// RUN: env PATH=/nonexistent TB_PTXAS= CUDA_HOME= CUDA_PATH= not tb-translate --emit=cubin %s -o %t.cubin 2>&1 | FileCheck %s
// RUN: not test -e %t.cubin
// REQUIRES: nvptx
// UNSUPPORTED: system-ptxas

// With no ptxas anywhere it is looked for (TB_PTXAS, the PATH, CUDA_HOME, a toolkit's
// usual places), --emit=cubin says what it needs and where to get it, and writes nothing.
// CHECK: error: --emit=cubin needs NVIDIA's PTX assembler, ptxas (from a CUDA toolkit, Debian's nvidia-cuda-toolkit, or PyPI's nvidia-cuda-nvcc-cu12, which scripts/setup.sh installs into .venv); put it on the PATH or set TB_PTXAS to its path
func.func @scale(%x: memref<64xf32>, %y: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  loop.parallel (%i) = (0) to (64) {
    %v = loop.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    loop.store %w, %y[%i] : memref<64xf32>
  }
  return
}
