// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 --threads=4 %s | FileCheck %s

// With --threads, a parallel loop's body is outlined into body(ctx, begin, end) over
// iterations of the outermost dimension; the values it uses and the bounds travel in a
// context struct on the caller's stack, and tb_rt_parallel_for runs it on the thread pool.
// CHECK-LABEL: define i32 @tb_scale(ptr noalias %0, float %1, ptr noalias %2)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[CTX:.*]] = alloca { ptr, float, ptr, i64, i64, i64, i64 }, align 8
// CHECK:         store ptr %0, ptr %{{.*}}, align 8
// CHECK:         store float %1, ptr %{{.*}}, align 4
// CHECK:         store ptr %2, ptr %{{.*}}, align 8
// CHECK:         call void @tb_rt_parallel_for(ptr @tb_scale.parallel, ptr %[[CTX]], i64 8, i64 4)
// CHECK-NEXT:    ret i32 0

// The outlined body loads the context and runs its share of rows, through a body that
// takes the fields as parameters and is inlined into it: the buffers are disjoint (an
// argument and a fresh allocation), so their parameters are `noalias`, which inlining
// turns into alias scopes.
// CHECK-LABEL: define internal void @tb_scale.parallel(ptr %0, i64 %1, i64 %2)
// CHECK:         %[[A:.*]] = load ptr, ptr %{{.*}}, align 8
// CHECK:         %[[S:.*]] = load float, ptr %{{.*}}, align 4
// CHECK:         call void @llvm.experimental.noalias.scope.decl
// CHECK-NEXT:    call void @llvm.experimental.noalias.scope.decl
// CHECK:         %[[T:iv.*]] = phi i64 [ %1, %entry ]
// CHECK-NEXT:    icmp slt i64 %[[T]], %2
// CHECK:         fmul float %{{.*}}, %[[S]]

// Emitted code links on its own: a weak definition runs all iterations in order, and a
// program that wants threads provides a strong tb_rt_parallel_for.
// CHECK-LABEL: define weak void @tb_rt_parallel_for(ptr %0, ptr %1, i64 %2, i64 %3)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    call void %0(ptr %1, i64 0, i64 %2)
// CHECK-NEXT:    ret void
func.func @scale(%a: memref<8x16xf32>, %s: f32) -> memref<8x16xf32> {
  %out = loop.alloc() : memref<8x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (8, 16) {
    %x = loop.load %a[%i, %j] : memref<8x16xf32>
    %y = arith.mulf %x, %s : f32
    loop.store %y, %out[%i, %j] : memref<8x16xf32>
  }
  return %out : memref<8x16xf32>
}

// A loop.for marked parallel is outlined too; its trip count is ceil((ub - lb) / step).
// CHECK-LABEL: define i32 @tb_strided(ptr noalias %0)
// CHECK:         call void @tb_rt_parallel_for(ptr @tb_strided.parallel, ptr %{{.*}}, i64 3, i64 4)
// Constants are made again inside the body, not carried in the context.
// CHECK-LABEL: define internal void @tb_strided.parallel(ptr %0, i64 %1, i64 %2)
// CHECK:         getelementptr inbounds nuw { ptr, i64, i64 }, ptr %0
// CHECK:         store float 1.000000e+00
func.func @strided(%a: memref<10xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 1 to 10 step 3 parallel {
    loop.store %one, %a[%i] : memref<10xf32>
  }
  return
}

// An outermost dimension with few iterations (two blocks of channels) is collapsed with
// the next one, so the threads share 2 * 40 = 80 iterations; the body recovers both
// indices from the iteration number. The innermost dimension joins because its body runs
// a loop of its own.
// CHECK-LABEL: define i32 @tb_blocks(ptr noalias %0)
// CHECK:         call void @tb_rt_parallel_for(ptr @tb_blocks.parallel, ptr %{{.*}}, i64 80, i64 4)
// CHECK-LABEL: define internal void @tb_blocks.parallel(ptr %0, i64 %1, i64 %2)
// CHECK:         urem i64 %{{.*}}, 40
// CHECK:         udiv i64 %{{.*}}, 40
func.func @blocks(%a: memref<64x40x8xf32>) {
  %one = arith.constant 1.0 : f32
  loop.parallel (%b, %r) = (0, 0) to (64, 40) step (32, 1) {
    loop.for %k = 0 to 8 {
      loop.store %one, %a[%b, %r, %k] : memref<64x40x8xf32>
    }
  }
  return
}

// A scalar body keeps its innermost dimension a loop of its own (it vectorizes), so only
// the outermost dimension is distributed, whatever its trip count.
// CHECK-LABEL: define i32 @tb_rows(ptr noalias %0)
// CHECK:         call void @tb_rt_parallel_for(ptr @tb_rows.parallel, ptr %{{.*}}, i64 2, i64 4)
func.func @rows(%a: memref<2x40xf32>) {
  %one = arith.constant 1.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (2, 40) {
    loop.store %one, %a[%i, %j] : memref<2x40xf32>
  }
  return
}


// Views of one buffer at disjoint byte ranges (what plan-buffers makes) stay disjoint.
// CHECK-LABEL: define internal void @tb_disjoint_views.parallel(ptr %0, i64 %1, i64 %2)
// CHECK:         call void @llvm.experimental.noalias.scope.decl
// CHECK-NEXT:    call void @llvm.experimental.noalias.scope.decl
// CHECK:         ret void
func.func @disjoint_views(%a: memref<4x16xf32>) {
  %arena = loop.alloc() : memref<512xi8>
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %x = memref.view %arena[%c0][] : memref<512xi8> to memref<4x16xf32>
  %y = memref.view %arena[%c256][] : memref<512xi8> to memref<4x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 16) {
    %v = loop.load %x[%i, %j] : memref<4x16xf32>
    loop.store %v, %y[%i, %j] : memref<4x16xf32>
  }
  return
}

// Views that overlap get no alias scopes: a store through one may change what the other
// reads.
// CHECK-LABEL: define internal void @tb_overlapping_views.parallel(ptr %0, i64 %1, i64 %2)
// CHECK-NOT:     noalias.scope.decl
// CHECK:         ret void
func.func @overlapping_views(%a: memref<4x16xf32>) {
  %arena = loop.alloc() : memref<512xi8>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %x = memref.view %arena[%c0][] : memref<512xi8> to memref<4x16xf32>
  %y = memref.view %arena[%c4][] : memref<512xi8> to memref<4x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 16) {
    %v = loop.load %x[%i, %j] : memref<4x16xf32>
    loop.store %v, %y[%i, %j] : memref<4x16xf32>
  }
  return
}

// A strided view with constant strides and offset (the interior of a padded copy) covers
// the bytes from its first element to its last: disjoint from a view past them, it gets
// an alias scope like any buffer.
// CHECK-LABEL: define internal void @tb_strided_view_apart.parallel(ptr %0, i64 %1, i64 %2)
// CHECK:         call void @llvm.experimental.noalias.scope.decl
// CHECK-NEXT:    call void @llvm.experimental.noalias.scope.decl
// CHECK:         ret void
func.func @strided_view_apart(%a: memref<4x16xf32>) {
  %arena = loop.alloc() : memref<1024xi8>
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %padded = memref.view %arena[%c0][] : memref<1024xi8> to memref<6x18xf32>
  %x = memref.reinterpret_cast %padded to offset: [19], sizes: [4, 16], strides: [18, 1] : memref<6x18xf32> to memref<4x16xf32, strided<[18, 1], offset: 19>>
  %y = memref.view %arena[%c512][] : memref<1024xi8> to memref<4x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 16) {
    %v = loop.load %x[%i, %j] : memref<4x16xf32, strided<[18, 1], offset: 19>>
    loop.store %v, %y[%i, %j] : memref<4x16xf32>
  }
  return
}

// The same view reaching into the other buffer's bytes (its last row ends at byte
// 4 * (19 + 3 * 18 + 15 + 1) = 356): no alias scopes.
// CHECK-LABEL: define internal void @tb_strided_view_overlapping.parallel(ptr %0, i64 %1, i64 %2)
// CHECK-NOT:     noalias.scope.decl
// CHECK:         ret void
func.func @strided_view_overlapping(%a: memref<4x16xf32>) {
  %arena = loop.alloc() : memref<1024xi8>
  %c0 = arith.constant 0 : index
  %c352 = arith.constant 352 : index
  %padded = memref.view %arena[%c0][] : memref<1024xi8> to memref<6x18xf32>
  %x = memref.reinterpret_cast %padded to offset: [19], sizes: [4, 16], strides: [18, 1] : memref<6x18xf32> to memref<4x16xf32, strided<[18, 1], offset: 19>>
  %y = memref.view %arena[%c352][] : memref<1024xi8> to memref<4x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 16) {
    %v = loop.load %x[%i, %j] : memref<4x16xf32, strided<[18, 1], offset: 19>>
    loop.store %v, %y[%i, %j] : memref<4x16xf32>
  }
  return
}

// A row-major view of a row-major buffer (a plane seen as one row) covers that buffer's
// bytes: disjoint from a buffer past them, it gets an alias scope.
// CHECK-LABEL: define internal void @tb_plane_view_apart.parallel(ptr %0, i64 %1, i64 %2)
// CHECK:         call void @llvm.experimental.noalias.scope.decl
// CHECK-NEXT:    call void @llvm.experimental.noalias.scope.decl
// CHECK:         ret void
func.func @plane_view_apart(%a: memref<4x16xf32>) {
  %arena = loop.alloc() : memref<1024xi8>
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %planes = memref.view %arena[%c0][] : memref<1024xi8> to memref<1x4x4x4xf32>
  %x = memref.reinterpret_cast %planes to offset: [0], sizes: [1, 4, 1, 16], strides: [64, 16, 16, 1] : memref<1x4x4x4xf32> to memref<1x4x1x16xf32>
  %y = memref.view %arena[%c256][] : memref<1024xi8> to memref<4x16xf32>
  loop.parallel (%i, %j) = (0, 0) to (4, 16) {
    %v = loop.load %x[%c0, %i, %c0, %j] : memref<1x4x1x16xf32>
    loop.store %v, %y[%i, %j] : memref<4x16xf32>
  }
  return
}
