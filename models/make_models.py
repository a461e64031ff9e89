"""Builds real-architecture ONNX models with seeded random weights, and their reference
outputs from onnxruntime.

Usage: make_models.py OUT_DIR [--models resnet18,mobilenetv2,squeezenet,bert]
                      [--image-size 224] [--seq-len 128] [--seed 0] [--dynamic]

For each model NAME writes OUT_DIR/NAME/model.onnx, input_<i>.npy (seeded random inputs)
and expected_<i>.npy (onnxruntime's outputs, CPUExecutionProvider), and prints one line
per model: parameters, file size. --image-size and --seq-len shrink the inputs (the
weights stay the same size) so tests can run the models faster; --dynamic makes the batch
(and BERT's sequence) dimension symbolic, as exported models with dynamic axes have it,
so importing needs `--input-shape`.
"""

import argparse
import os
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime  # noqa: F401  (ort_runner's; checked here for one clear message)
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: Python package '{e.name}' is missing; "
             "run scripts/setup.sh and use .venv/bin/python")

import bert_encoder
import mobilenet_v2
import ort_runner
import resnet18
import squeezenet

MODELS = {
    "resnet18": lambda a: resnet18.build(a.image_size, a.seed, a.dynamic),
    "mobilenetv2": lambda a: mobilenet_v2.build(a.image_size, a.seed, a.dynamic),
    "squeezenet": lambda a: squeezenet.build(a.image_size, a.seed, a.dynamic),
    "bert": lambda a: bert_encoder.build(bert_encoder.Config(seq=a.seq_len), a.seed, a.dynamic),
}

# What a run without --models builds: the models the tests and benchmarks compare against
# onnxruntime. SqueezeNet is built on request (the cross-device data set's extra network).
DEFAULT_MODELS = ["resnet18", "mobilenetv2", "bert"]


def model_names(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown model(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(MODELS)}"
        )
    return names


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", help="directory to write OUT_DIR/<model>/ into")
    p.add_argument("--models", type=model_names, default=DEFAULT_MODELS,
                   help="comma-separated, of " + ",".join(MODELS) + " (default: " + ",".join(DEFAULT_MODELS) + ")")
    p.add_argument("--image-size", type=int, default=224, help="CNN input height and width (default 224)")
    p.add_argument("--seq-len", type=int, default=128, help="BERT sequence length (default 128)")
    p.add_argument("--seed", type=int, default=0, help="seed for weights and inputs")
    p.add_argument("--dynamic", action="store_true",
                   help="declare the batch (and BERT's sequence) dimension symbolic, as exporters' dynamic axes do")
    args = p.parse_args(argv)
    # Five stride-2 stages: below 32 pixels the last feature map would be empty.
    if args.image_size < 32:
        p.error("--image-size must be at least 32")
    if not 1 <= args.seq_len <= 512:
        p.error("--seq-len must be between 1 and 512 (the position table's rows)")
    return args


def write_model(args, name):
    """Builds, checks and writes one model with its input and expected output; returns
    (parameter count, model file size in bytes)."""
    model, parameters, inputs = MODELS[name](args)
    d = os.path.join(args.out_dir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    onnx.save(model, path)
    # Inputs get their own stream, so they do not depend on how many weights were drawn.
    rng = np.random.default_rng(args.seed + 1)
    values = [spec.random(rng) for spec in inputs]
    outputs = ort_runner.run(ort_runner.session(path), values)
    for i, v in enumerate(values):
        np.save(os.path.join(d, f"input_{i}.npy"), v)
    for i, v in enumerate(outputs):
        np.save(os.path.join(d, f"expected_{i}.npy"), v)
    return parameters, os.path.getsize(path)


def main(argv=None):
    args = parse_args(argv)
    for name in args.models:
        parameters, size = write_model(args, name)
        print(f"{name}: {parameters:,} parameters, model.onnx {size / 2**20:.1f} MiB")


if __name__ == "__main__":
    sys.exit(main())
