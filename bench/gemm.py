"""f32 GEMM throughput: TensorBind against numpy's OpenBLAS and the FMA peak, in one run.

For each shape (M x K times K x N) and thread count, prints GFLOP/s (2*M*N*K flops per
run, median over the runs) of:
  tb     target/release/tb-run on a graph-level matmul (the default CPU pipeline, or
         --pipeline), random inputs, `--bench RUNS --threads T`;
  blas   numpy.matmul in a fresh process with OPENBLAS_NUM_THREADS=T, and
         OPENBLAS_CORETYPE=SkylakeX where the CPU has AVX-512 (OpenBLAS's AVX-512 kernel;
         elsewhere OpenBLAS picks its kernel for the CPU);
  peak   an FMA-peak microbenchmark (bench/lib/fma_peak.c built with cc -O3 -march=native:
         12 independent vector FMA chains per thread) measured in the same run;
and the ratios tb/blas and tb/peak. Shapes: 256, 512, 1024, 2048 square and the BERT-like
128x768x768, 128x768x3072, 128x3072x768 (M x K x N), on 1 and 2 threads.

Usage: .venv/bin/python bench/gemm.py [--runs 5] [--threads 1,2] [--shapes 256,512,128x768x768]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ["256", "512", "1024", "2048", "128x768x768", "128x768x3072", "128x3072x768"]

BLAS_SCRIPT = r"""
import sys, time, numpy as np
m, k, n, runs = map(int, sys.argv[1:5])
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k), dtype=np.float32)
b = rng.standard_normal((k, n), dtype=np.float32)
c = a @ b
times = []
for _ in range(runs):
    start = time.perf_counter()
    np.matmul(a, b, out=c)
    times.append(time.perf_counter() - start)
print(sorted(times)[len(times) // 2])
"""


def parse_shape(text):
    parts = [int(p) for p in text.split("x")]
    if len(parts) == 1:
        return parts * 3
    if len(parts) != 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"bad shape {text!r}: N or MxKxN")
    return parts


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="timed runs per measurement (median)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated N or MxKxN")
    p.add_argument("--tb-run", type=Path, default=ROOT / "target/release/tb-run")
    p.add_argument("--pipeline", help="tb-run --pipeline (default: tb-run's CPU pipeline)")
    args = p.parse_args()
    if not args.tb_run.is_file():
        p.error(f"{args.tb_run} does not exist (cargo build --release -p tb-tools)")
    if args.runs < 1:
        p.error("--runs must be at least 1")
    args.threads = [int(t) for t in args.threads.split(",")]
    args.shapes = [parse_shape(s) for s in args.shapes.split(",")]
    return args


def has_avx512():
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def build_peak(tmp):
    exe = Path(tmp) / "fma_peak"
    subprocess.run(["cc", "-O3", "-march=native", "-pthread", str(ROOT / "bench/lib/fma_peak.c"),
                    "-o", str(exe)], check=True)
    return exe


def peak_gflops(exe, threads):
    out = subprocess.run([str(exe), str(threads), "0.5"], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def tb_seconds(args, tmp, m, k, n, threads):
    src = Path(tmp) / f"mm_{m}x{k}x{n}.mlir"
    src.write_text(
        f"func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n"
        f"  %c = graph.matmul %a, %b : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n"
        f"  return %c : tensor<{m}x{n}xf32>\n}}\n")
    cmd = [str(args.tb_run), str(src), "--random-inputs", "1", "--print-limit", "0",
           "--bench", str(args.runs), "--threads", str(threads)]
    if args.pipeline:
        cmd += ["--pipeline", args.pipeline]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    found = re.search(r"bench: \d+ runs, median ([0-9.]+) ms", done.stdout + done.stderr)
    if not found:
        sys.exit(f"no bench line in tb-run's output:\n{done.stdout}{done.stderr}")
    return float(found.group(1)) / 1e3


def blas_seconds(args, m, k, n, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if has_avx512():
        env["OPENBLAS_CORETYPE"] = "SkylakeX"
    out = subprocess.run([sys.executable, "-c", BLAS_SCRIPT, str(m), str(k), str(n), str(args.runs)],
                         capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip())


def main():
    args = parse_args()
    print(f"cores: {os.cpu_count()}, AVX-512: {'yes (OPENBLAS_CORETYPE=SkylakeX)' if has_avx512() else 'no'}, "
          f"runs: {args.runs} (medians)")
    with tempfile.TemporaryDirectory() as tmp:
        peak_exe = build_peak(tmp)
        header = (f"{'M x K x N':>16} {'thr':>3} {'tb GF/s':>9} {'blas GF/s':>10} {'peak GF/s':>10} "
                  f"{'tb/blas':>8} {'tb/peak':>8} {'blas/peak':>9}")
        print(header)
        for threads in args.threads:
            for m, k, n in args.shapes:
                flops = 2.0 * m * n * k
                peak = statistics.median(peak_gflops(peak_exe, threads) for _ in range(3))
                tb = flops / tb_seconds(args, tmp, m, k, n, threads) / 1e9
                blas = flops / blas_seconds(args, m, k, n, threads) / 1e9
                print(f"{f'{m}x{k}x{n}':>16} {threads:>3} {tb:>9.2f} {blas:>10.2f} {peak:>10.2f} "
                      f"{tb / blas:>8.3f} {tb / peak:>8.3f} {blas / peak:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
