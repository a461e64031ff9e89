// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s

// Rounded divisions expand as arith-expand writes them: the truncating quotient, moved one
// step when the division is inexact and the exact quotient lies on the rounding side.
// CHECK-LABEL: define i32 @tb_rounded(i32 %0, i32 %1,
// CHECK:         %[[Q:.*]] = sdiv i32 %0, %1
// CHECK-NEXT:    %[[P:.*]] = mul i32 %[[Q]], %1
// CHECK-NEXT:    %[[INEXACT:.*]] = icmp ne i32 %0, %[[P]]
// CHECK-NEXT:    %[[AN:.*]] = icmp slt i32 %0, 0
// CHECK-NEXT:    %[[BN:.*]] = icmp slt i32 %1, 0
// CHECK-NEXT:    %[[DIFFER:.*]] = icmp ne i1 %[[AN]], %[[BN]]
// CHECK-NEXT:    %[[DOWN:.*]] = and i1 %[[INEXACT]], %[[DIFFER]]
// CHECK-NEXT:    %[[QM1:.*]] = add i32 %[[Q]], -1
// CHECK-NEXT:    %[[FLOOR:.*]] = select i1 %[[DOWN]], i32 %[[QM1]], i32 %[[Q]]
// CHECK:         %[[AGREE:.*]] = icmp eq i1 %{{.*}}, %{{.*}}
// CHECK-NEXT:    %[[UP:.*]] = and i1 %{{.*}}, %[[AGREE]]
// CHECK-NEXT:    %[[QP1:.*]] = add i32 %{{.*}}, 1
// CHECK-NEXT:    %[[CEIL:.*]] = select i1 %[[UP]], i32 %[[QP1]], i32 %{{.*}}
// CHECK-NEXT:    %[[ZERO:.*]] = icmp eq i32 %0, 0
// CHECK-NEXT:    %[[BELOW:.*]] = sub i32 %0, 1
// CHECK-NEXT:    %[[UQ:.*]] = udiv i32 %[[BELOW]], %1
// CHECK-NEXT:    %[[UQ1:.*]] = add i32 %[[UQ]], 1
// CHECK-NEXT:    %[[CEILU:.*]] = select i1 %[[ZERO]], i32 0, i32 %[[UQ1]]
// CHECK-NEXT:    store i32 %[[FLOOR]], ptr %2
// CHECK-NEXT:    store i32 %[[CEIL]], ptr %3
// CHECK-NEXT:    store i32 %[[CEILU]], ptr %4
func.func @rounded(%x: i32, %y: i32) -> (i32, i32, i32) {
  %0 = arith.floordivsi %x, %y : i32
  %1 = arith.ceildivsi %x, %y : i32
  %2 = arith.ceildivui %x, %y : i32
  return %0, %1, %2 : i32, i32, i32
}

// Extended multiplications at twice the width; the carry of llvm.uadd.with.overflow.
// CHECK-LABEL: define i32 @tb_extended(i32 %0, i32 %1,
// CHECK:         %[[SA:.*]] = sext i32 %0 to i64
// CHECK-NEXT:    %[[SB:.*]] = sext i32 %1 to i64
// CHECK-NEXT:    %[[SP:.*]] = mul i64 %[[SA]], %[[SB]]
// CHECK-NEXT:    %{{.*}} = trunc i64 %[[SP]] to i32
// CHECK-NEXT:    %[[SH:.*]] = lshr i64 %[[SP]], 32
// CHECK-NEXT:    %[[HIGH:.*]] = trunc i64 %[[SH]] to i32
// CHECK-NEXT:    %[[UA:.*]] = zext i32 %0 to i64
// CHECK-NEXT:    %[[UB:.*]] = zext i32 %1 to i64
// CHECK-NEXT:    %[[UP:.*]] = mul i64 %[[UA]], %[[UB]]
// CHECK-NEXT:    %{{.*}} = trunc i64 %[[UP]] to i32
// CHECK-NEXT:    %[[UH:.*]] = lshr i64 %[[UP]], 32
// CHECK-NEXT:    %[[HIGHU:.*]] = trunc i64 %[[UH]] to i32
// CHECK-NEXT:    %[[PAIR:.*]] = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %0, i32 %1)
// CHECK-NEXT:    %[[SUM:.*]] = extractvalue { i32, i1 } %[[PAIR]], 0
// CHECK-NEXT:    %[[CARRY:.*]] = extractvalue { i32, i1 } %[[PAIR]], 1
// CHECK-NEXT:    store i32 %[[HIGH]], ptr %2
// CHECK-NEXT:    store i32 %[[HIGHU]], ptr %3
// CHECK-NEXT:    store i32 %[[SUM]], ptr %4
func.func @extended(%x: i32, %y: i32) -> (i32, i32, i32, i1) {
  %l, %h = arith.mulsi_extended %x, %y : i32
  %lu, %hu = arith.mului_extended %x, %y : i32
  %s, %c = arith.addui_extended %x, %y : i32, i1
  return %h, %hu, %s, %c : i32, i32, i32, i1
}

// MLIR's flags become LLVM's.
// CHECK-LABEL: define i32 @tb_flags(
// CHECK:         sdiv exact i32 %0, %1
// CHECK-NEXT:    lshr exact i32 %0, %1
// CHECK-NEXT:    trunc nuw nsw i32 %0 to i16
// CHECK-NEXT:    fptrunc fast float %2 to half
// CHECK-NEXT:    fpext nnan half %3 to double
func.func @flags(%x: i32, %y: i32, %f: f32, %h: f16) -> (i32, i32, i16, f16, f64) {
  %0 = arith.divsi %x, %y exact : i32
  %1 = arith.shrui %x, %y exact : i32
  %2 = arith.trunci %x overflow<nsw, nuw> : i32 to i16
  %3 = arith.truncf %f fastmath<fast> : f32 to f16
  %4 = arith.extf %h fastmath<nnan> : f16 to f64
  return %0, %1, %2, %3, %4 : i32, i32, i16, f16, f64
}
