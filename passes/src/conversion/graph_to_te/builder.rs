//! Building the lowered IR: [`Lowering`] creates ops right before the graph op being
//! lowered (with its location), and [`Body`] fills the region of one `te.compute`.
//!
//! Bodies compute in a "compute type": the element type itself, except that f16 and bf16
//! are widened to f32, as the graph interpreter's kernels do, so that a chain of body ops
//! rounds to the narrow type once.
//!
//! Body scalars are signless, as `arith` wants them (see the `te` dialect): a read of an
//! unsigned tensor gives a signless integer that [`Body`] remembers as unsigned, and its
//! ops on such values pick the unsigned arith op (`divui`, `cmpi ult`, `uitofp` ...).

use std::collections::HashSet;
use tb_dialects::arith::{CMPF_PREDICATES, CMPI_PREDICATES};
use tb_dialects::graph::attrs::Attrs;
use tb_dialects::graph::types::{ElementKind, element_kind, tensor_type};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::attributes::{AttrKind, DenseData, DenseElement};
use tb_ir::float::bits_from_f64;
use tb_ir::operation::OperationState;

use tb_ir::{Attr, BlockId, Context, FloatKind, Location, OpId, Signedness, Type, TypeKind, Value};

/// What lowerings report when they cannot lower: the driver prefixes the op name.
pub(super) type LowerResult<T = Vec<Value>> = Result<T, String>;

/// The message of an op, or of one of its configurations, that te cannot express.
pub(super) fn no_lowering(why: impl std::fmt::Display) -> String {
    format!("has no lowering to te: {why}")
}

/// The most elements a lowering writes out as a constant (a table of window counts, a
/// Range): beyond it the values are computed by a `te.compute`, or the op is refused.
/// Memory and time of the conversion must not grow with a tensor's size.
pub(super) const CONSTANT_BUDGET: i64 = 1 << 16;

/// The number of elements of `shape`, or why it has none the lowering can compute with
/// (a count beyond `i64`, a dynamic dimension).
pub(super) fn element_count(shape: &[i64]) -> LowerResult<i64> {
    tb_ir::types::shape_num_elements(shape).map_err(|e| match e {
        tb_ir::types::ElementCountError::Overflow => {
            no_lowering(format!("{shape:?} has more elements than i64 can count"))
        }
        other => no_lowering(format!("{shape:?}: {other}")),
    })
}

/// Whether `shape` has no element (a zero dimension), without multiplying.
pub(super) fn is_empty(shape: &[i64]) -> bool {
    shape.contains(&0)
}

/// `a * b`, or an error naming `what` when it overflows `i64`.
pub(super) fn checked_mul(a: i64, b: i64, what: &str) -> LowerResult<i64> {
    a.checked_mul(b)
        .ok_or_else(|| no_lowering(format!("{what} overflows i64")))
}

/// A reduction of a `te.compute`: the extents of its reduction axes and its combiner.
#[derive(Clone, Copy)]
pub(super) struct Reduction<'r> {
    pub extents: &'r [i64],
    pub combiner: Combiner,
}

pub(super) use tb_dialects::te::Combiner;

/// Creates ops right before the graph op `op`, located at it (the conversion framework
/// records what is created there, so a failed conversion takes it back).
pub(super) struct Lowering<'a> {
    pub ctx: &'a mut Context,
    pub op: OpId,
    pub loc: Location,
    /// The op's operands as the conversion gives them.
    operands: Vec<Value>,
}

impl<'a> Lowering<'a> {
    pub fn new(ctx: &'a mut Context, op: OpId, operands: Vec<Value>) -> Self {
        let loc = ctx.op(op).loc;
        Lowering {
            ctx,
            op,
            loc,
            operands,
        }
    }

    pub fn operand(&self, i: usize) -> Value {
        self.operands[i]
    }

    pub fn operands(&self) -> Vec<Value> {
        self.operands.clone()
    }

    pub fn num_operands(&self) -> usize {
        self.operands.len()
    }

    pub fn num_results(&self) -> usize {
        self.ctx.op(self.op).results.len()
    }

    pub fn result_type(&self, i: usize) -> Type {
        self.ctx.value_type(self.ctx.op(self.op).results[i])
    }

    /// The op's attributes with the dialect's defaults.
    pub fn attrs(&self) -> Attrs<'_> {
        Attrs::of_op(self.ctx, self.op)
    }

    pub fn shape(&self, v: Value) -> Vec<i64> {
        shape_of(self.ctx, self.ctx.value_type(v))
    }

    pub fn element(&self, v: Value) -> Type {
        element_of(self.ctx, self.ctx.value_type(v))
    }

    pub fn result_shape(&self, i: usize) -> Vec<i64> {
        shape_of(self.ctx, self.result_type(i))
    }

    pub fn result_element(&self, i: usize) -> Type {
        element_of(self.ctx, self.result_type(i))
    }

    pub fn tensor_type(&mut self, shape: &[i64], element: Type) -> Type {
        tensor_type(self.ctx, shape.to_vec(), element)
    }

    pub fn f32(&mut self) -> Type {
        self.ctx.float_type(FloatKind::F32)
    }

    /// The type bodies compute `element` values in.
    pub fn compute_type(&mut self, element: Type) -> Type {
        compute_type(self.ctx, element)
    }

    /// An op named `name` before the graph op, with `attrs` as properties (and the
    /// declared defaults filled in).
    fn create(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        result_types: Vec<Type>,
        attrs: Vec<(String, Attr)>,
        regions: usize,
    ) -> OpId {
        let state = op_state(
            self.ctx,
            name,
            operands,
            result_types,
            attrs,
            regions,
            self.loc,
        );
        let created = self.ctx.create_op(state);
        tb_ir::ods::fill_defaults(self.ctx, created);
        self.ctx.insert_op_before(self.op, created);
        created
    }

    /// `arith.constant` of an elements attribute (or any typed attribute).
    pub fn constant(&mut self, value: Attr, ty: Type) -> Value {
        let name = "value".to_string();
        let op = self.create("arith.constant", vec![], vec![ty], vec![(name, value)], 0);
        self.ctx.op(op).results[0]
    }

    /// A constant tensor of `shape` whose elements are all `value` (of `element` type).
    pub fn splat(&mut self, shape: &[i64], element: Type, value: f64) -> Value {
        let ty = self.tensor_type(shape, element);
        let elem = dense_element(self.ctx, element, value);
        let attr = self.ctx.intern_attr(AttrKind::DenseElements {
            ty,
            data: DenseData {
                splat: true,
                elements: vec![elem],
            },
        });
        self.constant(attr, ty)
    }

    /// A constant tensor of `shape` holding `values` (row-major) as `element`s.
    pub fn dense(&mut self, shape: &[i64], element: Type, values: &[f64]) -> Value {
        let ty = self.tensor_type(shape, element);
        let elements = values
            .iter()
            .map(|&v| dense_element(self.ctx, element, v))
            .collect();
        let attr = self.ctx.intern_attr(AttrKind::DenseElements {
            ty,
            data: DenseData {
                splat: false,
                elements,
            },
        });
        self.constant(attr, ty)
    }

    /// A `te.compute` of a `shape` x `element` tensor; `body` gets the body to fill and
    /// returns the element to yield (of the compute type; narrowed here when needed).
    pub fn compute(
        &mut self,
        shape: &[i64],
        element: Type,
        reduction: Option<Reduction>,
        body: impl FnOnce(&mut Body) -> LowerResult<Value>,
    ) -> LowerResult<Value> {
        let result_ty = self.tensor_type(shape, element);
        let mut attrs = Vec::new();
        if let Some(r) = reduction {
            let i64_ty = self.ctx.i64();
            let extents = self.ctx.intern_attr(AttrKind::DenseArray {
                element: i64_ty,
                data: tb_ir::attributes::DenseArrayData::Int(
                    r.extents.iter().map(|&e| e as i128).collect(),
                ),
            });
            let combiner = self.ctx.typed_attr_of(r.combiner);
            attrs.push(("reduction_extents".to_string(), extents));
            attrs.push(("combiner".to_string(), combiner));
        }
        let compute = self.create("te.compute", vec![], vec![result_ty], attrs, 1);
        let region = self.ctx.op(compute).regions[0];
        let block = self.ctx.create_block();
        self.ctx.append_block(region, block);
        let index = self.ctx.index_type();
        let dims = shape.len() + reduction.map_or(0, |r| r.extents.len());
        for _ in 0..dims {
            self.ctx.add_block_argument(block, index, Some(self.loc));
        }
        let mut b = Body {
            ctx: self.ctx,
            compute,
            block,
            loc: self.loc,
            unsigned: HashSet::new(),
        };
        let value = body(&mut b)?;
        // The yield takes bits: signedness only matters to the ops that computed them.
        let scalar = b.ctx.signless(element);
        let value = if b.ty(value) == scalar {
            value
        } else {
            b.convert(value, element)
        };
        b.append("te.yield", vec![value], vec![], vec![]);
        Ok(self.ctx.op(compute).results[0])
    }

    /// An elementwise `te.compute` over `shape` whose element is `f` of the elements of
    /// `inputs`, each broadcast to `shape` and read in its compute type.
    pub fn map(
        &mut self,
        shape: &[i64],
        element: Type,
        inputs: &[Value],
        f: impl FnOnce(&mut Body, &[Value]) -> LowerResult<Value>,
    ) -> LowerResult<Value> {
        let in_shapes: Vec<Vec<i64>> = inputs.iter().map(|&v| self.shape(v)).collect();
        self.compute(shape, element, None, |b| {
            let mut values = Vec::with_capacity(inputs.len());
            for (&input, in_shape) in inputs.iter().zip(&in_shapes) {
                let exprs = broadcast_exprs(in_shape, shape);
                values.push(b.read_widened(input, exprs));
            }
            f(b, &values)
        })
    }
}

/// The body of one `te.compute`: its index arguments, reads and scalar arithmetic.
pub(super) struct Body<'b> {
    pub ctx: &'b mut Context,
    compute: OpId,
    block: BlockId,
    loc: Location,
    /// The values holding unsigned integers (their type is signless).
    unsigned: HashSet<Value>,
}

/// Comparisons, spelled once for floats (ordered) and integers (signed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Body<'_> {
    /// Index argument `k` of the iteration domain (result dims, then reduction axes).
    pub fn index(&self, k: usize) -> Value {
        self.ctx.block(self.block).args[k]
    }

    /// The number of domain dimensions.
    pub fn dims(&self) -> usize {
        self.ctx.block(self.block).args.len()
    }

    fn append(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        result_types: Vec<Type>,
        attrs: Vec<(String, Attr)>,
    ) -> OpId {
        let state = op_state(self.ctx, name, operands, result_types, attrs, 0, self.loc);
        let op = self.ctx.create_op(state);
        tb_ir::ods::fill_defaults(self.ctx, op);
        self.ctx.append_op(self.block, op);
        op
    }

    /// A one-result op appended to the body.
    pub fn op(&mut self, name: &str, operands: &[Value], result: Type) -> Value {
        let op = self.append(name, operands.to_vec(), vec![result], vec![]);
        self.ctx.op(op).results[0]
    }

    fn op_with(
        &mut self,
        name: &str,
        operands: &[Value],
        result: Type,
        attrs: Vec<(String, Attr)>,
    ) -> Value {
        let op = self.append(name, operands.to_vec(), vec![result], attrs);
        self.ctx.op(op).results[0]
    }

    fn use_input(&mut self, input: Value) {
        if !self.ctx.op(self.compute).operands.contains(&input) {
            self.ctx.push_operand(self.compute, input);
        }
    }

    fn map(&self, exprs: Vec<AffineExpr>) -> AffineMap {
        let results = exprs.iter().map(AffineExpr::simplify).collect();
        AffineMap::new(self.dims() as u32, 0, results)
    }

    fn read_op(&mut self, input: Value, exprs: Vec<AffineExpr>, padding: Option<Attr>) -> Value {
        self.use_input(input);
        let map = self.map(exprs);
        let map = self.ctx.intern_attr(AttrKind::AffineMap(map));
        let element = element_of(self.ctx, self.ctx.value_type(input));
        let mut attrs = vec![("map".to_string(), map)];
        attrs.extend(padding.map(|p| ("padding".to_string(), p)));
        let scalar = self.ctx.signless(element);
        let v = self.op_with("te.read", &[input], scalar, attrs);
        self.mark(v, is_unsigned(self.ctx, element))
    }

    /// Records that the new value `v` holds an unsigned integer if `unsigned`; gives `v`.
    fn mark(&mut self, v: Value, unsigned: bool) -> Value {
        if unsigned {
            self.unsigned.insert(v);
        }
        v
    }

    /// Whether `v` holds an unsigned integer (its type being signless).
    pub fn is_unsigned(&self, v: Value) -> bool {
        self.unsigned.contains(&v)
    }

    /// `te.read %input[map]` with the map's results `exprs` over the domain.
    pub fn read(&mut self, input: Value, exprs: Vec<AffineExpr>) -> Value {
        self.read_op(input, exprs, None)
    }

    /// A read that yields `padding` (a value of the element type) outside the input.
    pub fn read_padded(&mut self, input: Value, exprs: Vec<AffineExpr>, padding: f64) -> Value {
        let element = element_of(self.ctx, self.ctx.value_type(input));
        let padding = body_scalar_attr(self.ctx, element, padding);
        self.read_op(input, exprs, Some(padding))
    }

    /// [`Body::read`] converted to the compute type.
    pub fn read_widened(&mut self, input: Value, exprs: Vec<AffineExpr>) -> Value {
        let v = self.read(input, exprs);
        self.widen(v)
    }

    /// `te.read_at %input[indices]`.
    pub fn read_at(&mut self, input: Value, indices: &[Value]) -> Value {
        self.use_input(input);
        let element = element_of(self.ctx, self.ctx.value_type(input));
        let mut operands = vec![input];
        operands.extend_from_slice(indices);
        let scalar = self.ctx.signless(element);
        let v = self.op("te.read_at", &operands, scalar);
        self.mark(v, is_unsigned(self.ctx, element))
    }

    pub fn ty(&self, v: Value) -> Type {
        self.ctx.value_type(v)
    }

    fn is_float(&self, v: Value) -> bool {
        matches!(self.ctx.type_kind(self.ty(v)), TypeKind::Float(_))
    }

    /// A constant of scalar type `ty` (float, integer, i1 or index; an unsigned `ty` gives
    /// a signless constant holding an unsigned value).
    pub fn constant(&mut self, value: f64, ty: Type) -> Value {
        let attr = body_scalar_attr(self.ctx, ty, value);
        let scalar = self.ctx.signless(ty);
        let v = self.op_with(
            "arith.constant",
            &[],
            scalar,
            vec![("value".to_string(), attr)],
        );
        self.mark(v, is_unsigned(self.ctx, ty))
    }

    pub fn index_constant(&mut self, value: i64) -> Value {
        let index = self.ctx.index_type();
        self.constant(value as f64, index)
    }

    /// `v` in the compute type of its own type.
    pub fn widen(&mut self, v: Value) -> Value {
        let ty = self.ty(v);
        let wide = compute_type(self.ctx, ty);
        if wide == ty {
            v
        } else {
            self.op("arith.extf", &[v], wide)
        }
    }

    /// Converts between float widths, or from a computed value to the element type.
    pub fn convert(&mut self, v: Value, to: Type) -> Value {
        let from = self.ty(v);
        if from == to {
            return v;
        }
        match (float_width(self.ctx, from), float_width(self.ctx, to)) {
            (Some(a), Some(b)) if a < b => self.op("arith.extf", &[v], to),
            (Some(_), Some(_)) => self.op("arith.truncf", &[v], to),
            _ => self.cast(v, to),
        }
    }

    /// ONNX Cast between element types (integers of any signedness, i1, floats, index);
    /// the result has the signless type of `to`.
    pub fn cast(&mut self, v: Value, to: Type) -> Value {
        let to_unsigned = is_unsigned(self.ctx, to);
        let scalar = self.ctx.signless(to);
        let cast = self.cast_signless(v, scalar, to_unsigned);
        self.mark(cast, to_unsigned)
    }

    /// [`Body::cast`] to the signless `to`, unsigned if `to_unsigned`. The same width in
    /// another signedness is a bitcast: a new value, so that `v` keeps its signedness.
    fn cast_signless(&mut self, v: Value, to: Type, to_unsigned: bool) -> Value {
        let from = self.ty(v);
        let from_unsigned = self.is_unsigned(v);
        if from == to {
            return if from_unsigned == to_unsigned {
                v
            } else {
                self.op("arith.bitcast", &[v], to)
            };
        }
        let ctx = &*self.ctx;
        let (fk, tk) = (scalar_kind(ctx, from), scalar_kind(ctx, to));
        match (fk, tk) {
            (Scalar::Float(a), Scalar::Float(b)) => {
                let name = if a < b { "arith.extf" } else { "arith.truncf" };
                self.op(name, &[v], to)
            }
            // Non-zero (and NaN) is true.
            (Scalar::Float(_), Scalar::Bool) => {
                let zero = self.constant(0.0, from);
                self.cmpf_pred("une", v, zero)
            }
            (Scalar::Int(_) | Scalar::Index, Scalar::Bool) => {
                let zero = self.constant(0.0, from);
                self.cmp(Cmp::Ne, v, zero)
            }
            (Scalar::Bool, Scalar::Float(_)) => self.op("arith.uitofp", &[v], to),
            (Scalar::Bool, Scalar::Int(_)) => self.op("arith.extui", &[v], to),
            (Scalar::Int(_), Scalar::Float(_)) if from_unsigned => {
                self.op("arith.uitofp", &[v], to)
            }
            (Scalar::Int(_), Scalar::Float(_)) => self.op("arith.sitofp", &[v], to),
            // ONNX leaves negative values out of range of unsigned types.
            (Scalar::Float(_), Scalar::Int(64)) if to_unsigned => self.op("arith.fptoui", &[v], to),
            // Truncation toward zero, then wrapping through i64, as a C cast does.
            (Scalar::Float(_), Scalar::Int(w)) => {
                if w == 64 {
                    self.op("arith.fptosi", &[v], to)
                } else {
                    let i64_ty = self.ctx.i64();
                    let wide = self.op("arith.fptosi", &[v], i64_ty);
                    self.op("arith.trunci", &[wide], to)
                }
            }
            (Scalar::Int(a), Scalar::Int(b)) => {
                let name = match (a < b, from_unsigned) {
                    (true, true) => "arith.extui",
                    (true, false) => "arith.extsi",
                    (false, _) => "arith.trunci",
                };
                self.op(name, &[v], to)
            }
            (_, Scalar::Index) if from_unsigned => self.op("arith.index_castui", &[v], to),
            (Scalar::Index, _) | (_, Scalar::Index) => self.op("arith.index_cast", &[v], to),
            (Scalar::Bool, Scalar::Bool) => v,
        }
    }

    /// An `index` value as an integer of type `to` (i64, i32 ...) or the reverse.
    pub fn index_cast(&mut self, v: Value, to: Type) -> Value {
        self.op("arith.index_cast", &[v], to)
    }

    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.addf", "arith.addi", a, b)
    }

    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.subf", "arith.subi", a, b)
    }

    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.mulf", "arith.muli", a, b)
    }

    /// Float division, or integer division truncating toward zero.
    pub fn div(&mut self, a: Value, b: Value) -> Value {
        let int = self.signed_or_not(a, "arith.divsi", "arith.divui");
        self.binary("arith.divf", int, a, b)
    }

    /// The remainder with the dividend's sign (C `fmod`, `%`).
    pub fn rem(&mut self, a: Value, b: Value) -> Value {
        let int = self.signed_or_not(a, "arith.remsi", "arith.remui");
        self.binary("arith.remf", int, a, b)
    }

    /// The maximum; NaN-propagating for floats.
    pub fn max(&mut self, a: Value, b: Value) -> Value {
        let int = self.signed_or_not(a, "arith.maxsi", "arith.maxui");
        self.binary("arith.maximumf", int, a, b)
    }

    /// The minimum; NaN-propagating for floats.
    pub fn min(&mut self, a: Value, b: Value) -> Value {
        let int = self.signed_or_not(a, "arith.minsi", "arith.minui");
        self.binary("arith.minimumf", int, a, b)
    }

    /// `signed`, or `unsigned` when `a` holds an unsigned integer.
    fn signed_or_not<'n>(&self, a: Value, signed: &'n str, unsigned: &'n str) -> &'n str {
        if self.is_unsigned(a) {
            unsigned
        } else {
            signed
        }
    }

    /// The result is unsigned when `a` is.
    fn binary(&mut self, float: &str, int: &str, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        let name = if self.is_float(a) { float } else { int };
        let v = self.op(name, &[a, b], ty);
        self.mark(v, self.is_unsigned(a))
    }

    pub fn neg(&mut self, a: Value) -> Value {
        let ty = self.ty(a);
        if self.is_float(a) {
            self.op("arith.negf", &[a], ty)
        } else {
            let zero = self.constant(0.0, ty);
            self.sub(zero, a)
        }
    }

    pub fn abs(&mut self, a: Value) -> Value {
        if self.is_unsigned(a) {
            return a;
        }
        let ty = self.ty(a);
        let name = if self.is_float(a) {
            "math.absf"
        } else {
            "math.absi"
        };
        self.op(name, &[a], ty)
    }

    /// A unary `math` op on `a`'s type (`math.exp` ...).
    pub fn math(&mut self, name: &str, a: Value) -> Value {
        let ty = self.ty(a);
        self.op(name, &[a], ty)
    }

    /// A `math` predicate (`math.isinf` ...) of `a`.
    pub fn math_predicate(&mut self, name: &str, a: Value) -> Value {
        let i1 = self.ctx.i1();
        self.op(name, &[a], i1)
    }

    /// `value` as a constant of `like`'s type (and signedness).
    pub fn constant_like(&mut self, value: f64, like: Value) -> Value {
        let ty = match *self.ctx.type_kind(self.ty(like)) {
            TypeKind::Integer { width, .. } if self.is_unsigned(like) => {
                self.ctx.integer_type(width, Signedness::Unsigned)
            }
            _ => self.ty(like),
        };
        self.constant(value, ty)
    }

    pub fn cmp(&mut self, cmp: Cmp, a: Value, b: Value) -> Value {
        if self.is_float(a) {
            let pred = match cmp {
                Cmp::Eq => "oeq",
                Cmp::Ne => "une",
                Cmp::Lt => "olt",
                Cmp::Le => "ole",
                Cmp::Gt => "ogt",
                Cmp::Ge => "oge",
            };
            self.cmpf_pred(pred, a, b)
        } else {
            let pred = match (cmp, self.is_unsigned(a)) {
                (Cmp::Eq, _) => "eq",
                (Cmp::Ne, _) => "ne",
                (Cmp::Lt, false) => "slt",
                (Cmp::Le, false) => "sle",
                (Cmp::Gt, false) => "sgt",
                (Cmp::Ge, false) => "sge",
                (Cmp::Lt, true) => "ult",
                (Cmp::Le, true) => "ule",
                (Cmp::Gt, true) => "ugt",
                (Cmp::Ge, true) => "uge",
            };
            let i = CMPI_PREDICATES.iter().position(|&p| p == pred).unwrap_or(0);
            self.compare("arith.cmpi", i, a, b)
        }
    }

    /// `arith.cmpf` with predicate `pred` (`olt`, `uno` ...).
    pub fn cmpf_pred(&mut self, pred: &str, a: Value, b: Value) -> Value {
        let i = CMPF_PREDICATES.iter().position(|&p| p == pred).unwrap_or(0);
        self.compare("arith.cmpf", i, a, b)
    }

    fn compare(&mut self, name: &str, predicate: usize, a: Value, b: Value) -> Value {
        let i64_ty = self.ctx.i64();
        let pred = self.ctx.integer_attr(predicate as i128, i64_ty);
        let i1 = self.ctx.i1();
        self.op_with(name, &[a, b], i1, vec![("predicate".to_string(), pred)])
    }

    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        let v = self.op("arith.select", &[cond, a, b], ty);
        self.mark(v, self.is_unsigned(a))
    }

    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.andi", "arith.andi", a, b)
    }

    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.ori", "arith.ori", a, b)
    }

    pub fn xor(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.xori", "arith.xori", a, b)
    }

    pub fn not(&mut self, a: Value) -> Value {
        let ty = self.ty(a);
        let one = self.constant(1.0, ty);
        self.xor(a, one)
    }

    /// `lo <= v <= hi`-clamped `index` value `v`.
    pub fn clamp_index(&mut self, v: Value, lo: i64, hi: i64) -> Value {
        let lo = self.index_constant(lo);
        let hi = self.index_constant(hi);
        let index = self.ty(v);
        let v = self.op("arith.maxsi", &[v, lo], index);
        self.op("arith.minsi", &[v, hi], index)
    }

    /// The value of affine expression `expr` of the domain indices, as `index` arithmetic
    /// (floor division and modulus round toward negative infinity, as in affine maps).
    pub fn apply(&mut self, expr: &AffineExpr) -> Value {
        let index = self.ctx.index_type();
        match expr.simplify() {
            AffineExpr::Dim(d) => self.index(d as usize),
            AffineExpr::Constant(c) => self.index_constant(c),
            AffineExpr::Symbol(_) => self.index_constant(0),
            AffineExpr::Add(a, b) => {
                let (a, b) = (self.apply(&a), self.apply(&b));
                self.op("arith.addi", &[a, b], index)
            }
            AffineExpr::Mul(a, b) => {
                let (a, b) = (self.apply(&a), self.apply(&b));
                self.op("arith.muli", &[a, b], index)
            }
            AffineExpr::FloorDiv(a, b) => {
                let (a, b) = (self.apply(&a), self.apply(&b));
                self.floor_div(a, b)
            }
            AffineExpr::CeilDiv(a, b) => {
                // ceil(a / b) = -floor(-a / b)
                let (a, b) = (self.apply(&a), self.apply(&b));
                let na = self.neg(a);
                let q = self.floor_div(na, b);
                self.neg(q)
            }
            AffineExpr::Mod(a, b) => {
                let (a, b) = (self.apply(&a), self.apply(&b));
                self.floor_mod(a, b)
            }
        }
    }

    /// Integer division rounding toward negative infinity (positive divisor).
    fn floor_div(&mut self, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        let q = self.op("arith.divsi", &[a, b], ty);
        let r = self.op("arith.remsi", &[a, b], ty);
        let zero = self.constant(0.0, ty);
        let negative = self.cmp(Cmp::Lt, r, zero);
        let one = self.constant(1.0, ty);
        let lower = self.sub(q, one);
        self.select(negative, lower, q)
    }

    /// The modulus with the divisor's sign (positive divisor: in `[0, b)`).
    pub fn floor_mod(&mut self, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        let r = self.op("arith.remsi", &[a, b], ty);
        let zero = self.constant(0.0, ty);
        let negative = self.cmp(Cmp::Lt, r, zero);
        let shifted = self.add(r, b);
        self.select(negative, shifted, r)
    }
}

/// The affine results reading an input of `in_shape` broadcast (numpy rules) to the
/// leading `out_shape.len()` domain dimensions: size-1 dimensions read index 0.
pub(super) fn broadcast_exprs(in_shape: &[i64], out_shape: &[i64]) -> Vec<AffineExpr> {
    let lead = out_shape.len() - in_shape.len().min(out_shape.len());
    in_shape
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            if d == 1 && out_shape.get(lead + k) != Some(&1) {
                AffineExpr::constant(0)
            } else {
                AffineExpr::dim((lead + k) as u32)
            }
        })
        .collect()
}

/// The identity results over the first `rank` domain dimensions.
pub(super) fn identity_exprs(rank: usize) -> Vec<AffineExpr> {
    (0..rank).map(|d| AffineExpr::dim(d as u32)).collect()
}

pub(super) fn shape_of(ctx: &Context, ty: Type) -> Vec<i64> {
    ctx.type_kind(ty)
        .shape()
        .map(<[i64]>::to_vec)
        .unwrap_or_default()
}

pub(super) fn element_of(ctx: &Context, ty: Type) -> Type {
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { element, .. } => *element,
        _ => ty,
    }
}

/// f16 and bf16 compute in f32; every other type in itself.
pub(super) fn compute_type(ctx: &mut Context, element: Type) -> Type {
    match ctx.type_kind(element) {
        TypeKind::Float(FloatKind::F16 | FloatKind::BF16) => ctx.float_type(FloatKind::F32),
        _ => element,
    }
}

fn float_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_kind(ty) {
        TypeKind::Float(FloatKind::F16 | FloatKind::BF16) => Some(16),
        TypeKind::Float(FloatKind::F32) => Some(32),
        TypeKind::Float(FloatKind::F64) => Some(64),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Scalar {
    Float(u32),
    Int(u32),
    Bool,
    Index,
}

fn scalar_kind(ctx: &Context, ty: Type) -> Scalar {
    match ctx.type_kind(ty) {
        TypeKind::Index => Scalar::Index,
        TypeKind::Integer { width: 1, .. } => Scalar::Bool,
        TypeKind::Integer { width, .. } => Scalar::Int(*width),
        _ => Scalar::Float(float_width(ctx, ty).unwrap_or(32)),
    }
}

/// Whether `element` is an ONNX unsigned integer type, which bodies compute on as
/// signless integers with the unsigned arith ops.
pub(super) fn is_unsigned(ctx: &Context, element: Type) -> bool {
    matches!(element_kind(ctx, element), Some(ElementKind::Unsigned(_)))
}

pub(super) fn is_float_type(ctx: &Context, element: Type) -> bool {
    matches!(ctx.type_kind(element), TypeKind::Float(_))
}

/// The attribute of a body constant of `ty` holding `value`: [`scalar_attr`], but of the
/// signless type with the same bits for unsigned `ty`.
fn body_scalar_attr(ctx: &mut Context, ty: Type, value: f64) -> Attr {
    match *ctx.type_kind(ty) {
        TypeKind::Integer {
            width,
            signedness: Signedness::Unsigned,
        } => {
            let bits = int_value(ctx, ty, value);
            let half = 1i128 << (width - 1);
            let signed = if bits >= half { bits - 2 * half } else { bits };
            let scalar = ctx.signless(ty);
            ctx.integer_attr(signed, scalar)
        }
        _ => scalar_attr(ctx, ty, value),
    }
}

/// A scalar attribute of type `ty` holding `value` (integers truncate toward zero).
pub(super) fn scalar_attr(ctx: &mut Context, ty: Type, value: f64) -> Attr {
    match ctx.type_kind(ty).clone() {
        TypeKind::Float(kind) => {
            let bits = bits_from_f64(kind, value).unwrap_or(0);
            ctx.intern_attr(AttrKind::Float { bits, ty })
        }
        _ => {
            let v = int_value(ctx, ty, value);
            ctx.integer_attr(v, ty)
        }
    }
}

/// `value` as the canonical integer of `ty`: the extremes of the type for infinities.
fn int_value(ctx: &Context, ty: Type, value: f64) -> i128 {
    let (width, unsigned) = match ctx.type_kind(ty) {
        TypeKind::Integer { width, signedness } => {
            (*width, *signedness == tb_ir::Signedness::Unsigned)
        }
        _ => (64, false),
    };
    if width == 1 {
        return i128::from(value != 0.0);
    }
    let (lo, hi) = if unsigned {
        (0i128, (1i128 << width) - 1)
    } else {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    };
    if value.is_nan() {
        0
    } else {
        (value as i128).clamp(lo, hi)
    }
}

fn dense_element(ctx: &Context, element: Type, value: f64) -> DenseElement {
    match ctx.type_kind(element) {
        TypeKind::Float(kind) => DenseElement::Float(bits_from_f64(*kind, value).unwrap_or(0)),
        _ => DenseElement::Int(int_value(ctx, element, value)),
    }
}

fn op_state(
    ctx: &mut Context,
    name: &str,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    attrs: Vec<(String, Attr)>,
    num_regions: usize,
    loc: Location,
) -> OperationState {
    let properties = (!attrs.is_empty()).then(|| ctx.dictionary_attr(attrs));
    OperationState {
        name: ctx.intern_op_name(name),
        operands,
        result_types,
        successors: vec![],
        num_regions,
        properties,
        attributes: vec![],
        loc,
    }
}
