//! The error type of every fallible operation in this crate. Messages name the file, tensor,
//! node or attribute at fault, so a user can act on them without a debugger.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::attribute::{AttrError, AttrErrorKind};

pub type Result<T, E = OnnxError> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum OnnxError {
    /// A file could not be opened or read.
    Io { path: PathBuf, source: io::Error },
    /// The bytes are not a valid encoding of the expected protobuf message (`what`, e.g.
    /// "an ONNX model"); `path` is absent when decoding from memory.
    Decode {
        path: Option<PathBuf>,
        what: &'static str,
        source: prost::DecodeError,
    },
    /// Well-formed protobuf whose content breaks ONNX's rules (a model without a graph, a
    /// tensor whose data does not match its shape, a negative dimension ...).
    Invalid { context: String, message: String },
    /// Valid ONNX that TensorBind cannot represent: string or 8-bit-float tensors, segmented
    /// tensors, sequence or map values where a tensor is needed.
    Unsupported { context: String, message: String },
    /// A tensor's external data could not be located or read.
    ExternalData { context: String, message: String },
    /// A node attribute is missing, has the wrong type or an invalid value.
    Attr(AttrError),
    /// The ONNX backend conformance data is not installed where it was looked for.
    TestDataNotFound { message: String },
}

impl OnnxError {
    pub(crate) fn invalid(context: impl Into<String>, message: impl Into<String>) -> Self {
        OnnxError::Invalid {
            context: context.into(),
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(context: impl Into<String>, message: impl Into<String>) -> Self {
        OnnxError::Unsupported {
            context: context.into(),
            message: message.into(),
        }
    }

    pub(crate) fn external(context: impl Into<String>, message: impl Into<String>) -> Self {
        OnnxError::ExternalData {
            context: context.into(),
            message: message.into(),
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        OnnxError::Io {
            path: path.into(),
            source,
        }
    }

    /// True for content TensorBind does not support, as opposed to broken input: callers
    /// such as a conformance runner skip these instead of failing.
    pub fn is_unsupported(&self) -> bool {
        match self {
            OnnxError::Unsupported { .. } => true,
            OnnxError::Attr(AttrError {
                kind: AttrErrorKind::Tensor(e),
                ..
            }) => e.is_unsupported(),
            _ => false,
        }
    }

    /// Puts `outer` (e.g. the file a tensor came from) in front of the error's context.
    pub fn within(self, outer: impl fmt::Display) -> Self {
        let nest = |context: String| {
            if context.is_empty() {
                outer.to_string()
            } else {
                format!("{outer}: {context}")
            }
        };
        match self {
            OnnxError::Invalid { context, message } => OnnxError::Invalid {
                context: nest(context),
                message,
            },
            OnnxError::Unsupported { context, message } => OnnxError::Unsupported {
                context: nest(context),
                message,
            },
            OnnxError::ExternalData { context, message } => OnnxError::ExternalData {
                context: nest(context),
                message,
            },
            other => other,
        }
    }
}

impl fmt::Display for OnnxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_context = |f: &mut fmt::Formatter<'_>, context: &str, message: &str| {
            if context.is_empty() {
                f.write_str(message)
            } else {
                write!(f, "{context}: {message}")
            }
        };
        match self {
            OnnxError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            OnnxError::Decode {
                path: Some(path),
                what,
                source,
            } => write!(
                f,
                "{}: not {what} (protobuf decoding failed: {source})",
                path.display()
            ),
            OnnxError::Decode {
                path: None,
                what,
                source,
            } => write!(f, "not {what} (protobuf decoding failed: {source})"),
            OnnxError::Invalid { context, message } => with_context(f, context, message),
            OnnxError::Unsupported { context, message } => {
                with_context(f, context, &format!("not supported: {message}"))
            }
            OnnxError::ExternalData { context, message } => {
                with_context(f, context, &format!("external data: {message}"))
            }
            OnnxError::Attr(e) => e.fmt(f),
            OnnxError::TestDataNotFound { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for OnnxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OnnxError::Io { source, .. } => Some(source),
            OnnxError::Decode { source, .. } => Some(source),
            OnnxError::Attr(e) => Some(e),
            _ => None,
        }
    }
}

impl From<AttrError> for OnnxError {
    fn from(e: AttrError) -> Self {
        OnnxError::Attr(e)
    }
}
