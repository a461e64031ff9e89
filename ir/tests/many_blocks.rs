//! Regions with many blocks: the dominator tree against the definition of dominance on
//! random control-flow graphs, and parse + verify + print of a long chain of blocks (block
//! names, predecessor comments, dominance checked across the chain). No timing here: the
//! speed comparison with mlir-opt is bench/many_blocks.py.

use std::collections::HashSet;

use tb_ir::dominance::DominatorTree;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::verifier::verify;
use tb_ir::{BlockId, Context, OpId, RegionId};

fn parse(text: &str) -> (Context, OpId) {
    let mut ctx = Context::new();
    ctx.allow_unregistered_dialects = true;
    let top = parse_source(&mut ctx, text, "blocks.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("input parses: {}", d.message));
    (ctx, top)
}

/// The region of the first op in the module (the `"t.func"` holding the CFG).
fn cfg_region(ctx: &Context, top: OpId) -> RegionId {
    let module_block = ctx.region(ctx.op(top).regions[0]).blocks[0];
    let func = ctx.block_ops(module_block).next().expect("one op");
    ctx.op(func).regions[0]
}

/// A CFG of `n` blocks where block `i` branches to the listed successors.
fn cfg_text(successors: &[Vec<usize>]) -> String {
    let mut text = String::from("\"t.func\"() ({\n");
    for (i, succs) in successors.iter().enumerate() {
        text += &format!("^bb{i}:\n");
        let list: Vec<String> = succs.iter().map(|s| format!("^bb{s}")).collect();
        if list.is_empty() {
            text += "  \"t.return\"() : () -> ()\n";
        } else {
            text += &format!("  \"t.br\"()[{}] : () -> ()\n", list.join(", "));
        }
    }
    text + "}) : () -> ()\n"
}

/// Blocks reachable from the entry without passing through `removed`.
fn reachable_without(successors: &[Vec<usize>], removed: Option<usize>) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut stack = vec![0];
    while let Some(b) = stack.pop() {
        if Some(b) == removed || !seen.insert(b) {
            continue;
        }
        stack.extend(successors[b].iter().copied());
    }
    seen
}

/// A small deterministic generator (no dependency needed for a few random graphs).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn dominator_tree_matches_the_definition_on_random_graphs() {
    let mut rng = Lcg(7);
    for _ in 0..200 {
        let n = 2 + rng.below(12);
        // Successors never target the entry (the verifier forbids it); edges go anywhere
        // else, so graphs have loops, joins and unreachable blocks.
        let successors: Vec<Vec<usize>> = (0..n)
            .map(|_| (0..rng.below(3)).map(|_| 1 + rng.below(n - 1)).collect())
            .collect();
        let (ctx, top) = parse(&cfg_text(&successors));
        let region = cfg_region(&ctx, top);
        let blocks: Vec<BlockId> = ctx.region(region).blocks.clone();
        let tree = DominatorTree::new(&ctx, region);
        let reachable = reachable_without(&successors, None);
        for a in 0..n {
            let cut = reachable_without(&successors, Some(a));
            for b in 0..n {
                // `a` dominates a reachable `b` when removing `a` cuts `b` off the entry;
                // a block the entry does not reach is dominated by every block.
                let expected = a == b || !reachable.contains(&b) || !cut.contains(&b);
                assert_eq!(
                    tree.dominates(blocks[a], blocks[b]),
                    expected,
                    "does ^bb{a} dominate ^bb{b} in {successors:?}"
                );
            }
        }
    }
}

#[test]
fn a_long_chain_of_blocks_verifies_and_prints_its_names_and_predecessors() {
    let blocks = 20_000;
    let mut text = String::from(
        "\"t.func\"() ({\n  %c = \"t.const\"() : () -> i32\n  \"t.br\"()[^bb1] : () -> ()\n",
    );
    for i in 1..=blocks {
        text += &format!("^bb{i}:\n  \"t.use\"(%c) : (i32) -> ()\n");
        if i == blocks {
            text += "  \"t.return\"() : () -> ()\n";
        } else if i % 2 == 1 && i + 2 <= blocks {
            text += &format!("  \"t.cond_br\"()[^bb{}, ^bb{}] : () -> ()\n", i + 1, i + 2);
        } else {
            text += &format!("  \"t.br\"()[^bb{}] : () -> ()\n", i + 1);
        }
    }
    text += "}) : () -> ()\n";
    let (ctx, top) = parse(&text);
    verify(&ctx, top).unwrap_or_else(|d| panic!("the chain verifies: {}", d.message));
    let printed = print_operation(&ctx, top, PrintOptions::default());
    assert!(printed.contains("^bb1:  // pred: ^bb0\n"));
    // ^bb3 follows ^bb2 and is the far target of ^bb1's conditional branch.
    assert!(printed.contains("^bb3:  // 2 preds: ^bb1, ^bb2\n"));
    // At the far end: ^bb19997 branches to ^bb19998 and ^bb19999, ^bb19999 to the last.
    assert!(printed.contains(&format!(
        "^bb{}:  // 2 preds: ^bb{}, ^bb{}\n",
        blocks - 1,
        blocks - 3,
        blocks - 2
    )));
    assert!(printed.contains(&format!(
        "\"t.cond_br\"()[^bb{}, ^bb{}] : () -> ()",
        blocks - 2,
        blocks - 1
    )));
    assert!(printed.contains(&format!("^bb{blocks}:  // pred: ^bb{}\n", blocks - 1)));
}

#[test]
fn a_use_not_dominated_at_the_end_of_a_long_chain_is_reported() {
    // ^bb1 defines %v and branches around ^bb2, so ^bb2 does not dominate ^bb3.
    let mut text = String::from("\"t.func\"() ({\n  \"t.br\"()[^bb1] : () -> ()\n");
    text += "^bb1:\n  \"t.cond_br\"()[^bb2, ^bb3] : () -> ()\n";
    text += "^bb2:\n  %v = \"t.def\"() : () -> i32\n  \"t.br\"()[^bb3] : () -> ()\n";
    let chain = 5_000;
    for i in 3..3 + chain {
        text += &format!("^bb{i}:\n  \"t.br\"()[^bb{}] : () -> ()\n", i + 1);
    }
    text += &format!("^bb{}:\n  \"t.use\"(%v) : (i32) -> ()\n", 3 + chain);
    text += "  \"t.return\"() : () -> ()\n}) : () -> ()\n";
    let (ctx, top) = parse(&text);
    let error = verify(&ctx, top).expect_err("the use is not dominated");
    assert_eq!(error.message, "operand #0 does not dominate this use");
}

#[test]
fn uses_in_a_long_block_are_checked_against_the_order_of_its_ops() {
    // Every op of a 20,000-op block uses the first one: valid. A use before its definition
    // at the very end is not.
    let ops = 20_000;
    let mut body = String::from("  %c = \"t.const\"() : () -> i32\n");
    for _ in 0..ops {
        body += "  \"t.use\"(%c) : (i32) -> ()\n";
    }
    let valid = format!(
        "\"t.func\"() ({{\n^bb0:\n{body}  \"t.br\"()[^bb1] : () -> ()\n^bb1:\n  \"t.return\"() : () -> ()\n}}) : () -> ()\n"
    );
    let (ctx, top) = parse(&valid);
    verify(&ctx, top).unwrap_or_else(|d| panic!("the block verifies: {}", d.message));

    let late = format!(
        "\"t.func\"() ({{\n^bb0:\n{body}  \"t.use\"(%late) : (i32) -> ()\n  %late = \"t.const\"() : () -> i32\n  \"t.br\"()[^bb1] : () -> ()\n^bb1:\n  \"t.return\"() : () -> ()\n}}) : () -> ()\n"
    );
    let (ctx, top) = parse(&late);
    let error = verify(&ctx, top).expect_err("the use comes before its definition");
    assert_eq!(error.message, "operand #0 does not dominate this use");
}
