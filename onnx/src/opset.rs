//! Operator-set versions: which version of each operator domain a model (or a function) was
//! written against. An operator's semantics depend on it, so the importer asks here before
//! choosing how to translate a node.

use std::collections::BTreeMap;

use crate::error::{OnnxError, Result};
use crate::proto::OperatorSetIdProto;

/// ONNX's default operator domain. Files spell it `""` or `"ai.onnx"`; both mean the same.
pub const DEFAULT_DOMAIN: &str = "ai.onnx";

/// The imported operator sets, by domain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opsets {
    versions: BTreeMap<String, i64>,
}

fn canonical(domain: &str) -> &str {
    if domain.is_empty() {
        DEFAULT_DOMAIN
    } else {
        domain
    }
}

impl Opsets {
    /// Reads a model's or function's `opset_import`. `ir_version` matters because models
    /// before IR version 3 had no `opset_import` and implicitly used version 1 of the default
    /// domain. A domain imported twice, or a version below 1, is an error.
    pub fn from_imports(imports: &[OperatorSetIdProto], ir_version: i64) -> Result<Opsets> {
        let mut versions = BTreeMap::new();
        for import in imports {
            let domain = canonical(&import.domain);
            if import.version < 1 {
                return Err(OnnxError::invalid(
                    "opset_import",
                    format!("domain '{domain}' has version {}", import.version),
                ));
            }
            if versions
                .insert(domain.to_string(), import.version)
                .is_some()
            {
                return Err(OnnxError::invalid(
                    "opset_import",
                    format!("domain '{domain}' is imported more than once"),
                ));
            }
        }
        if versions.is_empty() && ir_version < 3 {
            versions.insert(DEFAULT_DOMAIN.to_string(), 1);
        }
        Ok(Opsets { versions })
    }

    /// The version imported for `domain` (`""` and `"ai.onnx"` alike name the default one).
    pub fn version(&self, domain: &str) -> Option<i64> {
        self.versions.get(canonical(domain)).copied()
    }

    /// The version of the default domain, which nearly every node uses.
    pub fn onnx(&self) -> Option<i64> {
        self.version(DEFAULT_DOMAIN)
    }

    /// `(domain, version)` pairs, with the default domain spelled `ai.onnx`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.versions.iter().map(|(d, &v)| (d.as_str(), v))
    }

    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }
}
