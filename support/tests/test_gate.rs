//! A test whose environment is missing skips on a developer's machine and fails under CI.

use std::process::Command;

/// Calls `skip` when run as the child of the test below; a plain pass otherwise.
#[test]
fn child_that_skips() {
    if std::env::var_os("TB_TEST_GATE_CHILD").is_some() {
        tb_support::test_gate::skip("child_that_skips", "the environment is missing");
    }
}

fn run_child(ci: &str) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_that_skips", "--nocapture"])
        .env("TB_TEST_GATE_CHILD", "1")
        .env("CI", ci)
        .output()
        .unwrap()
}

#[test]
fn skip_fails_under_ci() {
    let out = run_child("true");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("child_that_skips: cannot run under CI=true: the environment is missing"),
        "{stderr}"
    );
}

#[test]
fn skip_passes_with_its_reason_elsewhere() {
    let out = run_child("");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("child_that_skips: SKIPPED: the environment is missing"),
        "{stderr}"
    );
}
