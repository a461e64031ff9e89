// An unknown --mcpu is one clear error, found before LLVM sees the name (LLVM would warn
// once per subtarget and then abort).
// RUN: not tb-translate %s --emit=llvm-ir --mcpu=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: error: unknown CPU 'bogus' for target x86_64{{.*}}; LLVM knows: native, {{.*}}skylake
// BOGUS-NOT: not a recognized processor
// BOGUS-NOT: LLVM ERROR

// tb-run refuses it the same way.
// RUN: not tb-run %s --random-inputs 1 --mcpu=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS

// A CPU LLVM knows is accepted.
// RUN: tb-translate %s --emit=llvm-ir --mcpu=skylake-avx512 | FileCheck %s --check-prefix=KNOWN
// KNOWN: "target-cpu"="skylake-avx512"
func.func @scale(%a: memref<4xf32>) -> memref<4xf32> {
  %out = loop.alloc() : memref<4xf32>
  loop.for %i = 0 to 4 {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    loop.store %y, %out[%i] : memref<4xf32>
  }
  return %out : memref<4xf32>
}
