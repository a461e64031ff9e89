// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// i1 attributes print as true/false; unit attributes print as a bare name.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.bools"() {f = false, minus_one = true, one = true, t = true, zero = false} : () -> ()
"unreg.bools"() {t = true, f = false, one = 1 : i1, zero = 0 : i1, minus_one = -1 : i1} : () -> ()

// CHECK-LABEL: "unreg.bools_in_arrays"() {a = [true, false, true], b = {{\[\[}}true], []]} : () -> ()
"unreg.bools_in_arrays"() {a = [true, false, 1 : i1], b = [[true], []]} : () -> ()

// A name without a value is a unit attribute; "= unit" is the same thing.
// CHECK-LABEL: "unreg.units"() {flag, other, "quoted flag"} : () -> ()
"unreg.units"() {flag, other = unit, "quoted flag"} : () -> ()

// CHECK-LABEL: "unreg.units_nested"() {a = [unit, unit], b = {inner, x}} : () -> ()
"unreg.units_nested"() {a = [unit, unit], b = {inner, x = unit}} : () -> ()

// Unit attributes in properties.
// CHECK-LABEL: "unreg.unit_props"() <{p, q = true}> {r} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.unit_props"() <{p = unit, q = true}> {r} : () -> ()
