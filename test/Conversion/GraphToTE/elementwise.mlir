// RUN: tb-opt %s --convert-graph-to-te | FileCheck %s
// RUN: tb-opt %s --convert-graph-to-te --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Elementwise graph ops become one te.compute each; broadcast operands read index 0 in
// their size-1 dimensions and drop missing leading ones.

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[R:.*]] = te.compute (%[[A]], %[[B]]) [%{{.*}}, %{{.*}}] {
// CHECK-NEXT: %[[X:.*]] = te.read %[[A]][(d0, d1) -> (d0, d1)] : tensor<2x3xf32>
// CHECK-NEXT: %[[Y:.*]] = te.read %[[B]][(d0, d1) -> (d1)] : tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: te.yield %[[S]] : f32
// CHECK-NEXT: } : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mul_unit_dims
// CHECK: te.read %{{.*}}[(d0, d1) -> (d0, 0)] : tensor<2x1xi32>
// CHECK: te.read %{{.*}}[(d0, d1) -> (0, d1)] : tensor<1x4xi32>
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
func.func @mul_unit_dims(%a: tensor<2x1xi32>, %b: tensor<1x4xi32>) -> tensor<2x4xi32> {
  %0 = graph.mul %a, %b : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// ReLU is `x < 0 ? 0 : x`: a NaN stays NaN and -0 stays -0, as in onnxruntime.
// CHECK-LABEL: func.func @relu
// CHECK: %[[X:.*]] = te.read
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[B:.*]] = arith.cmpf olt, %[[X]], %[[Z]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.select %[[B]], %[[Z]], %[[X]] : f32
// CHECK-NEXT: te.yield %[[M]] : f32
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// f16 bodies compute in f32 and round once.
// CHECK-LABEL: func.func @sigmoid_f16
// CHECK: %[[X:.*]] = te.read %{{.*}} : tensor<4xf16>
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: arith.negf %[[W]] : f32
// CHECK: math.exp
// CHECK: %[[Q:.*]] = arith.divf
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT: te.yield %[[N]] : f16
func.func @sigmoid_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = graph.sigmoid %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @gelu
// CHECK: math.erf
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @clip
// CHECK: %[[X:.*]] = te.read
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[B:.*]] = arith.cmpf olt, %[[X]], %[[LO]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[B]], %[[LO]], %[[X]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[A:.*]] = arith.cmpf ogt, %[[Y]], %[[HI]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.select %[[A]], %[[HI]], %[[Y]] : f32
// CHECK-NEXT: te.yield %[[Z]] : f32
func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.clip %x {max = 6.0 : f32, min = 0.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @where_scalar
// CHECK: %[[C:.*]] = te.read %{{.*}}[(d0) -> (d0)] : tensor<4xi1>
// CHECK-NEXT: %[[X:.*]] = te.read %{{.*}}[(d0) -> (d0)] : tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = te.read %{{.*}}[(d0) -> ()] : tensor<f32>
// CHECK-NEXT: arith.select %[[C]], %[[X]], %[[Y]] : f32
func.func @where_scalar(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %0 = graph.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @less_integers
// CHECK: %[[R:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: te.yield %[[R]] : i1
// CHECK: -> tensor<4xi1>
func.func @less_integers(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  %0 = graph.less %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// Float to integer casts truncate toward zero and wrap through i64, as a C cast does.
// CHECK-LABEL: func.func @cast_to_i32
// CHECK: %[[W:.*]] = arith.fptosi %{{.*}} : f32 to i64
// CHECK-NEXT: %[[N:.*]] = arith.trunci %[[W]] : i64 to i32
// CHECK-NEXT: te.yield %[[N]] : i32
func.func @cast_to_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = graph.cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @variadic_max
// CHECK: %[[M:.*]] = arith.maximumf
// CHECK-NEXT: arith.maximumf %[[M]], %{{.*}} : f32
func.func @variadic_max(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<1xf32>) -> tensor<4xf32> {
  %0 = graph.max %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.identity %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// What an op lowers to keeps its location.
// LOC-LABEL: func.func @located
// LOC: te.read {{.*}} loc("exp.onnx":3:7)
// LOC-NEXT: math.exp {{.*}} loc("exp.onnx":3:7)
// LOC-NEXT: te.yield {{.*}} loc("exp.onnx":3:7)
// LOC-NEXT: } : (tensor<4xf32>) -> tensor<4xf32> loc("exp.onnx":3:7)
func.func @located(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.exp %x : tensor<4xf32> loc("exp.onnx":3:7)
  return %0 : tensor<4xf32>
}
