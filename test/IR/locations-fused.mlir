// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// REQUIRES: mlir-opt

// Fused locations, with and without metadata. Fusing simplifies: unknown
// members and duplicates are dropped, a single member without metadata is
// returned as is, and nothing left gives unknown.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.fused"() : () -> () loc(fused["f.c":1:1, "g.c":2:2])
"unreg.fused"() : () -> () loc(fused["f.c":1:1, "g.c":2:2])

// CHECK-LABEL: "unreg.fused_meta"() : () -> () loc(fused<"meta">["f.c":1:1, "x"])
"unreg.fused_meta"() : () -> () loc(fused<"meta">["f.c":1:1, "x"])

// Metadata can be any attribute.
// CHECK-LABEL: "unreg.fused_meta_kinds"() : () -> () loc(fused<{k = 1 : i64}>["a":1:1, "b":1:1])
"unreg.fused_meta_kinds"() : () -> () loc(fused<{k = 1}>["a":1:1, "b":1:1])
// CHECK-LABEL: "unreg.fused_meta_unit"() : () -> () loc(fused<unit>["a", "b"])
"unreg.fused_meta_unit"() : () -> () loc(fused<unit>["a", "b"])
// CHECK-LABEL: "unreg.fused_meta_dialect"() : () -> () loc(fused<#foo.meta<1>>["a", "b"])
"unreg.fused_meta_dialect"() : () -> () loc(fused<#foo.meta<1>>["a", "b"])

// Simplifications.
// CHECK-LABEL: "unreg.fused_empty"() : () -> () loc(unknown)
"unreg.fused_empty"() : () -> () loc(fused[])
// CHECK-LABEL: "unreg.fused_single"() : () -> () loc("f.c":1:1)
"unreg.fused_single"() : () -> () loc(fused["f.c":1:1])
// CHECK-LABEL: "unreg.fused_unknown"() : () -> () loc("f.c":3:3)
"unreg.fused_unknown"() : () -> () loc(fused[unknown, "f.c":3:3, unknown])
// CHECK-LABEL: "unreg.fused_dups"() : () -> () loc(fused["f.c":1:1, "g.c":1:1])
"unreg.fused_dups"() : () -> () loc(fused["f.c":1:1, "g.c":1:1, "f.c":1:1])
// CHECK-LABEL: "unreg.fused_meta_single"() : () -> () loc(fused<"m">["f.c":1:1])
"unreg.fused_meta_single"() : () -> () loc(fused<"m">["f.c":1:1])

// Nested fused locations are flattened when they have no metadata.
// CHECK-LABEL: "unreg.fused_nested"() : () -> () loc(fused["a":1:1, "b":2:2, "c":3:3])
"unreg.fused_nested"() : () -> () loc(fused["a":1:1, fused["b":2:2, "c":3:3]])
// CHECK-LABEL: "unreg.fused_nested_meta"() : () -> () loc(fused["a":1:1, fused<"m">["b":2:2, "c":3:3]])
// CHECK-NEXT: }) : () -> () loc("{{.*}}locations-fused.mlir":0:0)
"unreg.fused_nested_meta"() : () -> () loc(fused["a":1:1, fused<"m">["b":2:2, "c":3:3]])
