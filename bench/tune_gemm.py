#!/usr/bin/env python3
"""Trials to reach 95% of the best latency: model-guided search against random search.

Writes a model of GEMMs (graph-level MLIR), tunes it with `tb-tune` twice with the same
trial budget (model-guided, then `--random`), each into a fresh database, and reads the
records back (Python's sqlite3): per task, the trial at which each search first came
within 95% of the best latency either found (best-known / 0.95), counting that task's own
trials, the heuristic's included (`trials`: the task's trials in each search; `>N`: not
reached in its N trials).

    python3 bench/tune_gemm.py [--trials 48] [--seeds 1 2] [--tb-tune target/release/tb-tune]
"""

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile

GEMMS = [(64, 64, 64), (128, 128, 128), (64, 256, 128)]


def model_text(gemms):
    args, types, body, results = [], [], [], []
    for i, (m, n, k) in enumerate(gemms):
        a, b = f"%a{i}", f"%b{i}"
        args += [f"{a}: tensor<{m}x{k}xf32>", f"{b}: tensor<{k}x{n}xf32>"]
        types += [f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>"]
        body.append(
            f'  %c{i} = "graph.matmul"({a}, {b}) : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>'
        )
        results.append((f"%c{i}", f"tensor<{m}x{n}xf32>"))
    rtypes = ", ".join(t for _, t in results)
    return (
        f'"func.func"() <{{function_type = ({", ".join(types)}) -> ({rtypes}), sym_name = "gemms"}}> ({{\n'
        f'^bb0({", ".join(args)}):\n'
        + "\n".join(body)
        + f'\n  "func.return"({", ".join(v for v, _ in results)}) : ({rtypes}) -> ()\n'
        + "}) : () -> ()\n"
    )


def task_curves(db):
    """{task summary: [latency or None, ...]} in trial order."""
    conn = sqlite3.connect(db)
    curves = {}
    for summary, status, latency in conn.execute(
        "SELECT k.summary, r.status, r.latency_s FROM records r JOIN tasks k ON r.task_id = k.id ORDER BY r.id"
    ):
        curves.setdefault(summary, []).append(latency if status == "ok" else None)
    conn.close()
    return curves


def trials_to(curve, goal):
    best = float("inf")
    for i, latency in enumerate(curve, 1):
        if latency is not None:
            best = min(best, latency)
        if best <= goal:
            return i
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=48)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tb-tune", default=os.path.join("target", "release", "tb-tune"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "gemms.mlir")
        with open(model, "w") as f:
            f.write(model_text(GEMMS))
        rows = []
        for seed in args.seeds:
            curves = {}
            for mode in ("model", "random"):
                db = os.path.join(tmp, f"{mode}-{seed}.db")
                cmd = [args.tb_tune, model, "--trials", str(args.trials), "--db", db,
                       "--seed", str(seed), "--threads", str(args.threads)]
                if mode == "random":
                    cmd.append("--random")
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                curves[mode] = task_curves(db)
            for task in sorted(curves["model"]):
                found = [l for mode in curves for l in curves[mode].get(task, []) if l is not None]
                best = min(found)
                goal = best / 0.95
                heuristic = curves["model"][task][0]
                random_curve = curves["random"].get(task, [])
                row = (seed, task, len(curves["model"][task]), len(random_curve), heuristic, best,
                       trials_to(curves["model"][task], goal),
                       trials_to(random_curve, goal))
                rows.append(row)
        print(f"{'seed':>4}  {'task':<22} {'trials':>13} {'heuristic ms':>12} {'best ms':>9} "
              f"{'model':>6} {'random':>6}   (trials to 95% of best)")
        for seed, task, n, n_random, heuristic, best, model_t, random_t in rows:
            fmt = lambda t, n: str(t) if t is not None else f">{n}"
            h = f"{heuristic * 1e3:.4f}" if heuristic else "-"
            print(f"{seed:>4}  {task:<22} {f'{n} / {n_random}':>13} {h:>12} {best * 1e3:>9.4f} "
                  f"{fmt(model_t, n):>6} {fmt(random_t, n_random):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
