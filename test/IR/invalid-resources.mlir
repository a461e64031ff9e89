// RUN: %mlir-diff --invalid %s
// REQUIRES: mlir-opt

// Errors in the {-# ... #-} resource trailer and dense_resource.

// A blob that is not a hex string.
"unreg.op"() {a = dense_resource<blob> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: "notahex"
    }
  }
#-}

// -----

// Too short to hold the alignment.
"unreg.op"() {a = dense_resource<blob> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: "0x01"
    }
  }
#-}

// -----

// The alignment must be a power of 2.
"unreg.op"() {a = dense_resource<blob> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: "0x030000000100000002000000"
    }
  }
#-}

// -----

// The blob must be a string.
"unreg.op"() {a = dense_resource<blob> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: 42
    }
  }
#-}

// -----

// Resources of an unknown dialect.
"unreg.op"() : () -> ()
{-#
  dialect_resources: {
    unknown_dialect: {
      blob: "0x0400000001000000"
    }
  }
#-}

// -----

// Unknown section in the file metadata.
"unreg.op"() : () -> ()
{-#
  foo_resources: {
  }
#-}

// -----

// Missing closing '#-}'.
"unreg.op"() : () -> ()
{-#
  dialect_resources: {
    builtin: {
    }
  }

// -----

// Missing ':' after the resource key.
"unreg.op"() : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob "0x0400000001000000"
    }
  }
#-}

// -----

// Missing comma between resources.
"unreg.op"() : () -> ()
{-#
  dialect_resources: {
    builtin: {
      a: "0x0400000001000000"
      b: "0x0400000001000000"
    }
  }
#-}

// -----

// External resource keys must be identifiers.
"unreg.op"() : () -> ()
{-#
  external_resources: {
    "quoted key": {}
  }
#-}

// -----

// External resource values must be strings, booleans or blobs.
"unreg.op"() : () -> ()
{-#
  external_resources: {
    foo: { x: 1 }
  }
#-}

// -----

// A string starting with 0x in a resource is a blob, and needs an alignment.
"unreg.op"() : () -> ()
{-#
  external_resources: {
    foo: { x: "0x01" }
  }
#-}

// -----

// Each external resource group is a dictionary.
"unreg.op"() : () -> ()
{-#
  external_resources: {
    foo: "str"
  }
#-}

// -----

// dense_resource with a non-shaped type.
"unreg.op"() {a = dense_resource<blob> : i32} : () -> ()

// -----

// Resources of a dialect that does not exist.
{-#
  dialect_resources: {
    no_such_dialect: {
      blob: "0x0100000001"
    }
  }
#-}
