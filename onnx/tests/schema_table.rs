//! The validator's operator schemas (src/validate/schemas.rs) are generated from the onnx
//! package by tests/support/make_schema_table.py for exactly the operators the importer
//! supports; regenerating must reproduce the checked-in file.

mod common;

use std::path::Path;

#[test]
fn schemas_cover_exactly_the_supported_operators() {
    let supported = tb_onnx::import::supported_operators();
    assert_eq!(tb_onnx::validate::schema::operators(), supported);
}

#[test]
fn schema_table_matches_onnx() {
    let Some(python) = common::python_or_skip("schema_table_matches_onnx") else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/make_schema_table.py");
    let out = std::process::Command::new(&python)
        .arg(&script)
        .args(tb_onnx::import::supported_operators())
        .output()
        .expect("run make_schema_table.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let generated = String::from_utf8(out.stdout).unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/validate/schemas.rs");
    let checked_in = std::fs::read_to_string(&file).unwrap();
    assert!(
        generated == checked_in,
        "{} is out of date: regenerate it with\n  .venv/bin/python {} <the operators of \
         tb_onnx::import::supported_operators()> > {}",
        file.display(),
        script.display(),
        file.display()
    );
}
