// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --verify-roundtrip %s > /dev/null

// One non-zero of a 0-d tensor has an index with no coordinates: it prints (and reads
// back) as `[[]]` (7 is -1 as a signless i3). mlir-opt 22 prints `sparse<>`, which drops
// the value, so this file is not compared with it.
// CHECK-LABEL: "unreg.sparse_scalar"() {a = sparse<{{\[\[}}]], -1> : tensor<i3>} : () -> ()
"unreg.sparse_scalar"() {a = sparse<[[]], [7]> : tensor<i3>} : () -> ()

// Several equal indices stay a list: a splat index stands for one index only, and would
// read back with fewer indices than values.
// CHECK-LABEL: "unreg.sparse_equal_indices"() {a = sparse<{{\[\[}}0], [0]], [1, 2]> : tensor<2xi16>} : () -> ()
"unreg.sparse_equal_indices"() {a = sparse<[[0], [0]], [1, 2]> : tensor<2xi16>} : () -> ()
