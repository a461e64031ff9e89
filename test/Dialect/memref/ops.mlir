// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt --verify-roundtrip %s > /dev/null
// RUN: tb-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// Globals: visibility, constness, an initial value without its type, or none.
// CHECK-LABEL: memref.global "private" constant @table : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT:  memref.global @state : memref<4xi32> = uninitialized
// CHECK-NEXT:  memref.global "private" @external : memref<2x2xf16>
// CHECK-NEXT:  memref.global @scalar : memref<f32> = dense<1.000000e+00>
// CHECK-NEXT:  memref.global @sparse : memref<4xf32> = sparse<1, 2.000000e+00>
// GENERIC:     "memref.global"() <{alignment = 64 : i64, constant, initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, sym_name = "table", sym_visibility = "private", type = memref<2xf32>}> : () -> ()
// GENERIC-NEXT: "memref.global"() <{initial_value, sym_name = "state", type = memref<4xi32>}> : () -> ()
memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64 : i64}
memref.global @state : memref<4xi32> = uninitialized
memref.global "private" @external : memref<2x2xf16>
memref.global @scalar : memref<f32> = dense<1.0>
memref.global @sparse : memref<4xf32> = sparse<[[1]], [2.0]>

// Allocations take dynamic sizes in parentheses and layout symbols in brackets; their
// results are named after them.
// CHECK-LABEL: func.func @allocation(%arg0: index, %arg1: index) {
// CHECK-NEXT:    %alloc = memref.alloc(%arg0) : memref<4x?xf32>
// CHECK-NEXT:    %alloca = memref.alloca() {alignment = 16 : i64} : memref<8xf32>
// CHECK-NEXT:    %alloc_0 = memref.alloc()[%arg1] : memref<8x64xf32, #map, 1>
// CHECK-NEXT:    %alloc_1 = memref.alloc(%arg0)[%arg1] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:    memref.dealloc %alloc : memref<4x?xf32>
// CHECK-NEXT:    memref.dealloc %alloc_0 : memref<8x64xf32, #map, 1>
// GENERIC-LABEL: sym_name = "allocation"
// GENERIC:         "memref.alloc"(%{{.*}}) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<4x?xf32>
// GENERIC-NEXT:    "memref.alloca"() <{alignment = 16 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8xf32>
// GENERIC-NEXT:    "memref.alloc"(%{{.*}}) <{operandSegmentSizes = array<i32: 0, 1>}> : (index) -> memref<8x64xf32, #map, 1>
// GENERIC-NEXT:    "memref.alloc"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1>}> : (index, index) -> memref<?xf32, strided<[1], offset: ?>>
func.func @allocation(%n: index, %s: index) {
  %0 = memref.alloc(%n) : memref<4x?xf32>
  %1 = memref.alloca() {alignment = 16 : i64} : memref<8xf32>
  %2 = memref.alloc()[%s] : memref<8x64xf32, affine_map<(d0, d1)[s0] -> ((d0 + s0), d1)>, 1>
  %3 = memref.alloc(%n)[%s] : memref<?xf32, strided<[1], offset: ?>>
  memref.dealloc %0 : memref<4x?xf32>
  memref.dealloc %2 : memref<8x64xf32, affine_map<(d0, d1)[s0] -> ((d0 + s0), d1)>, 1>
  return
}

// Loads and stores index every dimension; `nontemporal = false`, the default, prints in
// the generic form only.
// CHECK-LABEL: func.func @access(%arg0: memref<4x?xf32>, %arg1: index, %arg2: f32, %arg3: memref<i8>) -> f32 {
// CHECK-NEXT:    %0 = memref.load %arg0[%arg1, %arg1] : memref<4x?xf32>
// CHECK-NEXT:    %1 = memref.load %arg0[%arg1, %arg1] {alignment = 8 : i64, nontemporal = true} : memref<4x?xf32>
// CHECK-NEXT:    memref.store %arg2, %arg0[%arg1, %arg1] : memref<4x?xf32>
// CHECK-NEXT:    memref.store %0, %arg0[%arg1, %arg1] {nontemporal = true} : memref<4x?xf32>
// CHECK-NEXT:    %2 = memref.load %arg3[] : memref<i8>
// CHECK-NEXT:    memref.store %2, %arg3[] : memref<i8>
// GENERIC-LABEL: sym_name = "access"
// GENERIC:         "memref.load"(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<4x?xf32>, index, index) -> f32
// GENERIC-NEXT:    "memref.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{alignment = 8 : i64, nontemporal = true}> : (memref<4x?xf32>, index, index) -> f32
// GENERIC-NEXT:    "memref.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{nontemporal = false}> : (f32, memref<4x?xf32>, index, index) -> ()
func.func @access(%m: memref<4x?xf32>, %i: index, %v: f32, %b: memref<i8>) -> f32 {
  %0 = memref.load %m[%i, %i] : memref<4x?xf32>
  %1 = memref.load %m[%i, %i] {nontemporal = true, alignment = 8} : memref<4x?xf32>
  memref.store %v, %m[%i, %i] {nontemporal = false} : memref<4x?xf32>
  memref.store %0, %m[%i, %i] {nontemporal = true} : memref<4x?xf32>
  %2 = memref.load %b[] : memref<i8>
  memref.store %2, %b[] : memref<i8>
  return %0 : f32
}

// Casts, copies, dim, rank and globals.
// CHECK-LABEL: func.func @queries(%arg0: memref<4x?xf32>, %arg1: memref<*xf32>) -> (index, index, index) {
// CHECK-NEXT:    %cast = memref.cast %arg0 : memref<4x?xf32> to memref<?x?xf32>
// CHECK-NEXT:    %cast_0 = memref.cast %cast : memref<?x?xf32> to memref<*xf32>
// CHECK-NEXT:    %cast_1 = memref.cast %arg1 : memref<*xf32> to memref<?x4xf32>
// CHECK-NEXT:    memref.copy %arg0, %cast_1 : memref<4x?xf32> to memref<?x4xf32>
// CHECK-NEXT:    memref.copy %arg1, %cast_0 : memref<*xf32> to memref<*xf32>
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %dim = memref.dim %arg0, %c1 : memref<4x?xf32>
// CHECK-NEXT:    %dim_2 = memref.dim %arg1, %c1 : memref<*xf32>
// CHECK-NEXT:    %0 = memref.rank %arg1 : memref<*xf32>
// CHECK-NEXT:    %1 = memref.get_global @table : memref<2xf32>
// GENERIC-LABEL: sym_name = "queries"
// GENERIC:         "memref.cast"(%{{.*}}) : (memref<4x?xf32>) -> memref<?x?xf32>
// GENERIC:         "memref.copy"(%{{.*}}, %{{.*}}) : (memref<4x?xf32>, memref<?x4xf32>) -> ()
// GENERIC:         "memref.dim"(%{{.*}}, %{{.*}}) : (memref<4x?xf32>, index) -> index
// GENERIC:         "memref.rank"(%{{.*}}) : (memref<*xf32>) -> index
// GENERIC:         "memref.get_global"() <{name = @table}> : () -> memref<2xf32>
func.func @queries(%m: memref<4x?xf32>, %u: memref<*xf32>) -> (index, index, index) {
  %0 = memref.cast %m : memref<4x?xf32> to memref<?x?xf32>
  %1 = memref.cast %0 : memref<?x?xf32> to memref<*xf32>
  %2 = memref.cast %u : memref<*xf32> to memref<?x4xf32>
  memref.copy %m, %2 : memref<4x?xf32> to memref<?x4xf32>
  memref.copy %u, %1 : memref<*xf32> to memref<*xf32>
  %c1 = arith.constant 1 : index
  %3 = memref.dim %m, %c1 : memref<4x?xf32>
  %4 = memref.dim %u, %c1 : memref<*xf32>
  %5 = memref.rank %u : memref<*xf32>
  %6 = memref.get_global @table : memref<2xf32>
  return %3, %4, %5 : index, index, index
}

// Views: static and dynamic offsets, sizes and strides, rank-reducing subviews.
// CHECK-LABEL: func.func @views(%arg0: memref<8x16xf32>, %arg1: index, %arg2: memref<64xi8>) {
// CHECK-NEXT:    %subview = memref.subview %arg0[2, 4] [4, 6] [1, 2] : memref<8x16xf32> to memref<4x6xf32, strided<[16, 2], offset: 36>>
// CHECK-NEXT:    %subview_0 = memref.subview %arg0[%arg1, 0] [2, %arg1] [1, %arg1] : memref<8x16xf32> to memref<2x?xf32, strided<[16, ?], offset: ?>>
// CHECK-NEXT:    %subview_1 = memref.subview %arg0[0, 3] [8, 1] [1, 1] : memref<8x16xf32> to memref<8xf32, strided<[16], offset: 3>>
// CHECK-NEXT:    %subview_2 = memref.subview %arg0[1, 1] [1, 1] [1, 1] : memref<8x16xf32> to memref<f32, strided<[], offset: 17>>
// CHECK-NEXT:    %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [128], strides: [1] : memref<8x16xf32> to memref<128xf32>
// CHECK-NEXT:    %reinterpret_cast_3 = memref.reinterpret_cast %arg0 to offset: [%arg1], sizes: [4, %arg1], strides: [%arg1, 1] : memref<8x16xf32> to memref<4x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:    %expand_shape = memref.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32> into memref<2x4x16xf32>
// CHECK-NEXT:    %collapse_shape = memref.collapse_shape %expand_shape {{\[\[}}0, 1, 2]] : memref<2x4x16xf32> into memref<128xf32>
// CHECK-NEXT:    %subview_4 = memref.subview %arg0[2, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 32>>
// CHECK-NEXT:    %collapse_shape_5 = memref.collapse_shape %subview_4 {{\[\[}}0, 1]] : memref<4x16xf32, strided<[16, 1], offset: 32>> into memref<64xf32, strided<[1], offset: 32>>
// CHECK-NEXT:    %view = memref.view %arg2[%arg1][%arg1] : memref<64xi8> to memref<?x4xf32>
// CHECK-NEXT:    %view_6 = memref.view %arg2[%arg1][] : memref<64xi8> to memref<2x2xf64>
// GENERIC-LABEL: sym_name = "views"
// GENERIC:         "memref.subview"(%{{.*}}) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 2, 4>, static_sizes = array<i64: 4, 6>, static_strides = array<i64: 1, 2>}> : (memref<8x16xf32>) -> memref<4x6xf32, strided<[16, 2], offset: 36>>
// GENERIC-NEXT:    "memref.subview"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 2, -9223372036854775808>, static_strides = array<i64: 1, -9223372036854775808>}>
// GENERIC:         "memref.expand_shape"(%{{.*}}) <{reassociation = {{\[}}[0, 1], [2]], static_output_shape = array<i64: 2, 4, 16>}> : (memref<8x16xf32>) -> memref<2x4x16xf32>
// GENERIC:         "memref.view"(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<64xi8>, index, index) -> memref<?x4xf32>
func.func @views(%m: memref<8x16xf32>, %i: index, %bytes: memref<64xi8>) {
  %0 = memref.subview %m[2, 4] [4, 6] [1, 2] : memref<8x16xf32> to memref<4x6xf32, strided<[16, 2], offset: 36>>
  %1 = memref.subview %m[%i, 0] [2, %i] [1, %i] : memref<8x16xf32> to memref<2x?xf32, strided<[16, ?], offset: ?>>
  %2 = memref.subview %m[0, 3] [8, 1] [1, 1] : memref<8x16xf32> to memref<8xf32, strided<[16], offset: 3>>
  %3 = memref.subview %m[1, 1] [1, 1] [1, 1] : memref<8x16xf32> to memref<f32, strided<[], offset: 17>>
  %4 = memref.reinterpret_cast %m to offset: [0], sizes: [128], strides: [1] : memref<8x16xf32> to memref<128xf32>
  %5 = memref.reinterpret_cast %m to offset: [%i], sizes: [4, %i], strides: [%i, 1] : memref<8x16xf32> to memref<4x?xf32, strided<[?, 1], offset: ?>>
  %6 = memref.expand_shape %m [[0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32> into memref<2x4x16xf32>
  %7 = memref.collapse_shape %6 [[0, 1, 2]] : memref<2x4x16xf32> into memref<128xf32>
  %rows = memref.subview %m[2, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 32>>
  %8 = memref.collapse_shape %rows [[0, 1]] : memref<4x16xf32, strided<[16, 1], offset: 32>> into memref<64xf32, strided<[1], offset: 32>>
  %9 = memref.view %bytes[%i][%i] : memref<64xi8> to memref<?x4xf32>
  %10 = memref.view %bytes[%i][] : memref<64xi8> to memref<2x2xf64>
  return
}

// Expansions with dynamic sizes take them as operands; strided sources expand their
// strides.
// CHECK-LABEL: func.func @dynamic_reshapes(%arg0: memref<?xf32>, %arg1: index, %arg2: memref<8x4xf32, strided<[?, 1], offset: ?>>) {
// CHECK-NEXT:    %expand_shape = memref.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [%arg1, 4] : memref<?xf32> into memref<?x4xf32>
// CHECK-NEXT:    %expand_shape_0 = memref.expand_shape %arg2 {{\[\[}}0, 1], [2]] output_shape [2, 4, 4] : memref<8x4xf32, strided<[?, 1], offset: ?>> into memref<2x4x4xf32, strided<[?, ?, 1], offset: ?>>
// CHECK-NEXT:    %collapse_shape = memref.collapse_shape %arg2 {{\[\[}}0, 1]] : memref<8x4xf32, strided<[?, 1], offset: ?>> into memref<32xf32, strided<[1], offset: ?>>
// GENERIC-LABEL: sym_name = "dynamic_reshapes"
// GENERIC:         "memref.expand_shape"(%{{.*}}, %{{.*}}) <{reassociation = {{\[}}[0, 1]], static_output_shape = array<i64: -9223372036854775808, 4>}> : (memref<?xf32>, index) -> memref<?x4xf32>
func.func @dynamic_reshapes(%m: memref<?xf32>, %n: index, %s: memref<8x4xf32, strided<[?, 1], offset: ?>>) {
  %0 = memref.expand_shape %m [[0, 1]] output_shape [%n, 4] : memref<?xf32> into memref<?x4xf32>
  %1 = memref.expand_shape %s [[0, 1], [2]] output_shape [2, 4, 4] : memref<8x4xf32, strided<[?, 1], offset: ?>> into memref<2x4x4xf32, strided<[?, ?, 1], offset: ?>>
  %2 = memref.collapse_shape %s [[0, 1]] : memref<8x4xf32, strided<[?, 1], offset: ?>> into memref<32xf32, strided<[1], offset: ?>>
  return
}

// The generic form parses too, and prints back in custom form.
// CHECK-LABEL: func.func @generic(%arg0: memref<4xf32>, %arg1: index) -> f32 {
// CHECK-NEXT:    %alloc = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT:    %subview = memref.subview %arg0[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
// CHECK-NEXT:    %0 = memref.load %arg0[%arg1] : memref<4xf32>
func.func @generic(%m: memref<4xf32>, %i: index) -> f32 {
  %0 = "memref.alloc"(%i) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?xf32>
  %1 = "memref.subview"(%m) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1>, static_sizes = array<i64: 2>, static_strides = array<i64: 1>}> : (memref<4xf32>) -> memref<2xf32, strided<[1], offset: 1>>
  %2 = "memref.load"(%m, %i) : (memref<4xf32>, index) -> f32
  return %2 : f32
}

// A 1-D buffer resized; the new size is an operand when it is dynamic.
// CHECK-LABEL: func.func @realloc_static
// CHECK-NEXT:    %0 = memref.realloc %arg0 : memref<2xf32> to memref<4xf32>
func.func @realloc_static(%src: memref<2xf32>) -> memref<4xf32> {
  %0 = memref.realloc %src : memref<2xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}

// CHECK-LABEL: func.func @realloc_dynamic
// CHECK-NEXT:    %0 = memref.realloc %arg0(%arg1) {alignment = 8 : i64} : memref<?xf32> to memref<?xf32>
func.func @realloc_dynamic(%src: memref<?xf32>, %n: index) -> memref<?xf32> {
  %0 = memref.realloc %src(%n) {alignment = 8} : memref<?xf32> to memref<?xf32>
  return %0 : memref<?xf32>
}

// A buffer read with the shape held in a 1-D memref; an unranked result takes a shape of
// dynamic length.
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:    %reshape = memref.reshape %arg0(%arg1) : (memref<*xf32>, memref<2xindex>) -> memref<?x?xf32>
// CHECK-NEXT:    %reshape_0 = memref.reshape %reshape(%arg2) : (memref<?x?xf32>, memref<?xi32>) -> memref<*xf32>
func.func @reshape(%buf: memref<*xf32>, %shape2: memref<2xindex>, %shape_any: memref<?xi32>) -> memref<*xf32> {
  %m = memref.reshape %buf(%shape2) : (memref<*xf32>, memref<2xindex>) -> memref<?x?xf32>
  %u = memref.reshape %m(%shape_any) : (memref<?x?xf32>, memref<?xi32>) -> memref<*xf32>
  return %u : memref<*xf32>
}

// -----

// The ops MLIR 22 adds around views and buffers: strided metadata, memory-space
// casts, transposes, assumptions, atomics, DMA and prefetch.
// CHECK-LABEL: func.func @metadata_ops
func.func @metadata_ops(%m: memref<4x?xf32, strided<[?, 1], offset: ?>>, %i: index, %v: f32) -> (index, index) {
  // CHECK: memref.extract_strided_metadata %{{.*}} : memref<4x?xf32, strided<[?, 1], offset: ?>> -> memref<f32>, index, index, index, index, index
  %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %m : memref<4x?xf32, strided<[?, 1], offset: ?>> -> memref<f32>, index, index, index, index, index
  // CHECK: memref.memory_space_cast %{{.*}} : memref<f32> to memref<f32, 1>
  %s = memref.memory_space_cast %base : memref<f32> to memref<f32, 1>
  // CHECK: memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<4x?xf32, strided<[?, 1], offset: ?>> to memref<?x4xf32, strided<[1, ?], offset: ?>>
  %t = memref.transpose %m (d0, d1) -> (d1, d0) : memref<4x?xf32, strided<[?, 1], offset: ?>> to memref<?x4xf32, strided<[1, ?], offset: ?>>
  // CHECK: memref.assume_alignment %{{.*}}, 32 : memref<?x4xf32, strided<[1, ?], offset: ?>>
  %a = memref.assume_alignment %t, 32 : memref<?x4xf32, strided<[1, ?], offset: ?>>
  // CHECK: memref.distinct_objects %{{.*}}, %{{.*}} : memref<4x?xf32, strided<[?, 1], offset: ?>>, memref<?x4xf32, strided<[1, ?], offset: ?>>
  %d:2 = memref.distinct_objects %m, %a : memref<4x?xf32, strided<[?, 1], offset: ?>>, memref<?x4xf32, strided<[1, ?], offset: ?>>
  // CHECK: memref.atomic_rmw maximumf %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (f32, memref<?x4xf32, strided<[1, ?], offset: ?>>) -> f32
  %x = memref.atomic_rmw maximumf %v, %d#1[%i, %i] : (f32, memref<?x4xf32, strided<[1, ?], offset: ?>>) -> f32
  // CHECK: memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}], write, locality<2>, instr : memref<4x?xf32, strided<[?, 1], offset: ?>>
  memref.prefetch %d#0[%i, %i], write, locality<2>, instr : memref<4x?xf32, strided<[?, 1], offset: ?>>
  return %offset, %strides#0 : index, index
}

// CHECK-LABEL: func.func @dma
func.func @dma(%src: memref<64xf32>, %dst: memref<16xf32, 2>, %tag: memref<1xi32>, %i: index, %n: index) {
  // CHECK: memref.dma_start %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] : memref<64xf32>, memref<16xf32, 2>, memref<1xi32>
  memref.dma_start %src[%i], %dst[%i], %n, %tag[%i] : memref<64xf32>, memref<16xf32, 2>, memref<1xi32>
  // CHECK: memref.dma_start %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : memref<64xf32>, memref<16xf32, 2>, memref<1xi32>
  memref.dma_start %src[%i], %dst[%i], %n, %tag[%i], %n, %i : memref<64xf32>, memref<16xf32, 2>, memref<1xi32>
  // CHECK: memref.dma_wait %{{.*}}[%{{.*}}], %{{.*}} : memref<1xi32>
  memref.dma_wait %tag[%i], %n : memref<1xi32>
  return
}

// The region computes the new element from the current one; the result is the new value.
// CHECK-LABEL: func.func @generic_atomic_rmw
// CHECK: %[[X:.*]] = memref.generic_atomic_rmw %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x?xf32> {
// CHECK-NEXT: ^bb0(%[[CUR:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[CUR]], %{{.*}} : f32
// CHECK-NEXT: memref.atomic_yield %[[SUM]] : f32
// CHECK-NEXT: } {note = "x"}
// CHECK: return %[[X]] : f32
// GENERIC-LABEL: sym_name = "generic_atomic_rmw"}
// GENERIC: "memref.generic_atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}) ({
// GENERIC: "memref.atomic_yield"(%{{.*}}) : (f32) -> ()
// GENERIC: }) {note = "x"} : (memref<4x?xf32>, index, index) -> f32
func.func @generic_atomic_rmw(%buf: memref<4x?xf32>, %i: index, %j: index, %d: f32) -> f32 {
  %x = memref.generic_atomic_rmw %buf[%i, %j] : memref<4x?xf32> {
  ^bb0(%current: f32):
    %sum = arith.addf %current, %d : f32
    memref.atomic_yield %sum : f32
  } {note = "x"}
  return %x : f32
}

// An integer element; the body may hold any pure op.
// CHECK-LABEL: func.func @generic_atomic_rmw_int
// CHECK: memref.generic_atomic_rmw %{{.*}}[] : memref<i32> {
// CHECK: arith.maxsi
// CHECK: memref.atomic_yield %{{.*}} : i32
func.func @generic_atomic_rmw_int(%buf: memref<i32>, %v: i32) -> i32 {
  %x = memref.generic_atomic_rmw %buf[] : memref<i32> {
  ^bb0(%current: i32):
    %m = arith.maxsi %current, %v : i32
    memref.atomic_yield %m : i32
  }
  return %x : i32
}

// -----

// A global's initial value may be a resource blob, as weights are stored. (Its own chunk
// for mlir-diff: mlir-opt drops blobs under --mlir-print-local-scope.)
// CHECK-LABEL: memref.global "private" constant @weights : memref<2xf32> = dense_resource<blob1>
// CHECK: dialect_resources
// CHECK: blob1: "0x040000000000803F00000040"
memref.global "private" constant @weights : memref<2xf32> = dense_resource<blob1>
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
