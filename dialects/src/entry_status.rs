//! The run-time status of an entry function: errors found in the data while it runs.
//!
//! Some checks can only be made on the data (a Gather index out of range). Lowerings
//! compute them as ordinary tensors, and `convert-graph-to-te` combines a public
//! function's checks into one extra result, a 0-d `i32` marked `{tb.status}` in the
//! function's `res_attrs`: 0 when every check held, else the code `k` (1-based) of the first
//! check that failed, whose message is element `k - 1` of the function's
//! `tb.status_messages` string array.
//!
//! ```mlir
//! func.func @main(%ids: tensor<4xi64>) -> (tensor<4x8xf32>, tensor<i32> {tb.status})
//!     attributes {tb.status_messages = ["Gather node 'embed': index out of range [-100, 100)"]}
//! ```
//!
//! The result is a value like any other, so every level and backend computes it without
//! knowing about it; the callers that cross into users' hands (the interpreter's
//! `run_function`, the CPU entry point's `int32_t` return value) take it out of the results
//! and turn a non-zero code into an error.

use tb_ir::{AttrKind, Context, OpId};

/// The unit attribute in `res_attrs` that marks the status result.
pub const STATUS_RESULT_ATTR: &str = "tb.status";
/// The function attribute listing the message of each status code.
pub const STATUS_MESSAGES_ATTR: &str = "tb.status_messages";
/// The attribute a lowering puts on a check: a 0-d `i32` `te.compute` that yields non-zero
/// where the data is invalid. `convert-graph-to-te` consumes it.
pub const CHECK_ATTR: &str = "tb.check";

/// Where a function's status is and what its codes mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryStatus {
    /// The index of the status among the function's results.
    pub result: usize,
    /// The message of code `k` is `messages[k - 1]`.
    pub messages: Vec<String>,
}

impl EntryStatus {
    /// The message of a non-zero `code`, or a generic one for a code the function does not
    /// define.
    pub fn message(&self, code: i64) -> String {
        usize::try_from(code)
            .ok()
            .and_then(|k| k.checked_sub(1))
            .and_then(|i| self.messages.get(i))
            .cloned()
            .unwrap_or_else(|| format!("run-time check failed with unknown status code {code}"))
    }
}

/// The status of `func`, if one of its results is marked `{tb.status}`.
pub fn entry_status(ctx: &Context, func: OpId) -> Option<EntryStatus> {
    let dicts = ctx.op_inherent_or_attr(func, "res_attrs")?;
    let AttrKind::Array(dicts) = ctx.attr_kind(dicts) else {
        return None;
    };
    let result = dicts
        .iter()
        .position(|&d| ctx.dictionary_get(d, STATUS_RESULT_ATTR).is_some())?;
    let messages = ctx
        .op_inherent_or_attr(func, STATUS_MESSAGES_ATTR)
        .map(|a| match ctx.attr_kind(a) {
            AttrKind::Array(items) => items
                .iter()
                .map(|&s| ctx.attr_as_str(s).unwrap_or_default().to_owned())
                .collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    Some(EntryStatus { result, messages })
}
