// RUN: tb-translate --emit=c-header %s | FileCheck %s
// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s --check-prefix=IR

// The header declares one C function per public func.func: inputs first (buffers as
// pointers, `const` when only read; scalars by value), then one output pointer per result.
// Internal functions are declared (and printed) before the entry points calling them.
// IR-LABEL: define internal { float, i64 } @helper(ptr %0)
// IR:         ret { float, i64 }

// CHECK:       #ifndef TB_ABI_H
// CHECK:       #include <stdbool.h>
// CHECK-NEXT:  #include <stdint.h>
// CHECK:       extern "C" {

// CHECK-LABEL: /* @matmul
// CHECK-NEXT:   *   in0: memref<4x8xf32>, 4x8 read
// CHECK-NEXT:   *   in1: memref<8x16xf32>, 8x16 read
// CHECK-NEXT:   *   out0: memref<4x16xf32>, 4x16 written by the call
// CHECK-NEXT:   */
// CHECK-NEXT:  int32_t tb_matmul(const float* in0, const float* in1, float* out0);
// IR-LABEL: define i32 @tb_matmul(ptr noalias %0, ptr noalias %1, ptr noalias %2)
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> memref<4x16xf32> {
  %c = loop.alloc() : memref<4x16xf32>
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 16 {
      loop.store %zero, %c[%i, %j] : memref<4x16xf32>
    }
  }
  return %c : memref<4x16xf32>
}

// Scalars of every kind, an argument the function writes, a scalar result and 16-bit
// float buffers (passed as their bits).
// CHECK-LABEL: /* @mixed
// CHECK-NEXT:   *   in0: index
// CHECK-NEXT:   *   in1: i1
// CHECK-NEXT:   *   in2: memref<2xf16>, 2 read (16-bit float bits)
// CHECK-NEXT:   *   in3: memref<3xi32>, 3 read and written
// CHECK-NEXT:   *   out0: f64, one element written by the call
// CHECK-NEXT:   *   out1: memref<2x2xbf16>, 2x2 written by the call (16-bit float bits)
// CHECK-NEXT:   */
// CHECK-NEXT:  int32_t tb_mixed(int64_t in0, bool in1, const uint16_t* in2, int32_t* in3, double* out0, uint16_t* out1);
// IR-LABEL: define i32 @tb_mixed(i64 %0, i1 zeroext %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5)
// IR:         store double 1.000000e+00, ptr %4, align 8
// IR-NEXT:    ret i32 0
func.func @mixed(%n: index, %flag: i1, %h: memref<2xf16>, %io: memref<3xi32>) -> (f64, memref<2x2xbf16>) {
  %x = arith.constant 1.0 : f64
  %c = loop.alloc() : memref<2x2xbf16>
  %v = arith.constant 7 : i32
  loop.store %v, %io[%n] : memref<3xi32>
  return %x, %c : f64, memref<2x2xbf16>
}

// Private functions are not exported; one that is called is an internal LLVM function
// returning its results, several of them as a struct.
// CHECK-NOT:   helper
// IR-LABEL: define i32 @tb_caller(ptr noalias %0, ptr noalias %1)
// IR:         %[[R:.*]] = call { float, i64 } @helper(ptr %0)
// IR-NEXT:    %[[F:.*]] = extractvalue { float, i64 } %[[R]], 0
// IR-NEXT:    %[[N:.*]] = extractvalue { float, i64 } %[[R]], 1
func.func private @helper(%a: memref<4xf32>) -> (f32, index) {
  %c1 = arith.constant 1 : index
  %x = loop.load %a[%c1] : memref<4xf32>
  return %x, %c1 : f32, index
}
func.func @caller(%a: memref<4xf32>) -> f32 {
  %r:2 = call @helper(%a) : (memref<4xf32>) -> (f32, index)
  %y = loop.load %a[%r#1] : memref<4xf32>
  %s = arith.addf %r#0, %y : f32
  return %s : f32
}
// CHECK:       #endif /* TB_ABI_H */
