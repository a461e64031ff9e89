// A failed run leaves an existing output file untouched; a good run replaces it.
// RUN: echo previous contents > %t
// RUN: not tb-opt %s -o %t
// RUN: FileCheck %s --check-prefix=KEPT < %t
// RUN: tb-opt %S/Inputs/cast.mlir -o %t
// RUN: FileCheck %s --check-prefix=NEW < %t

// KEPT: previous contents
// NEW: builtin.unrealized_conversion_cast
"builtin.unrealized_conversion_cast"(%missing) : (i32) -> i32
