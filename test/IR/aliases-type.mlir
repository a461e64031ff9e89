// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Type aliases (!name = type). The printer substitutes them.

!i = i32
!tensor = tensor<?x4xf32>
!tuple = tuple<i32, f32>
!fn = (i32) -> (i32, i32)
!opaque = !foo.bar<"x">
!unused = f64

// CHECK: "builtin.module"() ({

// CHECK-LABEL: %0:4 = "unreg.type_aliases"() : () -> (i32, tensor<?x4xf32>, tuple<i32, f32>, (i32) -> (i32, i32))
// CHECK-NEXT:   "unreg.use"(%0#0, %0#1, %0#2, %0#3) : (i32, tensor<?x4xf32>, tuple<i32, f32>, (i32) -> (i32, i32)) -> ()
%0:4 = "unreg.type_aliases"() : () -> (!i, !tensor, !tuple, !fn)
"unreg.use"(%0#0, %0#1, %0#2, %0#3) : (!i, !tensor, !tuple, !fn) -> ()

// Type aliases in attributes, block arguments and nested types.
// CHECK-LABEL: "unreg.alias_places"() ({
// CHECK-NEXT:   ^bb0(%arg0: !foo.bar<"x">, %arg1: i32):
// CHECK-NEXT:     "unreg.use"(%arg0, %arg1) : (!foo.bar<"x">, i32) -> ()
// CHECK-NEXT:   }) {t = tensor<?x4xf32>, u = [i32, tuple<i32, f32>]} : () -> ()
"unreg.alias_places"() ({
^bb0(%a: !opaque, %b: !i):
  "unreg.use"(%a, %b) : (!opaque, !i) -> ()
}) {t = !tensor, u = [!i, !tuple]} : () -> ()

// CHECK-LABEL: %1:4 = "unreg.alias_nested"() : () -> (vector<4xi32>, tensor<2x!foo.bar<"x">>, complex<i32>, memref<?xi32>)
// CHECK-NEXT: }) : () -> ()
"unreg.alias_nested"() : () -> (vector<4x!i>, tensor<2x!opaque>, complex<!i>, memref<?x!i>)
