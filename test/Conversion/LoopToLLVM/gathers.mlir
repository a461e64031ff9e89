// RUN: tb-translate --emit=asm --mcpu=znver4 %s | FileCheck %s
// RUN: tb-translate --emit=asm --mcpu=znver4 --mattr=-prefer-no-gather,-prefer-no-scatter %s | FileCheck %s --check-prefix=ASKED
// RUN: tb-translate --emit=llvm-ir --mcpu=znver4 %s | FileCheck %s --check-prefix=FEATURES

// Code for x86 is generated without gathers and scatters: the loops LLVM's vectorizer
// would turn into them (a transposition here) are what the kernels leave over, and there
// the scalar accesses are faster on CPUs such as AMD's Zen 4. A feature string that
// mentions either tuning feature is taken as it is.

// CHECK-LABEL: transpose:
// CHECK-NOT: vgather
// CHECK-NOT: vscatter
// CHECK: ret

// ASKED-LABEL: transpose:
// ASKED: vgatherdps

// FEATURES: "target-features"="+prefer-no-gather,+prefer-no-scatter"
func.func @transpose(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  loop.for %i = 0 to 64 {
    loop.for %j = 0 to 64 {
      %v = loop.load %a[(d0, d1) -> (d1, d0)](%i, %j) : memref<64x64xf32>
      loop.store %v, %b[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
