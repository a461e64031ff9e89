// RUN: tb-opt %s --canonicalize | FileCheck %s
// RUN: tb-opt %s --canonicalize=test-convergence | FileCheck %s
// The same checks hold for MLIR's canonicalizer.
// RUN: mlir-opt %s --canonicalize | FileCheck %s
// REQUIRES: mlir-opt

// A static size folds to a constant.
// CHECK-LABEL: func.func @dim_static(%arg0: index) -> index {
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    return %c4 : index
// CHECK-NEXT:  }
func.func @dim_static(%n: index) -> index {
  %0 = memref.alloc(%n) : memref<4x?xf32>
  %c0 = arith.constant 0 : index
  %d = memref.dim %0, %c0 : memref<4x?xf32>
  memref.dealloc %0 : memref<4x?xf32>
  return %d : index
}

// A dynamic size of an allocation is the operand that gave it.
// CHECK-LABEL: func.func @dim_alloc_dynamic(%arg0: index, %arg1: index) -> (index, index) {
// CHECK-NEXT:    return %arg1, %arg0 : index, index
// CHECK-NEXT:  }
func.func @dim_alloc_dynamic(%n: index, %m: index) -> (index, index) {
  %0 = memref.alloc(%n, %m) : memref<?x4x?xf32>
  %1 = memref.alloca(%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = memref.dim %0, %c2 : memref<?x4x?xf32>
  %e = memref.dim %1, %c0 : memref<?xf32>
  memref.dealloc %0 : memref<?x4x?xf32>
  return %d, %e : index, index
}

// So is one of a view, and of a subview (past the dimensions it drops).
// CHECK-LABEL: func.func @dim_view_subview(%arg0: memref<64xi8>, %arg1: memref<8x?xf32>, %arg2: index, %arg3: index) -> (index, index) {
// CHECK-NEXT:    return %arg2, %arg3 : index, index
// CHECK-NEXT:  }
func.func @dim_view_subview(%b: memref<64xi8>, %m: memref<8x?xf32>, %n: index, %k: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %0 = memref.view %b[%c0][%n] : memref<64xi8> to memref<?x4xf32>
  %1 = memref.subview %m[0, 0] [1, %k] [1, 1] : memref<8x?xf32> to memref<?xf32, strided<[1]>>
  %d = memref.dim %0, %c0 : memref<?x4xf32>
  %e = memref.dim %1, %c0 : memref<?xf32, strided<[1]>>
  return %d, %e : index, index
}

// An index out of range is undefined behaviour and stays; so does a dimension nothing
// is known of.
// CHECK-LABEL: func.func @dim_unknown(%arg0: memref<4x?xf32>) -> (index, index) {
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c5 = arith.constant 5 : index
// CHECK-NEXT:    %dim = memref.dim %arg0, %c5 : memref<4x?xf32>
// CHECK-NEXT:    %dim_0 = memref.dim %arg0, %c1 : memref<4x?xf32>
// CHECK-NEXT:    return %dim, %dim_0 : index, index
// CHECK-NEXT:  }
func.func @dim_unknown(%m: memref<4x?xf32>) -> (index, index) {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %d = memref.dim %m, %c5 : memref<4x?xf32>
  %e = memref.dim %m, %c1 : memref<4x?xf32>
  return %d, %e : index, index
}

// dim looks through a cast.
// CHECK-LABEL: func.func @dim_of_cast(%arg0: memref<4x8xf32>) -> index {
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    return %c8 : index
// CHECK-NEXT:  }
func.func @dim_of_cast(%m: memref<4x8xf32>) -> index {
  %0 = memref.cast %m : memref<4x8xf32> to memref<?x?xf32>
  %c1 = arith.constant 1 : index
  %d = memref.dim %0, %c1 : memref<?x?xf32>
  return %d : index
}

// The rank of a ranked memref is a constant.
// CHECK-LABEL: func.func @rank(%arg0: memref<4x?xf32>, %arg1: memref<*xf32>) -> (index, index) {
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %0 = memref.rank %arg1 : memref<*xf32>
// CHECK-NEXT:    return %c2, %0 : index, index
// CHECK-NEXT:  }
func.func @rank(%m: memref<4x?xf32>, %u: memref<*xf32>) -> (index, index) {
  %0 = memref.rank %m : memref<4x?xf32>
  %1 = memref.rank %u : memref<*xf32>
  return %0, %1 : index, index
}

// Constant sizes of an allocation become static, and a cast restores the type.
// CHECK-LABEL: func.func @alloc_constant_sizes(%arg0: index) -> memref<?x?x?xf32> {
// CHECK-NEXT:    %alloc = memref.alloc(%arg0) {alignment = 32 : i64} : memref<4x?x8xf32>
// CHECK-NEXT:    %cast = memref.cast %alloc : memref<4x?x8xf32> to memref<?x?x?xf32>
// CHECK-NEXT:    return %cast : memref<?x?x?xf32>
// CHECK-NEXT:  }
func.func @alloc_constant_sizes(%n: index) -> memref<?x?x?xf32> {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %0 = memref.alloc(%c4, %n, %c8) {alignment = 32 : i64} : memref<?x?x?xf32>
  return %0 : memref<?x?x?xf32>
}

// The same for stack allocations; their users then take the static allocation.
// CHECK-LABEL: func.func @alloca_constant_sizes(%arg0: f32, %arg1: index) -> f32 {
// CHECK-NEXT:    %alloca = memref.alloca() : memref<3xf32>
// CHECK-NEXT:    memref.store %arg0, %alloca[%arg1] : memref<3xf32>
// CHECK-NEXT:    %0 = memref.load %alloca[%arg1] : memref<3xf32>
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  }
func.func @alloca_constant_sizes(%v: f32, %i: index) -> f32 {
  %c3 = arith.constant 3 : index
  %0 = memref.alloca(%c3) : memref<?xf32>
  memref.store %v, %0[%i] : memref<?xf32>
  %1 = memref.load %0[%i] : memref<?xf32>
  return %1 : f32
}

// Negative constant sizes do not become static.
// CHECK-LABEL: func.func @alloc_negative_size() -> memref<?xf32> {
// CHECK-NEXT:    %c-1 = arith.constant -1 : index
// CHECK-NEXT:    %alloc = memref.alloc(%c-1) : memref<?xf32>
// CHECK-NEXT:    return %alloc : memref<?xf32>
// CHECK-NEXT:  }
func.func @alloc_negative_size() -> memref<?xf32> {
  %c = arith.constant -1 : index
  %0 = memref.alloc(%c) : memref<?xf32>
  return %0 : memref<?xf32>
}

// An allocation only stored into and freed is erased with those uses.
// CHECK-LABEL: func.func @dead_alloc(%arg0: f32, %arg1: index) {
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @dead_alloc(%v: f32, %i: index) {
  %0 = memref.alloc() : memref<4xf32>
  memref.store %v, %0[%i] : memref<4xf32>
  memref.dealloc %0 : memref<4xf32>
  %1 = memref.alloca() : memref<4xf32>
  return
}

// An allocation that is read, or stored as a value, stays.
// CHECK-LABEL: func.func @live_alloc(%arg0: f32, %arg1: index, %arg2: memref<memref<4xf32>>) -> f32 {
// CHECK-NEXT:    %alloc = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.store %arg0, %alloc[%arg1] : memref<4xf32>
// CHECK-NEXT:    %0 = memref.load %alloc[%arg1] : memref<4xf32>
// CHECK-NEXT:    memref.dealloc %alloc : memref<4xf32>
// CHECK-NEXT:    %alloc_0 = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.store %alloc_0, %arg2[] : memref<memref<4xf32>>
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  }
func.func @live_alloc(%v: f32, %i: index, %mm: memref<memref<4xf32>>) -> f32 {
  %0 = memref.alloc() : memref<4xf32>
  memref.store %v, %0[%i] : memref<4xf32>
  %l = memref.load %0[%i] : memref<4xf32>
  memref.dealloc %0 : memref<4xf32>
  %1 = memref.alloc() : memref<4xf32>
  memref.store %1, %mm[] : memref<memref<4xf32>>
  return %l : f32
}

// An unused load is removed; a load after a store is not forwarded.
// CHECK-LABEL: func.func @loads(%arg0: memref<4xf32>, %arg1: f32, %arg2: index) -> f32 {
// CHECK-NEXT:    memref.store %arg1, %arg0[%arg2] : memref<4xf32>
// CHECK-NEXT:    %0 = memref.load %arg0[%arg2] : memref<4xf32>
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  }
func.func @loads(%m: memref<4xf32>, %v: f32, %i: index) -> f32 {
  %0 = memref.load %m[%i] : memref<4xf32>
  memref.store %v, %m[%i] : memref<4xf32>
  %1 = memref.load %m[%i] : memref<4xf32>
  return %1 : f32
}

// Loads, stores and deallocations take the source of a cast.
// CHECK-LABEL: func.func @access_through_cast(%arg0: memref<?xf32>, %arg1: f32, %arg2: index) -> f32 {
// CHECK-NEXT:    %0 = memref.load %arg0[%arg2] : memref<?xf32>
// CHECK-NEXT:    memref.store %arg1, %arg0[%arg2] : memref<?xf32>
// CHECK-NEXT:    memref.dealloc %arg0 : memref<?xf32>
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  }
func.func @access_through_cast(%m: memref<?xf32>, %v: f32, %i: index) -> f32 {
  %0 = memref.cast %m : memref<?xf32> to memref<4xf32>
  %1 = memref.load %0[%i] : memref<4xf32>
  memref.store %v, %0[%i] : memref<4xf32>
  %2 = memref.cast %m : memref<?xf32> to memref<*xf32>
  memref.dealloc %2 : memref<*xf32>
  return %1 : f32
}

// A cast to its own type, or back to where a cast came from, is its operand.
// CHECK-LABEL: func.func @cast_identity(%arg0: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
// CHECK-NEXT:    return %arg0, %arg0 : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:  }
func.func @cast_identity(%m: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %0 = memref.cast %m : memref<4xf32> to memref<4xf32>
  %1 = memref.cast %m : memref<4xf32> to memref<?xf32>
  %2 = memref.cast %1 : memref<?xf32> to memref<4xf32>
  return %0, %2 : memref<4xf32>, memref<4xf32>
}

// A cast of a cast casts the first source.
// CHECK-LABEL: func.func @cast_of_cast(%arg0: memref<4xf32>) -> memref<*xf32> {
// CHECK-NEXT:    %cast = memref.cast %arg0 : memref<4xf32> to memref<*xf32>
// CHECK-NEXT:    return %cast : memref<*xf32>
// CHECK-NEXT:  }
func.func @cast_of_cast(%m: memref<4xf32>) -> memref<*xf32> {
  %0 = memref.cast %m : memref<4xf32> to memref<?xf32>
  %1 = memref.cast %0 : memref<?xf32> to memref<*xf32>
  return %1 : memref<*xf32>
}

// Copies of a memref onto itself or of no elements are erased.
// CHECK-LABEL: func.func @copy_no_op(%arg0: memref<4xf32>, %arg1: memref<0xf32>, %arg2: memref<?xf32>) {
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @copy_no_op(%m: memref<4xf32>, %z: memref<0xf32>, %d: memref<?xf32>) {
  memref.copy %m, %m : memref<4xf32> to memref<4xf32>
  memref.copy %z, %d : memref<0xf32> to memref<?xf32>
  return
}

// A copy takes a cast's source when the cast only forgets static sizes.
// CHECK-LABEL: func.func @copy_of_cast(%arg0: memref<?xf32>, %arg1: memref<4xf32>) {
// CHECK-NEXT:    %cast = memref.cast %arg0 : memref<?xf32> to memref<4xf32>
// CHECK-NEXT:    memref.copy %cast, %arg1 : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    memref.copy %arg1, %arg0 : memref<4xf32> to memref<?xf32>
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @copy_of_cast(%m: memref<?xf32>, %t: memref<4xf32>) {
  %0 = memref.cast %m : memref<?xf32> to memref<4xf32>
  memref.copy %0, %t : memref<4xf32> to memref<4xf32>
  %1 = memref.cast %t : memref<4xf32> to memref<?xf32>
  memref.copy %1, %m : memref<?xf32> to memref<?xf32>
  return
}

// A subview of all of a static memref is the memref.
// CHECK-LABEL: func.func @subview_whole(%arg0: memref<8xf32>) -> (memref<8xf32>, memref<8xf32, strided<[1]>>) {
// CHECK-NEXT:    %cast = memref.cast %arg0 : memref<8xf32> to memref<8xf32, strided<[1]>>
// CHECK-NEXT:    return %arg0, %cast : memref<8xf32>, memref<8xf32, strided<[1]>>
// CHECK-NEXT:  }
func.func @subview_whole(%m: memref<8xf32>) -> (memref<8xf32>, memref<8xf32, strided<[1]>>) {
  %0 = memref.subview %m[0] [8] [1] : memref<8xf32> to memref<8xf32>
  %1 = memref.subview %m[0] [8] [1] : memref<8xf32> to memref<8xf32, strided<[1]>>
  return %0, %1 : memref<8xf32>, memref<8xf32, strided<[1]>>
}

// Constant offsets, sizes and strides become static; a cast restores the type.
// CHECK-LABEL: func.func @subview_constants(%arg0: memref<8x16xf32>) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
// CHECK-NEXT:    %subview = memref.subview %arg0[1, 2] [4, 4] [1, 2] : memref<8x16xf32> to memref<4x4xf32, strided<[16, 2], offset: 18>>
// CHECK-NEXT:    %cast = memref.cast %subview : memref<4x4xf32, strided<[16, 2], offset: 18>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    return %cast : memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:  }
func.func @subview_constants(%m: memref<8x16xf32>) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %0 = memref.subview %m[%c1, %c2] [%c4, %c4] [%c1, %c2] : memref<8x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  return %0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
}

// Negative offsets and sizes and zero strides stay dynamic.
// CHECK-LABEL: func.func @subview_kept_operands(%arg0: memref<8xf32>) -> memref<?xf32, strided<[?], offset: ?>> {
// CHECK-NEXT:    %c-1 = arith.constant -1 : index
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %subview = memref.subview %arg0[%c-1] [%c-1] [%c0] : memref<8xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK-NEXT:    return %subview : memref<?xf32, strided<[?], offset: ?>>
// CHECK-NEXT:  }
func.func @subview_kept_operands(%m: memref<8xf32>) -> memref<?xf32, strided<[?], offset: ?>> {
  %m1 = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %0 = memref.subview %m[%m1] [%m1] [%c0] : memref<8xf32> to memref<?xf32, strided<[?], offset: ?>>
  return %0 : memref<?xf32, strided<[?], offset: ?>>
}

// A subview of a cast that only forgets static sizes slices the cast's source.
// CHECK-LABEL: func.func @subview_of_cast(%arg0: memref<8x4xf32>) -> memref<2xf32, strided<[4], offset: ?>> {
// CHECK-NEXT:    %subview = memref.subview %arg0[1, 0] [2, 1] [1, 1] : memref<8x4xf32> to memref<2xf32, strided<[4], offset: 4>>
// CHECK-NEXT:    %cast = memref.cast %subview : memref<2xf32, strided<[4], offset: 4>> to memref<2xf32, strided<[4], offset: ?>>
// CHECK-NEXT:    return %cast : memref<2xf32, strided<[4], offset: ?>>
// CHECK-NEXT:  }
func.func @subview_of_cast(%m: memref<8x4xf32>) -> memref<2xf32, strided<[4], offset: ?>> {
  %0 = memref.cast %m : memref<8x4xf32> to memref<?x4xf32>
  %c = arith.constant 1 : index
  %1 = memref.subview %0[%c, 0] [2, 1] [1, 1] : memref<?x4xf32> to memref<2xf32, strided<[4], offset: ?>>
  return %1 : memref<2xf32, strided<[4], offset: ?>>
}

// A subview at offset zero with unit strides and equal sizes of a subview is the latter.
// CHECK-LABEL: func.func @subview_of_subview(%arg0: memref<8x16xf32>, %arg1: index) -> memref<4x?xf32, strided<[16, 1], offset: ?>> {
// CHECK-NEXT:    %subview = memref.subview %arg0[2, %arg1] [4, %arg1] [1, 1] : memref<8x16xf32> to memref<4x?xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT:    return %subview : memref<4x?xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT:  }
func.func @subview_of_subview(%m: memref<8x16xf32>, %n: index) -> memref<4x?xf32, strided<[16, 1], offset: ?>> {
  %0 = memref.subview %m[2, %n] [4, %n] [1, 1] : memref<8x16xf32> to memref<4x?xf32, strided<[16, 1], offset: ?>>
  %1 = memref.subview %0[0, 0] [4, %n] [1, 1] : memref<4x?xf32, strided<[16, 1], offset: ?>> to memref<4x?xf32, strided<[16, 1], offset: ?>>
  return %1 : memref<4x?xf32, strided<[16, 1], offset: ?>>
}

// reinterpret_cast looks through casts, and to its source's own type it is the source.
// CHECK-LABEL: func.func @reinterpret_cast_fold(%arg0: memref<8xf32>) -> (memref<2x4xf32>, memref<8xf32>) {
// CHECK-NEXT:    %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [2, 4], strides: [4, 1] : memref<8xf32> to memref<2x4xf32>
// CHECK-NEXT:    return %reinterpret_cast, %arg0 : memref<2x4xf32>, memref<8xf32>
// CHECK-NEXT:  }
func.func @reinterpret_cast_fold(%m: memref<8xf32>) -> (memref<2x4xf32>, memref<8xf32>) {
  %0 = memref.cast %m : memref<8xf32> to memref<?xf32>
  %1 = memref.reinterpret_cast %0 to offset: [0], sizes: [2, 4], strides: [4, 1] : memref<?xf32> to memref<2x4xf32>
  %2 = memref.reinterpret_cast %m to offset: [0], sizes: [8], strides: [1] : memref<8xf32> to memref<8xf32>
  return %1, %2 : memref<2x4xf32>, memref<8xf32>
}

// Constant offset, sizes and strides of a reinterpret_cast become static.
// CHECK-LABEL: func.func @reinterpret_cast_constants(%arg0: memref<8xf32>) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
// CHECK-NEXT:    %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [2, 4], strides: [4, 1] : memref<8xf32> to memref<2x4xf32, strided<[4, 1]>>
// CHECK-NEXT:    %cast = memref.cast %reinterpret_cast : memref<2x4xf32, strided<[4, 1]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    return %cast : memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:  }
func.func @reinterpret_cast_constants(%m: memref<8xf32>) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %0 = memref.reinterpret_cast %m to offset: [%c0], sizes: [%c2, %c4], strides: [%c4, %c1] : memref<8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  return %0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
}

// A reshape and its inverse cancel; a reshape to its own type is its source.
// CHECK-LABEL: func.func @reshape_inverse(%arg0: memref<2x4xf32>, %arg1: memref<8xf32>) -> (memref<2x4xf32>, memref<8xf32>, memref<8xf32>) {
// CHECK-NEXT:    return %arg0, %arg1, %arg1 : memref<2x4xf32>, memref<8xf32>, memref<8xf32>
// CHECK-NEXT:  }
func.func @reshape_inverse(%m: memref<2x4xf32>, %v: memref<8xf32>) -> (memref<2x4xf32>, memref<8xf32>, memref<8xf32>) {
  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %1 = memref.expand_shape %0 [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %2 = memref.expand_shape %v [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %3 = memref.collapse_shape %2 [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %4 = memref.collapse_shape %v [[0]] : memref<8xf32> into memref<8xf32>
  return %1, %3, %4 : memref<2x4xf32>, memref<8xf32>, memref<8xf32>
}

// Chains of collapses, and of expansions, become one.
// CHECK-LABEL: func.func @reshape_chains(%arg0: memref<2x3x4xf32>, %arg1: memref<24xf32>) -> (memref<24xf32>, memref<2x3x2x2xf32>) {
// CHECK-NEXT:    %collapse_shape = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
// CHECK-NEXT:    %expand_shape = memref.expand_shape %arg1 {{\[\[}}0, 1, 2, 3]] output_shape [2, 3, 2, 2] : memref<24xf32> into memref<2x3x2x2xf32>
// CHECK-NEXT:    return %collapse_shape, %expand_shape : memref<24xf32>, memref<2x3x2x2xf32>
// CHECK-NEXT:  }
func.func @reshape_chains(%m: memref<2x3x4xf32>, %v: memref<24xf32>) -> (memref<24xf32>, memref<2x3x2x2xf32>) {
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %1 = memref.collapse_shape %0 [[0, 1]] : memref<6x4xf32> into memref<24xf32>
  %2 = memref.expand_shape %v [[0, 1]] output_shape [6, 4] : memref<24xf32> into memref<6x4xf32>
  %3 = memref.expand_shape %2 [[0, 1], [2, 3]] output_shape [2, 3, 2, 2] : memref<6x4xf32> into memref<2x3x2x2xf32>
  return %1, %3 : memref<24xf32>, memref<2x3x2x2xf32>
}

// Constant sizes of a view become static; a view of a buffer as itself is the buffer.
// CHECK-LABEL: func.func @view_constants(%arg0: memref<64xi8>) -> (memref<?x4xf32>, memref<64xi8>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %view = memref.view %arg0[%c0][] : memref<64xi8> to memref<4x4xf32>
// CHECK-NEXT:    %cast = memref.cast %view : memref<4x4xf32> to memref<?x4xf32>
// CHECK-NEXT:    return %cast, %arg0 : memref<?x4xf32>, memref<64xi8>
// CHECK-NEXT:  }
func.func @view_constants(%b: memref<64xi8>) -> (memref<?x4xf32>, memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %0 = memref.view %b[%c0][%c4] : memref<64xi8> to memref<?x4xf32>
  %1 = memref.view %b[%c0][] : memref<64xi8> to memref<64xi8>
  return %0, %1 : memref<?x4xf32>, memref<64xi8>
}

// Unused views and queries are removed.
// CHECK-LABEL: func.func @dead_views(%arg0: memref<8xf32>, %arg1: index) {
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @dead_views(%m: memref<8xf32>, %i: index) {
  %0 = memref.subview %m[%i] [2] [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: ?>>
  %1 = memref.cast %m : memref<8xf32> to memref<?xf32>
  %2 = memref.dim %1, %i : memref<?xf32>
  %3 = memref.expand_shape %m [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  return
}

// The size of a reshaped dimension is read from the shape, right after the reshape.
// CHECK-LABEL: func.func @dim_of_reshape(%arg0: memref<*xf32>, %arg1: memref<?xindex>, %arg2: index) -> index {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %0 = memref.load %arg1[%arg2] : memref<?xindex>
// CHECK-NEXT:    memref.store %c0, %arg1[%c0] : memref<?xindex>
// CHECK-NEXT:    return %0 : index
// CHECK-NEXT:  }
func.func @dim_of_reshape(%m: memref<*xf32>, %shape: memref<?xindex>, %i: index) -> index {
  %c0 = arith.constant 0 : index
  %r = memref.reshape %m(%shape) : (memref<*xf32>, memref<?xindex>) -> memref<*xf32>
  memref.store %c0, %shape[%c0] : memref<?xindex>
  %d = memref.dim %r, %i : memref<*xf32>
  return %d : index
}

// A shape of integers is cast to index.
// CHECK-LABEL: func.func @dim_of_reshape_i32(%arg0: memref<*xf32>, %arg1: memref<?xi32>) -> index {
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %0 = memref.load %arg1[%c1] : memref<?xi32>
// CHECK-NEXT:    %1 = arith.index_cast %0 : i32 to index
// CHECK-NEXT:    return %1 : index
// CHECK-NEXT:  }
func.func @dim_of_reshape_i32(%m: memref<*xf32>, %shape: memref<?xi32>) -> index {
  %c1 = arith.constant 1 : index
  %r = memref.reshape %m(%shape) : (memref<*xf32>, memref<?xi32>) -> memref<*xf32>
  %d = memref.dim %r, %c1 : memref<*xf32>
  return %d : index
}

// An index defined after the reshape leaves the dim alone.
// CHECK-LABEL: func.func @dim_of_reshape_late_index(%arg0: memref<*xf32>, %arg1: memref<?xindex>, %arg2: index) -> index {
// CHECK-NEXT:    %reshape = memref.reshape %arg0(%arg1) : (memref<*xf32>, memref<?xindex>) -> memref<*xf32>
// CHECK-NEXT:    %0 = arith.addi %arg2, %arg2 : index
// CHECK-NEXT:    %dim = memref.dim %reshape, %0 : memref<*xf32>
// CHECK-NEXT:    return %dim : index
// CHECK-NEXT:  }
func.func @dim_of_reshape_late_index(%m: memref<*xf32>, %shape: memref<?xindex>, %j: index) -> index {
  %r = memref.reshape %m(%shape) : (memref<*xf32>, memref<?xindex>) -> memref<*xf32>
  %i = arith.addi %j, %j : index
  %d = memref.dim %r, %i : memref<*xf32>
  return %d : index
}

// A realloc only stored to is erased with its stores.
// CHECK-LABEL: func.func @dead_realloc(%arg0: memref<2xf32>, %arg1: f32) -> f32 {
// CHECK-NEXT:    return %arg1 : f32
// CHECK-NEXT:  }
func.func @dead_realloc(%m: memref<2xf32>, %v: f32) -> f32 {
  %c3 = arith.constant 3 : index
  %r = memref.realloc %m : memref<2xf32> to memref<4xf32>
  memref.store %v, %r[%c3] : memref<4xf32>
  return %v : f32
}

// Offsets, sizes and strides the source type fixes become constants; the metadata of a
// cast reads the cast's source.
// CHECK-LABEL: func.func @metadata_constants(
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         memref.extract_strided_metadata %arg0 : memref<8x?xf32, strided<[?, 1]>> ->
// CHECK:         return %[[C8]], %{{.*}}, %{{.*}}, %[[C1]] :
func.func @metadata_constants(%m: memref<8x?xf32, strided<[?, 1]>>) -> (index, index, index, index) {
  %c = memref.cast %m : memref<8x?xf32, strided<[?, 1]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %c : memref<?x?xf32, strided<[?, ?], offset: ?>> -> memref<f32>, index, index, index, index, index
  return %sizes#0, %sizes#1, %strides#0, %strides#1 : index, index, index, index
}

// Rebuilding a memref from its own metadata gives the memref back.
// CHECK-LABEL: func.func @reinterpret_own_metadata(
// CHECK-NEXT:    return %arg0
func.func @reinterpret_own_metadata(%m: memref<?x4xf32>) -> memref<?x4xf32> {
  %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %m : memref<?x4xf32> -> memref<f32>, index, index, index, index, index
  %r = memref.reinterpret_cast %base to offset: [0], sizes: [%sizes#0, 4], strides: [4, 1] : memref<f32> to memref<?x4xf32>
  return %r : memref<?x4xf32>
}

// A transpose back to the original order and type folds away; chains compose.
// CHECK-LABEL: func.func @transposes(
// CHECK-NEXT:    %[[T:.*]] = memref.transpose %arg0 (d0, d1, d2) -> (d2, d1, d0)
// CHECK-NEXT:    return %arg0, %[[T]]
func.func @transposes(%m: memref<2x3x4xf32>) -> (memref<2x3x4xf32>, memref<4x3x2xf32, strided<[1, 4, 12]>>) {
  %a = memref.transpose %m (d0, d1, d2) -> (d1, d0, d2) : memref<2x3x4xf32> to memref<3x2x4xf32, strided<[4, 12, 1]>>
  %b = memref.transpose %a (d0, d1, d2) -> (d1, d0, d2) : memref<3x2x4xf32, strided<[4, 12, 1]>> to memref<2x3x4xf32>
  %c = memref.transpose %a (d0, d1, d2) -> (d2, d0, d1) : memref<3x2x4xf32, strided<[4, 12, 1]>> to memref<4x3x2xf32, strided<[1, 4, 12]>>
  return %b, %c : memref<2x3x4xf32>, memref<4x3x2xf32, strided<[1, 4, 12]>>
}

// Memory-space casts chain into one; to the same type, none. Repeated alignment
// assumptions are one.
// CHECK-LABEL: func.func @casts_and_assumptions(
// CHECK-NEXT:    %[[S:.*]] = memref.memory_space_cast %arg0 : memref<4xf32> to memref<4xf32, 2>
// CHECK-NEXT:    %[[A:.*]] = memref.assume_alignment %arg0, 64
// CHECK-NEXT:    return %[[S]], %[[A]]
func.func @casts_and_assumptions(%m: memref<4xf32>) -> (memref<4xf32, 2>, memref<4xf32>) {
  %0 = memref.memory_space_cast %m : memref<4xf32> to memref<4xf32, 1>
  %1 = memref.memory_space_cast %0 : memref<4xf32, 1> to memref<4xf32, 2>
  %2 = memref.memory_space_cast %m : memref<4xf32> to memref<4xf32>
  %3 = memref.assume_alignment %2, 64 : memref<4xf32>
  %4 = memref.assume_alignment %3, 64 : memref<4xf32>
  return %1, %4 : memref<4xf32, 2>, memref<4xf32>
}

// A reshape of a cast that only forgets sizes reshapes the cast's source.
// CHECK-LABEL: func.func @reshape_of_cast(
// CHECK-NEXT:    %[[E:.*]] = memref.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [2, 3, 5] : memref<6x5xf32> into memref<2x3x5xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<6x5xf32> into memref<30xf32>
// CHECK-NEXT:    %[[D:.*]] = memref.cast %[[C]] : memref<30xf32> to memref<?xf32>
// CHECK-NEXT:    return %[[E]], %[[D]]
func.func @reshape_of_cast(%m: memref<6x5xf32>) -> (memref<2x3x5xf32>, memref<?xf32>) {
  %c = memref.cast %m : memref<6x5xf32> to memref<?x5xf32>
  %c2 = arith.constant 2 : index
  %e = memref.expand_shape %c [[0, 1], [2]] output_shape [%c2, 3, 5] : memref<?x5xf32> into memref<?x3x5xf32>
  %e2 = memref.cast %e : memref<?x3x5xf32> to memref<2x3x5xf32>
  %f = memref.collapse_shape %c [[0, 1]] : memref<?x5xf32> into memref<?xf32>
  return %e2, %f : memref<2x3x5xf32>, memref<?xf32>
}

// A view of a cast views the cast's source.
// CHECK-LABEL: func.func @view_of_cast(
// CHECK:         memref.view %arg0[%{{.*}}][] : memref<64xi8> to memref<4xf32>
func.func @view_of_cast(%m: memref<64xi8>, %s: index) -> memref<4xf32> {
  %c = memref.cast %m : memref<64xi8> to memref<?xi8>
  %v = memref.view %c[%s][] : memref<?xi8> to memref<4xf32>
  return %v : memref<4xf32>
}

// A collapse of an expansion that ends at a higher rank than the source is one expansion
// whose sizes are products of the first one's: dynamic sizes multiplied in order, then the
// static part.
// CHECK-LABEL: func.func @collapse_of_expand_to_higher_rank
// CHECK-SAME: (%[[SRC:.*]]: memref<?xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[AB:.*]] = arith.muli %[[A]], %[[B]] : index
// CHECK: %[[AB6:.*]] = arith.muli %[[AB]], %[[C6]] : index
// CHECK: %[[R:.*]] = memref.expand_shape %[[SRC]] {{\[\[}}0, 1, 2]] output_shape [10, %[[AB6]], %[[B]]] : memref<?xf32> into memref<10x?x?xf32>
// CHECK: return %[[R]]
func.func @collapse_of_expand_to_higher_rank(%src: memref<?xf32>, %a: index, %b: index) -> memref<10x?x?xf32> {
  %e = memref.expand_shape %src [[0, 1, 2, 3, 4, 5, 6]] output_shape [2, 5, %a, 2, %b, 3, %b] : memref<?xf32> into memref<2x5x?x2x?x3x?xf32>
  %c = memref.collapse_shape %e [[0, 1], [2, 3, 4, 5], [6]] : memref<2x5x?x2x?x3x?xf32> into memref<10x?x?xf32>
  return %c : memref<10x?x?xf32>
}

// The metadata of a cast's source is read, and what the cast's type fixes becomes
// constants in the order of the results, as MLIR's fold makes them in one step.
// CHECK-LABEL: func.func @metadata_of_cast_constant_order
// CHECK-SAME: (%[[ARG:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: memref.extract_strided_metadata %[[ARG]]
// CHECK-NEXT: return %[[C7]], %[[C3]], %{{.*}}, %[[C5]]
func.func @metadata_of_cast_constant_order(%arg: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> (index, index, index, index) {
  %c = memref.cast %arg : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<3x?xf32, strided<[?, 5], offset: 7>>
  %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %c : memref<3x?xf32, strided<[?, 5], offset: 7>> -> memref<f32>, index, index, index, index, index
  return %off, %sizes#0, %sizes#1, %strides#1 : index, index, index, index
}
