//! After import: canonicalize (folding what the importer left, dead-code removal) and CSE,
//! so the module holds only real tensor work. The passes come from the caller (the driver
//! links `tb_passes`; this crate sits below it).

use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::{Context, Diagnostic, OpId};

/// The pipeline run after import.
pub const PIPELINE: &str = "builtin.module(func.func(canonicalize,cse))";

/// Registers passes that include [`PIPELINE`]'s (`tb_passes::register_all`).
pub type RegisterPasses = fn(&mut PassRegistry);

/// Runs [`PIPELINE`] on `module` with the passes `register_passes` registers; an error names
/// a pass that it lacks.
pub fn run(
    ctx: &mut Context,
    module: OpId,
    register_passes: RegisterPasses,
) -> Result<(), Diagnostic> {
    let mut registry = PassRegistry::new();
    register_passes(&mut registry);
    let pipeline = Pipeline::parse(PIPELINE).expect("the cleanup pipeline parses");
    let mut pm = PassManager::new(&pipeline, &registry)
        .map_err(|e| Diagnostic::error(ctx.op(module).loc, format!("cleanup after import: {e}")))?;
    pm.set_threads(1);
    let instr = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(ctx, module, &instr)
}
