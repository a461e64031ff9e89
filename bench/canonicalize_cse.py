#!/usr/bin/env python3
"""canonicalize + cse throughput: tb-opt against mlir-opt on one generated module.

The module uses ops both tools know (func and arith): functions of integer and float
arithmetic with repeated constants (uniqued by canonicalize), constant expressions
(folded), chains of additions and multiplications by constants (reassociated),
identities such as x - x and x * 1, repeated subexpressions (for CSE) and dead code.
The module has thousands of functions; the passes run as flags on the module, and nested
on every function (func.func(canonicalize,cse)) with and without --mlir-disable-threading.
Every run must produce the same IR, checked by printing each result through mlir-opt.
"""

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

INT_TYPES = ["i8", "i16", "i32", "i64", "index"]
FLOAT_TYPES = ["f32", "f64"]


def generate(min_ops, seed):
    rng = random.Random(seed)
    lines, ops, fn = [], 0, 0
    while ops < min_ops:
        ity, fty = rng.choice(INT_TYPES), rng.choice(FLOAT_TYPES)
        body = []
        ints, floats = ["%a", "%b"], ["%x"]
        n = 0

        def fresh():
            nonlocal n
            n += 1
            return f"%v{n}"

        for _ in range(rng.randint(20, 60)):
            kind = rng.random()
            if kind < 0.2:
                # A constant, often one the function already has: canonicalize uniques it.
                v = fresh()
                body.append(f"    {v} = arith.constant {rng.randint(0, 4)} : {ity}")
                ints.append(v)
            elif kind < 0.35:
                # x + c1 + c2 (or x * c1 * c2): reassociated into one op.
                op = rng.choice(["addi", "muli"])
                c1, c2, t, r = fresh(), fresh(), fresh(), fresh()
                x = rng.choice(ints)
                body.append(f"    {c1} = arith.constant {rng.randint(1, 9)} : {ity}")
                body.append(f"    {c2} = arith.constant {rng.randint(1, 9)} : {ity}")
                body.append(f"    {t} = arith.{op} {x}, {c1} : {ity}")
                body.append(f"    {r} = arith.{op} {t}, {c2} : {ity}")
                ints.append(r)
            elif kind < 0.5:
                # The same expression twice: CSE keeps one.
                op = rng.choice(["addi", "muli", "maxsi", "andi"])
                x, y = rng.choice(ints), rng.choice(ints)
                for _ in range(2):
                    v = fresh()
                    body.append(f"    {v} = arith.{op} {x}, {y} : {ity}")
                    ints.append(v)
            elif kind < 0.6:
                # x - x folds to 0.
                x, v = rng.choice(ints), fresh()
                body.append(f"    {v} = arith.subi {x}, {x} : {ity}")
                ints.append(v)
            elif kind < 0.75:
                # Float arithmetic, with a foldable constant expression.
                c1, c2, s, v = fresh(), fresh(), fresh(), fresh()
                body.append(f"    {c1} = arith.constant {rng.randint(1, 8)}.5 : {fty}")
                body.append(f"    {c2} = arith.constant {rng.randint(1, 8)}.25 : {fty}")
                body.append(f"    {s} = arith.mulf {c1}, {c2} : {fty}")
                body.append(f"    {v} = arith.addf {rng.choice(floats)}, {s} : {fty}")
                floats.append(v)
            else:
                # Dead code.
                v = fresh()
                body.append(f"    {v} = arith.muli {rng.choice(ints)}, {rng.choice(ints)} : {ity}")
        ops += len(body) + 2
        ri, rf = rng.choice(ints[2:] or ints), rng.choice(floats)
        body.append(f"    return {ri}, {rf} : {ity}, {fty}")
        lines.append(f"  func.func @f{fn}(%a: {ity}, %b: {ity}, %x: {fty}) -> ({ity}, {fty}) {{")
        lines.extend(body)
        lines.append("  }")
        fn += 1
    return "module {\n" + "\n".join(lines) + "\n}\n", ops


def split_functions(text):
    """Function bodies of a printed module, by name."""
    funcs, name, body = {}, None, []
    for line in text.splitlines():
        m = re.match(r"\s*func\.func @(\w+)", line)
        if m:
            name, body = m.group(1), [line]
        elif name is not None:
            body.append(line)
            if line.strip() == "}" and line.startswith("  }"):
                funcs[name] = body
                name = None
    return funcs


def normalize_constants(body):
    """Names constants by value and sorts the constant block, so bodies that differ
    only in constant order compare equal."""
    renames, consts, rest = {}, [], []
    for line in body[1:]:
        m = re.match(r"\s*(%[\w-]+) = arith\.constant (.*)$", line)
        if m and not rest:
            key = "%K" + re.sub(r"\W", "_", m.group(2))
            renames[m.group(1)] = key
            consts.append(f"{key} = arith.constant {m.group(2)}")
        else:
            rest.append(line)
    pattern = re.compile(r"%[\w-]+")
    rest = [pattern.sub(lambda t: renames.get(t.group(0), t.group(0)), line) for line in rest]
    return [body[0]] + sorted(consts) + rest


def compare_functions(a, b):
    fa, fb = split_functions(a), split_functions(b)
    if fa.keys() != fb.keys():
        sys.exit("benchmark error: tb-opt and mlir-opt produced different functions")
    exact = reordered = 0
    for name in fa:
        if fa[name] == fb[name]:
            exact += 1
        elif normalize_constants(fa[name]) == normalize_constants(fb[name]):
            reordered += 1
        else:
            diff = "\n".join(f"  tb-opt:   {x}\n  mlir-opt: {y}" for x, y in zip(fa[name], fb[name]) if x != y)
            sys.exit(f"benchmark error: @{name} differs between tb-opt and mlir-opt:\n{diff[:2000]}")
    return exact, reordered


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
    if not variants or any(v not in ("flags", "nested") for v in variants):
        sys.exit(f"benchmark error: unknown variant in --variants={args.variants}")
    text, ops = generate(args.ops, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(text)
        print(f"module: {ops} ops in {text.count('func.func')} functions, {len(text) / 2**20:.1f} MiB")
        cmds = {}
        for variant, flags in (("flags", FLAGS), ("nested", NESTED)):
            if variant in variants:
                cmds[f"mlir-opt {variant}"] = [args.mlir_opt, path, *flags]
                cmds[f"tb-opt {variant}"] = [args.tb_opt, path, *flags]
                if variant == "nested":
                    cmds["mlir-opt nested 1T"] = [args.mlir_opt, path, *flags, *NO_THREADS]
                    cmds["tb-opt nested 1T"] = [args.tb_opt, path, *flags, *NO_THREADS]
        # Same result: every output, printed by mlir-opt, must be identical to mlir-opt's
        # first one up to the order of the constants hoisted to the top of each function
        # (a known difference in rare cases, counted and reported), and tb-opt's outputs
        # must be byte-identical with and without threads.
        raw, printed = {}, {}
        for name, cmd in cmds.items():
            _, raw[name] = run(cmd + ["-o", "-"])
            out_path = os.path.join(tmp, f"out{len(raw)}.mlir")
            with open(out_path, "w") as f:
                f.write(raw[name])
            printed[name] = run([args.mlir_opt, out_path])[1]
        reference = next(iter(printed))
        for name, out in printed.items():
            if name.startswith("tb-opt"):
                exact, reordered = compare_functions(out, printed[reference])
                print(
                    f"results, {name}: {exact} functions identical to {reference}, "
                    f"{reordered} identical up to constant order"
                )
            elif out != printed[reference]:
                sys.exit(f"benchmark error: '{name}' and '{reference}' differ")
        if "nested" in variants and raw["tb-opt nested"] != raw["tb-opt nested 1T"]:
            sys.exit("benchmark error: tb-opt's output depends on threading")
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
