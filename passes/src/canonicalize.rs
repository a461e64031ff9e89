//! `canonicalize`: folds ops, removes dead pure ops and unreachable blocks, and applies the
//! registered canonicalization patterns greedily until a fixed point.

use std::collections::HashSet;

use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::rewrite::{GreedyConfig, PatternSet, Strictness, apply_patterns_greedily};
use tb_ir::verifier::has_ssa_dominance;
use tb_ir::{BlockId, Context, Diagnostic, OpId};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "max-iterations",
        kind: OptionKind::Int,
        default: "10",
        help: "Sweeps before giving up on a fixed point",
    },
    PassOptionInfo {
        name: "top-down",
        kind: OptionKind::Bool,
        default: "true",
        help: "Visit parents before nested ops",
    },
    PassOptionInfo {
        name: "region-simplify",
        kind: OptionKind::Bool,
        default: "true",
        help: "Remove unreachable blocks",
    },
    PassOptionInfo {
        name: "test-convergence",
        kind: OptionKind::Bool,
        default: "false",
        help: "Fail if no fixed point is reached",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "canonicalize",
        description: "Fold, remove dead code and apply canonicalization patterns to a fixed point",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(Canonicalize {
                max_iterations: o.int("max-iterations").clamp(1, u32::MAX as i64) as u32,
                top_down: o.bool("top-down"),
                region_simplify: o.bool("region-simplify"),
                test_convergence: o.bool("test-convergence"),
            })
        },
    }
}

struct Canonicalize {
    max_iterations: u32,
    top_down: bool,
    region_simplify: bool,
    test_convergence: bool,
}

impl Pass for Canonicalize {
    fn argument(&self) -> &'static str {
        "canonicalize"
    }

    fn display_name(&self) -> &'static str {
        "Canonicalizer"
    }

    fn options(&self) -> Vec<(String, String)> {
        vec![
            ("max-iterations".into(), self.max_iterations.to_string()),
            ("region-simplify".into(), self.region_simplify.to_string()),
            ("test-convergence".into(), self.test_convergence.to_string()),
            ("top-down".into(), self.top_down.to_string()),
        ]
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if self.region_simplify {
            remove_unreachable_blocks(ctx, op);
        }
        let config = GreedyConfig {
            top_down: self.top_down,
            max_iterations: self.max_iterations,
            strictness: Strictness::AnyOp,
            fold: true,
        };
        let patterns = registered_patterns(ctx);
        let mut result = apply_patterns_greedily(ctx, op, &patterns, &config);
        // Patterns that redirect branches leave blocks unreachable, and erasing those can
        // enable more patterns (a block left with one predecessor merges): alternate until
        // neither changes anything, as MLIR's driver does.
        let mut rounds = 1;
        while self.region_simplify
            && result.changed
            && rounds < self.max_iterations
            && remove_unreachable_blocks(ctx, op)
        {
            result = apply_patterns_greedily(ctx, op, &patterns, &config);
            rounds += 1;
        }
        if self.test_convergence && !result.converged {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "canonicalizer failed to converge within {} iterations",
                    self.max_iterations
                ),
            ));
        }
        Ok(())
    }
}

/// Every registered op's canonicalization patterns, gathered in op-name order so the
/// result does not depend on registration order.
fn registered_patterns(ctx: &Context) -> PatternSet {
    let mut infos: Vec<_> = ctx
        .registered_op_infos()
        .filter_map(|i| i.canonicalize.map(|c| (i.name, c)))
        .collect();
    infos.sort_by_key(|(name, _)| *name);
    let mut patterns = PatternSet::new();
    for (_, add) in infos {
        add(&mut patterns);
    }
    patterns
}

/// Erases blocks no path from their region's entry reaches, in CFG regions; returns
/// whether it erased any.
fn remove_unreachable_blocks(ctx: &mut Context, root: OpId) -> bool {
    let mut erased = false;
    let mut regions = ctx.op(root).regions.to_vec();
    ctx.walk_nested(root, &mut |op| {
        regions.extend(ctx.op(op).regions.iter().copied())
    });
    for region in regions {
        // A region inside a block erased earlier in this loop is gone with it.
        if ctx.region(region).parent.is_some_and(|p| ctx.op(p).erased) {
            continue;
        }
        let blocks = ctx.region(region).blocks.clone();
        if blocks.len() < 2 || !has_ssa_dominance(ctx, region) {
            continue;
        }
        let mut reached: HashSet<BlockId> = HashSet::from([blocks[0]]);
        let mut stack = vec![blocks[0]];
        while let Some(b) = stack.pop() {
            if let Some(term) = ctx.block(b).last {
                for &s in &ctx.op(term).successors {
                    if reached.insert(s) {
                        stack.push(s);
                    }
                }
            }
        }
        let unreachable: Vec<BlockId> = blocks
            .into_iter()
            .filter(|b| !reached.contains(b))
            .collect();
        erased |= !unreachable.is_empty();
        ctx.erase_blocks(region, &unreachable);
    }
    erased
}
