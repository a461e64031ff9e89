// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// builtin.module and builtin.unrealized_conversion_cast verification errors.

// A module region needs a block.
"builtin.module"() ({
}) : () -> ()

// -----

// Module attributes need a dialect prefix.
module attributes {other = 1} {
}

// -----

// A module has a single block.
"builtin.module"() ({
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  "unreg.op"() : () -> ()
}) : () -> ()

// -----

// A module block has no arguments.
"builtin.module"() ({
^bb0(%a: i32):
  "unreg.op"() : () -> ()
}) : () -> ()

// -----

// A module has no results.
%0 = "builtin.module"() ({
  "unreg.op"() : () -> ()
}) : () -> i32

// -----

// A module has no operands.
%0 = "unreg.def"() : () -> i32
"builtin.module"(%0) ({
  "unreg.op"() : () -> ()
}) : (i32) -> ()

// -----

// sym_name must be a string.
"builtin.module"() <{sym_name = 1 : i32}> ({
  "unreg.op"() : () -> ()
}) : () -> ()

// -----

// Two names.
module @a @b {
}

// -----

// A nested module with a bad attribute, on a later line.
module @outer {
  module @inner attributes {
      bad = 1} {
  }
}

// -----

// unrealized_conversion_cast needs at least one result.
%0 = "unreg.def"() : () -> i32
"builtin.unrealized_conversion_cast"(%0) : (i32) -> ()

// -----

// A module needs exactly one region.
"builtin.module"() : () -> ()
