// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in location syntax.

// Missing ')'.
"unreg.op"() : () -> () loc("f.c":1:2

// -----

// Unknown location keyword.
"unreg.op"() : () -> () loc(foo)

// -----

// Missing column number after ':'.
"unreg.op"() : () -> () loc("f.c":1:)

// -----

// The line number must be an integer.
"unreg.op"() : () -> () loc("f.c":x:1)

// -----

// Missing file name.
"unreg.op"() : () -> () loc(1:2)

// -----

// Fused location with metadata but no location list.
"unreg.op"() : () -> () loc(fused<"m">)

// -----

// Call site without 'at'.
"unreg.op"() : () -> () loc(callsite("a"))

// -----

// Undefined location alias.
"unreg.op"() : () -> () loc(#undefined_loc)

// -----

// An alias that is not a location.
#not_a_loc = 1 : i32
"unreg.op"() : () -> () loc(#not_a_loc)

// -----

// A range without an end.
"unreg.op"() : () -> () loc("f.c":1:2 to)

// -----

// Unbalanced name location.
"unreg.op"() : () -> () loc("a"("b")

// -----

// A location on a block argument, with an error.
"unreg.op"() ({
^bb0(%a: i32 loc(bogus)):
  "unreg.use"(%a) : (i32) -> ()
}) : () -> ()

// -----

// Locations come after the type.
"unreg.op"() loc("f.c":1:1) : () -> ()

// -----

// A fused location list with a non-location.
"unreg.op"() : () -> () loc(fused["a", 1])

// -----

// An alias used as a location must name a location: the error shows what it names.
#not_a_loc = 42 : i32
"unreg.op"() : () -> () loc(#not_a_loc)

// -----

// A call site location needs `at` between callee and caller.
"unreg.op"() : () -> () loc(callsite(unknown unknown))
