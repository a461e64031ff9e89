// RUN: tb-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics

func.func @unknown_field() {
  // expected-error @+1 {{unknown schedule field 'tile'}}
  "test.op"() {s = #loop.schedule<tile = [[4]]>} : () -> ()
  return
}

// -----

func.func @growing_tiles() {
  // expected-error @+1 {{tile sizes of dimension 0 grow inwards}}
  "test.op"() {s = #loop.schedule<tiles = [[4, 8]]>} : () -> ()
  return
}

// -----

func.func @not_a_permutation() {
  // expected-error @+1 {{order [0, 0] is not a permutation of 0..2}}
  "test.op"() {s = #loop.schedule<tiles = [[4], [4]], order = [0, 0]>} : () -> ()
  return
}

// -----

func.func @unknown_packing() {
  // expected-error @+1 {{unknown packing 'cols'}}
  "test.op"() {s = #loop.schedule<tiles = [[4]], pack = cols>} : () -> ()
  return
}
