"""Quantized matmuls as single-op ONNX models: TensorBind against onnxruntime, in one run.

BERT-base's projection shapes (128 tokens by 768 -> 768, and 768 -> 3072), batch 1, as
MatMulInteger (uint8 activations with a zero point, int8 weights stored in the model, int32
result) and QLinearMatMul (the same operands with scales, uint8 result); seeded random
data. Each result is first compared with the exact one (integers in int64, the
requantization in float64): TensorBind's MatMulInteger must match it exactly and its
QLinearMatMul within one step (a value at .5 rounded the other way); onnxruntime's
difference is printed beside it (its uint8 x int8 kernel without VNNI sums pairs of
products in saturating 16-bit arithmetic). For each model and thread count it prints
the median milliseconds of
`tb-run model.onnx --bench RUNS --threads T` (the default CPU pipeline, where the integer
micro-kernel runs) and of onnxruntime (CPUExecutionProvider, intra_op_num_threads=T, one
warm-up run, then RUNS timed runs), and tb/ort (below 1: TensorBind is faster).

Usage: .venv/bin/python bench/qmatmul.py [--runs 5] [--threads 1,2] [--only TEXT]
"""

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from single_op import ort_ms, ort_session, tb_ms, tb_result

ROOT = Path(__file__).resolve().parent.parent

# name: (op, M, K, N)
MODELS = {
    "MatMulInteger 128x768x768": ("MatMulInteger", 128, 768, 768),
    "QLinearMatMul 128x768x768": ("QLinearMatMul", 128, 768, 768),
    "MatMulInteger 128x768x3072": ("MatMulInteger", 128, 768, 3072),
}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="timed runs per measurement (median)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--only", default="", help="keep the models whose name contains this")
    p.add_argument("--tb-run", type=Path, default=ROOT / "target/release/tb-run")
    p.add_argument("--timeout", type=float, default=600, help="seconds per tb-run call")
    args = p.parse_args()
    if not args.tb_run.is_file():
        p.error(f"{args.tb_run} does not exist (cargo build --release -p tb-tools)")
    if args.runs < 1:
        p.error("--runs must be at least 1")
    args.threads = [int(t) for t in args.threads.split(",")]
    args.models = {name: spec for name, spec in MODELS.items() if args.only in name}
    return args


A_ZERO, Y_ZERO = 131, 128
A_SCALE, W_SCALE, Y_SCALE = 0.02, 0.004, 0.9


def make_model(directory, op, m, k, n):
    """Writes model.onnx and a.npy (the uint8 activations) into `directory`; gives the
    activations and the weights."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    weight = rng.integers(-128, 128, (k, n), dtype=np.int8)
    a_zero = numpy_helper.from_array(np.array(A_ZERO, dtype=np.uint8), "a_zero")
    w = numpy_helper.from_array(weight, "w")
    w_zero = numpy_helper.from_array(np.array(0, dtype=np.int8), "w_zero")
    inputs = [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k])]
    if op == "MatMulInteger":
        node = helper.make_node(op, ["a", "w", "a_zero", "w_zero"], ["y"])
        initializers = [w, a_zero, w_zero]
        out_type = TensorProto.INT32
    else:
        scale = lambda v, name: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
        y_zero = numpy_helper.from_array(np.array(Y_ZERO, dtype=np.uint8), "y_zero")
        node = helper.make_node(
            op, ["a", "a_scale", "a_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero"], ["y"])
        initializers = [w, a_zero, w_zero, y_zero, scale(A_SCALE, "a_scale"),
                        scale(W_SCALE, "w_scale"), scale(Y_SCALE, "y_scale")]
        out_type = TensorProto.UINT8
    graph = helper.make_graph([node], "qmatmul", inputs,
                              [helper.make_tensor_value_info("y", out_type, [m, n])],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, directory / "model.onnx")
    np.save(directory / "a.npy", a)
    return a, weight


def exact(op, a, weight):
    """The exact result: integers in int64, the requantization in float64."""
    product = (a.astype(np.int64) - A_ZERO) @ weight.astype(np.int64)
    if op == "MatMulInteger":
        return product
    scaled = np.rint(product * (np.float64(np.float32(A_SCALE)) * np.float64(np.float32(W_SCALE))
                                / np.float64(np.float32(Y_SCALE))))
    return np.clip(scaled + Y_ZERO, 0, 255).astype(np.int64)


def check(args, directory, op, a, weight):
    """TensorBind's and onnxruntime's largest differences from the exact result, or why
    TensorBind gave none."""
    expected = exact(op, a, weight)
    ort_result = ort_session(directory / "model.onnx", 1).run(None, {"a": a})[0]
    got, error = tb_result(args.tb_run, directory / "model.onnx", directory / "a.npy",
                           directory / "tb_out", args.timeout)
    if error:
        return None, error
    if got.shape != expected.shape:
        return None, f"result shape {got.shape}, expected {expected.shape}"
    worst = lambda r: int(np.max(np.abs(r.astype(np.int64) - expected)))
    return (worst(got), worst(ort_result)), None


def main():
    args = parse_args()
    print(f"runs: {args.runs} (medians, ms per call)")
    print(f"{'model':<28} {'thr':>3} {'tb ms':>10} {'ort ms':>10} {'tb/ort':>8}")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, (op, m, k, n) in args.models.items():
            directory = Path(tmp) / re.sub(r"[^A-Za-z0-9]+", "_", name)
            directory.mkdir()
            a, weight = make_model(directory, op, m, k, n)
            errors, error = check(args, directory, op, a, weight)
            # MatMulInteger is exact; QLinearMatMul may round a value at .5 the other way.
            if error or errors[0] > (0 if op == "MatMulInteger" else 1):
                failed = True
                print(f"{name:<28}   -  {error or f'differs from the exact result by {errors[0]}'}")
                continue
            print(f"{name:<28}      largest difference from the exact result: "
                  f"tb {errors[0]}, ort {errors[1]}")
            for threads in args.threads:
                ort_time = ort_ms(directory / "model.onnx", {"a": a}, args.runs, threads)
                tb_time, error = tb_ms(args.tb_run, directory / "model.onnx", directory / "a.npy",
                                       args.runs, threads, args.timeout)
                if error:
                    failed = True
                    print(f"{name:<28} {threads:>3} {'-':>10} {ort_time:>10.3f} {'-':>8}  {error}")
                    continue
                print(f"{name:<28} {threads:>3} {tb_time:>10.3f} {ort_time:>10.3f} "
                      f"{tb_time / ort_time:>8.2f}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
