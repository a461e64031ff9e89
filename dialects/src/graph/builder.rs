//! Building graph ops through the API (the ONNX importer, rewrite patterns): result types
//! come from the op's shape rule and default-valued attributes are filled in, as the
//! parser does for text.

use tb_ir::operation::OperationState;
use tb_ir::registry::InferInput;
use tb_ir::{Attr, Context, Location, Type, Value};

/// The state of a graph op `name` over `operands` with `attrs`, its result types
/// inferred; an error names the op and says why the operands do not fit.
pub fn op_state(
    ctx: &mut Context,
    name: &str,
    operands: Vec<Value>,
    attrs: Vec<(String, Attr)>,
    loc: Location,
) -> Result<OperationState, String> {
    let info = ctx
        .op_info(name)
        .ok_or_else(|| format!("'{name}' is not a registered op"))?;
    let infer = info
        .infer_types
        .ok_or_else(|| format!("'{name}' cannot infer its result types"))?;
    let operand_types: Vec<Type> = operands.iter().map(|&v| ctx.value_type(v)).collect();
    let result_types = infer(
        ctx,
        &InferInput {
            operand_types: &operand_types,
            attributes: &attrs,
            loc,
        },
    )?;
    Ok(op_state_with_types(
        ctx,
        name,
        operands,
        attrs,
        result_types,
        loc,
    ))
}

/// [`op_state`] with result types given (ops whose rule needs them, like `graph.split`
/// into as many parts as it has results).
pub fn op_state_with_types(
    ctx: &mut Context,
    name: &str,
    operands: Vec<Value>,
    mut attrs: Vec<(String, Attr)>,
    result_types: Vec<Type>,
    loc: Location,
) -> OperationState {
    if let Some(def) = ctx.op_info(name).and_then(|i| i.def) {
        for a in def.attributes {
            if let Some(text) = a.default
                && !attrs.iter().any(|(k, _)| k == a.name)
            {
                let value = tb_ir::ods::default_value(ctx, text);
                attrs.push((a.name.to_string(), value));
            }
        }
    }
    let properties = (!attrs.is_empty()).then(|| ctx.dictionary_attr(attrs));
    OperationState {
        name: ctx.intern_op_name(name),
        operands,
        result_types,
        successors: vec![],
        num_regions: 0,
        properties,
        attributes: vec![],
        loc,
    }
}
