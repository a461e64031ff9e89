// RUN: tb-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: tb-opt --allow-unregistered-dialect --verify-roundtrip %s > /dev/null
// RUN: tb-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %mlir-diff %s
// REQUIRES: mlir-opt

// Inside a function, `func` ops print without their dialect prefix.
// CHECK-LABEL: func.func @add(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{function_type = (i32, i32) -> i32, sym_name = "add"}> ({
// GENERIC-NEXT:  ^bb0([[A:%arg[0-9]+]]: i32, %arg{{[0-9]+}}: i32):
// GENERIC-NEXT:    "func.return"([[A]]) : (i32) -> ()
func.func @add(%a: i32, %b: i32) -> i32 {
  func.return %a : i32
}

// CHECK-LABEL: func.func @caller(%arg0: i32) -> i32 {
// CHECK-NEXT:    %0 = call @add(%arg0, %arg0) : (i32, i32) -> i32
// CHECK-NEXT:    return %0 : i32
// GENERIC-LABEL: sym_name = "caller"
// GENERIC:         "func.call"([[X:%arg[0-9]+]], [[X]]) <{callee = @add}> : (i32, i32) -> i32
func.func @caller(%x: i32) -> i32 {
  %r = call @add(%x, %x) : (i32, i32) -> i32
  return %r : i32
}

// Several results print in parentheses; `%r:2` binds both.
// CHECK-LABEL: func.func @pair(%arg0: f32) -> (f32, f32) {
// CHECK-NEXT:    %0:2 = call @pair(%arg0) : (f32) -> (f32, f32)
// CHECK-NEXT:    return %0#1, %0#0 : f32, f32
func.func @pair(%x: f32) -> (f32, f32) {
  %r:2 = func.call @pair(%x) : (f32) -> (f32, f32)
  return %r#1, %r#0 : f32, f32
}

// A declaration lists bare types; visibility comes before the name.
// CHECK-LABEL: func.func private @decl(f32) -> f32
// CHECK-NOT:   {
func.func private @decl(f32) -> f32

// Argument and result attributes, and discardable attributes after `attributes`.
// CHECK-LABEL: func.func @attrs(%arg0: i64 {unreg.arg}, %arg1: i64) -> (i64 {unreg.res = 1 : i32}) attributes {unreg.tag} {
func.func @attrs(%a: i64 {unreg.arg}, %b: i64) -> (i64 {unreg.res = 1 : i32}) attributes {unreg.tag} {
  return %a : i64
}

// A result of function type needs parentheses to be told apart from the signature.
// CHECK-LABEL: func.func private @returns_fn() -> ((i32) -> i32)
func.func private @returns_fn() -> ((i32) -> i32)

// No results, no arrow; an empty return has no colon.
// CHECK-LABEL: func.func @empty() {
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @empty() {
  return
}

// Branches between blocks of a function body: values must dominate their uses.
// CHECK-LABEL: func.func @branches(%arg0: i32) -> i32 attributes {unreg.tag} {
// CHECK:       ^bb1(%0: i32):  // pred: ^bb0
// CHECK-NEXT:    return %0 : i32
"func.func"() <{function_type = (i32) -> i32, sym_name = "branches"}> ({
^bb0(%x: i32):
  "unreg.br"(%x)[^bb1] : (i32) -> ()
^bb1(%y: i32):
  "func.return"(%y) : (i32) -> ()
}) {"unreg.tag"} : () -> ()

// A signature of bare types may have a body that spells its entry block: the block's
// arguments are the function's, and the function prints with named arguments.
// CHECK-LABEL: func.func @bare_types_with_entry_block(%arg0: f32, %arg1: i32) -> f32 {
// CHECK-NEXT:    return %arg0 : f32
func.func @bare_types_with_entry_block(f32, i32) -> f32 {
^bb0(%a: f32, %b: i32):
  return %a : f32
}

// CHECK-LABEL: func.func @bare_types_no_arguments() {
// CHECK-NEXT:    return
func.func @bare_types_no_arguments() {
^bb0:
  return
}

// A function as a value: `func.constant` names a function by symbol, typed with its type;
// in a function body it prints without its prefix.
// CHECK-LABEL: func.func @function_value() -> ((i32, i32) -> i32) {
// CHECK-NEXT:    %[[F:.*]] = constant @add : (i32, i32) -> i32
// CHECK-NEXT:    return %[[F]] : (i32, i32) -> i32
// GENERIC-LABEL: "func.func"() <{function_type = () -> ((i32, i32) -> i32), sym_name = "function_value"}> ({
// GENERIC-NEXT:    %{{.*}} = "func.constant"() <{value = @add}> : () -> ((i32, i32) -> i32)
func.func @function_value() -> ((i32, i32) -> i32) {
  %f = constant @add : (i32, i32) -> i32
  return %f : (i32, i32) -> i32
}
