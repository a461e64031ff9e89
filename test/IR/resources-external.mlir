// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// External resources in the {-# #-} trailer are kept and printed back
// (groups without entries are dropped). Values are strings, booleans and hex
// blobs with an alignment prefix.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.op"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-EMPTY:
// CHECK-NEXT: {-#
// CHECK-NEXT:   external_resources: {
// CHECK-NEXT:     tool_a: {
// CHECK-NEXT:       note: "some text",
// CHECK-NEXT:       flag: true,
// CHECK-NEXT:       other_flag: false,
// CHECK-NEXT:       blob: "0x08000000DEADBEEF01020304"
// CHECK-NEXT:     },
// CHECK-NEXT:     tool_b: {
// CHECK-NEXT:       escaped: "tab\09here"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
"unreg.op"() : () -> ()

{-#
  external_resources: {
    tool_a: {
      note: "some text",
      flag: true,
      other_flag: false,
      blob: "0x08000000DEADBEEF01020304"
    },
    tool_b: {
      escaped: "tab\there"
    },
    empty_group: {}
  }
#-}
