// RUN: not tb-translate --emit=ptx --gpu-arch=sm_75 %s 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: env TB_LIBDEVICE=/nonexistent/libdevice.10.bc not tb-translate --emit=ptx %s 2>&1 | FileCheck %s --check-prefix=LIBDEVICE
// REQUIRES: nvptx

// ARCH: error: unknown GPU architecture 'sm_75' (known: sm_80, sm_90)
// LIBDEVICE: error: TB_LIBDEVICE=/nonexistent/libdevice.10.bc is not a file
func.func @math(%buf: memref<32xf32>) {
  loop.parallel (%i) = (0) to (32) {
    %v = loop.load %buf[%i] : memref<32xf32>
    %e = math.exp %v : f32
    loop.store %e, %buf[%i] : memref<32xf32>
  }
  return
}
