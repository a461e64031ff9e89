"""Fusion on the bundled models: kernels, estimated traffic and latency with and without te-fuse.

Builds the models of models/make_models.py (ResNet-18, MobileNet-V2, the BERT-style
encoder), or reuses them with --models-dir, imports each with tb-translate and lowers it to
the te level (`canonicalize, convert-graph-to-te`), then runs `te-fuse` with
--mlir-pass-statistics: te.compute kernels and estimated bytes moved (each kernel reading
its inputs once and writing its result), before and after. It then compiles and runs each
model with `tb-run --stats` under the CPU pipeline (`tb-run --list-passes`) without and
with te-fuse, checking both against the model's expected output (onnxruntime's): the
kernels (loop nests) of the compiled model and their estimated traffic, after every pass.
With --runs N it also times `tb-run --bench N` in the same runs (same inputs, same threads).

Usage: .venv/bin/python bench/fusion.py [--runs 5] [--threads 1] [--models-dir DIR]
           [--models resnet18,mobilenetv2,bert] [--options 'max-recompute-flops=16']
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ["resnet18", "mobilenetv2", "bert"]
BENCH_LINE = re.compile(r"^bench: \d+ runs, median (?P<median>[\d.]+) ms", re.MULTILINE)
KERNELS_LINE = re.compile(r"^kernels: (?P<kernels>\d+)$", re.MULTILINE)
TRAFFIC_LINE = re.compile(r"^estimated memory traffic: .* \((?P<bytes>\d+) bytes", re.MULTILINE)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tb-opt", type=Path, default=ROOT / "target/release/tb-opt")
    p.add_argument("--tb-translate", type=Path, default=ROOT / "target/release/tb-translate")
    p.add_argument("--tb-run", type=Path, default=ROOT / "target/release/tb-run")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    p.add_argument("--models-dir", type=Path, help="reuse models built there by make_models.py")
    p.add_argument("--options", default="", help="te-fuse options, e.g. 'max-recompute-flops=32'")
    p.add_argument("--runs", type=int, default=0, help="timed tb-run runs per pipeline (default 0: no timing)")
    p.add_argument("--threads", type=int, default=1, help="tb-run threads (default 1)")
    args = p.parse_args()
    for tool in (args.tb_opt, args.tb_translate, args.tb_run):
        if not tool.is_file():
            p.error(f"{tool} does not exist (build it first: cargo build --release -p tb-tools)")
    return args


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], capture_output=True,
                          env={"TB_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{done.stderr.decode(errors='replace')[-2000:]}")
    return done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def statistics_of(stderr):
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"\(S\)\s+(\d+) ([\w-]+) - ", stderr)}


def cpu_pipeline(args):
    """The CPU pipeline tb-run compiles with by default, from `tb-run --list-passes`."""
    out, _ = run([args.tb_run, "--list-passes"])
    m = re.search(r"^\s+cpu\s.*\n\s+= (builtin\.module\(.*\))$", out, re.MULTILINE)
    if not m:
        sys.exit("tb-run --list-passes names no cpu pipeline")
    return m.group(1)


def compiled(args, model_dir, pipeline):
    """Kernels, estimated bytes and median latency (ms, NaN without --runs) of the model
    compiled under `pipeline`, its output checked against the expected one."""
    cmd = [args.tb_run, model_dir / "model.onnx", "--pipeline", pipeline, "--threads", str(args.threads),
           "--stats", "--print-limit", "0"]
    if args.runs:
        cmd += ["--bench", str(args.runs)]
    for path in sorted(model_dir.glob("input_*.npy"), key=lambda p: int(p.stem.split("_")[1])):
        cmd += ["--input", path]
    for path in sorted(model_dir.glob("expected_*.npy"), key=lambda p: int(p.stem.split("_")[1])):
        cmd += ["--expected", path, "--rtol", "1e-3", "--atol", "1e-4"]
    out, _ = run(cmd)
    m = BENCH_LINE.search(out)
    return (int(KERNELS_LINE.search(out)["kernels"]), int(TRAFFIC_LINE.search(out)["bytes"]),
            float(m["median"]) if m else float("nan"))


def main():
    args = parse_args()
    names = [n for n in args.models.split(",") if n]
    options = "{" + args.options + "}" if args.options else ""
    fuse = f"te-fuse{options}"
    cpu = cpu_pipeline(args)
    if "te-fuse, " not in cpu:
        sys.exit(f"the cpu pipeline has no te-fuse to compare without: {cpu}")
    fused_pipeline = cpu.replace("te-fuse, ", f"{fuse}, ")
    unfused_pipeline = cpu.replace("te-fuse, ", "")
    with tempfile.TemporaryDirectory(prefix="tb-fusion-bench-") as tmp:
        work = Path(tmp)
        models = args.models_dir
        if models is None:
            models = work / "models"
            subprocess.run([sys.executable, str(ROOT / "models/make_models.py"), str(models),
                            "--models", ",".join(names)], check=True, stdout=subprocess.DEVNULL)
        header = (f"{'model':<12} {'te kernels':>11} {'te MB (est.)':>15} {'inlined':>8} "
                  f"{'compiled kernels':>17} {'compiled MB (est.)':>19}")
        if args.runs:
            header += f" {'unfused ms':>11} {'fused ms':>9} {'speedup':>8}"
        print(header)
        for name in names:
            graph = work / f"{name}.mlir"
            run([args.tb_translate, "--import-onnx", models / name / "model.onnx", "-o", graph])
            _, err = run([args.tb_opt, graph, "-o", work / f"{name}-fused.mlir", "--mlir-pass-statistics",
                          f"--pass-pipeline=builtin.module(canonicalize, convert-graph-to-te, {fuse})"])
            s = statistics_of(err)
            unfused = compiled(args, models / name, unfused_pipeline)
            fused = compiled(args, models / name, fused_pipeline)
            line = (f"{name:<12} {s.get('kernels-before', 0):>5}->{s.get('kernels-after', 0):<5} "
                    f"{s.get('bytes-before', 0) / 1e6:>7.1f}->{s.get('bytes-after', 0) / 1e6:<7.1f} "
                    f"{s.get('num-inlined', 0):>8} "
                    f"{unfused[0]:>8}->{fused[0]:<8} {unfused[1] / 1e6:>9.1f}->{fused[1] / 1e6:<9.1f}")
            if args.runs:
                line += f" {unfused[2]:>11.1f} {fused[2]:>9.1f} {unfused[2] / fused[2]:>7.2f}x"
            print(line, flush=True)
            kept = {k: v for k, v in s.items() if k.startswith("refused-") and v}
            print(f"{'':<12} kept: " + ", ".join(f"{k[8:]} {v}" for k, v in sorted(kept.items())))


if __name__ == "__main__":
    main()
