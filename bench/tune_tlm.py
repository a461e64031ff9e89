#!/usr/bin/env python3
"""TLM-style generated search against the tree-guided evolutionary search and random search.

Builds ResNet-18 and the BERT-style encoder (`models/make_models.py`, seeded weights), lists
their tasks (`tb-tune --list-tasks --dump-tasks`) and sorts those of the benchmark's kinds
(conv, GEMM, attention; see `tune_models.kind_of`) by weight x work. The heaviest task of
each kind and model is a test task; the next `--pretrain-per-kind` are pretraining tasks,
each measured with `--pretrain-trials` random trials into one database. With
`--pretrain-size IMAGE SEQ` the pretraining tasks are instead the heaviest
`--pretrain-per-kind` of each kind of the same two models built at another input size
(the same operators at other shapes). The test tasks are never in it (by task key): the
generator meets them for the first time.

Each test task module is then tuned on its own, each search into a fresh SQLite database,
one `tb-tune` at a time with `--cores 1`: `--random-trials` random trials (seed 1), and for
each seed `--trials` tree-guided trials (`--model tree`) and `--trials` TLM trials
(`--model tlm --pretrain pretrain.db`). The best-known latency of a task is the best any
of its runs measured; per run the table gives the trial (the heuristic's included) at
which it first came within 95% of it (best / 0.95; `>N`: not within its N trials).

Runs measure the same schedule at different moments of a busy machine, so a lucky
measurement in one run can set a best-known latency that no other run reaches although it
found the same schedule. The second table therefore reads each schedule's latency as the
median of every measurement of it in any run of the task (schedules are compared by their
description) before counting trials the same way. A schedule only one run measured keeps
its one measurement, a failed trial stays failed, and the heuristic's latency there is the
median over all runs.

    .venv/bin/python bench/tune_tlm.py [--random-trials 150] [--trials 48]
        [--pretrain-trials 60] [--pretrain-per-kind 2] [--pretrain-size 32 32]
        [--image-size 64] [--seq-len 64]
        [--seeds 1 2] [--tests-per-kind 1] [--threads 1] [--work DIR]
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tune_models import ROOT, curve, kind_of, list_tasks, trials_to, work  # noqa: E402

KINDS = ("gemm", "conv", "attention")


def split_tasks(tasks, dump, pretrain_per_kind, tests=1):
    """(the first `tests` tasks of each kind, the next `pretrain_per_kind`) of one model,
    heaviest first: [(kind, key, summary)] each."""
    by_kind = {k: [] for k in KINDS}
    for key, summary, weight, knobs in tasks:
        if knobs.startswith("none"):
            continue
        with open(os.path.join(dump, f"{key}.mlir")) as f:
            kind = kind_of(summary, f.read())
        if kind in by_kind:
            by_kind[kind].append((-weight * work(summary), key, summary))
    test, pretrain = [], []
    for kind, rows in by_kind.items():
        rows.sort()
        test += [(kind, key, summary) for _, key, summary in rows[:tests]]
        pretrain += [(kind, key, summary)
                     for _, key, summary in rows[tests:tests + pretrain_per_kind]]
    return test, pretrain


def schedules(db):
    """(description, latency or None for a failed trial) in trial order."""
    conn = sqlite3.connect(db)
    rows = [(d, l if s == "ok" else None) for d, s, l in
            conn.execute("SELECT description, status, latency_s FROM records ORDER BY id")]
    conn.close()
    return rows


def consensus_curves(dbs):
    """Each run's latencies in trial order, each schedule's latency read as the median of
    every measurement of it in any of the runs `dbs` (a dict key -> database)."""
    runs = {k: schedules(db) for k, db in dbs.items()}
    seen = {}
    for rows in runs.values():
        for d, l in rows:
            if l is not None:
                seen.setdefault(d, []).append(l)
    median = {d: statistics.median(ls) for d, ls in seen.items()}
    return {k: [median[d] if l is not None else None for d, l in rows]
            for k, rows in runs.items()}


def run(tb_tune, task_file, db, trials, seed, threads, extra):
    """The run's latencies in trial order and tb-tune's stderr lines worth keeping."""
    if os.path.exists(db):
        os.remove(db)
    cmd = [tb_tune, task_file, "--trials", str(trials), "--db", db, "--seed", str(seed),
           "--threads", str(threads), "--cores", "1"] + extra
    err = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True).stderr
    notes = [l for l in err.splitlines() if l.startswith(("measured ", "pretrained "))]
    return curve(db), notes


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--random-trials", type=int, default=150)
    p.add_argument("--trials", type=int, default=48, help="trials of each tree-guided and TLM run")
    p.add_argument("--pretrain-trials", type=int, default=60)
    p.add_argument("--pretrain-per-kind", type=int, default=2)
    p.add_argument("--pretrain-size", type=int, nargs=2, metavar=("IMAGE", "SEQ"),
                   help="pretrain on the models built at this image size and sequence length")
    p.add_argument("--image-size", type=int, default=64, help="ResNet-18 input size")
    p.add_argument("--seq-len", type=int, default=64, help="encoder sequence length")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    p.add_argument("--tests-per-kind", type=int, default=1,
                   help="test tasks of each kind and model (the heaviest first)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--tb-tune", default=os.path.join(ROOT, "target", "release", "tb-tune"))
    p.add_argument("--work", help="keep models, tasks and databases here (default: a temporary directory)")
    args = p.parse_args()
    start = time.time()
    log = lambda msg: print(f"[{time.time() - start:6.0f} s] {msg}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work_dir = args.work or tmp
        os.makedirs(work_dir, exist_ok=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "models", "make_models.py"), work_dir,
                        "--models", "resnet18,bert", "--image-size", str(args.image_size),
                        "--seq-len", str(args.seq_len)], check=True, stdout=subprocess.DEVNULL)
        tests, pretrain = [], []
        for model in ("resnet18", "bert"):
            onnx = os.path.join(work_dir, model, "model.onnx")
            dump = os.path.join(work_dir, model, "tasks")
            t, pt = split_tasks(list_tasks(args.tb_tune, onnx, dump, []), dump,
                                args.pretrain_per_kind, tests=args.tests_per_kind)
            tests += [(model, kind, key, summary, os.path.join(dump, f"{key}.mlir"))
                      for kind, key, summary in t]
            pretrain += [(model, kind, key, summary, os.path.join(dump, f"{key}.mlir"))
                         for kind, key, summary in pt]
        if args.pretrain_size:
            other = os.path.join(work_dir, "pretrain-models")
            image, seq = args.pretrain_size
            subprocess.run([sys.executable, os.path.join(ROOT, "models", "make_models.py"),
                            other, "--models", "resnet18,bert", "--image-size", str(image),
                            "--seq-len", str(seq)], check=True, stdout=subprocess.DEVNULL)
            pretrain = []
            for model in ("resnet18", "bert"):
                onnx = os.path.join(other, model, "model.onnx")
                dump = os.path.join(other, model, "tasks")
                _, pt = split_tasks(list_tasks(args.tb_tune, onnx, dump, []), dump,
                                    args.pretrain_per_kind, tests=0)
                pretrain += [(model, kind, key, summary, os.path.join(dump, f"{key}.mlir"))
                             for kind, key, summary in pt]
        test_keys = {t[2] for t in tests}
        pretrain = [t for t in pretrain if t[2] not in test_keys]
        pretrain_db = os.path.join(work_dir, "pretrain.db")
        if os.path.exists(pretrain_db):
            os.remove(pretrain_db)
        for model, kind, key, summary, path in pretrain:
            cmd = [args.tb_tune, path, "--random", "--trials", str(args.pretrain_trials),
                   "--db", pretrain_db, "--seed", "1", "--threads", str(args.threads),
                   "--cores", "1"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            log(f"pretraining records: {model} {kind} {summary}")
        rows = []
        for model, kind, key, summary, path in tests:
            base = os.path.join(work_dir, model, key)
            runs, dbs = {}, {}
            dbs[("random", 1)] = f"{base}-random.db"
            runs[("random", 1)], notes = run(args.tb_tune, path, dbs[("random", 1)],
                                             args.random_trials, 1, args.threads, ["--random"])
            for seed in args.seeds:
                dbs[("tree", seed)] = f"{base}-tree-{seed}.db"
                runs[("tree", seed)], n_tree = run(args.tb_tune, path, dbs[("tree", seed)],
                                                   args.trials, seed, args.threads,
                                                   ["--model", "tree"])
                dbs[("tlm", seed)] = f"{base}-tlm-{seed}.db"
                runs[("tlm", seed)], n_tlm = run(args.tb_tune, path, dbs[("tlm", seed)],
                                                 args.trials, seed, args.threads,
                                                 ["--model", "tlm", "--pretrain", pretrain_db])
                notes += n_tree + n_tlm
            for n in notes:
                log(f"    {n}")
            for measure, curves in (("measured", runs), ("consensus", consensus_curves(dbs))):
                ok = [l for c in curves.values() for l in c if l is not None]
                best = min(ok)
                reached = {k: trials_to(c, best / 0.95) for k, c in curves.items()}
                rows.append((measure, model, kind, summary, curves[("random", 1)][0], best,
                             reached, curves))
                log(f"{model} {kind} {summary} ({measure}): best known {best * 1e3:.4f} ms, "
                    + ", ".join(f"{k[0]}/{k[1]} {v}" for k, v in reached.items()))
        fmt = lambda t, n: str(t) if t is not None else f">{n}"
        seeds = args.seeds
        print(f"Trials to reach 95% of the best-known latency (ResNet-18 at {args.image_size}x"
              f"{args.image_size}, encoder at sequence {args.seq_len}, {args.threads} thread(s); "
              f"random {args.random_trials} trials, tree-guided and TLM {args.trials} per seed, "
              f"seeds {' '.join(map(str, seeds))}; the generator pretrained on {len(pretrain)} "
              f"other tasks x {args.pretrain_trials} random trials"
              + (f", from the models at {args.pretrain_size[0]}x{args.pretrain_size[0]} and "
                 f"sequence {args.pretrain_size[1]}" if args.pretrain_size else "")
              + "):\n")
        for measure in ("measured", "consensus"):
            print("Each run's own measurements:" if measure == "measured" else
                  "\nEach schedule's latency the median of its measurements in all runs of the task:")
            print("\n| model | kind | task | heuristic ms | best-known ms | random | "
                  + " | ".join(f"tree s{s}" for s in seeds) + " | "
                  + " | ".join(f"TLM s{s}" for s in seeds) + " |")
            print("|---" * (6 + 2 * len(seeds)) + "|")
            ratios = []
            for m, model, kind, summary, heur, best, reached, runs in rows:
                if m != measure:
                    continue
                cells = [fmt(reached[("random", 1)], len(runs[("random", 1)]))]
                cells += [fmt(reached[("tree", s)], len(runs[("tree", s)])) for s in seeds]
                cells += [fmt(reached[("tlm", s)], len(runs[("tlm", s)])) for s in seeds]
                heur_ms = f"{heur * 1e3:.4f}" if heur is not None else "-"
                print(f"| {model} | {kind} | {summary} | {heur_ms} | {best * 1e3:.4f} | "
                      + " | ".join(cells) + " |")
                for s in seeds:
                    # A run that missed the goal counts as its budget plus one.
                    tree = reached[("tree", s)] or len(runs[("tree", s)]) + 1
                    tlm = reached[("tlm", s)] or len(runs[("tlm", s)]) + 1
                    ratios.append(tree / tlm)
            print(f"\nmedian over {len(ratios)} task runs of (tree-guided trials / TLM trials): "
                  f"{statistics.median(ratios):.2f} (a missed goal counts as the budget plus one); "
                  f"geometric mean {statistics.geometric_mean(ratios):.2f}")
        print(f"\nwall time {time.time() - start:.0f} s, load average at the end "
              f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
