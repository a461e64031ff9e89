//! `tb-opt`: reads MLIR text, verifies it and prints it back, like `mlir-opt`.

use std::io::Read;
use std::process::ExitCode;

use clap::Parser as ClapParser;
use tb_ir::diagnostics::{self, Diagnostic, SourceMgr};
use tb_ir::expected_diagnostics::{self, Expected};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline, PipelineElement};
use tb_ir::printer::{Elision, PrintOptions, print_operation, print_operation_with};
use tb_ir::{Context, Severity, verifier};
use tb_support::write_output;

#[derive(ClapParser, Debug)]
#[command(
    name = "tb-opt",
    version,
    about = "TensorBind optimizer driver: parse, verify, transform and print MLIR"
)]
struct Args {
    /// Input file (`-` for standard input).
    #[arg(default_value = "-")]
    input: String,
    /// Output file (`-` for standard output).
    #[arg(short = 'o', default_value = "-")]
    output: String,
    /// Accept operations, types and attributes of dialects that are not registered.
    #[arg(long = "allow-unregistered-dialect")]
    allow_unregistered_dialect: bool,
    /// Print every operation in the generic form.
    #[arg(long = "mlir-print-op-generic")]
    print_op_generic: bool,
    /// Print locations.
    #[arg(long = "mlir-print-debuginfo")]
    print_debuginfo: bool,
    /// Print everything inline, without aliases.
    #[arg(long = "mlir-print-local-scope")]
    print_local_scope: bool,
    /// Split the input on `// -----` lines and process each chunk on its own.
    #[arg(long = "split-input-file", num_args = 0..=1, default_missing_value = "// -----", require_equals = true)]
    split_input_file: Option<String>,
    /// Check diagnostics against `expected-*` comments instead of printing them.
    #[arg(long = "verify-diagnostics")]
    verify_diagnostics: bool,
    /// Print, re-parse and print again, failing if the two outputs differ.
    #[arg(long = "verify-roundtrip")]
    verify_roundtrip: bool,
    /// Do not wrap top-level operations in an implicit module.
    #[arg(long = "no-implicit-module")]
    no_implicit_module: bool,
    /// The passes to run, in MLIR's textual syntax: `builtin.module(func.func(cse),dce)`.
    /// Registered passes may also be named as flags (`--cse --dce`), run in order.
    #[arg(long = "pass-pipeline")]
    pass_pipeline: Option<String>,
    /// Print the pipeline (with every option) to stderr before running it.
    #[arg(long = "dump-pass-pipeline")]
    dump_pass_pipeline: bool,
    /// List the registered dialects, and exit.
    #[arg(long = "show-dialects")]
    show_dialects: bool,
    /// List the registered passes and their options, and exit.
    #[arg(long = "list-passes")]
    list_passes: bool,
    /// Verify the IR after each pass.
    #[arg(long = "verify-each", default_value_t = true, num_args = 0..=1, default_missing_value = "true", require_equals = true, action = clap::ArgAction::Set)]
    verify_each: bool,
    /// Print the IR before these passes (comma-separated pass names).
    #[arg(
        long = "mlir-print-ir-before",
        value_delimiter = ',',
        require_equals = true
    )]
    print_ir_before: Vec<String>,
    /// Print the IR after these passes (comma-separated pass names).
    #[arg(
        long = "mlir-print-ir-after",
        value_delimiter = ',',
        require_equals = true
    )]
    print_ir_after: Vec<String>,
    /// Print the IR before every pass.
    #[arg(long = "mlir-print-ir-before-all")]
    print_ir_before_all: bool,
    /// Print the IR after every pass.
    #[arg(long = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,
    /// Print the IR after a pass only if it changed it.
    #[arg(long = "mlir-print-ir-after-change")]
    print_ir_after_change: bool,
    /// Print the IR after a pass that failed.
    #[arg(long = "mlir-print-ir-after-failure")]
    print_ir_after_failure: bool,
    /// Report the wall time of every pass on stderr.
    #[arg(long = "mlir-timing")]
    timing: bool,
    #[command(flatten)]
    elide: tb_tools::print_flags::ElideFlags,
    /// Write MLIR bytecode instead of text (not supported: the error says what to use).
    #[arg(long = "emit-bytecode")]
    emit_bytecode: bool,
    /// Print the passes' statistics after the pipeline ran (to stderr).
    #[arg(long = "mlir-pass-statistics")]
    pass_statistics: bool,
    /// How --mlir-timing shows passes: `list` (summed by name) or `tree` (as nested).
    #[arg(long = "mlir-timing-display", default_value = "list", value_parser = ["list", "tree"], require_equals = true)]
    timing_display: String,
    /// When a pass fails, write the input IR and the pipeline to FILE, so that
    /// `tb-opt --run-reproducer FILE` replays the failure.
    #[arg(long = "mlir-pass-pipeline-crash-reproducer", value_name = "FILE")]
    crash_reproducer: Option<String>,
    /// Run every pass on this thread. Without it, a nested pipeline (`func.func(...)`) runs
    /// on several ops isolated from above at once, on as many threads as the machine offers
    /// or as the TB_NUM_THREADS environment variable says; the output is the same.
    #[arg(long = "mlir-disable-threading")]
    disable_threading: bool,
    /// Run the pipeline recorded in the input's `mlir_reproducer` resource.
    #[arg(long = "run-reproducer")]
    run_reproducer: bool,
    /// Passes named as flags, collected before clap sees the command line.
    #[arg(skip)]
    flag_passes: Vec<PipelineElement>,
}

fn count_passes(p: &Pipeline) -> usize {
    p.elements
        .iter()
        .map(|e| match e {
            PipelineElement::Pass { .. } => 1,
            PipelineElement::Nested(n) => count_passes(n),
        })
        .sum()
}

/// Every pass TensorBind registers.
/// The library's passes and the named pipelines (`tb-cpu`).
fn pass_registry() -> PassRegistry {
    tb_tools::lower::registry()
}

/// `--show-dialects`: the dialects whose ops this build registers, as `mlir-opt` lists them.
fn show_dialects() -> Result<String, String> {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).map_err(|bug| format!("internal error: {bug}"))?;
    let mut names: Vec<&str> = ctx
        .registered_op_infos()
        .filter_map(|info| info.name.split_once('.').map(|(dialect, _)| dialect))
        .collect();
    names.push("builtin");
    names.sort_unstable();
    names.dedup();
    let mut out = String::from("Available Dialects: ");
    out.push_str(&names.join(", "));
    out.push('\n');
    Ok(out)
}

/// Takes `--<pass>` and `--<pass>=<options>` out of the command line: registered passes
/// can be named as flags, like `mlir-opt --cse`.
fn take_pass_flags(
    argv: Vec<String>,
    registry: &PassRegistry,
) -> (Vec<String>, Vec<PipelineElement>) {
    let mut rest = Vec::new();
    let mut passes = Vec::new();
    for arg in argv {
        let flag = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-').filter(|a| !a.starts_with('-')));
        let (name, options) = match flag.map(|f| f.split_once('=').unwrap_or((f, ""))) {
            Some((name, options)) if registry.get(name).is_some() => (name, options),
            _ => {
                rest.push(arg);
                continue;
            }
        };
        let options = options.trim_matches('"');
        let element = if options.is_empty() {
            PipelineElement::Pass {
                name: name.to_string(),
                options: Vec::new(),
            }
        } else {
            match Pipeline::parse(&format!("any({name}{{{options}}})")) {
                Ok(mut p) => p.elements.remove(0),
                Err(e) => {
                    eprintln!("tb-opt: invalid options for --{name}: {}", e.message);
                    std::process::exit(1);
                }
            }
        };
        passes.push(element);
    }
    (rest, passes)
}

/// The pipeline the command line asks for, if any.
fn requested_pipeline(args: &Args) -> Result<Option<Pipeline>, String> {
    match (&args.pass_pipeline, args.flag_passes.is_empty()) {
        (Some(_), false) => {
            Err("--pass-pipeline cannot be combined with passes given as flags".into())
        }
        (Some(text), true) => Pipeline::parse(text).map(Some).map_err(|e| {
            format!(
                "invalid pass pipeline: {}\n  {text}\n  {}^",
                e.message,
                " ".repeat(e.offset)
            )
        }),
        (None, false) => Ok(Some(Pipeline {
            anchor: "builtin.module".into(),
            elements: args.flag_passes.clone(),
        })),
        (None, true) => Ok(None),
    }
}

fn instrumentation(args: &Args, print: PrintOptions) -> Instrumentation {
    let all = |flag: bool, list: &[String]| {
        if flag {
            vec!["*".to_string()]
        } else {
            list.to_vec()
        }
    };
    Instrumentation {
        print_before: all(args.print_ir_before_all, &args.print_ir_before),
        print_after: all(args.print_ir_after_all, &args.print_ir_after),
        print_after_change: args.print_ir_after_change,
        print_after_failure: args.print_ir_after_failure,
        verify_each: args.verify_each,
        timing: args.timing,
        statistics: args.pass_statistics,
        print: PrintOptions {
            local_scope: true,
            ..print
        },
    }
}

/// The input IR with the pipeline recorded in an `mlir_reproducer` external resource, as
/// MLIR writes reproducers.
fn reproducer_text(
    ctx: &mut Context,
    top: tb_ir::OpId,
    pipeline: &Pipeline,
    verify_each: bool,
) -> String {
    use tb_ir::context::ExternalResourceValue;
    let saved = ctx.external_resources.shift_remove("mlir_reproducer");
    ctx.external_resources.insert(
        "mlir_reproducer".into(),
        vec![
            (
                "pipeline".into(),
                ExternalResourceValue::String(pipeline.to_string().into_bytes()),
            ),
            (
                "disable_threading".into(),
                ExternalResourceValue::Bool(true),
            ),
            (
                "verify_each".into(),
                ExternalResourceValue::Bool(verify_each),
            ),
        ],
    );
    // A reproducer must replay the failure: it keeps every constant, whatever is elided.
    let text = print_operation_with(
        ctx,
        top,
        PrintOptions {
            generic: true,
            debug_info: true,
            local_scope: true,
        },
        Elision::NONE,
    );
    ctx.external_resources.shift_remove("mlir_reproducer");
    if let Some(saved) = saved {
        ctx.external_resources
            .insert("mlir_reproducer".into(), saved);
    }
    text
}

/// The pipeline a reproducer file recorded.
fn reproducer_pipeline(ctx: &Context) -> Result<Pipeline, String> {
    use tb_ir::context::ExternalResourceValue;
    let entries = ctx
        .external_resources
        .get("mlir_reproducer")
        .ok_or("--run-reproducer: the input has no 'mlir_reproducer' resource")?;
    let text = entries
        .iter()
        .find_map(|(k, v)| match v {
            ExternalResourceValue::String(s) if k == "pipeline" => {
                Some(String::from_utf8_lossy(s).into_owned())
            }
            _ => None,
        })
        .ok_or("--run-reproducer: the 'mlir_reproducer' resource has no string 'pipeline'")?;
    Pipeline::parse(&text).map_err(|e| format!("--run-reproducer: invalid recorded pipeline: {e}"))
}

/// Whether a reproducer asks for `disable_threading: true`.
fn reproducer_disables_threading(ctx: &Context) -> bool {
    use tb_ir::context::ExternalResourceValue;
    ctx.external_resources
        .get("mlir_reproducer")
        .is_some_and(|entries| {
            entries
                .iter()
                .any(|(k, v)| k == "disable_threading" && *v == ExternalResourceValue::Bool(true))
        })
}

/// `--list-passes`: names, descriptions and typed options with defaults.
fn list_passes(registry: &PassRegistry) -> String {
    let mut out = String::from("Passes:\n");
    for info in registry.iter() {
        out.push_str(&format!("  --{:<24} {}\n", info.argument, info.description));
        for o in info.options {
            out.push_str(&format!(
                "      {}: {} = {:<10} {}\n",
                o.name,
                o.kind.spelling(),
                if o.default.is_empty() {
                    "\"\""
                } else {
                    o.default
                },
                o.help
            ));
        }
    }
    out
}

/// A piece of the input with the line number (0-based) it starts at.
struct Chunk<'a> {
    text: &'a str,
    first_line: u32,
}

fn split_chunks<'a>(text: &'a str, marker: Option<&str>) -> Vec<Chunk<'a>> {
    let Some(marker) = marker else {
        return vec![Chunk {
            text,
            first_line: 0,
        }];
    };
    let mut chunks = Vec::new();
    let (mut start, mut start_line, mut line_no, mut pos) = (0usize, 0u32, 0u32, 0usize);
    for line in text.split_inclusive('\n') {
        if line.trim_end() == marker
            || line.trim_end().starts_with(marker)
                && line.trim_end()[marker.len()..].trim().is_empty()
        {
            chunks.push(Chunk {
                text: &text[start..pos],
                first_line: start_line,
            });
            start = pos + line.len();
            start_line = line_no + 1;
        }
        pos += line.len();
        line_no += 1;
    }
    chunks.push(Chunk {
        text: &text[start..],
        first_line: start_line,
    });
    chunks
}

/// A chunk that failed: its diagnostics and the context their locations live in.
struct ChunkFailure {
    ctx: Box<Context>,
    diagnostics: Vec<Diagnostic>,
}

impl ChunkFailure {
    fn new(ctx: Context, diagnostic: Diagnostic) -> ChunkFailure {
        ChunkFailure {
            ctx: Box::new(ctx),
            diagnostics: vec![diagnostic],
        }
    }
}

/// A context with every TensorBind dialect registered.
fn new_context(allow_unregistered: bool) -> Context {
    let mut ctx = Context::new();
    if let Err(bug) = tb_dialects::register_all(&mut ctx) {
        // A malformed op definition is a bug in a dialect, not in the input.
        eprintln!("tb-opt: internal error: {bug}");
        std::process::exit(70);
    }
    ctx.allow_unregistered_dialects = allow_unregistered;
    ctx
}

/// Parses, verifies and prints one chunk (after an optional round-trip check).
fn process_chunk(
    args: &Args,
    pipeline: Option<&Pipeline>,
    filename: &str,
    chunk: &Chunk,
) -> Result<String, ChunkFailure> {
    let mut ctx = new_context(args.allow_unregistered_dialect);
    let options = ParseOptions {
        no_implicit_module: args.no_implicit_module,
        line_offset: chunk.first_line,
    };
    let chunk_start = std::time::Instant::now();
    let top = match parse_source(&mut ctx, chunk.text, filename, &options) {
        Ok(op) => op,
        Err(diag) => return Err(ChunkFailure::new(ctx, diag)),
    };
    if let Err(diagnostics) = verifier::verify_all(&ctx, top) {
        return Err(ChunkFailure {
            ctx: Box::new(ctx),
            diagnostics,
        });
    }
    let print = PrintOptions {
        generic: args.print_op_generic,
        debug_info: args.print_debuginfo,
        local_scope: args.print_local_scope,
    };
    let mut timing: Option<(PassManager, std::time::Instant)> = None;
    let recorded;
    let pipeline = if args.run_reproducer && pipeline.is_none() {
        recorded = match reproducer_pipeline(&ctx) {
            Ok(p) => p,
            Err(message) => {
                let loc = ctx.op(top).loc;
                return Err(ChunkFailure::new(ctx, Diagnostic::error(loc, message)));
            }
        };
        Some(&recorded)
    } else {
        pipeline
    };
    if let Some(pipeline) = pipeline {
        // The reproducer holds the IR as it was before the pipeline ran.
        let reproducer = args.crash_reproducer.as_ref().map(|path| {
            (
                path,
                reproducer_text(&mut ctx, top, pipeline, args.verify_each),
            )
        });
        let mut pm = match PassManager::new(pipeline, &pass_registry()) {
            Ok(pm) => pm,
            Err(message) => {
                let loc = ctx.op(top).loc;
                return Err(ChunkFailure::new(ctx, Diagnostic::error(loc, message)));
            }
        };
        // A replayed reproducer runs the way it was recorded.
        if args.disable_threading || args.run_reproducer && reproducer_disables_threading(&ctx) {
            pm.set_threads(1);
        }
        let parsed_at = std::time::Instant::now();
        let result = pm.run(&mut ctx, top, &instrumentation(args, print));
        eprint!("{}", pm.log);
        if args.pass_statistics && result.is_ok() {
            eprint!("{}", pm.statistics_report());
        }
        if args.timing {
            timing = Some((pm, parsed_at));
        }
        if let Err(diag) = result {
            if let Some((path, text)) = reproducer {
                match write_output(path, text.as_bytes()) {
                    Ok(()) => eprintln!(
                        "tb-opt: reproducer written to {path}; replay it with: tb-opt --run-reproducer {path}"
                    ),
                    Err(e) => eprintln!("tb-opt: reproducer: {e}"),
                }
            }
            return Err(ChunkFailure::new(ctx, diag));
        }
    }
    if args.verify_roundtrip
        && let Err(diag) = verify_roundtrip(&ctx, top, args.allow_unregistered_dialect, filename)
    {
        return Err(ChunkFailure::new(ctx, diag));
    }
    let output_start = std::time::Instant::now();
    let text = print_operation(&ctx, top, print);
    if let Some((pm, parsed_at)) = &timing {
        // Parsing and verification before the pipeline, printing after it.
        let parse = parsed_at.duration_since(chunk_start);
        let output = output_start.elapsed();
        let tree = args.timing_display == "tree";
        eprint!(
            "{}",
            pm.timing_report(
                chunk_start.elapsed(),
                tree,
                &[("Parser", parse)],
                &[("Output", output)]
            )
        );
    }
    // The process ends soon after; freeing a large module op by op would only cost time.
    std::mem::forget(ctx);
    Ok(text)
}

/// Prints in the generic and the custom form (with locations), re-parses each and prints
/// again: both prints must be identical.
fn verify_roundtrip(
    ctx: &Context,
    top: tb_ir::OpId,
    allow_unregistered: bool,
    filename: &str,
) -> Result<(), Diagnostic> {
    for generic in [true, false] {
        let form = if generic { "generic" } else { "custom" };
        let print = PrintOptions {
            generic,
            debug_info: true,
            local_scope: true,
        };
        let first = print_operation_with(ctx, top, print, Elision::NONE);
        let mut again = new_context(allow_unregistered);
        let reparsed = parse_source(&mut again, &first, filename, &ParseOptions::default())
            .map_err(|d| {
                Diagnostic::error(
                    ctx.op(top).loc,
                    format!(
                        "roundtrip: the {form} form does not parse back: {}",
                        d.message
                    ),
                )
            })?;
        let second = print_operation_with(&again, reparsed, print, Elision::NONE);
        if first != second {
            let line = first
                .lines()
                .zip(second.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0)
                + 1;
            return Err(Diagnostic::error(
                ctx.op(top).loc,
                format!(
                    "roundtrip: the {form} form prints differently after re-parsing (first difference on printed line {line})"
                ),
            ));
        }
    }
    Ok(())
}

/// The input's text; MLIR bytecode is refused with a way to convert it.
fn read_input(path: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    read.map_err(|e| format!("cannot read '{path}': {e}"))?;
    if bytes.starts_with(tb_tools::print_flags::BYTECODE_MAGIC) {
        return Err(tb_tools::print_flags::bytecode_input_error(path));
    }
    String::from_utf8(bytes).map_err(|e| format!("cannot read '{path}': {e}"))
}

fn main() -> ExitCode {
    let registry = pass_registry();
    let (argv, flag_passes) = take_pass_flags(std::env::args().collect(), &registry);
    let mut args = Args::parse_from(argv);
    args.flag_passes = flag_passes;
    if args.list_passes {
        print!("{}", list_passes(&registry));
        return ExitCode::SUCCESS;
    }
    if args.emit_bytecode {
        eprintln!("tb-opt: {}", tb_tools::print_flags::BYTECODE_UNSUPPORTED);
        return ExitCode::FAILURE;
    }
    args.elide.apply();
    if args.show_dialects {
        return match show_dialects() {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("tb-opt: {message}");
                ExitCode::FAILURE
            }
        };
    }
    if let Err(message) = tb_ir::pass::threads_from_env() {
        eprintln!("tb-opt: {message}");
        return ExitCode::FAILURE;
    }
    let pipeline = match requested_pipeline(&args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("tb-opt: {message}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(p) = &pipeline {
        // Resolve once up front so unknown passes or bad options fail before any parsing.
        match PassManager::new(p, &registry) {
            Ok(pm) if args.dump_pass_pipeline => eprintln!(
                "Pass Manager with {} passes:\n{}\n",
                count_passes(p),
                pm.pipeline()
            ),
            Ok(_) => {}
            Err(message) => {
                eprintln!("tb-opt: {message}");
                return ExitCode::FAILURE;
            }
        }
    }
    let text = match read_input(&args.input) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("tb-opt: {message}");
            return ExitCode::FAILURE;
        }
    };
    let filename = if args.input == "-" {
        "<stdin>".to_string()
    } else {
        args.input.clone()
    };
    let mut sources = SourceMgr::new();
    sources.add_buffer(&filename, &text);
    let chunks = split_chunks(&text, args.split_input_file.as_deref());
    let mut outputs = Vec::new();
    let mut failed = false;
    for chunk in &chunks {
        let result = process_chunk(&args, pipeline.as_ref(), &filename, chunk);
        if args.verify_diagnostics {
            if !check_expected(&filename, chunk, &sources, result.as_ref().err()) {
                failed = true;
            }
            continue;
        }
        match result {
            Ok(out) => outputs.push(out),
            Err(failure) => {
                failed = true;
                for d in &failure.diagnostics {
                    eprint!("{}", diagnostics::render(&failure.ctx, &sources, d));
                }
            }
        }
    }
    // A failed run leaves an existing output file as it was.
    let keep_existing_output = failed && args.output != "-";
    if !args.verify_diagnostics && !keep_existing_output {
        let joined = outputs.join("// -----\n");
        if let Err(e) = write_output(&args.output, joined.as_bytes()) {
            eprintln!("tb-opt: {e}");
            return ExitCode::FAILURE;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Compares one chunk's diagnostics with its `expected-*` comments; prints mismatches.
fn check_expected(
    filename: &str,
    chunk: &Chunk,
    sources: &SourceMgr,
    failure: Option<&ChunkFailure>,
) -> bool {
    let mut expected: Vec<Expected> =
        match expected_diagnostics::parse_expectations(chunk.text, chunk.first_line + 1) {
            Ok(e) => e,
            Err((line, msg)) => {
                eprintln!("{filename}:{line}: error: {msg}");
                return false;
            }
        };
    let mut ok = true;
    if let Some(ChunkFailure {
        ctx,
        diagnostics: diags,
    }) = failure
    {
        for d in diags {
            for diag in std::iter::once(d).chain(d.notes.iter()) {
                let line = diagnostics::file_position(ctx, diag.loc).map(|(_, l, _)| l);
                if !expected_diagnostics::match_diagnostic(
                    &mut expected,
                    diag.severity,
                    line,
                    &diag.message,
                ) {
                    ok = false;
                    let mut unexpected = diag.clone();
                    unexpected.message =
                        format!("unexpected {}: {}", diag.severity.as_str(), diag.message);
                    unexpected.severity = Severity::Error;
                    unexpected.notes.clear();
                    eprint!("{}", diagnostics::render(ctx, sources, &unexpected));
                }
            }
        }
    }
    for e in expected.iter().filter(|e| !e.matched) {
        ok = false;
        eprintln!(
            "{filename}:{}: error: expected {} \"{}\" was not produced",
            e.comment_line,
            e.severity.as_str(),
            e.message
        );
    }
    ok
}
