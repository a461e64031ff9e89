// RUN: tb-opt --split-input-file --verify-diagnostics %s

func.func @terminator_outside_launch() {
  // expected-error@+1 {{'gpu.terminator' op expects parent op 'gpu.launch'}}
  gpu.terminator
}

// -----

func.func @two_block_ids(%c1: index) {
  // expected-error@+1 {{expected 3 identifiers (x, y, z), found 2}}
  gpu.launch blocks(%bx, %by) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @body_without_terminator(%c1: index) {
  // The launch verifies its body's terminator itself, before its nested ops are visited.
  // expected-error@+1 {{'gpu.launch' op expected body to end with 'gpu.terminator'}}
  "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%a0: index, %a1: index, %a2: index, %a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index, %a11: index):
    "arith.constant"() <{value = 0 : index}> : () -> index
  }) : (index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @eleven_body_arguments(%c1: index) {
  // expected-error@+1 {{'gpu.launch' op requires 12 index body arguments (block ids, thread ids, grid and block sizes) and 0 workgroup buffers, found 11 arguments}}
  "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%a0: index, %a1: index, %a2: index, %a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index):
    "gpu.terminator"() : () -> ()
  }) : (index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @clusters(%c1: index) {
  // expected-error@+1 {{`clusters` launches are not supported by TensorBind yet}}
  gpu.launch clusters(%cx, %cy, %cz) in (%a = %c1, %b = %c1, %c = %c1) blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @bad_dimension() -> index {
  // expected-error@+1 {{expected dimension x, y or z, found `w`}}
  %0 = gpu.thread_id w
  return %0 : index
}

// -----

func.func @bad_dimension_attribute() -> index {
  // expected-error@+1 {{attribute 'dimension'}}
  %0 = "gpu.thread_id"() <{dimension = #gpu<dim w>}> : () -> index
  return %0 : index
}

// -----

func.func @bad_shuffle_mode(%v: f32, %o: i32) -> f32 {
  // expected-error@+1 {{expected shuffle mode xor, up, down or idx, found `sideways`}}
  %r, %ok = gpu.shuffle sideways %v, %o, %o : f32
  return %r : f32
}

// -----

func.func @shuffle_of_i16(%v: i16, %o: i32) -> i16 {
  // expected-error@+1 {{'gpu.shuffle' op operand #0 must be a 32- or 64-bit integer or float, but got 'i16'}}
  %r, %ok = gpu.shuffle xor %v, %o, %o : i16
  return %r : i16
}

// -----

func.func @workgroup_count_without_its_buffer(%c1: index) {
  // expected-error@+1 {{'gpu.launch' op requires 12 index body arguments (block ids, thread ids, grid and block sizes) and 1 workgroup buffers, found 12 arguments}}
  "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%a0: index, %a1: index, %a2: index, %a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index, %a11: index):
    "gpu.terminator"() : () -> ()
  }) {workgroup_attributions = 1 : i64} : (index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @workgroup_scalar(%c1: index) {
  // expected-error@+1 {{'gpu.launch' op expected memref type in attribution}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) workgroup(%s : f32) {
    gpu.terminator
  }
  return
}

// -----

func.func @workgroup_in_private_memory(%c1: index) {
  // expected-error@+1 {{'gpu.launch' op expected memory space workgroup in attribution}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) workgroup(%s : memref<4xf32, #gpu.address_space<private>>) {
    gpu.terminator
  }
  return
}

// -----

func.func @private_buffers(%c1: index) {
  // expected-error@+1 {{`private` attributions are not supported by TensorBind yet}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) private(%s : memref<4xf32, #gpu.address_space<private>>) {
    gpu.terminator
  }
  return
}
