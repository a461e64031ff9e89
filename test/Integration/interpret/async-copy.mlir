// RUN: tb-run --interpret %s --function reverse | FileCheck %s --check-prefix=REVERSE
// RUN: tb-run --interpret %s --function zero_fill | FileCheck %s --check-prefix=ZERO
// RUN: tb-run --interpret %s --function read_before_wait | FileCheck %s --check-prefix=EARLY
// RUN: tb-run --interpret %s --function groups_in_flight | FileCheck %s --check-prefix=GROUPS
// RUN: not tb-run --interpret %s --function no_barrier 2>&1 | FileCheck %s --check-prefix=RACE

// Asynchronous copies (nvgpu.device_async_copy) run per thread: the elements land when
// a device_async_wait lets fewer of the thread's groups stay in flight, and other
// threads may read them after the next barrier.

// Each of 4 threads copies 4 floats (16 bytes) of a row into the tile; after the wait
// and a barrier each reads another thread's part: the row comes out reversed.
// REVERSE: result #0: memref<16xf32> = [15.0, 14.0, 13.0, 12.0, 11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
func.func @reverse() -> memref<16xf32> {
  %in = loop.alloc() : memref<16xf32>
  %out = loop.alloc() : memref<16xf32>
  loop.for %i = 0 to 16 {
    %x = arith.index_cast %i : index to i32
    %f = arith.sitofp %x : i32 to f32
    loop.store %f, %in[%i] : memref<16xf32>
  }
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<16xf32, #gpu.address_space<workgroup>>) {
    %at = arith.muli %tx, %c4 : index
    %t = nvgpu.device_async_copy %in[%at], %tile[%at], 4 {bypassL1} : memref<16xf32> to memref<16xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.barrier
    loop.for %j = 0 to 4 {
      %i = arith.addi %at, %j : index
      %mirror = arith.subi %c15, %i : index
      %v = loop.load %tile[%mirror] : memref<16xf32, #gpu.address_space<workgroup>>
      loop.store %v, %out[%i] : memref<16xf32>
    }
    gpu.terminator
  }
  return %out : memref<16xf32>
}

// With srcElements = 1, each copy reads one element and zero-fills the other three.
// ZERO: result #0: memref<8xf32> = [7.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0]
func.func @zero_fill() -> memref<8xf32> {
  %in = loop.alloc() : memref<8xf32>
  %out = loop.alloc() : memref<8xf32>
  %seven = arith.constant 7.0 : f32
  loop.for %i = 0 to 8 {
    loop.store %seven, %in[%i] : memref<8xf32>
  }
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<8xf32, #gpu.address_space<workgroup>>) {
    %at = arith.muli %tx, %c4 : index
    %t = nvgpu.device_async_copy %in[%at], %tile[%at], 4, %c1 : memref<8xf32> to memref<8xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g
    loop.for %j = 0 to 4 {
      %i = arith.addi %at, %j : index
      %v = loop.load %tile[%i] : memref<8xf32, #gpu.address_space<workgroup>>
      loop.store %v, %out[%i] : memref<8xf32>
    }
    gpu.terminator
  }
  return %out : memref<8xf32>
}

// Read before the wait: the tile still holds what it held before (NaN in a fresh
// workgroup buffer), as a GPU gives no answer until the copy completes.
// EARLY: result #0: memref<2xf32> = [NaN, NaN]
func.func @read_before_wait() -> memref<2xf32> {
  %in = loop.alloc() : memref<2xf32>
  %out = loop.alloc() : memref<2xf32>
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 2 {
    loop.store %one, %in[%i] : memref<2xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<2xf32, #gpu.address_space<workgroup>>) {
    %t = nvgpu.device_async_copy %in[%c0], %tile[%c0], 2 : memref<2xf32> to memref<2xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    loop.for %i = 0 to 2 {
      %v = loop.load %tile[%i] : memref<2xf32, #gpu.address_space<workgroup>>
      loop.store %v, %out[%i] : memref<2xf32>
    }
    nvgpu.device_async_wait %g
    gpu.terminator
  }
  return %out : memref<2xf32>
}

// Two groups; waiting with numGroups = 1 completes only the older one.
// GROUPS: result #0: memref<2xf32> = [1.0, NaN]
func.func @groups_in_flight() -> memref<2xf32> {
  %in = loop.alloc() : memref<2xf32>
  %out = loop.alloc() : memref<2xf32>
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 2 {
    loop.store %one, %in[%i] : memref<2xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<2xf32, #gpu.address_space<workgroup>>) {
    %t = nvgpu.device_async_copy %in[%c0], %tile[%c0], 1 : memref<2xf32> to memref<2xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    %u = nvgpu.device_async_copy %in[%c1], %tile[%c1], 1 : memref<2xf32> to memref<2xf32, #gpu.address_space<workgroup>>
    %h = nvgpu.device_async_create_group %u
    nvgpu.device_async_wait %h {numGroups = 1 : i32}
    loop.for %i = 0 to 2 {
      %v = loop.load %tile[%i] : memref<2xf32, #gpu.address_space<workgroup>>
      loop.store %v, %out[%i] : memref<2xf32>
    }
    nvgpu.device_async_wait %h
    gpu.terminator
  }
  return %out : memref<2xf32>
}

// Waiting is not enough: other threads see the copy only after a barrier.
// RACE: error: 'loop.load' op races: thread 0 reads element [1] of a workgroup buffer that thread 1 wrote since the last gpu.barrier (a barrier is missing between them)
func.func @no_barrier() -> memref<2xf32> {
  %in = loop.alloc() : memref<2xf32>
  %out = loop.alloc() : memref<2xf32>
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 2 {
    loop.store %one, %in[%i] : memref<2xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<2xf32, #gpu.address_space<workgroup>>) {
    %t = nvgpu.device_async_copy %in[%tx], %tile[%tx], 1 : memref<2xf32> to memref<2xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g
    %other = arith.subi %c1, %tx : index
    %v = loop.load %tile[%other] : memref<2xf32, #gpu.address_space<workgroup>>
    loop.store %v, %out[%tx] : memref<2xf32>
    gpu.barrier
    gpu.terminator
  }
  return %out : memref<2xf32>
}
