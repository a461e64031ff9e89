// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Attribute aliases (#name = attribute). The printer substitutes the
// attributes and makes its own aliases only for some kinds (affine maps,
// integer sets, distinct attributes, locations).

#int = 42 : i32
#str = "hello"
#arr = [1, 2, 3]
#dict = {key = "value", n = 7 : i8}
#sym = @some::@symbol
#dense = dense<[1, 2]> : tensor<2xi16>
#map_alias = affine_map<(d0, d1) -> (d1, d0)>
#set_alias = affine_set<(d0) : (d0 - 2 >= 0)>
#opaque = #foo.thing<"x">

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #set = affine_set<(d0) : (d0 - 2 >= 0)>
// CHECK-NEXT: "builtin.module"() ({

// CHECK-LABEL: "unreg.use_aliases"() {a = 42 : i32, b = "hello", c = [1, 2, 3], d = {key = "value", n = 7 : i8}, e = @some::@symbol, f = dense<[1, 2]> : tensor<2xi16>, g = #map, h = #set, i = #foo.thing<"x">} : () -> ()
"unreg.use_aliases"() {a = #int, b = #str, c = #arr, d = #dict, e = #sym, f = #dense, g = #map_alias, h = #set_alias, i = #opaque} : () -> ()

// Aliases inside other attributes and properties, used more than once.
// CHECK-LABEL: "unreg.nested_uses"() <{p = 42 : i32}> {a = [42 : i32, [1, 2, 3], 42 : i32], b = {inner = {key = "value", n = 7 : i8}}} : () -> ()
"unreg.nested_uses"() <{p = #int}> {a = [#int, #arr, #int], b = {inner = #dict}} : () -> ()

// Alias names may contain digits, underscores and dollars (but no dots).
#a_b$1 = 5 : i8
// CHECK-LABEL: "unreg.odd_alias_name"() {v = 5 : i8} : () -> ()
"unreg.odd_alias_name"() {v = #a_b$1} : () -> ()

// An alias that is never used is simply dropped.
#unused = "never used"

// Aliases may also be defined between operations.
#late = unit
// CHECK-LABEL: "unreg.late"() {flag} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.late"() {flag = #late} : () -> ()
