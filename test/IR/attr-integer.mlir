// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Integer attributes.

// CHECK: "builtin.module"() ({

// Without a type an integer is i64; i64 is printed explicitly in dictionaries.
// CHECK-LABEL: "unreg.default_type"() {a = 42 : i64, b = -7 : i64, c = 0 : i64, d = 9223372036854775807 : i64, e = -9223372036854775808 : i64} : () -> ()
"unreg.default_type"() {a = 42, b = -7, c = 0, d = 9223372036854775807, e = -9223372036854775808} : () -> ()

// Hexadecimal literals are printed in decimal.
// CHECK-LABEL: "unreg.hex"() {a = 42 : i32, b = 255 : i16, c = -16 : i64, d = 3735928559 : i64, e = 0 : i8} : () -> ()
"unreg.hex"() {a = 0x2A : i32, b = 0xff : i16, c = -0x10 : i64, d = 0xDEADBEEF : i64, e = 0x0 : i8} : () -> ()

// Signless integers print as signed values: wrap-around is visible.
// CHECK-LABEL: "unreg.signless_wrap"() {a = -56 : i8, b = -1 : i8, c = -1 : i16, d = -1 : i72, e = -1 : i32} : () -> ()
"unreg.signless_wrap"() {a = 200 : i8, b = 255 : i8, c = 65535 : i16, d = 0xFFFFFFFFFFFFFFFFFF : i72, e = 4294967295 : i32} : () -> ()

// Signed and unsigned integer types.
// CHECK-LABEL: "unreg.signedness"() {a = -1 : si8, b = 127 : si8, c = 255 : ui8, d = 18446744073709551615 : ui64, e = 0 : ui1, f = -128 : si8} : () -> ()
"unreg.signedness"() {a = -1 : si8, b = 127 : si8, c = 255 : ui8, d = 18446744073709551615 : ui64, e = 0 : ui1, f = -128 : si8} : () -> ()

// Odd and very large widths.
// CHECK-LABEL: "unreg.widths"() {a = -3 : i3, b = -3 : i3, c = 1 : i7, d = 340282366920938463463374607431768211455 : i129, e = -170141183460469231731687303715884105728 : i128, f = 0 : i1024} : () -> ()
"unreg.widths"() {a = 5 : i3, b = -3 : i3, c = 1 : i7, d = 340282366920938463463374607431768211455 : i129, e = -170141183460469231731687303715884105728 : i128, f = 0 : i1024} : () -> ()

// index attributes.
// CHECK-LABEL: "unreg.index"() {a = 5 : index, b = -1 : index, c = 9223372036854775807 : index} : () -> ()
"unreg.index"() {a = 5 : index, b = -1 : index, c = 0x7fffffffffffffff : index} : () -> ()

// The extremes of each rule: a negated value needs its sign bit set (-2^(w-1) is the
// least), a signless value may fill every bit (it wraps, up to 128 bits), an index may not.
// CHECK-LABEL: "unreg.range_edges"() {a = -128 : i8, b = true, c = -1 : i128, d = -170141183460469231731687303715884105728 : i128, e = -9223372036854775808 : index, f = 9223372036854775807 : index} : () -> ()
"unreg.range_edges"() {a = -128 : i8, b = -1 : i1, c = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF : i128, d = 170141183460469231731687303715884105728 : i128, e = -9223372036854775808 : index, f = 9223372036854775807 : index} : () -> ()

// Integers inside arrays: the default type is elided there.
// CHECK-LABEL: "unreg.in_array"() {a = [1, 2, 3 : i32, -4 : si16, 5 : index]} : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.in_array"() {a = [1, 2 : i64, 3 : i32, -4 : si16, 5 : index]} : () -> ()
