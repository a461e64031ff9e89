// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// SSA value errors.

// Use of a value that is never defined (module bodies allow forward
// references, so the error comes at the end of the region).
"unreg.op"(%undefined) : (i32) -> ()

// -----

// Redefinition of a value.
%0 = "unreg.a"() : () -> i32
%0 = "unreg.b"() : () -> i32

// -----

// Redefinition through a multi-result group.
%x:2 = "unreg.a"() : () -> (i32, i32)
%x = "unreg.b"() : () -> i32

// -----

// Use before definition in a func.func body (an SSACFG region).
"func.func"() <{function_type = () -> (), sym_name = "f"}> ({
  "unreg.use"(%late) : (i32) -> ()
  %late = "unreg.def"() : () -> i32
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Multi-block regions of unregistered operations are checked for dominance.
"unreg.op"() ({
  %e = "unreg.def"() : () -> i64
  "unreg.br"(%e)[^bb1] : (i64) -> ()
^bb1:
  "unreg.use"(%late) : (i64) -> ()
  %late = "unreg.def"() : () -> i64
  "unreg.ret"() : () -> ()
}) : () -> ()

// -----

// A value defined in one block used in a sibling block that it does not
// dominate.
"unreg.op"() ({
  "unreg.cond_br"()[^bb1, ^bb2] : () -> ()
^bb1:
  %v = "unreg.def"() : () -> i32
  "unreg.br"()[^bb2] : () -> ()
^bb2:
  "unreg.use"(%v) : (i32) -> ()
}) : () -> ()

// -----

// The type of a use does not match the definition.
%0 = "unreg.def"() : () -> i32
"unreg.use"(%0) : (f32) -> ()

// -----

// The type of a forward reference does not match the later definition.
"unreg.use"(%fwd) : (f32) -> ()
%fwd = "unreg.def"() : () -> i32

// -----

// Result number out of range.
%0:2 = "unreg.def"() : () -> (i32, i32)
"unreg.use"(%0#2) : (i32) -> ()

// -----

// A result number on a single-result value.
%0 = "unreg.def"() : () -> i32
"unreg.use"(%0#1) : (i32) -> ()

// -----

// A value defined inside a region is not visible after it.
"unreg.op"() ({
  %inner = "unreg.def"() : () -> i32
}) : () -> ()
"unreg.use"(%inner) : (i32) -> ()

// -----

// Duplicate block argument names.
"unreg.op"() ({
^bb0(%a: i32, %a: i32):
  "unreg.use"(%a) : (i32) -> ()
}) : () -> ()

// -----

// A block argument may not shadow a value of an enclosing region.
%x = "unreg.def"() : () -> i32
"unreg.op"() ({
^bb0(%x: i32):
  "unreg.use"(%x) : (i32) -> ()
}) : () -> ()

// -----

// A result may not shadow a value of an enclosing region.
%y = "unreg.def"() : () -> i32
"unreg.op"() ({
  %y = "unreg.inner"() : () -> i32
}) : () -> ()

// -----

// A value may not be used by an isolated-from-above operation's body.
%outside = "unreg.def"() : () -> i32
"func.func"() <{function_type = () -> (), sym_name = "f"}> ({
  "unreg.use"(%outside) : (i32) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A forward reference in a nested region that is never defined.
"unreg.op"() ({
  "unreg.use"(%missing) : (i32) -> ()
}) : () -> ()

// -----

// A use before its definition in the same block: the note says where it is defined.
func.func @use_before_def_same_block() {
  "unreg.use"(%x) : (i32) -> ()
  %x = "unreg.def"() : () -> i32
  return
}

// -----

// A use in a nested region of a value defined after the region's op.
func.func @use_in_region_before_def() {
  "unreg.wrap"() ({
    "unreg.use"(%x) : (i32) -> ()
  }) : () -> ()
  %x = "unreg.def"() : () -> i32
  return
}

// -----

// A block argument used where its block does not dominate.
func.func @block_argument_not_dominating() {
  cf.br ^bb1(%x : i32)
^bb1(%x : i32):
  return
}

// -----

// A region entry argument may not reuse a name already in use around it.
func.func @entry_argument_reuses_name(%n: index) {
  affine.for %i = 0 to 4 {
    affine.for %i = 0 to 4 {
    }
  }
  return
}
