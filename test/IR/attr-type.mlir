// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Type attributes.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.types"() {a = i32, b = f32, c = index, d = none, e = tensor<?xf32>, f = memref<4xi8>, g = vector<[4]xf32>, h = complex<f32>, i = tuple<>, j = () -> (), k = !foo.bar} : () -> ()
"unreg.types"() {a = i32, b = f32, c = index, d = none, e = tensor<?xf32>, f = memref<4xi8>, g = vector<[4]xf32>, h = complex<f32>, i = tuple<>, j = () -> (), k = !foo.bar} : () -> ()

// Type attributes inside containers.
// CHECK-LABEL: "unreg.types_nested"() {a = [i1, [f16, bf16]], b = {t = si8}} : () -> ()
"unreg.types_nested"() {a = [i1, [f16, bf16]], b = {t = si8}} : () -> ()

// Function-type attributes (as used by func.func).
// CHECK-LABEL: "unreg.function_types"() <{function_type = (i32, tensor<4xf32>) -> (f32, i1)}> {other = ((i32) -> ()) -> ()} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.function_types"() <{function_type = (i32, tensor<4xf32>) -> (f32, i1)}> {other = ((i32) -> ()) -> ()} : () -> ()
