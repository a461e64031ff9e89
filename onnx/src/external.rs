//! External tensor data: a tensor whose `data_location` is EXTERNAL keeps its bytes in a
//! separate file, named by the `location` key relative to the model's directory, starting at
//! `offset` and `length` bytes long (both optional). This is how models over protobuf's 2 GiB
//! limit store their weights.
//!
//! A model is untrusted input, so `location` must stay inside the model's directory: no
//! absolute paths, no `..`, and no symbolic link that leads outside.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use crate::error::{OnnxError, Result};
use crate::proto::TensorProto;
use crate::proto::tensor_proto::DataLocation;

/// Where a tensor's external bytes are, as its `external_data` entries say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalData {
    /// File name relative to the model's directory.
    pub location: String,
    /// Byte offset of the data in the file.
    pub offset: u64,
    /// Number of bytes, if given; otherwise the data runs to the size the tensor needs.
    pub length: Option<u64>,
}

/// True if the tensor's data is in an external file.
pub fn is_external(tensor: &TensorProto) -> bool {
    tensor.data_location == DataLocation::External as i32
}

impl ExternalData {
    /// Parses the `external_data` entries of `tensor`. `context` names the tensor in errors.
    pub fn parse(tensor: &TensorProto, context: &str) -> Result<ExternalData> {
        let mut location = None;
        let mut offset = None;
        let mut length = None;
        for entry in &tensor.external_data {
            let slot = match entry.key.as_str() {
                "location" => &mut location,
                "offset" => &mut offset,
                "length" => &mut length,
                // A SHA-1 of the data (unverified, as ONNX's own loader leaves it), and keys
                // of other producers, which ONNX ignores too.
                _ => continue,
            };
            if slot.replace(entry.value.as_str()).is_some() {
                return Err(OnnxError::external(
                    context,
                    format!("key '{}' is given twice", entry.key),
                ));
            }
        }
        let location = match location {
            Some(l) if !l.is_empty() => l.to_string(),
            _ => return Err(OnnxError::external(context, "no 'location' key")),
        };
        let number = |key: &str, value: Option<&str>| -> Result<Option<u64>> {
            value
                .map(|v| {
                    v.parse::<u64>().map_err(|_| {
                        OnnxError::external(
                            context,
                            format!("'{key}' is '{v}', not a non-negative integer"),
                        )
                    })
                })
                .transpose()
        };
        Ok(ExternalData {
            location,
            offset: number("offset", offset)?.unwrap_or(0),
            length: number("length", length)?,
        })
    }

    /// The data file's path, checked to lie inside `base_dir` (symbolic links resolved).
    pub fn resolve(&self, base_dir: &Path, context: &str) -> Result<PathBuf> {
        let relative = Path::new(&self.location);
        let escapes = relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if escapes {
            return Err(OnnxError::external(
                context,
                format!(
                    "location '{}' is not a path inside the model's directory",
                    self.location
                ),
            ));
        }
        let joined = base_dir.join(relative);
        let file = joined.canonicalize().map_err(|e| {
            OnnxError::external(context, format!("cannot open {}: {e}", joined.display()))
        })?;
        let base = base_dir
            .canonicalize()
            .map_err(|e| OnnxError::io(base_dir, e))?;
        if !file.starts_with(&base) {
            return Err(OnnxError::external(
                context,
                format!(
                    "location '{}' leads outside the model's directory {} (to {})",
                    self.location,
                    base.display(),
                    file.display()
                ),
            ));
        }
        if !file.is_file() {
            return Err(OnnxError::external(
                context,
                format!("{} is not a regular file", file.display()),
            ));
        }
        Ok(file)
    }

    /// Reads exactly `expected` bytes (the size the tensor's shape and type need).
    pub fn read(&self, base_dir: &Path, expected: u64, context: &str) -> Result<Vec<u8>> {
        if let Some(length) = self.length
            && length != expected
        {
            return Err(OnnxError::external(
                context,
                format!("'length' is {length} bytes but the tensor needs {expected}"),
            ));
        }
        let path = self.resolve(base_dir, context)?;
        let mut file = File::open(&path).map_err(|e| OnnxError::io(&path, e))?;
        let size = file.metadata().map_err(|e| OnnxError::io(&path, e))?.len();
        let end = self.offset.checked_add(expected);
        if end.is_none_or(|end| end > size) {
            return Err(OnnxError::external(
                context,
                format!(
                    "{} has {size} bytes, too few for {expected} bytes at offset {}",
                    path.display(),
                    self.offset
                ),
            ));
        }
        // `expected <= size` now, so the allocation is bounded by a real file's size.
        let mut bytes = vec![0; expected as usize];
        file.seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| OnnxError::io(&path, e))?;
        Ok(bytes)
    }
}
