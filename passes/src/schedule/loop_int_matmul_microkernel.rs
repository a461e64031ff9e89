//! `loop-int-matmul-microkernel{mr,nr,vector,group}`: rewrites the loop nest of an 8-bit
//! integer matmul (as `convert-te-to-loop` writes `MatMul` of widened `uint8`/`int8`
//! operands: a `loop.parallel` over `C[i, j]` whose body is one reduction `loop.for`
//! carrying the i32 sum of `ext(A[i, k]) * ext(B[k, j])`, then a store) into a
//! register-blocked micro-kernel built on `loop.dot`:
//!
//! - `A` and the first `Nf` columns of `B` (full blocks of `NR`) are packed once per call
//!   into groups of `G` consecutive `k`: `A` as `a[i][k / G][k mod G]`, `B` as `NR`-column
//!   panels `b[j / NR][k / G][(j mod NR) * G + k mod G]`, the last group padded with
//!   zeros; so one vector load of `B` gives each of `NR / W` i32 lanes its `G` elements.
//!   A constant `B` (a constant global of 8-bit weights, or of i32 holding 8- or 16-bit
//!   values, where the import folded their widening) is packed at compile time into a new
//!   constant global instead;
//! - with `G = 2` the packed elements are the operands widened to i16 (exact for any mix
//!   of `uint8` and `int8`), and each `loop.dot` is `vpmaddwd` + add on x86 (`vpdpwssd`
//!   with VNNI); with `G = 4` (`A` `uint8`, `B` `int8` only) they stay 8-bit and each
//!   `loop.dot` is one `vpdpbusd` on a target with VNNI;
//! - column blocks of `NR` run on threads; for each, every block of `MR` rows (and one
//!   smaller block of the rows left over) carries `MR * NR / W` i32 vector accumulators
//!   through the `k / G` loop, starting from the reduction's initial value, and stores them
//!   to `C`; the columns left over (`N mod NR`) keep the original nest, narrowed to them.
//!
//! Integer sums are exact, so the result is the original nest's bit for bit. `group` 0
//! picks 4 where the host has AVX-512 VNNI or AVX-VNNI and the operands allow it, else 2;
//! `mr`, `nr` and `vector` at 0 come from the host as for the f32 micro-kernel. Nests of
//! another form (batched, f32, wider integers) are left unchanged.

use tb_dialects::arith::ArithOp;
use tb_dialects::loop_::{self, LoopOp};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId, Signedness, Type, TypeKind, Value};

use super::build::{At, set_yield};
use super::constant_pack::{ConstantBuffer, constant_bytes, constant_i32, packed_bytes, release};
use super::loop_matmul_microkernel::{
    Access, access, contiguous, defined_outside, depends_on, set_bounds, shifted, unit_stride_in,
};
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
        help: "Columns of the register block, a multiple of the i32 vector width (0: from the host)",
    },
    PassOptionInfo {
        name: "vector",
        kind: OptionKind::Int,
        default: "0",
        help: "i32 lanes of a vector (0: the host's)",
    },
    PassOptionInfo {
        name: "group",
        kind: OptionKind::Int,
        default: "0",
        help: "Elements of k per dot product: 2 (i16 pairs, vpmaddwd), 4 (u8 x i8, vpdpbusd) or 0 (4 where the host has VNNI and A is uint8 and B int8, else 2)",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-int-matmul-microkernel",
        description: "Register-block 8-bit integer matmul nests into a micro-kernel of integer dot products",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(IntMatmulMicrokernel {
                mr: o.int("mr"),
                nr: o.int("nr"),
                vector: o.int("vector"),
                group: o.int("group"),
            })
        },
    }
}

struct IntMatmulMicrokernel {
    mr: i64,
    nr: i64,
    vector: i64,
    group: i64,
}

/// One operand: where it is read and how it is widened; or, for `B`, an i32 constant
/// read as is (weights whose widening was folded at import; `constant`).
struct Operand {
    access: Access,
    unsigned: bool,
    constant: bool,
}

/// A matched integer matmul nest `C[i, j] = init + sum_k ext(A[i, k]) * ext(B[k, j])`.
struct IntContraction {
    parallel: OpId,
    m: i64,
    n: i64,
    k: i64,
    i: Value,
    j: Value,
    k_iv: Value,
    init: Value,
    lhs: Operand,
    rhs: Operand,
    out: Access,
}

/// The blocking and the dot-product form of a rewrite.
#[derive(Clone, Copy)]
struct Blocking {
    mr: i64,
    nr: i64,
    width: i64,
    group: i64,
}

/// Whether the host has `vpdpbusd` (AVX-512 VNNI or AVX-VNNI).
#[cfg(target_arch = "x86_64")]
fn host_has_vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512vnni")
        || std::arch::is_x86_feature_detected!("avxvnni")
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_vnni() -> bool {
    false
}

impl Pass for IntMatmulMicrokernel {
    fn argument(&self) -> &'static str {
        "loop-int-matmul-microkernel"
    }

    fn display_name(&self) -> &'static str {
        "LoopIntMatmulMicrokernel"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let host = Target::host();
        let (host_mr, _) = register_block(&host, 4);
        let width = if self.vector > 0 {
            self.vector
        } else {
            host.lanes(4)
        };
        let blocking = Blocking {
            mr: if self.mr > 0 { self.mr } else { host_mr },
            nr: if self.nr > 0 { self.nr } else { 2 * width },
            width,
            group: self.group,
        };
        if blocking.mr < 1
            || blocking.width < 1
            || blocking.nr < 1
            || blocking.nr % blocking.width != 0
            || !matches!(blocking.group, 0 | 2 | 4)
        {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!(
                    "loop-int-matmul-microkernel: needs mr and vector >= 1, nr a positive multiple of the vector width {} and group 0, 2 or 4 (got mr={}, nr={}, group={})",
                    blocking.width, blocking.mr, blocking.nr, blocking.group
                ),
            ));
        }
        let mut candidates = Vec::new();
        ctx.walk_nested(op, &mut |inner| {
            if LoopOp::of(ctx, inner) == Some(LoopOp::Parallel) {
                candidates.push(inner);
            }
        });
        for parallel in candidates {
            let Some(found) = match_int_contraction(ctx, parallel) else {
                continue;
            };
            // A constant B (8-bit weights, or their widening folded to i32) is packed at
            // compile time.
            let constant = if found.rhs.constant {
                match constant_i32(ctx, found.rhs.access.memref) {
                    Some(values) => Some(values),
                    None => continue,
                }
            } else {
                constant_bytes(ctx, found.rhs.access.memref, found.rhs.unsigned)
            };
            let within = |lo: i32, hi: i32| {
                constant
                    .as_ref()
                    .is_none_or(|c| c.values.iter().all(|v| (lo..=hi).contains(v)))
            };
            if !within(i16::MIN.into(), i16::MAX.into()) {
                continue;
            }
            // vpdpbusd multiplies unsigned bytes of A by signed bytes of B.
            let quads = found.lhs.unsigned
                && if constant.is_some() {
                    within(i8::MIN.into(), i8::MAX.into())
                } else {
                    !found.rhs.unsigned
                };
            let group = match blocking.group {
                0 if quads && host_has_vnni() => 4,
                0 => 2,
                4 if !quads => {
                    return Err(Diagnostic::error(
                        ctx.op(parallel).loc,
                        "loop-int-matmul-microkernel: group=4 needs A of uint8 and B of int8 values (vpdpbusd multiplies unsigned by signed bytes)",
                    ));
                }
                g => g,
            };
            let fitted = if self.nr > 0 || self.vector > 0 {
                blocking
            } else {
                fit_columns(blocking, found.n)
            };
            rewrite(ctx, &found, Blocking { group, ..fitted }, constant.as_ref());
        }
        Ok(())
    }
}

/// The host's blocking fitted to a contraction of `n` columns. Columns that `NR` leaves
/// over run in the scalar nest, so among two vectors or one of the host's width and of
/// narrower ones (down to 4 lanes) the blocking leaving the fewest columns over wins, the
/// wider and the two-vector one first among equals: a quantized projection to 24
/// channels on a 16-lane host gets 8-lane vectors instead of 24 scalar columns.
fn fit_columns(b: Blocking, n: i64) -> Blocking {
    let mut widths = vec![b.width];
    while widths.last().is_some_and(|&w| w / 2 >= 4) {
        widths.push(widths.last().unwrap() / 2);
    }
    widths
        .iter()
        .flat_map(|&width| [2, 1].map(|columns| (width, width * columns)))
        .filter(|&(_, nr)| nr <= n)
        .enumerate()
        .min_by_key(|&(rank, (_, nr))| (n % nr, rank))
        .map_or(b, |(_, (width, nr))| Blocking { nr, width, ..b })
}

fn is_int(ctx: &Context, v: Value, width: u32) -> bool {
    matches!(ctx.type_kind(ctx.value_type(v)), TypeKind::Integer { width: w, .. } if *w == width)
}

/// The op defining `v`, when it is an op's result.
fn producer(ctx: &Context, v: Value) -> Option<OpId> {
    match ctx.value(v).def {
        tb_ir::value::ValueDef::Result { op, .. } => Some(op),
        _ => None,
    }
}

/// `v` as an operand of the reduction's product: the widening of an 8-bit load (the load
/// and whether it is zero-extended), or an i32 load itself (a candidate constant).
fn operand_load(ctx: &Context, v: Value, body: &[OpId]) -> Option<(OpId, bool, bool)> {
    let def = producer(ctx, v).filter(|op| body.contains(op))?;
    if ctx.value(v).uses.len() != 1 {
        return None;
    }
    if LoopOp::of(ctx, def) == Some(LoopOp::Load) {
        return is_int(ctx, v, 32).then_some((def, false, true));
    }
    let unsigned = match ArithOp::of(ctx, def)? {
        ArithOp::ExtUI => true,
        ArithOp::ExtSI => false,
        _ => return None,
    };
    let [narrow] = ctx.op(def).operands.as_slice() else {
        return None;
    };
    let load = producer(ctx, *narrow).filter(|op| body.contains(op))?;
    (LoopOp::of(ctx, load) == Some(LoopOp::Load)
        && is_int(ctx, *narrow, 8)
        && ctx.value(*narrow).uses.len() == 1)
        .then_some((load, unsigned, false))
}

fn match_int_contraction(ctx: &Context, parallel: OpId) -> Option<IntContraction> {
    let dims = loop_::loop_dims(ctx, parallel)?;
    let [di, dj] = dims.as_slice() else {
        return None;
    };
    let mut extents = Vec::new();
    for d in [di, dj] {
        if d.lower.constant() != Some(0) || d.step != 1 {
            return None;
        }
        extents.push(d.upper.constant()?);
    }
    let (i, j) = (di.induction_var, dj.induction_var);
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
    let k = k_dim.upper.constant()?;
    let [init] = loop_::inits(ctx, reduction) else {
        return None;
    };
    let init = *init;
    let result = *ctx.op(reduction).results.first()?;
    if !is_int(ctx, init, 32)
        || !defined_outside(ctx, init, parallel)
        || ctx.op(store).operands[0] != result
        || ctx.value(result).uses.len() != 1
    {
        return None;
    }
    let out = access(ctx, store, 1)?;
    let acc = *loop_::iter_args(ctx, reduction).first()?;
    let inner: Vec<OpId> = ctx.block_ops(loop_::body(ctx, reduction)?).collect();
    let [.., add, yield_op] = inner.as_slice() else {
        return None;
    };
    if ArithOp::of(ctx, *add) != Some(ArithOp::AddI)
        || ctx.op(*yield_op).operands.as_slice() != [ctx.op(*add).results[0]]
    {
        return None;
    }
    let [x, y] = ctx.op(*add).operands.as_slice() else {
        return None;
    };
    let product = if *x == acc { *y } else { *x };
    if ![*x, *y].contains(&acc) || product == acc {
        return None;
    }
    let mul = producer(ctx, product).filter(|op| inner.contains(op))?;
    if ArithOp::of(ctx, mul) != Some(ArithOp::MulI) || ctx.value(product).uses.len() != 1 {
        return None;
    }
    let [p, q] = ctx.op(mul).operands.as_slice() else {
        return None;
    };
    let (load_p, unsigned_p, constant_p) = operand_load(ctx, *p, &inner)?;
    let (load_q, unsigned_q, constant_q) = operand_load(ctx, *q, &inner)?;
    // The product, the sum, the yield, and a load (and its widening) per operand.
    let widenings = usize::from(!constant_p) + usize::from(!constant_q);
    if inner.len() != 5 + widenings {
        return None;
    }
    let ops = [
        (access(ctx, load_p, 0)?, unsigned_p, constant_p),
        (access(ctx, load_q, 0)?, unsigned_q, constant_q),
    ];
    let k_iv = k_dim.induction_var;
    let [first, second] = ops.map(|(access, unsigned, constant)| Operand {
        access,
        unsigned,
        constant,
    });
    let (lhs, rhs) = if !depends_on(&first.access, j) {
        (first, second)
    } else {
        (second, first)
    };
    // Only B may be a constant i32 buffer (checked to hold 8- or 16-bit values later).
    if lhs.constant || (rhs.constant && !is_int_memref(ctx, rhs.access.memref)) {
        return None;
    }
    let only = |a: &Access, allowed: &[Value]| {
        a.map.num_symbols == 0 && a.operands.iter().all(|o| allowed.contains(o))
    };
    let fits = only(&lhs.access, &[i, j, k_iv])
        && only(&rhs.access, &[i, j, k_iv])
        && only(&out, &[i, j])
        && !depends_on(&lhs.access, j)
        && !depends_on(&rhs.access, i)
        && unit_stride_in(&out, j)
        && contiguous(ctx, out.memref)
        && out.memref != lhs.access.memref
        && out.memref != rhs.access.memref
        && depends_on(&out, i);
    fits.then_some(IntContraction {
        parallel,
        m: extents[0],
        n: extents[1],
        k,
        i,
        j,
        k_iv,
        init,
        lhs,
        rhs,
        out,
    })
}

fn is_int_memref(ctx: &Context, memref: Value) -> bool {
    matches!(
        ctx.type_kind(ctx.value_type(memref)),
        TypeKind::MemRef { element, .. }
            if matches!(ctx.type_kind(*element), TypeKind::Integer { width: 32, .. })
    )
}

fn memref_type(ctx: &mut Context, shape: Vec<i64>, element: Type) -> Type {
    ctx.intern_type(TypeKind::MemRef {
        shape,
        element,
        layout: None,
        memory_space: None,
    })
}

fn vector_type(ctx: &mut Context, lanes: i64, element: Type) -> Type {
    ctx.intern_type(TypeKind::Vector {
        shape: vec![lanes],
        scalable: vec![false],
        element,
    })
}

/// A constant loop bound.
fn bound(v: i64) -> (AffineMap, Vec<Value>) {
    (AffineMap::constant(v), vec![])
}

fn rewrite(
    ctx: &mut Context,
    c: &IntContraction,
    b: Blocking,
    constant: Option<&ConstantBuffer<i32>>,
) {
    let nf = c.n - c.n % b.nr;
    if nf == 0 || c.m == 0 || c.k == 0 {
        return;
    }
    let at = At {
        before: c.parallel,
        loc: ctx.op(c.parallel).loc,
    };
    let g = b.group;
    let groups = (c.k + g - 1) / g;
    let element = ctx.integer_type(if g == 2 { 16 } else { 8 }, Signedness::Signless);
    let b_shape = vec![nf / b.nr, groups, b.nr * g];
    // B[k][j] -> b[j / NR][k / G][(j mod NR) * G + k mod G].
    let b_map = AffineMap::new(
        2,
        0,
        vec![
            AffineExpr::dim(0).floor_div(b.nr),
            AffineExpr::dim(1).floor_div(g),
            AffineExpr::dim(0).modulo(b.nr) * g + AffineExpr::dim(1).modulo(g),
        ],
    );
    let packed = constant.and_then(|source| constant_panels(ctx, at, c, b, nf, source, element));
    if c.rhs.constant && packed.is_none() {
        return;
    }
    let a_ty = memref_type(ctx, vec![c.m, groups, g], element);
    let a_panel = at.create(ctx, loop_::ALLOC, vec![], vec![a_ty], vec![], 0);
    let a_panel = ctx.op(a_panel).results[0];
    let (b_panel, b_allocated) = match packed {
        Some(panel) => (panel, false),
        None => {
            let b_ty = memref_type(ctx, b_shape, element);
            let op = at.create(ctx, loop_::ALLOC, vec![], vec![b_ty], vec![], 0);
            let panel = ctx.op(op).results[0];
            pack(ctx, at, c, &c.rhs, nf, (panel, b_map), element);
            pad_last_group(ctx, at, c, b, (panel, nf), true, element);
            (panel, true)
        }
    };
    pad_last_group(ctx, at, c, b, (a_panel, c.m), false, element);
    // A[i][k] -> a[i][k / G][k mod G].
    let a_map = AffineMap::new(
        2,
        0,
        vec![
            AffineExpr::dim(0),
            AffineExpr::dim(1).floor_div(g),
            AffineExpr::dim(1).modulo(g),
        ],
    );
    pack(ctx, at, c, &c.lhs, c.m, (a_panel, a_map), element);
    kernel(ctx, at, c, b, (a_panel, b_panel, nf, groups), element);
    at.dealloc(ctx, a_panel);
    if b_allocated {
        at.dealloc(ctx, b_panel);
    }
    if nf < c.n {
        let copy = ctx.clone_op(c.parallel, &mut Default::default());
        ctx.insert_op_before(c.parallel, copy);
        set_bounds(ctx, copy, &[0, nf], &[c.m, c.n]);
    }
    ctx.erase_op(c.parallel);
    if let Some(source) = constant {
        release(ctx, source);
    }
}

/// The constant `B` `source` packed now into its panels (zeros past `K`), as a new
/// constant global: `None` if the nest reads outside it.
fn constant_panels(
    ctx: &mut Context,
    at: At,
    c: &IntContraction,
    b: Blocking,
    nf: i64,
    source: &ConstantBuffer<i32>,
    element: Type,
) -> Option<Value> {
    let g = b.group;
    let groups = (c.k + g - 1) / g;
    let mut bytes = Vec::new();
    let mut dims = vec![0i64; c.rhs.access.operands.len()];
    for panel in 0..nf / b.nr {
        for group in 0..groups {
            for column in 0..b.nr {
                for slot in 0..g {
                    let k = group * g + slot;
                    let value = if k < c.k {
                        for (p, &operand) in c.rhs.access.operands.iter().enumerate() {
                            dims[p] = if operand == c.k_iv {
                                k
                            } else {
                                panel * b.nr + column
                            };
                        }
                        let index = c.rhs.access.map.evaluate(&dims, &[])?;
                        source.at(&index)?
                    } else {
                        0
                    };
                    if g == 2 {
                        bytes.extend((value as i16).to_le_bytes());
                    } else {
                        bytes.extend((value as i8).to_le_bytes());
                    }
                }
            }
        }
    }
    Some(packed_bytes(
        ctx,
        at,
        source,
        vec![nf / b.nr, groups, b.nr * g],
        element,
        bytes,
    ))
}

/// Zeros in the slots of the last group past `K` (when `G` does not divide `K`), so the
/// dot products add nothing there: in `A`'s panel (`extent` rows) or, `rhs`, in `B`'s
/// (`extent` columns).
fn pad_last_group(
    ctx: &mut Context,
    at: At,
    c: &IntContraction,
    b: Blocking,
    (panel, extent): (Value, i64),
    rhs: bool,
    element: Type,
) {
    let g = b.group;
    let filled = c.k % g;
    if filled == 0 {
        return;
    }
    let last = c.k / g;
    let zero = ctx.integer_attr(0, element);
    let zero = at.create(
        ctx,
        "arith.constant",
        vec![],
        vec![element],
        vec![("value", zero)],
        0,
    );
    let zero = ctx.op(zero).results[0];
    let (_, inside, ivs) = at.parallel(ctx, &[0, filled], &[extent, g], &[1, 1]);
    let slot = if rhs {
        AffineExpr::dim(0).modulo(b.nr) * g + AffineExpr::dim(1)
    } else {
        AffineExpr::dim(1)
    };
    let outer = if rhs {
        AffineExpr::dim(0).floor_div(b.nr)
    } else {
        AffineExpr::dim(0)
    };
    let map = AffineMap::new(2, 0, vec![outer, AffineExpr::constant(last), slot]);
    inside.store(ctx, false, zero, panel, map, &ivs);
}

/// Copies the operand read by `from` into `panel` at `map(outer, k)`, for `outer` in
/// `[0, extent)` (the row `i` of `A` or the column `j` of `B`) and every `k`: widened to
/// i16, or as is for 8-bit panels.
fn pack(
    ctx: &mut Context,
    at: At,
    c: &IntContraction,
    from: &Operand,
    extent: i64,
    (panel, map): (Value, AffineMap),
    element: Type,
) {
    let (_, inside, ivs) = at.parallel(ctx, &[0, 0], &[extent, c.k], &[1, 1]);
    // The operand does not depend on the other one of `i` and `j`: it reads as `outer`.
    let (source, operands) = shifted(
        &from.access,
        &[(c.i, ivs[0]), (c.j, ivs[0]), (c.k_iv, ivs[1])],
        &[],
    );
    let i8_ty = ctx.integer_type(8, Signedness::Signless);
    let mut value = inside.load(ctx, false, from.access.memref, source, &operands, i8_ty);
    if element != i8_ty {
        let widen = if from.unsigned {
            "arith.extui"
        } else {
            "arith.extsi"
        };
        let op = inside.create(ctx, widen, vec![value], vec![element], vec![], 0);
        value = ctx.op(op).results[0];
    }
    inside.store(ctx, false, value, panel, map, &ivs);
}

/// Column blocks of `NR` on threads; in each, full blocks of `MR` rows, then one block of
/// the rows left over, each carrying its accumulators through the groups of `k`.
fn kernel(
    ctx: &mut Context,
    at: At,
    c: &IntContraction,
    b: Blocking,
    (a_panel, b_panel, nf, groups): (Value, Value, i64, i64),
    element: Type,
) {
    let mf = c.m - c.m % b.mr;
    let (_, column_block, ivs) = at.parallel(ctx, &[0], &[nf], &[b.nr]);
    let j0 = ivs[0];
    let mut blocks = Vec::new();
    if mf > 0 {
        blocks.push((0, mf, b.mr));
    }
    if mf < c.m {
        blocks.push((mf, c.m, c.m - mf));
    }
    for (first, end, rows) in blocks {
        let (_, row_block, i0, _) = column_block.for_loop(ctx, bound(first), bound(end), rows, &[]);
        accumulate_block(
            ctx,
            row_block,
            c,
            b,
            (a_panel, b_panel, groups),
            (i0, j0, rows),
            element,
        );
    }
}

/// One `rows x NR` block of `C` at `(i0, j0)`: accumulators from the initial value, the
/// `loop.dot`s of each group of `k`, then stores.
#[allow(clippy::too_many_arguments)]
fn accumulate_block(
    ctx: &mut Context,
    at: At,
    c: &IntContraction,
    b: Blocking,
    (a_panel, b_panel, groups): (Value, Value, i64),
    (i0, j0, rows): (Value, Value, i64),
    element: Type,
) {
    let g = b.group;
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    let acc_ty = vector_type(ctx, b.width, i32_ty);
    let a_ty = vector_type(ctx, g, element);
    let b_ty = vector_type(ctx, b.width * g, element);
    let columns = b.nr / b.width;
    let start = at.broadcast(ctx, c.init, acc_ty);
    let inits = vec![start; (rows * columns) as usize];
    let (step, inside, kg, accs) = at.for_loop(ctx, bound(0), bound(groups), 1, &inits);
    // a[i0 + r][kg][0..G] and b[j0 / NR][kg][q * W * G..].
    let a_vectors: Vec<Value> = (0..rows)
        .map(|r| {
            let map = AffineMap::new(
                2,
                0,
                vec![
                    (AffineExpr::dim(0) + r).simplify(),
                    AffineExpr::dim(1),
                    AffineExpr::constant(0),
                ],
            );
            inside.load(ctx, true, a_panel, map, &[i0, kg], a_ty)
        })
        .collect();
    let b_vectors: Vec<Value> = (0..columns)
        .map(|q| {
            let map = AffineMap::new(
                2,
                0,
                vec![
                    AffineExpr::dim(0).floor_div(b.nr),
                    AffineExpr::dim(1),
                    AffineExpr::constant(q * b.width * g),
                ],
            );
            inside.load(ctx, true, b_panel, map, &[j0, kg], b_ty)
        })
        .collect();
    let unsigned_lhs = ctx.unit_attr();
    let mut next = Vec::with_capacity(accs.len());
    for (r, a) in a_vectors.iter().enumerate() {
        for (q, bv) in b_vectors.iter().enumerate() {
            let acc = accs[r * columns as usize + q];
            let props = if g == 4 {
                vec![("unsigned_lhs", unsigned_lhs)]
            } else {
                vec![]
            };
            let op = inside.create(ctx, loop_::DOT, vec![acc, *a, *bv], vec![acc_ty], props, 0);
            next.push(ctx.op(op).results[0]);
        }
    }
    set_yield(ctx, inside, &next);
    let sums = ctx.op(step).results.to_vec();
    for r in 0..rows {
        for q in 0..columns {
            let (map, operands) = shifted(
                &c.out,
                &[(c.i, i0), (c.j, j0)],
                &[(c.i, r), (c.j, q * b.width)],
            );
            at.store(
                ctx,
                true,
                sums[(r * columns + q) as usize],
                c.out.memref,
                map,
                &operands,
            );
        }
    }
}
