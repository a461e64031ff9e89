// Where `-o` points decides how the output is written (see tb_support::output_file).
// RUN: rm -rf %t.d && mkdir %t.d

// A failed run leaves an existing output file untouched; a good run replaces it.
// RUN: echo previous contents > %t.d/out.mlir
// RUN: not tb-opt %s -o %t.d/out.mlir
// RUN: FileCheck %s --check-prefix=KEPT < %t.d/out.mlir
// RUN: tb-opt %S/Inputs/cast.mlir -o %t.d/out.mlir
// RUN: FileCheck %s --check-prefix=NEW < %t.d/out.mlir

// `-o -` is standard output.
// RUN: tb-opt %S/Inputs/cast.mlir -o - | FileCheck %s --check-prefix=NEW

// A symlink is written through: the link stays, its target gets the output.
// RUN: echo previous contents > %t.d/target.mlir && ln -s target.mlir %t.d/link.mlir
// RUN: tb-opt %S/Inputs/cast.mlir -o %t.d/link.mlir
// RUN: test -L %t.d/link.mlir
// RUN: FileCheck %s --check-prefix=NEW < %t.d/target.mlir

// A FIFO is written to its reader and stays a FIFO.
// RUN: mkfifo %t.d/fifo
// RUN: bash -c 'cat %t.d/fifo > %t.d/from-fifo & tb-opt %S/Inputs/cast.mlir -o %t.d/fifo; status=$?; wait; exit $status'
// RUN: test -p %t.d/fifo
// RUN: FileCheck %s --check-prefix=NEW < %t.d/from-fifo

// A device is written in place: /dev/null stays a device, /dev/full reports its error.
// RUN: tb-opt %S/Inputs/cast.mlir -o /dev/null
// RUN: test -c /dev/null
// RUN: not tb-opt %S/Inputs/cast.mlir -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: test -c /dev/full

// A directory is refused by name.
// RUN: not tb-opt %S/Inputs/cast.mlir -o %t.d 2>&1 | FileCheck %s --check-prefix=DIR

// A write that fails half-way (here past a 1 KiB file-size limit) leaves the old file and
// no temporary file behind.
// RUN: rm -rf %t.big && mkdir %t.big && echo previous contents > %t.big/out.mlir
// RUN: not bash -c 'ulimit -f 1 && exec tb-opt %S/Inputs/many-constants.mlir -o %t.big/out.mlir' 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// RUN: FileCheck %s --check-prefix=KEPT < %t.big/out.mlir
// RUN: ls -A %t.big | count 1

// KEPT: previous contents
// NEW: builtin.unrealized_conversion_cast
// FULL: tb-opt: cannot write '/dev/full': No space left on device
// DIR: tb-opt: cannot write '{{.*}}.d': it is a directory
// TOO-BIG: tb-opt: cannot write '{{.*}}out.mlir': File too large
"builtin.unrealized_conversion_cast"(%missing) : (i32) -> i32
