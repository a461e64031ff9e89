// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Array attributes: empty, nested, mixed.

// CHECK: #map = affine_map<(d0) -> (d0)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.arrays"() {empty = [], empty_nested = {{\[\[}}], {{\[\[}}]]], flat = [1, 2, 3], nested = {{\[\[}}1, 2], [3, [4, [5, []]]]], one = [1]} : () -> ()
"unreg.arrays"() {empty = [], one = [1], flat = [1, 2, 3], nested = [[1, 2], [3, [4, [5, []]]]], empty_nested = [[], [[]]]} : () -> ()

// Elements of different kinds.
// CHECK-LABEL: "unreg.mixed"() {a = [i32, "s", @sym, unit, {x = 1 : i64}, 1.500000e+00 : f32, true, tensor<4xf32>, #map, dense<1> : tensor<2xi8>, array<i32: 1>]} : () -> ()
"unreg.mixed"() {a = [i32, "s", @sym, unit, {x = 1}, 1.5 : f32, true, tensor<4xf32>, affine_map<(d0) -> (d0)>, dense<1> : tensor<2xi8>, array<i32: 1>]} : () -> ()

// Arrays as properties and as values of nested dictionaries.
// CHECK-LABEL: "unreg.array_props"() <{p = {{\[\[}}1], [2]]}> {d = {inner = [1, [2]]}} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.array_props"() <{p = [[1], [2]]}> {d = {inner = [1, [2]]}} : () -> ()
