// --mlir-elide-elementsattrs-if-larger and --mlir-elide-resource-strings-if-larger keep
// printed IR small, as in mlir-opt: a large constant prints as dense_resource<__elided__>,
// a long resource entry is left out, in the output and in IR dumps alike.
// RUN: tb-opt --allow-unregistered-dialect %s --mlir-elide-elementsattrs-if-larger=3 | FileCheck %s --check-prefix=ELEMENTS
// RUN: tb-opt --allow-unregistered-dialect %s --mlir-elide-resource-strings-if-larger=60 | FileCheck %s --check-prefix=RESOURCES
// RUN: tb-opt --allow-unregistered-dialect %s --mlir-elide-resource-strings-if-larger=59 | FileCheck %s --check-prefix=NO-TRAILER
// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=FULL
// RUN: tb-opt --allow-unregistered-dialect %s --cse --mlir-print-ir-after-all --mlir-elide-elementsattrs-if-larger=3 --mlir-elide-resource-strings-if-larger=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: tb-opt --allow-unregistered-dialect %s --mlir-elide-elementsattrs-if-larger=3 | tb-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=REPARSED

// ELEMENTS-LABEL: "test.constants"
// ELEMENTS-SAME: large = dense_resource<__elided__> : tensor<5xi64>
// ELEMENTS-SAME: small = dense<[1, 2]> : tensor<2xi64>
// ELEMENTS-SAME: splat = dense<1.000000e+00> : tensor<100xf32>
// ELEMENTS: blob1: "0x08000000010000000000000002000000000000000300000000000000"

// An entry of 60 characters (quotes included) stays at a limit of 60, and goes at 59
// with the whole trailer, which is left empty.
// RESOURCES: "test.blob"() {attr = dense_resource<blob1> : tensor<3xi64>}
// RESOURCES: dialect_resources
// RESOURCES-NEXT: builtin
// RESOURCES-NEXT: blob1: "0x
// NO-TRAILER: "test.blob"() {attr = dense_resource<blob1> : tensor<3xi64>}
// NO-TRAILER-NOT: {-#

// FULL: large = dense<[1, 2, 3, 4, 5]> : tensor<5xi64>
// FULL: blob1: "0x

// DUMP: // -----// IR Dump After CSE (cse) //----- //
// DUMP: large = dense_resource<__elided__> : tensor<5xi64>
// DUMP-NOT: blob1: "0x

// REPARSED: large = dense_resource<__elided__> : tensor<5xi64>
"test.constants"() {large = dense<[1, 2, 3, 4, 5]> : tensor<5xi64>, small = dense<[1, 2]> : tensor<2xi64>, splat = dense<1.0> : tensor<100xf32>} : () -> ()
"test.blob"() {attr = dense_resource<blob1> : tensor<3xi64>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
