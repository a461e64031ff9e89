//! IR version and default-domain opset ranges. ONNX numbers both with small, slowly growing
//! integers (IR 13 and opset 27 as of onnx 1.22): an IR version the newest ONNX release does
//! not define, or an opset beyond the 32-bit range ONNX itself reads versions in, is a
//! corrupt or hostile file, not a future one.

use crate::import::Problem;
use crate::model::Model;

use super::Report;

/// The newest IR version ONNX has released (onnx 1.22).
pub const NEWEST_IR_VERSION: i64 = 13;

/// The newest default-domain opset the importer is tested with; newer ones import with a
/// warning (validated against the newest schemas known, as `onnx.checker` does).
pub const NEWEST_TESTED_OPSET: i64 = 21;

/// Above this, a default-domain opset is an error: ONNX's own checker holds versions in
/// 32-bit integers (and misreads larger ones), while it accepts any version up to here,
/// validating with its newest schemas.
pub const MAX_PLAUSIBLE_OPSET: i64 = i32::MAX as i64;

pub fn check(model: &Model, report: &mut Report) {
    let ir = model.ir_version();
    if !(1..=NEWEST_IR_VERSION).contains(&ir) {
        report.errors.push(
            Problem::invalid(format!(
                "ir_version {ir} is not an IR version ONNX has released (1 to \
                 {NEWEST_IR_VERSION})"
            ))
            .at("model"),
        );
    }
    let Some(opset) = model.opset_version("") else {
        return;
    };
    if opset > MAX_PLAUSIBLE_OPSET {
        report.errors.push(
            Problem::invalid(format!(
                "default-domain opset {opset} is not a plausible ONNX opset (at most \
                 {MAX_PLAUSIBLE_OPSET})"
            ))
            .at("opset_import"),
        );
    } else if opset > NEWEST_TESTED_OPSET {
        report.warnings.push(format!(
            "default-domain opset {opset} is newer than the newest opset TensorBind is tested \
             with ({NEWEST_TESTED_OPSET})"
        ));
    }
}
