// Reads standard input; a malformed file gets a located error with the source line
// and a caret, and a non-zero exit.
// RUN: not tb-opt --allow-unregistered-dialect < %s 2>&1 | FileCheck %s

// CHECK: <stdin>:[[@LINE+3]]:19: error: unexpected character{{$}}
// CHECK-NEXT: {{^}}"unreg.op"() {a = $} : () -> (){{$}}
// CHECK-NEXT: {{^}}                  ^{{$}}
"unreg.op"() {a = $} : () -> ()
