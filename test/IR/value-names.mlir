// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// Value and block names are not preserved: results are renumbered %0, %1,
// ..., entry block arguments %arg0, %arg1, ..., other block arguments get
// result-style numbers. In the generic form one numbering covers the whole
// module (even isolated-from-above operations such as func.func); the
// operations directly in a region are numbered before the regions nested in
// them, and nested regions are visited last-to-first.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: %0 = "unreg.named"() : () -> i32
// CHECK-NEXT:   %1 = "unreg.named2"(%0) : (i32) -> i32
// CHECK-NEXT:   %2 = "unreg.numbered"(%1) : (i32) -> i32
// CHECK-NEXT:   %3 = "unreg.numbered2"(%2) : (i32) -> i32
// CHECK-NEXT:   %4 = "unreg.odd_name"(%3) : (i32) -> i32
// CHECK-NEXT:   %5 = "unreg.looks_like_arg"(%4) : (i32) -> i32
%foo = "unreg.named"() : () -> i32
%bar_1 = "unreg.named2"(%foo) : (i32) -> i32
%0 = "unreg.numbered"(%bar_1) : (i32) -> i32
%42 = "unreg.numbered2"(%0) : (i32) -> i32
%x.y$z = "unreg.odd_name"(%42) : (i32) -> i32
%arg0 = "unreg.looks_like_arg"(%x.y$z) : (i32) -> i32

// Nested regions: this one is numbered after the following operations.
// CHECK-LABEL: "unreg.first_region"() ({
// CHECK-NEXT:   ^bb0(%arg3: i32):
// CHECK-NEXT:     %12 = "unreg.r"(%arg3) : (i32) -> i32
// CHECK-NEXT:   }) : () -> ()
"unreg.first_region"() ({
^bb0(%a: i32):
  %in1 = "unreg.r"(%a) : (i32) -> i32
}) : () -> ()
// CHECK-LABEL: "unreg.second_region"() ({
// CHECK-NEXT:   ^bb0(%arg2: i32):
// CHECK-NEXT:     %11 = "unreg.r"(%arg2) : (i32) -> i32
// CHECK-NEXT:   }) : () -> ()
"unreg.second_region"() ({
^bb0(%a: i32):
  %in2 = "unreg.r"(%a) : (i32) -> i32
}) : () -> ()
// CHECK-LABEL: %6 = "unreg.after_regions"() : () -> i32
%after = "unreg.after_regions"() : () -> i32

// func.func bodies share the numbering in the generic form.
// CHECK-LABEL: "func.func"() <{function_type = (i32) -> i32, sym_name = "f1"}> ({
// CHECK-NEXT:   ^bb0(%arg1: i32):
// CHECK-NEXT:     %10 = "unreg.f1_body"(%arg1) : (i32) -> i32
// CHECK-NEXT:     "func.return"(%10) : (i32) -> ()
// CHECK-NEXT:   }) : () -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "f1"}> ({
^bb0(%p: i32):
  %r = "unreg.f1_body"(%p) : (i32) -> i32
  "func.return"(%r) : (i32) -> ()
}) : () -> ()
// CHECK-LABEL: "func.func"() <{function_type = (i32) -> i32, sym_name = "f2"}> ({
// CHECK-NEXT:   ^bb0(%arg0: i32):
// CHECK-NEXT:     %9 = "unreg.f2_body"(%arg0) : (i32) -> i32
// CHECK-NEXT:     "func.return"(%9) : (i32) -> ()
// CHECK-NEXT:   }) : () -> ()
"func.func"() <{function_type = (i32) -> i32, sym_name = "f2"}> ({
^bb0(%p: i32):
  %r = "unreg.f2_body"(%p) : (i32) -> i32
  "func.return"(%r) : (i32) -> ()
}) : () -> ()

// Shadowing is not allowed, but the same name may be reused in a sibling
// region.
// CHECK-LABEL: "unreg.siblings"() ({
// CHECK-NEXT:     %8 = "unreg.s1"() : () -> i8
// CHECK-NEXT:   }, {
// CHECK-NEXT:     %7 = "unreg.s2"() : () -> i8
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"unreg.siblings"() ({
  %same = "unreg.s1"() : () -> i8
}, {
  %same = "unreg.s2"() : () -> i8
}) : () -> ()
