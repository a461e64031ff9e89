// RUN: tb-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(loop-apply-schedule))'

func.func @too_deep(%m: memref<8x8xf32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{cannot apply the schedule: loop 1 of the band is not a loop.for}}
  loop.for %i = 0 to 8 attributes {loop.schedule = #loop.schedule<tiles = [[4], [4], [2]]>} {
    loop.store %c, %m[%i, %i] : memref<8x8xf32>
  }
  return
}

// -----

func.func @not_perfect(%m: memref<8x8xf32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{cannot apply the schedule: the band is not perfectly nested below loop 0 (it needs 2 loops)}}
  loop.for %i = 0 to 8 attributes {loop.schedule = #loop.schedule<tiles = [[4], [4]]>} {
    loop.store %c, %m[%i, %i] : memref<8x8xf32>
    loop.for %j = 0 to 8 {
      loop.store %c, %m[%i, %j] : memref<8x8xf32>
    }
  }
  return
}

// -----

func.func @packing(%m: memref<8x8xf32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{cannot apply the schedule: packing (rhs) is not applied to loop bands yet}}
  loop.for %i = 0 to 8 attributes {loop.schedule = #loop.schedule<tiles = [[4], [4]], pack = rhs>} {
    loop.for %j = 0 to 8 {
      loop.store %c, %m[%i, %j] : memref<8x8xf32>
    }
  }
  return
}

// -----

func.func @reduction_moved_out(%a: memref<4x8xf32>, %c: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot apply the schedule: order [1, 0] moves a reduction dimension; reductions stay innermost, in their order}}
  loop.parallel (%i) = (0) to (4) attributes {loop.schedule = #loop.schedule<tiles = [[], []], order = [1, 0]>} {
    %s = loop.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<4x8xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%i] : memref<4xf32>
  }
  return
}

// -----

func.func @wrong_rank(%a: memref<4x8xf32>, %c: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot apply the schedule: schedule tiles 1 dimensions but the nest has 2}}
  loop.parallel (%i) = (0) to (4) attributes {loop.schedule = #loop.schedule<tiles = [[2]]>} {
    %s = loop.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %a[%i, %k] : memref<4x8xf32>
      %n = arith.addf %acc, %x : f32
      loop.yield %n : f32
    }
    loop.store %s, %c[%i] : memref<4xf32>
  }
  return
}
