//! The IR interpreter: executes `func`, `arith`, `math`, `memref`, `graph`, `te` and `loop`
//! ops on concrete values, the oracle every lowering is checked against.
//!
//! Values live in an environment keyed by SSA value. Each op resolves once, by its op kind
//! (the dialect's enum, [`tb_ir::ods::OpKind`]), to a handler (a plain function per op, kept
//! in a table by interned name), so the per-op cost in hot `te.compute` bodies and loop
//! nests is a hash lookup and the op's own arithmetic. The tables are exhaustive matches
//! over the kinds: a dialect op without a handler is a compile error.
//! Errors carry the location of the op that failed: out-of-bounds accesses, reads of freed
//! buffers, division by zero and unsupported ops are reported, never executed silently.

mod affine;
mod arith;
mod async_copy;
mod attr;
pub mod buffer;
mod cf;
mod func;
mod gpu;
mod graph;
mod loop_;
mod math;
mod memref;
mod scf;
mod te;
pub mod value;
mod vector;

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use tb_dialects::affine::AffineOp;
use tb_dialects::arith::ArithOp;
use tb_dialects::cf::CfOp;
use tb_dialects::func::FuncOp;
use tb_dialects::gpu::GpuOp;
use tb_dialects::graph::GraphOp;
use tb_dialects::loop_::LoopOp;
use tb_dialects::math::MathOp;
use tb_dialects::memref::MemRefOp;
use tb_dialects::scf::ScfOp;
use tb_dialects::te::TeOp;
use tb_ir::ods::OpKind;
use tb_ir::operation::OpName;
use tb_ir::{BlockId, Context, Diagnostic, OpId, Value};

pub use attr::attr_to_value;
use buffer::Buffer;
pub use func::signature as func_signature;
pub use value::{ElemType, RtValue, Scalar};

use crate::tensor::Tensor;

/// The values of one function activation.
pub type Env = FxHashMap<Value, RtValue>;

/// Why an op could not run.
#[derive(Debug)]
pub enum ExecError {
    /// A reason to be reported at the op being executed.
    Message(String),
    /// A diagnostic that already has its location (from a nested op).
    Located(Box<Diagnostic>),
}

impl From<String> for ExecError {
    fn from(message: String) -> Self {
        ExecError::Message(message)
    }
}

impl From<&str> for ExecError {
    fn from(message: &str) -> Self {
        ExecError::Message(message.to_string())
    }
}

pub type ExecResult<T = ()> = Result<T, ExecError>;

/// Executes one op: reads its operands from `env`, writes its results there.
pub(crate) type Handler = fn(&mut Interpreter, &mut Env, OpId) -> ExecResult;

/// Bounds recursion through `func.call` so runaway recursion is an error, not a crash.
const MAX_CALL_DEPTH: usize = 256;
/// Branches one region may take in one run before the interpreter calls it an endless
/// loop, unless `TB_MAX_BRANCHES` says otherwise.
const MAX_BRANCHES: u64 = 100_000_000;

/// The branch limit: `TB_MAX_BRANCHES` (a positive integer) or [`MAX_BRANCHES`].
fn max_branches() -> Result<u64, String> {
    static LIMIT: std::sync::OnceLock<Result<u64, String>> = std::sync::OnceLock::new();
    LIMIT
        .get_or_init(|| match std::env::var("TB_MAX_BRANCHES") {
            Err(_) => Ok(MAX_BRANCHES),
            Ok(text) => text
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("TB_MAX_BRANCHES={text:?} is not a positive integer")),
        })
        .clone()
}

pub struct Interpreter<'a> {
    pub(crate) ctx: &'a Context,
    module: OpId,
    functions: HashMap<String, OpId>,
    globals: HashMap<String, Buffer>,
    handlers: FxHashMap<OpName, Option<Handler>>,
    /// The iteration indices of the `te.compute` bodies being evaluated, innermost last.
    pub(crate) te_domains: Vec<Vec<i64>>,
    call_depth: usize,
    /// Inside a launch with workgroup buffers: who touched which of their elements in the
    /// current phase, to report races (see `gpu::SharedAccesses`).
    pub(crate) shared: Option<gpu::SharedAccesses>,
}

impl<'a> Interpreter<'a> {
    /// An interpreter for the functions of `module` (a `builtin.module`, or any op whose
    /// first region holds `func.func` ops).
    pub fn new(ctx: &'a Context, module: OpId) -> Interpreter<'a> {
        let mut functions = HashMap::new();
        let mut globals_ops = Vec::new();
        for &region in &ctx.op(module).regions {
            for &block in &ctx.region(region).blocks {
                for op in ctx.block_ops(block) {
                    let name = ctx.op_name(op);
                    if let Some(sym) = tb_ir::symbol_table::symbol_name(ctx, op) {
                        if name == "func.func" {
                            functions.insert(sym.to_string(), op);
                        } else if name == "memref.global" {
                            globals_ops.push((sym.to_string(), op));
                        }
                    }
                }
            }
        }
        let mut interp = Interpreter {
            ctx,
            module,
            functions,
            globals: HashMap::new(),
            handlers: FxHashMap::default(),
            te_domains: Vec::new(),
            call_depth: 0,
            shared: None,
        };
        for (name, op) in globals_ops {
            // A malformed global is reported when code uses it.
            if let Ok(buffer) = memref::global_buffer(&interp, op) {
                interp.globals.insert(name, buffer);
            }
        }
        interp
    }

    /// The names of the module's functions that have a body, in program order.
    pub fn function_names(&self) -> Vec<String> {
        let mut named: Vec<(&String, &OpId)> = self
            .functions
            .iter()
            .filter(|(_, op)| !self.ctx.op(**op).regions.is_empty())
            .filter(|(_, op)| func::body(self.ctx, **op).is_some())
            .collect();
        named.sort_by_key(|(_, op)| **op);
        named.into_iter().map(|(n, _)| n.clone()).collect()
    }

    /// The functions with a body that code outside the module can call (not
    /// `private`): what a transformation must preserve.
    pub fn public_function_names(&self) -> Vec<String> {
        let ctx = self.ctx;
        self.function_names()
            .into_iter()
            .filter(|name| {
                let op = self.functions[name];
                ctx.op_inherent_or_attr(op, "sym_visibility")
                    .and_then(|a| ctx.attr_as_str(a))
                    != Some("private")
            })
            .collect()
    }

    /// The `func.func` named `name`.
    pub fn function(&self, name: &str) -> Option<OpId> {
        self.functions.get(name).copied()
    }

    /// Runs function `name` on `args` (tensors for tensor and memref arguments, 0-d tensors
    /// or scalars for scalar ones) and returns its results as tensors.
    pub fn run_function(&mut self, name: &str, args: &[Tensor]) -> Result<Vec<Tensor>, Diagnostic> {
        let func = self.function(name).ok_or_else(|| {
            Diagnostic::error(
                self.ctx.op(self.module).loc,
                format!("no function named '{name}' in the module"),
            )
        })?;
        let loc = self.ctx.op(func).loc;
        let (inputs, outputs) = func::signature(self.ctx, func)
            .ok_or_else(|| Diagnostic::error(loc, format!("'{name}' has no function type")))?;
        if inputs.len() != args.len() {
            return Err(Diagnostic::error(
                loc,
                format!(
                    "'{name}' takes {} arguments, {} were given",
                    inputs.len(),
                    args.len()
                ),
            ));
        }
        let mut values = Vec::with_capacity(args.len());
        for (i, (&ty, arg)) in inputs.iter().zip(args).enumerate() {
            let value = attr::tensor_as_argument(self.ctx, ty, arg)
                .map_err(|m| Diagnostic::error(loc, format!("argument #{i} of '{name}': {m}")))?;
            values.push(value);
        }
        let results = self.call(func, values)?;
        let mut tensors = results
            .into_iter()
            .zip(outputs)
            .enumerate()
            .map(|(i, (v, ty))| {
                value_to_tensor(self.ctx, ty, v)
                    .map_err(|m| Diagnostic::error(loc, format!("result #{i} of '{name}': {m}")))
            })
            .collect::<Result<Vec<Tensor>, Diagnostic>>()?;
        // The status result reports failed run-time checks; it is not an output.
        if let Some(status) = tb_dialects::entry_status::entry_status(self.ctx, func)
            && status.result < tensors.len()
        {
            let code = tensors.remove(status.result);
            let code = code.to_f64_vec().first().copied().unwrap_or(0.0) as i64;
            if code != 0 {
                return Err(Diagnostic::error(
                    loc,
                    format!("'{name}': {} (status {code})", status.message(code)),
                ));
            }
        }
        Ok(tensors)
    }

    /// Calls `func` with run-time arguments.
    pub(crate) fn call(
        &mut self,
        func: OpId,
        args: Vec<RtValue>,
    ) -> Result<Vec<RtValue>, Diagnostic> {
        let loc = self.ctx.op(func).loc;
        let body = func::body(self.ctx, func).ok_or_else(|| {
            Diagnostic::error(loc, "cannot call a function declaration: it has no body")
        })?;
        if self.call_depth >= MAX_CALL_DEPTH {
            return Err(Diagnostic::error(
                loc,
                format!("call depth exceeds {MAX_CALL_DEPTH}: runaway recursion?"),
            ));
        }
        self.call_depth += 1;
        let mut env = Env::default();
        let result = self.run_block(&mut env, body, args);
        self.call_depth -= 1;
        result
    }

    /// Binds `args` to the block's arguments, runs its ops and returns the operands of the
    /// terminator that leaves the region. A `cf` branch continues in the block it chooses
    /// (of the same region, so values defined before stay in `env`).
    pub(crate) fn run_block(
        &mut self,
        env: &mut Env,
        block: BlockId,
        args: Vec<RtValue>,
    ) -> Result<Vec<RtValue>, Diagnostic> {
        let ctx = self.ctx;
        let mut block = block;
        let mut args = args;
        let mut branches: u64 = 0;
        'blocks: loop {
            for (&arg, value) in ctx.block(block).args.iter().zip(args) {
                env.insert(arg, value);
            }
            for op in ctx.block_ops(block) {
                let data = ctx.op(op);
                if !data.successors.is_empty() {
                    (block, args) = cf::successor(self, env, op)?;
                    branches += 1;
                    let limit = max_branches().map_err(|m| Diagnostic::error(data.loc, m))?;
                    if branches > limit {
                        return Err(Diagnostic::error(
                            data.loc,
                            format!(
                                "'{}' op: more than {limit} branches taken in one region: an endless loop? (TB_MAX_BRANCHES raises the limit)",
                                ctx.op_name(op)
                            ),
                        ));
                    }
                    continue 'blocks;
                }
                if is_terminator(ctx, op) {
                    return data
                        .operands
                        .iter()
                        .map(|&v| self.operand_value(env, op, v))
                        .collect();
                }
                self.run_op(env, op)?;
            }
            return Ok(Vec::new());
        }
    }

    /// Runs a region's single block in the current environment (loop and compute bodies see
    /// the values defined above them).
    pub(crate) fn run_nested_block(
        &mut self,
        env: &mut Env,
        block: BlockId,
        args: Vec<RtValue>,
    ) -> Result<Vec<RtValue>, Diagnostic> {
        self.run_block(env, block, args)
    }

    fn operand_value(&self, env: &Env, op: OpId, v: Value) -> Result<RtValue, Diagnostic> {
        env.get(&v).cloned().ok_or_else(|| {
            Diagnostic::error(
                self.ctx.op(op).loc,
                format!(
                    "'{}' op uses a value that has not been computed",
                    self.ctx.op_name(op)
                ),
            )
        })
    }

    /// Refuses an op whose tensor or buffer results would not fit the memory budget, before
    /// its handler allocates them.
    fn check_result_sizes(&self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for (i, &result) in ctx.op(op).results.iter().enumerate() {
            if let Err(why) = crate::budget::check_type(ctx, ctx.value_type(result)) {
                return Err(Diagnostic::error(
                    ctx.op(op).loc,
                    format!("'{}' op result #{i}: {why}", ctx.op_name(op)),
                ));
            }
        }
        Ok(())
    }

    /// Executes one op.
    pub fn run_op(&mut self, env: &mut Env, op: OpId) -> Result<(), Diagnostic> {
        let name = self.ctx.op(op).name;
        let handler = match self.handlers.get(&name) {
            Some(h) => *h,
            None => {
                let h = handler_for(self.ctx, op);
                self.handlers.insert(name, h);
                h
            }
        };
        let Some(handler) = handler else {
            return Err(Diagnostic::error(
                self.ctx.op(op).loc,
                format!(
                    "'{}' is not supported by the interpreter",
                    self.ctx.op_name(op)
                ),
            ));
        };
        self.check_result_sizes(op)?;
        handler(self, env, op).map_err(|e| match e {
            ExecError::Located(d) => *d,
            ExecError::Message(m) => Diagnostic::error(
                self.ctx.op(op).loc,
                format!("'{}' op {m}", self.ctx.op_name(op)),
            ),
        })
    }

    // ---- helpers for handlers ----

    /// Operand `i` of `op`.
    pub(crate) fn arg<'e>(&self, env: &'e Env, op: OpId, i: usize) -> ExecResult<&'e RtValue> {
        let v = *self
            .ctx
            .op(op)
            .operands
            .get(i)
            .ok_or_else(|| format!("has no operand #{i}"))?;
        env.get(&v)
            .ok_or_else(|| ExecError::Message(format!("operand #{i} has not been computed")))
    }

    pub(crate) fn scalar_arg(&self, env: &Env, op: OpId, i: usize) -> ExecResult<Scalar> {
        match self.arg(env, op, i)? {
            RtValue::Scalar(s) => Ok(*s),
            other => {
                Err(format!("operand #{i} is {}, expected a scalar", other.kind_name()).into())
            }
        }
    }

    pub(crate) fn index_arg(&self, env: &Env, op: OpId, i: usize) -> ExecResult<i64> {
        Ok(self.scalar_arg(env, op, i)?.as_int())
    }

    pub(crate) fn tensor_arg<'e>(
        &self,
        env: &'e Env,
        op: OpId,
        i: usize,
    ) -> ExecResult<&'e Tensor> {
        match self.arg(env, op, i)? {
            RtValue::Tensor(t) => Ok(t),
            other => {
                Err(format!("operand #{i} is {}, expected a tensor", other.kind_name()).into())
            }
        }
    }

    pub(crate) fn buffer_arg(&self, env: &Env, op: OpId, i: usize) -> ExecResult<Buffer> {
        match self.arg(env, op, i)? {
            RtValue::Buffer(b) => Ok(b.clone()),
            other => {
                Err(format!("operand #{i} is {}, expected a buffer", other.kind_name()).into())
            }
        }
    }

    pub(crate) fn set_result(
        &self,
        env: &mut Env,
        op: OpId,
        i: usize,
        value: RtValue,
    ) -> ExecResult {
        let v = *self
            .ctx
            .op(op)
            .results
            .get(i)
            .ok_or_else(|| format!("has no result #{i}"))?;
        env.insert(v, value);
        Ok(())
    }

    /// The element type of operand `i` (or of its elements).
    pub(crate) fn operand_elem(&self, op: OpId, i: usize) -> ExecResult<ElemType> {
        let v = self.ctx.op(op).operands[i];
        Ok(ElemType::of(self.ctx, self.ctx.value_type(v))?)
    }

    pub(crate) fn result_elem(&self, op: OpId, i: usize) -> ExecResult<ElemType> {
        let v = self.ctx.op(op).results[i];
        Ok(ElemType::of(self.ctx, self.ctx.value_type(v))?)
    }

    pub(crate) fn result_type(&self, op: OpId, i: usize) -> tb_ir::Type {
        self.ctx.value_type(self.ctx.op(op).results[i])
    }

    pub(crate) fn global(&self, name: &str) -> Option<&Buffer> {
        self.globals.get(name)
    }
}

/// Whether `op` ends its block (its operands are the block's results).
fn is_terminator(ctx: &Context, op: OpId) -> bool {
    ctx.op_traits(op).is_some_and(|t| t.terminator)
}

/// The handler of `op`, chosen by its op kind: each dialect's table is an exhaustive match,
/// so an op added to a dialect without its handler does not compile. `None` for ops the
/// interpreter does not run (declarations, terminators, ops of other dialects).
fn handler_for(ctx: &Context, op: OpId) -> Option<Handler> {
    if let Some(kind) = ArithOp::of(ctx, op) {
        return Some(arith::handler(kind));
    }
    if let Some(kind) = MathOp::of(ctx, op) {
        return Some(math::handler(kind));
    }
    if let Some(kind) = FuncOp::of(ctx, op) {
        return func::handler(kind);
    }
    if let Some(kind) = CfOp::of(ctx, op) {
        return cf::handler(kind);
    }
    if let Some(kind) = AffineOp::of(ctx, op) {
        return affine::handler(kind);
    }
    if let Some(kind) = MemRefOp::of(ctx, op) {
        return memref::handler(kind);
    }
    if let Some(kind) = TeOp::of(ctx, op) {
        return te::handler(kind);
    }
    if let Some(kind) = LoopOp::of(ctx, op) {
        return loop_::handler(kind);
    }
    if let Some(kind) = ScfOp::of(ctx, op) {
        return scf::handler(kind);
    }
    if let Some(kind) = GpuOp::of(ctx, op) {
        return gpu::handler(kind);
    }
    if let Some(kind) = tb_dialects::vector::VectorOp::of(ctx, op) {
        return vector::handler(kind);
    }
    if let Some(kind) = tb_dialects::nvgpu::NvgpuOp::of(ctx, op) {
        return async_copy::handler(kind).or(Some(gpu::mma_outside_lockstep));
    }
    if GraphOp::of(ctx, op).is_some() {
        return Some(graph::run);
    }
    (ctx.op_name(op) == "builtin.unrealized_conversion_cast")
        .then_some(func::forward_cast as Handler)
}

/// A value of type `ty` as a tensor: scalars become 0-d tensors, buffers are copied out.
pub fn value_to_tensor(ctx: &Context, ty: tb_ir::Type, value: RtValue) -> Result<Tensor, String> {
    match value {
        RtValue::Tensor(t) => Ok(t),
        RtValue::Buffer(b) => b.to_tensor(),
        RtValue::Scalar(s) => {
            let mut data = crate::tensor::TensorData::zeros(ElemType::of(ctx, ty)?.dtype()?, 1);
            value::write_element(&mut data, 0, s);
            Tensor::new(Vec::new(), data).map_err(|e| e.0)
        }
    }
}
