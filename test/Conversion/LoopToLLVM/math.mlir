// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s

// math ops map to LLVM intrinsics where LLVM has one.
// CHECK-LABEL: define i32 @tb_intrinsics(float %0, float %1, ptr noalias %2)
// CHECK:         %[[E:.*]] = call float @llvm.exp2.f32(float %0)
// CHECK-NEXT:    %[[T:.*]] = call float @llvm.tanh.f32(float %[[E]])
// CHECK-NEXT:    %[[S:.*]] = call float @llvm.sqrt.f32(float %[[T]])
// CHECK-NEXT:    %[[P:.*]] = call float @llvm.pow.f32(float %[[S]], float %1)
// CHECK-NEXT:    %[[F:.*]] = call float @llvm.fma.f32(float %[[P]], float %1, float %0)
// CHECK-NEXT:    %[[A:.*]] = call fast float @llvm.fabs.f32(float %[[F]])
// CHECK-NEXT:    %[[R:.*]] = call float @llvm.sqrt.f32(float %[[A]])
// CHECK-NEXT:    %[[Q:.*]] = fdiv float 1.000000e+00, %[[R]]
// CHECK-NEXT:    store float %[[Q]], ptr %2, align 4
func.func @intrinsics(%x: f32, %y: f32) -> f32 {
  %0 = "math.exp2"(%x) : (f32) -> f32
  %1 = "math.tanh"(%0) : (f32) -> f32
  %2 = "math.sqrt"(%1) : (f32) -> f32
  %3 = "math.powf"(%2, %y) : (f32, f32) -> f32
  %4 = "math.fma"(%3, %y, %x) : (f32, f32, f32) -> f32
  %5 = "math.absf"(%4) <{fastmath = #arith.fastmath<fast>}> : (f32) -> f32
  %6 = "math.rsqrt"(%5) : (f32) -> f32
  return %6 : f32
}

// Functions LLVM has no intrinsic for are C library calls; 16-bit floats go through float.
// CHECK-LABEL: define i32 @tb_library(double %0, half %1, ptr noalias %2, ptr noalias %3)
// CHECK:         %[[E:.*]] = call double @erf(double %0)
// CHECK-NEXT:    %[[W:.*]] = fpext half %1 to float
// CHECK-NEXT:    %[[C:.*]] = call float @cbrtf(float %[[W]])
// CHECK-NEXT:    %[[N:.*]] = fptrunc float %[[C]] to half
func.func @library(%x: f64, %h: f16) -> (f64, f16) {
  %0 = "math.erf"(%x) : (f64) -> f64
  %1 = "math.cbrt"(%h) : (f16) -> f16
  return %0, %1 : f64, f16
}

// On vectors, intrinsics take the whole vector and library calls go lane by lane.
// CHECK-LABEL: define i32 @tb_vectors(ptr noalias %0)
// CHECK:         %[[V:.*]] = load <4 x float>, ptr %0, align 4
// CHECK-NEXT:    %[[X:.*]] = call <4 x float> @llvm.exp2.v4f32(<4 x float> %[[V]])
// CHECK-NEXT:    %[[L0:.*]] = extractelement <4 x float> %[[X]], i32 0
// CHECK-NEXT:    %[[E0:.*]] = call float @cbrtf(float %[[L0]])
// CHECK-COUNT-3: call float @cbrtf(float
// CHECK-COUNT-4: insertelement <4 x float>
func.func @vectors(%a: memref<4xf32>) {
  %v = loop.vector_load %a[() -> (0)]() : memref<4xf32>, vector<4xf32>
  %e = "math.exp2"(%v) : (vector<4xf32>) -> vector<4xf32>
  %f = "math.cbrt"(%e) : (vector<4xf32>) -> vector<4xf32>
  loop.vector_store %f, %a[() -> (0)]() : memref<4xf32>, vector<4xf32>
  return
}

// exp and erf on f32 expand inline into polynomials (no call), on scalars and vectors alike,
// so loops computing them vectorize.
// CHECK-LABEL: define i32 @tb_approximations(ptr noalias %0)
// CHECK-NOT:     call {{.*}}@expf
// CHECK-NOT:     call {{.*}}@erff
// CHECK-NOT:     call {{.*}}@llvm.exp.
// CHECK:         call <4 x float> @llvm.roundeven.v4f32
// CHECK:         call <4 x float> @llvm.fmuladd.v4f32
// CHECK:         fdiv <4 x float>
// CHECK:         ret i32 0
func.func @approximations(%a: memref<4xf32>) {
  %v = loop.vector_load %a[() -> (0)]() : memref<4xf32>, vector<4xf32>
  %e = "math.exp"(%v) : (vector<4xf32>) -> vector<4xf32>
  %f = "math.erf"(%e) : (vector<4xf32>) -> vector<4xf32>
  loop.vector_store %f, %a[() -> (0)]() : memref<4xf32>, vector<4xf32>
  return
}

// Integer math and classification.
// CHECK-LABEL: define i32 @tb_bits(i32 %0, float %1, ptr noalias %2, ptr noalias %3, ptr noalias %4)
// CHECK:         call i32 @llvm.abs.i32(i32 %0, i1 false)
// CHECK:         call i32 @llvm.ctlz.i32(i32 %{{.*}}, i1 false)
// CHECK:         call i32 @llvm.ctpop.i32(i32
// CHECK:         fcmp uno float %1, %1
// CHECK:         call i1 @llvm.is.fpclass.f32(float %1, i32 264)
func.func @bits(%n: i32, %x: f32) -> (i32, i1, i1) {
  %0 = "math.absi"(%n) : (i32) -> i32
  %1 = "math.ctlz"(%0) : (i32) -> i32
  %2 = "math.ctpop"(%1) : (i32) -> i32
  %3 = "math.isnan"(%x) : (f32) -> i1
  %4 = "math.isnormal"(%x) : (f32) -> i1
  return %2, %3, %4 : i32, i1, i1
}
