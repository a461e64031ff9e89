// `--output-dir` writes every result or none.
// RUN: rm -rf %t && mkdir -p %t/out/output_1.npy

// output_1.npy cannot be written (a directory has its name): output_0.npy is not left
// behind.
// RUN: not tb-run --interpret %s --function pair --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: ls -A %t/out | FileCheck %s --check-prefix=NOTHING

// With room for both, both are written and read back.
// RUN: rmdir %t/out/output_1.npy
// RUN: tb-run --interpret %s --function pair --output-dir %t/out
// RUN: tb-run --interpret %s --function twice --input %t/out/output_1.npy | FileCheck %s --check-prefix=READ

// BLOCKED: tb-run: cannot write '{{.*}}output_1.npy': it is a directory
// NOTHING-NOT: output_0.npy
// NOTHING: output_1.npy
// NOTHING-NOT: output_0.npy
// READ: result #0: tensor<2xf32> = [6.0, 8.0]
func.func @pair() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}

func.func @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = arith.addf %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
