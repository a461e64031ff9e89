#!/usr/bin/env python3
"""Parse + verify + print throughput: tb-opt against mlir-opt on one large generated module.

Generates a module of at least --ops operations (generic-form unregistered ops with operands,
single and multi-result ops, integer/float/string/array/dense/affine-map/type attributes,
nested regions with several blocks and block arguments, successors and locations), checks
that both tools accept it, then times `TOOL --allow-unregistered-dialect FILE -o /dev/null`
for both tools, in the custom and the generic (--mlir-print-op-generic) print forms, with the
runs interleaved. Prints medians, min/max, peak RSS and the tb-opt/mlir-opt ratio.

Standard library only. See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------------------------
# Module generator
# ----------------------------------------------------------------------------------------------

SCALAR_TYPES = ["i1", "i8", "i32", "i64", "index", "f16", "bf16", "f32", "f64"]
AGGREGATE_TYPES = [
    "tensor<4xi32>",
    "tensor<?x128xf32>",
    "tensor<2x3x4xf16>",
    "tensor<*xf32>",
    "memref<16x16xf32>",
    "memref<?xi8, strided<[1], offset: ?>>",
    "memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>",
    "vector<8xf32>",
    "vector<[4]xi32>",
    "complex<f32>",
    "tuple<i32, f32>",
    "!bench.handle",
    "!bench.buffer<\"hbm\", 4>",
    "none",
    "(i32, f32) -> i1",
]
TYPES = SCALAR_TYPES * 4 + AGGREGATE_TYPES

ARITH = ["add", "sub", "mul", "div", "max", "min", "and", "xor", "cmp", "select", "fma"]
FILES = ["model.py", "layers/attention.py", "layers/mlp.py", "ops/conv.py", "train.py"]


@dataclass
class Gen:
    """Writes ops, tracking which named values are visible where, so every use dominates."""

    rng: random.Random
    out: list = field(default_factory=list)
    ops: int = 0
    next_value: int = 0
    next_func: int = 0

    def fresh(self) -> str:
        self.next_value += 1
        return f"%v{self.next_value}"

    # -- attributes -------------------------------------------------------------------------

    def int_attr(self) -> str:
        r = self.rng
        return r.choice([f"{r.randint(-1000, 100000)} : i64", f"{r.randint(-128, 127)} : i8", f"{r.randint(0, 1 << 31)} : i32", f"{r.randint(0, 64)} : index", "true", "false", str(r.randint(0, 9))])

    def float_attr(self) -> str:
        r = self.rng
        return r.choice([f"{r.uniform(-100, 100):.6f} : f32", f"{r.uniform(0, 1):.12e} : f64", "1.500000e+00 : f16", "0x7FC00000 : f32", f"{r.randint(-9, 9)}.0 : bf16", "-0.0 : f64"])

    def string_attr(self) -> str:
        r = self.rng
        words = ["conv", "relu", "weight", "bias", "layer", "norm", "q\\\"k\\\"v", "tab\\09", "newline\\0A", "utf8 \u00e9\u00e8", "grad"]
        return '"' + "_".join(r.choice(words) for _ in range(r.randint(1, 4))) + '"'

    def dense_attr(self) -> str:
        r = self.rng
        n = r.choice([2, 4, 8, 16])
        kind = r.randrange(5)
        if kind == 0:
            return f"dense<[{', '.join(str(r.randint(-50, 50)) for _ in range(n))}]> : tensor<{n}xi32>"
        if kind == 1:
            return f"dense<{r.uniform(-1, 1):.6f}> : tensor<{n}x{n}xf32>"
        if kind == 2:
            rows = ", ".join("[" + ", ".join(f"{r.uniform(-2, 2):.4f}" for _ in range(4)) + "]" for _ in range(2))
            return f"dense<[{rows}]> : tensor<2x4xf32>"
        if kind == 3:
            return f"dense<\"0x{''.join(r.choice('0123456789ABCDEF') for _ in range(8 * n))}\"> : tensor<{n}xi32>"
        return f"array<i64: {', '.join(str(r.randint(0, 512)) for _ in range(n))}>"

    def affine_attr(self) -> str:
        return self.rng.choice(
            [
                "affine_map<(d0, d1) -> (d0, d1)>",
                "affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2)>",
                "affine_map<(d0) -> (d0 floordiv 4, d0 mod 4)>",
                "affine_map<(d0, d1, d2) -> (d2, d0, d1)>",
                "affine_map<()[s0, s1] -> (s0 * 16 + s1)>",
                "affine_map<(d0)[s0] -> (-d0 + s0 - 1, d0 ceildiv 8)>",
                "affine_set<(d0, d1) : (d0 - 10 >= 0, d1 == 0)>",
            ]
        )

    def attr_value(self, depth: int = 0) -> str:
        r = self.rng
        k = r.randrange(12)
        if k < 3:
            return self.int_attr()
        if k == 3:
            return self.float_attr()
        if k == 4:
            return self.string_attr()
        if k == 5:
            return self.dense_attr()
        if k == 6:
            return self.affine_attr()
        if k == 7:
            return r.choice(TYPES)
        if k == 8 and depth < 2:
            return "[" + ", ".join(self.attr_value(depth + 1) for _ in range(r.randint(0, 4))) + "]"
        if k == 9 and depth < 2:
            entries = sorted({f"k{r.randint(0, 9)}": self.attr_value(depth + 1) for _ in range(r.randint(1, 3))}.items())
            return "{" + ", ".join(f"{key} = {v}" for key, v in entries) + "}"
        if k == 10:
            return r.choice(["unit", f"@f{r.randint(0, 1000)}", f"@mod::@f{r.randint(0, 99)}", '#bench.tag<"x", 3>', "#bench.layout"])
        return self.int_attr()

    def attr_dict(self) -> str:
        r = self.rng
        roll = r.random()
        if roll < 0.45:
            return ""
        n = 1 if roll < 0.8 else r.randint(2, 5)
        names = sorted({r.choice(["value", "axis", "name", "map", "kind", "shape", "scale", "flags", "layout", "tile", "perm"]) for _ in range(n)})
        return " {" + ", ".join(f"{name} = {self.attr_value()}" for name in names) + "}"

    def location(self) -> str:
        r = self.rng
        f, line, col = r.choice(FILES), r.randint(1, 5000), r.randint(1, 120)
        k = r.random()
        if k < 0.6:
            return f' loc("{f}":{line}:{col})'
        if k < 0.75:
            return f' loc("{r.choice(ARITH)}_{r.randint(0, 99)}"("{f}":{line}:{col}))'
        if k < 0.85:
            return f' loc(callsite("{f}":{line}:{col} at "{r.choice(FILES)}":{r.randint(1, 900)}:{r.randint(1, 80)}))'
        if k < 0.95:
            return f' loc(fused["{f}":{line}:{col}, "{r.choice(FILES)}":{r.randint(1, 900)}:{r.randint(1, 80)}])'
        return " loc(unknown)"

    # -- operations -------------------------------------------------------------------------

    def emit(self, indent: int, text: str) -> None:
        self.out.append("  " * indent + text + "\n")

    def pick(self, scope: list, n: int) -> list:
        return [self.rng.choice(scope) for _ in range(n)] if scope else []

    def plain_op(self, indent: int, scope: list) -> None:
        r = self.rng
        operands = self.pick(scope, r.choice([0, 1, 2, 2, 2, 3]))
        roll = r.random()
        n_results = 0 if roll < 0.12 else (1 if roll < 0.9 else r.randint(2, 4))
        result_types = [r.choice(TYPES) for _ in range(n_results)]
        name = f'"{r.choice(["bench", "nn", "hlo", "dfg"])}.{r.choice(ARITH)}"'
        operand_list = ", ".join(v for v, _ in operands)
        operand_types = ", ".join(t for _, t in operands)
        results_sig = result_types[0] if n_results == 1 and not result_types[0].startswith("(") else f"({', '.join(result_types)})"
        prefix = ""
        if n_results == 1:
            v = self.fresh()
            prefix = f"{v} = "
            scope.append((v, result_types[0]))
        elif n_results > 1:
            v = self.fresh()
            prefix = f"{v}:{n_results} = "
            scope.extend((f"{v}#{i}", t) for i, t in enumerate(result_types))
        props = f" <{{{r.choice(['overflow', 'fastmath'])} = {self.int_attr()}}}>" if r.random() < 0.05 else ""
        self.emit(indent, f"{prefix}{name}({operand_list}){props}{self.attr_dict()} : ({operand_types}) -> {results_sig}{self.location()}")
        self.ops += 1

    def terminator(self, indent: int, scope: list, successors: list) -> None:
        """Ends a block: a return, or a branch to one or two of `successors`."""
        r = self.rng
        if not successors:
            operands = self.pick(scope, r.randint(0, 2))
            self.emit(indent, f'"bench.return"({", ".join(v for v, _ in operands)}) : ({", ".join(t for _, t in operands)}) -> (){self.location()}')
        else:
            targets = successors[: r.randint(1, min(2, len(successors)))]
            operands = self.pick(scope, r.randint(0, 3))
            name = "bench.br" if len(targets) == 1 else "bench.cond_br"
            self.emit(indent, f'"{name}"({", ".join(v for v, _ in operands)})[{", ".join(targets)}]{self.attr_dict()} : ({", ".join(t for _, t in operands)}) -> (){self.location()}')
        self.ops += 1

    def region(self, indent: int, outer: list, budget: int, depth: int) -> None:
        """A region of 1-4 blocks holding about `budget` ops; uses only dominating values."""
        r = self.rng
        n_blocks = 1 if budget < 8 or r.random() < 0.4 else r.randint(2, 4)
        labels = [f"^bb{i}" for i in range(n_blocks)]
        per_block = max(1, budget // n_blocks)
        entry_values: list = []
        for b, label in enumerate(labels):
            args = [(self.fresh(), r.choice(TYPES)) for _ in range(r.randint(0 if b else 1, 3))]
            arg_text = ", ".join(f"{v}: {t}{self.location() if r.random() < 0.2 else ''}" for v, t in args)
            self.emit(indent - 1, f"{label}({arg_text}):" if args else f"{label}:")
            # The entry block dominates every other block, so its values are visible there.
            scope = list(outer) + (entry_values if b else []) + args
            self.block_body(indent, scope, per_block, depth)
            self.terminator(indent, scope, labels[b + 1 :])
            if b == 0:
                entry_values = scope[len(outer) :]

    def block_body(self, indent: int, scope: list, budget: int, depth: int) -> None:
        r = self.rng
        emitted = 0
        while emitted < budget:
            if depth < 3 and budget - emitted > 6 and r.random() < 0.06:
                inner = min(budget - emitted - 1, r.randint(3, 25))
                before = self.ops
                self.region_op(indent, scope, inner, depth + 1)
                emitted += self.ops - before
            else:
                self.plain_op(indent, scope)
                emitted += 1

    def region_op(self, indent: int, scope: list, budget: int, depth: int) -> None:
        r = self.rng
        operands = self.pick(scope, r.randint(0, 2))
        n_results = r.randint(0, 2)
        result_types = [r.choice(SCALAR_TYPES) for _ in range(n_results)]
        n_regions = 1 if r.random() < 0.8 else 2
        name = r.choice(["dfg.for", "bench.loop", "bench.if", "nn.parallel"])
        prefix = ""
        if n_results:
            v = self.fresh()
            prefix = f"{v}:{n_results} = " if n_results > 1 else f"{v} = "
        self.emit(indent, f'{prefix}"{name}"({", ".join(v for v, _ in operands)}) ({{')
        self.ops += 1
        for i in range(n_regions):
            if i:
                self.emit(indent, "}, {")
            self.region(indent + 1, scope, max(1, (budget - 1) // n_regions), depth)
        results_sig = result_types[0] if n_results == 1 else f"({', '.join(result_types)})"
        self.emit(indent, f'}}){self.attr_dict()} : ({", ".join(t for _, t in operands)}) -> {results_sig}{self.location()}')
        if n_results == 1:
            scope.append((v, result_types[0]))
        elif n_results > 1:
            scope.extend((f"{v}#{i}", t) for i, t in enumerate(result_types))

    def function(self, budget: int) -> None:
        name = f"f{self.next_func}"
        self.next_func += 1
        self.emit(1, f'"bench.func"() ({{')
        self.ops += 1
        self.region(2, [], budget - 1, 0)
        self.emit(1, f'}}) {{sym_name = "{name}", function_type = (i32, f32) -> i32, visibility = "private"}} : () -> (){self.location()}')


def generate(min_ops: int, seed: int) -> tuple[str, int]:
    """Returns the module text and its number of operations (the module itself not counted)."""
    g = Gen(random.Random(seed))
    g.out.append("// Generated by bench/ir_roundtrip.py; valid for mlir-opt --allow-unregistered-dialect.\n")
    g.out.append("module {\n")
    while g.ops < min_ops:
        g.function(g.rng.randint(40, 200))
    g.out.append("}\n")
    return "".join(g.out), g.ops


# ----------------------------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------------------------


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mib: float


def run_once(cmd: list[str]) -> tuple[int, Sample, str]:
    """Runs `cmd`, returning its exit status, wall/CPU time, peak RSS and stderr."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return proc.returncode, Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024), stderr


def tool_cmd(tool: str, file: Path, generic: bool, extra: list[str]) -> list[str]:
    cmd = [tool, "--allow-unregistered-dialect", str(file), "-o", os.devnull]
    if generic:
        cmd.append("--mlir-print-op-generic")
    return cmd + extra


def fmt(x: float) -> str:
    return f"{x * 1000:9.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=200_000, help="minimum number of operations in the module (default 200000)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per tool and print form (default 5)")
    ap.add_argument("--tb-opt", default=str(REPO / "target" / "release" / "tb-opt"), help="tb-opt binary (default target/release/tb-opt)")
    ap.add_argument("--mlir-opt", default="mlir-opt-22", help="mlir-opt binary (default mlir-opt-22)")
    ap.add_argument("--keep", metavar="FILE", help="also write the generated module to FILE")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    ap.add_argument("--mlir-disable-threading", action="store_true", help="pass --mlir-disable-threading to mlir-opt (tb-opt parses and prints on one thread; only pass pipelines use threads)")
    args = ap.parse_args()
    if args.runs < 1 or args.ops < 1:
        ap.error("--ops and --runs must be positive")

    tools = {}
    for label, path in (("tb-opt", args.tb_opt), ("mlir-opt", args.mlir_opt)):
        found = shutil.which(path)
        if not found:
            print(f"benchmark error: {label} not found at '{path}' (build it with `cargo build --release -p tb-tools --bin tb-opt`, or pass --{label} PATH)", file=sys.stderr)
            return 2
        tools[label] = found
    mlir_extra = ["--mlir-disable-threading"] if args.mlir_disable_threading else []

    t0 = time.perf_counter()
    text, n_ops = generate(args.ops, args.seed)
    gen_time = time.perf_counter() - t0

    with tempfile.TemporaryDirectory(prefix="tb-bench-") as tmp:
        file = Path(tmp) / "roundtrip.mlir"
        file.write_text(text)
        if args.keep:
            Path(args.keep).write_text(text)
        size = file.stat().st_size
        print(f"module: {n_ops} ops, {text.count(chr(10))} lines, {size / 2**20:.1f} MiB (generated in {gen_time:.1f} s, seed {args.seed}){'; kept in ' + args.keep if args.keep else ''}")
        print(f"tb-opt:   {tools['tb-opt']}")
        print(f"mlir-opt: {tools['mlir-opt']} {' '.join(mlir_extra)}")

        configs = [("custom", False), ("generic", True)]
        # Both tools must accept the file in both forms; this run also warms the page cache.
        for label, tool in tools.items():
            for form, generic in configs:
                cmd = tool_cmd(tool, file, generic, mlir_extra if label == "mlir-opt" else [])
                rc, _, stderr = run_once(cmd)
                if rc != 0:
                    print(f"benchmark error: {label} rejects the generated module ({form} print, exit status {rc}):\n  {' '.join(cmd)}\n{stderr[:4000]}", file=sys.stderr)
                    if args.keep is None:
                        print("(pass --keep FILE to keep the module for inspection)", file=sys.stderr)
                    return 1

        samples: dict = {(label, form): [] for label in tools for form, _ in configs}
        for i in range(args.runs):
            for form, generic in configs:
                order = list(tools.items()) if i % 2 == 0 else list(reversed(tools.items()))
                for label, tool in order:
                    cmd = tool_cmd(tool, file, generic, mlir_extra if label == "mlir-opt" else [])
                    rc, sample, stderr = run_once(cmd)
                    if rc != 0:
                        print(f"benchmark error: {label} failed on run {i + 1} (exit status {rc}): {' '.join(cmd)}\n{stderr[:4000]}", file=sys.stderr)
                        return 1
                    samples[(label, form)].append(sample)
            print(f"  run {i + 1}/{args.runs} done", file=sys.stderr)

    print()
    print(f"{args.runs} interleaved runs each; times in ms (wall clock); CPU = user+sys median; RSS = peak resident memory")
    header = f"{'print form':<10} {'tool':<9} {'median':>9} {'min':>9} {'max':>9} {'CPU':>9} {'RSS MiB':>8} {'Mops/s':>7}"
    print(header)
    print("-" * len(header))
    ratios = {}
    for form, _ in configs:
        for label in tools:
            s = samples[(label, form)]
            walls = [x.wall for x in s]
            med = statistics.median(walls)
            print(
                f"{form:<10} {label:<9} {fmt(med)} {fmt(min(walls))} {fmt(max(walls))} {fmt(statistics.median(x.cpu for x in s))} "
                f"{max(x.rss_mib for x in s):8.0f} {n_ops / med / 1e6:7.2f}"
            )
        tb = statistics.median(x.wall for x in samples[("tb-opt", form)])
        ml = statistics.median(x.wall for x in samples[("mlir-opt", form)])
        ratios[form] = tb / ml
    print()
    for form, ratio in ratios.items():
        verdict = "faster" if ratio < 1 else "slower"
        print(f"ratio tb-opt/mlir-opt ({form} print, median wall): {ratio:.2f}  (tb-opt {abs(1 - ratio) * 100:.0f}% {verdict}; lower is better for tb-opt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
