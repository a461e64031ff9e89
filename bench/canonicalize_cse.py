#!/usr/bin/env python3
"""canonicalize + cse throughput: tb-opt against mlir-opt on one generated module.

The module uses only ops both tools know (func.func, func.return and
builtin.unrealized_conversion_cast): thousands of functions of 20-60 ops, with chains of
casts with duplicates (for CSE), casts that undo each other (folded by canonicalize) and
dead casts. The passes run as flags on the module, and nested on every function
(func.func(canonicalize,cse)), with and without --mlir-disable-threading. Every run must
produce the same IR, which is checked by printing each result through mlir-opt's generic
form.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

TYPES = ["i8", "i16", "i32", "i64", "f16", "f32", "f64", "index"]


def generate(min_ops, seed):
    rng = random.Random(seed)
    lines, ops, fn = [], 0, 0
    while ops < min_ops:
        arg_ty = rng.choice(TYPES)
        body, live = [], [("%arg0", arg_ty)]
        for i in range(rng.randint(20, 60)):
            src, src_ty = rng.choice(live)
            kind = rng.random()
            if kind < 0.35 and len(live) > 1:
                # A duplicate of an earlier cast: CSE merges it.
                dst_ty = rng.choice(TYPES)
                body.append(f'    %d{i} = "builtin.unrealized_conversion_cast"({src}) : ({src_ty}) -> {dst_ty}')
                body.append(f'    %e{i} = "builtin.unrealized_conversion_cast"({src}) : ({src_ty}) -> {dst_ty}')
                live += [(f"%d{i}", dst_ty), (f"%e{i}", dst_ty)]
                ops += 2
            elif kind < 0.7:
                # A round trip: canonicalize folds it back to the source.
                mid = rng.choice(TYPES)
                body.append(f'    %m{i} = "builtin.unrealized_conversion_cast"({src}) : ({src_ty}) -> {mid}')
                body.append(f'    %r{i} = "builtin.unrealized_conversion_cast"(%m{i}) : ({mid}) -> {src_ty}')
                live.append((f"%r{i}", src_ty))
                ops += 2
            else:
                dst_ty = rng.choice(TYPES)
                body.append(f'    %c{i} = "builtin.unrealized_conversion_cast"({src}) : ({src_ty}) -> {dst_ty}')
                live.append((f"%c{i}", dst_ty))
                ops += 1
        results = rng.sample(live, min(3, len(live)))
        names = ", ".join(v for v, _ in results)
        types = ", ".join(t for _, t in results)
        body.append(f'    "func.return"({names}) : ({types}) -> ()')
        ops += 2
        lines.append(f'  "func.func"() <{{function_type = ({arg_ty}) -> ({types}), sym_name = "f{fn}"}}> ({{')
        lines.append(f"  ^bb0(%arg0: {arg_ty}):")
        lines.extend(body)
        lines.append("  }) : () -> ()")
        fn += 1
    return "module {\n" + "\n".join(lines) + "\n}\n", ops


def run(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"benchmark error: {' '.join(cmd)} failed:\n{done.stderr[:2000]}")
    return elapsed, done.stdout


# What is timed: the passes named as flags run on the module (one op, so on one thread);
# the nested pipeline runs on every function, on several threads unless threading is off.
FLAGS = ["--canonicalize", "--cse"]
NESTED = ["--pass-pipeline=builtin.module(func.func(canonicalize,cse))"]
NO_THREADS = ["--mlir-disable-threading"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tb-opt", default="target/release/tb-opt")
    ap.add_argument("--mlir-opt", default="mlir-opt-22")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--variants",
        default="flags,nested",
        help="comma-separated: flags (--canonicalize --cse on the module), nested "
        "(func.func(canonicalize,cse), with and without --mlir-disable-threading)",
    )
    args = ap.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    if any(v not in ("flags", "nested") for v in variants):
        sys.exit(f"benchmark error: unknown variant in --variants={args.variants}")
    text, ops = generate(args.ops, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(text)
        print(f"module: {ops} ops in {text.count('func.func')} functions, {len(text) / 2**20:.1f} MiB")
        cmds = {}
        if "flags" in variants:
            cmds["tb-opt flags"] = [args.tb_opt, path, *FLAGS]
            cmds["mlir-opt flags"] = [args.mlir_opt, path, *FLAGS]
        if "nested" in variants:
            cmds["tb-opt nested"] = [args.tb_opt, path, *NESTED]
            cmds["tb-opt nested 1T"] = [args.tb_opt, path, *NESTED, *NO_THREADS]
            cmds["mlir-opt nested"] = [args.mlir_opt, path, *NESTED]
            cmds["mlir-opt nested 1T"] = [args.mlir_opt, path, *NESTED, *NO_THREADS]
        # Same result: every output printed by mlir-opt in generic form must be identical,
        # and tb-opt's own outputs byte-identical with and without threads.
        raw, generic = {}, {}
        for name, cmd in cmds.items():
            _, raw[name] = run(cmd + ["-o", "-"])
            out_path = os.path.join(tmp, f"out{len(raw)}.mlir")
            with open(out_path, "w") as f:
                f.write(raw[name])
            generic[name] = run([args.mlir_opt, "--mlir-print-op-generic", out_path])[1]
        first = next(iter(generic.values()))
        for name, out in generic.items():
            if out != first:
                sys.exit(f"benchmark error: '{name}' produced different IR")
        if "nested" in variants and raw["tb-opt nested"] != raw["tb-opt nested 1T"]:
            sys.exit("benchmark error: tb-opt's output depends on threading")
        print(f"results: identical across {', '.join(cmds)}")
        times = {name: [] for name in cmds}
        order = list(cmds.items())
        for i in range(args.runs):
            for name, cmd in order if i % 2 == 0 else reversed(order):
                times[name].append(run(cmd + ["-o", os.devnull])[0] * 1000)
        print(f"\n{args.runs} interleaved runs each, wall time in ms ({os.cpu_count()} CPUs; 1T: --mlir-disable-threading)")
        print(f"{'tool':20} {'median':>9} {'min':>9} {'max':>9}")
        for name, ts in times.items():
            print(f"{name:20} {statistics.median(ts):9.1f} {min(ts):9.1f} {max(ts):9.1f}")
        med = {name: statistics.median(ts) for name, ts in times.items()}
        print()
        for variant in ("flags", "nested"):
            if variant in variants:
                ratio = med[f"tb-opt {variant}"] / med[f"mlir-opt {variant}"]
                print(f"ratio tb-opt/mlir-opt, {variant} (median wall): {ratio:.2f}  (lower is better for tb-opt)")
        if "nested" in variants:
            print(f"tb-opt speed-up from threads, nested: {med['tb-opt nested 1T'] / med['tb-opt nested']:.2f}x")


if __name__ == "__main__":
    main()
