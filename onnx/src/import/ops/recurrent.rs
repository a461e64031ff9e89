//! The recurrent operators RNN, GRU and LSTM, imported unrolled over their (static)
//! sequence length: one matmul of the whole input by each direction's input weights, then
//! per time step the recurrence in graph ops, the way ONNX's operator specification
//! defines each cell. Forward, reverse and bidirectional, both layouts, initial states,
//! biases, peepholes, `clip` and the activations the graph dialect has. Sequence lengths
//! must all equal the sequence's (padding inside a batch is not supported).

use tb_interpreter::Tensor;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

#[derive(Clone, Copy, PartialEq)]
enum Cell {
    Rnn,
    Gru,
    Lstm,
}

impl Cell {
    fn gates(self) -> i64 {
        match self {
            Cell::Rnn => 1,
            Cell::Gru => 3,
            Cell::Lstm => 4,
        }
    }

    /// ONNX's default activations of one direction.
    fn default_activations(self) -> &'static [&'static str] {
        match self {
            Cell::Rnn => &["Tanh"],
            Cell::Gru => &["Sigmoid", "Tanh"],
            Cell::Lstm => &["Sigmoid", "Tanh", "Tanh"],
        }
    }
}

/// What the unrolled steps share.
struct Steps<'a> {
    hidden: i64,
    clip: Option<String>,
    activations: &'a [String],
    linear_before_reset: bool,
}

impl Steps<'_> {
    /// Activation `k` of this direction, after the clip.
    fn activate(&self, e: &mut Expander, k: usize, v: &str) -> String {
        let v = match &self.clip {
            Some(c) => {
                let low = e.op("Neg", &[c], vec![]);
                e.op("Clip", &[v, &low, c], vec![])
            }
            None => v.to_string(),
        };
        e.op(&self.activations[k], &[&v], vec![])
    }

    /// Columns `gate * hidden ..` of a `[.., gates * hidden]` value.
    fn gate(&self, e: &mut Expander, v: &str, gate: i64, rank_axis: i64) -> String {
        let h = self.hidden;
        let (s, en, ax) = (
            e.ints(&[gate * h]),
            e.ints(&[(gate + 1) * h]),
            e.ints(&[rank_axis]),
        );
        e.op("Slice", &[v, &s, &en, &ax], vec![])
    }
}

fn scalar_index(e: &mut Expander, i: i64) -> String {
    e.constant(Tensor::scalar(i))
}

/// Slice `d` of a per-direction input `[D, ...]`.
fn direction_slice(e: &mut Expander, v: &str, d: i64) -> String {
    let i = scalar_index(e, d);
    e.op("Gather", &[v, &i], vec![int_attr("axis", 0)])
}

fn supported_activation(name: &str) -> Result<&'static str, Problem> {
    Ok(match name {
        "Relu" => "Relu",
        "Tanh" => "Tanh",
        "Sigmoid" => "Sigmoid",
        "Softsign" => "Softsign",
        "Softplus" => "Softplus",
        other => {
            return Err(Problem::unsupported(format!(
                "activation '{other}' is not supported (Relu, Tanh, Sigmoid, Softsign and \
                 Softplus are)"
            )));
        }
    })
}

pub fn rnn(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    recurrent(cx, Cell::Rnn)
}

pub fn gru(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    recurrent(cx, Cell::Gru)
}

pub fn lstm(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    recurrent(cx, Cell::Lstm)
}

fn recurrent(cx: &mut NodeCx, cell: Cell) -> Result<Lowering, Problem> {
    let outputs = if cell == Cell::Lstm { 3 } else { 2 };
    cx.at_most_outputs(outputs)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::invalid(format!(
            "X must be a floating-point tensor, got {dtype}"
        )));
    }
    let x_shape = cx.shape(0)?.to_vec();
    let batch_major = n.attr_int_or("layout", 0).map_err(attr_problem)? == 1;
    let [a, b, input_size] = x_shape[..] else {
        return Err(Problem::invalid(format!(
            "X must be 3-D, got shape {x_shape:?}"
        )));
    };
    let (steps, batch) = if batch_major { (b, a) } else { (a, b) };
    let directions: Vec<bool> = match n
        .attr_string_or("direction", "forward")
        .map_err(attr_problem)?
        .as_str()
    {
        "forward" => vec![false],
        "reverse" => vec![true],
        "bidirectional" => vec![false, true],
        other => {
            return Err(Problem::invalid(format!(
                "direction must be forward, reverse or bidirectional, got \"{other}\""
            )));
        }
    };
    let dirs = directions.len() as i64;
    let hidden = match n.attr_int("hidden_size").map_err(attr_problem)? {
        Some(h) => h,
        None => *cx.shape(2)?.last().unwrap_or(&0),
    };
    let gh = cell.gates() * hidden;
    for (i, what, expected) in [
        (1, "W", vec![dirs, gh, input_size]),
        (2, "R", vec![dirs, gh, hidden]),
        (3, "B", vec![dirs, 2 * gh]),
        (7, "P", vec![dirs, 3 * hidden]),
    ] {
        if cx.has_input(i) && cx.shape(i)? != expected.as_slice() {
            return Err(Problem::invalid(format!(
                "{what} must have shape {expected:?}, got {:?}",
                cx.shape(i)?
            )));
        }
    }
    let state_shape = if batch_major {
        vec![batch, dirs, hidden]
    } else {
        vec![dirs, batch, hidden]
    };
    for (i, what) in [(5, "initial_h"), (6, "initial_c")] {
        if cx.has_input(i) && cx.shape(i)? != state_shape.as_slice() {
            return Err(Problem::invalid(format!(
                "{what} must have shape {state_shape:?}, got {:?}",
                cx.shape(i)?
            )));
        }
    }
    if cx.has_input(4) {
        let lens = cx.constant_ints(4, "sequence_lens")?;
        if lens.iter().any(|&l| l != steps) {
            return Err(Problem::unsupported(format!(
                "sequence_lens {lens:?} shorter than the sequence ({steps}) is not supported"
            )));
        }
    }
    for key in ["activation_alpha", "activation_beta"] {
        if n.attribute(key).is_some() {
            return Err(Problem::unsupported(format!(
                "attribute '{key}' is not supported"
            )));
        }
    }
    if n.attr_int_or("input_forget", 0).map_err(attr_problem)? != 0 {
        return Err(Problem::unsupported("input_forget = 1 is not supported"));
    }
    let per_direction = cell.default_activations().len();
    let activations: Vec<String> = match n.attr_strings("activations").map_err(attr_problem)? {
        Some(names) => {
            if names.len() != per_direction * directions.len() {
                return Err(Problem::invalid(format!(
                    "activations must name {} functions, got {}",
                    per_direction * directions.len(),
                    names.len()
                )));
            }
            names
                .iter()
                .map(|s| supported_activation(s).map(String::from))
                .collect::<Result<_, _>>()?
        }
        None => directions
            .iter()
            .flat_map(|_| cell.default_activations().iter().map(|s| s.to_string()))
            .collect(),
    };
    let linear_before_reset = n
        .attr_int_or("linear_before_reset", 0)
        .map_err(attr_problem)?
        != 0;
    let clip = n.attr_float("clip").map_err(attr_problem)?;

    let mut e = Expander::new(n);
    let clip = clip.map(|c| e.scalar_like(f64::from(c), dtype));
    let swap =
        |e: &mut Expander, v: &str| e.op("Transpose", &[v], vec![ints_attr("perm", &[1, 0, 2])]);
    let x = if batch_major {
        swap(&mut e, &n.input[0])
    } else {
        n.input[0].clone()
    };
    let initial = |e: &mut Expander, i: usize| {
        cx.has_input(i).then(|| {
            if batch_major {
                swap(e, &n.input[i])
            } else {
                n.input[i].clone()
            }
        })
    };
    let initial_h = initial(&mut e, 5);
    let initial_c = initial(&mut e, 6);
    let zeros = Tensor::from_vec(vec![batch, hidden], vec![0.0; (batch * hidden) as usize])
        .map_err(|m| Problem::invalid(m.0))?
        .cast(dtype);
    let zeros = e.constant(zeros);

    let (mut ys, mut hs, mut cs) = (Vec::new(), Vec::new(), Vec::new());
    for (d, &reverse) in directions.iter().enumerate() {
        let d = d as i64;
        let steps_cx = Steps {
            hidden,
            clip: clip.clone(),
            activations: &activations[d as usize * per_direction..][..per_direction],
            linear_before_reset,
        };
        let w = direction_slice(&mut e, &n.input[1], d);
        let w = e.op("Transpose", &[&w], vec![ints_attr("perm", &[1, 0])]);
        let r = direction_slice(&mut e, &n.input[2], d);
        let r = e.op("Transpose", &[&r], vec![ints_attr("perm", &[1, 0])]);
        let mut xw = e.op("MatMul", &[&x, &w], vec![]);
        // Biases: Wb + Rb join the input product, except a GRU's Rbh with
        // linear_before_reset, which stays inside the reset gate's product.
        let mut rbh = None;
        if cx.has_input(3) {
            let bias = direction_slice(&mut e, &n.input[3], d);
            let (s0, s1, s2, ax) = (e.ints(&[0]), e.ints(&[gh]), e.ints(&[2 * gh]), e.ints(&[0]));
            let wb = e.op("Slice", &[&bias, &s0, &s1, &ax], vec![]);
            let mut rb = e.op("Slice", &[&bias, &s1, &s2, &ax], vec![]);
            if cell == Cell::Gru && linear_before_reset {
                rbh = Some(steps_cx.gate(&mut e, &rb, 2, 0));
                let keep: Vec<f64> = (0..gh)
                    .map(|k| if k < 2 * hidden { 1.0 } else { 0.0 })
                    .collect();
                let keep = Tensor::from_vec(vec![gh], keep)
                    .map_err(|m| Problem::invalid(m.0))?
                    .cast(dtype);
                let keep = e.constant(keep);
                rb = e.op("Mul", &[&rb, &keep], vec![]);
            }
            let both = e.op("Add", &[&wb, &rb], vec![]);
            xw = e.op("Add", &[&xw, &both], vec![]);
        }
        let peepholes = if cx.has_input(7) {
            let p = direction_slice(&mut e, &n.input[7], d);
            Some([0, 1, 2].map(|g| steps_cx.gate(&mut e, &p, g, 0)))
        } else {
            None
        };
        let mut h = match &initial_h {
            Some(v) => direction_slice(&mut e, v, d),
            None => zeros.clone(),
        };
        let mut c = match &initial_c {
            Some(v) => direction_slice(&mut e, v, d),
            None => zeros.clone(),
        };
        let mut outputs = vec![String::new(); steps as usize];
        let order: Vec<i64> = if reverse {
            (0..steps).rev().collect()
        } else {
            (0..steps).collect()
        };
        for t in order {
            let at = scalar_index(&mut e, t);
            let xw_t = e.op("Gather", &[&xw, &at], vec![int_attr("axis", 0)]);
            match cell {
                Cell::Rnn => {
                    let hr = e.op("MatMul", &[&h, &r], vec![]);
                    let pre = e.op("Add", &[&xw_t, &hr], vec![]);
                    h = steps_cx.activate(&mut e, 0, &pre);
                }
                Cell::Gru => {
                    let hr = e.op("MatMul", &[&h, &r], vec![]);
                    let gate = |e: &mut Expander, g: i64| {
                        let xg = steps_cx.gate(e, &xw_t, g, 1);
                        let hg = steps_cx.gate(e, &hr, g, 1);
                        let pre = e.op("Add", &[&xg, &hg], vec![]);
                        steps_cx.activate(e, 0, &pre)
                    };
                    let z = gate(&mut e, 0);
                    let reset = gate(&mut e, 1);
                    let xh = steps_cx.gate(&mut e, &xw_t, 2, 1);
                    let recurrent = if steps_cx.linear_before_reset {
                        let hh = steps_cx.gate(&mut e, &hr, 2, 1);
                        let hh = match &rbh {
                            Some(b) => e.op("Add", &[&hh, b], vec![]),
                            None => hh,
                        };
                        e.op("Mul", &[&reset, &hh], vec![])
                    } else {
                        let rh = steps_cx.gate(&mut e, &r, 2, 1);
                        let gated = e.op("Mul", &[&reset, &h], vec![]);
                        e.op("MatMul", &[&gated, &rh], vec![])
                    };
                    let pre = e.op("Add", &[&xh, &recurrent], vec![]);
                    let candidate = steps_cx.activate(&mut e, 1, &pre);
                    // (1 - z) * candidate + z * h = candidate + z * (h - candidate).
                    let diff = e.op("Sub", &[&h, &candidate], vec![]);
                    let kept = e.op("Mul", &[&z, &diff], vec![]);
                    h = e.op("Add", &[&candidate, &kept], vec![]);
                }
                Cell::Lstm => {
                    let hr = e.op("MatMul", &[&h, &r], vec![]);
                    let pre = e.op("Add", &[&xw_t, &hr], vec![]);
                    // Gate order i, o, f, c; peepholes i, o, f.
                    let part = |e: &mut Expander, g: i64, peep: Option<usize>, state: &str| {
                        let v = steps_cx.gate(e, &pre, g, 1);
                        match (&peepholes, peep) {
                            (Some(p), Some(k)) => {
                                let term = e.op("Mul", &[&p[k], state], vec![]);
                                e.op("Add", &[&v, &term], vec![])
                            }
                            _ => v,
                        }
                    };
                    let i_pre = part(&mut e, 0, Some(0), &c);
                    let f_pre = part(&mut e, 2, Some(2), &c);
                    let c_pre = part(&mut e, 3, None, &c);
                    let i = steps_cx.activate(&mut e, 0, &i_pre);
                    let f = steps_cx.activate(&mut e, 0, &f_pre);
                    let candidate = steps_cx.activate(&mut e, 1, &c_pre);
                    let kept = e.op("Mul", &[&f, &c], vec![]);
                    let added = e.op("Mul", &[&i, &candidate], vec![]);
                    c = e.op("Add", &[&kept, &added], vec![]);
                    let o_pre = part(&mut e, 1, Some(1), &c);
                    let o = steps_cx.activate(&mut e, 0, &o_pre);
                    let shown = steps_cx.activate(&mut e, 2, &c);
                    h = e.op("Mul", &[&o, &shown], vec![]);
                }
            }
            outputs[t as usize] = h.clone();
        }
        let front = e.ints(&[0]);
        let stacked: Vec<String> = outputs
            .iter()
            .map(|o| e.op("Unsqueeze", &[o, &front], vec![]))
            .collect();
        let refs: Vec<&str> = stacked.iter().map(String::as_str).collect();
        let y = e.op("Concat", &refs, vec![int_attr("axis", 0)]);
        let direction_axis = e.ints(&[1]);
        ys.push(e.op("Unsqueeze", &[&y, &direction_axis], vec![]));
        hs.push(e.op("Unsqueeze", &[&h, &front], vec![]));
        cs.push(e.op("Unsqueeze", &[&c, &front], vec![]));
    }
    let wanted = |k: usize| n.output.get(k).filter(|o| !o.is_empty()).cloned();
    let finish = |e: &mut Expander, parts: &[String], axis: i64, perm: &[i64], out: String| {
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        if batch_major {
            let joined = e.op("Concat", &refs, vec![int_attr("axis", axis)]);
            e.op_to("Transpose", &[&joined], vec![ints_attr("perm", perm)], &out);
        } else {
            e.op_to("Concat", &refs, vec![int_attr("axis", axis)], &out);
        }
    };
    if let Some(out) = wanted(0) {
        finish(&mut e, &ys, 1, &[2, 0, 1, 3], out);
    }
    if let Some(out) = wanted(1) {
        finish(&mut e, &hs, 0, &[1, 0, 2], out);
    }
    if let Some(out) = wanted(2).filter(|_| cell == Cell::Lstm) {
        finish(&mut e, &cs, 0, &[1, 0, 2], out);
    }
    Ok(Lowering::Expand(e.finish()))
}
