#!/usr/bin/env python3
"""Tuned models end to end against onnxruntime, with the tuning budget beside the result.

For each model (ResNet-18 and the BERT-style encoder by default, built by
`models/make_models.py` with seeded weights): `tb-tune MODEL --trials N --threads T --db
DB` into a fresh SQLite database (its wall time and trials are the budget), then
`--rounds` rounds, each timing `tb-run MODEL --bench RUNS --threads T` without the
database (the heuristic schedules), with `--db DB` (each task's fastest record) and
onnxruntime (CPUExecutionProvider, T intra-op threads, one warm-up run) one after the
other. Prints per model the medians over the rounds of each engine's median and
onnxruntime's time over each (above 1: TensorBind is faster), and the tuning's trials
and seconds. The tuned results are compared with onnxruntime's (`--check` of
`scripts/bench_models.py`, max |tb - ort| / max |ort|).

    .venv/bin/python bench/tune_e2e.py [--models resnet18,bert] [--trials 200]
        [--threads 2] [--rounds 3] [--runs 30] [--out-dir DIR]
"""

import argparse
import copy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_models  # noqa: E402  (found through the path set just above)
import numpy as np  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="resnet18,bert",
                   help="comma-separated models of models/make_models.py (default resnet18,bert)")
    p.add_argument("--trials", type=int, default=200, help="tb-tune trials per model (default 200)")
    p.add_argument("--threads", type=int, default=2, help="threads of both engines and of the tuning (default 2)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of timing, the engines alternating (default 3)")
    p.add_argument("--runs", type=int, default=30, help="timed runs per engine and round (default 30)")
    p.add_argument("--out-dir", type=Path, help="where to build the models and databases (default: a temporary directory)")
    p.add_argument("--timeout", type=float, default=600, help="seconds one tb-run call may take (default 600)")
    args = p.parse_args()
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in args.models if m not in bench_models.make_models.MODELS]
    if unknown or not args.models:
        p.error(f"unknown model(s) {', '.join(unknown) or '(none)'}; choose from "
                f"{', '.join(bench_models.make_models.MODELS)}")
    for name in ("trials", "threads", "rounds", "runs"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    args.tb_run = ROOT / "target/release/tb-run"
    args.tb_tune = ROOT / "target/release/tb-tune"
    for tool in (args.tb_run, args.tb_tune):
        if not tool.is_file():
            p.error(f"{tool} does not exist (cargo build --release -p tb-tools)")
    return args


def tune(args, model_dir, db):
    """Runs tb-tune on the model into `db`; returns its wall seconds."""
    command = [str(args.tb_tune), str(model_dir / "model.onnx"), "--trials", str(args.trials),
               "--threads", str(args.threads), "--db", str(db)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"tb-tune failed on {model_dir.name}: "
                 f"{bench_models.error_line(done.stderr, done.stdout)}")
    return seconds


def median_of(engine, name, args, model_dir, inputs):
    """One round's median of `engine` (a bench_models Result's timing), or exits."""
    result = bench_models.Result(name)
    if engine == "ort":
        bench_models.bench_ort(args, model_dir, inputs, result)
        timing, error = result.ort, result.ort_error
    else:
        bench_models.bench_tb(args, model_dir, result)
        timing, error = result.tb, result.tb_error
    if error:
        sys.exit(f"{name}: {error}")
    return timing.median


def main():
    args = parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tb-tune-e2e-") as scratch:
        out_dir = args.out_dir or Path(scratch)
        bench_models.make_models.main([str(out_dir), "--models", ",".join(args.models)])
        for name in args.models:
            model_dir = out_dir / name
            db = out_dir / f"{name}-tuned.db"
            db.unlink(missing_ok=True)
            print(f"{name}: tb-tune --trials {args.trials} --threads {args.threads} ...", flush=True)
            seconds = tune(args, model_dir, db)
            inputs = [np.load(p) for p in bench_models.input_files(model_dir)]
            heuristic = copy.copy(args)
            heuristic.extra = []
            tuned = copy.copy(args)
            tuned.extra = ["--db", str(db)]
            times = {"heuristic": [], "tuned": [], "ort": []}
            for round_ in range(args.rounds):
                print(f"{name}: timing, round {round_ + 1} of {args.rounds} ...", flush=True)
                times["heuristic"].append(median_of("tb", name, heuristic, model_dir, inputs))
                times["tuned"].append(median_of("tb", name, tuned, model_dir, inputs))
                times["ort"].append(median_of("ort", name, args, model_dir, inputs))
            check = copy.copy(tuned)
            result = bench_models.Result(name)
            outputs = bench_models.bench_ort(args, model_dir, inputs, result)
            bench_models.check_tb(check, model_dir, outputs, result)
            medians = {k: statistics.median(v) for k, v in times.items()}
            rows.append((name, medians, seconds, result.check_error, result.check_problem))
    print(f"\n{args.threads} thread(s), medians over {args.rounds} rounds of {args.runs} runs; "
          f"ort/tb above 1: TensorBind is faster")
    print(f"{'model':<10} {'heuristic ms':>12} {'tuned ms':>9} {'ort ms':>8} "
          f"{'ort/heuristic':>13} {'ort/tuned':>9} {'trials':>6} {'tuning s':>8} {'max rel err':>11}")
    for name, m, seconds, error, problem in rows:
        err = f"{error:.2e}" if error is not None else (problem or "-")
        print(f"{name:<10} {m['heuristic']:>12.2f} {m['tuned']:>9.2f} {m['ort']:>8.2f} "
              f"{m['ort'] / m['heuristic']:>13.2f} {m['ort'] / m['tuned']:>9.2f} "
              f"{args.trials:>6} {seconds:>8.0f} {err:>11}")
    failed = any(e is not None and e > bench_models.CHECK_TOLERANCE for _, _, _, e, _ in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
