#!/usr/bin/env python3
"""Model-guided search against random search on tasks of ResNet-18 and the BERT-style encoder.

Builds both models (`models/make_models.py`, seeded weights), lists their tasks with
`tb-tune --list-tasks --dump-tasks` and picks a handful: the convolutions and the fully
connected layer of ResNet-18, the projection and feed-forward GEMMs and the attention
batched matmuls (scores and context) of the encoder (see `kind_of`) (`--per-kind` of each kind, the
heaviest by weight and work first). Each task module is then tuned on its own, twice, each
into a fresh SQLite database: `--random-trials` random trials, then `--model-trials`
model-guided ones. Per task it prints the trial (the heuristic's included) at which each
search first came within 95% of the best latency the random search found (best_random /
0.95; `>N`: not within its N trials).

Then the ranker's TenSet-style top-1 and top-5 scores on held-out tasks: `tb-tune score`
trains on every record of one model's tasks and ranks the random-search candidates of the
other model's tasks (both directions).

    .venv/bin/python bench/tune_models.py [--random-trials 100] [--model-trials 64]
        [--image-size 64] [--seq-len 64] [--per-kind 2] [--threads 1] [--seed 1]
"""

import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def list_tasks(tb_tune, model, dump_dir, extra):
    """[(key, kernel summary, weight, knobs)] of a model; writes DIR/<key>.mlir."""
    out = subprocess.run([tb_tune, model, "--list-tasks", "--dump-tasks", dump_dir] + extra,
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines()[1:]:
        parts = re.split(r"\s{2,}", line.strip())
        if len(parts) >= 4:
            rows.append((parts[0], parts[1], int(parts[2]), parts[3]))
    return rows


def numbers(summary):
    return [int(n) for n in re.findall(r"\d+", summary)]


def work(summary):
    p = 1
    for n in numbers(summary):
        p *= n
    return p


def kind_of(summary, ir):
    """The benchmark's kind of a task (conv, gemm, attention), or None for other kernels.

    A matmul the micro-kernel takes (`matmul BxMxNxK`) is attention when it is batched
    over heads (B above 1: the scores and the context) and a GEMM otherwise (the
    projections and the feed-forward layers). Another contraction is a nest with
    reductions (`nest 64x256 r256`) whose module multiplies and takes no exponential (a
    softmax's reductions do); batched over heads (three or more spatial dimensions, the
    first above 1) it is attention, else a GEMM (ResNet-18's fully connected layer is a
    matrix-vector product, `nest 1000 r512`)."""
    if summary.startswith("conv "):
        return "conv"
    mm = re.fullmatch(r"matmul (\d+)x\d+x\d+x\d+", summary)
    if mm:
        return "attention" if int(mm.group(1)) > 1 else "gemm"
    m = re.fullmatch(r"nest ([\dx]+) r([\dx]+)", summary)
    if not m or "arith.mulf" not in ir or "math.exp" in ir:
        return None
    spatial = [int(n) for n in m.group(1).split("x")]
    return "attention" if len(spatial) >= 3 and spatial[0] > 1 else "gemm"


def choose(tasks, dump, per_kind):
    kinds = {}
    for t in tasks:
        with open(os.path.join(dump, f"{t[0]}.mlir")) as f:
            kinds[t[0]] = kind_of(t[1], f.read())
    chosen = []
    for kind in ("conv", "gemm", "attention"):
        of_kind = [t for t in tasks if kinds[t[0]] == kind and not t[3].startswith("none")]
        of_kind.sort(key=lambda t: (-t[2] * work(t[1]), t[0]))
        chosen += [(kind, t) for t in of_kind[:per_kind]]
    return chosen


def curve(db):
    """Latencies (None for a failed trial) in trial order."""
    conn = sqlite3.connect(db)
    rows = [l if s == "ok" else None
            for s, l in conn.execute("SELECT status, latency_s FROM records ORDER BY id")]
    conn.close()
    return rows


def trials_to(c, goal):
    best = float("inf")
    for i, latency in enumerate(c, 1):
        if latency is not None:
            best = min(best, latency)
        if best <= goal:
            return i
    return None


def tune(tb_tune, task_file, db, trials, seed, threads, random):
    """The run's latencies in trial order, and tb-tune's line on its measurement speed
    (`measured N trials in S s (R per minute) ...`)."""
    cmd = [tb_tune, task_file, "--trials", str(trials), "--db", db, "--seed", str(seed),
           "--threads", str(threads)]
    if random:
        cmd.append("--random")
    err = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True).stderr
    speed = next((l for l in err.splitlines() if l.startswith("measured ")), "")
    return curve(db), speed


def score(tb_tune, train, test, threads):
    cmd = [tb_tune, "score", "--threads", str(threads)]
    for db in train:
        cmd += ["--train", db]
    for db in test:
        cmd += ["--test", db]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines()[1:]:
        parts = re.split(r"\s{2,}", line.strip())
        if len(parts) == 5:
            rows.append((parts[1], int(parts[2]), float(parts[3]), float(parts[4])))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--random-trials", type=int, default=100)
    p.add_argument("--model-trials", type=int, default=64)
    p.add_argument("--image-size", type=int, default=64, help="ResNet-18 input size")
    p.add_argument("--seq-len", type=int, default=64, help="encoder sequence length")
    p.add_argument("--per-kind", type=int, default=2, help="tasks of each kind per model")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tb-tune", default=os.path.join(ROOT, "target", "release", "tb-tune"))
    p.add_argument("--work", help="keep models, tasks and databases here (default: a temporary directory)")
    args = p.parse_args()
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        work_dir = args.work or tmp
        os.makedirs(work_dir, exist_ok=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "models", "make_models.py"), work_dir,
                        "--models", "resnet18,bert", "--image-size", str(args.image_size),
                        "--seq-len", str(args.seq_len)], check=True, stdout=subprocess.DEVNULL)
        rows, dbs = [], {"resnet18": [], "bert": []}
        random_dbs = {"resnet18": [], "bert": []}
        for model in ("resnet18", "bert"):
            onnx = os.path.join(work_dir, model, "model.onnx")
            dump = os.path.join(work_dir, model, "tasks")
            tasks = list_tasks(args.tb_tune, onnx, dump, [])
            for kind, (key, summary, weight, _) in choose(tasks, dump, args.per_kind):
                task_file = os.path.join(dump, f"{key}.mlir")
                rdb = os.path.join(work_dir, model, f"{key}-random.db")
                mdb = os.path.join(work_dir, model, f"{key}-model.db")
                for db in (rdb, mdb):
                    if os.path.exists(db):
                        os.remove(db)
                r, r_speed = tune(args.tb_tune, task_file, rdb, args.random_trials, args.seed,
                                  args.threads, True)
                m, m_speed = tune(args.tb_tune, task_file, mdb, args.model_trials, args.seed,
                                  args.threads, False)
                for search, speed in (("random", r_speed), ("model", m_speed)):
                    print(f"    {search}: {speed}", file=sys.stderr, flush=True)
                dbs[model] += [rdb, mdb]
                random_dbs[model].append(rdb)
                ok_r = [l for l in r if l is not None]
                ok_m = [l for l in m if l is not None]
                best_r = min(ok_r)
                goal = best_r / 0.95
                rows.append((model, kind, summary, weight, r[0], best_r, min(ok_m) if ok_m else None,
                             trials_to(m, goal), len(m), trials_to(r, goal), len(r),
                             len(r) - len(ok_r), len(m) - len(ok_m)))
                print(f"[{time.time() - start:6.0f} s] {model} {summary}: random best "
                      f"{best_r * 1e3:.4f} ms, model best {min(ok_m) * 1e3 if ok_m else float('nan'):.4f} ms",
                      file=sys.stderr, flush=True)
        fmt = lambda t, n: str(t) if t is not None else f">{n}"
        ms = lambda x: f"{x * 1e3:.4f}" if x is not None else "-"
        print(f"Trials to reach 95% of the best latency of {args.random_trials} random trials "
              f"(ResNet-18 at {args.image_size}x{args.image_size}, encoder at sequence {args.seq_len}, "
              f"{args.threads} thread(s)):\n")
        print("| model | kind | task | weight | heuristic ms | best random ms | best model ms "
              "| model-guided | random | failed (random / model) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for (model, kind, summary, weight, heur, best_r, best_m, t_m, n_m, t_r, n_r, f_r, f_m) in rows:
            print(f"| {model} | {kind} | {summary} | {weight} | {ms(heur)} | {ms(best_r)} | {ms(best_m)} "
                  f"| {fmt(t_m, n_m)} | {fmt(t_r, n_r)} | {f_r} / {f_m} |")
        reached = [t[7] for t in rows if t[7] is not None]
        reached_r = [t[9] for t in rows if t[9] is not None]
        print(f"\nmodel-guided: reached the goal in {len(reached)} of {len(rows)} tasks, median "
              f"{statistics.median(reached) if reached else '-'} trials; random: median "
              f"{statistics.median(reached_r) if reached_r else '-'} trials "
              f"(over the tasks each reached it in)")
        print("\nHeld-out ranking (TenSet top-k: best latency / fastest among the ranker's first k "
              "of the test task's random-search candidates):\n")
        print("| trained on | scored on | task | candidates | top-1 | top-5 |")
        print("|---|---|---|---|---|---|")
        medians = []
        for train, test in (("resnet18", "bert"), ("bert", "resnet18")):
            scores = score(args.tb_tune, dbs[train], random_dbs[test], args.threads)
            for summary, n, top1, top5 in scores:
                print(f"| {train} | {test} | {summary} | {n} | {top1:.3f} | {top5:.3f} |")
            medians += scores
        if medians:
            print(f"\nmedian over {len(medians)} held-out tasks: top-1 "
                  f"{statistics.median(s[2] for s in medians):.3f}, top-5 "
                  f"{statistics.median(s[3] for s in medians):.3f}")
        print(f"\nwall time {time.time() - start:.0f} s, load average at the end "
              f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
