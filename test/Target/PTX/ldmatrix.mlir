// RUN: tb-translate --emit=ptx --gpu-arch=sm_80 %s -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tb-translate --emit=ptx --gpu-arch=sm_90 %s -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// REQUIRES: nvptx, ptxas

// nvgpu.ldmatrix reads shared memory (its address cast to the shared space), four
// matrices of A and two transposed ones of B, feeding one tensor-core instruction; the
// interpreter runs the same kernel in test/Integration/interpret/mma.mlir.
// CHECK-LABEL: .visible .entry fragments_from_shared_memory_kernel_0(
// CHECK:         bar.sync 0;
// CHECK-DAG:     ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:     ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK:         mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
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
