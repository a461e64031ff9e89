// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s

// A vector along a unit-stride dimension is one vector load/store with element alignment;
// broadcast is insertelement + shufflevector; fma is llvm.fma.
// CHECK-LABEL: define i32 @tb_axpy(float %0, ptr noalias %1, ptr noalias %2)
// CHECK:         %[[SPLAT0:.*]] = insertelement <8 x float> poison, float %0, i32 0
// CHECK-NEXT:    %[[A:.*]] = shufflevector <8 x float> %[[SPLAT0]], <8 x float> poison, <8 x i32> zeroinitializer
// CHECK:         %[[XP:.*]] = getelementptr inbounds float, ptr %1, i64 %iv
// CHECK-NEXT:    %[[X:.*]] = load <8 x float>, ptr %[[XP]], align 4
// CHECK:         %[[Y:.*]] = load <8 x float>, ptr %{{.*}}, align 4
// CHECK-NEXT:    %[[R:.*]] = call <8 x float> @llvm.fma.v8f32(<8 x float> %[[A]], <8 x float> %[[X]], <8 x float> %[[Y]])
// CHECK:         store <8 x float> %[[R]], ptr %{{.*}}, align 4
func.func @axpy(%alpha: f32, %x: memref<64xf32>, %y: memref<64xf32>) {
  %a = loop.broadcast %alpha : f32 to vector<8xf32>
  loop.for %i = 0 to 64 step 8 {
    %xv = loop.vector_load %x[%i] : memref<64xf32>, vector<8xf32>
    %yv = loop.vector_load %y[%i] : memref<64xf32>, vector<8xf32>
    %r = loop.fma %a, %xv, %yv : vector<8xf32>
    loop.vector_store %r, %y[%i] : memref<64xf32>, vector<8xf32>
  }
  return
}

// A 2-D vector is one flat LLVM vector, loaded and stored row by row; each row is widened
// and blended into place by shuffles.
// CHECK-LABEL: define i32 @tb_block(ptr noalias %0)
// CHECK:         %[[P1:.*]] = getelementptr inbounds float, ptr %0, i64 8
// CHECK-NEXT:    %[[R0:.*]] = load <4 x float>, ptr %0, align 4
// CHECK-NEXT:    %[[R1:.*]] = load <4 x float>, ptr %[[P1]], align 4
// CHECK-NEXT:    %[[W0:.*]] = shufflevector <4 x float> %[[R0]], <4 x float> poison, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 poison, i32 poison, i32 poison, i32 poison>
// CHECK-NEXT:    %[[B0:.*]] = shufflevector <8 x float> poison, <8 x float> %[[W0]], <8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 4, i32 5, i32 6, i32 7>
// CHECK-NEXT:    %[[W1:.*]] = shufflevector <4 x float> %[[R1]], <4 x float> poison, <8 x i32> <i32 poison, i32 poison, i32 poison, i32 poison, i32 0, i32 1, i32 2, i32 3>
// CHECK-NEXT:    %[[V:.*]] = shufflevector <8 x float> %[[B0]], <8 x float> %[[W1]], <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 12, i32 13, i32 14, i32 15>
// CHECK-NEXT:    %[[S:.*]] = fadd <8 x float> %[[V]], %[[V]]
// CHECK-NEXT:    %[[Q1:.*]] = getelementptr inbounds float, ptr %0, i64 8
// CHECK-NEXT:    %[[LO:.*]] = shufflevector <8 x float> %[[S]], <8 x float> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
// CHECK-NEXT:    store <4 x float> %[[LO]], ptr %0, align 4
// CHECK-NEXT:    %[[HI:.*]] = shufflevector <8 x float> %[[S]], <8 x float> poison, <4 x i32> <i32 4, i32 5, i32 6, i32 7>
// CHECK-NEXT:    store <4 x float> %[[HI]], ptr %[[Q1]], align 4
func.func @block(%m: memref<2x8xf32>) {
  %v = loop.vector_load %m[() -> (0, 0)]() : memref<2x8xf32>, vector<2x4xf32>
  %s = arith.addf %v, %v : vector<2x4xf32>
  loop.vector_store %s, %m[() -> (0, 0)]() : memref<2x8xf32>, vector<2x4xf32>
  return
}

// Along a strided dimension the lanes are loaded one by one and gathered.
// CHECK-LABEL: define i32 @tb_every_other(ptr noalias %0, ptr noalias %1)
// CHECK:         %[[ROW:.*]] = getelementptr inbounds float, ptr %0, i64 4
// CHECK-NEXT:    %[[L0:.*]] = load float, ptr %[[ROW]], align 4
// CHECK-NEXT:    %[[P1:.*]] = getelementptr inbounds float, ptr %[[ROW]], i64 2
// CHECK-NEXT:    %[[L1:.*]] = load float, ptr %[[P1]], align 4
// CHECK-NEXT:    %[[V0:.*]] = insertelement <2 x float> poison, float %[[L0]], i32 0
// CHECK-NEXT:    %[[V1:.*]] = insertelement <2 x float> %[[V0]], float %[[L1]], i32 1
// CHECK-NEXT:    store <2 x float> %[[V1]], ptr %1, align 4
func.func @every_other(%m: memref<4x4xf32>) -> memref<2xf32> {
  %out = loop.alloc() : memref<2xf32>
  %v = "memref.subview"(%m) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 2>, static_strides = array<i64: 1, 2>}> : (memref<4x4xf32>) -> memref<4x2xf32, strided<[4, 2]>>
  %r = loop.vector_load %v[() -> (1, 0)]() : memref<4x2xf32, strided<[4, 2]>>, vector<2xf32>
  loop.vector_store %r, %out[() -> (0)]() : memref<2xf32>, vector<2xf32>
  return %out : memref<2xf32>
}
