//! The `func` dialect: `func.func`, `func.return` and `func.call`, with MLIR's names,
//! traits and verification rules (custom assembly comes with the dialect framework).

mod verify;

use tb_ir::Context;
use tb_ir::registry::{OpInfo, OpTraits};

pub const FUNC: &str = "func.func";
pub const RETURN: &str = "func.return";
pub const CALL: &str = "func.call";

pub fn register(ctx: &mut Context) {
    ctx.register_op(OpInfo {
        name: FUNC,
        traits: OpTraits {
            isolated_from_above: true,
            ..OpTraits::default()
        },
        inherent_attrs: &[
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
            "no_inline",
        ],
        verify: Some(verify::func),
        fold: None,
    });
    ctx.register_op(OpInfo {
        name: RETURN,
        traits: OpTraits {
            terminator: true,
            pure: true,
            ..OpTraits::default()
        },
        inherent_attrs: &[],
        verify: Some(verify::return_op),
        fold: None,
    });
    ctx.register_op(OpInfo {
        name: CALL,
        traits: OpTraits::default(),
        inherent_attrs: &["callee", "arg_attrs", "res_attrs", "no_inline"],
        verify: Some(verify::call),
        fold: None,
    });
}
