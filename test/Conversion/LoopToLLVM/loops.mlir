// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s

// A loop is a header-tested LLVM loop over an i64 induction variable.
// CHECK-LABEL: define i32 @tb_simple(ptr noalias %0)
// CHECK:       entry:
// CHECK-NEXT:    br label %[[HEADER:loop.header]]
// CHECK:       [[HEADER]]:
// CHECK-NEXT:    %[[IV:.*]] = phi i64 [ 2, %entry ], [ %[[NEXT:.*]], %[[BODY:loop.body]] ]
// CHECK-NEXT:    %[[MORE:.*]] = icmp slt i64 %[[IV]], 10
// CHECK-NEXT:    br i1 %[[MORE]], label %[[BODY]], label %[[EXIT:loop.exit]]
// CHECK:       [[BODY]]:
// CHECK-NEXT:    %[[P:.*]] = getelementptr inbounds float, ptr %0, i64 %[[IV]]
// CHECK-NEXT:    store float 1.000000e+00, ptr %[[P]], align 4
// CHECK-NEXT:    %[[NEXT]] = add i64 %[[IV]], 3
// CHECK-NEXT:    br label %[[HEADER]]{{$}}
// CHECK:       [[EXIT]]:
// CHECK-NEXT:    ret i32 0
func.func @simple(%a: memref<10xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 2 to 10 step 3 {
    loop.store %one, %a[%i] : memref<10xf32>
  }
  return
}

// Bounds are the max of the lower map's results and the min of the upper map's,
// evaluated before the loop.
// CHECK-LABEL: define i32 @tb_bounds(ptr noalias %0, i64 %1)
// CHECK:         %[[I:iv]] = phi i64
// CHECK:         %[[L0:.*]] = add i64 %[[I]], -2
// CHECK-NEXT:    %[[LC:.*]] = icmp sgt i64 %[[L0]], 0
// CHECK-NEXT:    %[[LB:.*]] = select i1 %[[LC]], i64 %[[L0]], i64 0
// CHECK-NEXT:    %[[U0:.*]] = add i64 %[[I]], 3
// CHECK-NEXT:    %[[UC:.*]] = icmp slt i64 %[[U0]], %1
// CHECK-NEXT:    %[[UB:.*]] = select i1 %[[UC]], i64 %[[U0]], i64 %1
// CHECK-NEXT:    br label %[[INNER:.*]]
// CHECK:       [[INNER]]:
// CHECK-NEXT:    %[[J:.*]] = phi i64 [ %[[LB]], %{{.*}} ], [ %{{.*}}, %{{.*}} ]
// CHECK-NEXT:    icmp slt i64 %[[J]], %[[UB]]
#lower = affine_map<(d0) -> (d0 - 2, 0)>
#upper = affine_map<(d0)[s0] -> (d0 + 3, s0)>
func.func @bounds(%a: memref<16xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 8 {
    loop.for %j = max #lower(%i) to min #upper(%i)[%n] {
      loop.store %one, %a[%j] : memref<16xf32>
    }
  }
  return
}

// Schedule attributes become loop metadata on the back edge: an unroll count, and for a
// loop that is still scalar, the vector width it asks for.
// CHECK-LABEL: define i32 @tb_unrolled(ptr noalias %0)
// CHECK:         br label %loop.header, !llvm.loop ![[$UNROLL4:[0-9]+]]
// CHECK:         br label %loop.header{{[0-9]+}}, !llvm.loop ![[$VECTORIZE:[0-9]+]]
// CHECK-LABEL: define i32 @tb_vector_body(
// CHECK:         br label %loop.header, !llvm.loop ![[$UNROLL2:[0-9]+]]
func.func @unrolled(%a: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 64 unroll = 4 {
    loop.store %one, %a[%i] : memref<64xf32>
  }
  loop.for %i = 0 to 64 unroll = 1 vectorize = 8 {
    loop.store %one, %a[%i] : memref<64xf32>
  }
  return
}

// A body that already computes on vectors asks only for the unrolling.
func.func @vector_body(%a: memref<64xf32>) {
  %ones = arith.constant dense<1.0> : vector<8xf32>
  loop.for %i = 0 to 64 step 8 unroll = 2 vectorize = 8 {
    loop.vector_store %ones, %a[%i] : memref<64xf32>, vector<8xf32>
  }
  return
}

// A parallel loop without --threads is a nest of ordinary loops, outermost first.
// CHECK-LABEL: define i32 @tb_parallel(ptr noalias %0)
// CHECK:         %[[I:iv]] = phi i64 [ 0, %entry ]
// CHECK:         icmp slt i64 %[[I]], 4
// CHECK:         %[[J:iv[0-9]+]] = phi i64 [ 0, %loop.body ]
// CHECK:         icmp slt i64 %[[J]], 6
// CHECK:         %[[ROW:.*]] = mul i64 %[[I]], 6
// CHECK-NEXT:    %[[AT:.*]] = add i64 %[[ROW]], %[[J]]
// CHECK-NEXT:    getelementptr inbounds float, ptr %0, i64 %[[AT]]
// CHECK:         add i64 %[[J]], 2
// CHECK:         add i64 %[[I]], 1
func.func @parallel(%a: memref<4x6xf32>) {
  %one = arith.constant 1.0 : f32
  loop.parallel (%i, %j) = (0, 0) to (4, 6) step (1, 2) {
    loop.store %one, %a[%i, %j] : memref<4x6xf32>
  }
  return
}

// floordiv rounds toward negative infinity: the truncated quotient, minus one when the
// remainder is non-zero with the divisor's opposite sign.
// CHECK-LABEL: define i32 @tb_floordiv(ptr noalias %0, i64 %1)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[Q:.*]] = sdiv i64 %1, 3
// CHECK-NEXT:    %[[R:.*]] = srem i64 %1, 3
// CHECK-NEXT:    %[[NZ:.*]] = icmp ne i64 %[[R]], 0
// CHECK-NEXT:    %[[X:.*]] = xor i64 %[[R]], 3
// CHECK-NEXT:    %[[NEG:.*]] = icmp slt i64 %[[X]], 0
// CHECK-NEXT:    %[[FIX:.*]] = and i1 %[[NZ]], %[[NEG]]
// CHECK-NEXT:    %[[ONE:.*]] = zext i1 %[[FIX]] to i64
// CHECK-NEXT:    %[[F:.*]] = sub i64 %[[Q]], %[[ONE]]
// CHECK-NEXT:    getelementptr inbounds float, ptr %0, i64 %[[F]]
func.func @floordiv(%a: memref<8xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  loop.store %one, %a[(d0) -> (d0 floordiv 3)](%n) : memref<8xf32>
  return
}

// ceildiv adds one when the remainder is non-zero with the divisor's sign.
// CHECK-LABEL: define i32 @tb_ceildiv(ptr noalias %0, i64 %1)
// CHECK:         %[[Q:.*]] = sdiv i64 %1, 3
// CHECK-NEXT:    %[[R:.*]] = srem i64 %1, 3
// CHECK-NEXT:    %[[NZ:.*]] = icmp ne i64 %[[R]], 0
// CHECK-NEXT:    %[[X:.*]] = xor i64 %[[R]], 3
// CHECK-NEXT:    %[[SAME:.*]] = icmp sge i64 %[[X]], 0
// CHECK-NEXT:    %[[FIX:.*]] = and i1 %[[NZ]], %[[SAME]]
// CHECK-NEXT:    %[[ONE:.*]] = zext i1 %[[FIX]] to i64
// CHECK-NEXT:    add i64 %[[Q]], %[[ONE]]
func.func @ceildiv(%a: memref<8xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  loop.store %one, %a[(d0) -> (d0 ceildiv 3)](%n) : memref<8xf32>
  return
}

// mod takes the divisor's sign: the remainder plus the divisor when their signs differ.
// CHECK-LABEL: define i32 @tb_mod(ptr noalias %0, i64 %1)
// CHECK:         %[[R:.*]] = srem i64 %1, 3
// CHECK-NEXT:    %[[NZ:.*]] = icmp ne i64 %[[R]], 0
// CHECK-NEXT:    %[[X:.*]] = xor i64 %[[R]], 3
// CHECK-NEXT:    %[[NEG:.*]] = icmp slt i64 %[[X]], 0
// CHECK-NEXT:    %[[FIX:.*]] = and i1 %[[NZ]], %[[NEG]]
// CHECK-NEXT:    %[[UP:.*]] = add i64 %[[R]], 3
// CHECK-NEXT:    %[[M:.*]] = select i1 %[[FIX]], i64 %[[UP]], i64 %[[R]]
// CHECK-NEXT:    getelementptr inbounds float, ptr %0, i64 %[[M]]
func.func @mod(%a: memref<8xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  loop.store %one, %a[(d0) -> (d0 mod 3)](%n) : memref<8xf32>
  return
}

// CHECK:       ![[$UNROLL4]] = distinct !{![[$UNROLL4]], ![[COUNT4:[0-9]+]]}
// CHECK:       ![[COUNT4]] = !{!"llvm.loop.unroll.count", i32 4}
// CHECK:       ![[$VECTORIZE]] = distinct !{![[$VECTORIZE]], ![[NOUNROLL:[0-9]+]], ![[ENABLE:[0-9]+]], ![[WIDTH:[0-9]+]]}
// CHECK:       ![[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}
// CHECK:       ![[ENABLE]] = !{!"llvm.loop.vectorize.enable", i1 true}
// CHECK:       ![[WIDTH]] = !{!"llvm.loop.vectorize.width", i32 8}
// CHECK:       ![[$UNROLL2]] = distinct !{![[$UNROLL2]], ![[COUNT2:[0-9]+]]}
// CHECK-NEXT:  ![[COUNT2]] = !{!"llvm.loop.unroll.count", i32 2}
