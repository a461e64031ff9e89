// Nesting deeper than the parser's limit is a located error, not a stack overflow.
// RUN: python3 -c "print('\"u.a\"() {a = ' + '[' * 100000 + ']' * 100000 + '} : () -> ()')" > %t.mlir
// RUN: not tb-opt --allow-unregistered-dialect %t.mlir 2>&1 | FileCheck %s
// CHECK: error: nesting is too deep: more than 128 levels
