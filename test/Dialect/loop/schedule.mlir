// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | tb-opt | FileCheck %s

// Every field of a schedule, written out of order, prints back in canonical order.
// CHECK-LABEL: func.func @every_field
// CHECK:         loop.for %{{.*}} = 0 to 64 attributes {loop.schedule = #loop.schedule<tiles = {{\[\[}}32, 8], [16]], order = [1, 0], parallel = [1], vector = 8, unroll = 4, pack = rhs>}
func.func @every_field(%m: memref<64x64xf32>) {
  %c = arith.constant 1.0 : f32
  loop.for %i = 0 to 64 attributes {loop.schedule = #loop.schedule<pack = rhs, unroll = 4, vector = 8, parallel = [1], order = [1, 0], tiles = [[32, 8], [16]]>} {
    loop.for %j = 0 to 64 {
      loop.store %c, %m[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// Fields at their default are left out; an untiled dimension is an empty list.
// CHECK-LABEL: func.func @defaults
// CHECK:         attributes {loop.schedule = #loop.schedule<tiles = {{\[\[}}], [4]]>}
func.func @defaults(%m: memref<64x64xf32>) {
  %c = arith.constant 1.0 : f32
  loop.for %i = 0 to 64 attributes {loop.schedule = #loop.schedule<tiles = [[], [4]], order = [0, 1], vector = 1, unroll = 1, pack = none>} {
    loop.for %j = 0 to 64 {
      loop.store %c, %m[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
