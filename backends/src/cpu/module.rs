//! A whole module: its `memref.global`s, the internal versions of its functions and the
//! exported entry points, in one LLVM module.

use inkwell::AddressSpace;
use inkwell::context::Context as LlvmContext;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValue, FunctionValue};
use rustc_hash::FxHashSet;
use tb_ir::attributes::DenseElement;
use tb_ir::{AttrKind, Context, Diagnostic, OpId};

use super::abi::{self, EntryPoint};
use super::buffers::BUFFER_ALIGNMENT;
use super::buffers::checked_byte_size;
use super::function::{declare_internal, define_entry, define_internal, define_packed};
use super::memref::MemRefLayout;
use super::translate::{Error, FunctionTarget, TResult, Translator};
use super::types::ElementKind;

/// What translating a module produced besides the LLVM module.
pub struct Translated {
    /// The exported functions, in program order.
    pub entry_points: Vec<EntryPoint>,
}

/// Options of the translation itself.
#[derive(Clone, Debug, Default)]
pub(crate) struct TranslateOptions {
    /// Also define `tb_<name>_packed` wrappers (for the JIT).
    pub packed_wrappers: bool,
    /// Outline parallel loops into calls of the runtime's thread pool, with this many
    /// threads (0: one per core); `None` emits them as plain loops.
    pub threads: Option<usize>,
    /// The runtime functions are provided at link time (the JIT), so no fallback
    /// definitions are emitted.
    pub runtime_provided: bool,
    /// Translate only these public functions and what they call (`None`: all).
    pub functions: Option<Vec<String>>,
}

fn locate(ir: &Context, op: OpId, error: Error) -> Diagnostic {
    match error {
        Error::Message(m) => {
            Diagnostic::error(ir.op(op).loc, format!("'{}' op {m}", ir.op_name(op)))
        }
        Error::Located(d) => *d,
    }
}

/// The ops directly inside `module`'s body.
fn top_level_ops(ir: &Context, module: OpId) -> Vec<OpId> {
    ir.op(module)
        .regions
        .iter()
        .flat_map(|&r| ir.region(r).blocks.clone())
        .flat_map(|b| ir.block_ops(b).collect::<Vec<_>>())
        .collect()
}

/// Symbols that some `func.call` nested in `op` calls.
fn called_symbols(ir: &Context, op: OpId) -> FxHashSet<String> {
    let mut called = FxHashSet::default();
    ir.walk_nested(op, &mut |op| {
        if ir.op_name(op) == "func.call"
            && let Some(AttrKind::SymbolRef { root, .. }) = ir
                .op_inherent_or_attr(op, "callee")
                .map(|a| ir.attr_kind(a))
        {
            called.insert(root.clone());
        }
    });
    called
}

/// The functions `roots` call, directly or not, and the roots themselves.
fn reachable(ir: &Context, functions: &[(OpId, String)], roots: &[String]) -> FxHashSet<String> {
    let mut seen: FxHashSet<String> = FxHashSet::default();
    let mut work: Vec<String> = roots.to_vec();
    while let Some(name) = work.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some((op, _)) = functions.iter().find(|(_, n)| *n == name) {
            work.extend(called_symbols(ir, *op));
        }
    }
    seen
}

/// Translates `module` (a `builtin.module` of `func.func` and `memref.global` ops) into
/// `llvm_module`.
pub(crate) fn translate_module<'ctx>(
    ir: &Context,
    module: OpId,
    llvm: &'ctx LlvmContext,
    llvm_module: &Module<'ctx>,
    target: FunctionTarget,
    options: &TranslateOptions,
) -> Result<Translated, Diagnostic> {
    let mut tr = Translator::new(
        ir,
        llvm,
        llvm_module,
        &super::translate::CPU_TRANSLATIONS,
        target,
    );
    tr.threads = options.threads.is_some();
    tr.threads_hint = options.threads.unwrap_or(0);
    tr.runtime_provided = options.runtime_provided;
    let called = called_symbols(ir, module);
    let mut functions = Vec::new();
    for op in top_level_ops(ir, module) {
        let name = tb_ir::symbol_table::symbol_name(ir, op)
            .unwrap_or_default()
            .to_owned();
        match ir.op_name(op) {
            "func.func" => functions.push((op, name)),
            "memref.global" => define_global(&mut tr, op, &name).map_err(|e| locate(ir, op, e))?,
            other => {
                return Err(Diagnostic::error(
                    ir.op(op).loc,
                    format!("unsupported op '{other}' in the CPU backend"),
                ));
            }
        }
    }
    if let Some(roots) = &options.functions {
        if let Some(missing) = roots
            .iter()
            .find(|r| !functions.iter().any(|(_, n)| n == *r))
        {
            return Err(Diagnostic::error(
                ir.op(module).loc,
                format!("no function named '{missing}' in the module"),
            ));
        }
        let keep = reachable(ir, &functions, roots);
        functions.retain(|(_, name)| keep.contains(name));
    }
    let exported = |name: &String| {
        options
            .functions
            .as_ref()
            .is_none_or(|roots| roots.contains(name))
    };
    // Entry points first, so their exported names are never taken by internal functions
    // (LLVM renames an internal function whose name is taken).
    let mut entry_points = Vec::new();
    let mut entry_functions: Vec<(OpId, EntryPoint)> = Vec::new();
    for (op, name) in &functions {
        if abi::body(ir, *op).is_some() && abi::is_public(ir, *op) && exported(name) {
            let entry = abi::entry_point(ir, *op, name)?;
            if entry_points
                .iter()
                .any(|e: &EntryPoint| e.symbol == entry.symbol)
            {
                return Err(Diagnostic::error(
                    ir.op(*op).loc,
                    format!(
                        "cannot export @{name}: another function is exported as '{}'",
                        entry.symbol
                    ),
                ));
            }
            entry_points.push(entry.clone());
            entry_functions.push((*op, entry));
        }
    }
    let mut internal = Vec::new();
    for (op, name) in &functions {
        let has_body = abi::body(ir, *op).is_some();
        if !has_body || !abi::is_public(ir, *op) || called.contains(name) || !exported(name) {
            declare_internal(&mut tr, *op, name).map_err(|e| locate(ir, *op, e))?;
            if has_body {
                internal.push((*op, name.clone()));
            }
        }
    }
    for (op, entry) in &entry_functions {
        let function: FunctionValue =
            define_entry(&mut tr, *op, entry).map_err(|e| locate(ir, *op, e))?;
        if options.packed_wrappers {
            define_packed(&mut tr, entry, function).map_err(|e| locate(ir, *op, e))?;
        }
    }
    for (op, name) in &internal {
        define_internal(&mut tr, *op, name).map_err(|e| locate(ir, *op, e))?;
    }
    if let Err(message) = llvm_module.verify() {
        return Err(Diagnostic::error(
            ir.op(module).loc,
            format!(
                "internal error: the CPU backend produced invalid LLVM IR: {}",
                message.to_string()
            ),
        ));
    }
    Ok(Translated { entry_points })
}

/// The little-endian bytes of one dense element of kind `kind`.
fn element_bytes(kind: ElementKind, element: &DenseElement, out: &mut Vec<u8>) -> TResult {
    let bits = match element {
        DenseElement::Int(v) => *v as u128,
        DenseElement::Float(bits) => *bits,
        _ => return Err("complex initial values are not supported by the CPU backend".into()),
    };
    let size = kind.size_in_bytes() as usize;
    out.extend_from_slice(&bits.to_le_bytes()[..size]);
    Ok(())
}

/// A `memref.global` as an LLVM global of its bytes, aligned like heap buffers.
/// The byte size of a `memref.global` and its initial bytes (`None` for an external
/// global without an initial value).
pub(crate) fn global_contents(ir: &Context, op: OpId) -> TResult<(usize, Option<Vec<u8>>)> {
    let attr = |name: &str| ir.op_inherent_or_attr(op, name);
    let ty = match attr("type").map(|a| ir.attr_kind(a)) {
        Some(AttrKind::Type(ty)) => *ty,
        _ => return Err("has no memref type".into()),
    };
    let layout = MemRefLayout::of(ir, ty)?;
    if !layout.is_contiguous() {
        return Err("must have a contiguous layout".into());
    }
    let kind = layout.element_kind(ir)?;
    let size = usize::try_from(checked_byte_size(ir, &layout)?)
        .map_err(|_| "the global is larger than this machine's address space")?;
    let initial = attr("initial_value");
    let bytes: Option<Vec<u8>> = match initial.map(|a| ir.attr_kind(a)) {
        None => None,
        Some(AttrKind::Unit) => Some(vec![0; size]),
        Some(AttrKind::DenseElements { data, .. }) => {
            let mut out = Vec::with_capacity(size);
            let count = size / kind.size_in_bytes().max(1) as usize;
            for i in 0..count {
                let e = if data.splat {
                    data.elements.first()
                } else {
                    data.elements.get(i)
                };
                element_bytes(
                    kind,
                    e.ok_or("initial value has too few elements")?,
                    &mut out,
                )?;
            }
            Some(out)
        }
        Some(AttrKind::DenseResource { handle, .. }) => {
            let blob = ir
                .resources
                .get(handle)
                .ok_or_else(|| format!("dense_resource '{handle}' has no blob in the file"))?;
            if blob.data.len() != size {
                return Err(format!(
                    "dense_resource '{handle}' holds {} bytes, the global needs {size}",
                    blob.data.len()
                )
                .into());
            }
            Some(blob.data.clone())
        }
        Some(_) => return Err("has an initial value the CPU backend does not support".into()),
    };
    Ok((size, bytes))
}

fn define_global(tr: &mut Translator, op: OpId, name: &str) -> TResult {
    let ir = tr.ir;
    let (size, bytes) = global_contents(ir, op)?;
    // An LLVM array type counts its elements in 32 bits.
    let length = u32::try_from(size).map_err(|_| {
        format!("a global of {size} bytes is larger than the 4 GiB the CPU backend supports")
    })?;
    let array = tr.llvm.i8_type().array_type(length);
    let global = tr
        .module
        .add_global(array, Some(AddressSpace::default()), name);
    let alignment = match tr.attr(op, "alignment").map(|a| ir.attr_kind(a)) {
        Some(AttrKind::Integer { value, .. }) => (*value as u64).max(BUFFER_ALIGNMENT),
        _ => BUFFER_ALIGNMENT,
    };
    global.set_alignment(alignment as u32);
    match bytes {
        Some(bytes) => {
            global.set_initializer(&tr.llvm.const_string(&bytes, false).as_basic_value_enum());
            global.set_linkage(if abi::is_public(ir, op) {
                Linkage::External
            } else {
                Linkage::Internal
            });
            global.set_constant(tr.attr(op, "constant").is_some());
        }
        None => global.set_linkage(Linkage::External),
    }
    tr.globals.insert(name.to_owned(), global);
    Ok(())
}
