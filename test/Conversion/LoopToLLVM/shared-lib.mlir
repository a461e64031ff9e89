// REQUIRES: cc
// A shared library exports the entry points (and, compiled with --threads, the runtime
// library's thread pool, which replaces the object's weak sequential fallback), with the
// header next to it; the examples/cpu program is built against one by
// tools/tests/c_example.rs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tb-translate --emit=shared-lib --threads=0 %s -o %t/libscale.so
// RUN: llvm-nm -D --defined-only %t/libscale.so | FileCheck %s
// RUN: FileCheck %s --check-prefix=HEADER < %t/libscale.h

// CHECK-DAG: T tb_scale
// CHECK-DAG: T tb_rt_parallel_for
// HEADER: #ifndef TB_LIBSCALE_H
// HEADER: int32_t tb_scale(const float* in0, float in1, float* out0);
func.func @scale(%a: memref<64xf32>, %s: f32) -> memref<64xf32> {
  %out = loop.alloc() : memref<64xf32>
  loop.parallel (%i) = (0) to (64) {
    %x = loop.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %s : f32
    loop.store %y, %out[%i] : memref<64xf32>
  }
  return %out : memref<64xf32>
}
