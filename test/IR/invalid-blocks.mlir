// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Block and successor errors. (A block without a terminator is fine for
// unregistered operations, see regions.mlir.)

// Reference to an undefined block.
"unreg.op"() ({
  "unreg.br"()[^nowhere] : () -> ()
}) : () -> ()

// -----

// The same block label twice.
"unreg.op"() ({
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// The entry block of a region cannot be a successor.
"unreg.op"() ({
^entry:
  "unreg.br"()[^entry] : () -> ()
}) : () -> ()

// -----

// An operation with successors must be the last one in its block.
"unreg.op"() ({
  "unreg.br"()[^bb1] : () -> ()
  "unreg.after"() : () -> ()
^bb1:
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// Blocks other than a lone entry block cannot be empty.
"unreg.op"() ({
  "unreg.br"()[^bb1] : () -> ()
^bb1:
^bb2:
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// A block argument needs a type.
"unreg.op"() ({
^bb0(%a):
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// A block label needs a colon.
"unreg.op"() ({
^bb0
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// Blocks of another region are not visible.
"unreg.op"() ({
  "unreg.br"()[^other] : () -> ()
}, {
  "unreg.br"()[^other] : () -> ()
^other:
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// Blocks of an enclosing region are not visible.
"unreg.op"() ({
  "unreg.inner"() ({
    "unreg.br"()[^outer] : () -> ()
  }) : () -> ()
  "unreg.br"()[^outer] : () -> ()
^outer:
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// A module body has exactly one block.
"unreg.op"() : () -> ()
^bb1:
"unreg.op"() : () -> ()

// -----

// func.func bodies need terminators. An unregistered operation might be a
// terminator, but a registered one without the terminator trait is not.
"func.func"() <{function_type = () -> (), sym_name = "f"}> ({
  "unreg.first"() : () -> ()
  %0 = "builtin.unrealized_conversion_cast"() : () -> i32
}) : () -> ()

// -----

// An empty func.func entry block (a declaration has no block at all).
"func.func"() <{function_type = () -> (), sym_name = "f"}> ({
^bb0:
}) : () -> ()

// -----

// The entry block arguments of a func.func must match its type.
"func.func"() <{function_type = (i32) -> (), sym_name = "f"}> ({
^bb0(%a: f32):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A successor list with a missing ']'.
"unreg.op"() ({
  "unreg.br"()[^bb1 : () -> ()
^bb1:
  "unreg.ret"() : () -> ()
}) : () -> ()
