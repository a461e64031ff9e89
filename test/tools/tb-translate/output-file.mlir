// An object file and its header are one output: both are written, or neither.
// RUN: rm -rf %t && mkdir -p %t/blocked.h

// The header cannot be written (a directory has its name): no object is left either.
// RUN: not tb-translate --emit=obj %s -o %t/blocked.o 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: ls -A %t | FileCheck %s --check-prefix=ONLY-DIR

// A header that would overwrite the object is refused.
// RUN: not tb-translate --emit=obj %s -o %t/scale.h 2>&1 | FileCheck %s --check-prefix=SAME

// Through a symlink, the object and the shared library reach the link's target.
// RUN: touch %t/real.so && ln -s real.so %t/link.so
// RUN: tb-translate --emit=shared-lib %s -o %t/link.so
// RUN: test -L %t/link.so
// RUN: llvm-nm -D %t/real.so | FileCheck %s --check-prefix=NM
// RUN: test -f %t/link.h

// A device is written in place; a failing one is reported and nothing else is written.
// RUN: tb-translate --emit=llvm-ir %s -o /dev/null
// RUN: test -c /dev/null
// RUN: not tb-translate --emit=obj %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: test -c /dev/full

// BLOCKED: tb-translate: error: cannot write '{{.*}}blocked.h': it is a directory
// ONLY-DIR-NOT: blocked.o
// ONLY-DIR: blocked.h
// ONLY-DIR-NOT: blocked.o
// SAME: tb-translate: error: the C header would overwrite the output '{{.*}}scale.h'
// NM: T tb_scale
// FULL: tb-translate: error: cannot write '/dev/full': No space left on device
func.func @scale(%a: memref<16xf32>, %s: f32) -> memref<16xf32> {
  %out = loop.alloc() : memref<16xf32>
  loop.for %i = 0 to 16 {
    %x = loop.load %a[%i] : memref<16xf32>
    %y = arith.mulf %x, %s : f32
    loop.store %y, %out[%i] : memref<16xf32>
  }
  return %out : memref<16xf32>
}
