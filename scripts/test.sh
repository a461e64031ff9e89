#!/usr/bin/env bash
# Build and test everything: set-up, release build of every target, cargo tests, lit tests,
# the Python API's tests.
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
    # One closing line with the totals of both runners (cargo's own last line is often a
    # doc-test binary with nothing in it); skipped counts ignored cargo tests, tests that
    # printed SKIPPED, and lit's UNSUPPORTED ones.
    printf 'tests: %d passed, %d failed, %d skipped\n' "$total_passed" "$total_failed" "$total_skipped"
}
total_passed=0
total_failed=0
total_skipped=0
trap summary EXIT

if ! step setup bash scripts/setup.sh; then
    skip build "setup failed"
    skip cargo-test "setup failed"
    skip lit "setup failed"
    exit 1
fi

log_dir="$(mktemp -d)"

# Each runs one test runner, showing its output and adding its counts to the totals.
count_cargo_tests() {
    local rc
    # pipefail (set above) makes the pipeline's status cargo's.
    # Each test binary's start is stamped with the seconds since the step began, so a slow
    # runner shows in the log.
    local start=$SECONDS line
    cargo test --release --workspace --no-fail-fast 2>&1 |
        while IFS= read -r line; do
            [[ "$line" == *"     Running "* ]] && printf '[%4ds] ' "$((SECONDS - start))"
            printf '%s\n' "$line"
        done | tee "$log_dir/cargo.log"
    rc=$?
    local p f
    p=$(grep -oE 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log_dir/cargo.log" | awk '{s += $4} END {print s + 0}')
    f=$(grep -oE '[0-9]+ failed;' "$log_dir/cargo.log" | awk '{s += $1} END {print s + 0}')
    local s
    s=$(grep -oE '[0-9]+ ignored;' "$log_dir/cargo.log" | awk '{s += $1} END {print s + 0}')
    s=$((s + $(grep -c ': SKIPPED: ' "$log_dir/cargo.log")))
    total_passed=$((total_passed + p))
    total_failed=$((total_failed + f))
    total_skipped=$((total_skipped + s))
    return "$rc"
}

count_lit_tests() {
    local rc
    .venv/bin/lit -v test/ "$@" 2>&1 | tee "$log_dir/lit.log"
    rc=$?
    local p f
    p=$(grep -oE '^ *Passed *: *[0-9]+' "$log_dir/lit.log" | grep -oE '[0-9]+' | tail -1)
    f=$(grep -oE '^ *(Failed|Unresolved|Timed Out) *: *[0-9]+' "$log_dir/lit.log" | grep -oE '[0-9]+$' | awk '{s += $1} END {print s + 0}')
    local s
    s=$(grep -oE '^ *Unsupported *: *[0-9]+' "$log_dir/lit.log" | grep -oE '[0-9]+$' | tail -1)
    total_passed=$((total_passed + ${p:-0}))
    total_failed=$((total_failed + ${f:-0}))
    total_skipped=$((total_skipped + ${s:-0}))
    return "$rc"
}

# Tools run as root must never replace a device given as an output (`-o /dev/null`): the
# whole suite has run by now, so /dev/null must still be the null character device.
dev_null_is_intact() {
    if [[ -c /dev/null ]]; then
        echo "/dev/null is still a character device"
    else
        echo "error: /dev/null is no longer a character device: a tool replaced it" >&2
        return 1
    fi
}

# The Python API's tests (python/tests) against onnxruntime, with the tools just built.
count_python_tests() {
    local rc
    bash scripts/python_module.sh || return 1
    TB_BIN_DIR="$ROOT/target/release" .venv/bin/python -m pytest -q -rs python/tests 2>&1 | tee "$log_dir/python.log"
    rc=$?
    local p f s
    p=$(grep -oE '[0-9]+ passed' "$log_dir/python.log" | tail -1 | grep -oE '[0-9]+')
    f=$(grep -oE '[0-9]+ (failed|error|errors)' "$log_dir/python.log" | grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}')
    s=$(grep -oE '[0-9]+ skipped' "$log_dir/python.log" | tail -1 | grep -oE '[0-9]+')
    total_passed=$((total_passed + ${p:-0}))
    total_failed=$((total_failed + ${f:-0}))
    total_skipped=$((total_skipped + ${s:-0}))
    return "$rc"
}

if step build cargo build --release --workspace --all-targets; then
    step cargo-test count_cargo_tests
    step lit count_lit_tests "$@"
    step python count_python_tests
    step dev-null dev_null_is_intact
else
    skip cargo-test "build failed"
    skip lit "build failed"
    skip python "build failed"
    skip dev-null "build failed"
fi

exit "$failed"
