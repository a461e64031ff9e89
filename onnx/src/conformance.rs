//! ONNX's backend node conformance suite: one directory per test case, each holding a
//! single-operator `model.onnx` and data sets `test_data_set_<k>/` of serialized inputs
//! (`input_<i>.pb`) and the outputs ONNX's reference implementation computed from them
//! (`output_<j>.pb`).
//!
//! The suite ships inside the `onnx` Python wheel (up to 1.22; later wheels dropped it), which
//! `scripts/setup.sh` installs into the project's `.venv`. [`NodeTestSuite::locate`] finds
//! it there, or wherever `TB_ONNX_NODE_DATA` points.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use tb_interpreter::Tensor;

use crate::dtype::{data_type_name, onnx_from_dtype};
use crate::error::{OnnxError, Result};
use crate::model::Model;
use crate::proto::{
    MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto, decode_file,
};
use crate::tensor::decode_tensor;
use crate::tensor_file::read_tensor_file;
use crate::value_type::{Dim, TensorType, ValueType, value_type};

/// Environment variable naming the suite's directory (`.../onnx/backend/test/data/node`),
/// overriding the lookup in `.venv`.
pub const NODE_DATA_ENV: &str = "TB_ONNX_NODE_DATA";

/// The node test suite in a directory.
#[derive(Clone, Debug)]
pub struct NodeTestSuite {
    root: PathBuf,
}

/// One test case with its first data set loaded: feed `inputs` to the graph's runtime
/// inputs in order, and compare the results with `outputs`, one per graph output.
#[derive(Clone, Debug)]
pub struct ConformanceCase {
    pub name: String,
    pub dir: PathBuf,
    pub model: Model,
    pub inputs: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
}

impl NodeTestSuite {
    /// Finds the suite: `$TB_ONNX_NODE_DATA` if set, otherwise the `onnx` package in the
    /// workspace's `.venv`. The error says how to install it.
    pub fn locate() -> Result<NodeTestSuite> {
        let not_found = |why: String| OnnxError::TestDataNotFound {
            message: format!("ONNX node test data not found: {why}"),
        };
        if let Some(dir) = std::env::var_os(NODE_DATA_ENV) {
            let dir = PathBuf::from(dir);
            return if dir.is_dir() {
                Ok(NodeTestSuite::at(dir))
            } else {
                Err(not_found(format!(
                    "{NODE_DATA_ENV}={} is not a directory",
                    dir.display()
                )))
            };
        }
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new("."));
        let python = workspace.join(".venv/bin/python");
        let setup = "run scripts/setup.sh, which installs the pinned onnx==1.22.0 into .venv";
        if !python.exists() {
            return Err(not_found(format!(
                "there is no {}; {setup}, or set {NODE_DATA_ENV}",
                python.display()
            )));
        }
        // find_spec locates the package without importing it (and numpy with it).
        const SCRIPT: &str = "import importlib.util, os\n\
            s = importlib.util.find_spec('onnx')\n\
            print(os.path.join(list(s.submodule_search_locations)[0], 'backend', 'test', 'data', 'node') if s else '')";
        let out = Command::new(&python)
            .args(["-c", SCRIPT])
            .output()
            .map_err(|e| not_found(format!("cannot run {}: {e}; {setup}", python.display())))?;
        if !out.status.success() {
            return Err(not_found(format!(
                "{} failed to locate the onnx package ({}): {}; {setup}",
                python.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if dir.is_empty() {
            return Err(not_found(format!(
                "the onnx package is not installed in {}; {setup}",
                python.display()
            )));
        }
        let dir = PathBuf::from(dir);
        if !dir.is_dir() {
            return Err(not_found(format!(
                "the onnx package in {} has no node test data at {} (wheels after 1.22 do not \
                 ship it); {setup}",
                python.display(),
                dir.display()
            )));
        }
        Ok(NodeTestSuite::at(dir))
    }

    pub fn at(root: impl Into<PathBuf>) -> NodeTestSuite {
        NodeTestSuite { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The names of the cases (directories holding a `model.onnx`), sorted.
    pub fn case_names(&self) -> Result<Vec<String>> {
        let entries = fs::read_dir(&self.root).map_err(|e| OnnxError::io(&self.root, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| OnnxError::io(&self.root, e))?;
            if entry.path().join("model.onnx").is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    pub fn case_dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Loads case `name` with its first data set.
    pub fn load(&self, name: &str) -> Result<ConformanceCase> {
        ConformanceCase::load(self.case_dir(name))
    }
}

impl ConformanceCase {
    /// Loads the case in `dir` with data set 0.
    pub fn load(dir: impl AsRef<Path>) -> Result<ConformanceCase> {
        ConformanceCase::load_data_set(dir, 0)
    }

    /// Loads the case in `dir` with data set `index` (`test_data_set_<index>`).
    ///
    /// Each input and output is checked against the type the model declares for it (element
    /// type, and every known dimension). Values that are not tensors (sequences, optionals,
    /// maps) or whose element type the interpreter lacks are decoded all the same, so broken
    /// files are still reported as such, and then give an "unsupported" error.
    pub fn load_data_set(dir: impl AsRef<Path>, index: usize) -> Result<ConformanceCase> {
        let dir = dir.as_ref();
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let model = Model::load(dir.join("model.onnx"))?;
        let data = dir.join(format!("test_data_set_{index}"));
        if !data.is_dir() {
            return Err(OnnxError::invalid(
                dir.display().to_string(),
                format!("no data set test_data_set_{index}"),
            ));
        }
        let graph = model.graph();
        let inputs = model.runtime_inputs();
        let inputs = read_values(&data, "input", &inputs)?;
        let outputs = graph.output.iter().collect::<Vec<_>>();
        let outputs = read_values(&data, "output", &outputs)?;
        Ok(ConformanceCase {
            name,
            dir: dir.to_path_buf(),
            model,
            inputs,
            outputs,
        })
    }
}

/// Reads `<prefix>_<i>.pb` for each declared value, and checks that no further file exists.
fn read_values(
    data: &Path,
    prefix: &str,
    declared: &[&crate::proto::ValueInfoProto],
) -> Result<Vec<Tensor>> {
    let extra = data.join(format!("{prefix}_{}.pb", declared.len()));
    if extra.exists() {
        return Err(OnnxError::invalid(
            extra.display().to_string(),
            format!("extra file: the model has {} {prefix}(s)", declared.len()),
        ));
    }
    declared
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let path = data.join(format!("{prefix}_{i}.pb"));
            let ty = value_type(info)?;
            read_value(&path, &ty).map_err(|e| e.within(format!("{prefix} '{}'", info.name)))
        })
        .collect()
}

/// Reads one value file as the message its declared type calls for.
fn read_value(path: &Path, ty: &ValueType) -> Result<Tensor> {
    let at = path.display().to_string();
    let not_tensor = |description: String| {
        Err(OnnxError::unsupported(
            &at,
            format!("{description}; conformance cases here hold tensors only"),
        ))
    };
    match ty {
        ValueType::Tensor(declared) => {
            let tensor = read_tensor_file(path)?;
            check_declared(&tensor, declared).map_err(|e| e.within(&at))?;
            Ok(tensor)
        }
        ValueType::Sequence(_) => {
            let seq: SequenceProto = decode_file(path, "a serialized ONNX SequenceProto")?;
            let n = check_sequence(&seq).map_err(|e| e.within(&at))?;
            not_tensor(format!("a sequence of {n} elements"))
        }
        ValueType::Optional(_) => {
            let opt: OptionalProto = decode_file(path, "a serialized ONNX OptionalProto")?;
            let full = check_optional(&opt).map_err(|e| e.within(&at))?;
            not_tensor(
                if full {
                    "an optional value"
                } else {
                    "an empty optional"
                }
                .into(),
            )
        }
        ValueType::Map { .. } => {
            let map: MapProto = decode_file(path, "a serialized ONNX MapProto")?;
            check_map(&map).map_err(|e| e.within(&at))?;
            not_tensor("a map".into())
        }
        ValueType::SparseTensor(_) => {
            let sparse: SparseTensorProto =
                decode_file(path, "a serialized ONNX SparseTensorProto")?;
            check_sparse(&sparse).map_err(|e| e.within(&at))?;
            not_tensor("a sparse tensor".into())
        }
        ValueType::Unknown => Err(OnnxError::invalid(at, "the model declares no type for it")),
    }
}

/// A tensor must have the declared element type and agree with every known dimension.
fn check_declared(tensor: &Tensor, declared: &TensorType) -> Result<()> {
    let dtype = declared.dtype()?;
    if tensor.dtype() != dtype {
        return Err(OnnxError::invalid(
            "",
            format!(
                "holds {} elements, but the model declares {}",
                onnx_from_dtype(tensor.dtype()).as_str_name(),
                data_type_name(declared.elem_type)
            ),
        ));
    }
    let Some(dims) = &declared.shape else {
        return Ok(());
    };
    let fits = dims.len() == tensor.rank()
        && dims
            .iter()
            .zip(tensor.shape())
            .all(|(d, &n)| !matches!(d, Dim::Known(k) if *k != n));
    if !fits {
        return Err(OnnxError::invalid(
            "",
            format!(
                "has shape {:?}, but the model declares {declared}",
                tensor.shape()
            ),
        ));
    }
    Ok(())
}

/// Converts a tensor only to validate it: "unsupported" element types are fine here.
fn check_tensor(t: &TensorProto) -> Result<()> {
    match decode_tensor(t) {
        Err(e) if !e.is_unsupported() => Err(e),
        _ => Ok(()),
    }
}

fn check_sparse(s: &SparseTensorProto) -> Result<()> {
    s.values.iter().chain(&s.indices).try_for_each(check_tensor)
}

/// Validates every element; returns the element count.
fn check_sequence(s: &SequenceProto) -> Result<usize> {
    s.tensor_values.iter().try_for_each(check_tensor)?;
    s.sparse_tensor_values.iter().try_for_each(check_sparse)?;
    s.sequence_values
        .iter()
        .try_for_each(|s| check_sequence(s).map(drop))?;
    s.map_values.iter().try_for_each(check_map)?;
    s.optional_values
        .iter()
        .try_for_each(|o| check_optional(o).map(drop))?;
    Ok(s.tensor_values.len()
        + s.sparse_tensor_values.len()
        + s.sequence_values.len()
        + s.map_values.len()
        + s.optional_values.len())
}

fn check_map(m: &MapProto) -> Result<()> {
    m.values.as_ref().map_or(Ok(0), check_sequence).map(drop)
}

/// Validates the element, if any; returns whether there is one.
fn check_optional(o: &OptionalProto) -> Result<bool> {
    let mut full = false;
    if let Some(t) = &o.tensor_value {
        check_tensor(t)?;
        full = true;
    }
    if let Some(s) = &o.sparse_tensor_value {
        check_sparse(s)?;
        full = true;
    }
    if let Some(s) = &o.sequence_value {
        check_sequence(s)?;
        full = true;
    }
    if let Some(m) = &o.map_value {
        check_map(m)?;
        full = true;
    }
    if let Some(o) = &o.optional_value {
        check_optional(o)?;
        full = true;
    }
    Ok(full)
}
