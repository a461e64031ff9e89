//! After import: canonicalize (folding what the importer left, dead-code removal) and CSE,
//! so the module holds only real tensor work.

use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::{Context, Diagnostic, OpId};

/// The pipeline run after import.
pub const PIPELINE: &str = "builtin.module(func.func(canonicalize,cse))";

pub fn run(ctx: &mut Context, module: OpId) -> Result<(), Diagnostic> {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let pipeline = Pipeline::parse(PIPELINE).expect("the cleanup pipeline parses");
    let mut pm = PassManager::new(&pipeline, &registry).expect("the cleanup passes exist");
    pm.set_threads(1);
    let instr = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(ctx, module, &instr)
}
