//! Tests that need something outside the repository (the project's Python environment, the
//! ONNX test data, a C compiler) skip with their reason on a developer's machine, but fail
//! under `CI=true`, where everything they need is installed by the project's own set-up: a
//! test that silently does not run there would hide a broken set-up.

use std::io::Write;

/// Whether this run must run every test (`CI=true` in the environment).
pub fn every_test_must_run() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Reports that `test` cannot run because of `why`: a `SKIPPED` line on stderr normally, a
/// panic (a failed test) under `CI=true`.
pub fn skip(test: &str, why: impl std::fmt::Display) {
    if every_test_must_run() {
        panic!("{test}: cannot run under CI=true: {why}");
    }
    // One write, straight to stderr past libtest's capture, so the reason shows in a normal
    // `cargo test` run and lines of tests running in parallel do not interleave.
    let line = format!("{test}: SKIPPED: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}
