//! The `func` dialect: `func.func`, `func.return`, `func.call` and `func.constant`, with MLIR's names,
//! traits, verification rules and custom syntax.

mod asm;
mod ops;
mod verify;

use tb_ir::Context;
use tb_ir::ods::constraint::{
    ANY_TYPE, DICTIONARY_ARRAY_ATTR, FLAT_SYMBOL_REF_ATTR, FUNCTION_TYPE_ATTR, STRING_ATTR,
    UNIT_ATTR,
};
use tb_ir::ods::{AttrSyntax, OpDef, attr, operand, optional_attr, region, variadic};
use tb_ir::registry::OpTraits;

pub use ops::FuncOp;
pub use verify::signature;

pub const FUNC: &str = "func.func";
pub const RETURN: &str = "func.return";
pub const CALL: &str = "func.call";
pub const CONSTANT: &str = "func.constant";

static FUNC_DEF: OpDef = OpDef {
    name: FUNC,
    summary: "a function: a symbol with a signature and an optional body",
    attributes: &[
        optional_attr("sym_name", STRING_ATTR),
        optional_attr("function_type", FUNCTION_TYPE_ATTR),
        optional_attr("sym_visibility", STRING_ATTR),
        optional_attr("arg_attrs", DICTIONARY_ARRAY_ATTR),
        optional_attr("res_attrs", DICTIONARY_ARRAY_ATTR),
        optional_attr("no_inline", UNIT_ATTR),
    ],
    regions: &[region("body")],
    traits: OpTraits {
        isolated_from_above: true,
        automatic_allocation_scope: true,
        function_like: true,
        ..OpDef::EMPTY.traits
    },
    custom_assembly: Some((asm::parse_func, asm::print_func)),
    default_dialect: Some("func"),
    verify: Some(verify::func),
    ..OpDef::EMPTY
};

static RETURN_DEF: OpDef = OpDef {
    name: RETURN,
    summary: "returns from the enclosing function",
    operands: &[variadic("operands", ANY_TYPE)],
    traits: OpTraits {
        terminator: true,
        pure: true,
        ..OpDef::EMPTY.traits
    },
    format: Some("attr-dict ($operands^ `:` type($operands))?"),
    verify: Some(verify::return_op),
    ..OpDef::EMPTY
};

static CALL_DEF: OpDef = OpDef {
    name: CALL,
    summary: "calls a function by symbol",
    operands: &[variadic("operands", ANY_TYPE)],
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[
        attr("callee", FLAT_SYMBOL_REF_ATTR).with_syntax(AttrSyntax::Plain),
        optional_attr("arg_attrs", DICTIONARY_ARRAY_ATTR),
        optional_attr("res_attrs", DICTIONARY_ARRAY_ATTR),
        optional_attr("no_inline", UNIT_ATTR),
    ],
    format: Some("$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)"),
    verify_symbol_uses: Some(verify::call),
    ..OpDef::EMPTY
};

/// A function as a value: the symbol of a `func.func`, typed with its function type.
static CONSTANT_DEF: OpDef = OpDef {
    name: CONSTANT,
    summary: "a function value: a reference to a func.func by symbol",
    results: &[operand("result", ANY_TYPE)],
    attributes: &[attr("value", FLAT_SYMBOL_REF_ATTR).with_syntax(AttrSyntax::PlainOfKind)],
    traits: OpTraits {
        pure: true,
        ..OpDef::EMPTY.traits
    },
    format: Some("attr-dict $value `:` type(results)"),
    verify_symbol_uses: Some(verify::constant),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    for def in [&FUNC_DEF, &RETURN_DEF, &CALL_DEF, &CONSTANT_DEF] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<FuncOp>()
}
