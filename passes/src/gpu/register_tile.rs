//! `loop-gpu-register-tile{tm,tn,min-threads}`: gives each GPU thread a `TM x TN` tile of
//! a matmul's results instead of one result, so that every value it loads serves `TN`
//! (from `A`) or `TM` (from `B`) multiply-adds held in registers, where the one-result
//! mapping loads two values per multiply-add.
//!
//! A matmul nest as `convert-te-to-loop` writes it (the form `loop-matmul-microkernel`
//! matches, batched too; f16 or bf16 operands widened to the f32 sums as they are
//! loaded, too),
//!
//! ```text
//! loop.parallel (.., i, j) = (..) to (.., M, N) {
//!   %r = loop.for %k = 0 to K iter_args(%acc = %init) { A[.., i, k] * B[.., k, j] + %acc }
//!   C[.., i, j] = %r
//! }
//! ```
//!
//! becomes, with `S = Nf / TN` (`Mf`, `Nf`: `M`, `N` rounded down to multiples of `TM`,
//! `TN`),
//!
//! ```text
//! loop.parallel (.., ib, jb) = (..) to (.., Mf / TM, S) {
//!   %r:TM*TN = loop.for %k = 0 to K iter_args(%acc.. = %init..) {
//!     a_r = A[.., ib * TM + r, k] (r < TM);  b_c = B[.., k, jb + c * S] (c < TN)
//!     fma(a_r, b_c, acc_rc)
//!   }
//!   C[.., ib * TM + r, jb + c * S] = %r_rc
//! }
//! ```
//!
//! A thread's columns lie `S` apart, so threads with consecutive `jb` (consecutive threads,
//! as `convert-loop-to-gpu` flattens the nest) read consecutive elements of `B` and write
//! consecutive elements of `C`: each warp's accesses coalesce, and its threads share the
//! rows of `A` they read. Each sum runs over `k` in the same order as before, each step a
//! fused multiply-add (`loop.fma`, one rounding where the multiply and add had two, as in
//! the CPU micro-kernel: the GPU issues one instruction instead of two). The rows
//! (`M mod TM`) and columns (`N mod TN`) left over keep the original nest, narrowed. A nest
//! that would have fewer than `min-threads` tiles stays as it is: fewer threads than the
//! GPU can keep busy would cost more than the loads save.

use tb_dialects::loop_;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId, Value};

use crate::schedule::build::{At, set_yield};
use crate::schedule::loop_matmul_microkernel::{Access, Contraction, match_contraction, peel};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "tm",
        kind: OptionKind::Int,
        default: "4",
        help: "Rows of the tile each thread computes, in [1, 16]",
    },
    PassOptionInfo {
        name: "tn",
        kind: OptionKind::Int,
        default: "4",
        help: "Columns of the tile each thread computes, in [1, 16]",
    },
    PassOptionInfo {
        name: "min-threads",
        kind: OptionKind::Int,
        default: "65536",
        help: "Tile only matmuls that keep at least this many threads (tiles)",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-gpu-register-tile",
        description: "Give each GPU thread a TM x TN register tile of a matmul's results",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(RegisterTile {
                tm: o.int("tm"),
                tn: o.int("tn"),
                min_threads: o.int("min-threads"),
            })
        },
    }
}

struct RegisterTile {
    tm: i64,
    tn: i64,
    min_threads: i64,
}

impl Pass for RegisterTile {
    fn argument(&self) -> &'static str {
        "loop-gpu-register-tile"
    }

    fn display_name(&self) -> &'static str {
        "LoopGpuRegisterTile"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if !(1..=16).contains(&self.tm) || !(1..=16).contains(&self.tn) || self.min_threads < 0 {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-gpu-register-tile: needs tm and tn in [1, 16] and min-threads >= 0 (got tm={}, tn={}, min-threads={})",
                    self.tm, self.tn, self.min_threads
                ),
            ));
        }
        if self.tm * self.tn == 1 {
            return Ok(());
        }
        let mut candidates = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if loop_::LoopOp::of(ctx, inner) == Some(loop_::LoopOp::Parallel) {
                candidates.push(inner);
            }
        });
        for parallel in candidates {
            let Some(c) = match_contraction(ctx, parallel) else {
                continue;
            };
            let rank = c.extents.len();
            let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
            let tiles =
                c.extents[..rank - 2].iter().product::<i64>() * (m / self.tm) * (n / self.tn);
            if tiles > 0 && tiles >= self.min_threads {
                tile(ctx, &c, (self.tm, self.tn));
            }
        }
        Ok(())
    }
}

/// `access` with each operand `old` of `substitutions` (old, new, scale, offset) replaced
/// by `new`, its dimension by `scale * new + offset`.
pub(super) fn substituted(
    access: &Access,
    substitutions: &[(Value, Value, i64, i64)],
) -> (AffineMap, Vec<Value>) {
    let mut operands = access.operands.clone();
    let dims: Vec<AffineExpr> = access
        .operands
        .iter()
        .enumerate()
        .map(|(p, v)| {
            let dim = AffineExpr::dim(p as u32);
            match substitutions.iter().find(|(old, ..)| old == v) {
                Some(&(_, new, scale, offset)) => {
                    operands[p] = new;
                    dim * scale + offset
                }
                None => dim,
            }
        })
        .collect();
    let results = access
        .map
        .results
        .iter()
        .map(|r| r.replace_dims_and_symbols(&dims, &[]).simplify())
        .collect();
    (AffineMap::new(access.map.num_dims, 0, results), operands)
}

/// Loads an element of `A` or `B` (`memref`) at `map(operands)`, widened to the
/// accumulator's type when the matmul reads a narrower float (f16, bf16).
pub(super) fn load_operand(
    ctx: &mut Context,
    at: At,
    c: &Contraction,
    memref: Value,
    (map, operands): (AffineMap, Vec<Value>),
) -> Value {
    let acc = ctx.value_type(c.init);
    match c.widened_from {
        None => at.load(ctx, false, memref, map, &operands, acc),
        Some(narrow) => {
            let value = at.load(ctx, false, memref, map, &operands, narrow);
            let widen = at.create(ctx, "arith.extf", vec![value], vec![acc], vec![], 0);
            ctx.op(widen).results[0]
        }
    }
}

/// Rewrites the matmul `c` into `TM x TN` tiles per thread (see the module doc).
fn tile(ctx: &mut Context, c: &Contraction, (tm, tn): (i64, i64)) {
    let rank = c.extents.len();
    let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
    let (mf, nf) = (m - m % tm, n - n % tn);
    let stride = nf / tn;
    let before = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let mut upper = c.extents.clone();
    upper[rank - 2] = mf / tm;
    upper[rank - 1] = stride;
    let (_, tiles, ivs) = before.parallel(ctx, &vec![0; rank], &upper, &vec![1; rank]);
    let (i_old, j_old) = (c.ivs[rank - 2], c.ivs[rank - 1]);
    let (ib, jb) = (ivs[rank - 2], ivs[rank - 1]);
    let batch: Vec<(Value, Value, i64, i64)> = c.ivs[..rank - 2]
        .iter()
        .zip(&ivs[..rank - 2])
        .map(|(&old, &new)| (old, new, 1, 0))
        .collect();
    let count = (tm * tn) as usize;
    let (k_loop, body, k, acc) = tiles.for_loop(
        ctx,
        (AffineMap::constant(0), vec![]),
        (AffineMap::constant(c.k_extent), vec![]),
        1,
        &vec![c.init; count],
    );
    // Every induction variable of the old nest, at the tile's row `r` and column `col`.
    let at = |r: i64, col: i64| {
        let mut s = batch.clone();
        s.extend([
            (i_old, ib, tm, r),
            (j_old, jb, 1, col * stride),
            (c.k_iv, k, 1, 0),
        ]);
        s
    };
    let lhs: Vec<Value> = (0..tm)
        .map(|r| load_operand(ctx, body, c, c.lhs.memref, substituted(&c.lhs, &at(r, 0))))
        .collect();
    let rhs: Vec<Value> = (0..tn)
        .map(|col| load_operand(ctx, body, c, c.rhs.memref, substituted(&c.rhs, &at(0, col))))
        .collect();
    let mut next = Vec::with_capacity(count);
    for r in 0..tm as usize {
        for col in 0..tn as usize {
            next.push(body.fma(ctx, lhs[r], rhs[col], acc[r * tn as usize + col]));
        }
    }
    set_yield(ctx, body, &next);
    let sums = ctx.op(k_loop).results.to_vec();
    for r in 0..tm {
        for col in 0..tn {
            let (map, operands) = substituted(&c.out, &at(r, col));
            let sum = sums[(r * tn + col) as usize];
            tiles.store(ctx, false, sum, c.out.memref, map, &operands);
        }
    }
    peel(ctx, c, (m, n), (mf, nf));
}
