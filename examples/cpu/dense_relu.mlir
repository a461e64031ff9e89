// A dense layer with ReLU at the loop level, y = max(x . w + b, 0): rows in parallel, the
// 8 output features as one vector, the reduction unrolled by 4. Compiled by the CPU
// backend into a shared library that dense_relu.c calls through the generated header:
//
//   tb-translate --emit=shared-lib examples/cpu/dense_relu.mlir -o libdense_relu.so
//   cc examples/cpu/dense_relu.c -I. -L. -ldense_relu -Wl,-rpath,. -o dense_relu
func.func @dense_relu(%x: memref<4x16xf32>, %w: memref<16x8xf32>, %b: memref<8xf32>) -> memref<4x8xf32> {
  %y = loop.alloc() : memref<4x8xf32>
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %bias = loop.vector_load %b[() -> (0)]() : memref<8xf32>, vector<8xf32>
  loop.parallel (%i) = (0) to (4) {
    loop.vector_store %bias, %y[(d0) -> (d0, 0)](%i) : memref<4x8xf32>, vector<8xf32>
    loop.for %k = 0 to 16 unroll = 4 {
      %s = loop.load %x[%i, %k] : memref<4x16xf32>
      %sv = loop.broadcast %s : f32 to vector<8xf32>
      %wv = loop.vector_load %w[(d0) -> (d0, 0)](%k) : memref<16x8xf32>, vector<8xf32>
      %acc = loop.vector_load %y[(d0) -> (d0, 0)](%i) : memref<4x8xf32>, vector<8xf32>
      %r = loop.fma %sv, %wv, %acc : vector<8xf32>
      loop.vector_store %r, %y[(d0) -> (d0, 0)](%i) : memref<4x8xf32>, vector<8xf32>
    }
    %sum = loop.vector_load %y[(d0) -> (d0, 0)](%i) : memref<4x8xf32>, vector<8xf32>
    %relu = arith.maximumf %sum, %zero : vector<8xf32>
    loop.vector_store %relu, %y[(d0) -> (d0, 0)](%i) : memref<4x8xf32>, vector<8xf32>
  }
  return %y : memref<4x8xf32>
}

// The sum of all elements of y scaled by alpha: a scalar argument and a scalar result.
func.func @scaled_sum(%y: memref<4x8xf32>, %alpha: f32) -> f32 {
  %acc = loop.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  loop.store %zero, %acc[] : memref<f32>
  loop.for %i = 0 to 4 {
    loop.for %j = 0 to 8 {
      %v = loop.load %y[%i, %j] : memref<4x8xf32>
      %s = loop.load %acc[] : memref<f32>
      %t = arith.addf %s, %v : f32
      loop.store %t, %acc[] : memref<f32>
    }
  }
  %total = loop.load %acc[] : memref<f32>
  loop.dealloc %acc : memref<f32>
  %scaled = arith.mulf %total, %alpha : f32
  return %scaled : f32
}
