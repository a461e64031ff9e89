// A loop-level function the tb-translate tests compile.
func.func @scale(%a: memref<16xf32>, %s: f32) -> memref<16xf32> {
  %out = loop.alloc() : memref<16xf32>
  loop.for %i = 0 to 16 {
    %x = loop.load %a[%i] : memref<16xf32>
    %y = arith.mulf %x, %s : f32
    loop.store %y, %out[%i] : memref<16xf32>
  }
  return %out : memref<16xf32>
}
