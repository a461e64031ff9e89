// RUN: tb-translate --emit=llvm-ir -O0 --mcpu=x86-64 %s | FileCheck %s
// RUN: tb-run %s --function eight_kernels --random-inputs 3 --check --print-limit 0 | FileCheck %s --check-prefix=CHECKED

// A function with eight or more top-level loops (a lowered model) gets each loop as an
// internal noinline function called with a context of the values it uses: LLVM's loop
// analyses cost more than linearly in the loops of one function. Fewer loops stay inline.
// The constant is made again inside each kernel rather than carried in its context, and
// the kernel's body proper (inlined into it) has the buffer `noalias`: alias scopes.
// CHECK-LABEL: define i32 @tb_seven_kernels(
// CHECK-NOT:   call void @tb_seven_kernels.kernel
// CHECK:       ret i32 0
// CHECK-LABEL: define i32 @tb_eight_kernels(
// CHECK:       %kernel.ctx = alloca { ptr }
// CHECK-COUNT-8: call void @tb_eight_kernels.kernel{{[0-9.]*}}(ptr %kernel.ctx{{[0-9]*}})
// CHECK:       define internal void @tb_eight_kernels.kernel(ptr %0) #[[ATTRS:[0-9]+]]
// CHECK:       call void @llvm.experimental.noalias.scope.decl
// CHECK:       loop.header
// CHECK:       attributes #[[ATTRS]] = { noinline {{.*}}"target-cpu"="x86-64"
// Compiled, it agrees with the interpreter.
// CHECKED: check: result #0 matches the interpreter

func.func @seven_kernels(%a: memref<16xf32>) -> memref<16xf32> {
  %one = arith.constant 1.0 : f32
  loop.for %i0 = 0 to 16 {
    %x0 = loop.load %a[%i0] : memref<16xf32>
    %y0 = arith.addf %x0, %one : f32
    loop.store %y0, %a[%i0] : memref<16xf32>
  }
  loop.for %i1 = 0 to 16 {
    %x1 = loop.load %a[%i1] : memref<16xf32>
    %y1 = arith.addf %x1, %one : f32
    loop.store %y1, %a[%i1] : memref<16xf32>
  }
  loop.for %i2 = 0 to 16 {
    %x2 = loop.load %a[%i2] : memref<16xf32>
    %y2 = arith.addf %x2, %one : f32
    loop.store %y2, %a[%i2] : memref<16xf32>
  }
  loop.for %i3 = 0 to 16 {
    %x3 = loop.load %a[%i3] : memref<16xf32>
    %y3 = arith.addf %x3, %one : f32
    loop.store %y3, %a[%i3] : memref<16xf32>
  }
  loop.for %i4 = 0 to 16 {
    %x4 = loop.load %a[%i4] : memref<16xf32>
    %y4 = arith.addf %x4, %one : f32
    loop.store %y4, %a[%i4] : memref<16xf32>
  }
  loop.for %i5 = 0 to 16 {
    %x5 = loop.load %a[%i5] : memref<16xf32>
    %y5 = arith.addf %x5, %one : f32
    loop.store %y5, %a[%i5] : memref<16xf32>
  }
  loop.for %i6 = 0 to 16 {
    %x6 = loop.load %a[%i6] : memref<16xf32>
    %y6 = arith.addf %x6, %one : f32
    loop.store %y6, %a[%i6] : memref<16xf32>
  }
  return %a : memref<16xf32>
}

func.func @eight_kernels(%a: memref<16xf32>) -> memref<16xf32> {
  %one = arith.constant 1.0 : f32
  loop.for %i0 = 0 to 16 {
    %x0 = loop.load %a[%i0] : memref<16xf32>
    %y0 = arith.addf %x0, %one : f32
    loop.store %y0, %a[%i0] : memref<16xf32>
  }
  loop.for %i1 = 0 to 16 {
    %x1 = loop.load %a[%i1] : memref<16xf32>
    %y1 = arith.addf %x1, %one : f32
    loop.store %y1, %a[%i1] : memref<16xf32>
  }
  loop.for %i2 = 0 to 16 {
    %x2 = loop.load %a[%i2] : memref<16xf32>
    %y2 = arith.addf %x2, %one : f32
    loop.store %y2, %a[%i2] : memref<16xf32>
  }
  loop.for %i3 = 0 to 16 {
    %x3 = loop.load %a[%i3] : memref<16xf32>
    %y3 = arith.addf %x3, %one : f32
    loop.store %y3, %a[%i3] : memref<16xf32>
  }
  loop.for %i4 = 0 to 16 {
    %x4 = loop.load %a[%i4] : memref<16xf32>
    %y4 = arith.addf %x4, %one : f32
    loop.store %y4, %a[%i4] : memref<16xf32>
  }
  loop.for %i5 = 0 to 16 {
    %x5 = loop.load %a[%i5] : memref<16xf32>
    %y5 = arith.addf %x5, %one : f32
    loop.store %y5, %a[%i5] : memref<16xf32>
  }
  loop.for %i6 = 0 to 16 {
    %x6 = loop.load %a[%i6] : memref<16xf32>
    %y6 = arith.addf %x6, %one : f32
    loop.store %y6, %a[%i6] : memref<16xf32>
  }
  loop.for %i7 = 0 to 16 {
    %x7 = loop.load %a[%i7] : memref<16xf32>
    %y7 = arith.addf %x7, %one : f32
    loop.store %y7, %a[%i7] : memref<16xf32>
  }
  return %a : memref<16xf32>
}
