"""Compile time of the lowering pipeline on the bundled models: tb-opt against a baseline tb-opt.

Builds the three models of models/make_models.py (ResNet-18, MobileNet-V2, the BERT-style
encoder), imports each with tb-translate, and times the CPU pipeline that tb-run uses
(graph -> te -> loop, then memory planning) with two tb-opt binaries: the current one and a
baseline (for example one built from an earlier commit). Runs are interleaved and alternate
which binary goes first; the report gives the median of each and the ratio current/baseline
(below 1: the current binary is faster), for the whole tb-opt process (parsing the graph-level
module, the pipeline, printing the loop-level result to /dev/null) and for the passes alone
(tb-opt's --mlir-timing report less parsing and printing), which is less noisy. A note says
when the two binaries print different IR (expected when the lowering itself changed).

Usage: .venv/bin/python bench/lowering_time.py --baseline /path/to/old/tb-opt [--runs 5]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ("builtin.module(canonicalize,convert-graph-to-te,convert-te-to-loop,"
            "canonicalize,plan-buffers)")
MODELS = ["resnet18", "mobilenetv2", "bert"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline", type=Path, required=True, help="the tb-opt binary to compare with")
    p.add_argument("--tb-opt", type=Path, default=ROOT / "target/release/tb-opt", help="the current tb-opt")
    p.add_argument("--tb-translate", type=Path, default=ROOT / "target/release/tb-translate",
                   help="imports the models (the same graph-level input goes to both binaries)")
    p.add_argument("--runs", type=int, default=5, help="timed runs per model and binary (default 5)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    p.add_argument("--models-dir", type=Path, help="reuse models built there by make_models.py")
    p.add_argument("--threads", type=int, default=1, help="TB_NUM_THREADS for tb-opt (default 1)")
    args = p.parse_args()
    for tool in (args.baseline, args.tb_opt, args.tb_translate):
        if not tool.is_file():
            p.error(f"{tool} does not exist (build it first)")
    if args.runs < 1:
        p.error("--runs must be at least 1")
    return args


def run(cmd, env_threads):
    env = {"TB_NUM_THREADS": str(env_threads), "PATH": "/usr/bin:/bin"}
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{done.stderr.decode(errors='replace')}")
    return elapsed, done.stderr


def pipeline_seconds(timing_report):
    """The passes' share of a --mlir-timing report: the total less parsing and printing."""
    phases = {}
    for line in timing_report.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].startswith("(") and parts[-1] in ("Total", "Parser", "Output"):
            phases[parts[-1]] = float(parts[0])
    if "Total" not in phases:
        sys.exit("tb-opt printed no --mlir-timing report")
    return phases["Total"] - phases.get("Parser", 0.0) - phases.get("Output", 0.0)


def build_models(args, names, work):
    if args.models_dir:
        return args.models_dir
    out = work / "models"
    subprocess.run([sys.executable, str(ROOT / "models/make_models.py"), str(out),
                    "--models", ",".join(names)], check=True, stdout=subprocess.DEVNULL)
    return out


def main():
    args = parse_args()
    names = [n for n in args.models.split(",") if n]
    with tempfile.TemporaryDirectory(prefix="tb-lowering-time-") as tmp:
        work = Path(tmp)
        models = build_models(args, names, work)
        rows = []
        for name in names:
            graph = work / f"{name}.mlir"
            run([args.tb_translate, "--import-onnx", models / name / "model.onnx", "-o", graph],
                args.threads)
            binaries = {"baseline": args.baseline, "current": args.tb_opt}
            times = {k: [] for k in binaries}
            passes = {k: [] for k in binaries}
            outputs = {}
            for i in range(args.runs + 1):  # the first round warms the page cache, untimed
                order = list(binaries) if i % 2 == 0 else list(reversed(binaries))
                for key in order:
                    out = work / f"{name}-{key}.mlir" if i == 0 else "/dev/null"
                    cmd = [binaries[key], graph, f"--pass-pipeline={PIPELINE}", "-o", out,
                           "--mlir-timing"]
                    elapsed, report = run(cmd, args.threads)
                    if i == 0:
                        outputs[key] = Path(out).read_bytes()
                    else:
                        times[key].append(elapsed)
                        passes[key].append(pipeline_seconds(report))
            if outputs["baseline"] != outputs["current"]:
                print(f"note: {name}: the two binaries print different IR", file=sys.stderr)
            medians = [statistics.median(m[k]) for m in (times, passes) for k in ("baseline", "current")]
            rows.append((name, *medians))
        print(f"lowering, median of {args.runs} runs, TB_NUM_THREADS={args.threads}: whole tb-opt "
              "process (parse, passes, print) and the passes alone (--mlir-timing)")
        print(f"{'model':<12} {'process: baseline s':>20} {'current s':>10} {'ratio':>6}"
              f" {'passes: baseline ms':>20} {'current ms':>11} {'ratio':>6}")
        for name, base, cur, pbase, pcur in rows:
            print(f"{name:<12} {base:>20.3f} {cur:>10.3f} {cur / base:>6.2f}"
                  f" {pbase * 1e3:>20.1f} {pcur * 1e3:>11.1f} {pcur / pbase:>6.2f}")


if __name__ == "__main__":
    main()
