//! Op kinds: one Rust enum per dialect whose variants are the dialect's ops, so that code
//! dispatching on ops matches exhaustively and a new op without its handler is a compile
//! error rather than a run-time "unsupported op".
//!
//! A dialect declares its enum with [`op_kinds!`](crate::op_kinds) (each variant with the
//! op name it stands for) and registers it after its op definitions with
//! [`Context::register_op_kinds`], which checks both directions: every variant names a
//! registered op, and every registered op of the dialect has a variant. The kind of an op
//! is then found by its interned name in a table ([`OpKind::of`]): an index and a type id
//! comparison, no string comparison.

use std::any::TypeId;

use crate::context::Context;
use crate::operation::OpId;

/// A dialect's enum of op kinds (declared with [`op_kinds!`](crate::op_kinds)).
pub trait OpKind: Copy + Eq + std::fmt::Debug + 'static {
    /// The dialect namespace every variant belongs to.
    const DIALECT: &'static str;
    /// Every variant, in declaration order.
    const ALL: &'static [Self];

    /// The full op name (`arith.addi`).
    fn name(self) -> &'static str;

    /// The position of the variant in [`OpKind::ALL`].
    fn index(self) -> usize;

    /// The kind of `op`, if its operation is registered as one of this enum's.
    fn of(ctx: &Context, op: OpId) -> Option<Self> {
        let tag = ctx.op_kind_tag(op)?;
        (tag.kinds == TypeId::of::<Self>()).then(|| Self::ALL[tag.index as usize])
    }

    /// The variant for an op name (a linear search: for registration and tests, not for
    /// hot paths).
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// Which enum and variant a registered op is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpKindTag {
    kinds: TypeId,
    index: u32,
}

impl Context {
    /// Ties the op kinds `K` to the registered ops of `K::DIALECT`. Fails, naming them, if a
    /// variant names an op that is not registered or a registered op of the dialect has no
    /// variant: the enum and the definitions must not drift apart.
    pub fn register_op_kinds<K: OpKind>(&mut self) -> Result<(), String> {
        let mut missing_ops = Vec::new();
        for (index, kind) in K::ALL.iter().enumerate() {
            debug_assert_eq!(kind.index(), index);
            if self.op_info(kind.name()).is_none() {
                missing_ops.push(kind.name());
                continue;
            }
            let name = self.intern_op_name(kind.name());
            let slot = name.0 as usize;
            if self.op_kind_by_name.len() <= slot {
                self.op_kind_by_name.resize(slot + 1, None);
            }
            self.op_kind_by_name[slot] = Some(OpKindTag {
                kinds: TypeId::of::<K>(),
                index: index as u32,
            });
        }
        let prefix = format!("{}.", K::DIALECT);
        let mut missing_kinds: Vec<&str> = self
            .registered_op_infos()
            .map(|info| info.name)
            .filter(|n| n.starts_with(&prefix) && K::from_name(n).is_none())
            .collect();
        missing_kinds.sort_unstable();
        let mut problems = Vec::new();
        if !missing_ops.is_empty() {
            problems.push(format!(
                "op kinds without a registered op: {}",
                missing_ops.join(", ")
            ));
        }
        if !missing_kinds.is_empty() {
            problems.push(format!(
                "registered ops without an op kind: {}",
                missing_kinds.join(", ")
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("dialect '{}': {}", K::DIALECT, problems.join("; ")))
        }
    }

    /// The kind tag of `op`'s operation, if its dialect registered op kinds.
    pub fn op_kind_tag(&self, op: OpId) -> Option<OpKindTag> {
        let name = self.op(op).name;
        self.op_kind_by_name.get(name.0 as usize).copied().flatten()
    }
}

/// Declares a dialect's op kinds:
///
/// ```ignore
/// tb_ir::op_kinds! {
///     /// The ops of the `te` dialect.
///     pub enum TeOp in "te" {
///         Compute = "te.compute",
///         Read = "te.read",
///     }
/// }
/// ```
///
/// The enum implements [`OpKind`]; register it with [`Context::register_op_kinds`].
#[macro_export]
macro_rules! op_kinds {
    (
        $(#[$meta:meta])*
        $vis:vis enum $kind:ident in $dialect:literal {
            $($(#[$vmeta:meta])* $variant:ident = $name:literal),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $kind {
            $($(#[$vmeta])* $variant),*
        }

        impl $crate::ods::kinds::OpKind for $kind {
            const DIALECT: &'static str = $dialect;
            const ALL: &'static [Self] = &[$($kind::$variant),*];

            fn name(self) -> &'static str {
                match self {
                    $($kind::$variant => $name),*
                }
            }

            fn index(self) -> usize {
                self as usize
            }
        }
    };
}
