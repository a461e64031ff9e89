//! MLIR conformance: MLIR 22's own test files, run through `tb-opt` and `mlir-opt-22`.
//!
//! The upstream files (`mlir/test/{IR,Dialect/{Arith,Func,Math,MemRef,ControlFlow,SCF,Affine},
//! Transforms/cse*}` of the `llvm-toolchain-22` Debian source package) are fetched by
//! `scripts/setup.sh` into `.cache/mlir-upstream` (or `TB_MLIR_UPSTREAM`); they are never
//! copied into the repository.
//!
//! Each file's `RUN:` lines are read; a RUN line is in scope when it invokes `mlir-opt` with
//! only flags TensorBind implements (parsing and printing, `--split-input-file`,
//! `--verify-diagnostics`, `--canonicalize`, `--cse`, pipelines of those two). Each chunk of
//! the file (split on `// -----` when the RUN line splits) is one case:
//!
//! - with `--verify-diagnostics`: `tb-opt` must match the chunk's `expected-*` comments
//!   (location and text), as `mlir-opt` does;
//! - otherwise: both tools run with the RUN line's flags, and both outputs are re-printed by
//!   `mlir-opt --mlir-print-op-generic` (no passes): the two texts must be equal, so `tb-opt`'s
//!   output must also be readable by `mlir-opt` with the same meaning.
//!
//! A chunk is out of scope when `mlir-opt` itself fails on it with those flags (tests that need
//! a FileCheck-only pipeline), or when it uses a dialect TensorBind does not claim (MLIR's
//! `test` dialect, `vector`, `tensor`, `llvm`, ...).
//!
//! Every disagreement must be listed in `tools/tests/mlir_conformance_expected.txt` with its
//! reason; a new difference, or a listed one that no longer occurs, fails the test. A crash or
//! timeout of `tb-opt` always fails. Prints the agreement per directory and per mode, then
//! `N passed, N failed, N skipped` (skipped = listed differences).
//!
//! `cargo test --release -p tb-tools --test mlir_conformance -- [FILTER]` runs the files
//! whose path contains FILTER; `TB_CONFORMANCE_BLESS=1` rewrites the list from what it observed
//! (keeping the reasons already written for differences that remain); `-v` prints every case.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TEST_NAME: &str = "mlir_conformance";
const EXPECTED_FILE: &str = "tests/mlir_conformance_expected.txt";
const TIMEOUT: Duration = Duration::from_secs(60);

/// The upstream directories (relative to `mlir/test`) and file-name prefixes in scope.
const SCOPE: &[(&str, &str)] = &[
    ("IR", ""),
    ("Dialect/Arith", ""),
    ("Dialect/Func", ""),
    ("Dialect/Math", ""),
    ("Dialect/MemRef", ""),
    ("Dialect/ControlFlow", ""),
    ("Dialect/SCF", ""),
    ("Dialect/Affine", ""),
    ("Transforms", "cse"),
];

/// Dialects of upstream MLIR that TensorBind does not claim: chunks using them are out of
/// scope. (`gpu` is TensorBind's own dialect, unrelated to upstream's.)
const UNCLAIMED_DIALECTS: &[&str] = &[
    "test",
    "test2",
    "vector",
    "tensor",
    "linalg",
    "llvm",
    "gpu",
    "nvvm",
    "rocdl",
    "spirv",
    "transform",
    "shape",
    "ub",
    "index",
    "bufferization",
    "complex",
    "async",
    "emitc",
    "omp",
    "acc",
    "pdl",
    "pdl_interp",
    "quant",
    "sparse_tensor",
    "tosa",
    "amdgpu",
    "amx",
    "arm_neon",
    "arm_sve",
    "arm_sme",
    "x86vector",
    "mesh",
    "shard",
    "mpi",
    "ptr",
    "irdl",
    "dlti",
    "nvgpu",
    "xegpu",
    "smt",
    "polynomial",
    "ml_program",
    "vcix",
    "xevm",
    "wasmssa",
    "tblgen",
    "cir",
    "testd",
    "test_irdl_to_cpp",
];

/// How a case is checked.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mode {
    /// `--verify-diagnostics`: expected diagnostics must match.
    Diagnostics,
    /// Parse and print, no pass.
    RoundTrip,
    /// `--canonicalize` (possibly with `--cse`).
    Canonicalize,
    /// `--cse` alone.
    Cse,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Diagnostics => "verify-diagnostics",
            Mode::RoundTrip => "round trip",
            Mode::Canonicalize => "canonicalize",
            Mode::Cse => "cse",
        }
    }
}

/// One in-scope RUN line: the flags both tools get (besides the input file).
#[derive(Clone, PartialEq, Eq, Debug)]
struct RunLine {
    flags: Vec<String>,
    split: bool,
    mode: Mode,
}

/// One chunk under one RUN line.
struct Case {
    /// `Dialect/Arith/ops.mlir:12` (first line of the chunk), `@runN` for a file's N-th
    /// distinct in-scope RUN line after the first.
    key: String,
    dir: String,
    file_name: String,
    /// The chunk, preceded by blank lines so line numbers are those of the whole file.
    text: String,
    run: RunLine,
}

enum Outcome {
    Agree,
    OutOfScope(String),
    Differ(String),
    /// tb-opt crashed or hung: always a failure.
    Crash(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let filter = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let upstream = std::env::var_os("TB_MLIR_UPSTREAM")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../.cache/mlir-upstream/mlir/test"));
    if !upstream.join("IR").is_dir() {
        tb_support::test_gate::skip(
            TEST_NAME,
            format!(
                "MLIR's upstream tests are not at {} (scripts/setup.sh fetches them)",
                upstream.display()
            ),
        );
        return ExitCode::SUCCESS;
    }
    let mlir_opt = match find_mlir_opt() {
        Some(p) => p,
        None => {
            tb_support::test_gate::skip(TEST_NAME, "mlir-opt-22 is not on PATH");
            return ExitCode::SUCCESS;
        }
    };
    let tb_opt = PathBuf::from(env!("CARGO_BIN_EXE_tb-opt"));
    let expected_path = manifest.join(EXPECTED_FILE);
    let expected = match std::fs::read_to_string(&expected_path) {
        Ok(text) => parse_expected(&text),
        Err(e) => {
            eprintln!("{}: {e}", expected_path.display());
            return ExitCode::FAILURE;
        }
    };

    let cases = collect_cases(&upstream, &filter);
    let tools = Tools { tb_opt, mlir_opt };
    let outcomes = run_all(&tools, &cases);

    report(
        &cases,
        &outcomes,
        &expected,
        &expected_path,
        &filter,
        verbose,
    )
}

struct Tools {
    tb_opt: PathBuf,
    mlir_opt: PathBuf,
}

fn find_mlir_opt() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/lib/llvm-22/bin")])
        .flat_map(|d| [d.join("mlir-opt-22"), d.join("mlir-opt")])
        .find(|p| p.is_file())
}

/// Every case of every in-scope file, in a stable order.
fn collect_cases(upstream: &Path, filter: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (dir, prefix) in SCOPE {
        let Ok(entries) = std::fs::read_dir(upstream.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "mlir")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix))
            })
            .collect();
        files.sort();
        for path in files {
            let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
            let rel = format!("{dir}/{file_name}");
            if !rel.contains(filter) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let mut runs: Vec<RunLine> = Vec::new();
            for run in run_lines(&text).into_iter().flatten() {
                if !runs.contains(&run) {
                    runs.push(run);
                }
            }
            for (index, run) in runs.iter().enumerate() {
                for (first_line, chunk) in split_chunks(&text, run.split) {
                    let mut key = format!("{rel}:{}", first_line + 1);
                    if index > 0 {
                        key.push_str(&format!("@run{}", index + 1));
                    }
                    cases.push(Case {
                        key,
                        dir: dir.to_string(),
                        file_name: file_name.clone(),
                        text: "\n".repeat(first_line) + chunk,
                        run: run.clone(),
                    });
                }
            }
        }
    }
    cases
}

/// The file's RUN lines (continuations joined); `None` for one out of scope.
fn run_lines(text: &str) -> Vec<Option<RunLine>> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let Some(at) = line.find("RUN:") else {
            continue;
        };
        let part = line[at + 4..].trim();
        if let Some(head) = part.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(part);
        commands.push(std::mem::take(&mut pending));
    }
    commands.iter().map(|c| parse_run(c)).collect()
}

/// Reads the first command of a RUN pipeline; in scope if it is `mlir-opt %s` with only
/// flags TensorBind implements.
fn parse_run(command: &str) -> Option<RunLine> {
    let first = command.split('|').next()?;
    let words = shell_words(first);
    let (tool, rest) = words.split_first()?;
    if tool != "mlir-opt" {
        return None;
    }
    let mut flags = Vec::new();
    let (mut split, mut verify, mut canonicalize, mut cse, mut input) =
        (false, false, false, false, false);
    for word in rest {
        if word == "%s" {
            input = true;
            continue;
        }
        let flag = word.trim_start_matches('-');
        if !word.starts_with('-') || flag.is_empty() {
            return None;
        }
        match flag {
            "split-input-file" => split = true,
            "verify-diagnostics" => {
                verify = true;
                flags.push("--verify-diagnostics".into());
            }
            "allow-unregistered-dialect"
            | "mlir-print-op-generic"
            | "mlir-print-debuginfo"
            | "mlir-print-local-scope" => flags.push(format!("--{flag}")),
            _ if flag == "canonicalize" || flag.starts_with("canonicalize=") => {
                canonicalize = true;
                flags.push(format!("--{flag}"));
            }
            "cse" => {
                cse = true;
                flags.push("--cse".into());
            }
            _ => {
                let pipeline = flag.strip_prefix("pass-pipeline=")?;
                let pipeline = pipeline.trim_matches(|c| c == '"' || c == '\'');
                let passes = pipeline_passes(pipeline)?;
                canonicalize |= passes.contains("canonicalize");
                cse |= passes.contains("cse");
                flags.push(format!("--pass-pipeline={pipeline}"));
            }
        }
    }
    if !input {
        return None;
    }
    let mode = if verify {
        Mode::Diagnostics
    } else if canonicalize {
        Mode::Canonicalize
    } else if cse {
        Mode::Cse
    } else {
        Mode::RoundTrip
    };
    Some(RunLine { flags, split, mode })
}

/// The pass names of a textual pipeline made only of anchors and `canonicalize`/`cse`;
/// `None` otherwise.
fn pipeline_passes(pipeline: &str) -> Option<BTreeSet<String>> {
    const ANCHORS: &[&str] = &["builtin.module", "func.func", "any"];
    let mut passes = BTreeSet::new();
    // Pass options (`canonicalize{test-convergence}`) are given to both tools as they are.
    let mut names_only = String::new();
    let mut depth = 0usize;
    for c in pipeline.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => names_only.push(c),
            _ => {}
        }
    }
    for name in names_only.split(['(', ')', ',']).map(str::trim) {
        if name.is_empty() || ANCHORS.contains(&name) {
            continue;
        }
        if name != "canonicalize" && name != "cse" {
            return None;
        }
        passes.insert(name.to_string());
    }
    Some(passes)
}

/// Splits a command line on blanks, honouring single and double quotes.
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The chunks of `text` with their first line (0-based), split on `// -----` lines as
/// `--split-input-file` does.
fn split_chunks(text: &str, split: bool) -> Vec<(usize, &str)> {
    if !split {
        return vec![(0, text)];
    }
    let mut chunks = Vec::new();
    let (mut start, mut start_line, mut pos) = (0usize, 0usize, 0usize);
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        if line.trim_start().starts_with("// -----") {
            chunks.push((start_line, &text[start..pos]));
            start = pos + line.len();
            start_line = line_no + 1;
        }
        pos += line.len();
    }
    chunks.push((start_line, &text[start..]));
    chunks
}

/// The first unclaimed dialect an op, type or attribute of the chunk belongs to.
fn unclaimed_dialect(text: &str) -> Option<&'static str> {
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (i, _) in code.match_indices('.') {
            let before = &code[..i];
            let name_start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |p| p + 1);
            let name = &before[name_start..];
            let lead = before[..name_start].chars().last();
            // An op name starts a statement, follows `= ` or a quote; a type or attribute
            // follows `!` or `#`.
            let op_position = before[..name_start].trim().is_empty()
                || before[..name_start].trim_end().ends_with('=');
            if (matches!(lead, Some('"' | '!' | '#')) || op_position)
                && let Some(d) = UNCLAIMED_DIALECTS.iter().find(|d| **d == name)
            {
                return Some(d);
            }
        }
    }
    None
}

struct Run {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

/// Runs `program` in `dir` with a timeout; output goes through files so a full pipe
/// cannot block the child.
fn run_tool(program: &Path, args: &[String], dir: &Path, stdin: Option<&Path>) -> Run {
    let out_path = dir.join(format!(".out{}", unique()));
    let err_path = dir.join(format!(".err{}", unique()));
    let spawn = || -> std::io::Result<std::process::Child> {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(dir)
            .stdout(std::fs::File::create(&out_path)?)
            .stderr(std::fs::File::create(&err_path)?);
        match stdin {
            Some(p) => command.stdin(std::fs::File::open(p)?),
            None => command.stdin(Stdio::null()),
        };
        command.spawn()
    };
    let mut child = match spawn() {
        Ok(c) => c,
        Err(e) => {
            return Run {
                status: None,
                stdout: String::new(),
                stderr: format!("cannot run {}: {e}", program.display()),
                timed_out: false,
            };
        }
    };
    let start = Instant::now();
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(s)) => break (s.code(), false),
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break (None, true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break (None, false),
        }
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Run {
        status,
        stdout: read(&out_path),
        stderr: read(&err_path),
        timed_out,
    }
}

fn unique() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The first `error:` line of a diagnostic output, without the file name.
fn first_error(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains("error:"))
        .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("(no output)");
    let line = match line.find(".mlir:") {
        Some(p) => &line[p + 6..],
        None => line,
    };
    let mut line = line.trim().to_string();
    if line.len() > 200 {
        let mut end = 200;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
        line.push_str("...");
    }
    line
}

fn crashed(run: &Run) -> Option<String> {
    if run.timed_out {
        return Some(format!("timed out after {}s", TIMEOUT.as_secs()));
    }
    match run.status {
        None => Some("killed by a signal".into()),
        Some(101) => Some(format!("panicked: {}", first_error(&run.stderr))),
        Some(c) if c > 128 => Some(format!("exit status {c}")),
        _ if run.stderr.contains("panicked at") => Some("panicked".into()),
        _ => None,
    }
}

fn run_case(tools: &Tools, case: &Case) -> Outcome {
    if let Some(d) = unclaimed_dialect(&case.text) {
        return Outcome::OutOfScope(format!("uses the {d} dialect"));
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return Outcome::Crash(format!("no temporary directory: {e}")),
    };
    let input = dir.path().join(&case.file_name);
    if std::fs::write(&input, &case.text).is_err() {
        return Outcome::Crash("cannot write the chunk".into());
    }
    let mut args = case.run.flags.clone();
    args.push(case.file_name.clone());
    let reference = run_tool(&tools.mlir_opt, &args, dir.path(), None);
    if reference.status != Some(0) {
        return Outcome::OutOfScope("mlir-opt fails with these flags alone".into());
    }
    let ours = run_tool(&tools.tb_opt, &args, dir.path(), None);
    if let Some(why) = crashed(&ours) {
        return Outcome::Crash(why);
    }
    if case.run.mode == Mode::Diagnostics {
        return if ours.status == Some(0) {
            Outcome::Agree
        } else {
            Outcome::Differ(first_error(&format!("{}{}", ours.stderr, ours.stdout)))
        };
    }
    if ours.status != Some(0) {
        return Outcome::Differ(format!("tb-opt rejects: {}", first_error(&ours.stderr)));
    }
    let normalize = |text: &str, name: &str| -> Result<String, String> {
        let path = dir.path().join(name);
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        let flags = vec![
            "--allow-unregistered-dialect".to_string(),
            "--mlir-print-op-generic".to_string(),
        ];
        let run = run_tool(&tools.mlir_opt, &flags, dir.path(), Some(&path));
        if run.status == Some(0) {
            Ok(run.stdout)
        } else {
            Err(first_error(&run.stderr))
        }
    };
    let Ok(want) = normalize(&reference.stdout, "reference.out") else {
        return Outcome::OutOfScope("mlir-opt cannot re-read its own output".into());
    };
    let got = match normalize(&ours.stdout, "ours.out") {
        Ok(g) => g,
        Err(e) => return Outcome::Differ(format!("mlir-opt cannot read tb-opt's output: {e}")),
    };
    if got == want {
        return Outcome::Agree;
    }
    let diff = got
        .lines()
        .zip(want.lines())
        .find(|(a, b)| a != b)
        .map(|(a, b)| format!("tb-opt `{}` vs mlir-opt `{}`", clip(a), clip(b)))
        .unwrap_or_else(|| "outputs differ in length".into());
    Outcome::Differ(format!("printed IR differs: {diff}"))
}

fn clip(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(90) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

fn run_all(tools: &Tools, cases: &[Case]) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cases.len() {
                        break;
                    }
                    let outcome = run_case(tools, &cases[i]);
                    results.lock().unwrap()[i] = Some(outcome);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|o| o.expect("every case ran"))
        .collect()
}

/// `KEY REASON` lines; `#` starts a comment.
fn parse_expected(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((k, r)) => (k.to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

fn report(
    cases: &[Case],
    outcomes: &[Outcome],
    expected: &BTreeMap<String, String>,
    expected_path: &Path,
    filter: &str,
    verbose: bool,
) -> ExitCode {
    #[derive(Default)]
    struct Tally {
        agree: usize,
        differ: usize,
    }
    let mut by_dir: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_mode: BTreeMap<Mode, Tally> = BTreeMap::new();
    let mut out_of_scope: BTreeMap<String, usize> = BTreeMap::new();
    let mut observed: BTreeMap<String, String> = BTreeMap::new();
    let mut failures = Vec::new();
    for (case, outcome) in cases.iter().zip(outcomes) {
        let agree = match outcome {
            Outcome::OutOfScope(why) => {
                *out_of_scope.entry(why.clone()).or_default() += 1;
                if verbose {
                    println!("out of scope {}: {why}", case.key);
                }
                continue;
            }
            Outcome::Agree => true,
            Outcome::Differ(why) => {
                observed.insert(case.key.clone(), why.clone());
                false
            }
            Outcome::Crash(why) => {
                failures.push(format!("CRASH {}: {why}", case.key));
                false
            }
        };
        let dir = by_dir.entry(case.dir.clone()).or_default();
        let mode = by_mode.entry(case.run.mode).or_default();
        if agree {
            dir.agree += 1;
            mode.agree += 1;
        } else {
            dir.differ += 1;
            mode.differ += 1;
        }
        if verbose {
            match outcome {
                Outcome::Agree => println!("agree {}", case.key),
                Outcome::Differ(why) => println!("differ {}: {why}", case.key),
                _ => {}
            }
        }
    }
    let in_run: BTreeSet<&str> = cases.iter().map(|c| c.key.as_str()).collect();
    for (key, why) in &observed {
        if !expected.contains_key(key) {
            failures.push(format!("NEW DIFFERENCE {key}: {why}"));
        }
    }
    for key in expected.keys() {
        let ran = in_run.contains(key.as_str());
        if ran && !observed.contains_key(key) {
            failures.push(format!(
                "FIXED {key}: agrees now; remove it from {}",
                expected_path.display()
            ));
        }
        if !ran && filter.is_empty() {
            failures.push(format!("UNKNOWN {key}: listed but no such case ran"));
        }
    }

    if std::env::var("TB_CONFORMANCE_BLESS").is_ok_and(|v| v == "1") && filter.is_empty() {
        let mut text = String::from(
            "# MLIR 22 upstream test chunks where tb-opt and mlir-opt-22 disagree, one per line:\n\
             # KEY (upstream file under mlir/test, first line of the chunk, @runN for a file's\n\
             # N-th RUN line) and the reason. Checked by tools/tests/mlir_conformance.rs.\n",
        );
        for (key, why) in &observed {
            let reason = expected.get(key).filter(|r| !r.is_empty()).unwrap_or(why);
            text.push_str(&format!("{key} {reason}\n"));
        }
        if let Err(e) = std::fs::write(expected_path, text) {
            eprintln!("{}: {e}", expected_path.display());
            return ExitCode::FAILURE;
        }
        println!(
            "wrote {} differences to {}",
            observed.len(),
            expected_path.display()
        );
        failures.retain(|f| f.starts_with("CRASH"));
    }

    println!("agreement with mlir-opt-22 by directory (in-scope chunks):");
    let mut total = Tally::default();
    for (dir, t) in &by_dir {
        println!("  {dir:<22} {:>4} of {:>4}", t.agree, t.agree + t.differ);
        total.agree += t.agree;
        total.differ += t.differ;
    }
    println!("by mode:");
    for (mode, t) in &by_mode {
        println!(
            "  {:<22} {:>4} of {:>4}",
            mode.name(),
            t.agree,
            t.agree + t.differ
        );
    }
    println!("out of scope:");
    for (why, n) in &out_of_scope {
        println!("  {n:>5}  {why}");
    }
    let all = total.agree + total.differ;
    println!(
        "agreement: {} of {} in-scope chunks ({:.1}%)",
        total.agree,
        all,
        if all == 0 {
            0.0
        } else {
            100.0 * total.agree as f64 / all as f64
        }
    );
    for f in &failures {
        println!("{f}");
    }
    let skipped = observed.len();
    println!(
        "{} passed, {} failed, {} skipped",
        total.agree,
        failures.len(),
        skipped
    );
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
