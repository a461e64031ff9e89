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
