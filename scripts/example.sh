#!/usr/bin/env bash
# Quick start 1: installs what is missing, builds TensorBind and runs the bundled example,
# a small CNN in ONNX (examples/cnn.onnx, made by examples/make_cnn.py): tb-run imports it,
# lowers it graph -> te -> loop, compiles it for this CPU, runs it on examples/cnn-input.npy,
# checks the result against the reference interpreter and times 100 runs. Then it deploys the
# same model: one tb-translate command makes a shared library (with its header, manifest and
# thread pool), a C program calls it, and tb-run checks the program's result; then the
# Python API compiles and runs the model from Python; last, an OCR pipeline of three trained
# PaddleOCR models reads the text of a rendered image.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! command -v cargo >/dev/null && [[ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]]; then
    export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi

bash scripts/setup.sh
cargo build --release
bash scripts/python_module.sh

run() {
    printf '\n$ %s\n' "$*"
    "$@"
}
run target/release/tb-run examples/cnn.onnx --input examples/cnn-input.npy --check --bench 100

# Deployment: ONNX -> shared library -> C program (the README's recipe).
DEPLOY="$ROOT/build/deploy"
mkdir -p "$DEPLOY"
run target/release/tb-translate examples/cnn.onnx --emit=shared-lib --threads=0 -o "$DEPLOY/libcnn.so"
run "${CC:-cc}" -O2 -I"$DEPLOY" examples/deploy/cnn_main.c -L"$DEPLOY" -lcnn -Wl,-rpath,"$DEPLOY" -o "$DEPLOY/cnn_main"
run "$DEPLOY/cnn_main" "$DEPLOY/image.npy" "$DEPLOY/probabilities.npy"
run target/release/tb-run examples/cnn.onnx --input image="$DEPLOY/image.npy" --expected probabilities="$DEPLOY/probabilities.npy" --print-limit 0
run .venv/bin/python -c 'import numpy, tensorbind
module = tensorbind.compile("examples/cnn.onnx", threads=2)
print(module)
print(module.run(numpy.load("examples/cnn-input.npy"))[0])'

# A real pipeline: PaddleOCR's detector, orientation classifier and recognizer, compiled by
# TensorBind, read back the text they are shown (examples/ocr/ocr.py).
run .venv/bin/python examples/ocr/ocr.py
