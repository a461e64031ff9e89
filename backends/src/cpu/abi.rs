//! The C ABI of compiled modules: what each exported entry point takes.
//!
//! Every public `func.func` with a body is exported as `int32_t tb_<name>(inputs..., outputs...)`:
//!
//! - a memref argument is a pointer to its data, contiguous and row-major, of the static
//!   shape its type gives (arguments must have the identity layout);
//! - a scalar argument is passed by value (`index` as `int64_t`, `i1` as `bool`);
//! - each result, memref or scalar, is written through a caller-provided pointer appended
//!   after the inputs: a buffer of the result's shape, or one element for a scalar;
//! - buffers must not overlap, except inputs the function only reads;
//! - the return value is the call's status: 0, or the code of the first run-time check on
//!   the data that failed (an out-of-range Gather index), whose message
//!   [`EntryPoint::status`] holds. A function's status result
//!   ([`tb_dialects::entry_status`]) is that return value, not an output pointer.
//!
//! For the JIT, each entry point also gets `int32_t tb_<name>_packed(void **args)`, which takes
//! the same parameters as an array of pointers (a buffer's data pointer, or a pointer to a
//! scalar's value) so one Rust signature can call any function.

use std::fmt;

use tb_ir::printer::type_to_string;
use tb_ir::{BlockId, Context, Diagnostic, OpId, TypeKind, Value};

use super::memref::MemRefLayout;
use super::types::ElementKind;
pub use tb_dialects::entry_status::EntryStatus;

/// Whether a parameter carries an argument in or a result out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Input,
    Output,
}

/// One parameter of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbiParam {
    pub role: Role,
    pub element: ElementKind,
    /// The buffer's shape; `None` for a scalar input (an output is always a pointer; a
    /// scalar output has shape `[]`, one element).
    pub shape: Option<Vec<i64>>,
    /// The IR type, as MLIR prints it.
    pub ir_type: String,
    /// An input buffer the function never writes (`const` in the header).
    pub read_only: bool,
    /// The name the model gave it (`{onnx.name = ...}` in the function's argument or
    /// result attributes), if any.
    pub name: Option<String>,
}

impl AbiParam {
    /// Whether the parameter is passed as a pointer.
    pub fn is_pointer(&self) -> bool {
        self.shape.is_some()
    }

    /// Elements in the buffer (1 for scalars); `None` when a dimension is negative or the
    /// count does not fit in `usize`.
    pub fn num_elements(&self) -> Option<usize> {
        let Some(shape) = &self.shape else {
            return Some(1);
        };
        let dims = shape
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<Vec<usize>>>()?;
        if dims.contains(&0) {
            return Some(0);
        }
        dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }

    /// Bytes the buffer (or scalar) takes; `None` when that does not fit in `isize` (no
    /// allocation can be larger).
    pub fn byte_size(&self) -> Option<usize> {
        self.num_elements()?
            .checked_mul(self.element.size_in_bytes() as usize)
            .filter(|&b| isize::try_from(b).is_ok())
    }
}

/// One exported function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The `func.func`'s symbol.
    pub name: String,
    /// The exported C symbol, `tb_<name>`.
    pub symbol: String,
    /// Inputs in argument order, then outputs in result order (without the status).
    pub params: Vec<AbiParam>,
    /// Which result is the returned status and what its codes mean; `None` when the
    /// function checks nothing at run time (it always returns 0).
    pub status: Option<EntryStatus>,
}

impl EntryPoint {
    pub fn inputs(&self) -> impl Iterator<Item = &AbiParam> {
        self.params.iter().filter(|p| p.role == Role::Input)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &AbiParam> {
        self.params.iter().filter(|p| p.role == Role::Output)
    }

    /// The symbol of the packed wrapper the JIT calls.
    pub fn packed_symbol(&self) -> String {
        format!("{}_packed", self.symbol)
    }
}

impl fmt::Display for EntryPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.symbol)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            let role = match p.role {
                Role::Input => "in",
                Role::Output => "out",
            };
            write!(f, "{role} {}", p.ir_type)?;
        }
        f.write_str(")")
    }
}

/// The C identifier a symbol is exported under: `tb_` and the name with every character
/// C does not allow in identifiers replaced by `_`.
pub fn c_symbol(name: &str) -> String {
    let body: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("tb_{body}")
}

/// The argument and result types of a `func.func`.
pub(crate) fn signature(ir: &Context, func: OpId) -> Option<(Vec<tb_ir::Type>, Vec<tb_ir::Type>)> {
    tb_dialects::func::signature(ir, func)
}

/// The body block of a `func.func`, `None` for a declaration.
pub(crate) fn body(ir: &Context, func: OpId) -> Option<BlockId> {
    ir.op(func).regions.first().and_then(|&r| ir.entry_block(r))
}

/// Whether a function is visible outside the module (not `private` or `nested`).
pub(crate) fn is_public(ir: &Context, func: OpId) -> bool {
    ir.op_inherent_or_attr(func, "sym_visibility")
        .and_then(|a| ir.attr_as_str(a))
        .is_none_or(|v| v == "public")
}

/// The entry point of the public function `func`, or why its signature cannot cross the C
/// ABI (reported at the function).
pub(crate) fn entry_point(ir: &Context, func: OpId, name: &str) -> Result<EntryPoint, Diagnostic> {
    let loc = ir.op(func).loc;
    let fail = |m: String| Diagnostic::error(loc, format!("cannot export @{name}: {m}"));
    let (inputs, results) =
        signature(ir, func).ok_or_else(|| fail("it has no function type".into()))?;
    let args: Vec<Value> = body(ir, func)
        .map(|b| ir.block(b).args.to_vec())
        .unwrap_or_default();
    let status = tb_dialects::entry_status::entry_status(ir, func);
    if let Some(status) = &status {
        let ty = results.get(status.result).copied();
        let is_i32 =
            |t: tb_ir::Type| matches!(ir.type_kind(t), TypeKind::Integer { width: 32, .. });
        let ok = ty.is_some_and(|t| match ir.type_kind(t) {
            TypeKind::MemRef { shape, element, .. } => shape.is_empty() && is_i32(*element),
            _ => is_i32(t),
        });
        if !ok {
            return Err(fail(format!(
                "its status result #{} must be an i32 or a memref<i32>",
                status.result
            )));
        }
    }
    let mut params = Vec::with_capacity(inputs.len() + results.len());
    for (role, types) in [(Role::Input, &inputs), (Role::Output, &results)] {
        for (i, &ty) in types.iter().enumerate() {
            if role == Role::Output && status.as_ref().is_some_and(|s| s.result == i) {
                continue;
            }
            let what = match role {
                Role::Input => format!("argument #{i}"),
                Role::Output => format!("result #{i}"),
            };
            let ir_type = type_to_string(ir, ty);
            let param = match ir.type_kind(ty) {
                TypeKind::MemRef { .. } => {
                    let layout =
                        MemRefLayout::of(ir, ty).map_err(|m| fail(format!("{what}: {m}")))?;
                    if role == Role::Input && !layout.is_contiguous() {
                        return Err(fail(format!(
                            "{what} of type '{ir_type}' is not a contiguous buffer"
                        )));
                    }
                    let element = layout
                        .element_kind(ir)
                        .map_err(|m| fail(format!("{what}: {m}")))?;
                    let read_only =
                        role == Role::Input && args.get(i).is_some_and(|&a| !may_write(ir, a));
                    AbiParam {
                        role,
                        element,
                        shape: Some(layout.shape),
                        ir_type,
                        read_only,
                        name: param_name(ir, func, role, i),
                    }
                }
                TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_) => AbiParam {
                    role,
                    element: ElementKind::of(ir, ty).map_err(|m| fail(format!("{what}: {m}")))?,
                    shape: (role == Role::Output).then(Vec::new),
                    ir_type,
                    read_only: false,
                    name: param_name(ir, func, role, i),
                },
                _ => {
                    return Err(fail(format!(
                        "{what} has type '{ir_type}'; only memrefs and scalars cross the C ABI"
                    )));
                }
            };
            if param.byte_size().is_none() {
                return Err(fail(format!(
                    "{what} of type '{}' takes more than 2^63 - 1 bytes",
                    param.ir_type
                )));
            }
            params.push(param);
        }
    }
    Ok(EntryPoint {
        name: name.to_owned(),
        symbol: c_symbol(name),
        params,
        status,
    })
}

/// The `onnx.name` of argument or result `index` of `func`, from its `arg_attrs` or
/// `res_attrs`.
fn param_name(ir: &Context, func: OpId, role: Role, index: usize) -> Option<String> {
    let key = match role {
        Role::Input => "arg_attrs",
        Role::Output => "res_attrs",
    };
    let all = ir.op_inherent_or_attr(func, key)?;
    let tb_ir::AttrKind::Array(dicts) = ir.attr_kind(all) else {
        return None;
    };
    let name = ir.dictionary_get(*dicts.get(index)?, "onnx.name")?;
    ir.attr_as_str(name).map(str::to_owned)
}

/// Ops whose result is a view of their first operand's buffer.
fn is_view(name: &str) -> bool {
    matches!(
        name,
        "memref.cast"
            | "memref.subview"
            | "memref.reinterpret_cast"
            | "memref.collapse_shape"
            | "memref.expand_shape"
            | "memref.assume_alignment"
    )
}

/// Whether the buffer `value` (or a view of it) may be written, freed or escape.
fn may_write(ir: &Context, value: Value) -> bool {
    ir.value(value).uses.iter().any(|u| {
        let name = ir.op_name(u.op);
        let index = u.index as usize;
        match name {
            "loop.load" | "loop.vector_load" | "memref.load" | "memref.dim" | "memref.rank" => {
                false
            }
            "loop.store" | "loop.vector_store" | "memref.store" => index == 1,
            "memref.copy" => index == 1,
            _ if is_view(name) => ir.op(u.op).results.iter().any(|&r| may_write(ir, r)),
            _ => true,
        }
    })
}
