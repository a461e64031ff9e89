//! Lowering a loaded module to the loop level for the CPU backend, shared by `tb-translate`
//! and `tb-run`: a pipeline given by name (`cpu`) or as MLIR's textual pipeline, with
//! `--print-ir-after-all` and per-pass timing.

use std::time::{Duration, Instant};

use tb_ir::pass::{Instrumentation, Pass, PassInfo, PassManager, PassRegistry, Pipeline};
use tb_ir::printer::PrintOptions;
use tb_ir::{Context, OpId};

use crate::load::Loaded;

/// Pipelines known by name, as (name, textual pipeline, what it does).
pub const NAMED_PIPELINES: &[(&str, &str, &str)] = &[
    (
        "cpu",
        tb_passes::pipelines::CPU,
        "graph -> te -> loop with buffer planning, ready for the CPU backend",
    ),
    (
        "gpu",
        tb_passes::pipelines::GPU,
        "the cpu pipeline, then loop nests mapped onto gpu.launch kernels (--device cuda, --emit=ptx)",
    ),
];

/// The textual pipeline `spec` names: a registered name, else `spec` itself.
pub fn resolve_pipeline(spec: &str) -> &str {
    NAMED_PIPELINES
        .iter()
        .find(|(name, _, _)| *name == spec)
        .map_or(spec, |(_, text, _)| text)
}

/// What to observe while lowering.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// Print the IR after every pass (to standard error, as MLIR does).
    pub print_ir_after_all: bool,
    /// Collect and print per-pass wall time (to standard error).
    pub timing: bool,
}

/// The passes every tool can name in a pipeline: the library's, and each named pipeline as
/// a pass of its own (`tb-cpu`), so `--pass-pipeline='builtin.module(tb-cpu)'` and
/// `tb-opt --tb-cpu` run it as MLIR's registered pipelines run.
pub fn registry() -> PassRegistry {
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    registry.register(PassInfo {
        argument: "tb-cpu",
        description: "The CPU pipeline: graph -> te -> loop with buffer planning (tb-run's default)",
        options: &[],
        create: |_| Box::new(NamedPipeline { text: tb_passes::pipelines::CPU }),
    });
    registry.register(PassInfo {
        argument: "tb-gpu",
        description: "The GPU pipeline: the CPU pipeline, then convert-loop-to-gpu",
        options: &[],
        create: |_| {
            Box::new(NamedPipeline {
                text: tb_passes::pipelines::GPU,
            })
        },
    });
    registry
}

/// A named pipeline run as one pass on the module: its passes, each verified after.
struct NamedPipeline {
    text: &'static str,
}

impl Pass for NamedPipeline {
    fn argument(&self) -> &'static str {
        "tb-cpu"
    }

    fn display_name(&self) -> &'static str {
        "TbCpuPipeline"
    }

    fn anchor(&self) -> Option<&'static str> {
        Some("builtin.module")
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), tb_ir::Diagnostic> {
        let at_module = |m: String| tb_ir::Diagnostic::error(ctx.op(op).loc, m);
        let parsed = Pipeline::parse(self.text)
            .map_err(|e| at_module(format!("tb-cpu: invalid pipeline: {e}")))?;
        let mut library = PassRegistry::new();
        tb_passes::register_all(&mut library);
        let mut manager = PassManager::new(&parsed, &library).map_err(at_module)?;
        let verify = Instrumentation {
            verify_each: true,
            ..Instrumentation::default()
        };
        manager.run(ctx, op, &verify)
    }
}

/// Runs `pipeline` (a name from [`NAMED_PIPELINES`] or a textual pipeline) on the module,
/// verifying after each pass; `tool` prefixes errors about the pipeline itself, and
/// `list_hint` names the flag that lists the passes. Returns the time it took.
pub fn lower(
    loaded: &mut Loaded,
    pipeline: &str,
    options: LowerOptions,
    tool: &str,
    list_hint: &str,
) -> Result<Duration, String> {
    let start = Instant::now();
    let text = resolve_pipeline(pipeline);
    let parsed = Pipeline::parse(text).map_err(|e| format!("{tool}: invalid --pipeline: {e}"))?;
    let registry = registry();
    let mut manager = PassManager::new(&parsed, &registry).map_err(|m| {
        format!(
            "{tool}: --pipeline: {}",
            m.replace("(see --list-passes)", &format!("(see {list_hint})"))
        )
    })?;
    let instrumentation = Instrumentation {
        print_after: if options.print_ir_after_all {
            vec!["*".to_owned()]
        } else {
            Vec::new()
        },
        verify_each: true,
        timing: options.timing,
        print: PrintOptions {
            local_scope: true,
            ..PrintOptions::default()
        },
        ..Instrumentation::default()
    };
    let result = manager.run(&mut loaded.ctx, loaded.module, &instrumentation);
    eprint!("{}", manager.log);
    result.map_err(|d| loaded.render(&d))?;
    let elapsed = start.elapsed();
    if options.timing {
        eprint!("{}", manager.timing_report(elapsed, false, &[], &[]));
    }
    Ok(elapsed)
}

/// The first op of `module` that the CPU backend cannot compile because it is above the
/// loop level (a `graph` or `te` op), if any.
pub fn first_unlowered_op(ctx: &Context, module: OpId) -> Option<OpId> {
    let mut found = None;
    ctx.walk_nested(module, &mut |op| {
        let name = ctx.op_name(op);
        if found.is_none() && (name.starts_with("graph.") || name.starts_with("te.")) {
            found = Some(op);
        }
    });
    found
}

/// The passes of `registry` as `tb-opt --list-passes` prints them (name and description),
/// then the named pipelines.
pub fn list_passes(registry: &PassRegistry) -> String {
    let mut out = String::from("Passes:\n");
    for info in registry.iter() {
        out.push_str(&format!("  {:<26} {}\n", info.argument, info.description));
    }
    out.push_str("Named pipelines:\n");
    for (name, text, what) in NAMED_PIPELINES {
        out.push_str(&format!("  {name:<26} {what}\n      = {text}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_pipelines_resolve_and_others_stay_as_given() {
        assert_eq!(resolve_pipeline("cpu"), tb_passes::pipelines::CPU);
        assert_eq!(
            resolve_pipeline("builtin.module(cse)"),
            "builtin.module(cse)"
        );
    }

    #[test]
    fn the_cpu_pipeline_pass_lowers_a_graph_module_to_loops() {
        let text = r#"
            func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
              %y = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
              return %y : tensor<2x3xf32>
            }"#;
        let mut loaded = crate::load::load_mlir(text, "relu.mlir").unwrap();
        assert!(first_unlowered_op(&loaded.ctx, loaded.module).is_some());
        lower(
            &mut loaded,
            "builtin.module(tb-cpu)",
            LowerOptions::default(),
            "test",
            "--list-passes",
        )
        .unwrap();
        assert!(first_unlowered_op(&loaded.ctx, loaded.module).is_none());
    }

    #[test]
    fn an_unknown_pass_points_to_the_tools_list() {
        let mut loaded = crate::load::load_mlir("", "empty.mlir").unwrap();
        let error = lower(
            &mut loaded,
            "builtin.module(bogus)",
            LowerOptions::default(),
            "tb-run",
            "tb-run --list-passes",
        )
        .unwrap_err();
        assert!(error.ends_with("(see tb-run --list-passes)"), "{error}");
    }
}
