//! The memory budget of `tb-run`'s inputs and buffers: what the tool is about to allocate is
//! checked against the interpreter's budget (`TB_MAX_MEMORY`, else the memory available;
//! [`tb_interpreter::budget`]) first, so a tensor that cannot be held is an error naming it
//! rather than an allocation that aborts the process.

use std::io::Read;
use std::path::Path;

use tb_backends::cpu::{AbiParam, EntryPoint};
use tb_interpreter::budget::{check_size, check_type};
use tb_interpreter::{Tensor, parse_npy};
use tb_ir::{Context, Diagnostic, OpId, Type};

/// Room for a `.npy` header (numpy writes at most 64 KiB of it) above the data itself.
const NPY_HEADER_ROOM: u64 = 1 << 20;

/// The widest element an input file may hold (f64, i64), used to bound what is read before
/// its element type is checked against the argument's.
const WIDEST_ELEMENT_BYTES: u64 = 8;

/// Each of `types` (the arguments or results of a function; `what` is `argument` or
/// `result`) fits the budget; the error names the first that does not.
pub fn check_types(ctx: &Context, what: &str, types: &[Type]) -> Result<(), String> {
    for (i, &ty) in types.iter().enumerate() {
        check_type(ctx, ty).map_err(|why| format!("{what} #{i}: {why}"))?;
    }
    Ok(())
}

/// Every buffer the lowered `module` allocates (`loop.alloc`, `memref.alloc`,
/// `memref.alloca`, the arena of planned buffers included) fits the budget on its own; the
/// error is located at the first that does not.
pub fn check_allocations(ctx: &Context, module: OpId) -> Result<(), Diagnostic> {
    let mut first_error = None;
    ctx.walk_nested(module, &mut |op| {
        if first_error.is_some() || !is_allocation(ctx.op_name(op)) {
            return;
        }
        for (i, &result) in ctx.op(op).results.iter().enumerate() {
            if let Err(why) = check_type(ctx, ctx.value_type(result)) {
                first_error = Some(Diagnostic::error(
                    ctx.op(op).loc,
                    format!("'{}' op result #{i}: {why}", ctx.op_name(op)),
                ));
                return;
            }
        }
    });
    first_error.map_or(Ok(()), Err)
}

fn is_allocation(name: &str) -> bool {
    matches!(name, "loop.alloc" | "memref.alloc" | "memref.alloca")
}

/// Every buffer a call of `entry` needs from the caller (arguments and results) fits the
/// budget; the error names the parameter.
pub fn check_entry_point(entry: &EntryPoint) -> Result<(), String> {
    let (mut inputs, mut outputs) = (0, 0);
    for param in &entry.params {
        let name = match param.role {
            tb_backends::cpu::Role::Input => {
                inputs += 1;
                format!("argument #{}", inputs - 1)
            }
            tb_backends::cpu::Role::Output => {
                outputs += 1;
                format!("result #{}", outputs - 1)
            }
        };
        check_param(param).map_err(|why| format!("{name}: '{}' {why}", param.ir_type))?;
    }
    Ok(())
}

fn check_param(param: &AbiParam) -> Result<(), String> {
    let shape = param.shape.as_deref().unwrap_or(&[]);
    check_size(shape, param.element.size_in_bytes()).map(|_| ())
}

/// Reads the `.npy` file at `path` for an argument of type `ty`, reading no more than such
/// an argument can take in any element type (plus its header): a file, device or stream
/// that holds more is refused without being read to its end.
pub fn read_input(ctx: &Context, path: &Path, ty: Type) -> Result<Tensor, String> {
    let elements = ctx
        .type_kind(ty)
        .shape()
        .map_or(Some(1u64), |shape| {
            shape
                .iter()
                .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))
        })
        .unwrap_or(u64::MAX);
    let most = elements
        .saturating_mul(WIDEST_ELEMENT_BYTES)
        .saturating_add(NPY_HEADER_ROOM);
    let file = std::fs::File::open(path)
        .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(most.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
    if bytes.len() as u64 > most {
        return Err(format!(
            "{}: holds more than the {most} bytes an argument of type '{}' can take",
            path.display(),
            tb_ir::printer::type_to_string(ctx, ty)
        ));
    }
    parse_npy(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Bytes of the constant data (`memref.global ... constant`: the weights) the lowered
/// `module` carries, which compiled code keeps in memory beside its buffers.
pub fn constant_bytes(ctx: &Context, module: OpId) -> u64 {
    let mut total = 0u64;
    ctx.walk_nested(module, &mut |op| {
        if ctx.op_name(op) != "memref.global" || ctx.op_inherent_or_attr(op, "constant").is_none() {
            return;
        }
        let Some(tb_ir::AttrKind::Type(ty)) = ctx
            .op_inherent_or_attr(op, "type")
            .map(|a| ctx.attr_kind(a))
        else {
            return;
        };
        let kind = ctx.type_kind(*ty);
        let (Some(shape), Some(element)) = (kind.shape(), kind.element()) else {
            return;
        };
        let element_bytes = tb_interpreter::exec::ElemType::of(ctx, element)
            .ok()
            .and_then(|e| e.dtype().ok())
            .map_or(8, |d| d.size_in_bytes() as u64);
        let elements = shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?));
        total = total.saturating_add(elements.unwrap_or(0).saturating_mul(element_bytes));
    });
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        let mut ctx = Context::new();
        tb_dialects::register_all(&mut ctx).unwrap();
        ctx
    }

    fn tensor_type(ctx: &mut Context, shape: Vec<i64>) -> Type {
        let f32_type = ctx.float_type(tb_ir::FloatKind::F32);
        ctx.intern_type(tb_ir::TypeKind::RankedTensor {
            shape,
            element: f32_type,
            encoding: None,
        })
    }

    #[test]
    fn a_tensor_beyond_the_budget_is_named() {
        let mut ctx = context();
        let small = tensor_type(&mut ctx, vec![2, 3]);
        let huge = tensor_type(&mut ctx, vec![1_000_000, 1_000_000]);
        assert!(check_types(&ctx, "argument", &[small]).is_ok());
        let message = check_types(&ctx, "result", &[small, huge]).unwrap_err();
        assert!(
            message
                .starts_with("result #1: 'tensor<1000000x1000000xf32>' needs 4000000000000 bytes"),
            "{message}"
        );
    }

    #[test]
    fn an_input_file_larger_than_its_argument_is_not_read_to_its_end() {
        let mut ctx = context();
        let ty = tensor_type(&mut ctx, vec![2]);
        // /dev/zero never ends; a 2-element argument reads at most its bound of it.
        let message = read_input(&ctx, Path::new("/dev/zero"), ty).unwrap_err();
        assert!(message.contains("holds more than the"), "{message}");
        let path = std::env::temp_dir().join(format!("tb-run-memory-{}.npy", std::process::id()));
        let tensor = Tensor::new(vec![2], tb_interpreter::TensorData::F32(vec![1.0, 2.0])).unwrap();
        std::fs::write(&path, tb_interpreter::to_npy_bytes(&tensor)).unwrap();
        let read = read_input(&ctx, &path, ty);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read.unwrap(), tensor);
    }
}
