// RUN: tb-opt %s | FileCheck %s
// RUN: tb-opt %s --verify-roundtrip > /dev/null
// RUN: tb-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tb-opt %s --mlir-print-op-generic | tb-opt | FileCheck %s

// Every graph op in its custom form, printed back as written. The generic form keeps
// default-valued attributes as properties; ops-generic.mlir checks that mlir-opt reads it
// back unchanged.

// Constants: dense, splat and dense_resource values; the result type is the value's.
// CHECK-LABEL: func.func @constants
// CHECK: %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
// CHECK-NEXT: %1 = graph.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %2 = graph.constant dense_resource<weights> : tensor<4xf32>
// CHECK-NEXT: %3 = graph.constant dense<true> : tensor<i1>
func.func @constants() -> (tensor<2xi64>, tensor<2x3xf32>, tensor<4xf32>, tensor<i1>) {
  %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
  %1 = graph.constant dense<1.500000e+00> : tensor<2x3xf32>
  %2 = graph.constant dense_resource<weights> : tensor<4xf32>
  %3 = graph.constant dense<true> : tensor<i1>
  return %0, %1, %2, %3 : tensor<2xi64>, tensor<2x3xf32>, tensor<4xf32>, tensor<i1>
}

// Generators: ConstantOfShape, Range, Shape, Size.
// CHECK-LABEL: func.func @generators
// CHECK: %0 = graph.constant_of_shape {shape = array<i64: 2, 3>} : tensor<2x3xf32>
// CHECK-NEXT: %1 = graph.constant_of_shape {shape = array<i64: 4>, value = 7 : i64} : tensor<4xi64>
// CHECK-NEXT: %2 = graph.range {delta = 3 : i64, limit = 10 : i64, start = 1 : i64} : tensor<3xi64>
// CHECK-NEXT: %3 = graph.range {delta = 5.000000e-01 : f32, limit = 2.000000e+00 : f32, start = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT: %4 = graph.shape %arg0 : (tensor<2x3x4xf32>) -> tensor<3xi64>
// CHECK-NEXT: %5 = graph.shape %arg0 {end = -1 : i64, start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<1xi64>
// CHECK-NEXT: %6 = graph.size %arg0 : (tensor<2x3x4xf32>) -> tensor<i64>
// GENERIC-LABEL: sym_name = "generators"
// GENERIC: "graph.constant_of_shape"() <{shape = array<i64: 2, 3>}> : () -> tensor<2x3xf32>
func.func @generators(%arg0: tensor<2x3x4xf32>) {
  %0 = graph.constant_of_shape {shape = array<i64: 2, 3>} : tensor<2x3xf32>
  %1 = graph.constant_of_shape {shape = array<i64: 4>, value = 7 : i64} : tensor<4xi64>
  %2 = graph.range {delta = 3 : i64, limit = 10 : i64, start = 1 : i64} : tensor<3xi64>
  %3 = graph.range {delta = 5.000000e-01 : f32, limit = 2.000000e+00 : f32, start = 0.000000e+00 : f32} : tensor<4xf32>
  %4 = graph.shape %arg0 : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %5 = graph.shape %arg0 {end = -1 : i64, start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<1xi64>
  %6 = graph.size %arg0 : (tensor<2x3x4xf32>) -> tensor<i64>
  return
}

// Unary elementwise ops print one type; attributes keep ONNX's names and defaults.
// CHECK-LABEL: func.func @unary
// CHECK: %0 = graph.relu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %1 = graph.relu %arg1 : tensor<4xi32>
// CHECK-NEXT: %2 = graph.leaky_relu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %3 = graph.leaky_relu %arg0 {alpha = 2.000000e-01 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %4 = graph.thresholded_relu %arg0 {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %5 = graph.elu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %6 = graph.selu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %7 = graph.celu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %8 = graph.sigmoid %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %9 = graph.hard_sigmoid %arg0 {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %10 = graph.hard_swish %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %11 = graph.tanh %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %12 = graph.gelu %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %13 = graph.gelu %arg0 {approximate = "tanh"} : tensor<2x3xf32>
// CHECK-NEXT: %14 = graph.softplus %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %15 = graph.softsign %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %16 = graph.mish %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %17 = graph.erf %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %18 = graph.exp %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %19 = graph.log %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %20 = graph.sqrt %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %21 = graph.reciprocal %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %22 = graph.neg %arg1 : tensor<4xi32>
// CHECK-NEXT: %23 = graph.abs %arg1 : tensor<4xi32>
// CHECK-NEXT: %24 = graph.sign %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %25 = graph.floor %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %26 = graph.ceil %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %27 = graph.round %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %28 = graph.sin %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %29 = graph.cos %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %30 = graph.tan %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %31 = graph.asin %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %32 = graph.acos %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %33 = graph.atan %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %34 = graph.sinh %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %35 = graph.cosh %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %36 = graph.asinh %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %37 = graph.acosh %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %38 = graph.atanh %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %39 = graph.not %arg2 : tensor<4xi1>
// CHECK-NEXT: %40 = graph.identity %arg1 : tensor<4xi32>
// CHECK-NEXT: %41 = graph.clip %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %42 = graph.clip %arg1 {min = 0 : i32} : tensor<4xi32>
// CHECK-NEXT: %43 = graph.clip %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %44 = graph.softmax %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %45 = graph.log_softmax %arg0 {axis = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT: %46 = graph.is_nan %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %47 = graph.is_inf %arg0 {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %48 = graph.cast %arg0 {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK-NEXT: %49 = graph.cast %arg1 {to = i1} : (tensor<4xi32>) -> tensor<4xi1>
// CHECK-NEXT: %50 = graph.cast %arg1 {to = ui8} : (tensor<4xi32>) -> tensor<4xui8>
// GENERIC-LABEL: sym_name = "unary"
// GENERIC: "graph.relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC: "graph.leaky_relu"(%{{.*}}) <{alpha = 0.00999999977 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC: "graph.gelu"(%{{.*}}) <{approximate = "none"}>
func.func @unary(%arg0: tensor<2x3xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xi1>) {
  %0 = graph.relu %arg0 : tensor<2x3xf32>
  %1 = graph.relu %arg1 : tensor<4xi32>
  %2 = graph.leaky_relu %arg0 : tensor<2x3xf32>
  %3 = graph.leaky_relu %arg0 {alpha = 2.000000e-01 : f32} : tensor<2x3xf32>
  %4 = graph.thresholded_relu %arg0 {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>
  %5 = graph.elu %arg0 : tensor<2x3xf32>
  %6 = graph.selu %arg0 : tensor<2x3xf32>
  %7 = graph.celu %arg0 : tensor<2x3xf32>
  %8 = graph.sigmoid %arg0 : tensor<2x3xf32>
  %9 = graph.hard_sigmoid %arg0 {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
  %10 = graph.hard_swish %arg0 : tensor<2x3xf32>
  %11 = graph.tanh %arg0 : tensor<2x3xf32>
  %12 = graph.gelu %arg0 : tensor<2x3xf32>
  %13 = graph.gelu %arg0 {approximate = "tanh"} : tensor<2x3xf32>
  %14 = graph.softplus %arg0 : tensor<2x3xf32>
  %15 = graph.softsign %arg0 : tensor<2x3xf32>
  %16 = graph.mish %arg0 : tensor<2x3xf32>
  %17 = graph.erf %arg0 : tensor<2x3xf32>
  %18 = graph.exp %arg0 : tensor<2x3xf32>
  %19 = graph.log %arg0 : tensor<2x3xf32>
  %20 = graph.sqrt %arg0 : tensor<2x3xf32>
  %21 = graph.reciprocal %arg0 : tensor<2x3xf32>
  %22 = graph.neg %arg1 : tensor<4xi32>
  %23 = graph.abs %arg1 : tensor<4xi32>
  %24 = graph.sign %arg0 : tensor<2x3xf32>
  %25 = graph.floor %arg0 : tensor<2x3xf32>
  %26 = graph.ceil %arg0 : tensor<2x3xf32>
  %27 = graph.round %arg0 : tensor<2x3xf32>
  %28 = graph.sin %arg0 : tensor<2x3xf32>
  %29 = graph.cos %arg0 : tensor<2x3xf32>
  %30 = graph.tan %arg0 : tensor<2x3xf32>
  %31 = graph.asin %arg0 : tensor<2x3xf32>
  %32 = graph.acos %arg0 : tensor<2x3xf32>
  %33 = graph.atan %arg0 : tensor<2x3xf32>
  %34 = graph.sinh %arg0 : tensor<2x3xf32>
  %35 = graph.cosh %arg0 : tensor<2x3xf32>
  %36 = graph.asinh %arg0 : tensor<2x3xf32>
  %37 = graph.acosh %arg0 : tensor<2x3xf32>
  %38 = graph.atanh %arg0 : tensor<2x3xf32>
  %39 = graph.not %arg2 : tensor<4xi1>
  %40 = graph.identity %arg1 : tensor<4xi32>
  %41 = graph.clip %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
  %42 = graph.clip %arg1 {min = 0 : i32} : tensor<4xi32>
  %43 = graph.clip %arg0 : tensor<2x3xf32>
  %44 = graph.softmax %arg0 : tensor<2x3xf32>
  %45 = graph.log_softmax %arg0 {axis = 0 : i64} : tensor<2x3xf32>
  %46 = graph.is_nan %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %47 = graph.is_inf %arg0 {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %48 = graph.cast %arg0 {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %49 = graph.cast %arg1 {to = i1} : (tensor<4xi32>) -> tensor<4xi1>
  %50 = graph.cast %arg1 {to = ui8} : (tensor<4xi32>) -> tensor<4xui8>
  return
}

// Binary ops broadcast numpy-style; comparisons and logic produce i1.
// CHECK-LABEL: func.func @binary
// CHECK: %0 = graph.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = graph.sub %arg2, %arg3 : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi64>
// CHECK-NEXT: %2 = graph.mul %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = graph.div %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %4 = graph.pow %arg0, %arg6 : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: %5 = graph.mod %arg2, %arg3 : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi64>
// CHECK-NEXT: %6 = graph.mod %arg0, %arg1 {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %7 = graph.prelu %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %8 = graph.equal %arg2, %arg3 : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi1>
// CHECK-NEXT: %9 = graph.equal %arg4, %arg5 : (tensor<2x3xi1>, tensor<i1>) -> tensor<2x3xi1>
// CHECK-NEXT: %10 = graph.less %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %11 = graph.less_or_equal %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %12 = graph.greater %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %13 = graph.greater_or_equal %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %14 = graph.and %arg4, %arg5 : (tensor<2x3xi1>, tensor<i1>) -> tensor<2x3xi1>
// CHECK-NEXT: %15 = graph.or %arg4, %arg4 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %16 = graph.xor %arg5, %arg4 : (tensor<i1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %17 = graph.where %arg4, %arg0, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %18 = graph.max %arg0, %arg1, %arg0 : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %19 = graph.min %arg2 : (tensor<4x1xi64>) -> tensor<4x1xi64>
// CHECK-NEXT: %20 = graph.sum %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %21 = graph.mean %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @binary(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4x1xi64>, %arg3: tensor<5xi64>, %arg4: tensor<2x3xi1>, %arg5: tensor<i1>, %arg6: tensor<3xi32>) {
  %0 = graph.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.sub %arg2, %arg3 : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi64>
  %2 = graph.mul %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.div %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = graph.pow %arg0, %arg6 : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  %5 = graph.mod %arg2, %arg3 : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi64>
  %6 = graph.mod %arg0, %arg1 {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = graph.prelu %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = graph.equal %arg2, %arg3 : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi1>
  %9 = graph.equal %arg4, %arg5 : (tensor<2x3xi1>, tensor<i1>) -> tensor<2x3xi1>
  %10 = graph.less %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %11 = graph.less_or_equal %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %12 = graph.greater %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %13 = graph.greater_or_equal %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %14 = graph.and %arg4, %arg5 : (tensor<2x3xi1>, tensor<i1>) -> tensor<2x3xi1>
  %15 = graph.or %arg4, %arg4 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %16 = graph.xor %arg5, %arg4 : (tensor<i1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %17 = graph.where %arg4, %arg0, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %18 = graph.max %arg0, %arg1, %arg0 : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = graph.min %arg2 : (tensor<4x1xi64>) -> tensor<4x1xi64>
  %20 = graph.sum %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %21 = graph.mean %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// MatMul broadcasts batch dimensions and promotes 1-D operands; Gemm's C is optional.
// CHECK-LABEL: func.func @matmul
// CHECK: %0 = graph.matmul %arg0, %arg1 : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT: %1 = graph.matmul %arg2, %arg1 : (tensor<8xf32>, tensor<3x8x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %2 = graph.matmul %arg3, %arg2 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
// CHECK-NEXT: %3 = graph.gemm %arg3, %arg4, %arg5 {trans_b = true} : (tensor<4x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: %4 = graph.gemm %arg4, %arg3 {alpha = 5.000000e-01 : f32, beta = 0.000000e+00 : f32, trans_b = true} : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
func.func @matmul(%arg0: tensor<2x1x4x8xf32>, %arg1: tensor<3x8x5xf32>, %arg2: tensor<8xf32>, %arg3: tensor<4x8xf32>, %arg4: tensor<5x8xf32>, %arg5: tensor<5xf32>) {
  %0 = graph.matmul %arg0, %arg1 : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  %1 = graph.matmul %arg2, %arg1 : (tensor<8xf32>, tensor<3x8x5xf32>) -> tensor<3x5xf32>
  %2 = graph.matmul %arg3, %arg2 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %3 = graph.gemm %arg3, %arg4, %arg5 {trans_b = true} : (tensor<4x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %4 = graph.gemm %arg4, %arg3 {alpha = 5.000000e-01 : f32, beta = 0.000000e+00 : f32, trans_b = true} : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  return
}

// Convolutions: bias optional; auto_pad, dilations, group, output_padding, output_shape.
// CHECK-LABEL: func.func @conv
// CHECK: %0 = graph.conv %arg0, %arg1, %arg2 {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK-NEXT: %1 = graph.conv %arg3, %arg4 {auto_pad = "SAME_UPPER", group = 8 : i64, kernel_shape = array<i64: 3, 3>} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
// CHECK-NEXT: %2 = graph.conv %arg3, %arg4 {dilations = array<i64: 2, 2>, group = 8 : i64} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT: %3 = graph.conv_transpose %arg3, %arg5 {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x5x5xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x10x10xf32>
// CHECK-NEXT: %4 = graph.conv_transpose %arg3, %arg5 {output_shape = array<i64: 10, 10>, strides = array<i64: 2, 2>} : (tensor<1x8x5x5xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x10x10xf32>
// GENERIC-LABEL: sym_name = "conv"
// GENERIC: "graph.conv"(%{{.*}}, %{{.*}}, %{{.*}}) <{auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
func.func @conv(%arg0: tensor<1x3x224x224xf32>, %arg1: tensor<64x3x7x7xf32>, %arg2: tensor<64xf32>, %arg3: tensor<1x8x5x5xf32>, %arg4: tensor<8x1x3x3xf32>, %arg5: tensor<8x2x3x3xf32>) {
  %0 = graph.conv %arg0, %arg1, %arg2 {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  %1 = graph.conv %arg3, %arg4 {auto_pad = "SAME_UPPER", group = 8 : i64, kernel_shape = array<i64: 3, 3>} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
  %2 = graph.conv %arg3, %arg4 {dilations = array<i64: 2, 2>, group = 8 : i64} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x1x1xf32>
  %3 = graph.conv_transpose %arg3, %arg5 {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x5x5xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  %4 = graph.conv_transpose %arg3, %arg5 {output_shape = array<i64: 10, 10>, strides = array<i64: 2, 2>} : (tensor<1x8x5x5xf32>, tensor<8x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return
}

// Pooling: kernel_shape is required; MaxPool may also return its Indices.
// CHECK-LABEL: func.func @pool
// CHECK: %0 = graph.max_pool %arg0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
// CHECK-NEXT: %1:2 = graph.max_pool %arg1 {ceil_mode = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK-NEXT: %2 = graph.average_pool %arg1 {count_include_pad = true, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32>
// CHECK-NEXT: %3 = graph.average_pool %arg1 {auto_pad = "SAME_LOWER", kernel_shape = array<i64: 3, 3>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT: %4 = graph.global_average_pool %arg0 : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
// CHECK-NEXT: %5 = graph.global_max_pool %arg1 : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
func.func @pool(%arg0: tensor<1x64x112x112xf32>, %arg1: tensor<1x1x4x4xf32>) {
  %0 = graph.max_pool %arg0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  %1:2 = graph.max_pool %arg1 {ceil_mode = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %2 = graph.average_pool %arg1 {count_include_pad = true, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32>
  %3 = graph.average_pool %arg1 {auto_pad = "SAME_LOWER", kernel_shape = array<i64: 3, 3>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %4 = graph.global_average_pool %arg0 : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
  %5 = graph.global_max_pool %arg1 : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  return
}

// Normalizations: BatchNormalization in inference mode; LayerNormalization's Mean and
// InvStdDev results are optional.
// CHECK-LABEL: func.func @normalization
// CHECK: %0 = graph.batch_normalization %arg0, %arg1, %arg1, %arg1, %arg1 {epsilon = 1.000000e-03 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %1 = graph.instance_normalization %arg0, %arg1, %arg1 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %2 = graph.layer_normalization %arg2, %arg3, %arg3 : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT: %3:3 = graph.layer_normalization %arg2, %arg3 {axis = 1 : i64} : (tensor<2x5x8xf32>, tensor<8xf32>) -> (tensor<2x5x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
func.func @normalization(%arg0: tensor<2x3x4x4xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x5x8xf32>, %arg3: tensor<8xf32>) {
  %0 = graph.batch_normalization %arg0, %arg1, %arg1, %arg1, %arg1 {epsilon = 1.000000e-03 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %1 = graph.instance_normalization %arg0, %arg1, %arg1 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %2 = graph.layer_normalization %arg2, %arg3, %arg3 : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %3:3 = graph.layer_normalization %arg2, %arg3 {axis = 1 : i64} : (tensor<2x5x8xf32>, tensor<8xf32>) -> (tensor<2x5x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return
}

// Data movement; ONNX's shape-defining inputs are attributes.
// CHECK-LABEL: func.func @shapes
// CHECK: %0 = graph.reshape %arg0 {shape = array<i64: 6, -1>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %1 = graph.reshape %arg0 {allowzero = true, shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT: %2 = graph.flatten %arg0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: %3 = graph.flatten %arg0 {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
// CHECK-NEXT: %4 = graph.transpose %arg0 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: %5 = graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %6 = graph.squeeze %arg1 : (tensor<1x3x1xf32>) -> tensor<3xf32>
// CHECK-NEXT: %7 = graph.squeeze %arg1 {axes = array<i64: -1>} : (tensor<1x3x1xf32>) -> tensor<1x3xf32>
// CHECK-NEXT: %8 = graph.unsqueeze %arg0 {axes = array<i64: 0, 4>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4x1xf32>
// CHECK-NEXT: %9 = graph.concat %arg0, %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
// CHECK-NEXT: %10:2 = graph.split %arg0 {axis = 2 : i64, split = array<i64: 1, 3>} : (tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x3xf32>)
// CHECK-NEXT: %11:3 = graph.split %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>)
// CHECK-NEXT: %12:2 = graph.split %arg0 {axis = -1 : i64, num_outputs = 2 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
// CHECK-NEXT: %13 = graph.slice %arg0 {ends = array<i64: 3, 9223372036854775807>, starts = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
// CHECK-NEXT: %14 = graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: -9223372036854775808>, starts = array<i64: -1>, steps = array<i64: -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT: %15 = graph.gather %arg0, %arg2 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x2x2x4xf32>
// CHECK-NEXT: %16 = graph.gather_elements %arg0, %arg3 : (tensor<2x3x4xf32>, tensor<2x3x4xi32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %17 = graph.expand %arg1 {shape = array<i64: 2, 1, 1, 5>} : (tensor<1x3x1xf32>) -> tensor<2x1x3x5xf32>
// CHECK-NEXT: %18 = graph.pad %arg0 {pads = array<i64: 0, 1, 2, 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT: %19 = graph.pad %arg0 {axes = array<i64: -1>, constant_value = 1.000000e+00 : f32, pads = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %20 = graph.pad %arg0 {mode = "reflect", pads = array<i64: 0, 0, 1, 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT: %21 = graph.tile %arg0 {repeats = array<i64: 1, 2, 3>} : (tensor<2x3x4xf32>) -> tensor<2x6x12xf32>
// GENERIC-LABEL: sym_name = "shapes"
// GENERIC: "graph.reshape"(%{{.*}}) <{allowzero = false, shape = array<i64: 6, -1>}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC: "graph.split"(%{{.*}}) <{axis = 2 : i64, split = array<i64: 1, 3>}> : (tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x3xf32>)
func.func @shapes(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x3x1xf32>, %arg2: tensor<2x2xi64>, %arg3: tensor<2x3x4xi32>) {
  %0 = graph.reshape %arg0 {shape = array<i64: 6, -1>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = graph.reshape %arg0 {allowzero = true, shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %2 = graph.flatten %arg0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %3 = graph.flatten %arg0 {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x24xf32>
  %4 = graph.transpose %arg0 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %5 = graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %6 = graph.squeeze %arg1 : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %7 = graph.squeeze %arg1 {axes = array<i64: -1>} : (tensor<1x3x1xf32>) -> tensor<1x3xf32>
  %8 = graph.unsqueeze %arg0 {axes = array<i64: 0, 4>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4x1xf32>
  %9 = graph.concat %arg0, %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %10:2 = graph.split %arg0 {axis = 2 : i64, split = array<i64: 1, 3>} : (tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x3xf32>)
  %11:3 = graph.split %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>)
  %12:2 = graph.split %arg0 {axis = -1 : i64, num_outputs = 2 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
  %13 = graph.slice %arg0 {ends = array<i64: 3, 9223372036854775807>, starts = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
  %14 = graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: -9223372036854775808>, starts = array<i64: -1>, steps = array<i64: -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
  %15 = graph.gather %arg0, %arg2 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x2x2x4xf32>
  %16 = graph.gather_elements %arg0, %arg3 : (tensor<2x3x4xf32>, tensor<2x3x4xi32>) -> tensor<2x3x4xf32>
  %17 = graph.expand %arg1 {shape = array<i64: 2, 1, 1, 5>} : (tensor<1x3x1xf32>) -> tensor<2x1x3x5xf32>
  %18 = graph.pad %arg0 {pads = array<i64: 0, 1, 2, 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x5x8xf32>
  %19 = graph.pad %arg0 {axes = array<i64: -1>, constant_value = 1.000000e+00 : f32, pads = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %20 = graph.pad %arg0 {mode = "reflect", pads = array<i64: 0, 0, 1, 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
  %21 = graph.tile %arg0 {repeats = array<i64: 1, 2, 3>} : (tensor<2x3x4xf32>) -> tensor<2x6x12xf32>
  return
}

// DepthToSpace and SpaceToDepth.
// CHECK-LABEL: func.func @space_depth
// CHECK: %0 = graph.depth_to_space %arg0 {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT: %1 = graph.depth_to_space %arg0 {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT: %2 = graph.space_to_depth %arg1 {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
func.func @space_depth(%arg0: tensor<1x8x2x3xf32>, %arg1: tensor<1x2x4x6xf32>) {
  %0 = graph.depth_to_space %arg0 {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %1 = graph.depth_to_space %arg0 {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %2 = graph.space_to_depth %arg1 {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return
}

// Reductions (axes as an attribute, opset 18) and ArgMax/ArgMin (i64 results).
// CHECK-LABEL: func.func @reductions
// CHECK: %0 = graph.reduce_mean %arg0 {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT: %1 = graph.reduce_sum %arg0 {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK-NEXT: %2 = graph.reduce_max %arg0 : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %3 = graph.reduce_min %arg0 {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK-NEXT: %4 = graph.reduce_prod %arg1 {noop_with_empty_axes = true} : (tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT: %5 = graph.reduce_l1 %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %6 = graph.reduce_l2 %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %7 = graph.reduce_log_sum %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %8 = graph.reduce_log_sum_exp %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %9 = graph.reduce_sum_square %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %10 = graph.arg_max %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
// CHECK-NEXT: %11 = graph.arg_min %arg1 {keepdims = false, select_last_index = true} : (tensor<2x3xi64>) -> tensor<3xi64>
// GENERIC-LABEL: sym_name = "reductions"
// GENERIC: "graph.reduce_mean"(%{{.*}}) <{axes = array<i64: -1>, keepdims = true, noop_with_empty_axes = false}> : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
func.func @reductions(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x3xi64>) {
  %0 = graph.reduce_mean %arg0 {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %1 = graph.reduce_sum %arg0 {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %2 = graph.reduce_max %arg0 : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %3 = graph.reduce_min %arg0 {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %4 = graph.reduce_prod %arg1 {noop_with_empty_axes = true} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %5 = graph.reduce_l1 %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %6 = graph.reduce_l2 %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %7 = graph.reduce_log_sum %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %8 = graph.reduce_log_sum_exp %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %9 = graph.reduce_sum_square %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %10 = graph.arg_max %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %11 = graph.arg_min %arg1 {keepdims = false, select_last_index = true} : (tensor<2x3xi64>) -> tensor<3xi64>
  return
}
// Swish and Shrink; bitwise ops on integers (BitShift on unsigned ones).
// CHECK-LABEL: func.func @more_elementwise
// CHECK: %0 = graph.swish %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %1 = graph.shrink %arg0 {bias = 1.000000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %2 = graph.bitwise_and %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT: %3 = graph.bitwise_or %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT: %4 = graph.bitwise_xor %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT: %5 = graph.bitwise_not %arg1 : tensor<4xi32>
// CHECK-NEXT: %6 = graph.bit_shift %arg2, %arg2 {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
func.func @more_elementwise(%arg0: tensor<2x3xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xui8>) {
  %0 = graph.swish %arg0 : tensor<2x3xf32>
  %1 = graph.shrink %arg0 {bias = 1.000000e+00 : f32} : tensor<2x3xf32>
  %2 = graph.bitwise_and %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = graph.bitwise_or %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = graph.bitwise_xor %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = graph.bitwise_not %arg1 : tensor<4xi32>
  %6 = graph.bit_shift %arg2, %arg2 {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return
}

// Along an axis: Trilu, CumSum, Hardmax, TopK (two results).
// CHECK-LABEL: func.func @along_an_axis
// CHECK: %0 = graph.trilu %arg0 {k = 1 : i64, upper = false} : tensor<2x3xf32>
// CHECK-NEXT: %1 = graph.cum_sum %arg0 {axis = 1 : i64, reverse = true} : tensor<2x3xf32>
// CHECK-NEXT: %2 = graph.hardmax %arg0 : tensor<2x3xf32>
// CHECK-NEXT: {{.*}} = graph.top_k %arg0 {k = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
func.func @along_an_axis(%arg0: tensor<2x3xf32>) {
  %0 = graph.trilu %arg0 {k = 1 : i64, upper = false} : tensor<2x3xf32>
  %1 = graph.cum_sum %arg0 {axis = 1 : i64, reverse = true} : tensor<2x3xf32>
  %2 = graph.hardmax %arg0 : tensor<2x3xf32>
  %3:2 = graph.top_k %arg0 {k = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return
}

// Index tuples, Einsum and Resize.
// CHECK-LABEL: func.func @index_tuples
// CHECK: %0 = graph.gather_nd %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x2xi64>) -> tensor<4xf32>
// CHECK-NEXT: %1 = graph.scatter_nd %arg0, %arg1, %arg2 {reduction = "add"} : (tensor<2x3xf32>, tensor<4x2xi64>, tensor<4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %2 = graph.scatter_elements %arg0, %arg3, %arg0 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = graph.einsum %arg0, %arg0 {equation = "ij,kj->ik"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %4 = graph.resize %arg0 {{{.*}}mode = "linear"{{.*}}sizes = array<i64: 4, 6>{{.*}}} : (tensor<2x3xf32>) -> tensor<4x6xf32>
func.func @index_tuples(%arg0: tensor<2x3xf32>, %arg1: tensor<4x2xi64>, %arg2: tensor<4xf32>, %arg3: tensor<2x3xi64>) {
  %0 = graph.gather_nd %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x2xi64>) -> tensor<4xf32>
  %1 = graph.scatter_nd %arg0, %arg1, %arg2 {reduction = "add"} : (tensor<2x3xf32>, tensor<4x2xi64>, tensor<4xf32>) -> tensor<2x3xf32>
  %2 = graph.scatter_elements %arg0, %arg3, %arg0 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.einsum %arg0, %arg0 {equation = "ij,kj->ik"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  %4 = graph.resize %arg0 {mode = "linear", scales = array<f64: 2.0, 2.0>, sizes = array<i64: 4, 6>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
  return
}
// Attention (ONNX opset 23): query, key and value heads, an optional additive mask.
// CHECK-LABEL: func.func @attention
// CHECK: %0 = graph.attention %arg0, %arg1, %arg2 : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK: %1 = graph.attention %arg0, %arg1, %arg2, %arg3 {is_causal = true} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<4x6xf32>) -> tensor<1x2x4x8xf32>
func.func @attention(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %m: tensor<4x6xf32>) {
  %0 = graph.attention %q, %k, %v : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32>
  %1 = graph.attention %q, %k, %v, %m {is_causal = true} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<4x6xf32>) -> tensor<1x2x4x8xf32>
  return
}

// graph.loop: trip count, condition and loop-carried values in; the body takes the
// iteration number, the condition and the carried values, and yields the next condition,
// carried values and one value per scan output (stacked along a new first axis).
// CHECK-LABEL: func.func @loop
// CHECK:      %[[R:.*]]:2 = graph.loop %arg0, %arg1, %arg2 : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
// CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i64>, %[[C:.*]]: tensor<i1>, %[[A:.*]]: tensor<2xf32>):
// CHECK-NEXT:   %[[N:.*]] = graph.add %[[A]], %arg3 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   graph.yield %[[C]], %[[N]], %[[A]] : tensor<i1>, tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
// GENERIC-LABEL: sym_name = "loop"
// GENERIC: "graph.loop"(%{{.*}}, %{{.*}}, %{{.*}}) ({
// GENERIC-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<2xf32>):
// GENERIC: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %0:2 = graph.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = graph.add %acc, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %cond, %next, %acc : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<3x2xf32>
}

// A graph.loop with no loop-carried values: only the trip count and the condition.
// CHECK-LABEL: func.func @loop_without_carried_values
// CHECK:      graph.loop %arg0, %arg1 : (tensor<i64>, tensor<i1>) -> tensor<4xi64> {
// CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i64>, %[[C:.*]]: tensor<i1>):
// CHECK-NEXT:   graph.yield %[[C]], %[[I]] : tensor<i1>, tensor<i64>
func.func @loop_without_carried_values(%m: tensor<i64>, %c: tensor<i1>) -> tensor<4xi64> {
  %0 = graph.loop %m, %c : (tensor<i64>, tensor<i1>) -> tensor<4xi64> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>):
    graph.yield %cond, %i : tensor<i1>, tensor<i64>
  }
  return %0 : tensor<4xi64>
}

// graph.scan: states, then scan inputs (num_scan_inputs of them); the body takes the
// states and one slice of each scan input, and yields the states and one value per scan
// output, stacked along its axis.
// CHECK-LABEL: func.func @scan
// CHECK:      %[[R:.*]]:2 = graph.scan %arg0, %arg1 {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 1>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<2xf32>, %[[X:.*]]: tensor<2xf32>):
// CHECK-NEXT:   %[[N:.*]] = graph.add %[[S]], %[[X]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   graph.yield %[[N]], %[[N]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: }
// GENERIC-LABEL: sym_name = "scan"
// GENERIC: "graph.scan"(%{{.*}}, %{{.*}}) <{num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 1>, scan_output_directions = array<i64: 0>}> ({
func.func @scan(%init: tensor<2xf32>, %x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  %0:2 = graph.scan %init, %x {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: 1>, scan_output_directions = array<i64: 0>} : (tensor<2xf32>, tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  ^bb0(%s: tensor<2xf32>, %xi: tensor<2xf32>):
    %n = graph.add %s, %xi : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %n, %n : tensor<2xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<2x3xf32>
}

// A graph.scan with the default axes and directions (0, forward) and no state.
// CHECK-LABEL: func.func @scan_defaults
// CHECK:      graph.scan %arg0 {num_scan_inputs = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
func.func @scan_defaults(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = graph.scan %x {num_scan_inputs = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%xi: tensor<2xf32>):
    %n = graph.neg %xi : tensor<2xf32>
    graph.yield %n : tensor<2xf32>
  }
  return %0 : tensor<3x2xf32>
}

// Control flow: graph.if computes its results by the region a run-time condition selects;
// the regions use values defined above them and end in graph.yield.
// CHECK-LABEL: func.func @control_flow
// CHECK:      %[[R:.*]]:2 = graph.if %arg1 : (tensor<i1>) -> (tensor<2x3xf32>, tensor<3xi64>) {
// CHECK-NEXT:   %[[T:.*]] = graph.relu %arg0 : tensor<2x3xf32>
// CHECK-NEXT:   graph.yield %[[T]], %arg2 : tensor<2x3xf32>, tensor<3xi64>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[E:.*]] = graph.neg %arg0 : tensor<2x3xf32>
// CHECK-NEXT:   %[[S:.*]] = graph.shape %arg0 : (tensor<2x3xf32>) -> tensor<2xi64>
// CHECK-NEXT:   %[[C:.*]] = graph.concat %[[S]], %{{.*}} {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
// CHECK-NEXT:   graph.yield %[[E]], %[[C]] : tensor<2x3xf32>, tensor<3xi64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
// GENERIC-LABEL: sym_name = "control_flow"
// GENERIC: "graph.if"(%arg1) ({
// GENERIC: "graph.yield"(%{{.*}}, %arg2) : (tensor<2x3xf32>, tensor<3xi64>) -> ()
// GENERIC-NEXT: }, {
func.func @control_flow(%x: tensor<2x3xf32>, %c: tensor<i1>, %k: tensor<3xi64>, %one: tensor<1xi64>) -> (tensor<2x3xf32>, tensor<3xi64>) {
  %0:2 = graph.if %c : (tensor<i1>) -> (tensor<2x3xf32>, tensor<3xi64>) {
    %t = graph.relu %x : tensor<2x3xf32>
    graph.yield %t, %k : tensor<2x3xf32>, tensor<3xi64>
  } else {
    %e = graph.neg %x : tensor<2x3xf32>
    %s = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xi64>
    %n = graph.concat %s, %one {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
    graph.yield %e, %n : tensor<2x3xf32>, tensor<3xi64>
  }
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
