// NUL bytes in the input, made with printf so this file stays text. As in mlir-opt, a NUL
// between tokens is skipped like whitespace, one inside a string literal is a character
// of the string (printed escaped), and one in an operation name is an error.

// RUN: printf '"unreg.op"() \0{s = "a\0b"} : () -> ()\n' | tb-opt --allow-unregistered-dialect --mlir-print-op-generic - | FileCheck %s --check-prefix=STRING
// RUN: printf '"unreg.op"() \0{s = "a\0b"} : () -> ()\n' | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic - | FileCheck %s --check-prefix=STRING
// STRING: "unreg.op"() {s = "a\00b"} : () -> ()

// RUN: printf 'func.func private @"a\0b"()\n' | tb-opt - | FileCheck %s --check-prefix=SYMBOL
// RUN: printf 'func.func private @"a\0b"()\n' | mlir-opt - | FileCheck %s --check-prefix=SYMBOL
// SYMBOL: func.func private @"a\00b"()

// RUN: printf '"unreg.o\0p"() : () -> ()\n' | not tb-opt --allow-unregistered-dialect - 2>&1 | FileCheck %s --check-prefix=OPNAME
// RUN: printf '"unreg.o\0p"() : () -> ()\n' | not mlir-opt --allow-unregistered-dialect - 2>&1 | FileCheck %s --check-prefix=OPNAME
// OPNAME: <stdin>:1:1: error: null character not allowed in operation name

// A control character that starts no token gets MLIR's error, without the raw byte.
// RUN: printf '"unreg.op"() \001 : () -> ()\n' | not tb-opt --allow-unregistered-dialect - 2>&1 | FileCheck %s --check-prefix=CONTROL
// CONTROL: <stdin>:1:14: error: unexpected character{{$}}

// REQUIRES: mlir-opt
