//! `loop-matmul-microkernel{mr,nr,kc,vector}`: rewrites the loop nest of a matmul
//! (as `convert-te-to-loop` writes it: a `loop.parallel` over the result whose body is one
//! reduction `loop.for` carrying the sum of `A[.., i, k] * B[.., k, j]`, then a store to
//! `C[.., i, j]`) into a register-blocked micro-kernel:
//!
//! - full `MR x NR` tiles of the result: rows in blocks of `MR` on threads; in each, `C` is
//!   filled with the reduction's initial value, then for each `KC` slice of the reduction
//!   and each block of `NR` columns, `MR * NR / W` vector accumulators are loaded from `C`,
//!   carried through the `k` loop in `iter_args` (each step broadcasts `MR` values of `A`,
//!   loads `NR / W` vectors of `B` and does `MR * NR / W` FMAs) and stored back;
//! - the rows left over (`M mod MR`) get one smaller register block; the columns left over
//!   (`N mod NR`) keep the original loop nest, narrowed to them (a peeled remainder), so
//!   every shape is computed.
//!
//! Unbatched matmuls pack B (`pack-rhs`): each `KC` slice of B is copied once into
//! contiguous `NR`-column panels, which row blocks sweep `NC` columns at a time, and the
//! slice of A's full row blocks into `MR`-row panels (`pack-lhs`), so the broadcasts read
//! consecutive addresses. When B is a constant global (`pack-constants`), its panels are
//! made at compile time, a new constant global the kernel reads directly, and nothing is
//! copied at run time.
//!
//! A `B` not read consecutively along `j` (a transposed `B`: `B[.., j, k]`, as attention's
//! `Q K^T` reads its keys) is gathered element by element into the same panels; batched,
//! it is packed whole (one set of panels per batch index it depends on) before the row
//! blocks run. Without packing such a nest is left unchanged.
//!
//! A nest that carries a `#loop.schedule` (from the tuner, or written by hand) takes its
//! blocking from it (see [`blocking_of`]: tiles of `i`, `j`, `k` give `MR`, `NR`/`NC`,
//! `KC`; `vector` and `pack` the rest), and the schedule is consumed; the options are the
//! blocking of nests without one. Options at 0 come from the host ([`super::Target::host`],
//! [`super::register_block`]); `nr` must be a multiple of the vector width. Nests of
//! another form are left unchanged.
//! The sum of each element runs over `k` in the same order; the FMA rounds once where the
//! original multiply and add round twice.

use tb_dialects::arith::ArithOp;
use tb_dialects::loop_::{self, LoopOp, Schedule};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Attr, AttrKind, Context, Diagnostic, FloatKind, OpId, TypeKind, Value};

use super::build::{At, set_yield};
use super::constant_pack::{ConstantBuffer, constant_f32, packed_global, release};
use super::conv_epilogue::find_consumer;
use super::row_loop::with_row_loop;
use super::vector_epilogue::{self, VectorEpilogue};
use super::{Target, register_block};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "mr",
        kind: OptionKind::Int,
        default: "0",
        help: "Rows of the register block (0: from the host)",
    },
    PassOptionInfo {
        name: "nr",
        kind: OptionKind::Int,
        default: "0",
        help: "Columns of the register block, a multiple of the vector width (0: from the host)",
    },
    PassOptionInfo {
        name: "kc",
        kind: OptionKind::Int,
        default: "256",
        help: "Reduction slice kept in cache between accumulator loads and stores",
    },
    PassOptionInfo {
        name: "nc",
        kind: OptionKind::Int,
        default: "256",
        help: "Columns of B's packed panels a row block sweeps before the next row block (rounded down to a multiple of nr)",
    },
    PassOptionInfo {
        name: "pack-rhs",
        kind: OptionKind::Bool,
        default: "true",
        help: "Copy each KC slice of B into contiguous NR-column panels shared by all row blocks (unbatched matmuls)",
    },
    PassOptionInfo {
        name: "pack-lhs",
        kind: OptionKind::Bool,
        default: "true",
        help: "With B packed, also copy each KC slice of A's full row blocks into contiguous MR-row panels",
    },
    PassOptionInfo {
        name: "pack-constants",
        kind: OptionKind::Bool,
        default: "true",
        help: "When B is a constant global, pack its panels at compile time into a new constant global instead of on every call",
    },
    PassOptionInfo {
        name: "vector",
        kind: OptionKind::Int,
        default: "0",
        help: "Vector width in elements (0: the host's)",
    },
    PassOptionInfo {
        name: "epilogues",
        kind: OptionKind::Bool,
        default: "true",
        help: "Compute the elementwise nest that reads a packed matmul's result (bias, activation, residual add) on the accumulators where the kernel stores them",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-matmul-microkernel",
        description: "Register-block matmul loop nests into an MR x NR vector micro-kernel",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(MatmulMicrokernel {
                mr: o.int("mr"),
                nr: o.int("nr"),
                kc: o.int("kc"),
                vector: o.int("vector"),
                pack_rhs: o.bool("pack-rhs"),
                pack_lhs: o.bool("pack-lhs"),
                nc: o.int("nc"),
                pack_constants: o.bool("pack-constants"),
                epilogues: o.bool("epilogues"),
            })
        },
    }
}

struct MatmulMicrokernel {
    mr: i64,
    nr: i64,
    kc: i64,
    vector: i64,
    pack_rhs: bool,
    pack_lhs: bool,
    nc: i64,
    pack_constants: bool,
    epilogues: bool,
}

/// One access `memref[map(operands)]`.
#[derive(Clone)]
pub(crate) struct Access {
    pub(crate) memref: Value,
    pub(crate) map: AffineMap,
    pub(crate) operands: Vec<Value>,
}

/// A matched matmul nest.
pub(crate) struct Contraction {
    pub(crate) parallel: OpId,
    pub(crate) extents: Vec<i64>,
    pub(crate) ivs: Vec<Value>,
    pub(crate) k_extent: i64,
    pub(crate) k_iv: Value,
    pub(crate) init: Value,
    pub(crate) lhs: Access,
    pub(crate) rhs: Access,
    pub(crate) out: Access,
    /// `B` is not read consecutively along `j` (a transposed `B`, as attention's `Q K^T`
    /// reads it): it can only be blocked packed, the copy into panels reading it element
    /// by element.
    pub(crate) rhs_gathered: bool,
    /// The narrower float type `A` and `B` hold when each loaded value is widened to the
    /// f32 accumulator (`arith.extf`, as a matmul of f16 or bf16 tensors lowers); `None`
    /// when they hold f32.
    pub(crate) widened_from: Option<tb_ir::Type>,
}

/// The block sizes a rewrite uses.
#[derive(Clone, Copy)]
struct Blocking {
    mr: i64,
    nr: i64,
    kc: i64,
    width: i64,
    pack_rhs: bool,
    pack_lhs: bool,
    nc: i64,
    pack_constants: bool,
    epilogues: bool,
}

impl Pass for MatmulMicrokernel {
    fn argument(&self) -> &'static str {
        "loop-matmul-microkernel"
    }

    fn display_name(&self) -> &'static str {
        "LoopMatmulMicrokernel"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let host = Target::host();
        let (host_mr, host_nr) = register_block(&host, 4);
        let width = if self.vector > 0 {
            self.vector
        } else {
            host.lanes(4)
        };
        let mut blocking = Blocking {
            mr: if self.mr > 0 { self.mr } else { host_mr },
            nr: if self.nr > 0 {
                self.nr
            } else {
                host_nr.max(width)
            },
            kc: self.kc,
            width,
            pack_rhs: self.pack_rhs,
            pack_lhs: self.pack_lhs,
            nc: self.nc,
            pack_constants: self.pack_constants,
            epilogues: self.epilogues,
        };
        if blocking.nr > 0 {
            blocking.nc = (blocking.nc - blocking.nc % blocking.nr).max(blocking.nr);
        }
        if blocking.mr < 1
            || blocking.kc < 1
            || blocking.width < 1
            || blocking.nr % blocking.width != 0
        {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-matmul-microkernel: needs mr, kc and vector >= 1 and nr a positive multiple of the vector width {} (got mr={}, nr={}, kc={})",
                    blocking.width, blocking.mr, blocking.nr, blocking.kc
                ),
            ));
        }
        let mut candidates = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if LoopOp::of(ctx, inner) == Some(LoopOp::Parallel) {
                candidates.push(inner);
            }
        });
        for candidate in candidates {
            let found = match_contraction(ctx, candidate).or_else(|| with_row_loop(ctx, candidate));
            if let Some(found) = found.filter(|c| c.widened_from.is_none()) {
                let parallel = found.parallel;
                let chosen = match loop_::schedule(ctx, parallel).cloned() {
                    Some(schedule) => blocking_of(&schedule, &found, blocking).map_err(|why| {
                        Diagnostic::error(
                            ctx.op(parallel).loc,
                            format!(
                                "loop-matmul-microkernel: the nest's schedule does not fit: {why}"
                            ),
                        )
                    })?,
                    None => blocking,
                };
                if found.rhs_gathered && !chosen.pack_rhs {
                    // A gathered B is only read through panels.
                    continue;
                }
                // The peeled remainders are copies of the nest: they get a schedule of
                // their own later, not this one.
                drop_schedule(ctx, parallel);
                rewrite(ctx, &found, chosen);
            }
        }
        Ok(())
    }
}

/// The blocking a nest's `#loop.schedule` asks for. The schedule's dimensions are the
/// nest's: the `loop.parallel`'s (batch dimensions, then `i` and `j`), then `k`. The
/// innermost tiles of `i` and `j` are `MR` and `NR`, `j`'s outer tile is `NC`, `k`'s
/// outermost tile is `KC` (the whole reduction when untiled), `vector` the vector width
/// and `pack` whether `B` is packed; an untiled `i` or `j` keeps `fallback`'s block.
fn blocking_of(
    schedule: &Schedule,
    c: &Contraction,
    fallback: Blocking,
) -> Result<Blocking, String> {
    let rank = c.extents.len() + 1;
    let mut reduction = vec![false; rank];
    reduction[rank - 1] = true;
    schedule.verify(rank, &reduction)?;
    let (i, j, k) = (rank - 3, rank - 2, rank - 1);
    let nr = schedule.tiles[j].last().copied().unwrap_or(fallback.nr);
    let width = schedule.vector;
    if nr % width != 0 {
        return Err(format!(
            "asks for NR = {nr} columns, not a multiple of its vector width {width}"
        ));
    }
    let nc = match schedule.tiles[j].as_slice() {
        [outer, _, ..] => *outer,
        _ => fallback.nc,
    };
    Ok(Blocking {
        mr: schedule.tiles[i].last().copied().unwrap_or(fallback.mr),
        nr,
        kc: schedule.tiles[k]
            .first()
            .copied()
            .unwrap_or(c.k_extent.max(1)),
        width,
        pack_rhs: schedule.pack.packs_rhs(),
        pack_lhs: schedule.pack.packs_lhs(),
        nc: (nc - nc % nr).max(nr),
        pack_constants: fallback.pack_constants,
        epilogues: fallback.epilogues,
    })
}

/// Removes the `loop.schedule` attribute of `op`.
pub(super) fn drop_schedule(ctx: &mut Context, op: OpId) {
    let attrs = ctx.op(op).attributes;
    let mut entries = ctx.dictionary_entries(attrs).to_vec();
    entries.retain(|(n, _)| n != loop_::SCHEDULE_ATTR);
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(op).attributes = dict;
}

fn is_f32(ctx: &Context, v: Value) -> bool {
    let ty = ctx.value_type(v);
    matches!(ctx.type_kind(ty), TypeKind::Float(FloatKind::F32))
}

/// Whether `memref` has an identity layout, so its last dimension is contiguous.
pub(super) fn contiguous(ctx: &Context, memref: Value) -> bool {
    let ty = ctx.value_type(memref);
    matches!(ctx.type_kind(ty), TypeKind::MemRef { layout: None, .. })
}

/// The access of load/store `op`, with constant index operands folded into its map:
/// `convert-te-to-loop` indexes unit dimensions with `%c0`, and the matcher only sees
/// induction variables.
pub(super) fn access(ctx: &Context, op: OpId, memref_index: usize) -> Option<Access> {
    let operands = &ctx.op(op).operands;
    let map = loop_::access_map(ctx, op)?;
    let indices = &operands[memref_index + 1..];
    let mut kept = Vec::with_capacity(indices.len());
    let dims: Vec<AffineExpr> = indices
        .iter()
        .map(|&v| match constant_index(ctx, v) {
            Some(c) => AffineExpr::constant(c),
            None => {
                kept.push(v);
                AffineExpr::dim(kept.len() as u32 - 1)
            }
        })
        .collect();
    let results = map
        .results
        .iter()
        .map(|r| r.replace_dims_and_symbols(&dims, &[]).simplify())
        .collect();
    Some(Access {
        memref: operands[memref_index],
        map: AffineMap::new(kept.len() as u32, map.num_symbols, results),
        operands: kept,
    })
}

/// The value of `v` when an `arith.constant` of integer type defines it.
fn constant_index(ctx: &Context, v: Value) -> Option<i64> {
    let tb_ir::value::ValueDef::Result { op, .. } = ctx.value(v).def else {
        return None;
    };
    match ctx.attr_kind(tb_ir::rewrite::folder::constant_value(ctx, op)?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// Whether any result of `a` depends on the value `v`.
pub(super) fn depends_on(a: &Access, v: Value) -> bool {
    a.operands
        .iter()
        .enumerate()
        .any(|(p, &o)| o == v && a.map.results.iter().any(|r| r.is_function_of_dim(p as u32)))
}

/// Whether `a` reads consecutive elements as `v` grows: its last result is the one dim
/// that `v` is, and no other result depends on `v`.
pub(super) fn unit_stride_in(a: &Access, v: Value) -> bool {
    let positions: Vec<usize> = (0..a.operands.len())
        .filter(|&p| a.operands[p] == v)
        .collect();
    let [p] = positions.as_slice() else {
        return false;
    };
    let Some((last, rest)) = a.map.results.split_last() else {
        return false;
    };
    a.map.num_symbols == 0
        && last.as_dim() == Some(*p as u32)
        && !rest.iter().any(|r| r.is_function_of_dim(*p as u32))
}

pub(super) fn defined_outside(ctx: &Context, v: Value, op: OpId) -> bool {
    let mut block_op = match ctx.value(v).def {
        tb_ir::value::ValueDef::Result { op: def, .. } => ctx.parent_op(def),
        tb_ir::value::ValueDef::BlockArgument { block, .. } => {
            ctx.block(block).parent.and_then(|r| ctx.region(r).parent)
        }
        tb_ir::value::ValueDef::Placeholder => return false,
    };
    while let Some(p) = block_op {
        if p == op {
            return false;
        }
        block_op = ctx.parent_op(p);
    }
    true
}

/// The matmul nest `parallel` (see the module doc), when it is one.
pub(crate) fn match_contraction(ctx: &Context, parallel: OpId) -> Option<Contraction> {
    let dims = loop_::loop_dims(ctx, parallel)?;
    if dims.len() < 2 {
        return None;
    }
    let mut extents = Vec::new();
    for d in &dims {
        if d.lower.constant() != Some(0) || d.step != 1 {
            return None;
        }
        extents.push(d.upper.constant()?);
    }
    let ivs: Vec<Value> = dims.iter().map(|d| d.induction_var).collect();
    let body: Vec<OpId> = ctx.block_ops(loop_::body(ctx, parallel)?).collect();
    let [reduction, store, _] = body.as_slice() else {
        return None;
    };
    let (reduction, store) = (*reduction, *store);
    if LoopOp::of(ctx, reduction) != Some(LoopOp::For)
        || LoopOp::of(ctx, store) != Some(LoopOp::Store)
    {
        return None;
    }
    let k_dim = loop_::loop_dims(ctx, reduction)?.into_iter().next()?;
    if k_dim.lower.constant() != Some(0) || k_dim.step != 1 {
        return None;
    }
    let k_extent = k_dim.upper.constant()?;
    let [init] = loop_::inits(ctx, reduction) else {
        return None;
    };
    let init = *init;
    let result = *ctx.op(reduction).results.first()?;
    if !is_f32(ctx, init) || !defined_outside(ctx, init, parallel) {
        return None;
    }
    if ctx.op(store).operands[0] != result || ctx.value(result).uses.len() != 1 {
        return None;
    }
    let out = access(ctx, store, 1)?;
    let acc = *loop_::iter_args(ctx, reduction).first()?;
    let inner: Vec<OpId> = ctx.block_ops(loop_::body(ctx, reduction)?).collect();
    // Either `A` and `B` are loaded as they are, or each load is widened right after it.
    let (l1, l2, mul, add, yield_op, widened) = match inner.as_slice() {
        [l1, l2, mul, add, yield_op] => (l1, l2, mul, add, yield_op, None),
        [l1, e1, l2, e2, mul, add, yield_op] => {
            let widens = |load: OpId, ext: OpId| {
                ArithOp::of(ctx, ext) == Some(ArithOp::ExtF)
                    && ctx.op(ext).operands.as_slice() == ctx.op(load).results.as_slice()
                    && ctx.value(ctx.op(load).results[0]).uses.len() == 1
            };
            if !widens(*l1, *e1) || !widens(*l2, *e2) {
                return None;
            }
            let narrow = ctx.value_type(ctx.op(*l1).results[0]);
            if ctx.value_type(ctx.op(*l2).results[0]) != narrow {
                return None;
            }
            (l1, l2, mul, add, yield_op, Some((*e1, *e2, narrow)))
        }
        _ => return None,
    };
    if LoopOp::of(ctx, *l1) != Some(LoopOp::Load)
        || LoopOp::of(ctx, *l2) != Some(LoopOp::Load)
        || ArithOp::of(ctx, *mul) != Some(ArithOp::MulF)
        || ArithOp::of(ctx, *add) != Some(ArithOp::AddF)
        || ctx.op(*yield_op).operands.as_slice() != [ctx.op(*add).results[0]]
    {
        return None;
    }
    let (x, y) = match widened {
        Some((e1, e2, _)) => (ctx.op(e1).results[0], ctx.op(e2).results[0]),
        None => (ctx.op(*l1).results[0], ctx.op(*l2).results[0]),
    };
    let product = ctx.op(*mul).results[0];
    let mul_operands = ctx.op(*mul).operands.as_slice();
    let add_operands = ctx.op(*add).operands.as_slice();
    if !(mul_operands == [x, y] || mul_operands == [y, x])
        || !(add_operands == [acc, product] || add_operands == [product, acc])
        || ctx.value(product).uses.len() != 1
    {
        return None;
    }
    let (a1, a2) = (access(ctx, *l1, 0)?, access(ctx, *l2, 0)?);
    let (i, j) = (ivs[ivs.len() - 2], ivs[ivs.len() - 1]);
    let k = k_dim.induction_var;
    let allowed = |a: &Access| a.operands.iter().all(|o| ivs.contains(o) || *o == k);
    let (lhs, rhs) = if !depends_on(&a1, j) {
        (a1, a2)
    } else {
        (a2, a1)
    };
    let no_symbols = |a: &Access| a.map.num_symbols == 0;
    let fits = no_symbols(&lhs)
        && no_symbols(&rhs)
        && no_symbols(&out)
        && allowed(&lhs)
        && allowed(&rhs)
        && out.operands.iter().all(|o| ivs.contains(o))
        && !depends_on(&lhs, j)
        && !depends_on(&rhs, i)
        && !depends_on(&out, k)
        && unit_stride_in(&out, j)
        && contiguous(ctx, out.memref)
        && out.memref != lhs.memref
        && out.memref != rhs.memref;
    let rhs_gathered = !(unit_stride_in(&rhs, j) && contiguous(ctx, rhs.memref));
    fits.then_some(Contraction {
        parallel,
        extents,
        ivs,
        k_extent,
        k_iv: k,
        init,
        lhs,
        rhs,
        out,
        rhs_gathered,
        widened_from: widened.map(|(_, _, narrow)| narrow),
    })
}

/// `access` with each operand replaced by `values[v]` (old values map to new ones) and
/// shifted by `shifts` (old value, offset).
pub(super) fn shifted(
    a: &Access,
    replace: &[(Value, Value)],
    shifts: &[(Value, i64)],
) -> (AffineMap, Vec<Value>) {
    let dims: Vec<AffineExpr> = a
        .operands
        .iter()
        .enumerate()
        .map(|(p, v)| {
            let offset = shifts.iter().find(|(s, _)| s == v).map_or(0, |&(_, o)| o);
            AffineExpr::dim(p as u32) + offset
        })
        .collect();
    let results = a
        .map
        .results
        .iter()
        .map(|r| r.replace_dims_and_symbols(&dims, &[]).simplify())
        .collect();
    let map = AffineMap::new(a.map.num_dims, 0, results);
    let operands = a
        .operands
        .iter()
        .map(|v| replace.iter().find(|(o, _)| o == v).map_or(*v, |&(_, n)| n))
        .collect();
    (map, operands)
}

fn rewrite(ctx: &mut Context, c: &Contraction, b: Blocking) {
    let rank = c.extents.len();
    let (m, n) = (c.extents[rank - 2], c.extents[rank - 1]);
    let (mf, nf) = (m - m % b.mr, n - n % b.nr);
    let packed = b.pack_rhs && rank == 2;
    // Batched matmuls read B where it lies, unless it must be gathered into panels.
    let batched_panels = b.pack_rhs && rank > 2 && c.rhs_gathered;
    if nf == 0 || (mf == 0 && !packed && !batched_panels) {
        return;
    }
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let f32_ty = ctx.value_type(c.init);
    let vec_ty = ctx.intern_type(TypeKind::Vector {
        shape: vec![b.width],
        scalable: vec![false],
        element: f32_ty,
    });
    let epilogue = b.epilogues.then(|| epilogue_of(ctx, c)).flatten();
    if let Some(e) = &epilogue {
        e.prepare(ctx, c.parallel);
    }
    let e = epilogue.as_ref();
    if packed {
        // The leftover rows get a smaller register block; only columns are peeled.
        let packed_source = packed_kernel(ctx, c, b, at, (mf, nf), vec_ty, e);
        peel(ctx, c, (m, n), (m, nf));
        if let Some(source) = packed_source {
            release(ctx, &source);
        }
    } else if batched_panels {
        let panels = batched_panels_of(ctx, c, b, at, nf, vec_ty);
        let groups = row_groups(m, mf, b.mr);
        kernel(ctx, c, b, at, &groups, nf, vec_ty, Some(&panels), e);
        at.dealloc(ctx, panels.memref);
        peel(ctx, c, (m, n), (m, nf));
    } else {
        let groups = row_groups(m, mf, b.mr);
        kernel(ctx, c, b, at, &groups, nf, vec_ty, None, e);
        peel(ctx, c, (m, n), (m, nf));
    }
    if let Some(e) = epilogue {
        if nf < n {
            // The peeled columns still write C; the consumer keeps them.
            let mut lower = vec![0; rank];
            lower[rank - 1] = nf;
            set_bounds(ctx, e.epilogue.consumer, &lower, &c.extents);
        } else {
            // With one KC slice nothing writes C any more; with several it holds the
            // partial sums.
            e.epilogue.remove(ctx, c.k_extent <= b.kc);
        }
    }
}

/// The elementwise nest after a matmul that the kernel can compute on its accumulators
/// (see [`super::vector_epilogue`]): the only reader of `C`, reading it at its own
/// `(.., i, j)`, and writing neither `A` nor `B`.
pub(crate) fn epilogue_of(ctx: &Context, c: &Contraction) -> Option<VectorEpilogue> {
    let e = consumer_of(ctx, c)?;
    let plan = vector_epilogue::plan(ctx, e, c.parallel)?;
    let output = plan.output();
    (output != c.lhs.memref && output != c.rhs.memref).then_some(plan)
}

/// The elementwise nest after a matmul that a kernel can compute where it stores each
/// result: the only reader of `C`, reading it at its own `(.., i, j)` (see
/// [`find_consumer`]), and writing neither `A` nor `B`.
fn consumer_of(ctx: &Context, c: &Contraction) -> Option<super::conv_epilogue::Epilogue> {
    let position = |v: &Value| c.ivs.iter().position(|iv| iv == v);
    let dims = c
        .out
        .operands
        .iter()
        .map(|v| position(v).map(|p| AffineExpr::dim(p as u32)))
        .collect::<Option<Vec<_>>>()?;
    let own_index: Vec<AffineExpr> = c
        .out
        .map
        .results
        .iter()
        .map(|r| r.replace_dims_and_symbols(&dims, &[]).simplify())
        .collect();
    let e = find_consumer(ctx, c.out.memref, c.parallel, &c.extents, &own_index, true)?;
    let body = loop_::body(ctx, e.consumer)?;
    let store = ctx
        .block_ops(body)
        .find(|&op| LoopOp::of(ctx, op) == Some(LoopOp::Store))?;
    let output = ctx.op(store).operands[1];
    (output != c.lhs.memref && output != c.rhs.memref).then_some(e)
}

/// Row blocks `(first, end, rows)`: full blocks of `mr` rows up to `mf`, then one block of
/// the `m - mf` rows left over.
fn row_groups(m: i64, mf: i64, mr: i64) -> Vec<(i64, i64, i64)> {
    [(0, mf, mr), (mf, m, m - mf)]
        .into_iter()
        .filter(|&(lo, hi, _)| lo < hi)
        .collect()
}

/// `B` of a batched matmul packed whole into panels `panel[b..][j / NR][k][0..NR]`: one
/// set per index of the batch dimensions `B` depends on.
struct BatchedPanels {
    memref: Value,
    /// Positions (in the nest's dimensions) of the batch dimensions `B` depends on.
    batch: Vec<usize>,
}

impl BatchedPanels {
    /// `panel[d0..][d(nb) floordiv NR][d(nb+1)][offset]` over operands
    /// `(batch ivs.., j, k)`.
    fn map(&self, nr: i64, offset: i64) -> AffineMap {
        let nb = self.batch.len() as u32;
        let mut results: Vec<AffineExpr> = (0..nb).map(AffineExpr::dim).collect();
        results.push(AffineExpr::dim(nb).floor_div(nr));
        results.push(AffineExpr::dim(nb + 1));
        results.push(AffineExpr::constant(offset));
        AffineMap::new(nb + 2, 0, results)
    }
}

/// Copies the first `nf` columns of a batched `B` into [`BatchedPanels`]: the panels of
/// every batch on threads, `B` read as [`copy_panel_row`] does.
fn batched_panels_of(
    ctx: &mut Context,
    c: &Contraction,
    b: Blocking,
    at: At,
    nf: i64,
    vec_ty: tb_ir::Type,
) -> BatchedPanels {
    let rank = c.extents.len();
    let f32_ty = ctx.value_type(c.init);
    let batch: Vec<usize> = (0..rank - 2)
        .filter(|&d| depends_on(&c.rhs, c.ivs[d]))
        .collect();
    let mut shape: Vec<i64> = batch.iter().map(|&d| c.extents[d]).collect();
    shape.extend([nf / b.nr, c.k_extent, b.nr]);
    let panel_ty = ctx.intern_type(TypeKind::MemRef {
        shape,
        element: f32_ty,
        layout: None,
        memory_space: None,
    });
    let alloc = at.create(ctx, loop_::ALLOC, vec![], vec![panel_ty], vec![], 0);
    let panels = BatchedPanels {
        memref: ctx.op(alloc).results[0],
        batch,
    };
    let mut upper: Vec<i64> = panels.batch.iter().map(|&d| c.extents[d]).collect();
    upper.push(nf);
    let mut steps = vec![1; panels.batch.len()];
    steps.push(b.nr);
    let (_, pack_panels, pack_ivs) = at.parallel(ctx, &vec![0; upper.len()], &upper, &steps);
    let jp = *pack_ivs.last().expect("the column dimension");
    let (_, pack, kp, _) = pack_panels.for_loop(
        ctx,
        (AffineMap::constant(0), vec![]),
        (AffineMap::constant(c.k_extent), vec![]),
        1,
        &[],
    );
    // B does not depend on the row or the other batch dimensions: they read as `jp`.
    let mut replace: Vec<(Value, Value)> = c.ivs.iter().map(|&iv| (iv, jp)).collect();
    for (slot, &d) in panels.batch.iter().enumerate() {
        replace[d].1 = pack_ivs[slot];
    }
    replace.push((c.k_iv, kp));
    let mut operands: Vec<Value> = pack_ivs[..panels.batch.len()].to_vec();
    operands.extend([jp, kp]);
    copy_panel_row(
        ctx,
        pack,
        c,
        b,
        &replace,
        (panels.memref, &|offset| panels.map(b.nr, offset), &operands),
        (f32_ty, vec_ty),
    );
    panels
}

/// Copies one `k` row of an `NR`-column panel: `B` at `replace` (with `j` shifted by each
/// column) into `panels` at `map(column)(operands)`; vector loads where `B` is read
/// consecutively along `j`, element by element where it is gathered.
fn copy_panel_row(
    ctx: &mut Context,
    at: At,
    c: &Contraction,
    b: Blocking,
    replace: &[(Value, Value)],
    (panels, map, operands): (Value, &dyn Fn(i64) -> AffineMap, &[Value]),
    (f32_ty, vec_ty): (tb_ir::Type, tb_ir::Type),
) {
    let j_old = c.ivs[c.ivs.len() - 1];
    let (step, ty) = if c.rhs_gathered {
        (1, f32_ty)
    } else {
        (b.width, vec_ty)
    };
    for offset in (0..b.nr).step_by(step as usize) {
        let (source, source_operands) = shifted(&c.rhs, replace, &[(j_old, offset)]);
        let v = at.load(
            ctx,
            !c.rhs_gathered,
            c.rhs.memref,
            source,
            &source_operands,
            ty,
        );
        at.store(ctx, !c.rhs_gathered, v, panels, map(offset), operands);
    }
}

/// The micro-kernel for row blocks `groups` (`(first, end, rows)`, see [`row_groups`])
/// and the first `nf` columns: per row block (and batch index), fill, then KC slices
/// and column blocks. `B` is read where it lies, or from `panels`.
#[allow(clippy::too_many_arguments)]
fn kernel(
    ctx: &mut Context,
    c: &Contraction,
    b: Blocking,
    at: At,
    groups: &[(i64, i64, i64)],
    nf: i64,
    vec_ty: tb_ir::Type,
    panels: Option<&BatchedPanels>,
    epilogue: Option<&VectorEpilogue>,
) {
    for &(lo, hi, mr) in groups {
        kernel_rows(
            ctx,
            c,
            Blocking { mr, ..b },
            at,
            (lo, hi),
            nf,
            vec_ty,
            panels,
            epilogue,
        );
    }
}

/// [`kernel`] for the rows `lo..hi` in blocks of `b.mr`.
#[allow(clippy::too_many_arguments)]
fn kernel_rows(
    ctx: &mut Context,
    c: &Contraction,
    b: Blocking,
    at: At,
    (lo, hi): (i64, i64),
    nf: i64,
    vec_ty: tb_ir::Type,
    panels: Option<&BatchedPanels>,
    epilogue: Option<&VectorEpilogue>,
) {
    let rank = c.extents.len();
    let f32_ty = ctx.value_type(c.init);
    let (i_old, j_old) = (c.ivs[rank - 2], c.ivs[rank - 1]);
    let columns = b.nr / b.width;

    // Row blocks (and batch dimensions) on threads.
    let mut upper = c.extents.clone();
    upper.pop();
    upper[rank - 2] = hi;
    let mut lower = vec![0; rank - 1];
    lower[rank - 2] = lo;
    let mut steps = vec![1; rank - 1];
    steps[rank - 2] = b.mr;
    let (_, rows, outer_ivs) = at.parallel(ctx, &lower, &upper, &steps);
    let ib = outer_ivs[rank - 2];
    let mut replace: Vec<(Value, Value)> = c.ivs[..rank - 2]
        .iter()
        .copied()
        .zip(outer_ivs[..rank - 2].iter().copied())
        .collect();
    replace.push((i_old, ib));

    let with_j = |replace: &[(Value, Value)], jb: Value| -> Vec<(Value, Value)> {
        let mut r = replace.to_vec();
        r.push((j_old, jb));
        r
    };
    // Fill the block's rows of C with the reduction's initial value, unless the reduction
    // is one KC slice: the accumulators then start from it in registers.
    let single_slice = c.k_extent <= b.kc;
    if !single_slice {
        let splat = rows.broadcast(ctx, c.init, vec_ty);
        let (_, fill, jb, _) = rows.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(nf), vec![]),
            b.nr,
            &[],
        );
        for r in 0..b.mr {
            for col in 0..columns {
                let (map, operands) = shifted(
                    &c.out,
                    &with_j(&replace, jb),
                    &[(i_old, r), (j_old, col * b.width)],
                );
                fill.store(ctx, true, splat, c.out.memref, map, &operands);
            }
        }
    }

    // Reduction slices, then column blocks, then the register-blocked k loop. With an
    // epilogue the last slice is peeled: it computes the epilogue where the others store
    // partial sums into C.
    let last = match epilogue {
        Some(_) => (c.k_extent - 1) / b.kc * b.kc,
        None => c.k_extent,
    };
    let emit_slice = |ctx: &mut Context,
                      slices: At,
                      kb: Value,
                      epilogue: Option<&VectorEpilogue>| {
        let (_, block, jb, _) = slices.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(nf), vec![]),
            b.nr,
            &[],
        );
        let replace_j = with_j(&replace, jb);
        let splat = single_slice.then(|| block.broadcast(ctx, c.init, vec_ty));
        let mut accumulators = Vec::new();
        let mut c_maps = Vec::new();
        for r in 0..b.mr {
            for col in 0..columns {
                let (map, operands) =
                    shifted(&c.out, &replace_j, &[(i_old, r), (j_old, col * b.width)]);
                accumulators.push(match splat {
                    Some(splat) => splat,
                    None => block.load(ctx, true, c.out.memref, map.clone(), &operands, vec_ty),
                });
                c_maps.push((map, operands));
            }
        }
        let k_upper = if c.k_extent % b.kc == 0 {
            AffineMap::new(1, 0, vec![AffineExpr::dim(0) + b.kc])
        } else {
            AffineMap::new(
                1,
                0,
                vec![AffineExpr::constant(c.k_extent), AffineExpr::dim(0) + b.kc],
            )
        };
        let (k_loop, body, k, acc) = block.for_loop(
            ctx,
            (AffineMap::identity(1), vec![kb]),
            (k_upper, vec![kb]),
            1,
            &accumulators,
        );
        let mut replace_k = replace_j.clone();
        replace_k.push((c.k_iv, k));
        let lhs: Vec<Value> = (0..b.mr)
            .map(|r| {
                let (map, operands) = shifted(&c.lhs, &replace_k, &[(i_old, r)]);
                let scalar = body.load(ctx, false, c.lhs.memref, map, &operands, f32_ty);
                body.broadcast(ctx, scalar, vec_ty)
            })
            .collect();
        let rhs: Vec<Value> = (0..columns)
            .map(|col| match panels {
                Some(p) => {
                    let mut operands: Vec<Value> = p.batch.iter().map(|&d| outer_ivs[d]).collect();
                    operands.extend([jb, k]);
                    body.load(
                        ctx,
                        true,
                        p.memref,
                        p.map(b.nr, col * b.width),
                        &operands,
                        vec_ty,
                    )
                }
                None => {
                    let (map, operands) = shifted(&c.rhs, &replace_k, &[(j_old, col * b.width)]);
                    body.load(ctx, true, c.rhs.memref, map, &operands, vec_ty)
                }
            })
            .collect();
        let next: Vec<Value> = (0..b.mr as usize)
            .flat_map(|r| (0..columns as usize).map(move |col| (r, col)))
            .map(|(r, col)| body.fma(ctx, lhs[r], rhs[col], acc[r * columns as usize + col]))
            .collect();
        set_yield(ctx, body, &next);
        let results = ctx.op(k_loop).results.to_vec();
        let mut point = outer_ivs[..rank - 2].to_vec();
        point.extend([ib, jb]);
        store_block(ctx, block, c, b, (results, c_maps), epilogue, &point);
    };
    for (first, end, epilogue) in [(0, last, None), (last, c.k_extent, epilogue)] {
        if first < end {
            let (_, slices, kb, _) = rows.for_loop(
                ctx,
                (AffineMap::constant(first), vec![]),
                (AffineMap::constant(end), vec![]),
                b.kc,
                &[],
            );
            emit_slice(ctx, slices, kb, epilogue);
        }
    }
}

/// Stores a register block's accumulators (row by row, `NR / W` vectors each) into `C`
/// at `c_maps`, or, with an epilogue, computes it on each at the consumer's `point` (the
/// block's first row and column) shifted to the accumulator's row and columns.
fn store_block(
    ctx: &mut Context,
    block: At,
    c: &Contraction,
    b: Blocking,
    (results, c_maps): (Vec<Value>, Vec<(AffineMap, Vec<Value>)>),
    epilogue: Option<&VectorEpilogue>,
    point: &[Value],
) {
    let columns = b.nr / b.width;
    for (index, (value, (map, operands))) in results.into_iter().zip(c_maps).enumerate() {
        match epilogue {
            Some(e) => {
                let (r, col) = (index as i64 / columns, index as i64 % columns);
                let mut offsets = vec![0; point.len() - 2];
                offsets.extend([r, col * b.width]);
                e.emit(ctx, block, point, &offsets, value, b.width);
            }
            None => block.store(ctx, true, value, c.out.memref, map, &operands),
        }
    }
}

/// The leftover rows and columns keep the original nest, narrowed; the original goes.
pub(crate) fn peel(ctx: &mut Context, c: &Contraction, (m, n): (i64, i64), (mf, nf): (i64, i64)) {
    let rank = c.extents.len();
    let remainders: Vec<(i64, i64, i64, i64)> = [(mf, m, 0, n), (0, mf, nf, n)]
        .into_iter()
        .filter(|&(i0, i1, j0, j1)| i0 < i1 && j0 < j1)
        .collect();
    for &(i0, i1, j0, j1) in &remainders {
        let copy = ctx.clone_op(c.parallel, &mut Default::default());
        ctx.insert_op_before(c.parallel, copy);
        let mut lower = vec![0; rank];
        let mut upper = c.extents.clone();
        (
            lower[rank - 2],
            upper[rank - 2],
            lower[rank - 1],
            upper[rank - 1],
        ) = (i0, i1, j0, j1);
        set_bounds(ctx, copy, &lower, &upper);
    }
    ctx.erase_op(c.parallel);
}

/// The micro-kernel with `B` packed (rows left over by `MR` get one smaller block): `C`'s
/// full tiles are filled with the initial value (unless the reduction is one KC slice: the
/// accumulators then start from it in registers);
/// then for each KC slice of the reduction, the slice of `B`'s first `Nf` columns is copied
/// into `NR`-column panels (`panel[j / NR][k - kb][0..NR]`, contiguous along `k`), and row
/// blocks on threads run the register-blocked `k` loop over the panels. A constant `B` is
/// packed at compile time instead (see [`constant_panels`]); its source is returned, for
/// [`release`] once the original nest is gone.
fn packed_kernel(
    ctx: &mut Context,
    c: &Contraction,
    b: Blocking,
    at: At,
    (mf, nf): (i64, i64),
    vec_ty: tb_ir::Type,
    epilogue: Option<&VectorEpilogue>,
) -> Option<ConstantBuffer> {
    let f32_ty = ctx.value_type(c.init);
    let (i_old, j_old) = (c.ivs[0], c.ivs[1]);
    let columns = b.nr / b.width;
    let kc = b.kc.min(c.k_extent);
    // Full blocks of MR rows, then one block of the rows left over.
    let m = c.extents[0];
    let groups = row_groups(m, mf, b.mr);
    // A constant B is packed now, whole: `panel[j / NR][k][0..NR]`.
    let constant = if b.pack_constants {
        constant_f32(ctx, c.rhs.memref)
            .and_then(|source| constant_panels(ctx, c, b, at, nf, &source).map(|p| (source, p)))
    } else {
        None
    };
    let panels = match &constant {
        Some((_, panels)) => *panels,
        None => {
            let panel_ty = ctx.intern_type(TypeKind::MemRef {
                shape: vec![nf / b.nr, kc, b.nr],
                element: f32_ty,
                layout: None,
                memory_space: None,
            });
            let op = at.create(ctx, loop_::ALLOC, vec![], vec![panel_ty], vec![], 0);
            ctx.op(op).results[0]
        }
    };

    // A's full row blocks, packed per KC slice: `a_panel[i / MR][k - kb][0..MR]`.
    let lhs_panels = (b.pack_lhs && mf > 0).then(|| {
        let ty = ctx.intern_type(TypeKind::MemRef {
            shape: vec![mf / b.mr, kc, b.mr],
            element: f32_ty,
            layout: None,
            memory_space: None,
        });
        let op = at.create(ctx, loop_::ALLOC, vec![], vec![ty], vec![], 0);
        ctx.op(op).results[0]
    });
    // Operands (i, k, kb).
    let lhs_panel_map = |row: i64| {
        AffineMap::new(
            3,
            0,
            vec![
                AffineExpr::dim(0).floor_div(b.mr),
                AffineExpr::dim(1) + AffineExpr::dim(2) * -1,
                AffineExpr::constant(row),
            ],
        )
    };

    // With a single KC slice the accumulators start from the initial value in registers;
    // otherwise C's full tiles are filled with it first and each slice adds to them.
    let single_slice = c.k_extent <= kc;
    for &(lo, hi, mr) in groups.iter().filter(|_| !single_slice) {
        let (_, fill_rows, fill_ivs) = at.parallel(ctx, &[lo], &[hi], &[mr]);
        let splat = fill_rows.broadcast(ctx, c.init, vec_ty);
        let (_, fill, jb, _) = fill_rows.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(nf), vec![]),
            b.nr,
            &[],
        );
        for r in 0..mr {
            for col in 0..columns {
                let (map, operands) = shifted(
                    &c.out,
                    &[(i_old, fill_ivs[0]), (j_old, jb)],
                    &[(i_old, r), (j_old, col * b.width)],
                );
                fill.store(ctx, true, splat, c.out.memref, map, &operands);
            }
        }
    }

    let k_upper = if c.k_extent % kc == 0 {
        AffineMap::new(1, 0, vec![AffineExpr::dim(0) + kc])
    } else {
        AffineMap::new(
            1,
            0,
            vec![AffineExpr::constant(c.k_extent), AffineExpr::dim(0) + kc],
        )
    };
    // panel[j floordiv NR][k - kb][offset], or panel[j floordiv NR][k][offset] for the
    // constant panels of the whole reduction; operands (j, k, kb).
    let whole = constant.is_some();
    let panel_map = |offset: i64| {
        let row = if whole {
            AffineExpr::dim(1)
        } else {
            AffineExpr::dim(1) + AffineExpr::dim(2) * -1
        };
        AffineMap::new(
            3,
            0,
            vec![
                AffineExpr::dim(0).floor_div(b.nr),
                row,
                AffineExpr::constant(offset),
            ],
        )
        .simplify()
    };

    // The KC slices of the reduction. With an epilogue the last slice is peeled: it stores
    // the epilogue's results where the others store partial sums into C.
    let last = match epilogue {
        Some(_) => (c.k_extent - 1) / kc * kc,
        None => c.k_extent,
    };
    let emit_slice = |ctx: &mut Context,
                      slice: At,
                      kb: Value,
                      epilogue: Option<&VectorEpilogue>| {
        // Pack the slice: column panels on threads.
        if !whole {
            let (_, pack_panels, pack_ivs) = slice.parallel(ctx, &[0], &[nf], &[b.nr]);
            let jp = pack_ivs[0];
            let (_, pack, kp, _) = pack_panels.for_loop(
                ctx,
                (AffineMap::identity(1), vec![kb]),
                (k_upper.clone(), vec![kb]),
                1,
                &[],
            );
            // B's row is k, so the row block's value is irrelevant: replace i by the column too.
            copy_panel_row(
                ctx,
                pack,
                c,
                b,
                &[(j_old, jp), (c.k_iv, kp), (i_old, jp)],
                (panels, &panel_map, &[jp, kp, kb]),
                (f32_ty, vec_ty),
            );
        }

        // Pack the slice of A's full row blocks: row blocks on threads.
        if let Some(lhs_panels) = lhs_panels {
            let (_, pack_rows, pack_ivs) = slice.parallel(ctx, &[0], &[mf], &[b.mr]);
            let ip = pack_ivs[0];
            let (_, pack, kp, _) = pack_rows.for_loop(
                ctx,
                (AffineMap::identity(1), vec![kb]),
                (k_upper.clone(), vec![kb]),
                1,
                &[],
            );
            for r in 0..b.mr {
                // A does not depend on the column: replace j by the row.
                let (map, operands) = shifted(
                    &c.lhs,
                    &[(i_old, ip), (c.k_iv, kp), (j_old, ip)],
                    &[(i_old, r)],
                );
                let v = pack.load(ctx, false, c.lhs.memref, map, &operands, f32_ty);
                pack.store(ctx, false, v, lhs_panels, lhs_panel_map(r), &[ip, kp, kb]);
            }
        }

        // NC columns of panels at a time (kept in cache), row blocks on threads, column
        // blocks, the register-blocked k loop.
        let nc = b.nc.min(nf);
        let (_, sweep, jc, _) = slice.for_loop(
            ctx,
            (AffineMap::constant(0), vec![]),
            (AffineMap::constant(nf), vec![]),
            nc,
            &[],
        );
        let j_upper = if nf % nc == 0 {
            AffineMap::new(1, 0, vec![AffineExpr::dim(0) + nc])
        } else {
            AffineMap::new(
                1,
                0,
                vec![AffineExpr::constant(nf), AffineExpr::dim(0) + nc],
            )
        };
        for &(lo, hi, mr) in &groups {
            let (_, rows, row_ivs) = sweep.parallel(ctx, &[lo], &[hi], &[mr]);
            let ib = row_ivs[0];
            let (_, block, jb, _) = rows.for_loop(
                ctx,
                (AffineMap::identity(1), vec![jc]),
                (j_upper.clone(), vec![jc]),
                b.nr,
                &[],
            );
            let replace = [(i_old, ib), (j_old, jb)];
            let mut accumulators = Vec::new();
            let mut c_maps = Vec::new();
            let splat = single_slice.then(|| block.broadcast(ctx, c.init, vec_ty));
            for r in 0..mr {
                for col in 0..columns {
                    let (map, operands) =
                        shifted(&c.out, &replace, &[(i_old, r), (j_old, col * b.width)]);
                    accumulators.push(match splat {
                        Some(splat) => splat,
                        None => block.load(ctx, true, c.out.memref, map.clone(), &operands, vec_ty),
                    });
                    c_maps.push((map, operands));
                }
            }
            let (k_loop, body, k, acc) = block.for_loop(
                ctx,
                (AffineMap::identity(1), vec![kb]),
                (k_upper.clone(), vec![kb]),
                1,
                &accumulators,
            );
            // The full row blocks read A's panels; the leftover rows read A where it lies.
            let from_panels = lhs_panels.filter(|_| lo == 0 && mr == b.mr);
            let lhs: Vec<Value> = (0..mr)
                .map(|r| {
                    let scalar = match from_panels {
                        Some(lhs_panels) => body.load(
                            ctx,
                            false,
                            lhs_panels,
                            lhs_panel_map(r),
                            &[ib, k, kb],
                            f32_ty,
                        ),
                        None => {
                            let (map, operands) = shifted(
                                &c.lhs,
                                &[(i_old, ib), (j_old, jb), (c.k_iv, k)],
                                &[(i_old, r)],
                            );
                            body.load(ctx, false, c.lhs.memref, map, &operands, f32_ty)
                        }
                    };
                    body.broadcast(ctx, scalar, vec_ty)
                })
                .collect();
            let rhs: Vec<Value> = (0..columns)
                .map(|col| {
                    body.load(
                        ctx,
                        true,
                        panels,
                        panel_map(col * b.width),
                        &[jb, k, kb],
                        vec_ty,
                    )
                })
                .collect();
            let next: Vec<Value> = (0..mr as usize)
                .flat_map(|r| (0..columns as usize).map(move |col| (r, col)))
                .map(|(r, col)| body.fma(ctx, lhs[r], rhs[col], acc[r * columns as usize + col]))
                .collect();
            set_yield(ctx, body, &next);
            let results = ctx.op(k_loop).results.to_vec();
            store_block(ctx, block, c, b, (results, c_maps), epilogue, &[ib, jb]);
        }
    };
    for (first, end, epilogue) in [(0, last, None), (last, c.k_extent, epilogue)] {
        if first < end {
            let (_, slice, kb, _) = at.for_loop(
                ctx,
                (AffineMap::constant(first), vec![]),
                (AffineMap::constant(end), vec![]),
                kc,
                &[],
            );
            emit_slice(ctx, slice, kb, epilogue);
        }
    }

    if let Some(lhs_panels) = lhs_panels {
        at.dealloc(ctx, lhs_panels);
    }
    match constant {
        // Released by the caller once the original nest is gone.
        Some((source, _)) => Some(source),
        None => {
            at.dealloc(ctx, panels);
            None
        }
    }
}

/// `B`'s first `nf` columns as constant panels `panel[j / NR][k][0..NR]` (the whole
/// reduction), when `B` is the constant `source` and every element it reads lies in it.
fn constant_panels(
    ctx: &mut Context,
    c: &Contraction,
    b: Blocking,
    at: At,
    nf: i64,
    source: &ConstantBuffer,
) -> Option<Value> {
    let (i_old, j_old) = (c.ivs[0], c.ivs[1]);
    let k_extent = c.k_extent;
    let mut values = Vec::with_capacity((nf * k_extent) as usize);
    let mut dims = vec![0i64; c.rhs.operands.len()];
    for panel in 0..nf / b.nr {
        for k in 0..k_extent {
            for offset in 0..b.nr {
                for (p, &operand) in c.rhs.operands.iter().enumerate() {
                    dims[p] = if operand == c.k_iv {
                        k
                    } else if operand == j_old {
                        panel * b.nr + offset
                    } else if operand == i_old {
                        // B does not depend on the row.
                        0
                    } else {
                        return None;
                    };
                }
                let index = c.rhs.map.evaluate(&dims, &[])?;
                values.push(source.at(&index)?);
            }
        }
    }
    Some(packed_global(
        ctx,
        at,
        source,
        vec![nf / b.nr, k_extent, b.nr],
        &values,
    ))
}

/// Gives the `loop.parallel` `op` the constant bounds `[lower, upper)`.
pub fn set_bounds(ctx: &mut Context, op: OpId, lower: &[i64], upper: &[i64]) {
    let array = |ctx: &mut Context, values: &[i64]| -> Attr {
        let maps = values
            .iter()
            .map(|&v| ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(v))))
            .collect();
        ctx.intern_attr(AttrKind::Array(maps))
    };
    let (lower, upper) = (array(ctx, lower), array(ctx, upper));
    let props = ctx
        .op(op)
        .properties
        .expect("a loop.parallel has properties");
    let entries: Vec<(String, Attr)> = ctx
        .dictionary_entries(props)
        .iter()
        .map(|(name, attr)| match name.as_str() {
            "lower_bounds" => (name.clone(), lower),
            "upper_bounds" => (name.clone(), upper),
            _ => (name.clone(), *attr),
        })
        .collect();
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(op).properties = Some(dict);
}
