//! Creating the loop-level ops of the conversion at an insertion point: buffers, loops,
//! accesses and the scalar arith ops that index computations and reductions need.

use tb_dialects::loop_;
use tb_ir::affine::AffineMap;
use tb_ir::attributes::DenseArrayData;
use tb_ir::ods::fill_defaults;
use tb_ir::operation::OperationState;
use tb_ir::{Attr, AttrKind, BlockId, Context, Location, OpId, Signedness, Type, Value};

/// Where new ops go: before an op, or at the end of a block.
#[derive(Clone, Copy, Debug)]
enum InsertPoint {
    Before(OpId),
    End(BlockId),
}

/// Creates ops at one insertion point, all with one location.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Builder {
    at: InsertPoint,
    pub loc: Location,
}

impl Builder {
    /// New ops go right before `op`.
    pub fn before(op: OpId, loc: Location) -> Builder {
        Builder {
            at: InsertPoint::Before(op),
            loc,
        }
    }

    /// New ops go at the end of `block`.
    pub fn at_end(block: BlockId, loc: Location) -> Builder {
        Builder {
            at: InsertPoint::End(block),
            loc,
        }
    }

    /// The op new ops go before, if they go before one.
    pub fn insertion_op(&self) -> Option<OpId> {
        match self.at {
            InsertPoint::Before(op) => Some(op),
            InsertPoint::End(_) => None,
        }
    }

    /// The same insertion point with another location.
    pub fn with_loc(self, loc: Location) -> Builder {
        Builder { loc, ..self }
    }

    /// Creates `name` with inherent attributes `properties` and inserts it; attributes the
    /// op's definition gives a default are filled in, as the parser does.
    pub fn create(
        &self,
        ctx: &mut Context,
        name: &str,
        operands: Vec<Value>,
        result_types: Vec<Type>,
        properties: Vec<(&str, Attr)>,
        num_regions: usize,
    ) -> OpId {
        let properties = (!properties.is_empty()).then(|| {
            let entries = properties
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
            ctx.dictionary_attr(entries)
        });
        let state = OperationState {
            name: ctx.intern_op_name(name),
            operands,
            result_types,
            successors: vec![],
            num_regions,
            properties,
            attributes: vec![],
            loc: self.loc,
        };
        let op = ctx.create_op(state);
        fill_defaults(ctx, op);
        self.insert(ctx, op);
        op
    }

    /// Inserts the detached op `op` here.
    pub fn insert(&self, ctx: &mut Context, op: OpId) {
        match self.at {
            InsertPoint::Before(before) => ctx.insert_op_before(before, op),
            InsertPoint::End(block) => ctx.append_op(block, op),
        }
    }

    /// Creates a one-result op without regions and gives its result.
    pub fn value(
        &self,
        ctx: &mut Context,
        name: &str,
        operands: Vec<Value>,
        result_type: Type,
        properties: Vec<(&str, Attr)>,
    ) -> Value {
        let op = self.create(ctx, name, operands, vec![result_type], properties, 0);
        ctx.op(op).results[0]
    }

    // ---- constants and scalar arithmetic ----

    /// `arith.constant` of `value` (an attribute of type `ty`).
    pub fn constant(&self, ctx: &mut Context, value: Attr, ty: Type) -> Value {
        self.value(ctx, "arith.constant", vec![], ty, vec![("value", value)])
    }

    /// An `index` constant.
    pub fn index_constant(&self, ctx: &mut Context, value: i64) -> Value {
        let index = ctx.index_type();
        let attr = ctx.integer_attr(value.into(), index);
        self.constant(ctx, attr, index)
    }

    /// A binary `arith` op whose result has the type of its operands.
    pub fn binary(&self, ctx: &mut Context, name: &str, lhs: Value, rhs: Value) -> Value {
        let ty = ctx.value_type(lhs);
        self.value(ctx, name, vec![lhs, rhs], ty, vec![])
    }

    /// `arith.cmpi <predicate>` (one of `arith::CMPI_PREDICATES`).
    pub fn cmpi(&self, ctx: &mut Context, predicate: &str, lhs: Value, rhs: Value) -> Value {
        let position = tb_dialects::arith::CMPI_PREDICATES
            .iter()
            .position(|&p| p == predicate)
            .expect("a predicate of arith.cmpi");
        let i64_ty = ctx.i64();
        let predicate = ctx.integer_attr(position as i128, i64_ty);
        let i1 = ctx.i1();
        self.value(
            ctx,
            "arith.cmpi",
            vec![lhs, rhs],
            i1,
            vec![("predicate", predicate)],
        )
    }

    /// `arith.select %condition, %if_true, %if_false`.
    pub fn select(
        &self,
        ctx: &mut Context,
        condition: Value,
        if_true: Value,
        if_false: Value,
    ) -> Value {
        let ty = ctx.value_type(if_true);
        self.value(
            ctx,
            "arith.select",
            vec![condition, if_true, if_false],
            ty,
            vec![],
        )
    }

    // ---- buffers ----

    /// `loop.alloc` of a static-shape memref (default alignment).
    pub fn alloc(&self, ctx: &mut Context, ty: Type) -> Value {
        self.value(ctx, loop_::ALLOC, vec![], ty, vec![])
    }

    /// `loop.dealloc %buffer`.
    pub fn dealloc(&self, ctx: &mut Context, buffer: Value) -> OpId {
        self.create(ctx, loop_::DEALLOC, vec![buffer], vec![], vec![], 0)
    }

    /// `memref.copy %source, %target`.
    pub fn copy(&self, ctx: &mut Context, source: Value, target: Value) {
        self.create(
            ctx,
            tb_dialects::memref::COPY,
            vec![source, target],
            vec![],
            vec![],
            0,
        );
    }

    /// `loop.load %buffer[map](indices)`.
    pub fn load(
        &self,
        ctx: &mut Context,
        buffer: Value,
        map: AffineMap,
        indices: &[Value],
    ) -> Value {
        let element = scalar_type(ctx, buffer);
        let map = ctx.intern_attr(AttrKind::AffineMap(map));
        let mut operands = vec![buffer];
        operands.extend_from_slice(indices);
        self.value(ctx, loop_::LOAD, operands, element, vec![("map", map)])
    }

    /// `loop.store %value, %buffer[indices]` with the identity map.
    pub fn store(&self, ctx: &mut Context, value: Value, buffer: Value, indices: &[Value]) {
        let map = AffineMap::identity(indices.len() as u32);
        let map = ctx.intern_attr(AttrKind::AffineMap(map));
        let mut operands = vec![value, buffer];
        operands.extend_from_slice(indices);
        self.create(ctx, loop_::STORE, operands, vec![], vec![("map", map)], 0);
    }

    // ---- loops ----

    /// `loop.parallel` over `[0, extent)` for each extent (at least one): a builder inside
    /// its body and its induction variables.
    pub fn parallel(&self, ctx: &mut Context, extents: &[i64]) -> (Builder, Vec<Value>) {
        debug_assert!(!extents.is_empty(), "loop.parallel needs a dimension");
        let map_array = |ctx: &mut Context, values: &mut dyn Iterator<Item = i64>| {
            let maps = values
                .map(|v| ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(v))))
                .collect();
            ctx.intern_attr(AttrKind::Array(maps))
        };
        let lower = map_array(ctx, &mut extents.iter().map(|_| 0));
        let upper = map_array(ctx, &mut extents.iter().copied());
        let i64_ty = ctx.i64();
        let steps = ctx.intern_attr(AttrKind::DenseArray {
            element: i64_ty,
            data: DenseArrayData::Int(vec![1; extents.len()]),
        });
        let segments = segment_sizes(ctx, &[0, 0]);
        let op = self.create(
            ctx,
            loop_::PARALLEL,
            vec![],
            vec![],
            vec![
                ("lower_bounds", lower),
                ("upper_bounds", upper),
                ("steps", steps),
                ("operandSegmentSizes", segments),
            ],
            1,
        );
        self.loop_body(ctx, op, extents.len())
    }

    /// `loop.for` over `[0, extent)` carrying `inits` from one iteration to the next: the
    /// body's builder is before its `loop.yield`, which yields the iter_args unchanged
    /// until [`CarryingLoop::yield_values`] says what to carry.
    pub fn for_loop_carrying(
        &self,
        ctx: &mut Context,
        extent: i64,
        inits: &[Value],
    ) -> CarryingLoop {
        let lower = ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(0)));
        let upper = ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(extent)));
        let segments = segment_sizes(ctx, &[0, 0, inits.len()]);
        let types = inits.iter().map(|&v| ctx.value_type(v)).collect();
        let op = self.create(
            ctx,
            loop_::FOR,
            inits.to_vec(),
            types,
            vec![
                ("lower_bound", lower),
                ("upper_bound", upper),
                ("operandSegmentSizes", segments),
            ],
            1,
        );
        let (inside, ivs) = self.loop_body(ctx, op, 1);
        let block = ctx.op(op).regions[0];
        let block = ctx.entry_block(block).expect("made by loop_body");
        let iter_args: Vec<Value> = inits
            .iter()
            .map(|&v| {
                let ty = ctx.value_type(v);
                ctx.add_block_argument(block, ty, None)
            })
            .collect();
        let terminator = ctx.block(block).last.expect("made by loop_body");
        for &arg in &iter_args {
            ctx.push_operand(terminator, arg);
        }
        CarryingLoop {
            results: ctx.op(op).results.to_vec(),
            inside,
            induction_var: ivs[0],
            iter_args,
            terminator,
        }
    }

    /// Gives `loop` a body block with `dims` index arguments ending in `loop.yield`.
    fn loop_body(&self, ctx: &mut Context, loop_op: OpId, dims: usize) -> (Builder, Vec<Value>) {
        let block = ctx.create_block();
        ctx.append_block(ctx.op(loop_op).regions[0], block);
        let index = ctx.index_type();
        let ivs = (0..dims)
            .map(|_| ctx.add_block_argument(block, index, None))
            .collect();
        let terminator =
            Builder::at_end(block, self.loc).create(ctx, loop_::YIELD, vec![], vec![], vec![], 0);
        (Builder::before(terminator, self.loc), ivs)
    }
}

/// A `loop.for` with iter_args being built (see [`Builder::for_loop_carrying`]).
pub(crate) struct CarryingLoop {
    /// The loop's results: the carried values after the last iteration.
    pub results: Vec<Value>,
    /// Inserts before the body's `loop.yield`.
    pub inside: Builder,
    pub induction_var: Value,
    /// The carried values during an iteration.
    pub iter_args: Vec<Value>,
    terminator: OpId,
}

impl CarryingLoop {
    /// Makes the body yield `values` (one per iter_arg) to the next iteration.
    pub fn yield_values(&self, ctx: &mut Context, values: &[Value]) {
        assert_eq!(values.len(), self.iter_args.len(), "one value per iter_arg");
        for (i, &v) in values.iter().enumerate() {
            ctx.set_operand(self.terminator, i, v);
        }
    }
}

/// `operandSegmentSizes` of a loop: the sizes of its operand groups.
fn segment_sizes(ctx: &mut Context, sizes: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    })
}

/// The type loads of `shaped` give and stores take: its element type, signless.
pub(super) fn scalar_type(ctx: &mut Context, shaped: Value) -> Type {
    let element = element_type(ctx, shaped);
    ctx.signless(element)
}

/// The element type of a memref (or tensor) value.
pub(super) fn element_type(ctx: &Context, shaped: Value) -> Type {
    ctx.type_kind(ctx.value_type(shaped))
        .element()
        .expect("a shaped value")
}
