// RUN: tb-run --interpret %s --function rows_times_ones --print-limit 128 | FileCheck %s
// RUN: not tb-run --interpret %s --function half_a_warp 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not tb-run --interpret %s --function outside_a_launch 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: tb-run --interpret %s --function fragments_from_shared_memory --print-limit 128 | FileCheck %s --check-prefix=LDMATRIX

// One warp multiplies A (16x16, each element its row number) by B (16x8, all ones) and
// adds C (each element its column number): D[r][n] = 16 r + n. Each lane builds its
// fragments from its place in the warp (group g = lane / 4, t = lane mod 4): A's elements
// lie in rows g, g, g+8, g+8, g, g, g+8, g+8, C's and D's in columns 2t, 2t+1, 2t, 2t+1
// of rows g, g, g+8, g+8, as PTX lays out mma.m16n8k16.
// CHECK: result #0: memref<16x8xf32> = {{\[}}[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0],
// CHECK-SAME: [240.0, 241.0, 242.0, 243.0, 244.0, 245.0, 246.0, 247.0]]
func.func @rows_times_ones() -> memref<16x8xf32> {
  %out = loop.alloc() : memref<16x8xf32>
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %g = arith.divui %tx, %c4 : index
    %t = arith.remui %tx, %c4 : index
    %g8 = arith.addi %g, %c8 : index
    %col = arith.muli %t, %c2 : index
    %col1 = arith.addi %col, %c1 : index
    %gi = arith.index_cast %g : index to i32
    %g8i = arith.index_cast %g8 : index to i32
    %row = arith.sitofp %gi : i32 to f16
    %row8 = arith.sitofp %g8i : i32 to f16
    %a = vector.from_elements %row, %row, %row8, %row8, %row, %row, %row8, %row8 : vector<4x2xf16>
    %one = arith.constant 1.0 : f16
    %b = vector.from_elements %one, %one, %one, %one : vector<2x2xf16>
    %ci = arith.index_cast %col : index to i32
    %ci1 = arith.index_cast %col1 : index to i32
    %cf = arith.sitofp %ci : i32 to f32
    %cf1 = arith.sitofp %ci1 : i32 to f32
    %c = vector.from_elements %cf, %cf1, %cf, %cf1 : vector<2x2xf32>
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    loop.store %d0, %out[%g, %col] : memref<16x8xf32>
    loop.store %d1, %out[%g, %col1] : memref<16x8xf32>
    loop.store %d2, %out[%g8, %col] : memref<16x8xf32>
    loop.store %d3, %out[%g8, %col1] : memref<16x8xf32>
    gpu.terminator
  }
  return %out : memref<16x8xf32>
}

// The 32 lanes of a warp compute together: a block of 16 threads has no whole warp.
// HALF: error: 'nvgpu.mma.sync' op needs whole warps, but runs in a group of 16 threads
func.func @half_a_warp() {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %h = arith.constant 1.0 : f16
    %f = arith.constant 0.0 : f32
    %a = vector.from_elements %h, %h, %h, %h, %h, %h, %h, %h : vector<4x2xf16>
    %b = vector.from_elements %h, %h, %h, %h : vector<2x2xf16>
    %c = vector.from_elements %f, %f, %f, %f : vector<2x2xf32>
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.terminator
  }
  return
}

// OUTSIDE: error: 'nvgpu.mma.sync' op runs only inside a gpu.launch body, where the interpreter runs a warp's lanes in lockstep
func.func @outside_a_launch() -> vector<2x2xf32> {
  %h = arith.constant 1.0 : f16
  %f = arith.constant 0.0 : f32
  %a = vector.from_elements %h, %h, %h, %h, %h, %h, %h, %h : vector<4x2xf16>
  %b = vector.from_elements %h, %h, %h, %h : vector<2x2xf16>
  %c = vector.from_elements %f, %f, %f, %f : vector<2x2xf32>
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// The fragments come from shared memory through nvgpu.ldmatrix: A (16x16, each element its
// row number) as four 8x8 matrices, B (16x8, each element its column number) as two,
// transposed into the column-major fragment mma wants: D[r][n] = 16 r n. Lane l names
// row l mod 8 of matrix l / 8; the matrices of A lie at rows +8 and columns +8, B's at
// rows +8.
// LDMATRIX: result #0: memref<16x8xf32> = {{\[}}[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 16.0, 32.0, 48.0, 64.0, 80.0, 96.0, 112.0],
// LDMATRIX-SAME: [0.0, 240.0, 480.0, 720.0, 960.0, 1200.0, 1440.0, 1680.0]]
func.func @fragments_from_shared_memory() -> memref<16x8xf32> {
  %out = loop.alloc() : memref<16x8xf32>
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%as : memref<16x16xf16, #gpu.address_space<workgroup>>, %bs : memref<16x8xf16, #gpu.address_space<workgroup>>) {
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    // The 32 lanes fill A, then B, element by element.
    loop.for %e = 0 to 8 {
      %n = arith.muli %e, %c32 : index
      %flat = arith.addi %n, %tx : index
      %r = arith.divui %flat, %c16 : index
      %k = arith.remui %flat, %c16 : index
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f16
      loop.store %rf, %as[%r, %k] : memref<16x16xf16, #gpu.address_space<workgroup>>
    }
    loop.for %e = 0 to 4 {
      %n = arith.muli %e, %c32 : index
      %flat = arith.addi %n, %tx : index
      %k = arith.divui %flat, %c8 : index
      %col = arith.remui %flat, %c8 : index
      %ci = arith.index_cast %col : index to i32
      %cf = arith.sitofp %ci : i32 to f16
      loop.store %cf, %bs[%k, %col] : memref<16x8xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %within = arith.remui %tx, %c8 : index
    %matrix = arith.divui %tx, %c8 : index
    %below = arith.remui %matrix, %c2 : index
    %right = arith.divui %matrix, %c2 : index
    %down = arith.muli %below, %c8 : index
    %arow = arith.addi %within, %down : index
    %acol = arith.muli %right, %c8 : index
    %a = nvgpu.ldmatrix %as[%arow, %acol] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %c0 = arith.constant 0 : index
    %b = nvgpu.ldmatrix %bs[%arow, %c0] {numTiles = 2 : i32, transpose = true} : memref<16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant 0.0 : f32
    %c = vector.from_elements %zero, %zero, %zero, %zero : vector<2x2xf32>
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %g = arith.divui %tx, %c4 : index
    %t = arith.remui %tx, %c4 : index
    %g8 = arith.addi %g, %c8 : index
    %col = arith.muli %t, %c2 : index
    %col1 = arith.addi %col, %c1 : index
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    loop.store %d0, %out[%g, %col] : memref<16x8xf32>
    loop.store %d1, %out[%g, %col1] : memref<16x8xf32>
    loop.store %d2, %out[%g8, %col] : memref<16x8xf32>
    loop.store %d3, %out[%g8, %col1] : memref<16x8xf32>
    gpu.terminator
  }
  return %out : memref<16x8xf32>
}
