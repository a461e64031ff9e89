// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// REQUIRES: mlir-opt

// Unknown and file:line:col locations, and ranges.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.unknown"() : () -> () loc(unknown)
"unreg.unknown"() : () -> () loc(unknown)

// CHECK-LABEL: "unreg.file_line_col"() : () -> () loc("source.c":12:34)
"unreg.file_line_col"() : () -> () loc("source.c":12:34)

// A line without a column gets column 0.
// CHECK-LABEL: "unreg.line_only"() : () -> () loc("source.c":4:0)
"unreg.line_only"() : () -> () loc("source.c":4)

// CHECK-LABEL: "unreg.zero"() : () -> () loc("source.c":0:0)
"unreg.zero"() : () -> () loc("source.c":0:0)

// Ranges: to line:col, and to :col on the same line.
// CHECK-LABEL: "unreg.range"() : () -> () loc("source.c":1:2 to 3:4)
"unreg.range"() : () -> () loc("source.c":1:2 to 3:4)

// CHECK-LABEL: "unreg.range_same_line"() : () -> () loc("source.c":1:2 to :9)
"unreg.range_same_line"() : () -> () loc("source.c":1:2 to :9)

// File names with characters that need escaping.
// CHECK-LABEL: "unreg.odd_file"() : () -> () loc("dir with space/file \22q\22.c":1:1)
"unreg.odd_file"() : () -> () loc("dir with space/file \"q\".c":1:1)

// Without an explicit location an operation gets its position in this file.
// CHECK-LABEL: "unreg.implicit"() : () -> ()
// CHECK-SAME: loc("{{.*}}locations.mlir":[[@LINE+1]]:1)
"unreg.implicit"() : () -> ()

// Locations on operations with results and regions.
// CHECK-LABEL: %0 = "unreg.with_result"() : () -> i32 loc("a.c":1:1)
%0 = "unreg.with_result"() : () -> i32 loc("a.c":1:1)
// CHECK-LABEL: "unreg.with_region"(%0) ({
// CHECK-NEXT:     "unreg.inner"() : () -> () loc("a.c":3:3)
// CHECK-NEXT:   }) : (i32) -> () loc("a.c":2:2)
"unreg.with_region"(%0) ({
  "unreg.inner"() : () -> () loc("a.c":3:3)
}) : (i32) -> () loc("a.c":2:2)

// Large line and column numbers.
// CHECK-LABEL: "unreg.large"() : () -> () loc("big.c":4294967295:4294967295)
// CHECK-NEXT: }) : () -> () loc("{{.*}}locations.mlir":0:0)
"unreg.large"() : () -> () loc("big.c":4294967295:4294967295)
