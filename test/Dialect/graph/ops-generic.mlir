// RUN: tb-opt --mlir-print-op-generic %S/ops.mlir > %t.tb.mlir
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.tb.mlir > %t.mlir-opt.mlir
// RUN: diff %t.tb.mlir %t.mlir-opt.mlir
// REQUIRES: mlir-opt

// mlir-opt, which does not know the graph dialect, reads the generic form of every graph
// op (ops.mlir) and prints it back byte for byte: properties, multi-result ops and
// dense_resource blobs included.
