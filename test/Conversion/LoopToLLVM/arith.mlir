// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s

// Scalars are passed by value and every result goes through an output pointer.
// CHECK-LABEL: define i32 @tb_int_ops(i32 %0, i32 %1, ptr noalias %2)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[A:.*]] = add nsw i32 %0, %1
// CHECK-NEXT:    %[[B:.*]] = sub i32 %[[A]], %1
// CHECK-NEXT:    %[[C:.*]] = mul nuw i32 %[[B]], %0
// CHECK-NEXT:    %[[D:.*]] = sdiv i32 %[[C]], %1
// CHECK-NEXT:    %[[E:.*]] = udiv i32 %[[D]], %1
// CHECK-NEXT:    %[[F:.*]] = srem i32 %[[E]], %1
// CHECK-NEXT:    %[[G:.*]] = urem i32 %[[F]], %1
// CHECK-NEXT:    %[[H:.*]] = and i32 %[[G]], %1
// CHECK-NEXT:    %[[I:.*]] = or i32 %[[H]], %1
// CHECK-NEXT:    %[[J:.*]] = xor i32 %[[I]], %1
// CHECK-NEXT:    %[[K:.*]] = shl i32 %[[J]], %1
// CHECK-NEXT:    %[[L:.*]] = ashr i32 %[[K]], %1
// CHECK-NEXT:    %[[M:.*]] = lshr i32 %[[L]], %1
// CHECK-NEXT:    %[[N:.*]] = call i32 @llvm.smax.i32(i32 %[[M]], i32 %1)
// CHECK-NEXT:    %[[O:.*]] = call i32 @llvm.umin.i32(i32 %[[N]], i32 %1)
// CHECK-NEXT:    store i32 %[[O]], ptr %2, align 4
// CHECK-NEXT:    ret i32 0
func.func @int_ops(%x: i32, %y: i32) -> i32 {
  %0 = arith.addi %x, %y overflow<nsw> : i32
  %1 = arith.subi %0, %y : i32
  %2 = arith.muli %1, %x overflow<nuw> : i32
  %3 = arith.divsi %2, %y : i32
  %4 = arith.divui %3, %y : i32
  %5 = arith.remsi %4, %y : i32
  %6 = arith.remui %5, %y : i32
  %7 = arith.andi %6, %y : i32
  %8 = arith.ori %7, %y : i32
  %9 = arith.xori %8, %y : i32
  %10 = arith.shli %9, %y : i32
  %11 = arith.shrsi %10, %y : i32
  %12 = arith.shrui %11, %y : i32
  %13 = arith.maxsi %12, %y : i32
  %14 = arith.minui %13, %y : i32
  return %14 : i32
}

// Fast-math flags carry over; maximumf/minnumf are LLVM's IEEE maximum and minNum.
// CHECK-LABEL: define i32 @tb_float_ops(float %0, float %1, ptr noalias %2)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[A:.*]] = fadd fast float %0, %1
// CHECK-NEXT:    %[[B:.*]] = fsub nnan contract float %[[A]], %1
// CHECK-NEXT:    %[[C:.*]] = fmul float %[[B]], %0
// CHECK-NEXT:    %[[D:.*]] = fdiv float %[[C]], %1
// CHECK-NEXT:    %[[E:.*]] = frem float %[[D]], %1
// CHECK-NEXT:    %[[F:.*]] = call float @llvm.maximum.f32(float %[[E]], float %1)
// CHECK-NEXT:    %[[G:.*]] = call float @llvm.minnum.f32(float %[[F]], float %1)
// CHECK-NEXT:    %[[H:.*]] = fneg float %[[G]]
// CHECK-NEXT:    store float %[[H]], ptr %2, align 4
func.func @float_ops(%x: f32, %y: f32) -> f32 {
  %0 = arith.addf %x, %y fastmath<fast> : f32
  %1 = arith.subf %0, %y fastmath<nnan, contract> : f32
  %2 = arith.mulf %1, %x : f32
  %3 = arith.divf %2, %y : f32
  %4 = arith.remf %3, %y : f32
  %5 = arith.maximumf %4, %y : f32
  %6 = arith.minnumf %5, %y : f32
  %7 = arith.negf %6 : f32
  return %7 : f32
}

// Comparisons and select; an i1 result is stored as a byte, as C's bool.
// CHECK-LABEL: define i32 @tb_compare(i64 %0, i64 %1, double %2, ptr noalias %3, ptr noalias %4)
// CHECK:         %[[LT:.*]] = icmp ult i64 %0, %1
// CHECK-NEXT:    %[[UNO:.*]] = fcmp uno double %2, %2
// CHECK-NEXT:    %[[ONE:.*]] = fcmp one double %2, 0.000000e+00
// CHECK-NEXT:    %[[SEL:.*]] = select i1 %[[LT]], i64 %0, i64 %1
// CHECK-NEXT:    %[[BYTE:.*]] = zext i1 %[[UNO]] to i8
// CHECK-NEXT:    store i8 %[[BYTE]], ptr %3, align 1
// CHECK-NEXT:    store i64 %[[SEL]], ptr %4, align 8
func.func @compare(%a: index, %b: index, %x: f64) -> (i1, index) {
  %zero = arith.constant 0.0 : f64
  %lt = arith.cmpi ult, %a, %b : index
  %nan = arith.cmpf uno, %x, %x : f64
  %ne = arith.cmpf one, %x, %zero : f64
  %min = arith.select %lt, %a, %b : index
  return %nan, %min : i1, index
}

// Casts, index casts at every width, and exact constants of every float format.
// CHECK-LABEL: define i32 @tb_casts(i8 %0, half %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5)
// CHECK:         %[[S:.*]] = sext i8 %0 to i32
// CHECK-NEXT:    %[[Z:.*]] = zext i8 %0 to i64
// CHECK-NEXT:    %[[T:.*]] = trunc i64 %[[Z]] to i16
// CHECK-NEXT:    %[[X:.*]] = sext i8 %0 to i64
// CHECK-NEXT:    %[[U:.*]] = zext i8 %0 to i64
// CHECK-NEXT:    %[[N:.*]] = trunc i64 %[[U]] to i32
// CHECK-NEXT:    %[[E:.*]] = fpext half %1 to float
// CHECK-NEXT:    %[[BF:.*]] = fptrunc float %[[E]] to bfloat
// CHECK-NEXT:    %[[SI:.*]] = sitofp i32 %[[S]] to float
// CHECK-NEXT:    %[[UI:.*]] = uitofp i16 %[[T]] to double
// CHECK-NEXT:    %[[FS:.*]] = fptosi float %[[SI]] to i64
// CHECK-NEXT:    %[[FU:.*]] = fptoui double %[[UI]] to i8
// CHECK-NEXT:    %[[BC:.*]] = bitcast half %1 to i16
// CHECK-NEXT:    %[[SUM:.*]] = add i32 %[[N]], 1
// CHECK-NEXT:    %[[W:.*]] = fadd bfloat %[[BF]], 0xR3F80
// CHECK-NEXT:    %[[H:.*]] = fadd half %1, 0xH3C00
// CHECK-NEXT:    %[[D:.*]] = fadd double %[[UI]], 0x7FF0000000000000
func.func @casts(%a: i8, %h: f16) -> (i32, bf16, f16, f64) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %a : i8 to i64
  %2 = arith.trunci %1 : i64 to i16
  %3 = arith.index_cast %a : i8 to index
  %4 = arith.index_castui %a : i8 to index
  %5 = arith.index_cast %4 : index to i32
  %6 = arith.extf %h : f16 to f32
  %7 = arith.truncf %6 : f32 to bf16
  %8 = arith.sitofp %0 : i32 to f32
  %9 = arith.uitofp %2 : i16 to f64
  %10 = arith.fptosi %8 : f32 to i64
  %11 = arith.fptoui %9 : f64 to i8
  %12 = arith.bitcast %h : f16 to i16
  %c1 = arith.constant 1 : i32
  %13 = arith.addi %5, %c1 : i32
  %one_bf = arith.constant 1.0 : bf16
  %14 = arith.addf %7, %one_bf : bf16
  %one_h = arith.constant 1.0 : f16
  %15 = arith.addf %h, %one_h : f16
  %inf = arith.constant 0x7FF0000000000000 : f64
  %16 = arith.addf %9, %inf : f64
  return %13, %14, %15, %16 : i32, bf16, f16, f64
}

// Vector constants, comparisons and selects work lane-wise.
// CHECK-LABEL: define i32 @tb_vectors(ptr noalias %0)
// CHECK:         %[[C:.*]] = fcmp olt <4 x float> %{{.*}}, <float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00>
// CHECK-NEXT:    select <4 x i1> %[[C]], <4 x float> %{{.*}}, <4 x float> splat (float 5.000000e-01)
func.func @vectors(%a: memref<4xf32>) {
  %v = loop.vector_load %a[() -> (0)]() : memref<4xf32>, vector<4xf32>
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %h = arith.constant dense<0.5> : vector<4xf32>
  %lt = arith.cmpf olt, %v, %k : vector<4xf32>
  %s = arith.select %lt, %v, %h : vector<4xi1>, vector<4xf32>
  loop.vector_store %s, %a[() -> (0)]() : memref<4xf32>, vector<4xf32>
  return
}
