"""Timing one ONNX model file with tb-run and with onnxruntime, for the single-op benchmarks
(conv.py, qconv.py, qmatmul.py): the same protocol for both engines in one run."""

import re
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

BENCH_LINE = re.compile(r"bench: \d+ runs, median ([0-9.]+) ms")


def ort_session(model: Path, threads: int) -> ort.InferenceSession:
    """onnxruntime's CPU session of `model` on `threads` intra-op threads."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def tb_ms(tb_run, model: Path, inputs: Path, runs: int, threads: int, timeout: float):
    """The median of `tb-run model --bench runs`, or None and why it gave none."""
    cmd = [str(tb_run), str(model), "--input", str(inputs),
           "--bench", str(runs), "--threads", str(threads), "--print-limit", "0"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"tb-run took longer than {timeout:g} s"
    found = BENCH_LINE.search(done.stdout + done.stderr)
    if done.returncode != 0 or not found:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return None, f"tb-run exit {done.returncode}: {last[0]}"
    return float(found.group(1)), None


def ort_ms(model: Path, feeds: dict, runs: int, threads: int) -> float:
    """onnxruntime's median milliseconds per run over `runs` runs, after one warm-up run."""
    session = ort_session(model, threads)
    session.run(None, feeds)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def tb_result(tb_run, model: Path, inputs: Path, out: Path, timeout: float):
    """The first result of `tb-run model` (written under `out`), or None and why."""
    out.mkdir(exist_ok=True)
    cmd = [str(tb_run), str(model), "--input", str(inputs),
           "--output-dir", str(out), "--print-limit", "0"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    files = sorted(out.glob("*.npy"))
    if done.returncode != 0 or not files:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return None, f"tb-run exit {done.returncode}: {last[0]}"
    return np.load(files[0]), None
