// RUN: tb-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics
// REQUIRES: mlir-opt

// Types and attributes of a dialect that is not registered, without
// --allow-unregistered-dialect: MLIR's messages, at the symbol's data for the pretty form.

// expected-error @+1 {{#"unreg"<"attr"> : 'none' attribute created with unregistered dialect}}
#a = #unreg.attr

// -----

// The attribute's type is read first.
// expected-error @+1 {{#"unreg"<"x<1>"> : 'i32' attribute created with unregistered dialect}}
#a = #unreg.x<1> : i32

// -----

func.func @f() attributes {
  // expected-error @+1 {{#"unreg"<""s""> : 'none' attribute created with unregistered dialect}}
  a = #unreg<"s">
} {
  return
}

// -----

// expected-error @+1 {{`!"unreg"<"type">` type created with unregistered dialect}}
!t = !unreg.type

// -----

// expected-error @+1 {{`!"unreg"<"t<4>">` type created with unregistered dialect}}
func.func private @f(!unreg.t<4>)
