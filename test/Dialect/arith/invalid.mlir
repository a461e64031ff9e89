// RUN: tb-opt %s --split-input-file --verify-diagnostics

func.func @float_operands(%x: f32) {
  // expected-error @+1 {{'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = "arith.addi"(%x, %x) : (f32, f32) -> f32
  return
}

// -----

func.func @mixed_types(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @operand_count(%a: i32) {
  // expected-error @+1 {{'arith.subi' op expected 2 operands, but found 1}}
  %0 = "arith.subi"(%a) : (i32) -> i32
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i64}> : () -> i32
  return
}

// -----

func.func @constant_missing_value() {
  // expected-error @+1 {{'arith.constant' op requires attribute 'value'}}
  %0 = "arith.constant"() : () -> i32
  return
}

// -----

func.func @cmpi_result(%a: vector<4xi32>) {
  // expected-error @+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (vector<4xi32>, vector<4xi32>) -> i1
  return
}

// -----

func.func @cmpi_predicate(%a: i32, %b: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]}}
  %0 = arith.cmpi lt, %a, %b : i32
  return
}

// -----

func.func @extension_narrows(%a: i32) {
  // expected-error @+1 {{'arith.extsi' op operand type 'i32' and result type 'i16' are cast incompatible}}
  %0 = arith.extsi %a : i32 to i16
  return
}

// -----

func.func @select_types(%c: i1, %a: i32, %b: i64) {
  // expected-error @+1 {{'arith.select' op failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "arith.select"(%c, %a, %b) : (i1, i32, i64) -> i32
  return
}

// -----

func.func @custom_type_mismatch(%a: i32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
  %0 = arith.addi %a, %a : i64
  return
}

// -----

func.func @fastmath_not_flags(%x: f32) {
  // expected-error @+1 {{'arith.addf' op attribute 'fastmath' failed to satisfy constraint: Floating point fast math flags}}
  %0 = "arith.addf"(%x, %x) <{fastmath = 3 : i64}> : (f32, f32) -> f32
  return
}

// -----

func.func @fastmath_holds_overflow_flags(%x: f32) {
  // expected-error @+1 {{'arith.addf' op attribute 'fastmath' failed to satisfy constraint: Floating point fast math flags}}
  %0 = "arith.addf"(%x, %x) <{fastmath = #arith.overflow<nsw>}> : (f32, f32) -> f32
  return
}

// -----

func.func @fastmath_unknown_flag_generic(%x: f32) {
  // expected-error @+1 {{expected #arith.fastmath flags to be one of: none, reassoc, nnan, ninf, nsz, arcp, contract, afn, fast}}
  %0 = "arith.addf"(%x, %x) <{fastmath = #arith.fastmath<nnan, quick>}> : (f32, f32) -> f32
  return
}

// -----

func.func @overflow_unknown_flag(%a: i32) {
  // expected-error @+1 {{expected #arith.overflow flags to be one of: none, nsw, nuw}}
  %0 = arith.addi %a, %a overflow<nsw, wrap> : i32
  return
}

// -----

func.func @overflow_not_flags(%a: i32) {
  // expected-error @+1 {{'arith.addi' op attribute 'overflowFlags' failed to satisfy constraint: Integer overflow arith flags}}
  %0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.fastmath<fast>}> : (i32, i32) -> i32
  return
}

// -----

func.func @ceildivsi_float(%x: f32) {
  // expected-error @+1 {{'arith.ceildivsi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = "arith.ceildivsi"(%x, %x) : (f32, f32) -> f32
  return
}

// -----

func.func @floordivsi_mixed(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.floordivsi' op requires the same type for all operands and results}}
  %0 = "arith.floordivsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @ceildivui_float(%x: vector<4xf16>) {
  // expected-error @+1 {{'arith.ceildivui' op operand #0 must be signless-integer-like, but got 'vector<4xf16>'}}
  %0 = "arith.ceildivui"(%x, %x) : (vector<4xf16>, vector<4xf16>) -> vector<4xf16>
  return
}

// -----

func.func @addui_extended_carry_not_bool(%a: i32) {
  // expected-error @+1 {{'arith.addui_extended' op result #1 must be bool-like, but got 'i32'}}
  %0:2 = "arith.addui_extended"(%a, %a) : (i32, i32) -> (i32, i32)
  return
}

// -----

func.func @addui_extended_mixed(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.addui_extended' op failed to verify that all of {lhs, rhs, sum} have same type}}
  %0:2 = "arith.addui_extended"(%a, %b) : (i32, i64) -> (i32, i1)
  return
}

// -----

func.func @addui_extended_scalar_carry(%v: vector<4xi32>) {
  // expected-error @+1 {{'arith.addui_extended' op if an operand is non-scalar, then all results must be non-scalar}}
  %0:2 = "arith.addui_extended"(%v, %v) : (vector<4xi32>, vector<4xi32>) -> (vector<4xi32>, i1)
  return
}

// -----

func.func @addui_extended_vector_carry(%a: i32) {
  // expected-error @+1 {{'arith.addui_extended' op if a result is non-scalar, then at least one operand must be non-scalar}}
  %0:2 = "arith.addui_extended"(%a, %a) : (i32, i32) -> (i32, vector<4xi1>)
  return
}

// -----

func.func @addui_extended_carry_shape(%v: vector<4xi32>) {
  // expected-error @+1 {{'arith.addui_extended' op all non-scalar operands/results must have the same shape and base type}}
  %0:2 = "arith.addui_extended"(%v, %v) : (vector<4xi32>, vector<4xi32>) -> (vector<4xi32>, vector<3xi1>)
  return
}

// -----

func.func @mulsi_extended_high_type(%a: i32) {
  // expected-error @+1 {{'arith.mulsi_extended' op failed to verify that all of {lhs, rhs, low, high} have same type}}
  %0:2 = "arith.mulsi_extended"(%a, %a) : (i32, i32) -> (i32, i64)
  return
}

// -----

func.func @mului_extended_one_result(%a: i32) {
  // expected-error @+1 {{'arith.mului_extended' op expected 2 results}}
  %0 = "arith.mului_extended"(%a, %a) : (i32, i32) -> i32
  return
}

// -----

func.func @mului_extended_float(%x: f32) {
  // expected-error @+1 {{'arith.mului_extended' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0:2 = "arith.mului_extended"(%x, %x) : (f32, f32) -> (f32, f32)
  return
}

// -----

func.func @truncf_rounding_mode_type(%x: f32) {
  // expected-error @+1 {{'arith.truncf' op attribute 'roundingmode' failed to satisfy constraint: Floating point rounding mode}}
  %0 = "arith.truncf"(%x) <{roundingmode = 1 : i64}> : (f32) -> f16
  return
}

// -----

func.func @divsi_exact_not_unit(%a: i32) {
  // expected-error @+1 {{'arith.divsi' op attribute 'isExact' failed to satisfy constraint: unit attribute}}
  %0 = "arith.divsi"(%a, %a) <{isExact = 1 : i64}> : (i32, i32) -> i32
  return
}

// -----

func.func @scaling_extf_narrows(%a: f32, %s: f8E8M0FNU) {
  // expected-error @+1 {{'arith.scaling_extf' op operand types 'f32', 'f8E8M0FNU' and result type 'f16' are cast incompatible}}
  %0 = arith.scaling_extf %a, %s : f32, f8E8M0FNU to f16
  return
}

// -----

func.func @scaling_truncf_widens(%a: f16, %s: f8E8M0FNU) {
  // expected-error @+1 {{'arith.scaling_truncf' op operand types 'f16', 'f8E8M0FNU' and result type 'f32' are cast incompatible}}
  %0 = arith.scaling_truncf %a, %s : f16, f8E8M0FNU to f32
  return
}

// -----

func.func @scaling_extf_shape(%a: vector<4xf16>, %s: vector<4xf8E8M0FNU>) {
  // expected-error @+1 {{'arith.scaling_extf' op operand types 'vector<4xf16>', 'vector<4xf8E8M0FNU>' and result type 'vector<3xf32>' are cast incompatible}}
  %0 = arith.scaling_extf %a, %s : vector<4xf16>, vector<4xf8E8M0FNU> to vector<3xf32>
  return
}

// -----

func.func @scaling_extf_integer_scale(%a: f16, %s: i8) {
  // expected-error @+1 {{'arith.scaling_extf' op operand #1 must be floating-point-like, but got 'i8'}}
  %0 = "arith.scaling_extf"(%a, %s) : (f16, i8) -> f32
  return
}

// -----

// Tensor dimensions are compared before the shape trait, as MLIR orders its checks.
func.func @extsi_tensor_dims(%a : tensor<4xi32>) {
  // expected-error @+1 {{'arith.extsi' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.extsi %a : tensor<4xi32> to tensor<?xi64>
  return
}

// -----

func.func @index_cast_tensor_rank(%a : tensor<index>) {
  // expected-error @+1 {{'arith.index_cast' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.index_cast %a : tensor<index> to tensor<2xi64>
  return
}

// -----

func.func @index_cast_tensor_to_scalar(%a : tensor<index>) {
  // expected-error @+1 {{'arith.index_cast' op requires the same shape for all operands and results}}
  %0 = arith.index_cast %a : tensor<index> to i64
  return
}

// -----

// A scalable dimension does not match a fixed one.
func.func @trunci_scalable_to_fixed(%a : vector<[4]xi32>) {
  // expected-error @+1 {{'arith.trunci' op requires the same shape for all operands and results}}
  %0 = arith.trunci %a : vector<[4]xi32> to vector<4xi8>
  return
}

// -----

func.func @extf_vector_sizes(%a : vector<2xf16>) {
  // expected-error @+1 {{'arith.extf' op requires the same shape for all operands and results}}
  %0 = arith.extf %a : vector<2xf16> to vector<3xf32>
  return
}

// -----

// Casts keep the tensor encoding.
func.func @extf_encoding(%a : tensor<2xf32, "foo">) {
  // expected-error @+1 {{'arith.extf' op operand type 'tensor<2xf32, "foo">' and result type 'tensor<2xf64, "bar">' are cast incompatible}}
  %0 = arith.extf %a : tensor<2xf32, "foo"> to tensor<2xf64, "bar">
  return
}

// -----

func.func @bitcast_to_index(%a : i64) {
  // expected-error @+1 {{'arith.bitcast' op result #0 must be signless-integer-or-float-like or memref of signless-integer or float, but got 'index'}}
  %0 = arith.bitcast %a : i64 to index
  return
}

// -----

func.func @select_rank0_condition(%c : tensor<i1>, %a : tensor<2xi64>) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %0 = arith.select %c, %a, %a : tensor<i1>, tensor<2xi64>
  return
}

// -----

func.func @select_condition_encoding(%c : tensor<8xi1, "bar">, %a : tensor<8xi32, "foo">) {
  // expected-error @+1 {{'arith.select' op expected condition type to have the same shape as the result type}}
  %0 = arith.select %c, %a, %a : tensor<8xi1, "bar">, tensor<8xi32, "foo">
  return
}

// -----

// index_cast converts between index and a fixed-width integer, not index to index.
func.func @index_cast_index_to_index(%a : index) {
  // expected-error @+1 {{'arith.index_cast' op operand type 'index' and result type 'index' are cast incompatible}}
  %0 = arith.index_cast %a : index to index
  return
}

// -----

func.func @constant_scalable_not_splat() {
  // expected-error @+1 {{'arith.constant' op intializing scalable vectors with elements attribute is not supported unless it's a vector splat}}
  %0 = arith.constant dense<[1, 2]> : vector<[2]xi32>
  return
}

// -----

func.func @constant_string_value() {
  // expected-error @+1 {{'arith.constant' op value must be an integer, float, or elements attribute}}
  %0 = "arith.constant"() <{value = "text" : i32}> : () -> i32
  return
}

// -----

func.func @constant_untyped_value() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = "text"}> : () -> i32
  return
}

// -----

func.func @cmpf_of_integers(%a: i32) -> i1 {
  // expected-error @+1 {{'lhs' must be floating-point-like, but got 'i32'}}
  %0 = arith.cmpf oeq, %a, %a : i32
  return %0 : i1
}

// -----

func.func @cmpi_result_encoding(%a: tensor<4xi32, "foo">) {
  // expected-error @+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (tensor<4xi32, "foo">, tensor<4xi32, "foo">) -> tensor<4xi1, "bar">
  return
}

// -----

func.func @cmpi_predicate_out_of_range(%a: i32) {
  // expected-error @+1 {{'arith.cmpi' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
  %0 = "arith.cmpi"(%a, %a) {predicate = 10} : (i32, i32) -> i1
  return
}

// -----

func.func @index_cast_to_float(%a: index) {
  // expected-error @+1 {{'arith.index_cast' op result #0 must be signless-integer-like or memref of signless-integer, but got 'f32'}}
  %0 = arith.index_cast %a : index to f32
  return
}

// -----

func.func @store_named(%m: memref<i32>, %v: i32) {
  // expected-error @+1 {{cannot name an operation with no results}}
  %0 = memref.store %v, %m[] : memref<i32>
  return
}

// -----

func.func @cmpf_operands_differ(%a: f32, %b: f64) {
  // expected-error@+1 {{'arith.cmpf' op requires all operands to have the same type}}
  %0 = "arith.cmpf"(%a, %b) <{predicate = 1 : i64}> : (f32, f64) -> i1
  return
}
