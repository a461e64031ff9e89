#!/usr/bin/env bash
# Prepare a Debian 12 machine to build and test TensorBind. Idempotent and non-interactive:
# installs only the Debian packages that are missing, checks the Rust toolchain, and creates
# (or refreshes) the project-local Python environment .venv from requirements-test.txt.
#
# Needs root (or sudo) only when a package is missing. Environment knobs:
#   TB_SKIP_APT=1   never call apt-get; just report missing packages and fail.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# LLVM/MLIR 22, statically linked into tb-backends and the tools (see .cargo/config.toml):
#   llvm-22-dev, libmlir-22-dev, libpolly-22-dev  static libraries and llvm-config (llvm-config
#                                  --link-static lists libPolly, so it must be present)
#   libclang-22-dev                libclang for bindgen (mlir-sys generates its bindings)
#   libzstd-dev libz3-dev libxml2-dev zlib1g-dev  system libraries llvm-config --system-libs names
#   mlir-22-tools                  mlir-opt-22, the reference for the text format (lit feature)
#   llvm-22-tools                  FileCheck, not, split-file for lit tests
#   postgresql                     tb-tune's PostgreSQL tests start throwaway clusters (initdb)
PACKAGES=(
    build-essential pkg-config ca-certificates
    python3 python3-venv
    llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libclang-22-dev libpolly-22-dev
    libzstd-dev libz3-dev libxml2-dev zlib1g-dev
    postgresql
)

# --- Debian packages -------------------------------------------------------------------
if ! command -v dpkg-query >/dev/null; then
    die "dpkg-query not found: this script supports Debian 12 (bookworm) only"
fi
if [[ -r /etc/os-release ]]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    if [[ "${ID:-}" != debian || "${VERSION_ID:-}" != 12 ]]; then
        say "warning: expected Debian 12, found ${PRETTY_NAME:-unknown}; continuing"
    fi
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
    say "Debian packages: all ${#PACKAGES[@]} present"
else
    say "Debian packages missing: ${missing[*]}"
    [[ "${TB_SKIP_APT:-0}" == 1 ]] && die "TB_SKIP_APT=1: install the packages above yourself"
    if ((EUID == 0)); then
        SUDO=()
    elif command -v sudo >/dev/null; then
        SUDO=(sudo)
    else
        die "installing packages needs root; re-run as root or install: ${missing[*]}"
    fi
    export DEBIAN_FRONTEND=noninteractive
    # Retry once: CI machines occasionally hit a mirror mid-sync.
    "${SUDO[@]}" apt-get update -q || { sleep 10; "${SUDO[@]}" apt-get update -q; }
    unavailable=()
    for pkg in "${missing[@]}"; do
        apt-cache show "$pkg" >/dev/null 2>&1 || unavailable+=("$pkg")
    done
    if ((${#unavailable[@]})); then
        die "no apt source offers: ${unavailable[*]}. LLVM/MLIR 22 must come from the configured apt sources (e.g. the apt.llvm.org repository 'llvm-toolchain-bookworm-22')"
    fi
    apt_install=("${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}")
    "${apt_install[@]}" || { sleep 10; "${apt_install[@]}"; }
fi

LLVM_PREFIX=/usr/lib/llvm-22
for tool in "$LLVM_PREFIX/bin/llvm-config" "$LLVM_PREFIX/bin/FileCheck" "$LLVM_PREFIX/bin/not"; do
    [[ -x "$tool" ]] || die "$tool missing after installing the LLVM 22 packages"
done
llvm_version="$("$LLVM_PREFIX/bin/llvm-config" --version)"
[[ "$llvm_version" == 22.* ]] || die "$LLVM_PREFIX/bin/llvm-config reports $llvm_version, need 22.x"
command -v mlir-opt-22 >/dev/null || die "mlir-opt-22 not on PATH (package mlir-22-tools)"
say "LLVM/MLIR $llvm_version at $LLVM_PREFIX"

# --- Rust toolchain ----------------------------------------------------------------------
# rustup installs into ~/.cargo/bin, which non-login shells (CI) may not have on PATH.
if ! command -v cargo >/dev/null && [[ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]]; then
    export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi
command -v cargo >/dev/null ||
    die "cargo not found. Install Rust >= 1.85 (edition 2024), e.g. with rustup (https://rustup.rs), and put ~/.cargo/bin on PATH"
rustc_version="$(rustc --version | awk '{print $2}')"
IFS=. read -r rust_major rust_minor _ <<<"$rustc_version"
if ((rust_major < 1 || (rust_major == 1 && rust_minor < 85))); then
    die "rustc $rustc_version is too old: the workspace uses edition 2024 (Rust >= 1.85)"
fi
say "Rust: $(cargo --version)"

# --- Python test environment -------------------------------------------------------------
VENV="$ROOT/.venv"
REQS="$ROOT/requirements-test.txt"
STAMP="$VENV/.requirements-test.sha256"
if [[ ! -x "$VENV/bin/python" ]]; then
    say "creating $VENV"
    python3 -m venv "$VENV"
fi
want="$(sha256sum "$REQS" | awk '{print $1}')"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [[ "$want" != "$have" ]] || ! "$VENV/bin/python" -c 'import lit' 2>/dev/null; then
    say "installing $(basename "$REQS") into .venv"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS"
    echo "$want" >"$STAMP"
fi
say "lit: $("$VENV/bin/lit" --version 2>&1 | head -n1)"

# The Python API (python/tensorbind) and its native module tensorbind._native (the compiler
# as a pyo3 extension, python/native): maturin builds the module into python/tensorbind,
# sharing target/ with the workspace so that the cargo build that follows reuses what it
# compiled, and a path file makes python/ importable from .venv (the package follows the
# sources; no copy is installed).
say "building the Python API's native module (maturin develop --release)"
(cd "$ROOT/python" && VIRTUAL_ENV="$VENV" CARGO_TARGET_DIR="$ROOT/target" \
    "$VENV/bin/maturin" develop --release --skip-install -q) ||
    die "maturin could not build the Python API's native module (python/native)"
site_packages="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
echo "$ROOT/python" >"$site_packages/tensorbind-checkout.pth"
"$VENV/bin/python" -c 'import tensorbind' || die "tensorbind is not importable from .venv"
say "Python API: tensorbind from $ROOT/python (native module $(cd "$ROOT/python/tensorbind" && ls _native*.so))"
say "done"
