#!/usr/bin/env bash
# Makes the Python API importable from .venv with the compiler just built: installs the
# native module that the cargo build produced (target/release/lib_native.so, the pyo3
# extension of python/native) as python/tensorbind/_native.abi3.so, and a path file that puts
# python/ on .venv's path (the package follows the sources; nothing is copied into .venv).
#
# It takes the module from the build that ran last, instead of building it on its own:
# building the one crate would resolve the workspace's dependency features differently and
# recompile every TensorBind crate a second time. scripts/example.sh and scripts/test.sh run
# it after their cargo build. A wheel for another environment comes from maturin
# (`cd python && maturin build --release`, see python/pyproject.toml).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
built="$ROOT/target/release/lib_native.so"

die() {
    echo "[python] error: $*" >&2
    exit 1
}

[[ -x "$VENV/bin/python" ]] || die "no .venv: run scripts/setup.sh first"
[[ -f "$built" ]] || die "$built is missing: build the workspace first (cargo build --release)"
install -m 755 "$built" "$ROOT/python/tensorbind/_native.abi3.so"
site_packages="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
echo "$ROOT/python" >"$site_packages/tensorbind-checkout.pth"
"$VENV/bin/python" -c 'import tensorbind' || die "tensorbind is not importable from .venv"
echo "[python] tensorbind from $ROOT/python (native module from $built)"
