//! `loop-fuse`: fuses neighbouring loop nests whose outermost loops agree, after
//! scheduling ([`crate::fusion::nest_fusion`]): the multi-stage kernels of row-wise
//! reductions (layer norm, softmax) and of independent nests over the same rows become one
//! nest each; buffers that then only carry a value inside one iteration are replaced by
//! that value ([`crate::fusion::private_buffers`]). `--mlir-pass-statistics` reports nests
//! before and after, buffers forwarded and refusals by reason; `remarks=true` prints, at
//! each nest left apart from the one before it, why.

use tb_ir::diagnostics::{SourceMgr, render};
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions, PassStatistic};
use tb_ir::{Context, Diagnostic, OpId, Severity};

use crate::fusion::nest_fusion::{NestFusionLimits, NestFusionReport, fuse_nests_in_function};
use crate::fusion::producer_inlining::InlineLimits;
use crate::pass_support::{collect_functions, stat};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "max-devectorized-trips",
        kind: OptionKind::Int,
        default: "4096",
        help: "The most iterations of a vectorized loop that fusion may run unvectorized (0: never)",
    },
    PassOptionInfo {
        name: "max-inline-reads-per-element",
        kind: OptionKind::Int,
        default: "1",
        help: "Inline an elementwise producer nest into the nest after it when that nest reads each produced element at most this many times on average (0: never)",
    },
    PassOptionInfo {
        name: "contract-buffers",
        kind: OptionKind::Bool,
        default: "true",
        help: "Replace a buffer that a fused nest keeps apart by its outer loop with a small buffer per outer iteration",
    },
    PassOptionInfo {
        name: "remarks",
        kind: OptionKind::Bool,
        default: "false",
        help: "Print a remark at each nest not fused with the nest before it, saying why",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-fuse",
        description: "Fuse neighbouring loop nests with the same outermost loops when no dependence crosses iterations",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(LoopFuse {
                limits: NestFusionLimits {
                    max_devectorized_trips: o.int("max-devectorized-trips").max(0),
                    inline: InlineLimits {
                        max_reads_per_element: o.int("max-inline-reads-per-element").max(0),
                    },
                    contract_buffers: o.bool("contract-buffers"),
                },
                remarks: o.bool("remarks"),
                last: NestFusionReport::default(),
            })
        },
    }
}

struct LoopFuse {
    limits: NestFusionLimits,
    remarks: bool,
    last: NestFusionReport,
}

impl Pass for LoopFuse {
    fn argument(&self) -> &'static str {
        "loop-fuse"
    }

    fn display_name(&self) -> &'static str {
        "LoopFuse"
    }

    fn options(&self) -> Vec<(String, String)> {
        vec![
            (
                "max-devectorized-trips".into(),
                self.limits.max_devectorized_trips.to_string(),
            ),
            (
                "max-inline-reads-per-element".into(),
                self.limits.inline.max_reads_per_element.to_string(),
            ),
            (
                "contract-buffers".into(),
                self.limits.contract_buffers.to_string(),
            ),
            ("remarks".into(), self.remarks.to_string()),
        ]
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        self.last = NestFusionReport::default();
        let mut funcs = Vec::new();
        collect_functions(ctx, op, &mut funcs);
        for func in funcs {
            let report = fuse_nests_in_function(ctx, func, &self.limits);
            if self.remarks {
                for (nest, previous, why) in &report.refused_pairs {
                    let remark = Diagnostic {
                        severity: Severity::Remark,
                        loc: ctx.op(*nest).loc,
                        message: format!("loop nest not fused with the nest before it: {why}"),
                        notes: Vec::new(),
                    }
                    .with_note(ctx.op(*previous).loc, "the nest before it");
                    eprint!("{}", render(ctx, &SourceMgr::new(), &remark));
                }
                for (producer, reader, why) in &report.inlining.refused_pairs {
                    let remark = Diagnostic {
                        severity: Severity::Remark,
                        loc: ctx.op(*producer).loc,
                        message: format!(
                            "loop nest not inlined into the nest that reads it: {why}"
                        ),
                        notes: Vec::new(),
                    }
                    .with_note(ctx.op(*reader).loc, "the nest that reads it");
                    eprint!("{}", render(ctx, &SourceMgr::new(), &remark));
                }
            }
            self.last.merge(report);
        }
        Ok(())
    }

    fn statistics(&self) -> Vec<PassStatistic> {
        let r = &self.last;
        let refused = |key: &str| r.refusals.get(key).copied().unwrap_or(0);
        let inline_refused = |key: &str| r.inlining.refusals.get(key).copied().unwrap_or(0);
        vec![
            stat("nests-before", "Loop nests before fusion", r.nests_before),
            stat("nests-after", "Loop nests after fusion", r.nests_after),
            stat("num-fused", "Nests fused into the nest after them", r.fused),
            stat(
                "producers-inlined",
                "Elementwise producer nests computed where the next nest reads them",
                r.inlining.inlined,
            ),
            stat(
                "refused-inline-recompute",
                "Producers kept: the next nest reads their elements too often",
                inline_refused("recompute"),
            ),
            stat(
                "refused-inline-vectorization",
                "Producers kept: a vectorized math function would run one element at a time",
                inline_refused("vectorization"),
            ),
            stat(
                "refused-inline-locality",
                "Producers kept: the next nest would read their inputs across cache lines",
                inline_refused("locality"),
            ),
            stat(
                "refused-inline-effects",
                "Producers kept: the reader writes what they read, or reads another type",
                inline_refused("effects"),
            ),
            stat(
                "buffers-forwarded",
                "Buffers that carried a value within one iteration, replaced by the value",
                r.forwarded_buffers,
            ),
            stat(
                "buffers-contracted",
                "Buffers of a fused nest replaced by a small buffer per outer iteration",
                r.contracted_buffers,
            ),
            stat(
                "refused-headers",
                "Neighbours kept apart: their outermost loops differ",
                refused("headers"),
            ),
            stat(
                "refused-dependence",
                "Neighbours kept apart: a dependence crosses iterations of the outer loop",
                refused("dependence"),
            ),
            stat(
                "refused-vectorization",
                "Neighbours kept apart: fusion would drop a long loop's vectorization",
                refused("vectorization"),
            ),
            stat(
                "refused-effects",
                "Neighbours kept apart: an op with effects the analysis cannot see through",
                refused("effects"),
            ),
        ]
    }
}
