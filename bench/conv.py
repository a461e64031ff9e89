"""Convolution layers as single-op ONNX models: TensorBind against onnxruntime, in one run.

The layers are the distinct convolutions of ResNet-18 (stem, 3x3 stages, strided 3x3 and
1x1 downsamples), the depthwise 3x3 layers of MobileNet-V2 (group = channels) and its 1x1
expansions and projections (`pointwise`, one per row width, and the 112x112 projection), and MobileNet-V2's stem
(`stems`), batch 1,
f32, seeded random weights stored in the model. For each layer and thread count it
prints the median milliseconds of `tb-run model.onnx --bench RUNS --threads T` (the
default CPU pipeline) and of onnxruntime (CPUExecutionProvider, intra_op_num_threads=T,
one warm-up run, then RUNS timed runs), and tb/ort (below 1: TensorBind is faster).
`--only TEXT` keeps the layers whose name contains TEXT; `--baseline PATH` also times
another `tb-run` binary (an older build) in the same run and prints new/base.
`--rounds R` measures every layer R times, one round after the other, and prints the
median of the R medians of each engine: on a shared machine, where another process can
take a core for a second, one round's figure moves by tens of percent and the median
over rounds does not.

Usage: .venv/bin/python bench/conv.py [--runs 5] [--rounds 1] [--threads 1,2]
       [--layers resnet,depthwise,pointwise,stems] [--only TEXT] [--baseline PATH]
"""

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from single_op import ort_ms, tb_ms

ROOT = Path(__file__).resolve().parent.parent

# name: (in channels, out channels, input size, kernel, stride, pad, group)
RESNET = {
    "r18.stem 7x7/2 3->64 @224": (3, 64, 224, 7, 2, 3, 1),
    "r18.l1 3x3 64->64 @56": (64, 64, 56, 3, 1, 1, 1),
    "r18.l2 3x3/2 64->128 @56": (64, 128, 56, 3, 2, 1, 1),
    "r18.l2 1x1/2 64->128 @56": (64, 128, 56, 1, 2, 0, 1),
    "r18.l2 3x3 128->128 @28": (128, 128, 28, 3, 1, 1, 1),
    "r18.l3 3x3 256->256 @14": (256, 256, 14, 3, 1, 1, 1),
    "r18.l4 3x3 512->512 @7": (512, 512, 7, 3, 1, 1, 1),
}
DEPTHWISE = {
    "mbv2 dw 32 @112": (32, 32, 112, 3, 1, 1, 32),
    "mbv2 dw/2 96 @112": (96, 96, 112, 3, 2, 1, 96),
    "mbv2 dw 144 @56": (144, 144, 56, 3, 1, 1, 144),
    "mbv2 dw 192 @28": (192, 192, 28, 3, 1, 1, 192),
    "mbv2 dw 384 @14": (384, 384, 14, 3, 1, 1, 384),
    "mbv2 dw 960 @7": (960, 960, 7, 3, 1, 1, 960),
}
POINTWISE = {
    "mbv2 pw 32->16 @112": (32, 16, 112, 1, 1, 0, 1),
    "mbv2 pw 16->96 @112": (16, 96, 112, 1, 1, 0, 1),
    "mbv2 pw 24->144 @56": (24, 144, 56, 1, 1, 0, 1),
    "mbv2 pw 144->24 @56": (144, 24, 56, 1, 1, 0, 1),
    "mbv2 pw 32->192 @28": (32, 192, 28, 1, 1, 0, 1),
    "mbv2 pw 96->576 @14": (96, 576, 14, 1, 1, 0, 1),
    "mbv2 pw 576->96 @14": (576, 96, 14, 1, 1, 0, 1),
    "mbv2 pw 160->960 @7": (160, 960, 7, 1, 1, 0, 1),
    "mbv2 pw 960->160 @7": (960, 160, 7, 1, 1, 0, 1),
    "mbv2 pw 320->1280 @7": (320, 1280, 7, 1, 1, 0, 1),
}
# Stems of other models (ResNet-18's is in RESNET): few input channels under a window.
STEMS = {
    "mbv2 stem 3x3/2 3->32 @224": (3, 32, 224, 3, 2, 1, 1),
}
GROUPS = {"resnet": RESNET, "depthwise": DEPTHWISE, "pointwise": POINTWISE, "stems": STEMS}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="timed runs per measurement (median)")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure every layer this many times and print medians over rounds")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--layers", default="resnet,depthwise,pointwise",
                   help="comma-separated groups: resnet, depthwise, pointwise, stems")
    p.add_argument("--tb-run", type=Path, default=ROOT / "target/release/tb-run")
    p.add_argument("--timeout", type=float, default=600, help="seconds per tb-run call")
    p.add_argument("--only", default="", help="keep the layers whose name contains this")
    p.add_argument("--baseline", type=Path, help="another tb-run binary to time in the same run")
    args = p.parse_args()
    if not args.tb_run.is_file():
        p.error(f"{args.tb_run} does not exist (cargo build --release -p tb-tools)")
    if args.runs < 1:
        p.error("--runs must be at least 1")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    args.threads = [int(t) for t in args.threads.split(",")]
    layers = {}
    for group in args.layers.split(","):
        if group not in GROUPS:
            p.error(f"unknown layer group {group!r} (resnet, depthwise, pointwise or stems)")
        layers.update(GROUPS[group])
    args.layers = {name: shape for name, shape in layers.items() if args.only in name}
    if args.baseline is not None and not args.baseline.is_file():
        p.error(f"{args.baseline} does not exist")
    return args


def make_model(directory, cin, cout, size, kernel, stride, pad, group):
    """Writes model.onnx (Conv with bias) and x.npy into `directory`."""
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((cout, cin // group, kernel, kernel), dtype=np.float32)
    weight *= np.float32(np.sqrt(2.0 / (cin // group * kernel * kernel)))
    bias = rng.standard_normal(cout, dtype=np.float32)
    out = (size + 2 * pad - kernel) // stride + 1
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[kernel, kernel],
                            strides=[stride, stride], pads=[pad] * 4, group=group)
    graph = helper.make_graph(
        [node], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, out, out])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, directory / "model.onnx")
    x = rng.standard_normal((1, cin, size, size), dtype=np.float32)
    np.save(directory / "x.npy", x)
    return x


def measure(args, directory, x, threads):
    """One round's medians of one layer: {engine: ms}, or the error that stopped tb-run."""
    times = {"ort": ort_ms(directory / "model.onnx", {"x": x}, args.runs, threads)}
    engines = [("tb", args.tb_run)] + ([("base", args.baseline)] if args.baseline else [])
    for engine, binary in engines:
        ms, error = tb_ms(binary, directory / "model.onnx", directory / "x.npy", args.runs,
                          threads, args.timeout)
        if error:
            return times, f"{'baseline: ' if engine == 'base' else ''}{error}"
        times[engine] = ms
    return times, None


def main():
    args = parse_args()
    rounds = f", median over {args.rounds} rounds" if args.rounds > 1 else ""
    print(f"runs: {args.runs} (medians, ms per call{rounds})")
    base = f" {'base ms':>10} {'new/base':>8}" if args.baseline else ""
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for name, shape in args.layers.items():
            directory = Path(tmp) / re.sub(r"[^A-Za-z0-9]+", "_", name)
            directory.mkdir()
            x = make_model(directory, *shape)
            cases += [(name, directory, x, threads) for threads in args.threads]
        samples = {case[0:1] + case[3:]: {} for case in cases}
        errors = {}
        for round_index in range(args.rounds):
            if args.rounds > 1:
                print(f"round {round_index + 1} of {args.rounds} ...", file=sys.stderr, flush=True)
            for name, directory, x, threads in cases:
                if (name, threads) in errors:
                    continue
                times, error = measure(args, directory, x, threads)
                if error:
                    errors[(name, threads)] = (times.get("ort"), error)
                for engine, ms in times.items():
                    samples[(name, threads)].setdefault(engine, []).append(ms)
        print(f"{'layer':<28} {'thr':>3} {'tb ms':>10} {'ort ms':>10} {'tb/ort':>8}{base}")
        for (name, threads), times in samples.items():
            median = {engine: statistics.median(ms) for engine, ms in times.items()}
            if (name, threads) in errors:
                failed = True
                ort_time, error = errors[(name, threads)]
                print(f"{name:<28} {threads:>3} {'-':>10} {ort_time:>10.3f} {'-':>8}  {error}")
                continue
            row = ""
            if args.baseline:
                row = f" {median['base']:>10.3f} {median['tb'] / median['base']:>8.2f}"
            print(f"{name:<28} {threads:>3} {median['tb']:>10.3f} {median['ort']:>10.3f} "
                  f"{median['tb'] / median['ort']:>8.2f}{row}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
