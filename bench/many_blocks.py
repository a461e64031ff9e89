#!/usr/bin/env python3
"""Parse + verify + print of one region with very many blocks: tb-opt against mlir-opt.

Generates a `func.func` whose body is a chain of --blocks blocks. Every block takes a block
argument, uses a value of the entry block (so dominance has to be checked across the whole
chain), and branches forward: to the next block, or conditionally to the next block and to
one a few hundred blocks ahead (successors that are forward references at parse time);
with --plain, blocks hold only a branch to the next one. Then
times `TOOL --allow-unregistered-dialect FILE -o /dev/null` for both tools, runs interleaved,
and prints the medians and the tb-opt/mlir-opt ratio. Time that grows faster than the number
of blocks (block lists, block lookups, predecessors, dominance, forward references, block
names in the printer) shows up as a ratio growing with --blocks.

Standard library only. See bench/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def generate_plain(blocks: int) -> str:
    """A chain of blocks that only branch to the next one: no values, no dominance queries."""
    lines = ['"bench.func"() ({', '  "bench.br"()[^bb1] : () -> ()']
    for i in range(1, blocks + 1):
        lines.append(f"^bb{i}:")
        if i == blocks:
            lines.append('  "bench.return"() : () -> ()')
        else:
            lines.append(f'  "bench.br"()[^bb{i + 1}] : () -> ()')
    lines.append("}) : () -> ()")
    return "\n".join(lines) + "\n"


def generate(blocks: int, jump: int) -> str:
    """The module text: one function with `blocks` blocks after its entry block."""
    lines = [
        "func.func @many_blocks(%seed: i32) -> i32 {",
        '  %c = "bench.const"() : () -> i32',
        '  "bench.br"(%seed)[^bb1] : (i32) -> ()',
    ]
    for i in range(1, blocks + 1):
        lines.append(f"^bb{i}(%a{i}: i32):")
        lines.append(f'  %v{i} = "bench.add"(%a{i}, %c) : (i32, i32) -> i32')
        if i == blocks:
            lines.append(f"  return %v{i} : i32")
        elif i % 7 == 0 and i + jump <= blocks:
            lines.append(
                f'  "bench.cond_br"(%v{i}, %v{i})[^bb{i + 1}, ^bb{i + jump}] '
                ": (i32, i32) -> ()"
            )
        else:
            lines.append(f'  "bench.br"(%v{i})[^bb{i + 1}] : (i32) -> ()')
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_once(tool: str, path: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [tool, "--allow-unregistered-dialect", str(path), "-o", "/dev/null"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{tool} failed on {path}:\n{result.stderr[:2000]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=100_000, help="blocks after the entry")
    parser.add_argument("--jump", type=int, default=300, help="distance of the far branches")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per tool")
    parser.add_argument(
        "--plain", action="store_true", help="blocks that only branch: no values or uses"
    )
    parser.add_argument("--tb-opt", default=str(REPO / "target" / "release" / "tb-opt"))
    parser.add_argument("--mlir-opt", default=shutil.which("mlir-opt-22") or "mlir-opt")
    parser.add_argument("--keep", type=Path, help="also write the generated module here")
    parser.add_argument(
        "--max-ratio",
        type=float,
        help="exit with status 1 if the tb-opt/mlir-opt ratio of medians exceeds this",
    )
    args = parser.parse_args()

    text = generate_plain(args.blocks) if args.plain else generate(args.blocks, args.jump)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "many_blocks.mlir"
        path.write_text(text)
        if args.keep:
            args.keep.write_text(text)
        times: dict[str, list[float]] = {"tb-opt": [], "mlir-opt": []}
        tools = [("tb-opt", args.tb_opt), ("mlir-opt", args.mlir_opt)]
        for run in range(args.runs):
            # Alternate which tool goes first so neither always runs on a warm cache.
            for name, tool in tools if run % 2 == 0 else tools[::-1]:
                times[name].append(run_once(tool, path))

    medians = {name: statistics.median(t) for name, t in times.items()}
    print(f"{args.blocks} blocks, {len(text) / 1e6:.1f} MB, {args.runs} runs per tool")
    for name, t in times.items():
        print(
            f"  {name:9} median {medians[name]:7.3f} s"
            f"  (min {min(t):.3f}, max {max(t):.3f})"
        )
    ratio = medians["tb-opt"] / medians["mlir-opt"]
    print(f"  ratio tb-opt/mlir-opt: {ratio:.2f}")
    if args.max_ratio is not None and ratio > args.max_ratio:
        sys.exit(f"ratio {ratio:.2f} exceeds --max-ratio {args.max_ratio}")


if __name__ == "__main__":
    main()
