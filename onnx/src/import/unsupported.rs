//! Why an ONNX operator the importer does not support is refused, where there is more to
//! say than its name: the user learns whether a different export can avoid it.

/// The reason appended to "operator 'X' is not supported", or `""`.
pub(crate) fn reason(op_type: &str) -> &'static str {
    match op_type {
        // Every tensor TensorBind compiles has a shape known at compile time; these
        // operators' result shapes depend on the values of their inputs.
        "NonZero" | "NonMaxSuppression" | "Unique" => {
            ": the shape of its result depends on the input values, and TensorBind compiles \
             static shapes only (run this step outside the model, e.g. in numpy, or export \
             the model without it)"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::reason;

    #[test]
    fn data_dependent_operators_say_why() {
        assert!(reason("NonZero").contains("depends on the input values"));
        assert!(reason("NonMaxSuppression").contains("static shapes"));
    }

    #[test]
    fn other_operators_have_no_extra_reason() {
        assert_eq!(reason("ImageDecoder"), "");
    }
}
