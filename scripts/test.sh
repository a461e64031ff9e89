#!/usr/bin/env bash
# Build and test everything: set-up, release build of every target, cargo tests, lit tests.
# One cargo profile (release) throughout, so nothing is compiled twice and lit tests the
# binaries in target/release. Exits non-zero if any step fails; prints a summary at the end.
#
# Extra arguments are passed to lit (e.g. scripts/test.sh --filter tb-translate).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

if ! command -v cargo >/dev/null && [[ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]]; then
    export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi
# CI logs are read after the fact: no progress bars, but keep colours off the log too.
if [[ "${CI:-}" == true ]]; then
    export CARGO_TERM_PROGRESS_WHEN=never CARGO_TERM_COLOR=never
fi

declare -a names=() results=() times=()
failed=0

# step NAME COMMAND... : run a step, record its outcome and duration.
step() {
    local name="$1"
    shift
    printf '\n=== %s: %s\n' "$name" "$*"
    local start=$SECONDS rc=0
    "$@" || rc=$?
    names+=("$name")
    times+=("$((SECONDS - start))s")
    if ((rc == 0)); then
        results+=("ok")
    else
        results+=("FAILED (exit $rc)")
        failed=1
    fi
    return "$rc"
}

skip() {
    names+=("$1")
    results+=("skipped ($2)")
    times+=("-")
}

# shellcheck disable=SC2317  # called through the EXIT trap
summary() {
    printf '\n=== summary\n'
    local i
    for i in "${!names[@]}"; do
        printf '  %-12s %-28s %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
    done
    if ((failed)); then
        printf 'RESULT: FAILED\n'
    else
        printf 'RESULT: all steps passed\n'
    fi
}
trap summary EXIT

if ! step setup bash scripts/setup.sh; then
    skip build "setup failed"
    skip cargo-test "setup failed"
    skip lit "setup failed"
    exit 1
fi

if step build cargo build --release --workspace --all-targets; then
    step cargo-test cargo test --release --workspace --no-fail-fast
    step lit .venv/bin/lit -v test/ "$@"
else
    skip cargo-test "build failed"
    skip lit "build failed"
fi

exit "$failed"
