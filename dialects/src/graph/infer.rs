//! One shape rule per op, used twice: by the verifier (the declared result types must be
//! the inferred ones) and by type inference (custom syntax and builders that leave result
//! types out). A rule sees operand shapes and element types plus the op's attributes with
//! their defaults, and calls into [`super::shape`] for the ONNX shape arithmetic.

use tb_ir::ods::{Arity, OpDef};
use tb_ir::registry::InferInput;
use tb_ir::{Context, Diagnostic, FloatKind, OpId, Type};

use super::attrs::Attrs;
use super::shape::{ShapeError, checked_num_elements};
use super::types::{ElementKind, element_kind, static_tensor, tensor_string, tensor_type};

/// A statically shaped tensor operand.
#[derive(Clone, Debug)]
pub struct TensorArg {
    pub ty: Type,
    pub shape: Vec<i64>,
    pub element: Type,
}

/// What a rule sees of an op.
pub struct RuleInput<'a> {
    pub ctx: &'a Context,
    pub operands: Vec<TensorArg>,
    pub attrs: Attrs<'a>,
    /// The number of results, when the op exists already (verification).
    pub num_results: Option<usize>,
}

/// The element type of an inferred result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    Type(Type),
    /// `i1`, for comparisons and logic.
    I1,
    /// `i64`, for indices and shapes.
    I64,
    /// `f32`, for statistics ONNX keeps in float.
    F32,
}

/// One inferred result type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inferred {
    pub shape: Vec<i64>,
    pub element: Elem,
}

impl Inferred {
    pub fn new(shape: Vec<i64>, element: Elem) -> Self {
        Inferred { shape, element }
    }

    /// A result shaped and typed like `arg`.
    pub fn like(arg: &TensorArg) -> Self {
        Inferred::new(arg.shape.clone(), Elem::Type(arg.element))
    }

    /// A result of `arg`'s element type with another shape.
    pub fn with_shape(shape: Vec<i64>, arg: &TensorArg) -> Self {
        Inferred::new(shape, Elem::Type(arg.element))
    }
}

pub type RuleResult = Result<Vec<Inferred>, String>;
pub type Rule = fn(&RuleInput) -> RuleResult;

/// A shape error as an op message: the graph op names itself, so the ONNX name goes.
pub fn shape_err(e: ShapeError) -> String {
    e.message
}

impl RuleInput<'_> {
    pub fn arg(&self, i: usize) -> &TensorArg {
        &self.operands[i]
    }

    /// The operand at `i` if there is one (optional trailing operands).
    pub fn opt_arg(&self, i: usize) -> Option<&TensorArg> {
        self.operands.get(i)
    }

    pub fn kind(&self, ty: Type) -> Option<ElementKind> {
        element_kind(self.ctx, ty)
    }

    /// How `arg` prints.
    pub fn show(&self, arg: &TensorArg) -> String {
        super::types::type_string(self.ctx, arg.ty)
    }

    /// Every operand in `which` has `first`'s element type.
    pub fn same_element(&self, which: &[usize]) -> Result<(), String> {
        let Some(&first) = which.first() else {
            return Ok(());
        };
        for &i in &which[1..] {
            if self.operands[i].element != self.operands[first].element {
                return Err(format!(
                    "operands #{first} and #{i} must have the same element type, got {} and {}",
                    self.show(&self.operands[first]),
                    self.show(&self.operands[i])
                ));
            }
        }
        Ok(())
    }
}

fn tensor_arg(ctx: &Context, index: usize, ty: Type) -> Result<TensorArg, String> {
    let Some((shape, element)) = static_tensor(ctx, ty) else {
        return Err(format!(
            "operand #{index} must be a statically shaped tensor, but got '{}'",
            super::types::type_string(ctx, ty)
        ));
    };
    Ok(TensorArg {
        ty,
        shape: shape.to_vec(),
        element,
    })
}

fn element_name(ctx: &Context, e: Elem) -> String {
    match e {
        Elem::Type(t) => super::types::type_string(ctx, t),
        Elem::I1 => "i1".into(),
        Elem::I64 => "i64".into(),
        Elem::F32 => "f32".into(),
    }
}

/// Whether the built type `ty` is what `inferred` describes.
fn matches(ctx: &Context, ty: Type, inferred: &Inferred) -> bool {
    let Some((shape, element)) = static_tensor(ctx, ty) else {
        return false;
    };
    let element_ok = match inferred.element {
        Elem::Type(t) => t == element,
        Elem::I1 => element_kind(ctx, element) == Some(ElementKind::Bool),
        Elem::I64 => element_kind(ctx, element) == Some(ElementKind::Signed(64)),
        Elem::F32 => element_kind(ctx, element) == Some(ElementKind::Float(FloatKind::F32)),
    };
    element_ok && shape == inferred.shape.as_slice()
}

/// Runs `rule` and checks what it inferred: every result's element count fits in `i64`, as
/// ONNX's sizes must, so no later product of its dimensions (strides, byte sizes, loop
/// bounds) can wrap.
fn run_rule(input: &RuleInput, rule: Rule) -> RuleResult {
    let inferred = rule(input)?;
    for (i, result) in inferred.iter().enumerate() {
        let problem = if result.shape.iter().any(|&d| d < 0) {
            "has a negative dimension"
        } else if checked_num_elements(&result.shape).is_none() {
            "has more than 2^63 - 1 elements"
        } else {
            continue;
        };
        let which = if inferred.len() == 1 {
            "result".to_string()
        } else {
            format!("result #{i}")
        };
        let dims: Vec<String> = result.shape.iter().map(|d| d.to_string()).collect();
        return Err(format!("{which} shape [{}] {problem}", dims.join(", ")));
    }
    Ok(inferred)
}

/// Runs `rule` on the built `op` and checks its results against the inferred types.
pub fn verify_with(ctx: &Context, op: OpId, rule: Rule) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let name = ctx.op_name(op);
    let err = |m: String| Diagnostic::error(data.loc, format!("'{name}' op {m}"));
    let operands = data
        .operands
        .iter()
        .enumerate()
        .map(|(i, &v)| tensor_arg(ctx, i, ctx.value_type(v)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let input = RuleInput {
        ctx,
        operands,
        attrs: Attrs::of_op(ctx, op),
        num_results: Some(data.results.len()),
    };
    let inferred = run_rule(&input, rule).map_err(err)?;
    if inferred.len() != data.results.len() {
        return Err(err(format!(
            "has {} results but {} are inferred",
            data.results.len(),
            inferred.len()
        )));
    }
    for (i, (&r, want)) in data.results.iter().zip(&inferred).enumerate() {
        let ty = ctx.value_type(r);
        if !matches(ctx, ty, want) {
            let which = if inferred.len() == 1 {
                "result type".to_string()
            } else {
                format!("result #{i} type")
            };
            return Err(err(format!(
                "{which} {} does not match inferred {}",
                super::types::type_string(ctx, ty),
                tensor_string(&want.shape, &element_name(ctx, want.element))
            )));
        }
    }
    Ok(())
}

/// The operand counts and types `def` declares, checked before a rule indexes operands:
/// type inference runs on operands no verifier has seen yet.
fn check_operands(ctx: &Context, def: &OpDef, types: &[Type]) -> Result<(), String> {
    let fixed = def
        .operands
        .iter()
        .filter(|a| a.arity == Arity::Single)
        .count();
    let optional = def
        .operands
        .iter()
        .filter(|a| a.arity == Arity::Optional)
        .count();
    let variadic = def.operands.iter().any(|a| a.arity == Arity::Variadic);
    let max = if variadic {
        usize::MAX
    } else {
        fixed + optional
    };
    if types.len() < fixed || types.len() > max {
        return Err(format!(
            "expects {fixed}{} operands, got {}",
            if max == fixed {
                String::new()
            } else if variadic {
                " or more".to_string()
            } else {
                format!(" to {max}")
            },
            types.len()
        ));
    }
    // Without operand segments, one optional or variadic group takes what is left.
    let rest = types.len() - fixed;
    let mut k = 0;
    for group in def.operands {
        let n = if group.arity == Arity::Single {
            1
        } else {
            rest
        };
        for &ty in &types[k..k + n] {
            if !(group.constraint.check)(ctx, ty) {
                return Err(format!(
                    "operand #{k} must be {}, but got '{}'",
                    group.constraint.description,
                    super::types::type_string(ctx, ty)
                ));
            }
            k += 1;
        }
    }
    Ok(())
}

/// Runs `rule` for type inference and interns the result types.
pub fn infer_with(
    ctx: &mut Context,
    input: &InferInput,
    name: &'static str,
    rule: Rule,
) -> Result<Vec<Type>, String> {
    let err = |m: String| format!("'{name}' op {m}");
    let inferred = {
        let ctx: &Context = ctx;
        let def = ctx.op_info(name).and_then(|i| i.def);
        if let Some(def) = def {
            check_operands(ctx, def, input.operand_types).map_err(err)?;
        }
        let operands = input
            .operand_types
            .iter()
            .enumerate()
            .map(|(i, &t)| tensor_arg(ctx, i, t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let rule_input = RuleInput {
            ctx,
            operands,
            attrs: Attrs::new(ctx, def, input.attributes.to_vec()),
            num_results: None,
        };
        run_rule(&rule_input, rule).map_err(err)?
    };
    Ok(inferred
        .into_iter()
        .map(|r| {
            let element = match r.element {
                Elem::Type(t) => t,
                Elem::I1 => ctx.i1(),
                Elem::I64 => ctx.i64(),
                Elem::F32 => ctx.float_type(FloatKind::F32),
            };
            tensor_type(ctx, r.shape, element)
        })
        .collect())
}

/// An [`OpDef`](tb_ir::ods::OpDef) of a graph op whose verifier and type inference both run
/// `$rule` and whose folds go through [`fold_op`](crate::graph::fold::fold_op); pure unless
/// traits are given; other fields as listed.
macro_rules! graph_op {
    ($name:literal, $rule:path, { $($field:ident : $value:expr),* $(,)? }) => {
        $crate::graph::infer::graph_op!($name, $rule, tb_ir::ods::PURE, { $($field: $value),* })
    };
    ($name:literal, $rule:path, $traits:expr, { $($field:ident : $value:expr),* $(,)? }) => {
        tb_ir::ods::OpDef {
            name: $name,
            traits: $traits,
            verify: Some(|ctx, op| $crate::graph::infer::verify_with(ctx, op, $rule)),
            infer_types: Some(|ctx, input| {
                $crate::graph::infer::infer_with(ctx, input, $name, $rule)
            }),
            fold: Some($crate::graph::fold::fold_op),
            $($field: $value,)*
            ..tb_ir::ods::OpDef::EMPTY
        }
    };
}

pub(crate) use graph_op;
