//! Models of opsets 7–12 read as opset 13, the way onnx's version converter upgrades them:
//! each node whose operator changed between its model's opset and 13 is rewritten into its
//! opset-13 form (attributes that became inputs, a renamed or deprecated operator, a
//! semantics change), and the converters, written for opsets 13 on, import the result.
//!
//! One [`Rule`] per operator-version change, applied in [`RULES`]' order; a rule changes the
//! node in place and may add nodes before it (to feed it) or after it (to turn its outputs
//! into the old ones). Operators whose older versions accept a subset of what version 13
//! accepts (fewer element types or attributes, no negative axes: ArgMax/ArgMin without
//! `select_last_index`, Gemm with a required `C`, Cast, MaxPool/AveragePool without
//! `ceil_mode` or `dilations`, Max/Min/Sum/Mean without broadcasting, Concat, Flatten,
//! Gather, the elementwise ops) mean the same at opset 13 and have no rule. Operators that
//! did not exist yet (Mod before 10, BitShift before 11) are refused by validation, naming
//! the opset that introduced them.

use tb_interpreter::{DType, Tensor};

use super::error::{Problem, ProblemKind};
use super::expansion::{Expansion, int_attr, string_attr, to_attr};
use super::node::attr_problem;
use crate::attribute::NodeAttrs;
use crate::proto::{AttributeProto, NodeProto};
use crate::validate::schema::{Lookup, lookup};

/// The oldest default-domain opset whose nodes are converted. A node of an older model is
/// an error naming the opset, unless its operator has not changed since (`Not`, which
/// ONNX's own suite tests at opset 1).
pub const OLDEST_OPSET: i64 = 7;

/// The opset whose form converted nodes take: the converters read opsets 13 on.
pub const CONVERTED_OPSET: i64 = 13;

/// What the importer knows of one input of the node (`None` where it is omitted).
pub struct InputFacts<'a> {
    pub shape: Vec<i64>,
    pub dtype: DType,
    /// Its value, when known at import time.
    pub value: Option<&'a Tensor>,
}

/// One change of an operator's definition between opsets.
struct Rule {
    op: &'static str,
    /// The opset whose version of `op` made the change: the rule applies to older models.
    changed_in: i64,
    apply: fn(&mut Rewrite) -> Result<(), Problem>,
}

/// Every rule, in the order they apply to one node.
const RULES: &[Rule] = &[
    Rule {
        op: "Softmax",
        changed_in: 13,
        apply: softmax_2d_coercion,
    },
    Rule {
        op: "LogSoftmax",
        changed_in: 13,
        apply: softmax_2d_coercion,
    },
    Rule {
        op: "Hardmax",
        changed_in: 13,
        apply: softmax_2d_coercion,
    },
    Rule {
        op: "TopK",
        changed_in: 10,
        apply: top_k_k_attribute,
    },
    Rule {
        op: "Slice",
        changed_in: 10,
        apply: slice_attributes,
    },
    Rule {
        op: "Pad",
        changed_in: 11,
        apply: pad_attributes,
    },
    Rule {
        op: "Clip",
        changed_in: 11,
        apply: clip_attributes,
    },
    Rule {
        op: "Split",
        changed_in: 13,
        apply: split_attribute,
    },
    Rule {
        op: "Squeeze",
        changed_in: 13,
        apply: axes_attribute,
    },
    Rule {
        op: "Unsqueeze",
        changed_in: 13,
        apply: axes_attribute,
    },
    Rule {
        op: "ReduceSum",
        changed_in: 13,
        apply: axes_attribute,
    },
    Rule {
        op: "Dropout",
        changed_in: 10,
        apply: dropout_mask_type,
    },
    Rule {
        op: "Dropout",
        changed_in: 12,
        apply: dropout_mask_zeros,
    },
    Rule {
        op: "Dropout",
        changed_in: 12,
        apply: dropout_ratio_attribute,
    },
    Rule {
        op: "BatchNormalization",
        changed_in: 9,
        apply: batch_norm_spatial,
    },
    Rule {
        op: "Scatter",
        changed_in: 11,
        apply: scatter_is_scatter_elements,
    },
    Rule {
        op: "Upsample",
        changed_in: 10,
        apply: upsample_is_resize,
    },
    Rule {
        op: "Resize",
        changed_in: 11,
        apply: resize_10_scales_only,
    },
    Rule {
        op: "Resize",
        changed_in: 13,
        apply: resize_tf_half_pixel_for_nn,
    },
];

/// `node` of an opset-`opset` model in its opset-13 form: `None` when no rule changes it,
/// otherwise the nodes (and the constants they read) that replace it.
pub fn upgrade(
    node: &NodeProto,
    opset: i64,
    inputs: &[Option<InputFacts>],
) -> Result<Option<Expansion>, Problem> {
    if opset < OLDEST_OPSET {
        older_than_converted(node, opset)?;
    }
    let mut rules = RULES
        .iter()
        .filter(|r| r.op == node.op_type && opset < r.changed_in)
        .peekable();
    if rules.peek().is_none() {
        return Ok(None);
    }
    let mut rewrite = Rewrite {
        node: node.clone(),
        inputs,
        before: Vec::new(),
        after: Vec::new(),
        constants: Vec::new(),
        fresh: 0,
    };
    for rule in rules {
        // A rule's nodes after the node read its outputs as every earlier rule left them,
        // so they come before the earlier rules' nodes.
        let earlier = std::mem::take(&mut rewrite.after);
        (rule.apply)(&mut rewrite)?;
        rewrite.after.extend(earlier);
    }
    let Rewrite {
        node,
        before,
        after,
        constants,
        ..
    } = rewrite;
    let mut nodes = before;
    nodes.push(node);
    nodes.extend(after);
    Ok(Some(Expansion { constants, nodes }))
}

/// An error unless `node`'s operator is the same at `opset` as at [`OLDEST_OPSET`] (by
/// the schema table, which records each version whose inputs or attributes changed).
fn older_than_converted(node: &NodeProto, opset: i64) -> Result<(), Problem> {
    let since = |o: i64| match lookup(&node.op_type, o) {
        Lookup::Found(s) => Some(s.since),
        _ => None,
    };
    let (then, oldest) = (since(opset), since(OLDEST_OPSET));
    if then == oldest {
        return Ok(());
    }
    let changed = match oldest {
        Some(v) => format!("'{}' changed in opset {v}", node.op_type),
        None => format!("'{}' was removed by opset {OLDEST_OPSET}", node.op_type),
    };
    Err(Problem::new(
        ProblemKind::UnsupportedFeature,
        format!(
            "the model's default-domain opset {opset} is older than the oldest opset \
             TensorBind converts ({OLDEST_OPSET}) and {changed}; upgrade the model first \
             (onnx.version_converter.convert_version)"
        ),
    ))
}

/// A node being rewritten, with the nodes that feed it and those that follow it.
struct Rewrite<'a, 'f> {
    node: NodeProto,
    inputs: &'a [Option<InputFacts<'f>>],
    before: Vec<NodeProto>,
    after: Vec<NodeProto>,
    constants: Vec<(String, Tensor)>,
    fresh: usize,
}

impl Rewrite<'_, '_> {
    /// A name no model value has: the node's first output, then a `/tb.opset.` segment
    /// (the expansions converters make use `/tb.` and an op name or `const`).
    fn fresh_name(&mut self, what: &str) -> String {
        let base = self.node.output.first().map_or("", String::as_str);
        self.fresh += 1;
        format!("{base}/tb.opset.{what}{}", self.fresh)
    }

    fn facts(&self, i: usize) -> Result<&InputFacts<'_>, Problem> {
        self.inputs
            .get(i)
            .and_then(|f| f.as_ref())
            .ok_or_else(|| Problem::invalid(format!("input #{i} is required but missing")))
    }

    /// Removes attribute `name`, returning it.
    fn take(&mut self, name: &str) -> Option<AttributeProto> {
        let at = self.node.attribute.iter().position(|a| a.name == name)?;
        Some(self.node.attribute.remove(at))
    }

    fn take_int(&mut self, name: &str) -> Result<Option<i64>, Problem> {
        let v = self.node.attr_int(name).map_err(attr_problem)?;
        self.take(name);
        Ok(v)
    }

    fn take_ints(&mut self, name: &str) -> Result<Option<Vec<i64>>, Problem> {
        let v = self.node.attr_ints(name).map_err(attr_problem)?;
        self.take(name);
        Ok(v)
    }

    fn take_float(&mut self, name: &str) -> Result<Option<f32>, Problem> {
        let v = self.node.attr_float(name).map_err(attr_problem)?;
        self.take(name);
        Ok(v)
    }

    fn take_floats(&mut self, name: &str) -> Result<Option<Vec<f32>>, Problem> {
        let v = self.node.attr_floats(name).map_err(attr_problem)?;
        self.take(name);
        Ok(v)
    }

    fn constant(&mut self, what: &str, t: Tensor) -> String {
        let name = self.fresh_name(what);
        self.constants.push((name.clone(), t));
        name
    }

    fn ints(&mut self, what: &str, v: &[i64]) -> String {
        let t = Tensor::from_vec(vec![v.len() as i64], v.to_vec())
            .expect("a vector's length matches its shape");
        self.constant(what, t)
    }

    /// Makes input `i` of the node `name`, leaving `""` in any gap before it.
    fn set_input(&mut self, i: usize, name: String) {
        if self.node.input.len() <= i {
            self.node.input.resize(i + 1, String::new());
        }
        self.node.input[i] = name;
    }

    /// The node's output `k` becomes a fresh value, which the caller turns into the old
    /// output with nodes after it; gives (fresh, old).
    fn redirect_output(&mut self, k: usize, what: &str) -> Result<(String, String), Problem> {
        if self.node.output.get(k).is_none_or(String::is_empty) {
            return Err(Problem::invalid(format!(
                "output #{k} is required but missing"
            )));
        }
        let fresh = self.fresh_name(what);
        let old = std::mem::replace(&mut self.node.output[k], fresh.clone());
        Ok((fresh, old))
    }

    /// A node after the converted one.
    fn push_after(
        &mut self,
        op_type: &str,
        inputs: &[&str],
        output: &str,
        attrs: Vec<AttributeProto>,
    ) {
        let node = self.sibling(op_type, inputs, output, attrs);
        self.after.push(node);
    }

    fn push_before(
        &mut self,
        op_type: &str,
        inputs: &[&str],
        output: &str,
        attrs: Vec<AttributeProto>,
    ) {
        let node = self.sibling(op_type, inputs, output, attrs);
        self.before.push(node);
    }

    /// A node named as the converted one, so that problems and locations point at it.
    fn sibling(
        &self,
        op_type: &str,
        inputs: &[&str],
        output: &str,
        attrs: Vec<AttributeProto>,
    ) -> NodeProto {
        NodeProto {
            op_type: op_type.into(),
            name: self.node.name.clone(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.to_string()],
            attribute: attrs,
            ..Default::default()
        }
    }
}

/// `axis` in `[-rank, rank)` as a non-negative axis.
fn normalize_axis(axis: i64, rank: i64) -> Result<i64, Problem> {
    if axis < -rank || axis >= rank.max(1) {
        return Err(Problem::invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    }
    Ok(if axis < 0 { axis + rank } else { axis })
}

/// Softmax, LogSoftmax and Hardmax before 13 coerce the input to 2-D at `axis` (default:
/// axis 1) and normalize over the second dimension, i.e. over every axis from `axis` on;
/// since 13 they normalize along `axis` alone. The same when `axis` is the last axis;
/// otherwise Flatten at `axis`, the op along axis 1, and a Reshape back to the input's
/// shape.
fn softmax_2d_coercion(r: &mut Rewrite) -> Result<(), Problem> {
    let axis = r.take_int("axis")?.unwrap_or(1);
    let shape = r.facts(0)?.shape.clone();
    let rank = shape.len() as i64;
    let axis = normalize_axis(axis, rank)?;
    if axis >= rank - 1 {
        r.node.attribute.push(int_attr("axis", -1));
        return Ok(());
    }
    let x = r.node.input[0].clone();
    let flat = r.fresh_name("flatten");
    r.push_before("Flatten", &[&x], &flat, vec![int_attr("axis", axis)]);
    r.node.input[0] = flat;
    r.node.attribute.push(int_attr("axis", 1));
    let (y2d, y) = r.redirect_output(0, "rows")?;
    let to = r.ints("shape", &shape);
    r.push_after("Reshape", &[&y2d, &to], &y, vec![]);
    Ok(())
}

/// TopK before 10: `k` is an attribute; since, a one-element input.
fn top_k_k_attribute(r: &mut Rewrite) -> Result<(), Problem> {
    let k = r
        .take_int("k")?
        .ok_or_else(|| Problem::invalid("attribute 'k' is required before opset 10"))?;
    let k = r.ints("k", &[k]);
    r.set_input(1, k);
    Ok(())
}

/// Slice before 10: `starts`, `ends` and `axes` are attributes; since, inputs 1–3.
fn slice_attributes(r: &mut Rewrite) -> Result<(), Problem> {
    for (i, key) in [(1, "starts"), (2, "ends"), (3, "axes")] {
        match r.take_ints(key)? {
            Some(v) => {
                let c = r.ints(key, &v);
                r.set_input(i, c);
            }
            None if key == "axes" => {}
            None => {
                return Err(Problem::invalid(format!(
                    "attribute '{key}' is required before opset 10"
                )));
            }
        }
    }
    Ok(())
}

/// Pad before 11: `pads` and the constant `value` (default 0) are attributes; since,
/// input 1 and, for the constant mode, a scalar input 2 of the data's element type.
fn pad_attributes(r: &mut Rewrite) -> Result<(), Problem> {
    let pads = r
        .take_ints("pads")?
        .ok_or_else(|| Problem::invalid("attribute 'pads' is required before opset 11"))?;
    let value = r.take_float("value")?.unwrap_or(0.0);
    let dtype = r.facts(0)?.dtype;
    let pads = r.ints("pads", &pads);
    r.set_input(1, pads);
    // The value only means something to (and is only accepted by) the constant mode.
    let mode = r
        .node
        .attr_string_or("mode", "constant")
        .map_err(attr_problem)?;
    if mode == "constant" {
        let value = r.constant("value", Tensor::scalar(value).cast(dtype));
        r.set_input(2, value);
    }
    Ok(())
}

/// Clip before 11: `min` and `max` are attributes (each optional); since, optional scalar
/// inputs 1 and 2 of the data's element type.
fn clip_attributes(r: &mut Rewrite) -> Result<(), Problem> {
    let dtype = r.facts(0)?.dtype;
    for (i, key) in [(1, "min"), (2, "max")] {
        if let Some(v) = r.take_float(key)? {
            let c = r.constant(key, Tensor::scalar(v).cast(dtype));
            r.set_input(i, c);
        }
    }
    Ok(())
}

/// Split before 13: the sizes are attribute `split`; since, input 1.
fn split_attribute(r: &mut Rewrite) -> Result<(), Problem> {
    if let Some(split) = r.take_ints("split")? {
        let c = r.ints("split", &split);
        r.set_input(1, c);
    }
    Ok(())
}

/// Squeeze, Unsqueeze and ReduceSum before 13: `axes` is an attribute; since, input 1.
fn axes_attribute(r: &mut Rewrite) -> Result<(), Problem> {
    if let Some(axes) = r.take_ints("axes")? {
        let c = r.ints("axes", &axes);
        r.set_input(1, c);
    }
    Ok(())
}

/// Dropout before 10: the mask has the data's element type (ones); since, it is bool.
fn dropout_mask_type(r: &mut Rewrite) -> Result<(), Problem> {
    if r.node.output.get(1).is_some_and(|m| !m.is_empty()) {
        let dtype = r.facts(0)?.dtype;
        let (mask, old) = r.redirect_output(1, "mask")?;
        r.push_after("Cast", &[&mask], &old, vec![to_attr(dtype)]);
    }
    Ok(())
}

/// Dropout before 12 leaves the mask of an inference run unspecified; onnxruntime writes
/// zeros (false), where 12 on specifies ones (true): the mask is negated.
fn dropout_mask_zeros(r: &mut Rewrite) -> Result<(), Problem> {
    if r.node.output.get(1).is_some_and(|m| !m.is_empty()) {
        let (mask, old) = r.redirect_output(1, "mask")?;
        r.push_after("Not", &[&mask], &old, vec![]);
    }
    Ok(())
}

/// Dropout before 12: `ratio` is an attribute; since, input 1. At inference it has no
/// effect, but it is carried over as the version converter does.
fn dropout_ratio_attribute(r: &mut Rewrite) -> Result<(), Problem> {
    if let Some(ratio) = r.take_float("ratio")? {
        let c = r.constant("ratio", Tensor::scalar(ratio));
        r.set_input(1, c);
    }
    Ok(())
}

/// BatchNormalization before 9: `spatial` = 1 (the default) is today's per-channel rule;
/// `spatial` = 0 (statistics per element of a sample) has no opset-13 form, and
/// onnxruntime refuses it as well. `momentum` stays: it only concerns training.
fn batch_norm_spatial(r: &mut Rewrite) -> Result<(), Problem> {
    if r.take_int("spatial")?.unwrap_or(1) == 0 {
        return Err(Problem::new(
            ProblemKind::UnsupportedFeature,
            "BatchNormalization with spatial = 0 (statistics per element, before opset 9) \
             is not supported",
        ));
    }
    Ok(())
}

/// Scatter (opsets 9–10, deprecated in 11) is ScatterElements under its old name.
fn scatter_is_scatter_elements(r: &mut Rewrite) -> Result<(), Problem> {
    r.node.op_type = "ScatterElements".into();
    Ok(())
}

/// Upsample (deprecated in 10): `scales` is an attribute before 9 and input 1 since. It is
/// Resize with `scales`, asymmetric coordinates (`x / scale`) and nearest samples rounded
/// down, as onnxruntime computes it.
fn upsample_is_resize(r: &mut Rewrite) -> Result<(), Problem> {
    r.node.op_type = "Resize".into();
    let scales = match r.take_floats("scales")? {
        Some(s) => {
            let n = s.len() as i64;
            r.constant(
                "scales",
                Tensor::from_vec(vec![n], s).expect("length matches"),
            )
        }
        None => r.node.input.get(1).cloned().unwrap_or_default(),
    };
    r.node.input.truncate(1);
    r.set_input(2, scales);
    r.node
        .attribute
        .push(string_attr("coordinate_transformation_mode", "asymmetric"));
    r.node.attribute.push(string_attr("nearest_mode", "floor"));
    Ok(())
}

/// Resize 10 takes only `scales` (input 1) and maps coordinates asymmetrically; nearest
/// samples are rounded down when upsampling and up when downsampling (onnxruntime's rule
/// for opset 10). Since 11, `roi` (input 1) comes before `scales` (input 2), and the
/// coordinate mapping and the rounding are attributes.
fn resize_10_scales_only(r: &mut Rewrite) -> Result<(), Problem> {
    let scales = r.node.input.get(1).cloned().unwrap_or_default();
    let mode = r
        .node
        .attr_string_or("mode", "nearest")
        .map_err(attr_problem)?;
    let nearest = if mode == "nearest" {
        let values = r.facts(1)?.value.map(|t| t.to_f64_vec()).ok_or_else(|| {
            Problem::new(
                ProblemKind::NotConstant,
                format!(
                    "input '{scales}' (scales) must be a constant known at import time, \
                         but it is computed at run time"
                ),
            )
        })?;
        let down = values.iter().any(|&s| s < 1.0);
        let up = values.iter().any(|&s| s > 1.0);
        if down && up {
            return Err(Problem::unsupported(
                "Resize before opset 11 in nearest mode with scales both below and above 1 \
                 (rounded up on some axes, down on others) is not supported",
            ));
        }
        if down { "ceil" } else { "floor" }
    } else {
        "floor"
    };
    r.node.input.truncate(1);
    r.set_input(2, scales);
    r.node
        .attribute
        .push(string_attr("coordinate_transformation_mode", "asymmetric"));
    r.node.attribute.push(string_attr("nearest_mode", nearest));
    Ok(())
}

/// Resize 11–12's `tf_half_pixel_for_nn` maps an output index to `(x + 0.5) / scale`, which
/// 13 dropped. That is half-pixel's coordinate plus one half, so its rounding is half-pixel
/// with the rounding shifted by a half: `round_prefer_floor(y)` is `ceil(y - 0.5)` and
/// `floor(y)` is `round_prefer_ceil(y - 0.5)`. The other two roundings have no such form.
fn resize_tf_half_pixel_for_nn(r: &mut Rewrite) -> Result<(), Problem> {
    let mode = r
        .node
        .attr_string_or("coordinate_transformation_mode", "half_pixel")
        .map_err(attr_problem)?;
    if mode != "tf_half_pixel_for_nn" {
        return Ok(());
    }
    let sampling = r
        .node
        .attr_string_or("mode", "nearest")
        .map_err(attr_problem)?;
    if sampling != "nearest" {
        return Err(Problem::unsupported(format!(
            "Resize's coordinate_transformation_mode \"tf_half_pixel_for_nn\" with mode \
             \"{sampling}\" is not supported"
        )));
    }
    let rounding = r
        .node
        .attr_string_or("nearest_mode", "round_prefer_floor")
        .map_err(attr_problem)?;
    let shifted = match rounding.as_str() {
        "round_prefer_floor" => "ceil",
        "floor" => "round_prefer_ceil",
        other => {
            return Err(Problem::unsupported(format!(
                "Resize's coordinate_transformation_mode \"tf_half_pixel_for_nn\" with \
                 nearest_mode \"{other}\" is not supported"
            )));
        }
    };
    r.take("coordinate_transformation_mode");
    r.take("nearest_mode");
    r.node
        .attribute
        .push(string_attr("coordinate_transformation_mode", "half_pixel"));
    r.node.attribute.push(string_attr("nearest_mode", shifted));
    Ok(())
}
