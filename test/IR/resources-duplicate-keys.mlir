// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// A resource key given twice in the dialect_resources trailer is not an error: as in
// mlir-opt, the last value wins, in the same group or in a later one.

// CHECK-LABEL: "unreg.uses"() {a = dense_resource<twice> : tensor<2xi32>, b = dense_resource<thrice> : tensor<1xi8>} : () -> ()
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      builtin: {
// CHECK-NEXT:        twice: "0x040000000300000004000000",
// CHECK-NEXT:        thrice: "0x0100000009"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
"unreg.uses"() {a = dense_resource<twice> : tensor<2xi32>, b = dense_resource<thrice> : tensor<1xi8>} : () -> ()

{-#
  dialect_resources: {
    builtin: {
      twice: "0x040000000100000002000000",
      thrice: "0x0100000007",
      twice: "0x040000000300000004000000",
      thrice: "0x0100000008"
    },
    builtin: {
      thrice: "0x0100000009"
    }
  }
#-}
