// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// REQUIRES: mlir-opt

// dense_resource attributes with blobs in the dialect_resources trailer.
// Each blob is a hex string whose first four bytes are the alignment (little
// endian). Only blobs that are referenced are printed.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.resources"() {a = dense_resource<blob_i32> : tensor<3xi32>, again = dense_resource<blob_i32> : tensor<3xi32>, b = dense_resource<blob_f32> : tensor<2xf32>} : () -> ()
"unreg.resources"() {a = dense_resource<blob_i32> : tensor<3xi32>, b = dense_resource<blob_f32> : tensor<2xf32>, again = dense_resource<blob_i32> : tensor<3xi32>} : () -> ()

// An alignment of 16, and a resource name that needs quotes.
// CHECK-LABEL: "unreg.aligned"() {a = dense_resource<blob_i64> : tensor<2xi64>, b = dense_resource<"odd name"> : tensor<1xi8>} : () -> ()
"unreg.aligned"() {a = dense_resource<blob_i64> : tensor<2xi64>, b = dense_resource<"odd name"> : tensor<1xi8>} : () -> ()

// The special elided blob needs no trailer entry.
// CHECK-LABEL: "unreg.elided"() {a = dense_resource<__elided__> : tensor<4xf32>} : () -> ()
"unreg.elided"() {a = dense_resource<__elided__> : tensor<4xf32>} : () -> ()

// As a property.
// CHECK-LABEL: %0 = "unreg.resource_prop"() <{value = dense_resource<blob_f32> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT: }) : () -> ()
// CHECK-EMPTY:
// CHECK-NEXT: {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob_i32: "0x04000000010000000200000003000000",
// CHECK-NEXT:       blob_f32: "0x040000000000803F00000040",
// CHECK-NEXT:       blob_i64: "0x100000000100000000000000FFFFFFFFFFFFFFFF",
// CHECK-NEXT:       "odd name": "0x0100000007"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
%0 = "unreg.resource_prop"() <{value = dense_resource<blob_f32> : tensor<2xf32>}> : () -> tensor<2xf32>

{-#
  dialect_resources: {
    builtin: {
      unused_blob: "0x0400000001000000",
      blob_i32: "0x04000000010000000200000003000000",
      blob_f32: "0x040000000000803F00000040",
      blob_i64: "0x100000000100000000000000FFFFFFFFFFFFFFFF",
      "odd name": "0x0100000007"
    }
  }
#-}
