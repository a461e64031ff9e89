//! DFT imported as matrix products along the signal axis, computed in f64: the transform's
//! cosine and sine matrices are constants once the signal and transform lengths are known
//! (`dft_length` and `axis` must be known at import time). Forward (full or one-sided),
//! inverse, and the inverse of a one-sided spectrum (a real signal, as numpy's irfft).
//! Truncation and zero-padding to `dft_length` are rows of zeros in the matrices.

use std::f64::consts::PI;

use tb_interpreter::{DType, Tensor};

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

fn scalar(cx: &NodeCx, i: usize, what: &str) -> Result<Option<i64>, Problem> {
    if !cx.has_input(i) {
        return Ok(None);
    }
    match cx.constant_ints(i, what)?.as_slice() {
        [v] => Ok(Some(*v)),
        other => Err(Problem::invalid(format!(
            "input '{what}' must hold one integer, got {}",
            other.len()
        ))),
    }
}

/// A `[rows, cols]` f64 matrix constant.
fn matrix(e: &mut Expander, rows: i64, cols: i64, f: impl Fn(i64, i64) -> f64) -> String {
    let values: Vec<f64> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| f(r, c))
        .collect();
    let t = Tensor::from_vec(vec![rows, cols], values).expect("a matrix's values fill its shape");
    e.constant(t)
}

pub fn dft(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::invalid(format!(
            "input must be a floating-point tensor, got {dtype}"
        )));
    }
    let shape = cx.shape(0)?.to_vec();
    let rank = shape.len() as i64;
    let parts = shape.last().copied().unwrap_or(0);
    if rank < 2 || !(parts == 1 || parts == 2) {
        return Err(Problem::invalid(format!(
            "input must be [..., signal, 1 or 2], got shape {shape:?}"
        )));
    }
    let axis = if cx.opset >= 20 {
        scalar(cx, 2, "axis")?.unwrap_or(-2)
    } else {
        n.attr_int_or("axis", 1).map_err(attr_problem)?
    };
    let axis = if axis < 0 { axis + rank } else { axis };
    if axis < 0 || axis >= rank - 1 {
        return Err(Problem::invalid(format!(
            "axis must name a signal axis (not the last) of rank {rank}"
        )));
    }
    let inverse = n.attr_int_or("inverse", 0).map_err(attr_problem)? != 0;
    let onesided = n.attr_int_or("onesided", 0).map_err(attr_problem)? != 0;
    let given = shape[axis as usize];
    let length = match scalar(cx, 1, "dft_length")? {
        Some(l) if l > 0 => l,
        Some(l) => {
            return Err(Problem::invalid(format!(
                "dft_length must be positive, got {l}"
            )));
        }
        None if inverse && onesided => 2 * (given - 1),
        None => given,
    };
    if length <= 0 || given.saturating_mul(length) > super::super::sizes::FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "a DFT of length {length} over {given} elements is not supported"
        )));
    }
    let mut e = Expander::new(n);
    let x = e.op("Cast", &[&n.input[0]], vec![to_attr(DType::F64)]);
    let last = e.ints(&[rank - 1]);
    let part = |e: &mut Expander, k: i64| {
        let (s, en) = (e.ints(&[k]), e.ints(&[k + 1]));
        let p = e.op("Slice", &[&x, &s, &en, &last], vec![]);
        e.op("Squeeze", &[&p, &last], vec![])
    };
    let re = part(&mut e, 0);
    let im = (parts == 2).then(|| part(&mut e, 1));
    // The signal axis last, so the transform is a matrix product.
    let mut perm: Vec<i64> = (0..rank - 1).filter(|&a| a != axis).collect();
    perm.push(axis);
    let mut back = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        back[p as usize] = i as i64;
    }
    let to_last =
        |e: &mut Expander, v: &str| e.op("Transpose", &[v], vec![ints_attr("perm", &perm)]);
    let re = to_last(&mut e, &re);
    let im = im.map(|im| to_last(&mut e, &im));
    let angle = move |j: i64, k: i64| 2.0 * PI * ((j * k) % length) as f64 / length as f64;
    let (cos, sin) = if inverse && onesided {
        // Bins past length / 2 are not used; the ones between DC and Nyquist count twice.
        let weight = move |k: i64| {
            if k > length / 2 {
                0.0
            } else if k == 0 || 2 * k == length {
                1.0
            } else {
                2.0
            }
        };
        let scale = 1.0 / length as f64;
        let cos = matrix(&mut e, given, length, |k, j| {
            weight(k) * angle(j, k).cos() * scale
        });
        let sin = matrix(&mut e, given, length, |k, j| {
            weight(k) * angle(j, k).sin() * scale
        });
        (cos, sin)
    } else {
        let bins = if onesided && !inverse {
            length / 2 + 1
        } else {
            length
        };
        let (scale, sign) = if inverse {
            (1.0 / length as f64, 1.0)
        } else {
            (1.0, -1.0)
        };
        let used = move |j: i64| if j < length { scale } else { 0.0 };
        let cos = matrix(&mut e, given, bins, |j, k| used(j) * angle(j, k).cos());
        let sin = matrix(&mut e, given, bins, |j, k| {
            sign * used(j) * angle(j, k).sin()
        });
        (cos, sin)
    };
    // (re + i im)(cos + i sin) with the signs folded into `sin`.
    let re_cos = e.op("MatMul", &[&re, &cos], vec![]);
    let re_sin = e.op("MatMul", &[&re, &sin], vec![]);
    let (real, imag) = match &im {
        Some(im) => {
            let im_cos = e.op("MatMul", &[im, &cos], vec![]);
            let im_sin = e.op("MatMul", &[im, &sin], vec![]);
            let real = e.op("Sub", &[&re_cos, &im_sin], vec![]);
            let imag = e.op("Add", &[&re_sin, &im_cos], vec![]);
            (real, imag)
        }
        None => (re_cos, re_sin),
    };
    let from_last = |e: &mut Expander, v: &str| {
        let v = e.op("Transpose", &[v], vec![ints_attr("perm", &back)]);
        e.op("Unsqueeze", &[&v, &last], vec![])
    };
    let real = from_last(&mut e, &real);
    let result = if inverse && onesided {
        real
    } else {
        let imag = from_last(&mut e, &imag);
        e.op("Concat", &[&real, &imag], vec![int_attr("axis", rank - 1)])
    };
    e.op_to("Cast", &[&result], vec![to_attr(dtype)], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}
