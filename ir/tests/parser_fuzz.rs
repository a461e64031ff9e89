//! Robustness of the MLIR text parser: malformed input never panics, never hangs and never
//! overflows the stack, and whatever parses and verifies prints text that parses back,
//! verifies and prints identically (in the generic and custom forms, with and without
//! locations).
//!
//! * `mutated_corpus_never_panics` and `token_soup_never_panics` are proptest properties over
//!   mutations of the `test/IR/*.mlir` corpus (whole files or `// -----` chunks) and over
//!   random token sequences. A failure is shrunk by proptest, then minimized as text, and
//!   reported with the minimized input as a Rust string literal.
//! * `every_truncation_of_the_corpus_is_handled` cuts every corpus file at every byte offset
//!   (at a stride for files over 3 KiB).
//! * `pathological_inputs` is a fixed list of inputs at the edges of the grammar, and
//!   `root_operation_with_results_round_trips` covers `no_implicit_module` roots.
//! * `deep_nesting_does_not_overflow_the_stack` parses 10,000-deep nestings in a child process
//!   (a stack overflow aborts the whole process, so it cannot run in this one);
//!   `deep_nesting_overflow_depths` (ignored) measures where each nesting kind overflows.
//!
//! Panics are caught (`catch_unwind`) only to name the input; a hang over 20 s aborts the
//! process after printing the input. Run with `cargo test --release -p tb-ir --test parser_fuzz`;
//! `PROPTEST_CASES=N` and `PROPTEST_RNG_SEED=N` change the number of cases and fix the seed.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use tb_ir::attributes::AttrKind;
use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::operation::OperationState;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::verifier::verify;
use tb_ir::{Attr, Context, OpId};

// ---------------------------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------------------------

struct CorpusFile {
    name: String,
    bytes: Vec<u8>,
}

/// Every `test/IR/*.mlir` file, sorted by name, read once.
fn corpus() -> &'static [CorpusFile] {
    static CORPUS: OnceLock<Vec<CorpusFile>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test/IR");
        let mut files: Vec<CorpusFile> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read the corpus directory {}: {e}", dir.display()))
            .map(|entry| entry.expect("corpus directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .map(|p| CorpusFile {
                name: p.file_name().unwrap().to_string_lossy().into_owned(),
                bytes: std::fs::read(&p)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display())),
            })
            .collect();
        files.sort_by(|a, b| a.name.cmp(&b.name));
        assert!(!files.is_empty(), "no .mlir files in {}", dir.display());
        files
    })
}

/// Splits on `// -----` lines, as `--split-input-file` does.
fn split_chunks(bytes: &[u8]) -> Vec<&[u8]> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if line.trim_ascii() == b"// -----" {
            chunks.push(&bytes[start..pos]);
            start = pos + line.len();
        }
        pos += line.len();
    }
    chunks.push(&bytes[start..]);
    chunks
}

// ---------------------------------------------------------------------------------------------
// Panic capture and hang detection
// ---------------------------------------------------------------------------------------------

thread_local! {
    /// Set while a guarded call runs: its panics are recorded instead of printed.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// The message and source location of the last quiet panic.
    static LAST_PANIC: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some((payload_message(info.payload()), at)));
            } else {
                default(info);
            }
        }));
    });
}

fn payload_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// Inputs being checked (by call id: since when, and the input), so the watchdog can name
/// the one that hangs.
type InFlight = Mutex<BTreeMap<u64, (Instant, Arc<str>)>>;

fn in_flight() -> &'static InFlight {
    static IN_FLIGHT: OnceLock<InFlight> = OnceLock::new();
    IN_FLIGHT.get_or_init(Default::default)
}

/// One input may take this long before the watchdog prints it and aborts the process.
const HANG_LIMIT: Duration = Duration::from_secs(20);

fn start_watchdog() {
    static WATCHDOG: Once = Once::new();
    WATCHDOG.call_once(|| {
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let map = in_flight().lock().unwrap_or_else(PoisonError::into_inner);
                if let Some((_, (_, input))) = map.iter().find(|(_, (since, _))| since.elapsed() > HANG_LIMIT) {
                    eprintln!("parser_fuzz: one input has been running for over {HANG_LIMIT:?} (hang?):\n{}", show(input));
                    std::process::abort();
                }
            }
        });
    });
}

/// A property violation: `signature` identifies the bug (the panic's source location, or
/// the kind of round-trip failure) so the input can be minimized while keeping it; `report`
/// says everything about it.
#[derive(Debug)]
struct Failure {
    signature: String,
    report: String,
}

/// Runs `f` on `input`, turning a panic into a failure naming the input, the panic message
/// and its source location.
fn guarded<T>(input: &Arc<str>, what: &str, f: impl FnOnce() -> T) -> Result<T, Failure> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    install_panic_hook();
    start_watchdog();
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    in_flight()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, (Instant::now(), input.clone()));
    QUIET.with(|q| q.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    in_flight()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id);
    result.map_err(|payload| {
        let (message, at) = LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| (payload_message(payload.as_ref()), String::new()));
        Failure {
            signature: format!(
                "panic during {} at {at}",
                what.split(' ').next().unwrap_or(what)
            ),
            report: format!(
                "PANIC during {what}: {message} at {at}\ninput ({} bytes):\n{}",
                input.len(),
                show(input)
            ),
        }
    })
}

/// The input as a Rust string literal, so it can be pasted into a regression test.
fn show(input: &str) -> String {
    const MAX: usize = 16_000;
    if input.len() <= MAX {
        format!("{input:?}")
    } else {
        let mut cut = MAX;
        while !input.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{:?} ... ({} more bytes)", &input[..cut], input.len() - cut)
    }
}

/// A rendered diagnostic with each quoted source line cut to a readable length.
fn clip_lines(text: &str) -> String {
    const MAX: usize = 300;
    text.lines()
        .map(|line| match line.char_indices().nth(MAX) {
            Some((cut, _)) => format!("{} ...\n", &line[..cut]),
            None => format!("{line}\n"),
        })
        .collect()
}

/// Shrinks a failing input by deleting ever smaller runs of characters while the failure
/// keeps its signature (a greedy delta debugging), for at most `budget`.
fn minimize(text: &str, budget: Duration, still_fails: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + budget;
    let mut current: Vec<char> = text.chars().collect();
    let mut chunk = current.len().div_ceil(2).max(1);
    loop {
        let mut progressed = false;
        let mut i = 0;
        while i < current.len() && Instant::now() < deadline {
            let end = (i + chunk).min(current.len());
            let candidate: String = current[..i].iter().chain(&current[end..]).collect();
            if still_fails(&candidate) {
                current = candidate.chars().collect();
                progressed = true;
            } else {
                i += chunk;
            }
        }
        if Instant::now() >= deadline || (chunk == 1 && !progressed) {
            break;
        }
        if !progressed {
            chunk = chunk.div_ceil(2);
        }
    }
    current.into_iter().collect()
}

/// `failure` minimized, as a report for a test failure.
fn minimized_report(
    text: &str,
    no_implicit_module: bool,
    local_scope: bool,
    failure: &Failure,
) -> String {
    let min = minimize(text, Duration::from_secs(20), |t| {
        check(t, no_implicit_module, local_scope).is_err_and(|f| f.signature == failure.signature)
    });
    let min_failure =
        check(&min, no_implicit_module, local_scope).expect_err("the minimized input fails");
    format!(
        "{}\n\n===> minimized input ({} bytes, from {}; no_implicit_module={no_implicit_module}, local_scope={local_scope}):\n{}\n{}",
        failure.signature,
        min.len(),
        text.len(),
        show(&min),
        min_failure.report
    )
}

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

#[derive(Default, Debug, Clone, Copy)]
struct Outcome {
    parsed: bool,
    verified: bool,
}

/// Parses `input` (with unregistered dialects allowed and not), verifies what parses, prints
/// it in the four generic/custom x with/without-locations forms, and checks that each print
/// of a verified module parses, verifies and prints again to the same text. Panics anywhere
/// are failures; so are round-trip failures.
fn check(input: &str, no_implicit_module: bool, local_scope: bool) -> Result<Outcome, Failure> {
    let input: Arc<str> = Arc::from(input);
    let mut outcome = Outcome::default();
    for allow_unregistered in [true, false] {
        let options = ParseOptions {
            no_implicit_module,
            ..ParseOptions::default()
        };
        let mut ctx = Context::new();
        ctx.allow_unregistered_dialects = allow_unregistered;
        let what = format!(
            "parse (allow_unregistered={allow_unregistered}, no_implicit_module={no_implicit_module})"
        );
        let Ok(top) = guarded(&input, &what, || {
            parse_source(&mut ctx, &input, "fuzz.mlir", &options)
        })?
        else {
            continue;
        };
        outcome.parsed = true;
        let verified = guarded(&input, "verify", || verify(&ctx, top).is_ok())?;
        outcome.verified |= verified;
        for generic in [false, true] {
            for debug_info in [false, true] {
                let print = PrintOptions {
                    generic,
                    debug_info,
                    local_scope,
                };
                let what = format!(
                    "print {print:?} (allow_unregistered={allow_unregistered}, verified={verified})"
                );
                let first = guarded(&input, &what, || print_operation(&ctx, top, print))?;
                let first: Arc<str> = Arc::from(first);
                let context = || {
                    format!(
                        "{print:?}, allow_unregistered={allow_unregistered}, no_implicit_module={no_implicit_module}\ninput:\n{}\nprinted:\n{}",
                        show(&input),
                        show(&first)
                    )
                };
                let roundtrip = |kind: &str, details: String| Failure {
                    signature: format!("roundtrip: {kind}"),
                    report: format!("ROUNDTRIP: {kind}{details}"),
                };
                let diagnostic = |again: &Context, d: &tb_ir::Diagnostic| {
                    let mut sources = SourceMgr::new();
                    sources.add_buffer("printed.mlir", &first);
                    clip_lines(&render(again, &sources, d))
                };
                // Re-parse every print, also of modules that do not verify: it must not panic.
                let mut again = Context::new();
                again.allow_unregistered_dialects = allow_unregistered;
                let reparsed = guarded(
                    &first,
                    &format!("re-parse of the printed text ({})", context()),
                    || parse_source(&mut again, &first, "printed.mlir", &options),
                )?;
                if !verified {
                    continue;
                }
                let top2 = match reparsed {
                    Ok(top2) => top2,
                    Err(d) => {
                        return Err(roundtrip(
                            "a verified module's print does not parse back",
                            format!(":\n{}{}", diagnostic(&again, &d), context()),
                        ));
                    }
                };
                if let Err(d) = guarded(&first, "verify of the re-parsed text", || {
                    verify(&again, top2)
                })? {
                    return Err(roundtrip(
                        "a verified module's print parses back but does not verify",
                        format!(":\n{}{}", diagnostic(&again, &d), context()),
                    ));
                }
                let second = guarded(&first, "print of the re-parsed text", || {
                    print_operation(&again, top2, print)
                })?;
                if *first != *second {
                    let line = first
                        .lines()
                        .zip(second.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or_else(|| first.lines().count().min(second.lines().count()));
                    return Err(roundtrip(
                        "the print of the re-parsed text differs",
                        format!(
                            " (printed line {}: {:?} vs {:?})\n{}\nsecond print:\n{}",
                            line + 1,
                            first.lines().nth(line).unwrap_or("<end>"),
                            second.lines().nth(line).unwrap_or("<end>"),
                            context(),
                            show(&second)
                        ),
                    ));
                }
            }
        }
    }
    Ok(outcome)
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

/// Tokens and fragments that steer the parser into its less travelled paths.
const TOKENS: &[&str] = &[
    "<",
    ">",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "=",
    "->",
    "-",
    "+",
    "*",
    "?",
    "x",
    "...",
    "::",
    "{-#",
    "#-}",
    "// -----\n",
    "//",
    "\n",
    "\"",
    "\\",
    "\\\"",
    "\"\\",
    "'",
    "`",
    "@",
    "@\"",
    "#",
    "!",
    "%",
    "^",
    "%0",
    "%0#",
    "%0#1",
    "%0:2",
    "%0#99999999999999999999",
    "%arg0",
    "^bb",
    "^bb0",
    "^bb0(",
    "^bb1:",
    "[^bb0]",
    "loc(",
    "loc(unknown)",
    "loc(\"f\":1:2)",
    "loc(#loc)",
    "loc(fused[",
    "loc(callsite(",
    " at ",
    "#loc = loc(\"a\":1:1)\n",
    "dense<",
    "dense<[",
    "dense<\"0x",
    "dense<\"0xDEADBEEF\">",
    "dense_resource<",
    "dense<1> : tensor<2x2xi32>",
    "sparse<",
    "array<",
    "array<i32",
    "array<i32: 1, 2>",
    "array<f32: 1.0>",
    "distinct[0]<",
    "distinct[0]<unit>",
    "affine_map<(",
    "affine_map<(d0) -> (d0)>",
    "affine_map<(d0)[s0] -> (d0 floordiv s0, d0 mod 0)>",
    "affine_set<(",
    "affine_set<(d0) : (d0 >= 0, d0 == 0)>",
    "d0",
    "s0",
    "floordiv",
    "ceildiv",
    "mod",
    ">=",
    "==",
    "tensor<",
    "tensor<?x",
    "tensor<*x",
    "memref<",
    "memref<4xf32, strided<[1], offset: ?>>",
    "vector<",
    "vector<[4]x",
    "complex<",
    "tuple<",
    "tuple<>",
    "i0",
    "i1",
    "i32",
    "si8",
    "ui64",
    "i16777216",
    "i99999999999",
    "f16",
    "bf16",
    "f80",
    "f8E4M3FN",
    "f4E2M1FN",
    "index",
    "none",
    "f32",
    "!foo.bar",
    "!foo<\"",
    "#foo.bar",
    "#foo<",
    "opaque<\"",
    "unit",
    "true",
    "false",
    "0x",
    "0x1p",
    "1.0e",
    "1e999",
    "-0.0",
    "0x7FC00000",
    "nan",
    "inf",
    "-",
    "1.5 : f16",
    ": i32",
    ": () -> ()",
    "() -> ()",
    "(i32) -> (i32, i32)",
    "\"a.op\"",
    "\"a.op\"() : () -> ()\n",
    "\"a.op\"() ({\n",
    "}) : () -> ()\n",
    "({",
    "})",
    "<{",
    "}>",
    "<{a = 1}>",
    "{a}",
    "{a = }",
    "{\"\" = 1}",
    "module",
    "module @m",
    "module {",
    "func.func",
    "builtin.unrealized_conversion_cast",
    "attributes",
    "sym_name",
    "@sym",
    "@\"sym\"",
    "@a::@b",
    "\"\\u{0}\"",
    "\"\\ff\"",
    "\"\\\n\"",
    "\0",
    "\t",
    "\r\n",
    "\u{feff}",
    "\u{202e}",
    "\u{fffd}",
    "é",
    "\u{301}",
    "𝔘",
    "日本",
    "\u{10ffff}",
];

/// A fragment to insert: a fixed token, a huge number, a deep nesting or random characters.
fn snippet() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(TOKENS).prop_map(str::to_string),
        1 => ("-?(0x)?", "[0-9]{19,60}").prop_map(|(sign, digits)| format!("{sign}{digits}")),
        1 => (select(&["0x", "-0x", ""][..]), "[0-9A-Fa-f]{17,300}").prop_map(|(p, d)| format!("{p}{d}")),
        1 => (select(&["(", "[", "{", "<", "tuple<", "({", "loc(fused[", "dense<[", "(d0 + ", "complex<", "!a<", "#a<("][..]), 1..48usize)
            .prop_map(|(open, n)| open.repeat(n)),
        1 => (select(&[")", "]", "}", ">", "})", "]>"][..]), 1..48usize).prop_map(|(close, n)| close.repeat(n)),
        1 => "[ -~]{1,12}",
        1 => any::<Vec<char>>().prop_map(|cs| cs.into_iter().take(6).collect()),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete {
        at: Index,
        len: usize,
    },
    Insert {
        at: Index,
        what: String,
    },
    Replace {
        at: Index,
        len: usize,
        what: String,
    },
    Duplicate {
        from: Index,
        len: usize,
        to: Index,
    },
    Swap {
        a: Index,
        b: Index,
        len: usize,
    },
    Truncate {
        at: Index,
    },
    FlipByte {
        at: Index,
        bit: u8,
    },
    /// Replaces one run of digits with a number at the edge of some integer type.
    ReplaceNumber {
        nth: Index,
        with: &'static str,
    },
    /// Replaces one word (identifier, keyword, type name) with a token.
    ReplaceWord {
        nth: Index,
        with: String,
    },
}

/// Integers at the edges of the types that hold them.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "8",
    "127",
    "128",
    "255",
    "256",
    "-129",
    "32767",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "16777215",
    "16777216",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "170141183460469231731687303715884105727",
    "170141183460469231731687303715884105728",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "99999999999999999999999999999999999999999999",
    "0x0",
    "0xFFFFFFFFFFFFFFFF",
    "0x10000000000000000",
    "1.0e308",
    "1.0e309",
    "-0.0",
    "0.0",
    "1e-400",
];

/// Byte ranges of the maximal runs of bytes satisfying `pred`.
fn runs(buf: &[u8], pred: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < buf.len() {
        if pred(buf[i]) {
            let start = i;
            while i < buf.len() && pred(buf[i]) {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), 1..40usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        4 => (any::<Index>(), snippet()).prop_map(|(at, what)| Mutation::Insert { at, what }),
        2 => (any::<Index>(), 1..8usize, snippet()).prop_map(|(at, len, what)| Mutation::Replace { at, len, what }),
        2 => (any::<Index>(), 1..200usize, any::<Index>()).prop_map(|(from, len, to)| Mutation::Duplicate { from, len, to }),
        2 => (any::<Index>(), any::<Index>(), 1..60usize).prop_map(|(a, b, len)| Mutation::Swap { a, b, len }),
        1 => any::<Index>().prop_map(|at| Mutation::Truncate { at }),
        1 => (any::<Index>(), 0..8u8).prop_map(|(at, bit)| Mutation::FlipByte { at, bit }),
        3 => (any::<Index>(), select(EDGE_NUMBERS)).prop_map(|(nth, with)| Mutation::ReplaceNumber { nth, with }),
        2 => (any::<Index>(), snippet()).prop_map(|(nth, with)| Mutation::ReplaceWord { nth, with }),
    ]
}

/// Applies `m` to `buf`; the result may be invalid UTF-8 (fixed up later, lossily).
fn apply(buf: &mut Vec<u8>, m: &Mutation) {
    let n = buf.len();
    let pos = |i: &Index| i.index(n + 1);
    match m {
        Mutation::Delete { at, len } => {
            let s = pos(at);
            buf.drain(s..(s + len).min(n));
        }
        Mutation::Insert { at, what } => {
            let s = pos(at);
            buf.splice(s..s, what.bytes());
        }
        Mutation::Replace { at, len, what } => {
            let s = pos(at);
            buf.splice(s..(s + len).min(n), what.bytes());
        }
        Mutation::Duplicate { from, len, to } => {
            let s = pos(from);
            let piece = buf[s..(s + len).min(n)].to_vec();
            let t = pos(to);
            buf.splice(t..t, piece);
        }
        Mutation::Swap { a, b, len } => {
            let (mut a, mut b) = (pos(a), pos(b));
            if a > b {
                std::mem::swap(&mut a, &mut b);
            }
            let len = (*len).min(b - a).min(n - b);
            if len > 0 {
                let (left, right) = buf.split_at_mut(b);
                left[a..a + len].swap_with_slice(&mut right[..len]);
            }
        }
        Mutation::Truncate { at } => buf.truncate(pos(at)),
        Mutation::FlipByte { at, bit } => {
            if n > 0 {
                buf[at.index(n)] ^= 1 << bit;
            }
        }
        Mutation::ReplaceNumber { nth, with } => {
            let numbers = runs(buf, |b| b.is_ascii_digit());
            if !numbers.is_empty() {
                let (s, e) = numbers[nth.index(numbers.len())];
                buf.splice(s..e, with.bytes());
            }
        }
        Mutation::ReplaceWord { nth, with } => {
            let words = runs(buf, |b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
            if !words.is_empty() {
                let (s, e) = words[nth.index(words.len())];
                buf.splice(s..e, with.bytes());
            }
        }
    }
}

/// A corpus file (or one of its `// -----` chunks) with mutations applied.
#[derive(Clone, Debug)]
struct Case {
    file: Index,
    chunk: Option<Index>,
    mutations: Vec<Mutation>,
    no_implicit_module: bool,
    local_scope: bool,
}

impl Case {
    fn text(&self) -> String {
        let file = &corpus()[self.file.index(corpus().len())];
        let mut buf = match &self.chunk {
            Some(i) => {
                let chunks = split_chunks(&file.bytes);
                chunks[i.index(chunks.len())].to_vec()
            }
            None => file.bytes.clone(),
        };
        for m in &self.mutations {
            apply(&mut buf, m);
        }
        String::from_utf8_lossy(&buf).into_owned()
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<Index>(),
        proptest::option::of(any::<Index>()),
        proptest::collection::vec(mutation(), 0..6),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(file, chunk, mutations, no_implicit_module, local_scope)| Case {
                file,
                chunk,
                mutations,
                no_implicit_module,
                local_scope,
            },
        )
}

fn config(cases: u32) -> Config {
    Config {
        // PROPTEST_CASES overrides the count, PROPTEST_RNG_SEED fixes the seed.
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        // Failures are reported with their minimized input; keep the source tree clean.
        failure_persistence: None,
        max_shrink_time: 20_000,
        ..Config::default()
    }
}

/// Runs `check` on `cases` inputs drawn from `strategy`; a failure is shrunk by proptest,
/// then minimized as text, and reported.
fn fuzz<S>(name: &str, cases: u32, strategy: S, input: impl Fn(&S::Value) -> (String, bool, bool))
where
    S: Strategy,
{
    let parsed = AtomicU64::new(0);
    let verified = AtomicU64::new(0);
    let mut runner = TestRunner::new(config(cases));
    let result = runner.run(&strategy, |value| {
        let (text, no_implicit_module, local_scope) = input(&value);
        let outcome = check(&text, no_implicit_module, local_scope)
            .map_err(|f| TestCaseError::fail(f.signature))?;
        parsed.fetch_add(u64::from(outcome.parsed), Ordering::Relaxed);
        verified.fetch_add(u64::from(outcome.verified), Ordering::Relaxed);
        Ok(())
    });
    match result {
        Ok(()) => eprintln!(
            "{name}: {} cases, {} parsed, {} verified",
            runner.config().cases,
            parsed.into_inner(),
            verified.into_inner()
        ),
        Err(TestError::Fail(_, value)) => {
            let (text, no_implicit_module, local_scope) = input(&value);
            let failure = check(&text, no_implicit_module, local_scope)
                .expect_err("proptest's minimal failing case fails again");
            panic!(
                "{name}: {}\n\nproptest's minimal case:\n{value:#?}",
                minimized_report(&text, no_implicit_module, local_scope, &failure)
            );
        }
        Err(TestError::Abort(why)) => panic!("{name}: proptest gave up: {why}"),
    }
}

#[test]
fn mutated_corpus_never_panics() {
    fuzz("mutated_corpus_never_panics", 1500, case(), |case| {
        (case.text(), case.no_implicit_module, case.local_scope)
    });
}

/// Random sequences of tokens, identifiers and literals, from nothing.
#[test]
fn token_soup_never_panics() {
    let part =
        prop_oneof![4 => snippet(), 1 => "[a-z_][a-z0-9_.$]{0,8}", 1 => Just(" ".to_string())];
    let strategy = (proptest::collection::vec(part, 0..40), any::<bool>());
    fuzz(
        "token_soup_never_panics",
        500,
        strategy,
        |(parts, no_implicit_module)| (parts.concat(), *no_implicit_module, false),
    );
}

// ---------------------------------------------------------------------------------------------
// Every prefix of the corpus
// ---------------------------------------------------------------------------------------------

/// Files up to this size are cut at every byte offset; bigger ones at a stride that gives
/// about as many cuts.
const EVERY_OFFSET_LIMIT: usize = 3 * 1024;

#[test]
fn every_truncation_of_the_corpus_is_handled() {
    let mut failures = Vec::new();
    let (mut cuts, mut parsed) = (0usize, 0usize);
    for file in corpus() {
        let stride = file.bytes.len().div_ceil(EVERY_OFFSET_LIMIT).max(1);
        let mut offsets: Vec<usize> = (0..=file.bytes.len()).step_by(stride).collect();
        offsets.push(file.bytes.len());
        offsets.dedup();
        for cut in offsets {
            cuts += 1;
            let text = String::from_utf8_lossy(&file.bytes[..cut]);
            match check(&text, false, true) {
                Ok(outcome) => parsed += usize::from(outcome.parsed),
                Err(f) => {
                    failures.push(format!(
                        "{} cut at byte {cut}: {}",
                        file.name,
                        minimized_report(&text, false, true, &f)
                    ));
                    break;
                }
            }
        }
    }
    eprintln!("every_truncation_of_the_corpus_is_handled: {cuts} prefixes, {parsed} parsed");
    assert!(
        failures.is_empty(),
        "{} file(s) fail (the first failing cut of each):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Pathological inputs
// ---------------------------------------------------------------------------------------------

/// Inputs at the edges of the grammar: overflowing numbers, bad escapes, unterminated
/// constructs, stray trailer markers. Each must be accepted or rejected without a panic.
fn pathological() -> Vec<(&'static str, String)> {
    let op = |attr: &str| format!("\"t.op\"() {{a = {attr}}} : () -> ()\n");
    vec![
        ("empty", String::new()),
        ("only split marker", "// -----\n".to_string()),
        ("lone metadata start", "{-#".to_string()),
        ("lone metadata end", "#-}".to_string()),
        ("empty metadata", "{-# #-}".to_string()),
        ("metadata with empty resources", "{-# dialect_resources: { builtin: { } } #-}".to_string()),
        ("bad resource blob", "{-# dialect_resources: { builtin: { r: \"0x0\" } } #-}".to_string()),
        ("resource zero alignment", "{-# dialect_resources: { builtin: { r: \"0x00000000AA\" } } #-}".to_string()),
        ("resource odd hex", "{-# dialect_resources: { builtin: { r: \"0x01000000A\" } } #-}".to_string()),
        ("resource multibyte hex", "{-# dialect_resources: { builtin: { r: \"0x0100é000\" } } #-}".to_string()),
        ("resource multibyte hex at an odd offset", "{-# dialect_resources: { builtin: { r: \"0x€00000\" } } #-}".to_string()),
        ("lone sigils", "% ^ # ! @".to_string()),
        ("sigil at eof %", "%".to_string()),
        ("sigil at eof ^", "^".to_string()),
        ("sigil at eof #", "#".to_string()),
        ("sigil at eof !", "!".to_string()),
        ("sigil at eof @", "@".to_string()),
        ("unterminated symbol", "@\"abc".to_string()),
        ("unterminated string", "\"t.op".to_string()),
        ("string ending in backslash", "\"t.op\\".to_string()),
        ("string bad escape", "\"t.\\q\"() : () -> ()".to_string()),
        ("string short hex escape", op("\"\\4\"")),
        ("string non-ascii hex escape", op("\"\\é0\"")),
        ("string nul", op("\"a\0b\"")),
        ("string invalid utf8 escape", op("\"\\ff\\fe\"")),
        ("op name invalid utf8 escape", "\"\\ff\"() : () -> ()".to_string()),
        ("huge integer", op(&"9".repeat(5000))),
        ("huge negative integer", op(&format!("-{} : i64", "9".repeat(100)))),
        ("huge hex integer", op(&format!("0x{} : i32", "F".repeat(5000)))),
        ("i128 min", op("-170141183460469231731687303715884105728 : i128")),
        ("u128 max +1", op("340282366920938463463374607431768211456 : i129")),
        ("huge float exponent", op("1.0e99999999999999999999 : f64")),
        ("tiny float exponent", op("1.0e-99999999999999999999 : f32")),
        ("float many digits", op(&format!("1.{} : f64", "3".repeat(5000)))),
        ("infinite f64 in an array", op("[1.0e309, 2.0]")),
        ("f64 that prints in hex, in an array", op("[27483647.0, 6]")),
        ("dense i1 written as -1", op("dense<[1, -1, 1]> : tensor<3xi1>")),
        ("hex f64 in an array", op("[0x7FF0000000000000 : f64, 0x7FF8000000000000 : f64]")),
        ("hex f64 in a nested array", op("[[0xFFF0000000000000 : f64]]")),
        ("hex float too wide", op("0x7FF0000000000000FF : f64")),
        ("hex float for f16", op("0xFFFFFFFF : f16")),
        ("hex float for f80", op("0x7FFF8000000000000000 : f80")),
        ("float for small types", op("1.0 : f4E2M1FN")),
        ("integer width zero", op("0 : i0")),
        ("negative integer of width zero", op("-1 : i0")),
        ("integer width huge", op("1 : i99999999999")),
        ("integer width max", op("1 : i16777215")),
        ("integer width 2^24", op("1 : i16777216")),
        ("integer width u32 overflow", op("1 : i4294967297")),
        ("tensor dim overflow", op("tensor<99999999999999999999xf32>")),
        ("tensor dim i64 max", op("tensor<9223372036854775807x9223372036854775807xf32>")),
        ("tensor huge dense splat", op("dense<1> : tensor<9223372036854775807x9223372036854775807xi32>")),
        ("dense list for huge tensor", op("dense<[1, 2]> : tensor<4611686018427387904x4xi8>")),
        ("dense shape mismatch", op("dense<[1, 2, 3]> : tensor<2xi32>")),
        ("dense ragged", op("dense<[[1, 2], [3]]> : tensor<2x2xi32>")),
        ("dense hex wrong length", op("dense<\"0x0102\"> : tensor<3xi32>")),
        ("dense hex odd digits", op("dense<\"0x012\"> : tensor<1xi8>")),
        ("dense hex whose byte size overflows to 0", op("dense<\"0x\"> : tensor<2305843009213693952xi64>")),
        ("dense hex whose byte size overflows", op("dense<\"0x\"> : tensor<9223372036854775807xi64>")),
        ("dense hex empty", op("dense<\"0x\"> : tensor<0xi8>")),
        ("dense hex huge element", op("dense<\"0x00\"> : tensor<1xi4096>")),
        ("dense i1 value 2", op("dense<2> : tensor<2xi1>")),
        ("dense integer overflow", op("dense<256> : tensor<2xi8>")),
        ("dense float for int", op("dense<1.5> : tensor<2xi8>")),
        ("dense complex wrong arity", op("dense<(1, 2, 3)> : tensor<1xcomplex<i32>>")),
        ("dense zero-size", op("dense<> : tensor<0x4xf32>")),
        ("dense scalar dims", op("dense<[]> : tensor<0x0x0x0x0xf32>")),
        ("dense vector scalable", op("dense<1> : vector<[4]xi32>")),
        ("dense of unranked", op("dense<1> : tensor<*xi32>")),
        ("dense of dynamic", op("dense<1> : tensor<?xi32>")),
        ("dense of memref", op("dense<1> : memref<2xi32>")),
        ("sparse indices out of range", op("sparse<[[99999999999]], [1]> : tensor<4xi32>")),
        ("dense array overflow", op("array<i8: 1000>")),
        ("dense array i1", op("array<i1: true, 2>")),
        ("dense array float for int", op("array<i32: 1.5>")),
        ("dense array bad type", op("array<tensor<2xi32>: 1>")),
        ("distinct id overflow", op("distinct[99999999999999999999]<unit>")),
        ("distinct negative id", op("distinct[-1]<unit>")),
        ("affine division by zero", op("affine_map<(d0) -> (d0 floordiv 0, d0 ceildiv 0, d0 mod 0)>")),
        ("affine constant division by zero", op("affine_map<() -> (4 floordiv 0, 4 ceildiv 0, 4 mod 0)>")),
        ("affine constant overflow", op("affine_map<() -> (9223372036854775807 + 1, 9223372036854775807 * 2)>")),
        ("affine i64 min floordiv -1", op("affine_map<() -> (-9223372036854775808 floordiv -1, -9223372036854775808 mod -1)>")),
        ("affine i64 min negated", op("affine_map<() -> (-(-9223372036854775808))>")),
        ("affine i64 min ceildiv -1", op("affine_map<() -> ((-9223372036854775807 - 1) ceildiv -1)>")),
        ("affine coefficient overflow", op("affine_map<(d0) -> (d0 * 9223372036854775807 + d0 * 9223372036854775807)>")),
        ("affine mod of min", op("affine_map<(d0) -> ((d0 * -9223372036854775808) mod 3)>")),
        ("affine constant too big", op("affine_map<() -> (99999999999999999999)>")),
        ("affine unknown dim", op("affine_map<(d0) -> (d1)>")),
        ("affine symbol times symbol", op("affine_map<()[s0] -> (s0 * s0)>")),
        ("affine set overflow", op("affine_set<(d0) : (d0 * 9223372036854775807 + 9223372036854775807 >= 0)>")),
        ("affine set empty", op("affine_set<() : ()>")),
        ("affine many dims", op(&format!("affine_map<({}) -> (d0)>", (0..5000).map(|i| format!("d{i}")).collect::<Vec<_>>().join(", ")))),
        ("result number overflow", "%0:2 = \"t.a\"() : () -> (i32, i32)\n\"t.b\"(%0#99999999999999999999) : (i32) -> ()".to_string()),
        ("result number out of range", "%0:2 = \"t.a\"() : () -> (i32, i32)\n\"t.b\"(%0#2) : (i32) -> ()".to_string()),
        ("result count overflow", "%0:99999999999999999999 = \"t.a\"() : () -> ()".to_string()),
        ("result count huge", "%0:4294967295 = \"t.a\"() : () -> (i32)".to_string()),
        ("result count zero", "%0:0 = \"t.a\"() : () -> ()".to_string()),
        ("result count mismatch", "%0:3 = \"t.a\"() : () -> (i32, i32)".to_string()),
        ("result group name reuse", "%0, %0 = \"t.a\"() : () -> (i32, i32)".to_string()),
        ("use before def in graph", "\"t.b\"(%x) : (i32) -> ()\n%x = \"t.a\"() : () -> i32".to_string()),
        ("use of a value from a sibling's region",
            "\"t.s\"() ({\n^bb0(%b: f32):\n  \"t.e\"(%a, %b) : (i32, f32) -> ()\n}) : () -> ()\n\"t.t\"() ({\n^bb0(%a: i32):\n  \"t.u\"(%a) : (i32) -> ()\n}) : () -> ()".to_string()),
        ("undefined use", "\"t.b\"(%x) : (i32) -> ()".to_string()),
        ("forward ref type mismatch", "\"t.g\"() ({\n\"t.b\"(%x) : (i32) -> ()\n%x = \"t.a\"() : () -> i64\n}) : () -> ()".to_string()),
        ("self use", "%x = \"t.a\"(%x) : (i32) -> i32".to_string()),
        ("operand count mismatch", "%a = \"t.a\"() : () -> i32\n\"t.b\"(%a, %a) : (i32) -> ()".to_string()),
        ("block label overflow", "\"t.g\"() ({\n^bb99999999999999999999:\n\"t.r\"() : () -> ()\n}) : () -> ()".to_string()),
        ("undefined successor", "\"t.g\"() ({\n\"t.br\"()[^nope] : () -> ()\n}) : () -> ()".to_string()),
        ("successor at top level", "\"t.br\"()[^bb0] : () -> ()".to_string()),
        ("duplicate block", "\"t.g\"() ({\n^a:\n\"t.br\"()[^a] : () -> ()\n^a:\n\"t.r\"() : () -> ()\n}) : () -> ()".to_string()),
        ("block arg redefined", "\"t.g\"() ({\n^a(%x: i32, %x: i32):\n\"t.r\"() : () -> ()\n}) : () -> ()".to_string()),
        ("entry block with predecessors", "\"t.g\"() ({\n^a:\n\"t.br\"()[^a] : () -> ()\n}) : () -> ()".to_string()),
        ("empty region", "\"t.g\"() ({\n}) : () -> ()".to_string()),
        ("empty non-entry block", "\"t.g\"() ({\n\"t.br\"()[^b] : () -> ()\n^b:\n}) : () -> ()".to_string()),
        ("location line overflow", "\"t.a\"() : () -> () loc(\"f\":99999999999999999999:1)".to_string()),
        ("location line u32 max", "\"t.a\"() : () -> () loc(\"f\":4294967295:4294967295)".to_string()),
        ("location range", "\"t.a\"() : () -> () loc(\"f\":1:2 to 3:4)".to_string()),
        ("location undefined alias", "\"t.a\"() : () -> () loc(#nope)".to_string()),
        ("location alias to non-location", "#a = 1 : i32\n\"t.a\"() : () -> () loc(#a)".to_string()),
        ("location alias cycle", "#a = loc(#a)\n\"t.a\"() : () -> () loc(#a)".to_string()),
        ("attribute alias self", "#a = [#a]\n\"t.a\"() {x = #a} : () -> ()".to_string()),
        ("type alias self", "!a = tuple<!a>\n\"t.a\"() {x = !a} : () -> ()".to_string()),
        ("alias redefinition", "#a = 1\n#a = 2".to_string()),
        ("alias with dot", "#a.b = 1".to_string()),
        ("fused with metadata", "\"t.a\"() : () -> () loc(fused<\"x\">[\"f\":1:1, unknown])".to_string()),
        ("empty fused", "\"t.a\"() : () -> () loc(fused[])".to_string()),
        ("generic module without a region", "\"t.a\"() : () -> ()\n\"builtin.module\"() : () -> ()".to_string()),
        ("lone generic module without a region", "\"builtin.module\"() : () -> ()".to_string()),
        ("generic module with two regions", "\"builtin.module\"() ({\n}, {\n}) : () -> ()".to_string()),
        ("generic module with an unknown property", "\"builtin.module\"() <{i}> ({\n  \"p\"() : () -> ()\n}) : () -> ()".to_string()),
        ("nested generic module with an unknown property", "\"t.a\"() : () -> ()\n\"builtin.module\"() <{i = 1 : i32}> ({\n}) : () -> ()".to_string()),
        ("generic module with results", "%0 = \"builtin.module\"() ({\n}) : () -> i32".to_string()),
        ("module with results", "%0 = module {\n}".to_string()),
        ("module with name and attributes", "module @m attributes {a = 1} {\n}".to_string()),
        ("nested modules with same symbol", "module {\nmodule @m {\n}\nmodule @m {\n}\n}".to_string()),
        ("symbol name not a string", "\"t.a\"() {sym_name = 1} : () -> ()".to_string()),
        ("properties", "\"t.a\"() <{a = 1, a = 2}> {a = 3} : () -> ()".to_string()),
        ("duplicate attribute", op("1, a = 2")),
        ("empty attribute name", "\"t.a\"() {\"\" = 1} : () -> ()".to_string()),
        ("function type results", "\"t.a\"() : () -> (i32, i32)".to_string()),
        ("zero-width integer tensor", op("dense<0> : tensor<2xi0>")),
        ("vector of zero elements", op("vector<0xi32>")),
        ("vector scalable nested", op("vector<[[4]]xi32>")),
        ("memref bad layout", op("memref<4xf32, affine_map<(d0, d1) -> (d0)>>")),
        ("memref strided overflow", op("memref<4xf32, strided<[99999999999999999999]>>")),
        ("memref strided negative", op("memref<4xf32, strided<[-1], offset: -9223372036854775808>>")),
        ("memref memory space", op("memref<4xf32, 99999999999999999999>")),
        ("tensor encoding loop", op("tensor<4xf32, tensor<4xf32, tensor<4xf32>>>")),
        ("complex of integer 0", op("complex<i0>")),
        ("opaque type", op("!foo<\"\\\">")),
        ("opaque unbalanced", op("#foo<(]>")),
        ("opaque with arrow", op("#foo<a -> b>")),
        ("opaque with >=", op("#foo<(a >= b)>")),
        ("unit with type", op("unit : i32")),
        ("bool with type", op("true : i32")),
        ("type attr of function", op("(i32) -> (i32) -> i32")),
        ("symbol ref nested empty", op("@a::@\"\"")),
        ("bare keyword op", "return".to_string()),
        ("unrealized cast mismatch", "%0 = builtin.unrealized_conversion_cast to i32\n%1 = builtin.unrealized_conversion_cast %0 : i64 to i32".to_string()),
        ("bom", "\u{feff}\"t.a\"() : () -> ()".to_string()),
        ("nul byte", "\"t.a\"()\0 : () -> ()".to_string()),
        ("cr only newlines", "\"t.a\"() : () -> ()\r\"t.b\"() : () -> ()\r".to_string()),
        ("comment at eof without newline", "\"t.a\"() : () -> () // trailing".to_string()),
        ("many ops in one block", "\"t.a\"() : () -> ()\n".repeat(20_000)),
        ("many results", format!("%0:20000 = \"t.a\"() : () -> ({})", vec!["i32"; 20_000].join(", "))),
        ("many operands", format!("%0 = \"t.a\"() : () -> i32\n\"t.b\"({}) : ({}) -> ()", vec!["%0"; 20_000].join(", "), vec!["i32"; 20_000].join(", "))),
        ("many successors", format!("\"t.g\"() ({{\n\"t.br\"()[{}] : () -> ()\n^b:\n\"t.r\"() : () -> ()\n}}) : () -> ()", vec!["^b"; 20_000].join(", "))),
        ("many blocks", format!("\"t.g\"() ({{\n{}\"t.r\"() : () -> ()\n}}) : () -> ()", (0..5000).map(|i| format!("\"t.br\"()[^b{i}] : () -> ()\n^b{i}:\n")).collect::<String>())),
        ("long identifier", format!("\"{}\"() : () -> ()", "a.".repeat(50_000))),
        ("long value name", format!("%{} = \"t.a\"() : () -> i32", "v".repeat(100_000))),
    ]
}

#[test]
fn pathological_inputs() {
    let mut failures = Vec::new();
    for (name, text) in pathological() {
        for local_scope in [false, true] {
            if let Err(f) = check(&text, false, local_scope) {
                failures.push(format!("[{name}] {}", f.report));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} pathological input(s) fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Without the implicit module, a lone top-level operation is the root that prints; its
/// results must print as `%0`, like `mlir-opt --no-implicit-module` prints them.
#[test]
fn root_operation_with_results_round_trips() {
    let inputs = [
        "%0 = \"t.a\"() : () -> i32",
        "%0:2 = \"t.a\"() : () -> (i32, i32)",
        "%x = \"t.a\"(%x) : (i32) -> i32",
        "%0 = \"t.a\"() ({\n  \"t.b\"(%0) : (i32) -> ()\n}) : () -> i32",
    ];
    let failures: Vec<String> = inputs
        .iter()
        .filter_map(|text| check(text, true, false).err())
        .map(|f| f.report)
        .collect();
    assert!(
        failures.is_empty(),
        "{} input(s) fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// A value may be used only in its own region or in regions nested in it (the parser, like
/// MLIR's, resolves such a name; MLIR's verifier then says "operand #0 does not dominate this
/// use ... neither in a parent nor in a child region").
#[test]
fn uses_outside_the_defining_region_do_not_verify() {
    let inputs = [
        "\"t.s\"() ({\n  \"t.use\"(%a) : (i32) -> ()\n}) : () -> ()\n\"t.t\"() ({\n^bb0(%a: i32):\n  \"t.r\"() : () -> ()\n}) : () -> ()",
        "\"t.s\"() ({\n  \"t.use\"(%a) : (i32) -> ()\n}) : () -> ()\n\"t.t\"() ({\n  %a = \"t.def\"() : () -> i32\n}) : () -> ()",
    ];
    let mut wrong = Vec::new();
    for text in inputs {
        let mut ctx = Context::new();
        ctx.allow_unregistered_dialects = true;
        let top = parse_source(&mut ctx, text, "scope.mlir", &ParseOptions::default())
            .unwrap_or_else(|d| panic!("{text:?} does not parse: {}", d.message));
        if verify(&ctx, top).is_ok() {
            wrong.push(format!("{text:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "these verify, but use a value outside the region that defines it:\n{}",
        wrong.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Deep nesting
// ---------------------------------------------------------------------------------------------

/// The nesting kinds, each generating a `depth`-deep input (valid unless noted).
const DEEP_KINDS: &[&str] = &[
    "regions",
    "regions-unclosed",
    "arrays",
    "arrays-unclosed",
    "dictionaries",
    "tuple-types",
    "function-types",
    "dense-literal",
    "fused-locations",
    "name-locations",
    "callsite-locations",
    "affine-parens",
    "opaque-attribute",
    "modules",
    // Built through the API rather than parsed (and not re-parsed): these test the verifier
    // and the printer on deep IR that the parser did not have to produce.
    "built-regions",
    "built-arrays",
];

fn deep_input(kind: &str, depth: usize) -> String {
    let attr = |a: String| format!("\"t.op\"() {{a = {a}}} : () -> ()\n");
    let rep = |s: &str| s.repeat(depth);
    match kind {
        "regions" => format!(
            "{}\"t.end\"() : () -> ()\n{}",
            rep("\"t.op\"() ({\n"),
            rep("}) : () -> ()\n")
        ),
        "regions-unclosed" => rep("\"t.op\"() ({\n"),
        "arrays" => attr(format!("{}{}", rep("["), rep("]"))),
        "arrays-unclosed" => attr(rep("[")),
        "dictionaries" => attr(format!("{}{}", rep("{b = "), rep("}"))),
        "tuple-types" => attr(format!("{}i32{}", rep("tuple<"), rep(">"))),
        "function-types" => attr(format!("{}i32{}", rep("() -> ("), rep(")"))),
        "dense-literal" => attr(format!(
            "dense<{}1{}> : tensor<{}i32>",
            rep("["),
            rep("]"),
            rep("1x")
        )),
        "fused-locations" => format!(
            "\"t.op\"() : () -> () loc({}\"f\":1:1{})\n",
            rep("fused["),
            rep("]")
        ),
        "name-locations" => format!(
            "\"t.op\"() : () -> () loc({}\"f\":1:1{})\n",
            rep("\"n\"("),
            rep(")")
        ),
        "callsite-locations" => format!(
            "\"t.op\"() : () -> () loc({}\"f\":1:1{})\n",
            rep("callsite("),
            rep(" at \"g\":2:2)")
        ),
        "affine-parens" => attr(format!("affine_map<(d0) -> ({}d0{})>", rep("("), rep(")"))),
        "opaque-attribute" => attr(format!("#foo<{}{}>", rep("["), rep("]"))),
        "modules" => format!("{}{}", rep("module {\n"), rep("}\n")),
        _ => panic!("unknown nesting kind {kind}"),
    }
}

/// Builds a module holding `depth` nested single-block regions (`built-regions`) or one op
/// with a `depth`-deep array attribute (`built-arrays`).
fn build_deep(ctx: &mut Context, kind: &str, depth: usize) -> OpId {
    let loc = ctx.unknown_loc();
    let new_op =
        |ctx: &mut Context, name: &str, num_regions: usize, attributes: Vec<(String, Attr)>| {
            let name = ctx.intern_op_name(name);
            ctx.create_op(OperationState {
                name,
                operands: vec![],
                result_types: vec![],
                successors: vec![],
                num_regions,
                properties: None,
                attributes,
                loc,
            })
        };
    let add_block = |ctx: &mut Context, op: OpId| {
        let block = ctx.create_block();
        ctx.append_block(ctx.op(op).regions[0], block);
        block
    };
    let module = new_op(ctx, "builtin.module", 1, vec![]);
    let mut block = add_block(ctx, module);
    match kind {
        "built-regions" => {
            for _ in 0..depth {
                let op = new_op(ctx, "t.op", 1, vec![]);
                ctx.append_op(block, op);
                block = add_block(ctx, op);
            }
            let end = new_op(ctx, "t.end", 0, vec![]);
            ctx.append_op(block, end);
        }
        "built-arrays" => {
            let mut attr = ctx.intern_attr(AttrKind::Array(vec![]));
            for _ in 1..depth {
                attr = ctx.intern_attr(AttrKind::Array(vec![attr]));
            }
            let op = new_op(ctx, "t.op", 0, vec![("a".to_string(), attr)]);
            ctx.append_op(block, op);
        }
        _ => panic!("unknown nesting kind {kind}"),
    }
    module
}

/// Parses, verifies and prints a deep input on a thread with `stack` bytes of stack,
/// announcing each phase on stderr so that a parent can tell where a crash happened.
fn run_deep(kind: &str, depth: usize, stack: usize) {
    let kind = kind.to_string();
    let phase = |name: &str| eprintln!("{PHASE_MARK}{name}");
    let worker = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            for allow_unregistered in [true, false] {
                let mut ctx = Context::new();
                ctx.allow_unregistered_dialects = allow_unregistered;
                let parsed = if kind.starts_with("built-") {
                    phase("build");
                    Ok(build_deep(&mut ctx, &kind, depth))
                } else {
                    let text = deep_input(&kind, depth);
                    phase("parse");
                    parse_source(&mut ctx, &text, "deep.mlir", &ParseOptions::default())
                };
                if let Ok(top) = parsed {
                    phase("verify");
                    let _ = verify(&ctx, top);
                    for generic in [false, true] {
                        let print = PrintOptions {
                            generic,
                            debug_info: true,
                            local_scope: false,
                        };
                        phase(if generic {
                            "print (generic)"
                        } else {
                            "print (custom)"
                        });
                        let printed = print_operation(&ctx, top, print);
                        if kind.starts_with("built-") {
                            // The parser's own limits are what the parsed kinds measure.
                            continue;
                        }
                        let mut again = Context::new();
                        again.allow_unregistered_dialects = allow_unregistered;
                        phase("re-parse of the printed text");
                        let reparsed = parse_source(
                            &mut again,
                            &printed,
                            "printed.mlir",
                            &ParseOptions::default(),
                        );
                        phase("drop of the re-parsed module");
                        drop((reparsed, again));
                    }
                    phase("drop of the module");
                } else {
                    phase("drop of the failed parse");
                }
                drop((parsed, ctx));
            }
            phase("done");
        });
    worker
        .expect("spawn the deep-nesting worker")
        .join()
        .expect("the deep-nesting worker panicked");
}

const PHASE_MARK: &str = "[deep-nesting phase] ";

/// Child-process entry: parses the case named by the environment, then exits. Ignored so
/// that it runs only when `deep_nesting_*` start it.
#[test]
#[ignore = "started as a child process by the deep_nesting_* tests"]
fn deep_nesting_child() {
    let (Ok(kind), Ok(depth), Ok(stack)) = (
        std::env::var("TB_DEEP_KIND"),
        std::env::var("TB_DEEP_DEPTH"),
        std::env::var("TB_DEEP_STACK"),
    ) else {
        return;
    };
    run_deep(
        &kind,
        depth.parse().expect("TB_DEEP_DEPTH"),
        stack.parse().expect("TB_DEEP_STACK"),
    );
}

/// Runs one deep case in a child process; `Err` describes how the child died.
fn deep_in_child(kind: &str, depth: usize, stack: usize) -> Result<(), String> {
    let output = Command::new(std::env::current_exe().expect("test executable"))
        .args([
            "--exact",
            "deep_nesting_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TB_DEEP_KIND", kind)
        .env("TB_DEEP_DEPTH", depth.to_string())
        .env("TB_DEEP_STACK", stack.to_string())
        .output()
        .expect("start the child test process");
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let phase = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(PHASE_MARK))
        .next_back()
        .unwrap_or("start-up");
    let reason = stderr
        .lines()
        .find(|l| l.contains("overflowed its stack") || l.contains("panicked"))
        .unwrap_or("no message")
        .trim();
    Err(format!("{} in {phase}: {reason}", output.status))
}

const MIB: usize = 1024 * 1024;

/// 10,000 levels of every nesting kind in text must parse or be rejected on a 2 MB stack, the
/// size of a default test thread, and on 8 MB, the size of a default main thread (the parser
/// refuses more than `MAX_NESTING` levels). IR built through the API is not limited; the
/// verifier is iterative but the printer recurses, so built IR is checked at four times the
/// parser's limit, which is well within both stacks even in debug builds.
#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    const TEXT_DEPTH: usize = 10_000;
    const BUILT_DEPTH: usize = 4 * tb_ir::parser::MAX_NESTING as usize;
    let mut failures = Vec::new();
    for &kind in DEEP_KINDS {
        let depth = if kind.starts_with("built-") {
            BUILT_DEPTH
        } else {
            TEXT_DEPTH
        };
        for stack in [2 * MIB, 8 * MIB] {
            if let Err(e) = deep_in_child(kind, depth, stack) {
                failures.push(format!(
                    "{kind}: depth {depth} on a {} MiB stack: {e}",
                    stack / MIB
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "deep nesting crashes the parser/verifier/printer (run `cargo test --release -p tb-ir --test parser_fuzz -- --ignored deep_nesting_overflow_depths --nocapture` for the limits):\n{}",
        failures.join("\n")
    );
}

/// Finds, by bisection, the smallest depth of each kind that crashes on 2 MB and 8 MB
/// stacks, and the phase (parse, verify, print, ...) that crashes there.
#[test]
#[ignore = "measurement; run by hand with --ignored --nocapture"]
fn deep_nesting_overflow_depths() {
    const LIMIT: usize = 1 << 20;
    println!("{:<20} {:>40} {:>40}", "kind", "2 MiB stack", "8 MiB stack");
    for &kind in DEEP_KINDS {
        let mut row = Vec::new();
        for stack in [2 * MIB, 8 * MIB] {
            let (mut ok, mut bad) = (0usize, None);
            let mut probe = 256;
            // Grow until it crashes, then bisect between the last good and the first bad depth.
            while bad.is_none() && probe <= LIMIT {
                match deep_in_child(kind, probe, stack) {
                    Ok(()) => {
                        ok = probe;
                        probe *= 4;
                    }
                    Err(e) => bad = Some((probe, e)),
                }
            }
            let cell = match bad {
                None => format!("no crash up to {ok}"),
                Some((mut bad, mut why)) => {
                    while bad - ok > (ok / 100).max(1) {
                        let mid = ok + (bad - ok) / 2;
                        match deep_in_child(kind, mid, stack) {
                            Ok(()) => ok = mid,
                            Err(e) => (bad, why) = (mid, e),
                        }
                    }
                    let phase = why
                        .split(" in ")
                        .nth(1)
                        .and_then(|p| p.split(':').next())
                        .unwrap_or("?");
                    format!("~{bad} (in {phase})")
                }
            };
            row.push(cell);
        }
        println!("{:<20} {:>40} {:>40}", kind, row[0], row[1]);
    }
}
