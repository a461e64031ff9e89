// RUN: tb-opt %s --plan-buffers --verify-diagnostics

// Two buffers of 2^62 bytes live at the same time would need an arena of 2^63 bytes: the
// planner refuses it at the function instead of wrapping an offset.
// expected-error @+1 {{'func.func' op allocates 2 buffers whose arena would need more than 2^63 - 1 bytes}}
func.func @arena_overflow(%x: f32, %i: index) {
  %a = loop.alloc() : memref<1152921504606846976xf32>
  %b = loop.alloc() : memref<1152921504606846976xf32>
  loop.store %x, %a[%i] : memref<1152921504606846976xf32>
  loop.store %x, %b[%i] : memref<1152921504606846976xf32>
  loop.dealloc %b : memref<1152921504606846976xf32>
  loop.dealloc %a : memref<1152921504606846976xf32>
  return
}
