#!/usr/bin/env python3
"""canonicalize + cse throughput: tb-opt against mlir-opt on one generated module.

The module uses only ops both tools know (func.func, func.return and
builtin.unrealized_conversion_cast): chains of casts with duplicates (for CSE), casts
that undo each other (folded by canonicalize) and dead casts. Both tools must produce
the same IR, which is checked by printing both results through mlir-opt's generic form.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tb-opt", default="target/release/tb-opt")
    ap.add_argument("--mlir-opt", default="mlir-opt-22")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    text, ops = generate(args.ops, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(text)
        print(f"module: {ops} ops, {len(text) / 2**20:.1f} MiB")
        tb = [args.tb_opt, path, "--canonicalize", "--cse", "-o", "-"]
        ml = [args.mlir_opt, path, "--canonicalize", "--cse", "-o", "-"]
        # Same result: both outputs printed by mlir-opt in generic form must be identical.
        outs = []
        for cmd in (tb, ml):
            _, out = run(cmd)
            out_path = os.path.join(tmp, f"out{len(outs)}.mlir")
            with open(out_path, "w") as f:
                f.write(out)
            outs.append(run([args.mlir_opt, "--mlir-print-op-generic", out_path])[1])
        if outs[0] != outs[1]:
            sys.exit("benchmark error: tb-opt and mlir-opt produced different IR")
        print("results: identical after canonicalize + cse")
        times = {"tb-opt": [], "mlir-opt": []}
        for i in range(args.runs):
            order = [("tb-opt", tb), ("mlir-opt", ml)]
            if i % 2:
                order.reverse()
            for name, cmd in order:
                times[name].append(run(cmd[:-2] + ["-o", os.devnull])[0] * 1000)
        print(f"\n{args.runs} interleaved runs each, wall time in ms")
        print(f"{'tool':10} {'median':>9} {'min':>9} {'max':>9}")
        for name, ts in times.items():
            print(f"{name:10} {statistics.median(ts):9.1f} {min(ts):9.1f} {max(ts):9.1f}")
        ratio = statistics.median(times["tb-opt"]) / statistics.median(times["mlir-opt"])
        print(f"\nratio tb-opt/mlir-opt (median wall): {ratio:.2f}  (lower is better for tb-opt)")


if __name__ == "__main__":
    main()
