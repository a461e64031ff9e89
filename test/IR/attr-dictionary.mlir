// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Dictionary attributes. Keys are sorted; keys that are not bare identifiers
// are quoted.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.dicts"() {empty = {}, flat = {a = 1 : i64, b = 2 : i64}, nested = {x = {y = {z = {}}}}} : () -> ()
"unreg.dicts"() {empty = {}, flat = {b = 2, a = 1}, nested = {x = {y = {z = {}}}}} : () -> ()

// Keys needing quotes, and keys with dots and dollars (which do not).
// CHECK-LABEL: "unreg.keys"() {d = {"-dash" = 6 : i64, "1abc" = 2 : i64, _u, b.c = 3 : i64, plain = 8 : i64, "q\22k" = 5 : i64, "with space" = 1 : i64, x$y = 7 : i64}} : () -> ()
"unreg.keys"() {d = {"with space" = 1, "1abc" = 2, b.c = 3, _u = unit, "q\"k" = 5, "-dash" = 6, x$y = 7, "plain" = 8}} : () -> ()

// The attribute dictionary of an operation is sorted too, quoted keys included.
// CHECK-LABEL: "unreg.op_dict"() {B = 5 : i64, _c = 6 : i64, a = 4 : i64, "quoted key" = 3 : i64, y = 2 : i64, z = 1 : i64} : () -> ()
"unreg.op_dict"() {z = 1, y = 2, "quoted key" = 3, a = 4, B = 5, _c = 6} : () -> ()

// Dictionaries inside arrays.
// CHECK-LABEL: "unreg.in_array"() {a = [{}, {k = 1 : i64}, {k = {}}]} : () -> ()
"unreg.in_array"() {a = [{}, {k = 1}, {k = {}}]} : () -> ()

// An empty attribute dictionary on an operation is not printed.
// CHECK-LABEL: "unreg.empty_op_dict"() : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.empty_op_dict"() {} : () -> ()
