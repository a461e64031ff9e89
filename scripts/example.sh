#!/usr/bin/env bash
# Quick start 1: installs what is missing, builds TensorBind and runs the bundled example,
# a small CNN in ONNX (examples/cnn.onnx, made by examples/make_cnn.py): tb-run imports it,
# lowers it graph -> te -> loop, compiles it for this CPU, runs it on examples/cnn-input.npy,
# checks the result against the reference interpreter and times 100 runs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! command -v cargo >/dev/null && [[ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]]; then
    export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi

bash scripts/setup.sh
cargo build --release

run() {
    printf '\n$ %s\n' "$*"
    "$@"
}
run target/release/tb-run examples/cnn.onnx --input examples/cnn-input.npy --check --bench 100
