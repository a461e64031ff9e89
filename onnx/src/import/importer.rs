//! The walk over the graph: arguments, initializers, then each node in order (converted,
//! folded when its inputs are all constant, or built as a graph op), then the results.
//! Problems are collected per node; a node downstream of a failed one is only checked for
//! being a supported operator, so one root cause is reported once. The model has passed
//! [`crate::validate`] (SSA, arity and attributes per schema), so a node's required inputs
//! and outputs exist; lookups still fail with a problem, never a panic.

mod branches;

use std::collections::{HashMap, HashSet};

use tb_dialects::graph::builder::{op_state, op_state_with_types};
use tb_interpreter::Tensor;
use tb_ir::operation::OperationState;
use tb_ir::{AttrKind, BlockId, Context, Location, OpId, Type, Value};

use super::constants::{ResourceNames, elements_attr};
use super::error::{ImportError, Problem, ProblemKind};
use super::eval::evaluate;
use super::location::{named, node_loc};
use super::node::{Input, Lowering, NodeCx, OpPlan, Output};
use super::sizes::check_shape;
use super::types::{tensor_parts, tensor_type};
use super::{ImportOptions, cleanup, ops, signature, version_convert};
use crate::attribute::NodeAttrs;
use crate::model::Model;
use crate::narrow::NarrowType;
use crate::proto::{NodeProto, TensorProto, ValueInfoProto};
use crate::validate::{node_at, value_info};
use crate::value_type::{ValueType, value_type};

/// What is known about one ONNX value.
#[derive(Clone)]
struct Known {
    ty: Type,
    /// The IR value, once something needs one.
    value: Option<Value>,
    /// The value itself, when known at import time.
    constant: Option<Tensor>,
    /// Whether nodes over it may be evaluated at import time: true for initializers and
    /// computed constants, false for graph inputs whose value was only supplied for
    /// shape-determining uses.
    foldable: bool,
}

struct Importer<'m> {
    model: &'m Model,
    /// Declared types of intermediate values, checked as the values are defined.
    declared: HashMap<&'m str, &'m ValueInfoProto>,
    file: String,
    module: OpId,
    /// Where ops go: the function's block, or the region of a `graph.if` being built.
    body: BlockId,
    /// The function's block, where constants are materialized so that they dominate every
    /// use, inside regions or after them.
    entry: BlockId,
    values: HashMap<String, Known>,
    failed: HashSet<String>,
    problems: Vec<Problem>,
    /// Declared types that disagree with the inferred ones: the inferred type is used.
    warnings: Vec<String>,
    resources: ResourceNames,
    /// Values of narrow ONNX types, which the IR holds in carrier tensors.
    narrow: HashMap<String, NarrowType>,
}

/// The values the model declares (graph inputs, outputs, `value_info`, initializers,
/// `Constant` values) or computes (Cast, QuantizeLinear) as a narrow type.
fn narrow_values(model: &Model) -> HashMap<String, NarrowType> {
    let graph = model.graph();
    let declared = graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
        .filter_map(|info| {
            let ValueType::Tensor(t) = value_type(info).ok()? else {
                return None;
            };
            Some((info.name.clone(), NarrowType::from_onnx(t.elem_type)?))
        });
    let initializers = graph
        .initializer
        .iter()
        .filter_map(|t| Some((t.name.clone(), NarrowType::from_onnx(t.data_type)?)));
    let computed = graph.node.iter().filter_map(|node| {
        let code = match node.op_type.as_str() {
            "Cast" => node.attr_int("to").ok()??,
            "QuantizeLinear" => node.attr_int("output_dtype").ok()??,
            "Constant" => i64::from(node.attr::<&TensorProto>("value").ok()??.data_type),
            _ => return None,
        };
        let narrow = NarrowType::from_onnx(i32::try_from(code).ok()?)?;
        Some((node.output.first()?.clone(), narrow))
    });
    let mut narrow: HashMap<String, NarrowType> =
        declared.chain(initializers).chain(computed).collect();
    // A QuantizeLinear's output has its zero point's type.
    for node in &graph.node {
        if node.op_type == "QuantizeLinear"
            && let Some(zp) = node.input.get(2)
            && let Some(&t) = narrow.get(zp)
            && let Some(out) = node.output.first()
        {
            narrow.insert(out.clone(), t);
        }
    }
    narrow
}

pub(super) fn import(
    ctx: &mut Context,
    model: &Model,
    options: &ImportOptions,
) -> Result<(OpId, String, Vec<String>), ImportError> {
    let fail = |problems| ImportError {
        file: options.file_name.clone(),
        problems,
    };
    let unknown = ctx.unknown_loc();
    let module = create(ctx, "builtin.module", vec![], vec![], 1, None, unknown);
    let module_block = ctx.create_block();
    ctx.append_block(ctx.op(module).regions[0], module_block);
    let body = ctx.create_block();
    let mut im = Importer {
        model,
        declared: model
            .graph()
            .value_info
            .iter()
            .map(|v| (v.name.as_str(), v))
            .collect(),
        file: options.file_name.clone(),
        module,
        body,
        entry: body,
        values: HashMap::new(),
        failed: HashSet::new(),
        problems: Vec::new(),
        warnings: Vec::new(),
        resources: ResourceNames::default(),
        narrow: narrow_values(model),
    };
    let args = signature::arguments(model, &options.input_shapes).map_err(fail)?;
    let mut arg_names = Vec::new();
    for arg in &args {
        let ty = tensor_type(ctx, &arg.shape, arg.dtype);
        let file_loc = ctx.file_loc(&im.file, 0, 0);
        let loc = named(ctx, &arg.name, file_loc);
        let v = ctx.add_block_argument(body, ty, Some(loc));
        let constant = options
            .input_values
            .get(&arg.name)
            .filter(|t| t.shape() == arg.shape.as_slice() && t.dtype() == arg.dtype)
            .cloned();
        im.values.insert(
            arg.name.clone(),
            Known {
                ty,
                value: Some(v),
                constant,
                foldable: false,
            },
        );
        arg_names.push(arg.name.clone());
    }
    im.initializers(ctx);
    let opset = model.opset_version("").unwrap_or(21);
    for (index, node) in model.graph().node.iter().enumerate() {
        im.node(ctx, opset, index, node);
    }
    let (results, result_names) = im.results(ctx);
    if !im.problems.is_empty() {
        return Err(fail(im.problems));
    }
    let graph_name = &model.graph().name;
    let name = if graph_name.is_empty() {
        "main_graph".to_string()
    } else {
        graph_name.clone()
    };
    let func = im.finish_function(ctx, &name, &arg_names, &results, &result_names);
    ctx.append_op(module_block, func);
    if let Err(d) = tb_ir::verifier::verify(ctx, module) {
        return Err(fail(vec![diagnostic_problem(
            ctx,
            "the imported IR does not verify",
            &d,
        )]));
    }
    if let Some(register_passes) = options.cleanup
        && let Err(d) = cleanup::run(ctx, module, register_passes)
    {
        return Err(fail(vec![diagnostic_problem(
            ctx,
            "cleanup after import failed",
            &d,
        )]));
    }
    Ok((module, name, im.warnings))
}

fn diagnostic_problem(ctx: &Context, what: &str, d: &tb_ir::Diagnostic) -> Problem {
    let mut at = String::new();
    tb_ir::printer::print_location_inline(ctx, d.loc, &mut at);
    Problem::invalid(format!("{what}: {} at {at}", d.message))
}

/// Creates a detached op.
fn create(
    ctx: &mut Context,
    name: &str,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    num_regions: usize,
    properties: Option<tb_ir::Attr>,
    loc: Location,
) -> OpId {
    let name = ctx.intern_op_name(name);
    ctx.create_op(OperationState {
        name,
        operands,
        result_types,
        successors: vec![],
        num_regions,
        properties,
        attributes: vec![],
        loc,
    })
}

/// The state of the op `plan` describes over `operands`.
fn build_state(
    ctx: &mut Context,
    plan: &OpPlan,
    operands: Vec<Value>,
    loc: Location,
) -> Result<OperationState, String> {
    match &plan.result_types {
        Some(types) => Ok(op_state_with_types(
            ctx,
            plan.name,
            operands,
            plan.attrs.clone(),
            types.clone(),
            loc,
        )),
        None => op_state(ctx, plan.name, operands, plan.attrs.clone(), loc),
    }
}

impl Importer<'_> {
    fn initializers(&mut self, ctx: &mut Context) {
        for init in self.model.initializers() {
            match init {
                Ok((name, t)) => {
                    let ty = tensor_type(ctx, t.shape(), t.dtype());
                    self.values.insert(
                        name.to_string(),
                        Known {
                            ty,
                            value: None,
                            constant: Some(t),
                            foldable: true,
                        },
                    );
                }
                Err(e) => {
                    let kind = if e.is_unsupported() {
                        ProblemKind::UnsupportedType
                    } else {
                        ProblemKind::Invalid
                    };
                    self.problems.push(Problem::new(kind, e.to_string()));
                }
            }
        }
    }

    /// The IR value of `name`, materializing a constant on first use.
    fn value(&mut self, ctx: &mut Context, name: &str) -> Result<Value, Problem> {
        let known = self.values.get_mut(name).ok_or_else(|| undefined(name))?;
        if let Some(v) = known.value {
            return Ok(v);
        }
        let t = known.constant.as_ref().ok_or_else(|| undefined(name))?;
        let attr = elements_attr(ctx, &mut self.resources, name, t);
        let ty = known.ty;
        let file_loc = ctx.file_loc(&self.file, 0, 0);
        let loc = named(ctx, name, file_loc);
        let props = ctx.dictionary_attr(vec![("value".into(), attr)]);
        let op = create(ctx, "graph.constant", vec![], vec![ty], 0, Some(props), loc);
        ctx.append_op(self.entry, op);
        let v = ctx.op(op).results[0];
        known.value = Some(v);
        Ok(v)
    }

    /// Records `known` as the value of `name`, warning where its declared type disagrees.
    fn define(&mut self, ctx: &Context, name: &str, known: Known) {
        if let Some(info) = self.declared.get(name)
            && let Some((shape, dtype)) = tensor_parts(ctx, known.ty)
            && let Some(m) = value_info::mismatch(info, &shape, dtype)
        {
            self.warnings.push(format!(
                "value_info '{name}' {m}; the computed type is used"
            ));
        }
        self.values.insert(name.to_string(), known);
    }

    fn fail_outputs(&mut self, node: &NodeProto) {
        self.failed
            .extend(node.output.iter().filter(|o| !o.is_empty()).cloned());
    }

    fn node(&mut self, ctx: &mut Context, opset: i64, index: usize, node: &NodeProto) {
        let label = node_at(index, node);
        let supported_op = node.domain.is_empty() || node.domain == "ai.onnx";
        let known_op = supported_op && ops::supported_operators().contains(&node.op_type.as_str());
        if !known_op {
            let what = if supported_op {
                format!(
                    "operator '{}' is not supported{}",
                    node.op_type,
                    super::unsupported::reason(&node.op_type)
                )
            } else {
                format!("operator domain '{}' is not supported", node.domain)
            };
            self.problems
                .push(Problem::new(ProblemKind::UnsupportedOp, what).at(&label));
            self.fail_outputs(node);
            return;
        }
        // Downstream of a failure: already reported.
        if node.input.iter().any(|i| self.failed.contains(i)) {
            self.fail_outputs(node);
            return;
        }
        // A node of an older model is imported in its opset-13 form.
        let opset = if opset < version_convert::CONVERTED_OPSET {
            match self.upgrade(ctx, opset, node) {
                Ok(None) => version_convert::CONVERTED_OPSET,
                Ok(Some(expansion)) => {
                    self.import_expansion(ctx, version_convert::CONVERTED_OPSET, index, expansion);
                    return;
                }
                Err(p) => {
                    self.report(&label, &mut vec![p], node);
                    return;
                }
            }
        } else {
            opset
        };
        let mut inputs = Vec::new();
        for name in &node.input {
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            let Some(known) = self.values.get(name) else {
                self.problems.push(
                    Problem::invalid(format!(
                        "input '{name}' is not a graph input, an initializer or an earlier \
                         node's output"
                    ))
                    .at(&label),
                );
                self.fail_outputs(node);
                return;
            };
            let Some((shape, dtype)) = tensor_parts(ctx, known.ty) else {
                self.problems.push(
                    Problem::invalid(format!("input '{name}' is not a static tensor")).at(&label),
                );
                self.fail_outputs(node);
                return;
            };
            inputs.push(Some(Input {
                ty: known.ty,
                shape,
                dtype,
                constant: known.constant.as_ref(),
                foldable: known.foldable,
                narrow: self.narrow.get(name).copied(),
            }));
        }
        let mut cx = NodeCx {
            ctx,
            node,
            opset,
            inputs,
            problems: Vec::new(),
        };
        // `known_op` guarantees a converter; should one be missing, say so.
        let lowering = ops::convert(&mut cx).unwrap_or_else(|| {
            Err(Problem::new(
                ProblemKind::UnsupportedOp,
                format!("operator '{}' has no converter", node.op_type),
            ))
        });
        let mut problems = std::mem::take(&mut cx.problems);
        drop(cx);
        let lowering = match lowering {
            Ok(l) if problems.is_empty() => l,
            Ok(_) => {
                self.report(&label, &mut problems, node);
                return;
            }
            Err(p) => {
                problems.insert(0, p);
                self.report(&label, &mut problems, node);
                return;
            }
        };
        let loc = node_loc(ctx, &self.file, index, node);
        let model_opset = self.model.opset_version("").unwrap_or(21);
        let outcome = match lowering {
            Lowering::Outputs(outputs) => self.define_outputs(ctx, node, outputs),
            Lowering::Op(plan) => self.build(ctx, node, &plan, loc),
            Lowering::If(branches) => self.build_if(ctx, opset, index, node, *branches, loc),
            // A body's nodes are in the model's own opset: they are upgraded like the
            // outer graph's.
            Lowering::Loop(plan) => self.build_loop(ctx, model_opset, index, node, *plan, loc),
            Lowering::Scan(plan) => self.build_scan(ctx, model_opset, index, node, *plan, loc),
            Lowering::Expand(expansion) => {
                self.import_expansion(ctx, opset, index, expansion);
                Ok(())
            }
        };
        if let Err(p) = outcome {
            problems.insert(0, p);
        }
        if !problems.is_empty() {
            self.report(&label, &mut problems, node);
        }
    }

    /// Imports the nodes that stand for node `index`, after defining their constants.
    fn import_expansion(
        &mut self,
        ctx: &mut Context,
        opset: i64,
        index: usize,
        expansion: super::expansion::Expansion,
    ) {
        for (name, t) in expansion.constants {
            let known = Known {
                ty: tensor_type(ctx, t.shape(), t.dtype()),
                value: None,
                constant: Some(t),
                foldable: true,
            };
            self.values.insert(name, known);
        }
        // Each expanded node reports its own problems, at the original's index.
        for expanded in &expansion.nodes {
            self.node(ctx, opset, index, expanded);
        }
    }

    /// The opset-13 form of a node of an opset-`opset` model ([`version_convert`]).
    fn upgrade(
        &self,
        ctx: &Context,
        opset: i64,
        node: &NodeProto,
    ) -> Result<Option<super::expansion::Expansion>, Problem> {
        let facts: Vec<Option<version_convert::InputFacts>> = node
            .input
            .iter()
            .map(|name| {
                let known = self.values.get(name)?;
                let (shape, dtype) = tensor_parts(ctx, known.ty)?;
                Some(version_convert::InputFacts {
                    shape,
                    dtype,
                    value: known.constant.as_ref(),
                })
            })
            .collect();
        version_convert::upgrade(node, opset, &facts)
    }

    fn report(&mut self, label: &str, problems: &mut Vec<Problem>, node: &NodeProto) {
        self.problems
            .extend(problems.drain(..).map(|p| p.at(label)));
        self.fail_outputs(node);
    }

    fn define_outputs(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        outputs: Vec<Output>,
    ) -> Result<(), Problem> {
        for (k, out) in outputs.into_iter().enumerate() {
            let Some(name) = node.output.get(k).filter(|n| !n.is_empty()) else {
                continue;
            };
            let known = match out {
                Output::Input(i) => {
                    let input = node.input.get(i).map_or("", String::as_str);
                    self.values
                        .get(input)
                        .ok_or_else(|| undefined(input))?
                        .clone()
                }
                Output::Constant(t) => Known {
                    ty: tensor_type(ctx, t.shape(), t.dtype()),
                    value: None,
                    constant: Some(t),
                    foldable: true,
                },
            };
            self.define(ctx, name, known);
        }
        Ok(())
    }

    /// Builds the op (or evaluates it, when every operand is a foldable constant and the
    /// results fit the evaluation budget) and records its results as the node's outputs.
    fn build(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        plan: &OpPlan,
        loc: Location,
    ) -> Result<(), Problem> {
        let operand_names: Vec<&str> = plan
            .operands
            .iter()
            .map(|&i| node.input.get(i).map_or("", String::as_str))
            .collect();
        let mut operands_known = Vec::with_capacity(operand_names.len());
        for name in &operand_names {
            operands_known.push(self.values.get(*name).ok_or_else(|| undefined(name))?);
        }
        let constants: Option<Vec<&Tensor>> = operands_known
            .iter()
            .map(|k| k.constant.as_ref().filter(|_| k.foldable))
            .collect();
        if let Some(tensors) = constants {
            let types: Vec<Type> = operands_known.iter().map(|k| k.ty).collect();
            let evaluated = evaluate(ctx, self.module, &types, &tensors, |ctx, vals| {
                build_state(ctx, plan, vals, loc)
            })
            .map_err(|m| build_problem(plan.name, "cannot evaluate at import time", m))?;
            if let Some(results) = evaluated {
                check_count(plan, results.len())?;
                for (r, t) in results.into_iter().enumerate() {
                    let Some(name) = output_name(node, plan, r) else {
                        continue;
                    };
                    let known = Known {
                        ty: tensor_type(ctx, t.shape(), t.dtype()),
                        value: None,
                        constant: Some(t),
                        foldable: true,
                    };
                    self.define(ctx, name, known);
                }
                return Ok(());
            }
        }
        let operands = operand_names
            .iter()
            .map(|n| self.value(ctx, n))
            .collect::<Result<Vec<Value>, Problem>>()?;
        let state = build_state(ctx, plan, operands, loc)
            .map_err(|m| build_problem(plan.name, "cannot build", m))?;
        for (r, &ty) in state.result_types.iter().enumerate() {
            let shape = tensor_parts(ctx, ty).map(|(s, _)| s).unwrap_or_default();
            check_shape(&shape).map_err(|m| Problem::invalid(format!("result #{r}: {m}")))?;
        }
        let op = ctx.create_op(state);
        ctx.append_op(self.body, op);
        let results = ctx.op(op).results.to_vec();
        check_count(plan, results.len())?;
        for (r, v) in results.into_iter().enumerate() {
            let Some(name) = output_name(node, plan, r) else {
                continue;
            };
            let known = Known {
                ty: ctx.value_type(v),
                value: Some(v),
                constant: None,
                foldable: false,
            };
            self.define(ctx, name, known);
        }
        Ok(())
    }

    /// The function's results: graph outputs, checked against their declared types.
    fn results(&mut self, ctx: &mut Context) -> (Vec<Value>, Vec<String>) {
        let mut values = Vec::new();
        let mut names = Vec::new();
        for info in &self.model.graph().output {
            let at = format!("graph output '{}'", info.name);
            if self.failed.contains(&info.name) {
                continue;
            }
            if !self.values.contains_key(&info.name) {
                self.problems
                    .push(Problem::invalid("is not computed by any node").at(at));
                continue;
            }
            let v = match self.value(ctx, &info.name) {
                Ok(v) => v,
                Err(p) => {
                    self.problems.push(p.at(at));
                    continue;
                }
            };
            if let Some((shape, dtype)) = tensor_parts(ctx, ctx.value_type(v))
                && let Some(m) = value_info::mismatch(info, &shape, dtype)
            {
                self.warnings
                    .push(format!("{at}: {m}; the computed type is used"));
            }
            values.push(v);
            names.push(info.name.clone());
        }
        (values, names)
    }

    fn finish_function(
        &mut self,
        ctx: &mut Context,
        name: &str,
        arg_names: &[String],
        results: &[Value],
        result_names: &[String],
    ) -> OpId {
        let file_loc = ctx.file_loc(&self.file, 0, 0);
        let ret = create(
            ctx,
            "func.return",
            results.to_vec(),
            vec![],
            0,
            None,
            file_loc,
        );
        ctx.append_op(self.body, ret);
        let inputs: Vec<Type> = ctx
            .block(self.body)
            .args
            .iter()
            .map(|&a| ctx.value_type(a))
            .collect();
        let outputs: Vec<Type> = results.iter().map(|&v| ctx.value_type(v)).collect();
        let fty = ctx.function_type(inputs, outputs);
        let mut props = vec![
            ("sym_name".to_string(), ctx.string_attr(name)),
            ("function_type".to_string(), ctx.type_attr(fty)),
        ];
        // A value of a narrow type says which: the IR type is only its carrier.
        let narrow = &self.narrow;
        let name_dicts = |ctx: &mut Context, names: &[String]| {
            let dicts = names
                .iter()
                .map(|n| {
                    let mut entries = Vec::new();
                    if let Some(t) = narrow.get(n) {
                        let t = ctx.string_attr(t.name());
                        entries.push(("onnx.element_type".to_string(), t));
                    }
                    let s = ctx.string_attr(n);
                    entries.push(("onnx.name".to_string(), s));
                    ctx.dictionary_attr(entries)
                })
                .collect();
            ctx.intern_attr(AttrKind::Array(dicts))
        };
        if !arg_names.is_empty() {
            props.push(("arg_attrs".to_string(), name_dicts(ctx, arg_names)));
        }
        if !result_names.is_empty() {
            props.push(("res_attrs".to_string(), name_dicts(ctx, result_names)));
        }
        let props = ctx.dictionary_attr(props);
        let loc = named(ctx, name, file_loc);
        let func = create(ctx, "func.func", vec![], vec![], 1, Some(props), loc);
        ctx.append_block(ctx.op(func).regions[0], self.body);
        func
    }
}

/// An op that could not be built: an operand element type the op's definition excludes
/// (integer max-pooling, bool reductions) is unsupported; anything else is invalid.
fn build_problem(op: &str, what: &str, message: String) -> Problem {
    let kind = if message.contains("operand #") && message.contains(" must be ") {
        ProblemKind::UnsupportedType
    } else {
        ProblemKind::Invalid
    };
    Problem::new(kind, format!("{what} '{op}': {message}"))
}

fn check_count(plan: &OpPlan, n: usize) -> Result<(), Problem> {
    if n != plan.outputs.len() {
        return Err(Problem::invalid(format!(
            "'{}' has {n} results but the node defines {} outputs",
            plan.name,
            plan.outputs.len()
        )));
    }
    Ok(())
}

/// The name of the node output that result `r` of `plan` defines, unless it is left out.
fn output_name<'n>(node: &'n NodeProto, plan: &OpPlan, r: usize) -> Option<&'n str> {
    let k = *plan.outputs.get(r)?;
    node.output
        .get(k)
        .map(String::as_str)
        .filter(|n| !n.is_empty())
}

/// A value that should have been defined: validation rules this out, but the importer
/// does not rely on it.
fn undefined(name: &str) -> Problem {
    Problem::invalid(format!("value '{name}' is used but not defined"))
}
