// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// memref memory spaces: integers, strings, dictionaries and dialect attributes.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.int_space"() {a = memref<4xf32, 1>, b = memref<4xf32, 42 : i32>, c = memref<4xf32, 7>, d = memref<?xi8, 3>} : () -> ()
"unreg.int_space"() {a = memref<4xf32, 1>, b = memref<4xf32, 42 : i32>, c = memref<4xf32, 7 : i64>, d = memref<?xi8, 3>} : () -> ()

// Any integer type works; an i64 space prints without its type.
// CHECK-LABEL: "unreg.typed_int_space"() {a = memref<4xf32, -1 : i8>, b = memref<4xf32, 5 : index>, c = memref<4xf32, true>} : () -> ()
"unreg.typed_int_space"() {a = memref<4xf32, -1 : i8>, b = memref<4xf32, 5 : index>, c = memref<4xf32, true>} : () -> ()

// A zero memory space of any integer type (false included) is the default
// space and is not printed.
// CHECK-LABEL: "unreg.zero_space"() {a = memref<4xf32>, b = memref<4xf32>, c = memref<4xf32>, d = memref<4xf32>} : () -> ()
"unreg.zero_space"() {a = memref<4xf32, 0>, b = memref<4xf32, 0 : i64>, c = memref<4xf32, 0 : i32>, d = memref<4xf32, false>} : () -> ()

// CHECK-LABEL: "unreg.string_space"() {a = memref<4xf32, "global">, b = memref<*xf32, "private">} : () -> ()
"unreg.string_space"() {a = memref<4xf32, "global">, b = memref<*xf32, "private">} : () -> ()

// CHECK-LABEL: "unreg.dict_space"() {a = memref<4xf32, {bank = 2 : i32, kind = "smem"}>} : () -> ()
"unreg.dict_space"() {a = memref<4xf32, {kind = "smem", bank = 2 : i32}>} : () -> ()

// Other builtin attributes (arrays, types, floats) are rejected as memory
// spaces, and so are attributes of unregistered dialects (see
// invalid-types-shaped.mlir).
// CHECK-LABEL: "unreg.nested_dict_space"() {a = memref<2x2xi8, {a = {b = [1, 2]}}>, b = memref<f32, {}>} : () -> ()
"unreg.nested_dict_space"() {a = memref<2x2xi8, {a = {b = [1, 2]}}>, b = memref<f32, {}>} : () -> ()

// CHECK-LABEL: %0 = "unreg.space_values"() : () -> memref<4xf32, 3>
// CHECK-NEXT:   "unreg.use"(%0) : (memref<4xf32, 3>) -> ()
// CHECK-NEXT: }) : () -> ()
%0 = "unreg.space_values"() : () -> memref<4xf32, 3>
"unreg.use"(%0) : (memref<4xf32, 3>) -> ()
