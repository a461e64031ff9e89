// RUN: rm -rf %t && mkdir -p %t
// At O3 for a named CPU, LLVM's pipeline vectorizes the scalar loop to that CPU's widths
// and honours the unroll count.
// RUN: tb-translate --emit=llvm-ir --mcpu=x86-64-v3 %s | FileCheck %s --check-prefix=O3
// RUN: tb-translate --emit=llvm-ir --mcpu=x86-64-v3 --mattr=-avx,-avx2 %s | FileCheck %s --check-prefix=SSE
// RUN: tb-translate --emit=asm --mcpu=x86-64-v3 %s | FileCheck %s --check-prefix=ASM
// An object file comes with a header next to it.
// RUN: tb-translate --emit=obj %s -o %t/scale.o
// RUN: llvm-nm %t/scale.o | FileCheck %s --check-prefix=NM
// RUN: FileCheck %s --check-prefix=HEADER < %t/scale.h
// Binary outputs need a file; an unknown kind or level is refused.
// RUN: not tb-translate --emit=obj %s 2>&1 | FileCheck %s --check-prefix=NEED-FILE
// RUN: not tb-translate --emit=bitcode %s 2>&1 | FileCheck %s --check-prefix=BAD-KIND
// RUN: not tb-translate --emit=llvm-ir -O4 %s 2>&1 | FileCheck %s --check-prefix=BAD-LEVEL

// O3-LABEL: define {{.*}}i32 @tb_scale(
// O3:         fmul <8 x float>
// O3:       attributes #{{[0-9]+}} = { {{.*}}"target-cpu"="x86-64-v3"
// SSE-LABEL: define {{.*}}i32 @tb_scale(
// SSE:         fmul <4 x float>
// SSE-NOT:     <8 x float>
// SSE:       "target-features"="-avx,-avx2,+prefer-no-gather,+prefer-no-scatter"
// ASM-LABEL: tb_scale:
// ASM:         vmulps {{.*}}%ymm
// NM: T tb_scale
// HEADER: int32_t tb_scale(const float* in0, float in1, float* out0);
// NEED-FILE: tb-translate: error: --emit=obj writes a binary file; name it with -o FILE
// BAD-KIND: tb-translate: error: unknown --emit kind 'bitcode' (expected llvm-ir, asm, obj, shared-lib, c-header, c-runtime, ptx, cubin or mlir-upstream)
// BAD-LEVEL: tb-translate: error: -O4 is not an optimization level (0-3)
func.func @scale(%a: memref<256xf32>, %s: f32) -> memref<256xf32> {
  %out = loop.alloc() : memref<256xf32>
  loop.for %i = 0 to 256 unroll = 2 {
    %x = loop.load %a[%i] : memref<256xf32>
    %y = arith.mulf %x, %s : f32
    loop.store %y, %out[%i] : memref<256xf32>
  }
  return %out : memref<256xf32>
}
