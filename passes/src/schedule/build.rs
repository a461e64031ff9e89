//! Creating loop-level ops at an insertion point, for the scheduling transformations.

use tb_dialects::loop_;
use tb_ir::affine::AffineMap;
use tb_ir::attributes::DenseArrayData;
use tb_ir::ods::fill_defaults;
use tb_ir::operation::OperationState;
use tb_ir::{Attr, AttrKind, BlockId, Context, Location, OpId, Signedness, Type, Value};

/// Where new ops go: before an op.
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub before: OpId,
    pub loc: Location,
}

impl At {
    pub fn create(
        self,
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
        let name = ctx.intern_op_name(name);
        let op = ctx.create_op(OperationState {
            name,
            operands,
            result_types,
            successors: vec![],
            num_regions,
            properties,
            attributes: vec![],
            loc: self.loc,
        });
        fill_defaults(ctx, op);
        ctx.insert_op_before(self.before, op);
        op
    }

    fn value(
        self,
        ctx: &mut Context,
        name: &str,
        operands: Vec<Value>,
        ty: Type,
        props: Vec<(&str, Attr)>,
    ) -> Value {
        let op = self.create(ctx, name, operands, vec![ty], props, 0);
        ctx.op(op).results[0]
    }

    /// `loop.load` or `loop.vector_load` (by `ty`) of `memref` at `map(operands)`.
    pub fn load(
        self,
        ctx: &mut Context,
        vector: bool,
        memref: Value,
        map: AffineMap,
        operands: &[Value],
        ty: Type,
    ) -> Value {
        let map = ctx.intern_attr(AttrKind::AffineMap(map));
        let mut all = vec![memref];
        all.extend_from_slice(operands);
        let name = if vector {
            loop_::VECTOR_LOAD
        } else {
            loop_::LOAD
        };
        self.value(ctx, name, all, ty, vec![("map", map)])
    }

    /// `loop.store` or `loop.vector_store` of `value` to `memref` at `map(operands)`.
    pub fn store(
        self,
        ctx: &mut Context,
        vector: bool,
        value: Value,
        memref: Value,
        map: AffineMap,
        operands: &[Value],
    ) {
        let map = ctx.intern_attr(AttrKind::AffineMap(map));
        let mut all = vec![value, memref];
        all.extend_from_slice(operands);
        let name = if vector {
            loop_::VECTOR_STORE
        } else {
            loop_::STORE
        };
        self.create(ctx, name, all, vec![], vec![("map", map)], 0);
    }

    /// `memref.alloca` of the static memref type `ty`, aligned to `alignment` bytes.
    pub fn alloca(self, ctx: &mut Context, ty: Type, alignment: i64) -> Value {
        let i64_ty = ctx.i64();
        let alignment = ctx.integer_attr(alignment.into(), i64_ty);
        let sizes = segments(ctx, &[0, 0]);
        self.value(
            ctx,
            "memref.alloca",
            vec![],
            ty,
            vec![("alignment", alignment), ("operandSegmentSizes", sizes)],
        )
    }

    /// `memref.reinterpret_cast` of `source` to the memref type `ty` with the static
    /// `offset` (in elements), sizes (`ty`'s shape) and `strides`: a view of the same
    /// elements, laid out as they say.
    pub fn reinterpret_cast(
        self,
        ctx: &mut Context,
        source: Value,
        ty: Type,
        offset: i64,
        strides: &[i64],
    ) -> Value {
        let sizes = match ctx.type_kind(ty) {
            tb_ir::TypeKind::MemRef { shape, .. } => shape.clone(),
            _ => panic!("reinterpret_cast to a type that is not a memref"),
        };
        let props = vec![
            ("operandSegmentSizes", segments(ctx, &[1, 0, 0, 0])),
            ("static_offsets", i64_array(ctx, &[offset])),
            ("static_sizes", i64_array(ctx, &sizes)),
            ("static_strides", i64_array(ctx, strides)),
        ];
        self.value(ctx, "memref.reinterpret_cast", vec![source], ty, props)
    }

    /// `loop.dealloc` of `buffer`.
    pub fn dealloc(self, ctx: &mut Context, buffer: Value) -> OpId {
        self.create(ctx, loop_::DEALLOC, vec![buffer], vec![], vec![], 0)
    }

    /// An `f32` constant.
    pub fn f32_constant(self, ctx: &mut Context, value: f32) -> Value {
        let f32_ty = ctx.float_type(tb_ir::FloatKind::F32);
        let attr = ctx.intern_attr(AttrKind::Float {
            bits: value.to_bits().into(),
            ty: f32_ty,
        });
        self.value(ctx, "arith.constant", vec![], f32_ty, vec![("value", attr)])
    }

    /// An `index` constant.
    pub fn index_constant(self, ctx: &mut Context, value: i64) -> Value {
        let index_ty = ctx.index_type();
        let attr = ctx.intern_attr(AttrKind::Integer {
            ty: index_ty,
            value: value as i128,
        });
        self.value(
            ctx,
            "arith.constant",
            vec![],
            index_ty,
            vec![("value", attr)],
        )
    }

    /// `index + offset` (`index` itself for offset 0).
    pub fn add_index(self, ctx: &mut Context, index: Value, offset: i64) -> Value {
        if offset == 0 {
            return index;
        }
        let offset = self.index_constant(ctx, offset);
        let index_ty = ctx.index_type();
        self.value(ctx, "arith.addi", vec![index, offset], index_ty, vec![])
    }

    /// `arith.<name> a, b` on `index` values (`divui`, `minsi`, ...).
    pub fn index_op(self, ctx: &mut Context, name: &str, a: Value, b: Value) -> Value {
        let index_ty = ctx.index_type();
        self.value(ctx, &format!("arith.{name}"), vec![a, b], index_ty, vec![])
    }

    /// `memref.prefetch memref[indices], read, locality<2>, data`: asks for the cache
    /// line of that element to be brought into the second-level cache (and above).
    pub fn prefetch_read(self, ctx: &mut Context, memref: Value, indices: &[Value]) {
        let i1 = ctx.integer_type(1, Signedness::Signless);
        let i32_ty = ctx.integer_type(32, Signedness::Signless);
        let flag = |ctx: &mut Context, on: bool| {
            ctx.intern_attr(AttrKind::Integer {
                ty: i1,
                value: on as i128,
            })
        };
        let read = flag(ctx, false);
        let data = flag(ctx, true);
        let locality = ctx.intern_attr(AttrKind::Integer {
            ty: i32_ty,
            value: 2,
        });
        let operands = std::iter::once(memref)
            .chain(indices.iter().copied())
            .collect();
        self.create(
            ctx,
            "memref.prefetch",
            operands,
            vec![],
            vec![
                ("isWrite", read),
                ("localityHint", locality),
                ("isDataCache", data),
            ],
            0,
        );
    }

    pub fn broadcast(self, ctx: &mut Context, scalar: Value, ty: Type) -> Value {
        self.value(ctx, loop_::BROADCAST, vec![scalar], ty, vec![])
    }

    pub fn fma(self, ctx: &mut Context, a: Value, b: Value, c: Value) -> Value {
        let ty = ctx.value_type(c);
        self.value(ctx, loop_::FMA, vec![a, b, c], ty, vec![])
    }

    /// A `loop.for` from `lower(lower_operands)` to `upper(upper_operands)` by `step`,
    /// carrying `inits`; returns it, where to build its body, its induction variable and
    /// its iter_args. The body yields its iter_args until [`set_yield`] says otherwise.
    pub fn for_loop(
        self,
        ctx: &mut Context,
        lower: (AffineMap, Vec<Value>),
        upper: (AffineMap, Vec<Value>),
        step: i64,
        inits: &[Value],
    ) -> (OpId, At, Value, Vec<Value>) {
        let i64_ty = ctx.i64();
        let step = ctx.intern_attr(AttrKind::Integer {
            ty: i64_ty,
            value: step as i128,
        });
        let segments = segments(ctx, &[lower.1.len(), upper.1.len(), inits.len()]);
        let lower_map = ctx.intern_attr(AttrKind::AffineMap(lower.0));
        let upper_map = ctx.intern_attr(AttrKind::AffineMap(upper.0));
        let types = inits.iter().map(|&v| ctx.value_type(v)).collect();
        let operands = lower
            .1
            .into_iter()
            .chain(upper.1)
            .chain(inits.iter().copied())
            .collect();
        let op = self.create(
            ctx,
            loop_::FOR,
            operands,
            types,
            vec![
                ("lower_bound", lower_map),
                ("upper_bound", upper_map),
                ("step", step),
                ("operandSegmentSizes", segments),
            ],
            1,
        );
        let (block, inside, ivs) = self.body(ctx, op, 1);
        let iter_args: Vec<Value> = inits
            .iter()
            .map(|&v| {
                let ty = ctx.value_type(v);
                ctx.add_block_argument(block, ty, None)
            })
            .collect();
        let terminator = inside.before;
        for &arg in &iter_args {
            ctx.push_operand(terminator, arg);
        }
        (op, inside, ivs[0], iter_args)
    }

    /// A `loop.parallel` over constant ranges `[lower, upper)` by `steps`.
    pub fn parallel(
        self,
        ctx: &mut Context,
        lower: &[i64],
        upper: &[i64],
        steps: &[i64],
    ) -> (OpId, At, Vec<Value>) {
        let maps = |ctx: &mut Context, values: &[i64]| {
            let maps = values
                .iter()
                .map(|&v| ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(v))))
                .collect();
            ctx.intern_attr(AttrKind::Array(maps))
        };
        let lower = maps(ctx, lower);
        let upper = maps(ctx, upper);
        let i64_ty = ctx.i64();
        let step_attr = ctx.intern_attr(AttrKind::DenseArray {
            element: i64_ty,
            data: DenseArrayData::Int(steps.iter().map(|&s| s as i128).collect()),
        });
        let segments = segments(ctx, &[0, 0]);
        let op = self.create(
            ctx,
            loop_::PARALLEL,
            vec![],
            vec![],
            vec![
                ("lower_bounds", lower),
                ("upper_bounds", upper),
                ("steps", step_attr),
                ("operandSegmentSizes", segments),
            ],
            1,
        );
        let (_, inside, ivs) = self.body(ctx, op, steps.len());
        (op, inside, ivs)
    }

    fn body(self, ctx: &mut Context, op: OpId, dims: usize) -> (BlockId, At, Vec<Value>) {
        let block = ctx.create_block();
        ctx.append_block(ctx.op(op).regions[0], block);
        let index = ctx.index_type();
        let ivs = (0..dims)
            .map(|_| ctx.add_block_argument(block, index, None))
            .collect();
        let name = ctx.intern_op_name(loop_::YIELD);
        let terminator = ctx.create_op(OperationState {
            name,
            operands: vec![],
            result_types: vec![],
            successors: vec![],
            num_regions: 0,
            properties: None,
            attributes: vec![],
            loc: self.loc,
        });
        ctx.append_op(block, terminator);
        (
            block,
            At {
                before: terminator,
                loc: self.loc,
            },
            ivs,
        )
    }
}

/// Makes the `loop.yield` that `inside` inserts before yield `values`.
pub fn set_yield(ctx: &mut Context, inside: At, values: &[Value]) {
    for (i, &v) in values.iter().enumerate() {
        ctx.set_operand(inside.before, i, v);
    }
}

fn i64_array(ctx: &mut Context, values: &[i64]) -> Attr {
    let i64_ty = ctx.i64();
    ctx.intern_attr(AttrKind::DenseArray {
        element: i64_ty,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

fn segments(ctx: &mut Context, sizes: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    })
}
