//! `tb-opt`: reads MLIR text, verifies it and prints it back, like `mlir-opt`.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::Parser as ClapParser;
use tb_ir::diagnostics::{self, Diagnostic, SourceMgr};
use tb_ir::expected_diagnostics::{self, Expected};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::{Context, Severity, verifier};

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
    tb_dialects::register_all(&mut ctx);
    ctx.allow_unregistered_dialects = allow_unregistered;
    ctx
}

/// Parses, verifies and prints one chunk (after an optional round-trip check).
fn process_chunk(args: &Args, filename: &str, chunk: &Chunk) -> Result<String, ChunkFailure> {
    let mut ctx = new_context(args.allow_unregistered_dialect);
    let options = ParseOptions {
        no_implicit_module: args.no_implicit_module,
        line_offset: chunk.first_line,
    };
    let top = match parse_source(&mut ctx, chunk.text, filename, &options) {
        Ok(op) => op,
        Err(diag) => return Err(ChunkFailure::new(ctx, diag)),
    };
    if let Err(diag) = verifier::verify(&ctx, top) {
        return Err(ChunkFailure::new(ctx, diag));
    }
    let print = PrintOptions {
        generic: args.print_op_generic,
        debug_info: args.print_debuginfo,
        local_scope: args.print_local_scope,
    };
    if args.verify_roundtrip
        && let Err(diag) = verify_roundtrip(&ctx, top, args.allow_unregistered_dialect, filename)
    {
        return Err(ChunkFailure::new(ctx, diag));
    }
    let text = print_operation(&ctx, top, print);
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
        let first = print_operation(ctx, top, print);
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
        let second = print_operation(&again, reparsed, print);
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

fn read_input(path: &str) -> std::io::Result<String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        Ok(s)
    } else {
        std::fs::read_to_string(path)
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let text = match read_input(&args.input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tb-opt: cannot read '{}': {e}", args.input);
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
        let result = process_chunk(&args, &filename, chunk);
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
        if let Err(e) = write_output(&args.output, &joined) {
            eprintln!("tb-opt: cannot write '{}': {e}", args.output);
            return ExitCode::FAILURE;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes to a temporary file first so a failed run never leaves a truncated output.
fn write_output(path: &str, text: &str) -> std::io::Result<()> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        return out.flush();
    }
    let tmp = format!("{path}.tmp-{}", std::process::id());
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
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
