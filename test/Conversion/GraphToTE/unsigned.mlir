// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s

// arith computes on signless integers: a read of an unsigned tensor gives the signless
// integer of its width, the body yields one into an unsigned result, and the arith ops
// that depend on signedness are their unsigned forms.

// CHECK-LABEL: func.func @div
// CHECK: te.compute
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}}[(d0) -> (d0)] : tensor<4xui8>
// CHECK-NEXT: %[[Y:.*]] = te.read %{{.*}}[(d0) -> (d0)] : tensor<4xui8>
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[X]], %[[Y]] : i8
// CHECK-NEXT: te.yield %[[Q]] : i8
// CHECK-NEXT: } : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
func.func @div(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = graph.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// ONNX Mod of unsigned integers is the remainder.
// CHECK-LABEL: func.func @mod
// CHECK: %[[R:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: te.yield %[[R]] : i32
func.func @mod(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = graph.mod %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// CHECK-LABEL: func.func @less
// CHECK: %[[C:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i16
// CHECK-NEXT: te.yield %[[C]] : i1
func.func @less(%a: tensor<4xui16>, %b: tensor<4xui16>) -> tensor<4xi1> {
  %0 = graph.less %a, %b : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// CHECK-LABEL: func.func @max
// CHECK: %[[M:.*]] = arith.maxui %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: te.yield %[[M]] : i64
// CHECK-NEXT: } : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
func.func @max(%a: tensor<4xui64>, %b: tensor<4xui64>) -> tensor<4xui64> {
  %0 = graph.max %a, %b : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  return %0 : tensor<4xui64>
}

// CHECK-LABEL: func.func @cast_to_float
// CHECK: %[[X:.*]] = te.read %{{.*}} : tensor<4xui8>
// CHECK-NEXT: %[[F:.*]] = arith.uitofp %[[X]] : i8 to f32
// CHECK-NEXT: te.yield %[[F]] : f32
func.func @cast_to_float(%a: tensor<4xui8>) -> tensor<4xf32> {
  %0 = graph.cast %a {to = f32} : (tensor<4xui8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Widening zero-extends an unsigned source and sign-extends a signed one.
// CHECK-LABEL: func.func @cast_widen
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
func.func @cast_widen(%a: tensor<4xui8>, %b: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xui32>) {
  %0 = graph.cast %a {to = i32} : (tensor<4xui8>) -> tensor<4xi32>
  %1 = graph.cast %b {to = ui32} : (tensor<4xi8>) -> tensor<4xui32>
  return %0, %1 : tensor<4xi32>, tensor<4xui32>
}

// A reduction over an unsigned result: the combiner compares unsigned.
// CHECK-LABEL: func.func @reduce_max
// CHECK: te.compute (%{{.*}}) [%{{.*}}] reduce [%{{.*}}] in [4] combiner = max {
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}} : tensor<2x4xui8>
// CHECK-NEXT: te.yield %[[X]] : i8
// CHECK-NEXT: } : (tensor<2x4xui8>) -> tensor<2xui8>
func.func @reduce_max(%a: tensor<2x4xui8>) -> tensor<2xui8> {
  %0 = graph.reduce_max %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x4xui8>) -> tensor<2xui8>
  return %0 : tensor<2xui8>
}

// The same bits in another signedness: the body yields what it reads.
// CHECK-LABEL: func.func @cast_same_width
// CHECK: %[[X:.*]] = te.read %{{.*}} : tensor<4xui8>
// CHECK-NEXT: te.yield %[[X]] : i8
// CHECK-NEXT: } : (tensor<4xui8>) -> tensor<4xi8>
func.func @cast_same_width(%a: tensor<4xui8>) -> tensor<4xi8> {
  %0 = graph.cast %a {to = i8} : (tensor<4xui8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
