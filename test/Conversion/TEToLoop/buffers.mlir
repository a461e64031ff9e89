// RUN: tb-opt %s --convert-te-to-loop | FileCheck %s
// RUN: tb-opt %s --convert-te-to-loop | tb-opt --verify-roundtrip > /dev/null

// Every te.compute result gets a loop.alloc; the buffers that are not returned are freed
// right after their last use (a read in a later loop nest), in allocation order.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[EXP:.*]] = loop.alloc() : memref<8xf32>
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = loop.alloc() : memref<f32>
// CHECK:         %[[NORM:.*]] = loop.alloc() : memref<8xf32>
// CHECK-NEXT:    loop.parallel
// CHECK:           loop.load %[[SUM]][(d0) -> ()](%{{.*}}) : memref<f32>
// CHECK:         }
// CHECK-NEXT:    loop.dealloc %[[EXP]] : memref<8xf32>
// CHECK-NEXT:    loop.dealloc %[[SUM]] : memref<f32>
// CHECK-NEXT:    return %[[NORM]] : memref<8xf32>
func.func @chain(%a: tensor<8xf32>) -> tensor<8xf32> {
  %t = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<8xf32>
    %e = math.exp %x : f32
    te.yield %e : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %s = te.compute (%t) [] reduce [%k] in [8] combiner = sum {
    %x = te.read %t[(d0) -> (d0)] : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<f32>
  %n = te.compute (%t, %s) [%i] {
    %x = te.read %t[(d0) -> (d0)] : tensor<8xf32>
    %y = te.read %s[(d0) -> ()] : tensor<f32>
    %q = arith.divf %x, %y : f32
    te.yield %q : f32
  } : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %n : tensor<8xf32>
}

// A result nobody reads is still computed, then freed after its loop nest.
// CHECK-LABEL: func.func @unused
// CHECK:         %[[T:.*]] = loop.alloc() : memref<8xf32>
// CHECK-NEXT:    loop.parallel
// CHECK:         }
// CHECK-NEXT:    loop.dealloc %[[T]] : memref<8xf32>
// CHECK-NEXT:    return
func.func @unused(%a: tensor<8xf32>) {
  %t = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// A returned argument is copied into a buffer the function allocates, so callers always
// own what a call returns.
// CHECK-LABEL: func.func @argument
// CHECK-SAME:    (%[[A:.*]]: memref<8xf32>) -> memref<8xf32>
// CHECK-NEXT:    %[[COPY:.*]] = loop.alloc() : memref<8xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[COPY]] : memref<8xf32> to memref<8xf32>
// CHECK-NEXT:    return %[[COPY]] : memref<8xf32>
func.func @argument(%a: tensor<8xf32>) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// A buffer returned twice is returned once and copied for the second result.
// CHECK-LABEL: func.func @twice
// CHECK:         %[[T:.*]] = loop.alloc() : memref<8xf32>
// CHECK:         %[[COPY:.*]] = loop.alloc() : memref<8xf32>
// CHECK-NEXT:    memref.copy %[[T]], %[[COPY]] : memref<8xf32> to memref<8xf32>
// CHECK-NEXT:    return %[[T]], %[[COPY]] : memref<8xf32>, memref<8xf32>
func.func @twice(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %t, %t : tensor<8xf32>, tensor<8xf32>
}

// Private functions and declarations change signature too; a callee returns its own
// allocations.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME:    (%{{.*}}: memref<8xf32>) -> (memref<8xf32>, memref<f32>)
// CHECK-NOT:     loop.dealloc
// CHECK:         return %{{.*}}, %{{.*}} : memref<8xf32>, memref<f32>
// CHECK-LABEL: func.func private @external(memref<8xf32>) -> memref<8xf32>
func.func private @helper(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %t = te.compute (%a) [%i] {
    %x = te.read %a[(d0) -> (d0)] : tensor<8xf32>
    %y = arith.addf %x, %x : f32
    te.yield %y : f32
  } : (tensor<8xf32>) -> tensor<8xf32>
  %s = te.compute (%a) [] reduce [%k] in [8] combiner = sum {
    %x = te.read %a[(d0) -> (d0)] : tensor<8xf32>
    te.yield %x : f32
  } : (tensor<8xf32>) -> tensor<f32>
  return %t, %s : tensor<8xf32>, tensor<f32>
}
func.func private @external(%a: tensor<8xf32>) -> tensor<8xf32>

// The caller owns call results: it frees them after their last use (an unused one right
// after the call), and copies one it returns (freeing the call's buffer after the copy).
// CHECK-LABEL: func.func @calls
// CHECK-NEXT:    %[[R:.*]]:2 = call @helper(%arg0) : (memref<8xf32>) -> (memref<8xf32>, memref<f32>)
// CHECK-NEXT:    %[[E:.*]] = call @external(%[[R]]#0) : (memref<8xf32>) -> memref<8xf32>
// CHECK-NEXT:    loop.dealloc %[[E]] : memref<8xf32>
// CHECK-NEXT:    %[[N:.*]] = loop.alloc() : memref<8xf32>
// CHECK-NEXT:    loop.parallel
// CHECK:           loop.load %[[R]]#1
// CHECK:         }
// CHECK-NEXT:    loop.dealloc %[[R]]#1 : memref<f32>
// CHECK-NEXT:    %[[COPY:.*]] = loop.alloc() : memref<8xf32>
// CHECK-NEXT:    memref.copy %[[R]]#0, %[[COPY]] : memref<8xf32> to memref<8xf32>
// CHECK-NEXT:    loop.dealloc %[[R]]#0 : memref<8xf32>
// CHECK-NEXT:    return %[[N]], %[[COPY]] : memref<8xf32>, memref<8xf32>
func.func @calls(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t, %s = func.call @helper(%a) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>)
  %unused = func.call @external(%t) : (tensor<8xf32>) -> tensor<8xf32>
  %n = te.compute (%t, %s) [%i] {
    %x = te.read %t[(d0) -> (d0)] : tensor<8xf32>
    %y = te.read %s[(d0) -> ()] : tensor<f32>
    %q = arith.mulf %x, %y : f32
    te.yield %q : f32
  } : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %n, %t : tensor<8xf32>, tensor<8xf32>
}

// Functions already on buffers are left as they are.
// CHECK-LABEL: func.func @loop_level
// CHECK-NEXT:    return %arg0 : memref<8xf32>
func.func @loop_level(%a: memref<8xf32>) -> memref<8xf32> {
  return %a : memref<8xf32>
}
