// RUN: not tb-translate --emit=mlir-upstream %s 2>&1 | FileCheck %s

// Buffers of unsigned integers have no upstream form that arith accepts.
// CHECK: invalid.mlir:7:8: error: 'loop.load' op reads or writes a buffer of signed or unsigned integers
func.func @unsigned(%a: memref<4xui8>) -> i8 {
  %c0 = arith.constant 0 : index
  %x = loop.load %a[%c0] : memref<4xui8>
  return %x : i8
}
