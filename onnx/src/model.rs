//! A decoded ONNX model and where it came from, so that tensors with external data can be
//! found next to it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tb_interpreter::Tensor;

use crate::error::{OnnxError, Result};
use crate::opset::Opsets;
use crate::proto::{
    GraphProto, ModelProto, TensorProto, ValueInfoProto, decode_bytes, decode_file,
};
use crate::tensor::{decode_tensor, decode_tensor_at};

const WHAT: &str = "an ONNX model";

/// A model whose protobuf decoded and that passed the checks a reader needs: it has a
/// graph, and its operator-set imports are well-formed.
#[derive(Clone, Debug)]
pub struct Model {
    proto: ModelProto,
    opsets: Opsets,
    path: Option<PathBuf>,
}

impl Model {
    /// Reads and decodes a `.onnx` file. External tensor data is looked up in the file's
    /// directory.
    pub fn load(path: impl AsRef<Path>) -> Result<Model> {
        let path = path.as_ref();
        if path.is_dir() {
            return Err(OnnxError::invalid(
                path.display().to_string(),
                "is a directory, not an ONNX model file",
            ));
        }
        let proto: ModelProto = decode_file(path, WHAT)?;
        Model::new(proto, Some(path.to_path_buf())).map_err(|e| e.within(path.display()))
    }

    /// Decodes a model from memory. Its tensors cannot have external data, as there is no
    /// directory to find it in.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model> {
        Model::new(decode_bytes(bytes, WHAT)?, None)
    }

    /// Wraps an already decoded model; `path` is the file it is (to be taken as) read from.
    pub fn new(proto: ModelProto, path: Option<PathBuf>) -> Result<Model> {
        // Protobuf decoding accepts almost anything (an empty file is a valid empty message),
        // so the absence of a graph is what tells a non-model apart.
        if proto.graph.is_none() {
            return Err(OnnxError::invalid(
                "",
                format!(
                    "not {WHAT}: it has no graph (ir_version {}, {} opset imports)",
                    proto.ir_version,
                    proto.opset_import.len()
                ),
            ));
        }
        let opsets = Opsets::from_imports(&proto.opset_import, proto.ir_version)?;
        if opsets.is_empty() {
            return Err(OnnxError::invalid(
                "",
                format!(
                    "IR version {} requires opset_import, but the model has none",
                    proto.ir_version
                ),
            ));
        }
        Ok(Model {
            proto,
            opsets,
            path,
        })
    }

    pub fn proto(&self) -> &ModelProto {
        &self.proto
    }

    pub fn into_proto(self) -> ModelProto {
        self.proto
    }

    /// The main graph (always present: [`Model::new`] checks it).
    pub fn graph(&self) -> &GraphProto {
        self.proto
            .graph
            .as_ref()
            .expect("Model::new rejects models without a graph")
    }

    pub fn ir_version(&self) -> i64 {
        self.proto.ir_version
    }

    pub fn opsets(&self) -> &Opsets {
        &self.opsets
    }

    /// The imported version of `domain` (`""` or `"ai.onnx"` for standard operators).
    pub fn opset_version(&self, domain: &str) -> Option<i64> {
        self.opsets.version(domain)
    }

    /// The file the model was read from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The directory external tensor data is relative to.
    pub fn base_dir(&self) -> Option<&Path> {
        let parent = self.path.as_deref()?.parent()?;
        // `Path::new("model.onnx").parent()` is `""`: the current directory.
        Some(if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        })
    }

    /// Converts a tensor of this model (an initializer, a `Constant` value ...), reading
    /// external data from the model's directory.
    pub fn tensor(&self, proto: &TensorProto) -> Result<Tensor> {
        match self.base_dir() {
            Some(dir) => decode_tensor_at(proto, dir),
            None => decode_tensor(proto),
        }
    }

    /// The graph's initializers, converted, in file order.
    pub fn initializers(&self) -> impl Iterator<Item = Result<(&str, Tensor)>> {
        self.graph()
            .initializer
            .iter()
            .map(|t| Ok((t.name.as_str(), self.tensor(t)?)))
    }

    /// The graph inputs a caller must feed: those that are not also initializers (before IR
    /// version 4, initializers had to be listed as inputs too).
    pub fn runtime_inputs(&self) -> Vec<&ValueInfoProto> {
        let graph = self.graph();
        let constants: HashSet<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
        graph
            .input
            .iter()
            .filter(|i| !constants.contains(i.name.as_str()))
            .collect()
    }
}
