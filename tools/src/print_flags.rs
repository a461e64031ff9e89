//! Printer flags every tool that prints IR shares: `mlir-opt`'s
//! `--mlir-elide-elementsattrs-if-larger` and `--mlir-elide-resource-strings-if-larger`,
//! which keep IR dumps of a model with large weights readable, and the answer to
//! `--emit-bytecode`.

use tb_ir::printer::{Elision, set_default_elision};

/// The elision flags, as `mlir-opt` spells them.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct ElideFlags {
    /// Print a non-splat elements attribute with more than N elements as
    /// `dense_resource<__elided__>` (in the output and in IR dumps), as mlir-opt does
    #[arg(long = "mlir-elide-elementsattrs-if-larger", value_name = "N")]
    pub elements: Option<u64>,
    /// Leave out the `{-# ... #-}` resource entries (weights stored as `dense_resource`)
    /// whose value prints longer than N characters (in the output and in IR dumps)
    #[arg(long = "mlir-elide-resource-strings-if-larger", value_name = "N")]
    pub resource_strings: Option<u64>,
}

impl ElideFlags {
    /// Makes every IR print of this process follow the flags.
    pub fn apply(&self) {
        set_default_elision(self.elision());
    }

    /// The flags given, by name (for tools that refuse a flag without effect).
    pub fn given(&self) -> Vec<&'static str> {
        let mut given = Vec::new();
        if self.elements.is_some() {
            given.push("--mlir-elide-elementsattrs-if-larger");
        }
        if self.resource_strings.is_some() {
            given.push("--mlir-elide-resource-strings-if-larger");
        }
        given
    }

    pub fn elision(&self) -> Elision {
        Elision {
            elements_larger_than: self.elements,
            resource_strings_larger_than: self.resource_strings,
        }
    }
}

/// Why `--emit-bytecode` is refused, and what to do instead.
pub const BYTECODE_UNSUPPORTED: &str = "--emit-bytecode: TensorBind writes MLIR's text format only, \
    not its bytecode; write text (the default) and convert it with \
    `mlir-opt-22 --allow-unregistered-dialect --emit-bytecode in.mlir -o out.mlirbc` if you need bytecode";

/// The first bytes of an MLIR bytecode file (`ML\xEFR`).
pub const BYTECODE_MAGIC: &[u8] = b"ML\xEFR";

/// Why a bytecode input is refused, and what to do instead.
pub fn bytecode_input_error(path: &str) -> String {
    format!(
        "'{path}' is MLIR bytecode, which TensorBind does not read; convert it to text with \
         `mlir-opt-22 --allow-unregistered-dialect {path} -o file.mlir`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_flag_elides_nothing() {
        assert_eq!(ElideFlags::default().elision(), Elision::NONE);
    }

    #[test]
    fn each_flag_sets_its_own_limit() {
        let flags = ElideFlags {
            elements: Some(16),
            resource_strings: None,
        };
        assert_eq!(flags.elision().elements_larger_than, Some(16));
        assert_eq!(flags.elision().resource_strings_larger_than, None);
    }
}
