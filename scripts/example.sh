#!/usr/bin/env bash
# Build TensorBind and run it on the bundled example, a two-layer perceptron in the graph
# dialect (examples/mlp.mlir): tb-opt parses, verifies and prints it, checking that the printed
# text parses and prints back identically; tb-translate reports the LLVM it links and the
# code-generation targets available. (The graph and func dialects are not registered in tb-opt
# yet, hence --allow-unregistered-dialect, exactly as mlir-opt needs it for this file.)
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
run target/release/tb-opt --allow-unregistered-dialect --verify-roundtrip examples/mlp.mlir
run target/release/tb-translate --version
