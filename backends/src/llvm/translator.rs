//! The translator: state shared by the per-dialect translations, op dispatch and errors.
//!
//! Each op is translated by a handler that the target's [`DialectTranslation`]s choose by
//! op kind. A handler reads its operands' LLVM values from the value map, emits
//! instructions at the builder's position and records its results. Errors carry the
//! location of the op that caused them.
//!
//! The target-specific state (the CPU's exported entry points, its thread pool) lives in
//! fields a target leaves unset when it has no such thing.

use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context as LlvmContext;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, GlobalValue, IntValue,
    PhiValue, PointerValue,
};
use rustc_hash::FxHashMap;
use tb_ir::{Attr, BlockId, Context, Diagnostic, OpId, Type, Value};

use super::DialectTranslation;
use crate::cpu::function::EntryState;

/// Why an op could not be translated.
#[derive(Debug)]
pub(crate) enum Error {
    /// A reason to be reported at the op being translated (`'name' op <reason>`).
    Message(String),
    /// A diagnostic that already has its location (from a nested op, or worded on its own).
    Located(Box<Diagnostic>),
}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Error::Message(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Self {
        Error::Message(message.to_owned())
    }
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Self {
        Error::Located(Box::new(diagnostic))
    }
}

impl From<BuilderError> for Error {
    /// The builder fails only on malformed requests (a bug here, not in the input), but the
    /// user still gets a located error rather than a crash.
    fn from(error: BuilderError) -> Self {
        Error::Message(format!("internal error while building LLVM IR: {error}"))
    }
}

pub(crate) type TResult<T = ()> = Result<T, Error>;

/// Translates one op: reads operands from and writes results to the translator's value map.
pub(crate) type Handler = for<'a, 'ctx> fn(&mut Translator<'a, 'ctx>, OpId) -> TResult;

/// The dialect translations of a target, asked in order for each op.
pub(crate) struct Translations {
    /// The target's name in messages (`CPU`).
    pub target: &'static str,
    pub dialects: &'static [&'static dyn DialectTranslation],
}

/// CPU name and feature string every function is compiled for.
#[derive(Clone, Debug)]
pub(crate) struct FunctionTarget {
    pub cpu: String,
    pub features: String,
}

pub(crate) struct Translator<'a, 'ctx> {
    pub ir: &'a Context,
    pub llvm: &'ctx LlvmContext,
    pub module: &'a Module<'ctx>,
    pub builder: Builder<'ctx>,
    /// Chooses each op's handler.
    pub translations: &'static Translations,
    /// LLVM values of the IR values of the function being translated.
    pub values: FxHashMap<Value, BasicValueEnum<'ctx>>,
    /// The LLVM block of each block of the function being translated, with a phi per block
    /// argument (empty for single-block functions and the entry block).
    pub blocks: FxHashMap<BlockId, (BasicBlock<'ctx>, Vec<PhiValue<'ctx>>)>,
    /// The internally callable version of each `func.func`, by symbol.
    pub functions: FxHashMap<String, FunctionValue<'ctx>>,
    /// `memref.global`s, by symbol.
    pub globals: FxHashMap<String, GlobalValue<'ctx>>,
    /// The LLVM function being defined.
    pub function: Option<FunctionValue<'ctx>>,
    /// Set while defining an exported entry point: where results go.
    pub entry: Option<EntryState<'ctx>>,
    pub target: FunctionTarget,
    /// Outline parallel loops into runtime calls.
    pub threads: bool,
    /// The thread count parallel loops ask the runtime for (0: one per core).
    pub threads_hint: usize,
    /// The runtime's symbols are provided at link time (no fallbacks are defined).
    pub runtime_provided: bool,
}

impl<'a, 'ctx> Translator<'a, 'ctx> {
    pub fn new(
        ir: &'a Context,
        llvm: &'ctx LlvmContext,
        module: &'a Module<'ctx>,
        translations: &'static Translations,
        target: FunctionTarget,
    ) -> Self {
        Translator {
            ir,
            llvm,
            module,
            builder: llvm.create_builder(),
            translations,
            values: FxHashMap::default(),
            blocks: FxHashMap::default(),
            functions: FxHashMap::default(),
            globals: FxHashMap::default(),
            function: None,
            entry: None,
            target,
            threads: false,
            threads_hint: 0,
            runtime_provided: false,
        }
    }

    /// Translates the ops of `block` in order, stopping before its terminator when
    /// `skip_terminator` (loop bodies end with `loop.yield`, which needs no code).
    pub fn translate_block(&mut self, block: BlockId, skip_terminator: bool) -> TResult {
        for op in self.ir.block_ops(block) {
            if skip_terminator && Some(op) == self.ir.block(block).last {
                break;
            }
            self.translate_op(op)?;
        }
        Ok(())
    }

    pub fn translate_op(&mut self, op: OpId) -> TResult {
        let ir = self.ir;
        let name = ir.op_name(op);
        let loc = ir.op(op).loc;
        let target = self.translations.target;
        let handler = self
            .translations
            .dialects
            .iter()
            .find_map(|d| d.handler(ir, op));
        let Some(handler) = handler else {
            return Err(Diagnostic::error(
                loc,
                format!("unsupported op '{name}' in the {target} backend"),
            )
            .into());
        };
        handler(self, op).map_err(|e| match e {
            Error::Message(m) => Diagnostic::error(loc, format!("'{name}' op {m}")).into(),
            located => located,
        })
    }

    // ---- values ----

    pub fn value(&self, v: Value) -> TResult<BasicValueEnum<'ctx>> {
        self.values
            .get(&v)
            .copied()
            .ok_or_else(|| Error::from("uses a value the CPU backend has not translated"))
    }

    pub fn operand(&self, op: OpId, i: usize) -> TResult<BasicValueEnum<'ctx>> {
        let v = *self
            .ir
            .op(op)
            .operands
            .get(i)
            .ok_or_else(|| format!("has no operand #{i}"))?;
        self.value(v)
    }

    pub fn operand_type(&self, op: OpId, i: usize) -> TResult<Type> {
        let v = *self
            .ir
            .op(op)
            .operands
            .get(i)
            .ok_or_else(|| format!("has no operand #{i}"))?;
        Ok(self.ir.value_type(v))
    }

    pub fn result_type(&self, op: OpId, i: usize) -> TResult<Type> {
        let v = *self
            .ir
            .op(op)
            .results
            .get(i)
            .ok_or_else(|| format!("has no result #{i}"))?;
        Ok(self.ir.value_type(v))
    }

    /// The operands of `op` from position `first` on (none if it has fewer).
    pub fn operands_from(&self, op: OpId, first: usize) -> &'a [Value] {
        self.ir.op(op).operands.get(first..).unwrap_or_default()
    }

    pub fn pointer_operand(&self, op: OpId, i: usize) -> TResult<PointerValue<'ctx>> {
        match self.operand(op, i)? {
            BasicValueEnum::PointerValue(p) => Ok(p),
            _ => Err(format!("operand #{i} is not a buffer").into()),
        }
    }

    pub fn int_value(&self, v: Value) -> TResult<IntValue<'ctx>> {
        match self.value(v)? {
            BasicValueEnum::IntValue(i) => Ok(i),
            _ => Err("expects an integer or index value".into()),
        }
    }

    pub fn set_result(&mut self, op: OpId, i: usize, value: impl BasicValue<'ctx>) -> TResult {
        let v = *self
            .ir
            .op(op)
            .results
            .get(i)
            .ok_or_else(|| format!("has no result #{i}"))?;
        self.values.insert(v, value.as_basic_value_enum());
        Ok(())
    }

    /// The LLVM type of values of IR type `ty`.
    pub fn llvm_type(&self, ty: Type) -> TResult<BasicTypeEnum<'ctx>> {
        Ok(super::types::value_type(self.llvm, self.ir, ty)?)
    }

    pub fn attr(&self, op: OpId, name: &str) -> Option<Attr> {
        self.ir.op_inherent_or_attr(op, name)
    }

    // ---- building blocks ----

    pub fn i64_const(&self, value: i64) -> IntValue<'ctx> {
        self.llvm.i64_type().const_int(value as u64, true)
    }

    pub fn current_function(&self) -> TResult<FunctionValue<'ctx>> {
        self.function
            .ok_or_else(|| Error::from("is not inside a function"))
    }

    /// A builder at the start of the current function's entry block, where stack slots go
    /// (an `alloca` elsewhere, inside a loop, would take new stack space each iteration).
    pub fn entry_builder(&self) -> TResult<Builder<'ctx>> {
        let entry = self
            .current_function()?
            .get_first_basic_block()
            .ok_or("function has no entry block")?;
        let builder = self.llvm.create_builder();
        match entry.get_first_instruction() {
            Some(first) => builder.position_before(&first),
            None => builder.position_at_end(entry),
        }
        Ok(builder)
    }

    /// Calls the LLVM intrinsic `name` overloaded on `types`.
    pub fn call_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> TResult<BasicValueEnum<'ctx>> {
        let call = self.build_intrinsic_call(name, types, args)?;
        call.try_as_basic_value()
            .basic()
            .ok_or_else(|| format!("'{name}' returns no value").into())
    }

    /// A call to the intrinsic `name` (overloaded on `types`), declared on first use.
    fn build_intrinsic_call(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> TResult<inkwell::values::CallSiteValue<'ctx>> {
        let intrinsic =
            Intrinsic::find(name).ok_or_else(|| format!("LLVM has no intrinsic '{name}'"))?;
        let declaration = intrinsic
            .get_declaration(self.module, types)
            .ok_or_else(|| format!("cannot declare '{name}' for these types"))?;
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        Ok(self.builder.build_call(declaration, &args, "")?)
    }

    /// A call to the intrinsic `name` that returns nothing.
    pub fn call_void_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> TResult {
        self.build_intrinsic_call(name, types, args)?;
        Ok(())
    }

    /// A call to the C library function `name` (declared on first use).
    pub fn call_libc(
        &self,
        name: &str,
        ret: Option<BasicTypeEnum<'ctx>>,
        args: &[BasicValueEnum<'ctx>],
    ) -> TResult<Option<BasicValueEnum<'ctx>>> {
        let function = match self.module.get_function(name) {
            Some(f) => f,
            None => {
                let params: Vec<_> = args.iter().map(|a| a.get_type().into()).collect();
                let fn_type = match ret {
                    Some(t) => t.fn_type(&params, false),
                    None => self.llvm.void_type().fn_type(&params, false),
                };
                self.module.add_function(name, fn_type, None)
            }
        };
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        let call = self.builder.build_call(function, &args, "")?;
        Ok(call.try_as_basic_value().basic())
    }
}
