//! Einsum: a sum over the labels an equation leaves out of its output of the product of
//! its inputs, each read at its labels (`"bij,bjk->bik"`; `...` for broadcast leading
//! dimensions; without `->` the output is the ellipsis, then the labels used once, in
//! alphabetical order). [`einsum_plan`] resolves an equation against the input shapes
//! once, for the shape rule, the kernel and the te lowering.

use super::{KernelResult, fail, make, output_count, same_dtype};
use crate::tensor::{Element, Tensor, with_data};

/// An equation resolved against its input shapes: labels are numbered, the output's
/// first; `inputs[k][d]` is the label of input `k`'s dimension `d`, or `None` where that
/// dimension is a broadcast 1 (read at 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EinsumPlan {
    pub inputs: Vec<Vec<Option<usize>>>,
    /// The extent of every label; labels `0..output_rank` are the output's dimensions.
    pub extents: Vec<i64>,
    pub output_rank: usize,
}

impl EinsumPlan {
    pub fn output_shape(&self) -> Vec<i64> {
        self.extents[..self.output_rank].to_vec()
    }

    /// The extents of the summed labels (those after the output's).
    pub fn summed(&self) -> &[i64] {
        &self.extents[self.output_rank..]
    }
}

/// One term's labels: letters, with `None` standing for the ellipsis.
fn parse_term(term: &str) -> Result<Vec<Option<char>>, String> {
    let mut out = Vec::new();
    let mut rest = term;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            if out.contains(&None) {
                return Err(format!("term '{term}' has more than one ellipsis"));
            }
            out.push(None);
            rest = &rest[3..];
        } else if c.is_ascii_alphabetic() {
            out.push(Some(c));
            rest = &rest[1..];
        } else {
            return Err(format!(
                "term '{term}' has the character '{c}', not a letter"
            ));
        }
    }
    Ok(out)
}

/// Resolves `equation` against the input shapes.
pub fn einsum_plan(equation: &str, shapes: &[&[i64]]) -> Result<EinsumPlan, String> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<Vec<Option<char>>> = lhs.split(',').map(parse_term).collect::<Result<_, _>>()?;
    if terms.len() != shapes.len() {
        return Err(format!(
            "equation '{equation}' has {} inputs, the op {}",
            terms.len(),
            shapes.len()
        ));
    }
    // Every dimension's label: a letter, or the ellipsis' position from the right.
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
    enum Label {
        Ellipsis(usize),
        Letter(char),
    }
    let mut ellipsis_rank = 0;
    let mut expanded: Vec<Vec<Label>> = Vec::new();
    for (term, shape) in terms.iter().zip(shapes) {
        let letters = term.iter().filter(|l| l.is_some()).count();
        let has_ellipsis = term.contains(&None);
        if letters > shape.len() || (!has_ellipsis && letters != shape.len()) {
            return Err(format!(
                "term with {letters} labels does not fit an input of rank {}",
                shape.len()
            ));
        }
        let covered = shape.len() - letters;
        ellipsis_rank = ellipsis_rank.max(covered);
        let mut labels = Vec::with_capacity(shape.len());
        for l in term {
            match l {
                Some(c) => labels.push(Label::Letter(*c)),
                None => labels.extend((0..covered).rev().map(Label::Ellipsis)),
            }
        }
        expanded.push(labels);
    }
    let ellipsis: Vec<Label> = (0..ellipsis_rank).rev().map(Label::Ellipsis).collect();
    let output: Vec<Label> = match rhs {
        Some(r) => {
            let mut out = Vec::new();
            for l in parse_term(r)? {
                match l {
                    Some(c) => {
                        if out.contains(&Label::Letter(c)) {
                            return Err(format!("output label '{c}' appears twice"));
                        }
                        if !expanded.iter().flatten().any(|&x| x == Label::Letter(c)) {
                            return Err(format!("output label '{c}' is in no input"));
                        }
                        out.push(Label::Letter(c));
                    }
                    None => out.extend(ellipsis.iter().copied()),
                }
            }
            out
        }
        None => {
            let mut once: Vec<char> = Vec::new();
            for l in expanded.iter().flatten() {
                if let Label::Letter(c) = l {
                    let count = expanded.iter().flatten().filter(|&&x| x == *l).count();
                    if count == 1 && !once.contains(c) {
                        once.push(*c);
                    }
                }
            }
            once.sort_unstable();
            let mut out = ellipsis.clone();
            out.extend(once.into_iter().map(Label::Letter));
            out
        }
    };
    let mut order = output.clone();
    for l in expanded.iter().flatten() {
        if !order.contains(l) {
            order.push(*l);
        }
    }
    // Extents: equal where given, a 1 broadcasting against another size.
    let mut extents = vec![1i64; order.len()];
    let mut known = vec![false; order.len()];
    for (labels, shape) in expanded.iter().zip(shapes) {
        for (l, &d) in labels.iter().zip(shape.iter()) {
            let i = order
                .iter()
                .position(|x| x == l)
                .expect("every label is ordered");
            let broadcastable = matches!(l, Label::Ellipsis(_));
            if !known[i] || (broadcastable && extents[i] == 1) {
                extents[i] = d;
                known[i] = true;
            } else if extents[i] != d && !(broadcastable && d == 1) {
                return Err(format!(
                    "label {l:?} has sizes {} and {d} in equation '{equation}'",
                    extents[i]
                ));
            }
        }
    }
    let inputs = expanded
        .iter()
        .zip(shapes)
        .map(|(labels, shape)| {
            labels
                .iter()
                .zip(shape.iter())
                .map(|(l, &d)| {
                    let i = order
                        .iter()
                        .position(|x| x == l)
                        .expect("every label is ordered");
                    (d == extents[i] || d != 1).then_some(i)
                })
                .collect()
        })
        .collect();
    Ok(EinsumPlan {
        inputs,
        extents,
        output_rank: output.len(),
    })
}

/// Einsum of inputs of one numeric element type.
pub fn einsum(equation: &str, inputs: &[&Tensor]) -> KernelResult {
    const OP: &str = "Einsum";
    let dt = same_dtype(OP, inputs)?;
    if dt == crate::tensor::DType::Bool {
        return fail(OP, "is not defined on bool tensors");
    }
    let shapes: Vec<&[i64]> = inputs.iter().map(|t| t.shape()).collect();
    let plan = einsum_plan(equation, &shapes).or_else(|m| fail(OP, m))?;
    let out = plan.output_shape();
    let count = output_count(OP, &out)?;
    output_count(OP, plan.summed())?;
    let strides: Vec<Vec<usize>> = inputs
        .iter()
        .map(|t| super::index::strides(t.shape()))
        .collect();
    let labels = plan.extents.len();
    let total: usize = plan.extents.iter().map(|&e| e as usize).product();
    let mut acc_f = vec![0.0f64; count];
    let mut acc_i = vec![0i128; count];
    let float = dt.is_float();
    let values: Vec<Vec<f64>> = inputs
        .iter()
        .map(|t| {
            t.cast(crate::tensor::DType::F64)
                .as_slice::<f64>()
                .unwrap_or_default()
                .to_vec()
        })
        .collect();
    let ints: Vec<Vec<i64>> = if float {
        Vec::new()
    } else {
        inputs
            .iter()
            .map(|t| t.to_i64_vec().unwrap_or_default())
            .collect()
    };
    let summed: usize = plan.summed().iter().map(|&e| e as usize).product();
    let mut at = vec![0i64; labels];
    for n in 0..total {
        let (mut pf, mut pi) = (1.0f64, 1i128);
        for (k, dims) in plan.inputs.iter().enumerate() {
            let offset: usize = dims
                .iter()
                .enumerate()
                .map(|(d, l)| l.map_or(0, |l| at[l] as usize) * strides[k][d])
                .sum();
            if float {
                pf *= values[k][offset];
            } else {
                pi = pi.wrapping_mul(i128::from(ints[k][offset]));
            }
        }
        let o = n / summed.max(1);
        if float {
            acc_f[o] += pf;
        } else {
            acc_i[o] = acc_i[o].wrapping_add(pi);
        }
        for l in (0..labels).rev() {
            at[l] += 1;
            if at[l] < plan.extents[l] {
                break;
            }
            at[l] = 0;
        }
    }
    fn go<T: Element>(_: &[T], f: &[f64], i: &[i128], float: bool) -> Vec<T> {
        if float {
            f.iter().map(|&v| T::from_f64(v)).collect()
        } else {
            i.iter().map(|&v| T::from_i128(v)).collect()
        }
    }
    let data = with_data!(inputs[0].data(), v => Element::into_data(go(v, &acc_f, &acc_i, float)));
    make(OP, out, data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::TensorData;

    fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
        Tensor::new(shape.to_vec(), TensorData::F32(v.to_vec())).unwrap()
    }

    #[test]
    fn plans_name_output_labels_first() {
        let p = einsum_plan("ij,jk->ik", &[&[2, 3], &[3, 4]]).unwrap();
        assert_eq!(p.output_shape(), [2, 4]);
        assert_eq!(p.summed(), [3]);
        assert_eq!(
            p.inputs,
            vec![vec![Some(0), Some(2)], vec![Some(2), Some(1)]]
        );
        let p = einsum_plan("...ii->...i", &[&[5, 3, 3]]).unwrap();
        assert_eq!(p.output_shape(), [5, 3]);
        let p = einsum_plan("ba,b", &[&[2, 3], &[2]]).unwrap();
        assert_eq!(p.output_shape(), [3]);
        assert!(einsum_plan("ij,jk->ik", &[&[2, 3], &[4, 4]]).is_err());
        assert!(einsum_plan("ij->q", &[&[2, 3]]).is_err());
    }

    #[test]
    fn matmul_trace_and_transpose() {
        let a = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let b = f32s(&[2, 2], &[5.0, 6.0, 7.0, 8.0]);
        let y = einsum("ij,jk->ik", &[&a, &b]).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [19.0, 22.0, 43.0, 50.0]);
        let y = einsum("ii", &[&a]).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [5.0]);
        let y = einsum("ij->ji", &[&a]).unwrap();
        assert_eq!(y.as_slice::<f32>().unwrap(), [1.0, 3.0, 2.0, 4.0]);
    }
}
