// An op the CPU backend cannot translate is a located error: non-zero exit, and no
// output (nor header) is written.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tb-translate --emit=obj --allow-unregistered-dialect %s -o %t/out.o 2>&1 | FileCheck %s
// RUN: not test -e %t/out.o
// RUN: not test -e %t/out.h
// RUN: not tb-translate --emit=llvm-ir --allow-unregistered-dialect %s 2>&1 | FileCheck %s

// CHECK: invalid.mlir:[[# @LINE + 6]]:10: error: unsupported op 'test.frobnicate' in the CPU backend
// CHECK-NEXT: %y = "test.frobnicate"(%x) : (f32) -> f32
// CHECK-NEXT: ^
func.func @f(%a: memref<4xf32>) {
  loop.for %i = 0 to 4 {
    %x = loop.load %a[%i] : memref<4xf32>
    %y = "test.frobnicate"(%x) : (f32) -> f32
    loop.store %y, %a[%i] : memref<4xf32>
  }
  return
}
