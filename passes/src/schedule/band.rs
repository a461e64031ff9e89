//! Perfectly nested bands of `loop.for`s and rebuilding them with new loop headers: the
//! shared mechanics of tiling and interchange.
//!
//! A band is a chain of `loop.for`s, each the only op (besides its `loop.yield`) of the
//! one outside it, that carry no values and whose bounds use no induction variable of the
//! band (a rectangular band): its loops can then be reordered and split freely.

use tb_dialects::loop_::{self, Bound, LoopDim};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::attributes::DenseArrayData;
use tb_ir::ods::fill_defaults;
use tb_ir::operation::OperationState;
use tb_ir::{AttrKind, Context, OpId, Signedness, Value};

/// A rectangular band of perfectly nested `loop.for`s, outermost first.
pub struct Band {
    pub loops: Vec<OpId>,
    pub dims: Vec<LoopDim>,
}

impl Band {
    /// The band of `depth` loops starting at `outer`, or why there is none.
    pub fn of(ctx: &Context, outer: OpId, depth: usize) -> Result<Band, String> {
        let mut loops = Vec::new();
        let mut dims = Vec::new();
        let mut current = outer;
        for level in 0..depth {
            if ctx.op_name(current) != loop_::FOR {
                return Err(format!("loop {level} of the band is not a loop.for"));
            }
            if !loop_::inits(ctx, current).is_empty() {
                return Err(format!("loop {level} of the band carries values"));
            }
            let dim = loop_::loop_dims(ctx, current)
                .and_then(|d| d.into_iter().next())
                .ok_or_else(|| format!("loop {level} of the band is malformed"))?;
            loops.push(current);
            dims.push(dim);
            if level + 1 < depth {
                let body = loop_::body(ctx, current).ok_or("a band loop has no body")?;
                let ops: Vec<OpId> = ctx.block_ops(body).collect();
                match ops.as_slice() {
                    [inner, _yield] => current = *inner,
                    _ => {
                        return Err(format!(
                            "the band is not perfectly nested below loop {level} (it needs {depth} loops)"
                        ));
                    }
                }
            }
        }
        let ivs: Vec<Value> = dims.iter().map(|d| d.induction_var).collect();
        for (level, dim) in dims.iter().enumerate() {
            if dim
                .lower
                .operands
                .iter()
                .chain(&dim.upper.operands)
                .any(|v| ivs.contains(v))
            {
                return Err(format!(
                    "the bounds of loop {level} depend on the band's induction variables"
                ));
            }
        }
        Ok(Band { loops, dims })
    }

    /// The ops of the innermost loop's body, without its terminator.
    fn body_ops(&self, ctx: &Context) -> Vec<OpId> {
        let inner = *self.loops.last().expect("a band has a loop");
        let block = loop_::body(ctx, inner).expect("checked by Band::of");
        let mut ops: Vec<OpId> = ctx.block_ops(block).collect();
        ops.pop();
        ops
    }
}

/// An operand of a new loop bound: a value from outside the band, or the induction
/// variable of a new loop built before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundOperand {
    Outside(Value),
    NewLoop(usize),
}

/// The header of a new loop: bounds over [`BoundOperand`]s, a step and the annotations it
/// keeps (properties such as `unroll`/`vectorize` copied from an old loop).
pub struct Header {
    pub lower: (AffineMap, Vec<BoundOperand>),
    pub upper: (AffineMap, Vec<BoundOperand>),
    pub step: i64,
    pub annotations_from: Option<OpId>,
    /// Properties set on the new loop, over those it keeps.
    pub set: Vec<(&'static str, tb_ir::Attr)>,
}

/// A bound's map with its symbols turned into dims after its dims, so operands can be
/// appended as further dims.
pub fn as_dims_only(bound: &Bound) -> (AffineMap, Vec<BoundOperand>) {
    let map = &bound.map;
    let symbols: Vec<AffineExpr> = (0..map.num_symbols)
        .map(|s| AffineExpr::dim(map.num_dims + s))
        .collect();
    let dims: Vec<AffineExpr> = (0..map.num_dims).map(AffineExpr::dim).collect();
    let results = map
        .results
        .iter()
        .map(|r| r.replace_dims_and_symbols(&dims, &symbols))
        .collect();
    (
        AffineMap::new(map.num_dims + map.num_symbols, 0, results),
        bound
            .operands
            .iter()
            .map(|&v| BoundOperand::Outside(v))
            .collect(),
    )
}

/// Replaces `band` by loops with `headers`, outermost first, around its innermost body;
/// old loop `i`'s induction variable becomes that of new loop `new_iv_of_old[i]`.
pub fn rebuild(ctx: &mut Context, band: &Band, headers: &[Header], new_iv_of_old: &[usize]) {
    let outer = band.loops[0];
    let loc = ctx.op(outer).loc;
    let body_ops = band.body_ops(ctx);
    let mut new_ivs: Vec<Value> = Vec::new();
    let mut insert_before = Some(outer);
    let mut innermost_yield = None;
    for header in headers {
        let resolve = |ops: &[BoundOperand], ivs: &[Value]| -> Vec<Value> {
            ops.iter()
                .map(|o| match *o {
                    BoundOperand::Outside(v) => v,
                    BoundOperand::NewLoop(i) => ivs[i],
                })
                .collect()
        };
        let lower_ops = resolve(&header.lower.1, &new_ivs);
        let upper_ops = resolve(&header.upper.1, &new_ivs);
        let mut properties = Vec::new();
        if let Some(from) = header.annotations_from {
            for name in ["unroll", "vectorize", "parallel"] {
                if let Some(a) = ctx.op_inherent_or_attr(from, name) {
                    properties.push((name.to_string(), a));
                }
            }
        }
        for &(name, attr) in &header.set {
            properties.retain(|(n, _)| n != name);
            properties.push((name.to_string(), attr));
        }
        let lower = ctx.intern_attr(AttrKind::AffineMap(header.lower.0.clone()));
        let upper = ctx.intern_attr(AttrKind::AffineMap(header.upper.0.clone()));
        let i64_ty = ctx.i64();
        let step = ctx.intern_attr(AttrKind::Integer {
            ty: i64_ty,
            value: header.step as i128,
        });
        let i32_ty = ctx.integer_type(32, Signedness::Signless);
        let segments = ctx.intern_attr(AttrKind::DenseArray {
            element: i32_ty,
            data: DenseArrayData::Int(vec![lower_ops.len() as i128, upper_ops.len() as i128, 0]),
        });
        properties.extend([
            ("lower_bound".to_string(), lower),
            ("upper_bound".to_string(), upper),
            ("step".to_string(), step),
            ("operandSegmentSizes".to_string(), segments),
        ]);
        let properties = Some(ctx.dictionary_attr(properties));
        let name = ctx.intern_op_name(loop_::FOR);
        let op = ctx.create_op(OperationState {
            name,
            operands: lower_ops.into_iter().chain(upper_ops).collect(),
            result_types: vec![],
            successors: vec![],
            num_regions: 1,
            properties,
            attributes: vec![],
            loc,
        });
        fill_defaults(ctx, op);
        match (insert_before, innermost_yield) {
            (Some(before), _) => ctx.insert_op_before(before, op),
            (None, Some(terminator)) => ctx.insert_op_before(terminator, op),
            (None, None) => unreachable!("a place is always set"),
        }
        insert_before = None;
        let block = ctx.create_block();
        ctx.append_block(ctx.op(op).regions[0], block);
        let index = ctx.index_type();
        new_ivs.push(ctx.add_block_argument(block, index, None));
        let yield_name = ctx.intern_op_name(loop_::YIELD);
        let terminator = ctx.create_op(OperationState {
            name: yield_name,
            operands: vec![],
            result_types: vec![],
            successors: vec![],
            num_regions: 0,
            properties: None,
            attributes: vec![],
            loc,
        });
        ctx.append_op(block, terminator);
        innermost_yield = Some(terminator);
    }
    let terminator = innermost_yield.expect("at least one header");
    for op in body_ops {
        ctx.unlink_op(op);
        ctx.insert_op_before(terminator, op);
    }
    for (dim, &new) in band.dims.iter().zip(new_iv_of_old) {
        ctx.replace_all_uses(dim.induction_var, new_ivs[new]);
    }
    ctx.erase_op(outer);
}

/// `(map, operands)` of a bound that is the induction variable of new loop `i`.
pub fn iv_bound(i: usize) -> (AffineMap, Vec<BoundOperand>) {
    (AffineMap::identity(1), vec![BoundOperand::NewLoop(i)])
}

/// The upper bound of a point loop: at most `span` past the induction variable of the
/// tile loop `tile`, and (unless every tile is whole) the old upper bound.
pub fn point_upper(
    old: &Bound,
    tile: usize,
    span: i64,
    whole_tiles: bool,
) -> (AffineMap, Vec<BoundOperand>) {
    if whole_tiles {
        return (
            AffineMap::new(1, 0, vec![AffineExpr::dim(0) + span]),
            vec![BoundOperand::NewLoop(tile)],
        );
    }
    let (map, mut operands) = as_dims_only(old);
    let tile_dim = AffineExpr::dim(map.num_dims);
    let mut results = map.results.clone();
    results.push(tile_dim + span);
    operands.push(BoundOperand::NewLoop(tile));
    (AffineMap::new(map.num_dims + 1, 0, results), operands)
}
