//! The loop nests a schedule speaks of, as `convert-te-to-loop` writes them and as they are
//! written by hand: a `loop.parallel` over the result (the spatial dimensions) whose body
//! holds a chain of reduction `loop.for`s carrying their accumulators in `iter_args`; a
//! chain of reduction loops alone (a rank-0 result); or a band of perfectly nested
//! `loop.for`s that carry no values.
//!
//! A schedule's dimensions are the spatial ones, outermost first, then the reductions,
//! outermost first.

use tb_dialects::loop_::{self, LoopDim};
use tb_ir::ods::OpKind;
use tb_ir::{Context, OpId, TypeKind};

use super::band::Band;
use super::space::Nest;

/// A recognised loop nest.
pub struct LoopNest {
    /// The op the nest starts at (and its schedule sits on).
    pub root: OpId,
    /// The spatial dimensions: the `loop.parallel`'s (every entry of `loops` is that op),
    /// a band of `loop.for`s, or none.
    pub spatial: Band,
    /// The reduction `loop.for`s, outermost first, each the only op (besides its
    /// `loop.yield`, which yields the inner loop's results) of the one outside it.
    pub reductions: Vec<OpId>,
}

impl LoopNest {
    /// The nest rooted at a `loop.parallel` or at a reduction `loop.for`.
    pub fn of(ctx: &Context, root: OpId) -> Result<LoopNest, String> {
        match loop_::LoopOp::of(ctx, root) {
            Some(loop_::LoopOp::Parallel) => {
                let dims = loop_::loop_dims(ctx, root).ok_or("the loop.parallel is malformed")?;
                let body = loop_::body(ctx, root).ok_or("the loop.parallel has no body")?;
                let carrying: Vec<OpId> = ctx
                    .block_ops(body)
                    .filter(|&op| is_reduction_loop(ctx, op))
                    .collect();
                let reductions = match carrying.as_slice() {
                    [] => Vec::new(),
                    [first] => reduction_chain(ctx, *first),
                    more => {
                        return Err(format!(
                            "the loop.parallel holds {} reduction loops side by side",
                            more.len()
                        ));
                    }
                };
                only_reductions_nested(ctx, root, &reductions)?;
                Ok(LoopNest {
                    root,
                    spatial: Band {
                        loops: vec![root; dims.len()],
                        dims,
                    },
                    reductions,
                })
            }
            Some(loop_::LoopOp::For) if is_reduction_loop(ctx, root) => {
                let reductions = reduction_chain(ctx, root);
                only_reductions_nested(ctx, root, &reductions[1..])?;
                Ok(LoopNest {
                    root,
                    spatial: Band {
                        loops: Vec::new(),
                        dims: Vec::new(),
                    },
                    reductions,
                })
            }
            _ => Err("the nest does not start at a loop.parallel or a reduction loop.for".into()),
        }
    }

    /// Spatial dimensions, then reductions.
    pub fn rank(&self) -> usize {
        self.spatial.dims.len() + self.reductions.len()
    }

    /// Whether each dimension is a reduction.
    pub fn reduction_flags(&self) -> Vec<bool> {
        let mut flags = vec![false; self.spatial.dims.len()];
        flags.resize(self.rank(), true);
        flags
    }

    /// Every dimension's loop header, spatial first.
    pub fn dims(&self, ctx: &Context) -> Vec<LoopDim> {
        let mut dims = self.spatial.dims.clone();
        dims.extend(
            self.reductions
                .iter()
                .filter_map(|&r| loop_::loop_dims(ctx, r).and_then(|d| d.into_iter().next())),
        );
        dims
    }

    /// The nest's shape for a knob space, when every trip count is constant. The element
    /// size is that of the values the reductions carry, or of the values the nest stores.
    pub fn shape(&self, ctx: &Context) -> Option<Nest> {
        let dims = self.dims(ctx);
        if dims.len() != self.rank() {
            return None;
        }
        let extents = dims
            .iter()
            .map(LoopDim::constant_trip_count)
            .collect::<Option<Vec<i64>>>()?;
        Some(Nest {
            extents,
            reduction: self.reduction_flags(),
            element_bytes: self.element_bytes(ctx),
        })
    }

    fn element_bytes(&self, ctx: &Context) -> i64 {
        let mut bytes = None;
        if let Some(&first) = self.reductions.first() {
            bytes = loop_::inits(ctx, first)
                .iter()
                .filter_map(|&v| scalar_bytes(ctx, v))
                .max();
        }
        if bytes.is_none() {
            ctx.walk_nested(self.root, &mut |op| {
                if ctx.op_name(op) == loop_::STORE {
                    let stored = ctx.op(op).operands[0];
                    bytes = bytes.max(scalar_bytes(ctx, stored));
                }
            });
        }
        bytes.unwrap_or(4)
    }
}

fn scalar_bytes(ctx: &Context, v: tb_ir::Value) -> Option<i64> {
    let ty = ctx.value_type(v);
    match ctx.type_kind(ty) {
        TypeKind::Float(kind) => Some((i64::from(kind.width()) + 7) / 8),
        TypeKind::Integer { width, .. } => Some(((i64::from(*width) + 7) / 8).max(1)),
        TypeKind::Index => Some(8),
        _ => None,
    }
}

/// Checks that the loops nested in `root` are exactly `chain`: a nest that holds other
/// loops (a micro-kernel's blocks, loops written by hand) is not one schedule's.
fn only_reductions_nested(ctx: &Context, root: OpId, chain: &[OpId]) -> Result<(), String> {
    let mut others = 0;
    ctx.walk_nested(root, &mut |op| {
        if op != root && loop_::is_loop(ctx, op) && !chain.contains(&op) {
            others += 1;
        }
    });
    if others > 0 {
        return Err(format!(
            "the nest holds {others} loops besides its spatial and reduction loops"
        ));
    }
    Ok(())
}

/// A `loop.for` that carries values: a reduction loop of a nest.
fn is_reduction_loop(ctx: &Context, op: OpId) -> bool {
    ctx.op_name(op) == loop_::FOR && !loop_::inits(ctx, op).is_empty()
}

/// `first` and the reduction loops perfectly nested in it, each started from the
/// iter_args of the one outside it and yielding its results.
fn reduction_chain(ctx: &Context, first: OpId) -> Vec<OpId> {
    let mut chain = vec![first];
    let mut current = first;
    while let Some(body) = loop_::body(ctx, current) {
        let ops: Vec<OpId> = ctx.block_ops(body).collect();
        let [inner, terminator] = ops.as_slice() else {
            break;
        };
        if !is_reduction_loop(ctx, *inner)
            || loop_::inits(ctx, *inner) != loop_::iter_args(ctx, current).as_slice()
            || ctx.op(*terminator).operands != ctx.op(*inner).results
        {
            break;
        }
        chain.push(*inner);
        current = *inner;
    }
    chain
}

/// The loops (`loop.for` or `loop.parallel`) under `root` not nested in another loop, in
/// program order: where nests start.
pub fn outermost_nests(ctx: &Context, root: OpId) -> Vec<OpId> {
    let mut found = Vec::new();
    ctx.walk_nested(root, &mut |op| {
        if !loop_::is_loop(ctx, op) {
            return;
        }
        let mut parent = ctx.parent_op(op);
        while let Some(p) = parent {
            if p == root {
                break;
            }
            if loop_::is_loop(ctx, p) {
                return;
            }
            parent = ctx.parent_op(p);
        }
        found.push(op);
    });
    found
}

impl LoopNest {
    /// Whether the innermost reduction loop reads its inputs in streams: every load in it
    /// either stays at one element or walks its buffer's last dimension with unit stride,
    /// and no index is computed from the loop's variable in another way. Vectorizing such
    /// a reduction reads whole vectors; vectorizing another one gathers.
    pub fn innermost_reduction_streams(&self, ctx: &Context) -> bool {
        let Some(&inner) = self.reductions.last() else {
            return false;
        };
        let Some(&iv) = loop_::induction_vars(ctx, inner).first() else {
            return false;
        };
        let mut streams = true;
        ctx.walk_nested(inner, &mut |op| {
            if !streams || op == inner {
                return;
            }
            let name = ctx.op_name(op);
            if name == loop_::STORE || name == loop_::VECTOR_LOAD || loop_::is_loop(ctx, op) {
                streams = false;
                return;
            }
            if name != loop_::LOAD {
                return;
            }
            let indices = &ctx.op(op).operands[1..];
            if indices
                .iter()
                .any(|&v| v != iv && defined_inside(ctx, v, inner))
            {
                streams = false;
                return;
            }
            let map = loop_::access_map(ctx, op)
                .unwrap_or_else(|| tb_ir::affine::AffineMap::identity(indices.len() as u32));
            let results = &map.results;
            for (position, _) in indices.iter().enumerate().filter(|(_, v)| **v == iv) {
                let dim = tb_ir::affine::AffineExpr::dim(position as u32);
                for (r, result) in results.iter().enumerate() {
                    let Some(linear) = result.linear_form() else {
                        streams = false;
                        return;
                    };
                    let uses_iv =
                        |atom: &tb_ir::affine::AffineExpr| atom.is_function_of_dim(position as u32);
                    let allowed = if r + 1 == results.len() {
                        [0, 1]
                    } else {
                        [0, 0]
                    };
                    let k = linear.coefficient(&dim);
                    let nonlinear = linear
                        .terms()
                        .any(|(atom, _)| *atom != dim && uses_iv(atom));
                    if nonlinear || !allowed.contains(&k) {
                        streams = false;
                        return;
                    }
                }
            }
        });
        streams
    }
}

/// Whether `value` is computed by an op nested in `op` (a value of the loop's own body).
fn defined_inside(ctx: &Context, value: tb_ir::Value, op: OpId) -> bool {
    let tb_ir::value::ValueDef::Result { op: producer, .. } = ctx.value(value).def else {
        // A block argument: the loop's own variable is handled by the caller; another
        // loop's is defined outside.
        return false;
    };
    let mut parent = Some(producer);
    while let Some(p) = parent {
        if p == op {
            return true;
        }
        parent = ctx.parent_op(p);
    }
    false
}
