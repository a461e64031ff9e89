//! The runtime library shipped with emitted code (`tb-translate --emit=c-runtime`, linked
//! into `--emit=shared-lib --threads=N` libraries): a C program drives its
//! `tb_rt_parallel_for` directly and checks that every iteration runs exactly once, on
//! several threads, for empty, single and uneven ranges, nested loops (run in order) and two
//! callers at once, and that each thread starts on a home share of its own (the caller on
//! the first).
//!
//! Skipped, with a message saying why, where no C compiler is installed (fails under CI).

use std::process::Command;

fn c_compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_owned())
}

/// The driver: prints `ok` lines, or `FAIL` lines naming what went wrong.
const DRIVER: &str = r#"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef void (*tb_rt_body)(void *ctx, int64_t begin, int64_t end);
void tb_rt_parallel_for(tb_rt_body body, void *ctx, int64_t n, int64_t threads);
int64_t tb_rt_num_threads(int64_t threads);

#define N 10007
static int visits[N];
static pthread_t seen[64];
static int seen_count;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_thread(void) {
    pthread_mutex_lock(&seen_lock);
    int known = 0;
    for (int i = 0; i < seen_count; i++)
        known |= pthread_equal(seen[i], pthread_self());
    if (!known && seen_count < 64)
        seen[seen_count++] = pthread_self();
    pthread_mutex_unlock(&seen_lock);
}

static void count(void *ctx, int64_t begin, int64_t end) {
    int *cells = ctx;
    note_thread();
    for (int64_t i = begin; i < end; i++)
        __atomic_add_fetch(&cells[i], 1, __ATOMIC_RELAXED);
    /* Slow enough that the workers wake up and get a share, even on a busy machine. */
    if (cells == visits)
        usleep(2000);
}

static pthread_t owners[N];
/* Notes which thread ran each iteration; slow, like `count` on `visits`. */
static void own(void *ctx, int64_t begin, int64_t end) {
    (void)ctx;
    for (int64_t i = begin; i < end; i++)
        owners[i] = pthread_self();
    usleep(2000);
}

static int all_once(const int *cells, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (cells[i] != 1)
            return 0;
    return 1;
}

static int nested_cells[8][100];
static void outer(void *ctx, int64_t begin, int64_t end) {
    (void)ctx;
    for (int64_t i = begin; i < end; i++)
        tb_rt_parallel_for(count, nested_cells[i], 100, 4);
}

static int caller_cells[2][N];
static void *caller(void *which) {
    tb_rt_parallel_for(count, caller_cells[(intptr_t)which], N, 4);
    return NULL;
}

static void check(int ok, const char *what) { printf("%s %s\n", ok ? "ok" : "FAIL", what); }

int main(void) {
    check(tb_rt_num_threads(4) == 4, "the pool has the four threads asked for");
    tb_rt_parallel_for(count, visits, N, 4);
    check(all_once(visits, N), "every iteration of an uneven range runs once");
    check(seen_count > 1, "the iterations ran on more than one thread");

    tb_rt_parallel_for(own, NULL, N, 4);
    check(pthread_equal(owners[0], pthread_self()), "the caller starts on the first share");
    int distinct = 1;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < a; b++)
            distinct &= !pthread_equal(owners[(int64_t)N * a / 4], owners[(int64_t)N * b / 4]);
    check(distinct, "each thread starts on a share of its own");

    memset(visits, 0, sizeof visits);
    tb_rt_parallel_for(count, visits, 0, 4);
    tb_rt_parallel_for(count, visits, -3, 4);
    check(visits[0] == 0, "an empty range runs nothing");
    tb_rt_parallel_for(count, visits, 1, 4);
    check(visits[0] == 1 && visits[1] == 0, "a single iteration runs once");

    tb_rt_parallel_for(outer, NULL, 8, 4);
    int nested_ok = 1;
    for (int i = 0; i < 8; i++)
        nested_ok &= all_once(nested_cells[i], 100);
    check(nested_ok, "nested parallel loops run every iteration once");

    pthread_t a, b;
    pthread_create(&a, NULL, caller, (void *)0);
    pthread_create(&b, NULL, caller, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    check(all_once(caller_cells[0], N) && all_once(caller_cells[1], N),
          "two callers at once each run every iteration once");
    return 0;
}
"#;

#[test]
fn parallel_for_runs_every_iteration_once_on_the_pool() {
    let cc = c_compiler();
    if Command::new(&cc).arg("--version").output().is_err() {
        let why = format!("no C compiler '{cc}' found (install one, e.g. gcc, or set CC)");
        return tb_support::test_gate::skip(
            "parallel_for_runs_every_iteration_once_on_the_pool",
            why,
        );
    }
    let dir = tempfile_dir();
    let runtime = dir.join("tb_runtime.c");
    let status = Command::new(env!("CARGO_BIN_EXE_tb-translate"))
        .args(["--emit=c-runtime", "-o"])
        .arg(&runtime)
        .status()
        .expect("tb-translate runs");
    assert!(status.success(), "tb-translate --emit=c-runtime failed");
    let driver = dir.join("driver.c");
    std::fs::write(&driver, DRIVER).unwrap();
    let program = dir.join("driver");
    let built = Command::new(&cc)
        .args(["-O1", "-pthread", "-Wall", "-Werror"])
        .arg(&driver)
        .arg(&runtime)
        .arg("-o")
        .arg(&program)
        .output()
        .expect("the C compiler runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = Command::new(&program)
        .env_remove("TB_NUM_THREADS")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&ran.stdout);
    assert!(ran.status.success(), "{printed}");
    assert_eq!(
        printed.lines().filter(|l| l.starts_with("ok ")).count(),
        9,
        "{printed}"
    );
    assert!(!printed.contains("FAIL"), "{printed}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tb-runtime-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
