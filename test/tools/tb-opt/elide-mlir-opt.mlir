// What the elide flags print, mlir-opt reads, and it elides the same attributes.
// REQUIRES: mlir-opt
// RUN: tb-opt --allow-unregistered-dialect %s --mlir-elide-elementsattrs-if-larger=2 | mlir-opt --allow-unregistered-dialect | FileCheck %s
// RUN: mlir-opt --allow-unregistered-dialect %s --mlir-elide-elementsattrs-if-larger=2 | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect %s --mlir-elide-resource-strings-if-larger=10 | mlir-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=RESOURCES

// CHECK: "test.constants"() {large = dense_resource<__elided__> : tensor<3xi64>, small = dense<[1, 2]> : tensor<2xi64>}
// RESOURCES: "test.blob"() {attr = dense_resource<blob1> : tensor<3xi64>}
// RESOURCES-NOT: blob1:
"test.constants"() {large = dense<[1, 2, 3]> : tensor<3xi64>, small = dense<[1, 2]> : tensor<2xi64>} : () -> ()
"test.blob"() {attr = dense_resource<blob1> : tensor<3xi64>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
