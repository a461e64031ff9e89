// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Operations with several results: %name:N definitions and %name#i uses.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: %0:2 = "unreg.two"() : () -> (i32, f32)
// CHECK-NEXT:   "unreg.use_two"(%0#0, %0#1, %0#1) : (i32, f32, f32) -> ()
%0:2 = "unreg.two"() : () -> (i32, f32)
"unreg.use_two"(%0#0, %0#1, %0#1) : (i32, f32, f32) -> ()

// Many results of the same type.
// CHECK-LABEL: %1:10 = "unreg.many"() : () -> (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8)
// CHECK-NEXT:   "unreg.use_many"(%1#9, %1#0, %1#5) : (i8, i8, i8) -> ()
%many:10 = "unreg.many"() : () -> (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8)
"unreg.use_many"(%many#9, %many#0, %many#5) : (i8, i8, i8) -> ()

// Results split into groups: %a:2, %b are printed as one group %N:3.
// CHECK-LABEL: %2:3 = "unreg.groups"() : () -> (i1, i2, i3)
// CHECK-NEXT:   "unreg.use_groups"(%2#1, %2#2, %2#0) : (i2, i3, i1) -> ()
%a:2, %b = "unreg.groups"() : () -> (i1, i2, i3)
"unreg.use_groups"(%a#1, %b, %a#0) : (i2, i3, i1) -> ()

// %name:1 is the same as a single result.
// CHECK-LABEL: %3 = "unreg.one"() : () -> i64
// CHECK-NEXT:   "unreg.use_one"(%3, %3) : (i64, i64) -> ()
%one:1 = "unreg.one"() : () -> i64
"unreg.use_one"(%one#0, %one) : (i64, i64) -> ()

// Results that are never used, and result names omitted altogether.
// CHECK-LABEL: %4:3 = "unreg.unused"() : () -> (i32, i32, i32)
%u:3 = "unreg.unused"() : () -> (i32, i32, i32)
// CHECK-LABEL: %5:2 = "unreg.unnamed"() : () -> (f16, f16)
"unreg.unnamed"() : () -> (f16, f16)

// Multi-result operations inside regions.
// CHECK-LABEL: "unreg.in_region"() ({
// CHECK-NEXT:     %6:3 = "unreg.inner"() : () -> (index, index, index)
// CHECK-NEXT:     "unreg.use_inner"(%6#2) : (index) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.in_region"() ({
  %r:3 = "unreg.inner"() : () -> (index, index, index)
  "unreg.use_inner"(%r#2) : (index) -> ()
}) : () -> ()
