// RUN: env TB_PTXAS=%ptxas tb-translate --emit=cubin --gpu-arch=sm_90 %s -o %t.sm90.cubin
// RUN: %venv-python -c "import sys; data = open(sys.argv[1], 'rb').read(); print('ELF' if data[:4] == b'\x7fELF' else 'not ELF', len(data) > 1000)" %t.sm90.cubin | FileCheck %s
// RUN: env TB_PTXAS=%ptxas tb-translate --emit=cubin %s -o %t.sm80.cubin
// RUN: env TB_PTXAS=/nonexistent/ptxas not tb-translate --emit=cubin %s -o %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tb-translate --emit=obj --gpu-arch=sm_90 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=ARCH
// REQUIRES: nvptx, ptxas

// --emit=cubin hands the PTX of --emit=ptx to NVIDIA's ptxas and writes the machine code
// it makes for --gpu-arch (an ELF file).
// CHECK: ELF True
// A TB_PTXAS that names no file is an error (cubin-without-ptxas.mlir: none at all).
// MISSING: error: TB_PTXAS=/nonexistent/ptxas is not a file
// ARCH: error: --gpu-arch applies only to --emit=ptx and --emit=cubin
func.func @scale(%x: memref<64xf32>, %y: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  loop.parallel (%i) = (0) to (64) {
    %v = loop.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    loop.store %w, %y[%i] : memref<64xf32>
  }
  return
}
