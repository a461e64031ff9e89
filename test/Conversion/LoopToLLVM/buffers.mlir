// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s

// A memref.global is an aligned byte array (see @lookup below).
// CHECK:       @table = internal constant [8 x i8] c"\01\00\02\00\03\00\04\00", align 64

// A scratch buffer is 64-byte aligned heap memory (its size rounded up to the alignment)
// and is freed by dealloc. A returned allocation is the caller's output buffer instead:
// no allocation, no copy.
// CHECK-LABEL: define i32 @tb_scratch(ptr noalias %0, ptr noalias %1)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[T:.*]] = call ptr @aligned_alloc(i64 64, i64 64)
// CHECK-NOT:     aligned_alloc
// CHECK:         store float 0.000000e+00, ptr %[[T]], align 4
// CHECK:         load float, ptr %[[T]], align 4
// CHECK:         %[[O:.*]] = getelementptr inbounds float, ptr %1, i64 %iv
// CHECK-NEXT:    store float %{{.*}}, ptr %[[O]], align 4
// CHECK:         call void @free(ptr %[[T]])
// CHECK-NEXT:    ret i32 0
func.func @scratch(%a: memref<3xf32>) -> memref<3xf32> {
  %t = loop.alloc() : memref<3xf32>
  %out = loop.alloc() : memref<3xf32>
  %zero = arith.constant 0.0 : f32
  loop.store %zero, %t[() -> (0)]() : memref<3xf32>
  loop.for %i = 0 to 3 {
    %x = loop.load %a[%i] : memref<3xf32>
    %s = loop.load %t[() -> (0)]() : memref<3xf32>
    %y = arith.addf %x, %s : f32
    loop.store %y, %out[%i] : memref<3xf32>
  }
  loop.dealloc %t : memref<3xf32>
  return %out : memref<3xf32>
}

// An alignment larger than 64 is kept.
// CHECK-LABEL: define i32 @tb_wide(
// CHECK:         call ptr @aligned_alloc(i64 256, i64 768)
func.func @wide() {
  %t = loop.alloc() {alignment = 256} : memref<2x65xf32>
  loop.dealloc %t : memref<2x65xf32>
  return
}

// A returned argument is copied into the output with memcpy; a strided view element by
// element, through its static strides and offset.
// CHECK-LABEL: define i32 @tb_copies(ptr noalias %0, ptr noalias %1, ptr noalias %2)
// CHECK:         call void @llvm.memcpy.p0.p0.i64(ptr align 4 %1, ptr align 4 %0, i64 48, i1 false)
// CHECK:         %[[I:iv]] = phi i64
// CHECK:         %[[J:iv[0-9]+]] = phi i64
// CHECK:         %[[ROW:.*]] = mul i64 %[[I]], 4
// CHECK-NEXT:    %[[OFF:.*]] = add i64 4, %[[ROW]]
// CHECK-NEXT:    %[[AT:.*]] = add i64 %[[OFF]], %[[J]]
// CHECK-NEXT:    %[[SRC:.*]] = getelementptr inbounds float, ptr %0, i64 %[[AT]]
// CHECK-NEXT:    %[[X:.*]] = load float, ptr %[[SRC]], align 4
// CHECK:         store float %[[X]], ptr %{{.*}}, align 4
func.func @copies(%a: memref<3x4xf32>) -> (memref<3x4xf32>, memref<2x4xf32, strided<[4, 1], offset: 4>>) {
  %v = "memref.subview"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 2, 4>, static_strides = array<i64: 1, 1>}> : (memref<3x4xf32>) -> memref<2x4xf32, strided<[4, 1], offset: 4>>
  return %a, %v : memref<3x4xf32>, memref<2x4xf32, strided<[4, 1], offset: 4>>
}

// i1 elements are bytes in memory.
// CHECK-LABEL: define i32 @tb_bools(ptr noalias %0, ptr noalias %1)
// CHECK:         %[[B:.*]] = load i8, ptr %{{.*}}, align 1
// CHECK-NEXT:    %[[T:.*]] = trunc i8 %[[B]] to i1
// CHECK-NEXT:    %[[N:.*]] = xor i1 %[[T]], true
// CHECK-NEXT:    %[[P:.*]] = getelementptr inbounds i8, ptr %1, i64 %{{.*}}
// CHECK-NEXT:    %[[Z:.*]] = zext i1 %[[N]] to i8
// CHECK-NEXT:    store i8 %[[Z]], ptr %[[P]], align 1
func.func @bools(%a: memref<4xi1>) -> memref<4xi1> {
  %out = loop.alloc() : memref<4xi1>
  %true = arith.constant true
  loop.for %i = 0 to 4 {
    %x = loop.load %a[%i] : memref<4xi1>
    %y = arith.xori %x, %true : i1
    loop.store %y, %out[%i] : memref<4xi1>
  }
  return %out : memref<4xi1>
}

// Globals are aligned byte arrays; alloca reserves stack space in the entry block.
// CHECK-LABEL: define i32 @tb_lookup(i64 %0, ptr noalias %1)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[S:.*]] = alloca [4 x i16], align 64
// CHECK:         getelementptr inbounds i16, ptr @table, i64 %0
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xi16>, initial_value = dense<[1, 2, 3, 4]> : tensor<4xi16>, constant}> : () -> ()
func.func @lookup(%i: index) -> i16 {
  %g = "memref.get_global"() <{name = @table}> : () -> memref<4xi16>
  %x = "memref.load"(%g, %i) : (memref<4xi16>, index) -> i16
  loop.for %k = 0 to 2 {
    %s = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xi16>
    "memref.store"(%x, %s, %k) : (i16, memref<4xi16>, index) -> ()
  }
  return %x : i16
}

// memref.prefetch becomes llvm.prefetch of the element's address: read (0) or write (1),
// the locality hint (0 to 3), data (1) or instruction (0) cache.
// CHECK-LABEL: define i32 @tb_prefetch(ptr noalias %0, i64 %1)
// CHECK:         %[[P:.*]] = getelementptr inbounds float, ptr %0, i64
// CHECK-NEXT:    call void @llvm.prefetch.p0(ptr %[[P]], i32 0, i32 2, i32 1)
// CHECK:         call void @llvm.prefetch.p0(ptr %{{.*}}, i32 1, i32 3, i32 1)
func.func @prefetch(%a: memref<4x16xf32>, %i: index) {
  %c8 = arith.constant 8 : index
  memref.prefetch %a[%i, %c8], read, locality<2>, data : memref<4x16xf32>
  memref.prefetch %a[%i, %i], write, locality<3>, data : memref<4x16xf32>
  return
}
