// RUN: tb-run --interpret %s --function shuffle_xor | FileCheck %s --check-prefix=XOR
// RUN: tb-run --interpret %s --function barrier_phases | FileCheck %s --check-prefix=BARRIER
// RUN: tb-run --interpret %s --function grid | FileCheck %s --check-prefix=GRID
// RUN: not tb-run --interpret %s --function oversized_block 2>&1 | FileCheck %s --check-prefix=OVERSIZED
// RUN: not tb-run --interpret %s --function nested_barrier 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: tb-run --interpret %s --function barrier_in_loop | FileCheck %s --check-prefix=LOOPED
// RUN: not tb-run --interpret %s --function divergent_barrier 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// RUN: tb-run --interpret %s --function workgroup_reverse | FileCheck %s --check-prefix=WORKGROUP
// RUN: not tb-run --interpret %s --function workgroup_race 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not tb-run --interpret %s --function workgroup_overwritten_too_early 2>&1 | FileCheck %s --check-prefix=WAR

// Lanes swap with their neighbour: lane i reads lane i ^ 1.
// XOR: result #0: memref<8xf32> = [1.0, 0.0, 3.0, 2.0, 5.0, 4.0, 7.0, 6.0]
func.func @shuffle_xor() -> memref<8xf32> {
  %out = loop.alloc() : memref<8xf32>
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %one = arith.constant 1 : i32
    %width = arith.constant 8 : i32
    %r, %ok = gpu.shuffle xor %f, %one, %width : f32
    loop.store %r, %out[%tx] : memref<8xf32>
    gpu.terminator
  }
  return %out : memref<8xf32>
}

// Every thread writes its id, then (after the barrier) reads its neighbour's: without
// the barrier's phase boundary, thread 0 would read a value not yet written.
// BARRIER: result #0: memref<4xi32> = [1, 2, 3, 0]
func.func @barrier_phases() -> memref<4xi32> {
  %shared = loop.alloc() : memref<4xi32>
  %out = loop.alloc() : memref<4xi32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %id = arith.index_cast %tx : index to i32
    loop.store %id, %shared[%tx] : memref<4xi32>
    gpu.barrier
    %one = arith.constant 1 : index
    %next = arith.addi %tx, %one : index
    %wrapped = arith.remui %next, %sx : index
    %v = loop.load %shared[%wrapped] : memref<4xi32>
    loop.store %v, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  return %out : memref<4xi32>
}

// Blocks and threads in two dimensions cover a 4x6 grid of elements once each.
// GRID: result #0: memref<4x6xindex> = {{\[}}[0, 1, 2, 3, 4, 5], [10, 11, 12, 13, 14, 15], [20, 21, 22, 23, 24, 25], [30, 31, 32, 33, 34, 35]]
func.func @grid() -> memref<4x6xindex> {
  %out = loop.alloc() : memref<4x6xindex>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c2, %sz = %c1) {
    %row0 = arith.muli %by, %sy : index
    %row = arith.addi %row0, %ty : index
    %col0 = arith.muli %bx, %sx : index
    %col = arith.addi %col0, %tx : index
    %tens = arith.muli %row, %c10 : index
    %v = arith.addi %tens, %col : index
    loop.store %v, %out[%row, %col] : memref<4x6xindex>
    gpu.terminator
  }
  return %out : memref<4x6xindex>
}

// OVERSIZED: error: 'gpu.launch' op launches blocks of 2048x1x1 threads; a block holds at most 1024
func.func @oversized_block() {
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2048, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// NESTED: error: 'loop.parallel' op holds a gpu.barrier, gpu.shuffle or nvgpu.mma.sync; the interpreter runs them only at the top level of a gpu.launch body or inside loop.for loops
func.func @nested_barrier() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    loop.parallel (%i) = (0) to (2) {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// Barriers inside a loop.for whose bounds every thread shares: each iteration reads what
// the neighbour wrote in the one before (run thread after thread, it would read zeros).
// LOOPED: result #0: memref<4xf32> = [3.0, 3.0, 3.0, 3.0]
func.func @barrier_in_loop() -> memref<4xf32> {
  %buf = loop.alloc() : memref<4xf32>
  %out = loop.alloc() : memref<4xf32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    loop.store %zero, %buf[%tx] : memref<4xf32>
    gpu.barrier
    %next = arith.addi %tx, %c1 : index
    %n = arith.remui %next, %c4 : index
    %r = loop.for %i = 0 to 3 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %buf[%n] : memref<4xf32>
      gpu.barrier
      %w = arith.addf %v, %one : f32
      loop.store %w, %buf[%tx] : memref<4xf32>
      gpu.barrier
      loop.yield %w : f32
    }
    loop.store %r, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return %out : memref<4xf32>
}

// A loop around a barrier that threads would run a different number of times.
// DIVERGENT: error: 'loop.for' op holds a gpu.barrier, gpu.shuffle or nvgpu.mma.sync but its bounds differ between the threads that must run it together
func.func @divergent_barrier() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
    loop.for %i = 0 to affine_map<(d0) -> (d0)>(%tx) {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// Each block reverses its four values through its own workgroup buffer: the barrier
// separates the writes from the reads of other threads' elements.
// WORKGROUP: result #0: memref<8xi32> = [3, 2, 1, 0, 7, 6, 5, 4]
func.func @workgroup_reverse() -> memref<8xi32> {
  %out = loop.alloc() : memref<8xi32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<4xi32, #gpu.address_space<workgroup>>) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = arith.index_cast %i : index to i32
    loop.store %v, %tile[%tx] : memref<4xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c3 = arith.constant 3 : index
    %mirror = arith.subi %c3, %tx : index
    %w = loop.load %tile[%mirror] : memref<4xi32, #gpu.address_space<workgroup>>
    loop.store %w, %out[%i] : memref<8xi32>
    gpu.terminator
  }
  return %out : memref<8xi32>
}

// Without a barrier, thread 1 reads what thread 0 wrote in the same phase: on a GPU
// the order is undefined, so the interpreter reports the race instead of an answer.
// RACE: error: 'loop.load' op races: thread 1 reads element [0] of a workgroup buffer that thread 0 wrote since the last gpu.barrier (a barrier is missing between them)
func.func @workgroup_race() -> memref<4xi32> {
  %out = loop.alloc() : memref<4xi32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<4xi32, #gpu.address_space<workgroup>>) {
    %v = arith.index_cast %tx : index to i32
    loop.store %v, %tile[%tx] : memref<4xi32, #gpu.address_space<workgroup>>
    %c3 = arith.constant 3 : index
    %prev = arith.addi %tx, %c3 : index
    %wrapped = arith.remui %prev, %c4 : index
    %w = loop.load %tile[%wrapped] : memref<4xi32, #gpu.address_space<workgroup>>
    loop.store %w, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  return %out : memref<4xi32>
}

// A loop that refills the buffer each iteration needs a second barrier: here the next
// iteration's write meets the previous iteration's reads in one phase.
// WAR: error: 'loop.store' op races: thread 0 writes element [0] of a workgroup buffer that thread 3 read since the last gpu.barrier (a barrier is missing between them)
func.func @workgroup_overwritten_too_early() -> memref<4xi32> {
  %out = loop.alloc() : memref<4xi32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<4xi32, #gpu.address_space<workgroup>>) {
    %sum = loop.for %it = 0 to 2 iter_args(%acc = %zero) -> (i32) {
      %v = arith.index_cast %it : index to i32
      loop.store %v, %tile[%tx] : memref<4xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c3 = arith.constant 3 : index
      %mirror = arith.subi %c3, %tx : index
      %w = loop.load %tile[%mirror] : memref<4xi32, #gpu.address_space<workgroup>>
      %next = arith.addi %acc, %w : i32
      loop.yield %next : i32
    }
    loop.store %sum, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  return %out : memref<4xi32>
}
