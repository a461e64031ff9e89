//! Import errors: one [`Problem`] per offending node or input, all of them collected so a
//! user sees every unsupported operator of a model at once.

use std::fmt;

/// What kind of problem, so that a conformance runner can tell "not supported" (skip) from
/// "broken" (fail).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProblemKind {
    /// An operator (or domain) the graph dialect has no op for.
    UnsupportedOp,
    /// A supported operator used with an attribute, mode, opset or output we do not handle.
    UnsupportedFeature,
    /// An element type or value kind the IR or the interpreter lacks (strings, float8 ...).
    UnsupportedType,
    /// An input that must be known at import time (a shape, axes, pads ...) is computed
    /// at run time.
    NotConstant,
    /// A graph input with a dimension that no `--input-shape` fixes.
    DynamicShape,
    /// The model breaks ONNX's rules, or an op could not be built from it.
    Invalid,
}

impl ProblemKind {
    /// True for problems that mean "TensorBind does not support this", not "this is broken".
    pub fn is_unsupported(self) -> bool {
        !matches!(self, ProblemKind::Invalid)
    }

    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::UnsupportedOp => "unsupported operator",
            ProblemKind::UnsupportedFeature => "unsupported attribute or feature",
            ProblemKind::UnsupportedType => "unsupported element or value type",
            ProblemKind::NotConstant => "shape input not constant",
            ProblemKind::DynamicShape => "dynamic input shape",
            ProblemKind::Invalid => "invalid model",
        }
    }
}

/// One problem, at a node (its label, e.g. `Conv node 'conv1'`) or at the model.
#[derive(Clone, Debug)]
pub struct Problem {
    pub kind: ProblemKind,
    pub at: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem {
            kind,
            at: None,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Problem {
        Problem::new(ProblemKind::Invalid, message)
    }

    pub fn unsupported(message: impl Into<String>) -> Problem {
        Problem::new(ProblemKind::UnsupportedFeature, message)
    }

    pub fn at(mut self, label: impl Into<String>) -> Problem {
        self.at = Some(label.into());
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Why a model could not be imported: every problem found, in graph order.
#[derive(Debug)]
pub struct ImportError {
    /// The model file, as messages name it.
    pub file: String,
    pub problems: Vec<Problem>,
}

impl ImportError {
    /// True when every problem is an unsupported feature rather than a broken model.
    pub fn is_unsupported(&self) -> bool {
        self.problems.iter().all(|p| p.kind.is_unsupported())
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}: error: {p}", self.file)?;
        }
        Ok(())
    }
}

impl std::error::Error for ImportError {}
