// RUN: tb-opt --split-input-file --verify-diagnostics %s

func.func @other_shape(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  // expected-error@+1 {{'nvgpu.mma.sync' op supports mmaShape = [16, 8, 16] only in TensorBind}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

func.func @small_a_fragment(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  // expected-error@+1 {{'nvgpu.mma.sync' op expected 256 warp-wide matrix A elements}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

func.func @mixed_operands(%a: vector<4x2xf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  // expected-error@+1 {{'nvgpu.mma.sync' op supports A and B of one type, f16 or bf16, in TensorBind}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

func.func @f16_accumulators(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>) -> vector<2x2xf16> {
  // expected-error@+1 {{'nvgpu.mma.sync' op supports f32 accumulators only in TensorBind}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
  return %d : vector<2x2xf16>
}

// -----

func.func @two_operands(%a: vector<4x2xf16>, %b: vector<2x2xf16>) -> vector<2x2xf32> {
  // expected-error@+1 {{expected 3 operands, found 2}}
  %d = nvgpu.mma.sync (%a, %b) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

func.func @ldmatrix_from_global_memory(%s: memref<64x40xf16>, %i: index, %j: index) -> vector<4x2xf16> {
  // expected-error@+1 {{'nvgpu.ldmatrix' op expected nvgpu.ldmatrix srcMemref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)}}
  %a = nvgpu.ldmatrix %s[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x40xf16> -> vector<4x2xf16>
  return %a : vector<4x2xf16>
}

// -----

func.func @ldmatrix_tiles_and_vector_disagree(%s: memref<64x40xf16, 3>, %i: index, %j: index) -> vector<2x2xf16> {
  // expected-error@+1 {{'nvgpu.ldmatrix' op expected vector register shape[0] and numTiles to match}}
  %a = nvgpu.ldmatrix %s[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, 3> -> vector<2x2xf16>
  return %a : vector<2x2xf16>
}

// -----

func.func @ldmatrix_of_f32(%s: memref<64x40xf32, 3>, %i: index, %j: index) -> vector<4x2xf32> {
  // expected-error@+1 {{'nvgpu.ldmatrix' op supports 1, 2 or 4 tiles of f16 or bf16, into vector<Nx2x(element)>, in TensorBind}}
  %a = nvgpu.ldmatrix %s[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x40xf32, 3> -> vector<4x2xf32>
  return %a : vector<4x2xf32>
}

// -----

func.func @async_copy_to_global(%src: memref<128x128xf16>, %dst: memref<16x128xf16>, %i: index) {
  // expected-error@+1 {{destination memref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)}}
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 8 : memref<128x128xf16> to memref<16x128xf16>
  return
}

// -----

func.func @async_copy_size(%src: memref<128x128xf16>, %dst: memref<16x128xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error@+1 {{Requested copy elements is 3 with width 16. But copy elements could be one of 2, 4, 8.}}
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 3 : memref<128x128xf16> to memref<16x128xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @async_copy_bypass_l1(%src: memref<128x128xf16>, %dst: memref<16x128xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error@+1 {{'nvgpu.device_async_copy' op bypassL1 does not satify alignment for 'memref<16x128xf16, #gpu.address_space<workgroup>>' with destination element 4. Unset bypassL1, or set destination element to 8}}
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 4 {bypassL1} : memref<128x128xf16> to memref<16x128xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @async_copy_types(%src: memref<128x128xf16>, %dst: memref<16x128xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error@+1 {{source and destination must have the same element type}}
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 4 : memref<128x128xf16> to memref<16x128xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @async_copy_indices(%src: memref<128x128xf16>, %dst: memref<16x128xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error@+1 {{'nvgpu.device_async_copy' op expected 2 source indices, got 1}}
  %t = nvgpu.device_async_copy %src[%i], %dst[%i, %i], 8 : memref<128x128xf16> to memref<16x128xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @async_copy_strided(%src: memref<128x128xf16, strided<[1, 128]>>, %dst: memref<16x128xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error@+1 {{source memref most minor dim must have unit stride}}
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 8 : memref<128x128xf16, strided<[1, 128]>> to memref<16x128xf16, #gpu.address_space<workgroup>>
  return
}
