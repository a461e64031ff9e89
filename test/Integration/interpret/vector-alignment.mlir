// RUN: tb-run --interpret %s --function aligned | FileCheck %s --check-prefix=ALIGNED
// RUN: not tb-run --interpret %s --function misaligned --random-inputs 0 2>&1 | FileCheck %s --check-prefix=MISALIGNED

// A vector access may promise the alignment of its first element (`{alignment = 16}`).
// The interpreter checks the promise against the element's byte offset in its buffer
// (buffers start aligned), so a pass that promises it wrongly fails its interpreter
// checks instead of running misaligned on a device.

// Element 8 of f16 lies at byte 16.
// ALIGNED: result #0: vector<8xf16> = [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
func.func @aligned() -> vector<8xf16> {
  %m = loop.alloc() : memref<16xf16>
  loop.for %i = 0 to 16 {
    %x = arith.index_cast %i : index to i32
    %f = arith.sitofp %x : i32 to f16
    loop.store %f, %m[%i] : memref<16xf16>
  }
  %c8 = arith.constant 8 : index
  %v = loop.vector_load %m[%c8] {alignment = 16} : memref<16xf16>, vector<8xf16>
  return %v : vector<8xf16>
}

// MISALIGNED: vector-alignment.mlir:[[@LINE+4]]:3: error: 'loop.vector_store' op is misaligned: element [4] lies at byte 8 of its buffer, which is not a multiple of the promised alignment 16
func.func @misaligned(%v: vector<8xf16>) {
  %m = loop.alloc() : memref<16xf16>
  %c4 = arith.constant 4 : index
  loop.vector_store %v, %m[%c4] {alignment = 16} : memref<16xf16>, vector<8xf16>
  return
}
