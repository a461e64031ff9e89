// Errors in later chunks carry the file's own line numbers, every chunk is processed,
// and outputs are separated by the marker.
// RUN: not tb-opt --allow-unregistered-dialect --split-input-file %s 2>&1 > %t | FileCheck %s --check-prefix=ERR
// RUN: FileCheck %s --check-prefix=OUT < %t

// OUT: module {
// OUT-NEXT: %0 = "builtin.unrealized_conversion_cast"() : () -> i32
%0 = "builtin.unrealized_conversion_cast"() : () -> i32

// -----

// ERR: split-input-file.mlir:[[@LINE+1]]:21: error: expected ':' followed by operation type
"unreg.op"() {a = 1}
// -----

// OUT: // -----
// OUT-NEXT: module {
// OUT-NEXT: %0 = "builtin.unrealized_conversion_cast"() : () -> f32
%1 = "builtin.unrealized_conversion_cast"() : () -> f32
