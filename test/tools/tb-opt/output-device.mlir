// REQUIRES: root
// A character device created here (a second /dev/null, made with mknod, which needs root)
// is written in place and never replaced by a regular file.
// RUN: rm -rf %t.d && mkdir %t.d && mknod %t.d/null c 1 3
// RUN: tb-opt %s -o %t.d/null
// RUN: test -c %t.d/null
// RUN: ls -A %t.d | count 1
func.func @f() {
  return
}
