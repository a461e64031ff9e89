//! `te-fuse`: global affine fusion of each function's `te.compute`s ([`crate::fusion`]).
//! Producers are inlined into their consumers by map composition under the knobs below;
//! `--mlir-pass-statistics` reports kernels and estimated bytes before and after, and
//! `remarks=true` prints, at each producer kept, why it was not fused.

use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions, PassStatistic};
use tb_ir::{Context, Diagnostic, OpId};

use crate::fusion::{FusionLimits, FusionOrder, FusionReport, fuse_function};
use crate::pass_support::{collect_functions, stat};
use crate::schedule::Target;

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "max-recompute-flops",
        kind: OptionKind::Int,
        default: "16",
        help: "The most weighted flops an inlined producer may add per consumer point when it is recomputed",
    },
    PassOptionInfo {
        name: "fuse-into-contractions",
        kind: OptionKind::Bool,
        default: "false",
        help: "Inline producers into contractions (matmul, convolution) too",
    },
    PassOptionInfo {
        name: "max-body-ops",
        kind: OptionKind::Int,
        default: "256",
        help: "The most ops a fused te.compute body may hold",
    },
    PassOptionInfo {
        name: "max-working-set-bytes",
        kind: OptionKind::Int,
        default: "0",
        help: "The most bytes of distinct tensors a fused kernel may read (a cache or shared-memory budget; 0: none)",
    },
    PassOptionInfo {
        name: "min-parallel-points",
        kind: OptionKind::Int,
        default: "0",
        help: "Keep a producer with enough work for threads out of a consumer with fewer result points than this (0: the host's cores; 1: no limit)",
    },
    PassOptionInfo {
        name: "order",
        kind: OptionKind::String,
        default: "benefit",
        help: "Which fusion first: 'benefit' (the one saving the most bytes, over the whole function) or 'program' (each producer once, in program order)",
    },
    PassOptionInfo {
        name: "remarks",
        kind: OptionKind::Bool,
        default: "false",
        help: "Print a remark at each te.compute kept as a kernel, saying why",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "te-fuse",
        description: "Fuse te.compute ops by inlining producers into consumers (affine map composition)",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(TeFuse {
                limits: FusionLimits {
                    max_recompute_flops: o.int("max-recompute-flops").max(0) as u64,
                    fuse_into_contractions: o.bool("fuse-into-contractions"),
                    max_body_ops: o.int("max-body-ops").max(0) as usize,
                    max_working_set_bytes: o.int("max-working-set-bytes").max(0) as u64,
                    min_parallel_points: match o.int("min-parallel-points") {
                        0 => Target::host().cores.max(1) as u64,
                        n => n.max(0) as u64,
                    },
                    order: FusionOrder::Benefit,
                },
                order: o.string("order"),
                remarks: o.bool("remarks"),
                last: FusionReport::default(),
            })
        },
    }
}

struct TeFuse {
    limits: FusionLimits,
    /// The `order` option as written, checked when the pass runs.
    order: String,
    remarks: bool,
    /// The report of the last run, summed over its functions.
    last: FusionReport,
}

impl Pass for TeFuse {
    fn argument(&self) -> &'static str {
        "te-fuse"
    }

    fn display_name(&self) -> &'static str {
        "TeFuse"
    }

    fn options(&self) -> Vec<(String, String)> {
        let l = &self.limits;
        vec![
            (
                "fuse-into-contractions".into(),
                l.fuse_into_contractions.to_string(),
            ),
            ("max-body-ops".into(), l.max_body_ops.to_string()),
            (
                "max-recompute-flops".into(),
                l.max_recompute_flops.to_string(),
            ),
            (
                "max-working-set-bytes".into(),
                l.max_working_set_bytes.to_string(),
            ),
            (
                "min-parallel-points".into(),
                l.min_parallel_points.to_string(),
            ),
            ("order".into(), self.order.clone()),
            ("remarks".into(), self.remarks.to_string()),
        ]
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        self.last = FusionReport::default();
        self.limits.order = FusionOrder::parse(&self.order)
            .map_err(|m| Diagnostic::error(ctx.op(op).loc, format!("te-fuse: {m}")))?;
        let mut funcs = Vec::new();
        collect_functions(ctx, op, &mut funcs);
        for func in funcs {
            let report = fuse_function(ctx, func, &self.limits)
                .map_err(|m| Diagnostic::error(ctx.op(func).loc, format!("te-fuse: {m}")))?;
            if self.remarks {
                for remark in &report.remarks {
                    eprint!("{remark}");
                }
            }
            self.last.merge(report);
        }
        Ok(())
    }

    fn statistics(&self) -> Vec<PassStatistic> {
        let r = &self.last;
        let refused = |key: &str| r.refusals.get(key).copied().unwrap_or(0);
        vec![
            stat(
                "kernels-before",
                "te.compute kernels before fusion",
                r.kernels_before,
            ),
            stat(
                "kernels-after",
                "te.compute kernels after fusion",
                r.kernels_after,
            ),
            stat(
                "bytes-before",
                "Estimated bytes moved before fusion (inputs read once, results written)",
                r.bytes_before,
            ),
            stat(
                "bytes-after",
                "Estimated bytes moved after fusion",
                r.bytes_after,
            ),
            stat(
                "num-inlined",
                "Producers inlined into their consumers",
                r.inlined,
            ),
            stat(
                "refused-reduction",
                "Producers kept: they reduce",
                refused("reduction"),
            ),
            stat(
                "refused-contraction",
                "Producers kept: a consumer is a contraction",
                refused("into-contraction"),
            ),
            stat(
                "refused-recompute",
                "Producers kept: recomputation over the limit",
                refused("recompute"),
            ),
            stat(
                "refused-working-set",
                "Producers kept: the fused kernel would exceed the working-set budget",
                refused("working-set"),
            ),
            stat(
                "refused-parallelism",
                "Producers kept: the consumer has too few points for the threads the producer's work needs",
                refused("parallelism"),
            ),
            stat(
                "refused-other",
                "Producers kept for another reason (padded or indirect reads, indices as values, outside users, body size)",
                [
                    "used-outside",
                    "padded-read",
                    "indirect-read",
                    "uses-indices",
                    "body-too-large",
                ]
                .iter()
                .map(|k| refused(k))
                .sum(),
            ),
        ]
    }
}
