"""Times TensorBind's native path against onnxruntime on real-architecture models.

Builds ResNet-18, MobileNet-V2 and a BERT-style encoder (models/make_models.py), or takes the
trained models of models/real_models.py (PP-OCR, YOLOv8n, Silero VAD: `--models ppocr_det,...`
or `--models real`), runs each
through `tb-run MODEL.onnx --input ... --bench N --threads T` and through onnxruntime in the
same process run (one warm-up, then N timed runs, intra_op_num_threads=T), and prints one
table. A model tb-run cannot run gets its error line and the others go on; the exit status
is non-zero only when onnxruntime itself fails (or a --check comparison fails).

    .venv/bin/python scripts/bench_models.py [--runs N] [--threads T] [--rounds R]
        [--models resnet18,mobilenetv2,bert|real|ppocr_det,...] [--out-dir DIR] [--check]

With --rounds R, each model is timed R times, tb-run then onnxruntime each time, and the
table gives the median of the rounds' medians and the median of the rounds' ratios, with
each round's ratio listed under it: on a shared host, a burst of load then spoils one
round of both engines rather than one engine's whole measurement.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "models"))

# Found through the path set just above; make_models exits with a clear message when
# numpy, onnx or onnxruntime is missing.
import make_models  # noqa: E402
import real_models  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import ort_runner  # noqa: E402

# The two lines `tb-run --bench N` prints; nothing else of its output is relied upon.
BENCH_LINE = re.compile(
    r"^bench: (?P<runs>\d+) runs, median (?P<median>[\d.]+) ms, min (?P<min>[\d.]+) ms, max (?P<max>[\d.]+) ms$",
    re.MULTILINE,
)
MEMORY_LINE = re.compile(
    r"^peak memory: (?P<peak>[\d.]+) MiB \(weights .*\)$",
    re.MULTILINE,
)
# The compile line of `tb-run --timing` (on stderr): wall clock and the process's CPU time.
COMPILE_LINE = re.compile(r"^  compile +(?P<wall>[\d.]+) ms(?:  cpu +(?P<cpu>[\d.]+) ms)?$", re.MULTILINE)
CHECK_TOLERANCE = 1e-4  # max |tb - ort| / max |ort|, as onnx/tests/large_models.rs uses


@dataclass
class Timing:
    median: float
    min: float
    max: float


@dataclass
class Result:
    model: str
    tb: Optional[Timing] = None
    tb_peak_mib: Optional[float] = None
    tb_compile: Optional[tuple] = None  # (wall s, CPU s) of LLVM compilation in tb-run
    tb_error: Optional[str] = None
    ort: Optional[Timing] = None
    ort_error: Optional[str] = None
    check_error: Optional[float] = None  # max |tb - ort| / max |ort| over the outputs
    check_problem: Optional[str] = None
    ratios: Optional[list] = None  # tb/ort of each round, with --rounds above 1


def model_names(text):
    """The synthetic models of make_models.py and the trained ones of real_models.py."""
    names = []
    for name in (n.strip() for n in text.split(",") if n.strip()):
        names += list(real_models.MODELS) if name == "real" else [name]
    unknown = [n for n in names if n not in make_models.MODELS and n not in real_models.MODELS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown model(s) {', '.join(unknown) or '(none given)'}; choose from "
            f"{', '.join(make_models.MODELS)}, {', '.join(real_models.MODELS)} or real")
    return names


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=10, help="timed runs per model and engine (default 10)")
    p.add_argument("--rounds", type=int, default=1,
                   help="time each model this many times, alternating the engines, and report medians over the rounds (default 1)")
    p.add_argument("--threads", type=int, default=1, help="threads for both engines; 0: all cores (default 1)")
    p.add_argument("--models", type=model_names, default=list(make_models.DEFAULT_MODELS),
                   help="comma-separated subset of " + ",".join(make_models.MODELS) + ", or of "
                   + ",".join(real_models.MODELS) + " ('real': all of the latter)")
    p.add_argument("--out-dir", type=Path, help="where to build the models (default: a temporary directory)")
    p.add_argument("--check", action="store_true",
                   help="also run tb-run with --output-dir and compare its outputs with onnxruntime's")
    p.add_argument("--tb-run", type=Path, default=ROOT / "target/release/tb-run", help="the tb-run binary")
    p.add_argument("--timeout", type=float, default=600, help="seconds one tb-run call may take (default 600)")
    args = p.parse_args()
    if args.runs < 1:
        p.error("--runs must be at least 1")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    if args.threads < 0:
        p.error("--threads must be 0 (all cores) or more")
    return args


def error_line(stderr, stdout):
    """The line that says what went wrong: the first mentioning an error, else the first."""
    lines = [l.strip() for l in (stderr + "\n" + stdout).splitlines() if l.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else "no output"


def input_files(model_dir):
    """input_0.npy, input_1.npy, ...: the model's inputs in graph order."""
    return sorted(model_dir.glob("input_*.npy"), key=lambda p: int(p.stem.split("_")[1]))


def call_tb_run(args, model_dir, extra):
    """Runs tb-run on the model with its inputs; returns (stdout and stderr, None) or (None, error)."""
    if not args.tb_run.exists():
        return None, f"{args.tb_run} not found; build it with `cargo build --release`"
    command = [str(args.tb_run), str(model_dir / "model.onnx")]
    for path in input_files(model_dir):
        command += ["--input", str(path)]
    # `args.extra`: options every call adds (bench/tune_e2e.py's `--db`).
    command += ["--threads", str(args.threads)] + getattr(args, "extra", []) + extra
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, f"tb-run took longer than {args.timeout:g} s"
    if done.returncode != 0:
        return None, f"tb-run exit {done.returncode}: {error_line(done.stderr, done.stdout)}"
    return done.stdout + done.stderr, None


def bench_tb(args, model_dir, result):
    stdout, error = call_tb_run(args, model_dir, ["--bench", str(args.runs), "--timing"])
    if error:
        result.tb_error = error
        return
    bench, memory = BENCH_LINE.search(stdout), MEMORY_LINE.search(stdout)
    if not bench or not memory:
        missing = "'bench:' line" if not bench else "'peak memory:' line"
        result.tb_error = f"tb-run succeeded but printed no {missing}"
        return
    result.tb = Timing(float(bench["median"]), float(bench["min"]), float(bench["max"]))
    result.tb_peak_mib = float(memory["peak"])
    compile_line = COMPILE_LINE.search(stdout)
    if compile_line:
        cpu = compile_line["cpu"]  # an older tb-run reports the wall clock only
        result.tb_compile = (float(compile_line["wall"]) / 1e3, float(cpu) / 1e3 if cpu else None)


def bench_ort(args, model_dir, inputs, result):
    """Times onnxruntime; returns its outputs (for --check), or None if it failed."""
    try:
        session = ort_runner.session(model_dir / "model.onnx", args.threads)
        outputs = ort_runner.run(session, inputs)  # warm-up: allocations, first-run caches
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            ort_runner.run(session, inputs)
            times.append((time.perf_counter() - start) * 1e3)
    except Exception as e:  # onnxruntime reports every failure as some exception
        result.ort_error = f"{type(e).__name__}: {str(e).strip().splitlines()[0]}"
        return None
    result.ort = Timing(statistics.median(times), min(times), max(times))
    return outputs


def bench_rounds(args, model_dir, inputs, result):
    """Times both engines `args.rounds` times, alternating; keeps the medians of the rounds'
    medians, the extreme minimum and maximum, and each round's ratio. Returns onnxruntime's
    outputs, or None if it failed."""
    tb_rounds, ort_rounds, outputs = [], [], None
    for round_ in range(args.rounds):
        suffix = f" (round {round_ + 1} of {args.rounds})" if args.rounds > 1 else ""
        print(f"{result.model}: tb-run ...{suffix}", flush=True)
        result.tb = None
        bench_tb(args, model_dir, result)
        print(f"{result.model}: onnxruntime ...{suffix}", flush=True)
        result.ort = None
        outputs = bench_ort(args, model_dir, inputs, result)
        if result.tb_error or result.ort_error:
            break
        tb_rounds.append(result.tb)
        ort_rounds.append(result.ort)
    if len(tb_rounds) > 1:
        def merged(timings):
            return Timing(statistics.median(t.median for t in timings),
                          min(t.min for t in timings), max(t.max for t in timings))
        result.ratios = [t.median / o.median for t, o in zip(tb_rounds, ort_rounds)]
        result.tb, result.ort = merged(tb_rounds), merged(ort_rounds)
    return outputs


def check_tb(args, model_dir, expected, result):
    out_dir = model_dir / "tb-output"
    _, error = call_tb_run(args, model_dir, ["--output-dir", str(out_dir)])
    if error:
        result.check_problem = error
        return
    worst = 0.0
    names = [o.name for o in onnx.load(str(model_dir / "model.onnx"), load_external_data=False).graph.output]
    for i, reference in enumerate(expected):
        # tb-run saves a result under its ONNX name (other characters than letters, digits,
        # '-', '_' and '.' become '_'), else as output_<i>.npy.
        name = re.sub(r"[^\w.-]", "_", names[i]) if i < len(names) and names[i] else f"output_{i}"
        path = out_dir / f"{name}.npy"
        if not path.exists():
            result.check_problem = f"tb-run wrote no {path.name}"
            return
        actual = np.load(path)
        if actual.shape != reference.shape:
            result.check_problem = f"{path.name} has shape {actual.shape}, onnxruntime's {reference.shape}"
            return
        diff = np.abs(actual.astype(np.float64) - reference).max()
        worst = max(worst, diff / max(np.abs(reference).max(), np.finfo(np.float32).tiny))
    result.check_error = worst


def fmt_ms(t):
    return ("-",) * 3 if t is None else (f"{t.median:.2f}", f"{t.min:.2f}", f"{t.max:.2f}")


def print_table(args, results):
    header = ["model", "tb median", "tb min", "tb max", "ort median", "ort min", "ort max", "tb/ort", "tb peak MiB", "tb compile s", "compile cpu s"]
    if args.check:
        header.append("max rel err")
    rows = []
    for r in results:
        if r.ratios:
            ratio = f"{statistics.median(r.ratios):.2f}"
        else:
            ratio = f"{r.tb.median / r.ort.median:.2f}" if r.tb and r.ort else "-"
        peak = f"{r.tb_peak_mib:.1f}" if r.tb_peak_mib is not None else "-"
        compile_times = [f"{t:.2f}" if t is not None else "-" for t in r.tb_compile or (None, None)]
        row = [r.model, *fmt_ms(r.tb), *fmt_ms(r.ort), ratio, peak, *compile_times]
        if args.check:
            row.append(f"{r.check_error:.2e}" if r.check_error is not None else "-")
        rows.append(row)
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]

    def line(cells):  # the model name left-aligned, numbers right-aligned
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    rounds = f", median over {args.rounds} rounds" if args.rounds > 1 else ""
    print(f"\ntimes in ms over {args.runs} runs{rounds}, {args.threads or 'all'} thread(s)")
    print(line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))
    for r in results:
        if r.ratios:
            print(f"{r.model}: tb/ort per round: {', '.join(f'{x:.2f}' for x in r.ratios)}")
    for r in results:
        for label, message in (("tb-run", r.tb_error), ("onnxruntime", r.ort_error), ("check", r.check_problem)):
            if message:
                print(f"{r.model}: {label}: {message}")


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="tb-bench-models-") as scratch:
        out_dir = args.out_dir or Path(scratch)
        synthetic = [n for n in args.models if n in make_models.MODELS]
        trained = [n for n in args.models if n in real_models.MODELS]
        if synthetic:
            make_models.main([str(out_dir), "--models", ",".join(synthetic)])
        if trained:
            real_models.main([str(out_dir), "--models", ",".join(trained)])
        results = []
        for name in args.models:
            model_dir = out_dir / name
            result = Result(name)
            inputs = [np.load(p) for p in input_files(model_dir)]
            outputs = bench_rounds(args, model_dir, inputs, result)
            if args.check and outputs is not None:
                check_tb(args, model_dir, outputs, result)
            results.append(result)
    print_table(args, results)
    ort_failed = any(r.ort_error for r in results)
    check_failed = any(r.check_error is not None and r.check_error > CHECK_TOLERANCE for r in results)
    if check_failed:
        print(f"check: some output differs from onnxruntime's by more than {CHECK_TOLERANCE:g} (relative)")
    return 1 if ort_failed or check_failed else 0


if __name__ == "__main__":
    sys.exit(main())
