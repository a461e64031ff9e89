//! Parsing, compiling and comparing with the interpreter.

use tb_backends::cpu::{CompileOptions, CompiledModule};
use tb_interpreter::Tensor;
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::Interpreter;
use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::{Context, Diagnostic, OpId};

/// A parsed and verified module, with what is needed to render its diagnostics.
pub struct Parsed {
    pub ctx: Context,
    pub module: OpId,
    sources: SourceMgr,
}

impl Parsed {
    /// Parses and verifies `source` with every dialect registered (ops of unknown dialects
    /// are allowed too).
    pub fn new(source: &str) -> Parsed {
        Parsed::with_dialects(source, tb_dialects::register_all)
    }

    /// Parses and verifies `source` with only the dialects `register` registers; ops of
    /// other dialects parse in generic form and are not verified.
    pub fn with_dialects(source: &str, register: fn(&mut Context) -> Result<(), String>) -> Parsed {
        let mut ctx = Context::new();
        register(&mut ctx).unwrap();
        ctx.allow_unregistered_dialects = true;
        let mut sources = SourceMgr::new();
        sources.add_buffer("test.mlir", source);
        let module = parse_source(&mut ctx, source, "test.mlir", &ParseOptions::default())
            .unwrap_or_else(|d| panic!("{}", render(&ctx, &sources, &d)));
        tb_ir::verifier::verify(&ctx, module)
            .unwrap_or_else(|d| panic!("{}", render(&ctx, &sources, &d)));
        Parsed {
            ctx,
            module,
            sources,
        }
    }

    pub fn render(&self, diagnostic: &Diagnostic) -> String {
        render(&self.ctx, &self.sources, diagnostic)
    }

    pub fn compile(&self, options: &CompileOptions) -> CompiledModule {
        CompiledModule::compile(&self.ctx, self.module, options)
            .unwrap_or_else(|d| panic!("{}", self.render(&d)))
    }

    /// The error compiling this module reports, rendered.
    pub fn compile_error(&self) -> String {
        match CompiledModule::compile(&self.ctx, self.module, &CompileOptions::default()) {
            Ok(_) => panic!("compiled, but an error was expected"),
            Err(d) => self.render(&d),
        }
    }

    pub fn function(&self, name: &str) -> OpId {
        Interpreter::new(&self.ctx, self.module)
            .function(name)
            .unwrap_or_else(|| panic!("no function @{name}"))
    }

    /// What the interpreter computes for `name` on `args`.
    pub fn interpret(&self, name: &str, args: &[Tensor]) -> Vec<Tensor> {
        Interpreter::new(&self.ctx, self.module)
            .run_function(name, args)
            .unwrap_or_else(|d| panic!("interpreter: {}", self.render(&d)))
    }
}

/// Checks every public function of `source`, compiled with `options`, against the
/// interpreter on `seeds` random argument sets, within `rtol`/`atol`.
pub fn check_with(source: &str, options: &CompileOptions, seeds: u64, rtol: f64, atol: f64) {
    let parsed = Parsed::new(source);
    let compiled = parsed.compile(options);
    let names: Vec<String> = Interpreter::new(&parsed.ctx, parsed.module).public_function_names();
    assert!(!names.is_empty(), "no public functions to check");
    for name in names {
        for seed in 0..seeds {
            let args = random_arguments(&parsed.ctx, parsed.function(&name), seed).unwrap();
            let want = parsed.interpret(&name, &args);
            let got = compiled
                .run(&name, &args)
                .unwrap_or_else(|e| panic!("@{name}: {e}"));
            assert_eq!(got.len(), want.len(), "@{name}: result count");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                g.allclose(w, rtol, atol)
                    .unwrap_or_else(|m| panic!("@{name} seed {seed} result #{i}: {m}"));
            }
        }
    }
}

/// [`check_with`] for the host CPU, O3, 3 seeds, f32 tolerances.
pub fn check(source: &str) {
    check_with(source, &CompileOptions::default(), 3, 1e-5, 1e-6);
}
