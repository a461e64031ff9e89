//! The function's arguments: the graph's run-time inputs (inputs without an initializer),
//! each with a static shape from the model or from `--input-shape`.
//!
//! As in onnxruntime, a declared dimension of -1 is unknown and a declared 0 (which some
//! exporters write for "unknown") accepts any size `--input-shape` gives; left alone, it is
//! an empty dimension. A symbolic dimension (`batch`) is one size wherever it appears: the
//! sizes given for it must agree, and an input whose only unfixed dimensions are symbols
//! fixed by another input's `--input-shape` takes their sizes.

use std::collections::HashMap;

use tb_interpreter::DType;

use super::error::{Problem, ProblemKind};
use crate::model::Model;
use crate::value_type::{Dim, ValueType, value_type};

/// One function argument.
pub struct Argument {
    pub name: String,
    pub shape: Vec<i64>,
    pub dtype: DType,
}

/// `1x3x224x224` (and `` or `scalar` for a 0-d tensor) as dimensions.
pub fn parse_shape(text: &str) -> Result<Vec<i64>, String> {
    if text.is_empty() || text == "scalar" {
        return Ok(Vec::new());
    }
    text.split(['x', 'X', ','])
        .map(|d| match d.trim().parse::<i64>() {
            Ok(n) if n >= 0 => Ok(n),
            _ => Err(format!(
                "'{d}' in shape '{text}' is not a non-negative dimension"
            )),
        })
        .collect()
}

fn dims_text(dims: &[Dim]) -> String {
    format!(
        "[{}]",
        dims.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The arguments, or one problem per input that has none.
pub fn arguments(
    model: &Model,
    shapes: &HashMap<String, Vec<i64>>,
) -> Result<Vec<Argument>, Vec<Problem>> {
    let mut args = Vec::new();
    let mut problems = Vec::new();
    let inputs = model.runtime_inputs();
    for name in shapes.keys() {
        if !inputs.iter().any(|i| &i.name == name) {
            let known: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
            problems.push(Problem::invalid(format!(
                "--input-shape names '{name}', which is not a graph input (inputs: {})",
                known.join(", ")
            )));
        }
    }
    let symbols = match symbol_sizes(&inputs, shapes) {
        Ok(s) => s,
        Err(p) => {
            problems.extend(p);
            HashMap::new()
        }
    };
    for info in inputs {
        let at = format!("graph input '{}'", info.name);
        let tensor = match value_type(info) {
            Ok(ValueType::Tensor(t)) => t,
            Ok(other) => {
                problems.push(
                    Problem::new(
                        ProblemKind::UnsupportedType,
                        format!("{} values are not supported, only tensors", other.kind()),
                    )
                    .at(at),
                );
                continue;
            }
            Err(e) => {
                problems.push(Problem::invalid(e.to_string()).at(at));
                continue;
            }
        };
        let dtype = match tensor.dtype() {
            Ok(d) => d,
            Err(e) => {
                problems.push(Problem::new(ProblemKind::UnsupportedType, e.to_string()).at(at));
                continue;
            }
        };
        let shape = match (shapes.get(&info.name), &tensor.shape) {
            (Some(given), Some(dims)) => {
                let fits = given.len() == dims.len()
                    && given
                        .iter()
                        .zip(dims)
                        .all(|(g, d)| !matches!(d, Dim::Known(n) if *n != 0 && n != g));
                if !fits {
                    problems.push(Problem::invalid(format!(
                        "--input-shape {}={} does not fit its declared shape {}",
                        info.name,
                        given
                            .iter()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                            .join("x"),
                        dims_text(dims)
                    )));
                    continue;
                }
                given.clone()
            }
            (Some(given), None) => given.clone(),
            (None, _) => match with_symbols(&tensor.shape, &symbols) {
                Some(s) => s,
                None => {
                    let declared = tensor
                        .shape
                        .as_deref()
                        .map(dims_text)
                        .unwrap_or_else(|| "of unknown rank".into());
                    problems.push(
                        Problem::new(
                            ProblemKind::DynamicShape,
                            format!(
                                "has dynamic shape {declared}; fix it with --input-shape {}=<d0>x<d1>...",
                                info.name
                            ),
                        )
                        .at(at),
                    );
                    continue;
                }
            },
        };
        if let Err(m) = super::sizes::check_shape(&shape) {
            problems.push(Problem::invalid(m).at(at));
            continue;
        }
        args.push(Argument {
            name: info.name.clone(),
            shape,
            dtype,
        });
    }
    if problems.is_empty() {
        Ok(args)
    } else {
        Err(problems)
    }
}

/// The size of each symbolic dimension that `--input-shape` fixes, or one problem per
/// symbol given two different sizes.
fn symbol_sizes(
    inputs: &[&crate::proto::ValueInfoProto],
    shapes: &HashMap<String, Vec<i64>>,
) -> Result<HashMap<String, (i64, String)>, Vec<Problem>> {
    let mut sizes: HashMap<String, (i64, String)> = HashMap::new();
    let mut problems = Vec::new();
    for info in inputs {
        let (Some(given), Ok(ValueType::Tensor(t))) = (shapes.get(&info.name), value_type(info))
        else {
            continue;
        };
        let Some(dims) = t.shape.filter(|d| d.len() == given.len()) else {
            continue;
        };
        for (d, &n) in dims.iter().zip(given) {
            let Dim::Symbolic(sym) = d else { continue };
            match sizes.get(sym) {
                Some((m, first)) if *m != n => problems.push(Problem::invalid(format!(
                    "symbolic dimension '{sym}' is {m} in input '{first}' but {n} in input '{}'",
                    info.name
                ))),
                Some(_) => {}
                None => {
                    sizes.insert(sym.clone(), (n, info.name.clone()));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(sizes)
    } else {
        Err(problems)
    }
}

/// The declared shape with symbolic dimensions replaced by the sizes `symbols` fixes, if
/// that leaves every dimension known.
fn with_symbols(
    shape: &Option<Vec<Dim>>,
    symbols: &HashMap<String, (i64, String)>,
) -> Option<Vec<i64>> {
    shape
        .as_ref()?
        .iter()
        .map(|d| match d {
            Dim::Known(n) => Some(*n),
            Dim::Symbolic(s) => symbols.get(s).map(|(n, _)| *n),
            Dim::Unknown => None,
        })
        .collect()
}
