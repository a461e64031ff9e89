// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Attribute and type alias errors.

// Redefinition of an attribute alias.
#a = 1
#a = 2

// -----

// Redefinition of a type alias.
!t = i32
!t = f32

// -----

// Use of an undefined attribute alias.
"unreg.op"() {a = #undefined} : () -> ()

// -----

// Use of an undefined type alias.
"unreg.op"() : () -> !undefined

// -----

// Alias names with a '.' are reserved for dialects.
#a.b = 1

// -----

// Aliases must be defined before they are used.
"unreg.op"() {a = #later} : () -> ()
#later = 1

// -----

// Aliases can only be defined at the top level.
"unreg.op"() ({
  #inner = 1
}) : () -> ()

// -----

// An attribute alias used as a type.
#attr = 1 : i32
"unreg.op"() : () -> #attr

// -----

// A type alias whose definition is not a type.
!bad = 42

// -----

// Missing '=' in an alias definition.
#missing 1

// -----

// Alias names may not contain a dot: those are reserved for dialects.
#with.dot = 1 : i32

// -----

!with.dot = i32
