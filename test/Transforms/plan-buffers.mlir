// RUN: tb-opt %s --plan-buffers | FileCheck %s
// RUN: tb-opt %s --plan-buffers | tb-run - --function chain --random-inputs 1 > %t.planned
// RUN: tb-run %s --function chain --random-inputs 1 | diff - %t.planned
// RUN: tb-opt %s --plan-buffers | tb-run --interpret - --function chain --random-inputs 1 | diff - %t.planned

// A chain a -> b -> c -> d: a and c never live together, so they share offset 0; b and d
// take the next slot. The arena is freed before the return; the result is not planned.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    attributes {tb.arena_bytes = 128 : i64, tb.requested_bytes = 192 : i64}
// CHECK-NEXT:    %[[ARENA:.*]] = loop.alloc() : memref<128xi8>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<128xi8> to memref<4x2xf32>
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[ARENA]][%[[C64]]][] : memref<128xi8> to memref<8xf32>
// CHECK:         %[[C0_2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[C0_2]]][] : memref<128xi8> to memref<8xf32>
// CHECK-NOT:     loop.dealloc %[[A]]
// CHECK:         %[[OUT:.*]] = loop.alloc() : memref<8xf32>
// CHECK:         loop.dealloc %[[ARENA]] : memref<128xi8>
// CHECK-NEXT:    return %[[OUT]]
func.func @chain(%x: memref<8xf32>) -> memref<8xf32> {
  %a = loop.alloc() : memref<4x2xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %x[%i] : memref<8xf32>
    %w = arith.mulf %v, %v : f32
    loop.store %w, %a[(d0) -> (d0 floordiv 2, d0 mod 2)](%i) : memref<4x2xf32>
  }
  %b = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %a[(d0) -> (d0 floordiv 2, d0 mod 2)](%i) : memref<4x2xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %b[%i] : memref<8xf32>
  }
  loop.dealloc %a : memref<4x2xf32>
  %c = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %b[%i] : memref<8xf32>
    %u = loop.load %x[%i] : memref<8xf32>
    %w = arith.subf %v, %u : f32
    loop.store %w, %c[%i] : memref<8xf32>
  }
  loop.dealloc %b : memref<8xf32>
  %out = loop.alloc() : memref<8xf32>
  loop.for %i = 0 to 8 {
    %v = loop.load %c[%i] : memref<8xf32>
    %w = math.absf %v : f32
    loop.store %w, %out[%i] : memref<8xf32>
  }
  loop.dealloc %c : memref<8xf32>
  return %out : memref<8xf32>
}

// One buffer, or buffers without a dealloc in the body, are left alone.
// CHECK-LABEL: func.func @nothing_to_plan
// CHECK-NOT:     tb.arena_bytes
// CHECK-NOT:     memref.view
func.func @nothing_to_plan(%x: memref<4xf32>) -> memref<4xf32> {
  %a = loop.alloc() : memref<4xf32>
  loop.for %i = 0 to 4 {
    %v = loop.load %x[%i] : memref<4xf32>
    loop.store %v, %a[%i] : memref<4xf32>
  }
  %b = loop.alloc() : memref<4xf32>
  loop.for %i = 0 to 4 {
    %v = loop.load %a[%i] : memref<4xf32>
    loop.store %v, %b[%i] : memref<4xf32>
  }
  loop.dealloc %a : memref<4xf32>
  return %b : memref<4xf32>
}
