//! GridSample imported as gathers of the input at computed positions, as ONNX's reference
//! computes it: each grid coordinate is denormalized (per `align_corners`), rounded for
//! `nearest`, brought back into range by `border` or `reflection` padding, split into the
//! taps of its mode (1 nearest, 2 linear, 4 cubic per axis) whose indices are padded again,
//! and the taps of all spatial axes are combined into flat indices and weights. Works for
//! any number of spatial axes (2-D images, 3-D volumes).

use tb_interpreter::{DType, Tensor};

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Nearest,
    Linear,
    Cubic,
}

#[derive(Clone, Copy, PartialEq)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

/// Builds the f32 arithmetic of one spatial axis of `size` elements.
struct Axis<'e, 'n> {
    e: &'e mut Expander<'n>,
    size: i64,
    padding: Padding,
    /// The range a coordinate may take before padding moves it: [-0.5, size - 0.5], or
    /// [0, size - 1] with align_corners.
    low: f64,
    high: f64,
}

/// One tap of an axis: its index (in range, as f32) and its weight (None for 1).
struct Tap {
    index: String,
    weight: Option<String>,
}

impl Axis<'_, '_> {
    fn c(&mut self, v: f64) -> String {
        self.e.scalar_like(v, DType::F32)
    }

    fn op(&mut self, op: &str, inputs: &[&str]) -> String {
        self.e.op(op, inputs, vec![])
    }

    /// ONNX's reference reflection of `p` into [low, high].
    fn reflect(&mut self, p: &str) -> String {
        let (low, high) = (self.c(self.low), self.c(self.high));
        let span = self.c(self.high - self.low);
        let below = self.op("Sub", &[&low, p]);
        let above = self.op("Sub", &[p, &high]);
        let distance = self.op("Max", &[&below, &above]);
        let ratio = self.op("Div", &[&distance, &span]);
        let folds = self.op("Floor", &[&ratio]);
        let folded = self.op("Mul", &[&folds, &span]);
        let rest = self.op("Sub", &[&distance, &folded]);
        // Odd number of folds: Mod of a float by 2.
        let two = self.c(2.0);
        let halves = self.op("Div", &[&folds, &two]);
        let halves = self.op("Floor", &[&halves]);
        let evens = self.op("Mul", &[&halves, &two]);
        let parity = self.op("Sub", &[&folds, &evens]);
        let one = self.c(1.0);
        let odd = self.op("Equal", &[&parity, &one]);
        let is_below = self.op("Less", &[p, &low]);
        let from_low = self.op("Xor", &[&is_below, &odd]);
        let up = self.op("Add", &[&low, &rest]);
        let down = self.op("Sub", &[&high, &rest]);
        self.op("Where", &[&from_low, &up, &down])
    }

    /// The coordinate after the padding mode's out-of-range rule.
    fn in_range(&mut self, p: &str) -> String {
        if self.padding == Padding::Zeros {
            return p.to_string();
        }
        let (low, high) = (self.c(self.low), self.c(self.high));
        let below = self.op("Less", &[p, &low]);
        let above = self.op("Greater", &[p, &high]);
        let outside = self.op("Or", &[&below, &above]);
        let moved = if self.padding == Padding::Border {
            let (zero, last) = (self.c(0.0), self.c((self.size - 1) as f64));
            self.op("Clip", &[p, &zero, &last])
        } else {
            self.reflect(p)
        };
        self.op("Where", &[&outside, &moved, p])
    }

    /// An integer-valued index padded as the mode says: clamped (border), reflected
    /// (reflection), or clamped with a 0/1 validity factor (zeros).
    fn tap(&mut self, index: String, weight: Option<String>) -> Tap {
        let (zero, last) = (self.c(0.0), self.c((self.size - 1) as f64));
        match self.padding {
            Padding::Border => Tap {
                index: self.op("Clip", &[&index, &zero, &last]),
                weight,
            },
            Padding::Reflection => {
                let reflected = self.reflect(&index);
                let (low, high) = (self.c(self.low), self.c(self.high));
                let below = self.op("Less", &[&index, &low]);
                let above = self.op("Greater", &[&index, &high]);
                let outside = self.op("Or", &[&below, &above]);
                let moved = self.op("Where", &[&outside, &reflected, &index]);
                let whole = self.op("Floor", &[&moved]);
                Tap {
                    index: self.op("Clip", &[&whole, &zero, &last]),
                    weight,
                }
            }
            Padding::Zeros => {
                let below = self.op("Less", &[&index, &zero]);
                let above = self.op("Greater", &[&index, &last]);
                let outside = self.op("Or", &[&below, &above]);
                let one = self.c(1.0);
                let valid = self.op("Where", &[&outside, &zero, &one]);
                let weight = match weight {
                    Some(w) => self.op("Mul", &[&w, &valid]),
                    None => valid,
                };
                Tap {
                    index: self.op("Clip", &[&index, &zero, &last]),
                    weight: Some(weight),
                }
            }
        }
    }

    /// The taps of coordinate `p` (already denormalized and in range) for `mode`.
    fn taps(&mut self, p: &str, mode: Mode) -> Vec<Tap> {
        match mode {
            Mode::Nearest => {
                // Truncation toward zero, as the reference's cast to int32.
                let zero = self.c(0.0);
                let negative = self.op("Less", &[p, &zero]);
                let up = self.op("Ceil", &[p]);
                let down = self.op("Floor", &[p]);
                let index = self.op("Where", &[&negative, &up, &down]);
                vec![self.tap(index, None)]
            }
            Mode::Linear => {
                let base = self.op("Floor", &[p]);
                let t = self.op("Sub", &[p, &base]);
                let one = self.c(1.0);
                let rest = self.op("Sub", &[&one, &t]);
                let next = self.op("Add", &[&base, &one]);
                vec![self.tap(base, Some(rest)), self.tap(next, Some(t))]
            }
            Mode::Cubic => {
                let base = self.op("Floor", &[p]);
                let t = self.op("Sub", &[p, &base]);
                (-1..=2)
                    .map(|k| {
                        let weight = self.cubic_weight(&t, k);
                        let offset = self.c(k as f64);
                        let index = self.op("Add", &[&base, &offset]);
                        self.tap(index, Some(weight))
                    })
                    .collect()
            }
        }
    }

    /// Keys' cubic weight (a = -0.75) of the tap at offset `k` from floor(p), t = p - floor(p).
    fn cubic_weight(&mut self, t: &str, k: i64) -> String {
        const A: f64 = -0.75;
        // Distance from the tap: |t - k|, in [0, 2).
        let offset = self.c(k as f64);
        let d = self.op("Sub", &[t, &offset]);
        let d = self.op("Abs", &[&d]);
        // Near (d < 1): ((A + 2) d - (A + 3)) d² + 1; far: ((A d - 5A) d + 8A) d - 4A.
        let (c1, c2, c3) = if k == 0 || k == 1 {
            (A + 2.0, -(A + 3.0), 0.0)
        } else {
            (A, -5.0 * A, 8.0 * A)
        };
        let (c1, c2) = (self.c(c1), self.c(c2));
        let lead = self.op("Mul", &[&c1, &d]);
        let lead = self.op("Add", &[&lead, &c2]);
        let lead = self.op("Mul", &[&lead, &d]);
        if k == 0 || k == 1 {
            let lead = self.op("Mul", &[&lead, &d]);
            let one = self.c(1.0);
            self.op("Add", &[&lead, &one])
        } else {
            let c3 = self.c(c3);
            let lead = self.op("Add", &[&lead, &c3]);
            let lead = self.op("Mul", &[&lead, &d]);
            let c4 = self.c(-4.0 * A);
            self.op("Add", &[&lead, &c4])
        }
    }
}

pub fn grid_sample(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    if !dtype.is_float() || !cx.input(1)?.dtype.is_float() {
        return Err(Problem::invalid(
            "X and grid must be floating-point tensors",
        ));
    }
    let x_shape = cx.shape(0)?.to_vec();
    let grid_shape = cx.shape(1)?.to_vec();
    let spatial = x_shape.len().saturating_sub(2);
    if spatial == 0
        || grid_shape.len() != spatial + 2
        || grid_shape[0] != x_shape[0]
        || grid_shape[spatial + 1] != spatial as i64
    {
        return Err(Problem::invalid(format!(
            "grid {grid_shape:?} must be [N, out..., {spatial}] for X {x_shape:?}"
        )));
    }
    let mode = match n
        .attr_string_or("mode", if cx.opset >= 20 { "linear" } else { "bilinear" })
        .map_err(attr_problem)?
        .as_str()
    {
        "nearest" => Mode::Nearest,
        "linear" | "bilinear" => Mode::Linear,
        "cubic" | "bicubic" => Mode::Cubic,
        other => {
            return Err(Problem::invalid(format!(
                "mode must be nearest, linear or cubic, got \"{other}\""
            )));
        }
    };
    let padding = match n
        .attr_string_or("padding_mode", "zeros")
        .map_err(attr_problem)?
        .as_str()
    {
        "zeros" => Padding::Zeros,
        "border" => Padding::Border,
        "reflection" => Padding::Reflection,
        other => {
            return Err(Problem::invalid(format!(
                "padding_mode must be zeros, border or reflection, got \"{other}\""
            )));
        }
    };
    let align = n.attr_int_or("align_corners", 0).map_err(attr_problem)? != 0;
    let (batch, channels) = (x_shape[0], x_shape[1]);
    let sizes = &x_shape[2..];
    let out_dims = &grid_shape[1..=spatial];
    let outputs: i64 = out_dims.iter().product();
    let taps_per_axis: i64 = match mode {
        Mode::Nearest => 1,
        Mode::Linear => 2,
        Mode::Cubic => 4,
    };
    if taps_per_axis.pow(spatial as u32) > 256 {
        return Err(Problem::unsupported(format!(
            "{spatial} spatial axes in this mode need too many taps"
        )));
    }
    let mut e = Expander::new(n);
    let grid = e.op("Cast", &[&n.input[1]], vec![to_attr(DType::F32)]);
    // Per spatial axis, its taps over the output positions ([N, out...]).
    let mut axes_taps = Vec::new();
    for (a, &size) in sizes.iter().enumerate() {
        let component = e.constant(Tensor::scalar((spatial - 1 - a) as i64));
        let c = e.op(
            "Gather",
            &[&grid, &component],
            vec![int_attr("axis", spatial as i64 + 1)],
        );
        let (low, high) = if align {
            (0.0, (size - 1) as f64)
        } else {
            (-0.5, size as f64 - 0.5)
        };
        let mut axis = Axis {
            e: &mut e,
            size,
            padding,
            low,
            high,
        };
        let one = axis.c(1.0);
        let shifted = axis.op("Add", &[&c, &one]);
        let p = if align {
            let f = axis.c((size - 1) as f64 / 2.0);
            axis.op("Mul", &[&shifted, &f])
        } else {
            let s = axis.c(size as f64);
            let scaled = axis.op("Mul", &[&shifted, &s]);
            let scaled = axis.op("Sub", &[&scaled, &one]);
            let half = axis.c(0.5);
            axis.op("Mul", &[&scaled, &half])
        };
        let p = if mode == Mode::Nearest {
            axis.op("Round", &[&p])
        } else {
            p
        };
        let p = axis.in_range(&p);
        axes_taps.push(axis.taps(&p, mode));
    }
    // Every combination of one tap per axis: a flat index and a weight.
    let strides: Vec<i64> = (0..spatial)
        .map(|a| sizes[a + 1..].iter().product())
        .collect();
    let flat_view = e.ints(&[batch, 1, outputs]);
    let full = e.ints(&[batch, channels, outputs]);
    let image_view = e.ints(&[batch, channels, sizes.iter().product()]);
    let image = e.op("Reshape", &[&n.input[0], &image_view], vec![]);
    let combos = taps_per_axis.pow(spatial as u32);
    let mut sum: Option<String> = None;
    for combo in 0..combos {
        let mut index: Option<String> = None;
        let mut weight: Option<String> = None;
        let mut rest = combo;
        for (a, taps) in axes_taps.iter().enumerate() {
            let tap = &taps[(rest % taps_per_axis) as usize];
            rest /= taps_per_axis;
            let stride = e.scalar_like(strides[a] as f64, DType::F32);
            let term = e.op("Mul", &[&tap.index, &stride], vec![]);
            index = Some(match index {
                Some(i) => e.op("Add", &[&i, &term], vec![]),
                None => term,
            });
            if let Some(w) = &tap.weight {
                weight = Some(match weight {
                    Some(acc) => e.op("Mul", &[&acc, w], vec![]),
                    None => w.clone(),
                });
            }
        }
        let index = index.expect("at least one spatial axis");
        let index = e.op("Cast", &[&index], vec![to_attr(DType::I64)]);
        let index = e.op("Reshape", &[&index, &flat_view], vec![]);
        let index = e.op("Expand", &[&index, &full], vec![]);
        let picked = e.op(
            "GatherElements",
            &[&image, &index],
            vec![int_attr("axis", 2)],
        );
        let term = match weight {
            Some(w) => {
                let w = e.op("Cast", &[&w], vec![to_attr(dtype)]);
                let w = e.op("Reshape", &[&w, &flat_view], vec![]);
                e.op("Mul", &[&picked, &w], vec![])
            }
            None => picked,
        };
        sum = Some(match sum {
            Some(s) => e.op("Add", &[&s, &term], vec![]),
            None => term,
        });
    }
    let mut out_shape = vec![batch, channels];
    out_shape.extend_from_slice(out_dims);
    let out_shape = e.ints(&out_shape);
    let sum = sum.expect("at least one tap");
    e.op_to("Reshape", &[&sum, &out_shape], vec![], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}
