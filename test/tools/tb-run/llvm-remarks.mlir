// LLVM's missed-optimization warnings ("loop not vectorized" where a loop's vectorize hint
// cannot be honoured, here because of the recurrence through memory) are not printed:
// large models have hundreds of them and nothing to act on. TB_LLVM_REMARKS=1 shows them.
// RUN: tb-run %s --random-inputs 1 --print-limit 0 2>&1 | FileCheck %s --implicit-check-not="LLVM" --implicit-check-not="not vectorized"
// RUN: env TB_LLVM_REMARKS=1 tb-run %s --random-inputs 1 --print-limit 0 2>&1 | FileCheck %s --check-prefix=SHOWN

// CHECK: result #0: memref<64xf32> = <64 elements>
// SHOWN: LLVM warning: {{.*}}loop not vectorized
func.func @recurrence(%a: memref<64xf32>) -> memref<64xf32> {
  %two = arith.constant 2.0 : f32
  %c1 = arith.constant 1 : index
  loop.for %i = 0 to 63 unroll = 1 vectorize = 8 {
    %x = loop.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    %j = arith.addi %i, %c1 : index
    loop.store %y, %a[%j] : memref<64xf32>
  }
  return %a : memref<64xf32>
}
