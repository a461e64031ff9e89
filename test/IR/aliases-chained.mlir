// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Aliases defined in terms of other aliases.

#base = 42 : i32
#arr = [#base, #base]
#dict = {k = #arr, b = #base}
#nested = [#dict, [#arr]]

!t = i32
!tt = tuple<!t, !t>
!vec = vector<4x!t>
!ttt = tuple<!tt, !vec>
#type_attr = !ttt

#m = affine_map<(d0) -> (d0 + 1)>
!mem = memref<4xf32, #m>
#mem_attr = !mem
#enc = "blocked"
!enc_tensor = tensor<8x!t, #enc>

// CHECK: #map = affine_map<(d0) -> (d0 + 1)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.chained_attrs"() {a = 42 : i32, b = [42 : i32, 42 : i32], c = {b = 42 : i32, k = [42 : i32, 42 : i32]}, d = [{b = 42 : i32, k = [42 : i32, 42 : i32]}, {{\[\[}}42 : i32, 42 : i32]]], e = tuple<tuple<i32, i32>, vector<4xi32>>, f = memref<4xf32, #map>} : () -> ()
"unreg.chained_attrs"() {a = #base, b = #arr, c = #dict, d = #nested, e = #type_attr, f = #mem_attr} : () -> ()

// CHECK-LABEL: %0 = "unreg.chained_types"() : () -> tuple<tuple<i32, i32>, vector<4xi32>>
// CHECK-NEXT:   %1:2 = "unreg.use"(%0) : (tuple<tuple<i32, i32>, vector<4xi32>>) -> (memref<4xf32, #map>, tensor<8xi32, "blocked">)
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.chained_types"() : () -> !ttt
"unreg.use"(%0) : (!ttt) -> (!mem, !enc_tensor)
