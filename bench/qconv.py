"""Quantized convolutions as single-op ONNX models: TensorBind against onnxruntime, in one run.

ResNet-like QLinearConv layers, batch 1: a 3x3 convolution (64 -> 64 channels on 56x56,
pads 1), a 1x1 convolution (256 -> 64 on 56x56) and a strided 3x3 one (128 -> 128 on
28x28, stride 2), with uint8 activations and output (zero points 131 and 128), int8
weights stored in the model with per-output-channel scales, and an int32 bias; plus the
3x3 as ConvInteger (int32 result). Seeded random data. Each result is first compared
with the exact one (the convolution in int64, the requantization as ONNX's reference:
multiplier in float32, scaled sum in float64, rounded half to even): TensorBind's must
match it exactly; onnxruntime's difference is printed beside it. For each model and
thread count it prints the median milliseconds of
`tb-run model.onnx --bench RUNS --threads T` (the default CPU pipeline, where the
convolution's products run in the integer micro-kernel) and of onnxruntime
(CPUExecutionProvider, intra_op_num_threads=T, one warm-up run, then RUNS timed runs),
and tb/ort (below 1: TensorBind is faster).

Usage: .venv/bin/python bench/qconv.py [--runs 5] [--threads 1,2] [--only TEXT]
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

# name: (op, C, M, H=W, kernel, stride)
MODELS = {
    "QLinearConv 3x3 64->64 56x56": ("QLinearConv", 64, 64, 56, 3, 1),
    "QLinearConv 1x1 256->64 56x56": ("QLinearConv", 256, 64, 56, 1, 1),
    "QLinearConv 3x3/2 128->128 28x28": ("QLinearConv", 128, 128, 28, 3, 2),
    "ConvInteger 3x3 64->64 56x56": ("ConvInteger", 64, 64, 56, 3, 1),
}
X_ZERO, Y_ZERO = 131, 128
X_SCALE, Y_SCALE = 0.02, 0.5


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


def make_model(directory, op, c, m, size, kernel, stride):
    """Writes model.onnx and x.npy (the uint8 activations) into `directory`; gives the
    exact result."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (1, c, size, size), dtype=np.uint8)
    w = rng.integers(-128, 128, (m, c, kernel, kernel), dtype=np.int8)
    pad = kernel // 2
    attrs = dict(kernel_shape=[kernel, kernel], strides=[stride, stride], pads=[pad] * 4)
    out = (size + 2 * pad - kernel) // stride + 1
    w_scale = rng.uniform(0.001, 0.004, (m,)).astype(np.float32)
    bias = rng.integers(-20000, 20000, (m,)).astype(np.int32)
    x_zero = numpy_helper.from_array(np.array(X_ZERO, dtype=np.uint8), "x_zero")
    w_zero = numpy_helper.from_array(np.array(0, dtype=np.int8), "w_zero")
    inputs = [helper.make_tensor_value_info("x", TensorProto.UINT8, list(x.shape))]
    initializers = [numpy_helper.from_array(w, "w"), x_zero, w_zero]
    if op == "ConvInteger":
        node = helper.make_node(op, ["x", "w", "x_zero", "w_zero"], ["y"], **attrs)
        out_type = TensorProto.INT32
    else:
        scale = lambda v, name: numpy_helper.from_array(np.asarray(v, dtype=np.float32), name)
        node = helper.make_node(op, ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero",
                                     "y_scale", "y_zero", "bias"], ["y"], **attrs)
        initializers += [scale(X_SCALE, "x_scale"), scale(w_scale, "w_scale"),
                         scale(Y_SCALE, "y_scale"), numpy_helper.from_array(bias, "bias"),
                         numpy_helper.from_array(np.array(Y_ZERO, dtype=np.uint8), "y_zero")]
        out_type = TensorProto.UINT8
    graph = helper.make_graph([node], "qconv", inputs,
                              [helper.make_tensor_value_info("y", out_type, [1, m, out, out])],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, directory / "model.onnx")
    np.save(directory / "x.npy", x)
    # The exact result: taps of the zero-point-padded input, in int64.
    xc = np.pad(x.astype(np.int64) - X_ZERO, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    total = np.zeros((1, m, out, out), dtype=np.int64)
    w64 = w.astype(np.int64)
    for i in range(kernel):
        for j in range(kernel):
            window = xc[:, :, i:i + (out - 1) * stride + 1:stride, j:j + (out - 1) * stride + 1:stride]
            total += np.einsum("mc,nchw->nmhw", w64[:, :, i, j], window)
    if op == "ConvInteger":
        return x, total
    multiplier = (np.float32(X_SCALE) * w_scale / np.float32(Y_SCALE)).astype(np.float64)
    scaled = np.rint((total + bias.reshape(m, 1, 1)) * multiplier.reshape(m, 1, 1)) + Y_ZERO
    return x, np.clip(scaled, 0, 255).astype(np.int64)


def check(args, directory, x, expected):
    """TensorBind's and onnxruntime's largest differences from the exact result, or why
    TensorBind gave none."""
    ort_result = ort_session(directory / "model.onnx", 1).run(None, {"x": x})[0]
    got, error = tb_result(args.tb_run, directory / "model.onnx", directory / "x.npy",
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
    print(f"{'model':<34} {'thr':>3} {'tb ms':>10} {'ort ms':>10} {'tb/ort':>8}")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in args.models.items():
            directory = Path(tmp) / re.sub(r"[^A-Za-z0-9]+", "_", name)
            directory.mkdir()
            x, expected = make_model(directory, *spec)
            errors, error = check(args, directory, x, expected)
            if error or errors[0] != 0:
                failed = True
                print(f"{name:<34}   -  {error or f'differs from the exact result by {errors[0]}'}")
                continue
            print(f"{name:<34}      largest difference from the exact result: "
                  f"tb {errors[0]}, ort {errors[1]}")
            for threads in args.threads:
                ort_time = ort_ms(directory / "model.onnx", {"x": x}, args.runs, threads)
                tb_time, error = tb_ms(args.tb_run, directory / "model.onnx", directory / "x.npy",
                                       args.runs, threads, args.timeout)
                if error:
                    failed = True
                    print(f"{name:<34} {threads:>3} {'-':>10} {ort_time:>10.3f} {'-':>8}  {error}")
                    continue
                print(f"{name:<34} {threads:>3} {tb_time:>10.3f} {ort_time:>10.3f} "
                      f"{tb_time / ort_time:>8.2f}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
