// RUN: %mlir-diff %s
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// REQUIRES: mlir-opt

// Name locations.

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "unreg.name"() : () -> () loc("name")
"unreg.name"() : () -> () loc("name")

// A name with a child location.
// CHECK-LABEL: "unreg.name_child"() : () -> () loc("name"("file.c":5:6))
"unreg.name_child"() : () -> () loc("name"("file.c":5:6))

// CHECK-LABEL: "unreg.name_nested"() : () -> () loc("outer"("inner"("file.c":1:2 to 3:4)))
"unreg.name_nested"() : () -> () loc("outer"("inner"("file.c":1:2 to 3:4)))

// A name whose child is unknown prints without the child.
// CHECK-LABEL: "unreg.name_unknown"() : () -> () loc("name")
"unreg.name_unknown"() : () -> () loc("name"(unknown))

// Names with escapes and an empty name.
// CHECK-LABEL: "unreg.name_escapes"() : () -> () loc("tab\09here \22q\22")
"unreg.name_escapes"() : () -> () loc("tab\there \"q\"")
// CHECK-LABEL: "unreg.name_empty"() : () -> () loc("")
"unreg.name_empty"() : () -> () loc("")

// A name with a fused child.
// CHECK-LABEL: "unreg.name_fused"() : () -> () loc("n"(fused["a":1:1, "b":2:2]))
// CHECK-NEXT: }) : () -> () loc("{{.*}}locations-name.mlir":0:0)
"unreg.name_fused"() : () -> () loc("n"(fused["a":1:1, "b":2:2]))
