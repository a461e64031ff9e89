//! Our proto3 schema against the onnx package's compiled descriptors (via
//! tests/support/check_schema.py): same field numbers, types, cardinality and oneofs for
//! every field we declare, same numbers for every enum value.

mod common;

use std::path::Path;

#[test]
fn schema_matches_onnx_field_for_field() {
    let Some(python) = common::python_or_skip("schema_matches_onnx_field_for_field") else {
        return;
    };
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("proto/onnx.proto");
    // The script exits non-zero (and run_script panics with its report) on any difference.
    let report = common::run_script(&python, "check_schema.py", &[&schema]);
    println!("{report}");
    assert!(report.contains("23 messages, 126 fields"), "{report}");
    assert!(report.contains("0 differences"), "{report}");
}
