//! The memory budget of the interpreter and of the tensors tools create: a tensor or buffer
//! larger than the budget is refused with an error naming it, instead of an allocation that
//! aborts the process. The budget is `TB_MAX_MEMORY` (bytes, or with a `K`, `M`, `G` or `T`
//! suffix, powers of 1024) when set, otherwise the memory the system reports available.

use std::sync::OnceLock;

use tb_ir::printer::type_to_string;
use tb_ir::{Context, Type};

use crate::exec::ElemType;

/// The environment variable that sets the budget.
pub const MAX_MEMORY_ENV: &str = "TB_MAX_MEMORY";

/// Used when neither `TB_MAX_MEMORY` nor the system says more.
const FALLBACK_BYTES: u64 = 16 << 30;

/// The budget in bytes, or why `TB_MAX_MEMORY` cannot be read.
pub fn memory_limit() -> Result<u64, String> {
    static LIMIT: OnceLock<Result<u64, String>> = OnceLock::new();
    LIMIT
        .get_or_init(|| match std::env::var(MAX_MEMORY_ENV) {
            Ok(text) => parse_bytes(&text).ok_or_else(|| {
                format!("{MAX_MEMORY_ENV}='{text}' is not a byte count (e.g. 4294967296, 512M, 8G)")
            }),
            Err(_) => Ok(available_memory().unwrap_or(FALLBACK_BYTES)),
        })
        .clone()
}

/// `4096`, `512K`, `64M`, `8G`, `1T` (powers of 1024; an optional trailing `B`).
pub fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let text = text
        .strip_suffix(['B', 'b'])
        .filter(|t| t.ends_with(|c: char| c.is_ascii_alphabetic()))
        .unwrap_or(text);
    let (digits, shift) = match text.char_indices().last()? {
        (i, 'k' | 'K') => (&text[..i], 10),
        (i, 'm' | 'M') => (&text[..i], 20),
        (i, 'g' | 'G') => (&text[..i], 30),
        (i, 't' | 'T') => (&text[..i], 40),
        _ => (text, 0),
    };
    let value: u64 = digits.parse().ok()?;
    value.checked_mul(1u64 << shift)
}

/// `MemAvailable` of `/proc/meminfo`, where there is one.
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The bytes a tensor of `shape` with `element_bytes`-byte elements takes, or why it
/// cannot be held: a negative (dynamic) dimension, an element count that overflows, or
/// more bytes than the budget.
pub fn check_size(shape: &[i64], element_bytes: u64) -> Result<u64, String> {
    let mut elements: u64 = 1;
    for &d in shape {
        let d =
            u64::try_from(d).map_err(|_| format!("has a dynamic or negative dimension ({d})"))?;
        elements = elements
            .checked_mul(d)
            .ok_or_else(|| format!("has more than 2^64 elements (shape {shape:?})"))?;
    }
    let bytes = elements
        .checked_mul(element_bytes.max(1))
        .ok_or_else(|| format!("needs more than 2^64 bytes (shape {shape:?})"))?;
    let limit = memory_limit()?;
    if bytes > limit {
        return Err(format!(
            "needs {bytes} bytes, more than the memory limit of {limit} bytes (set {MAX_MEMORY_ENV} to change it)"
        ));
    }
    Ok(bytes)
}

/// Checks a value of type `ty` against the budget when it is a statically shaped tensor or
/// memref; other types (scalars, dynamic shapes) pass. The message names the type.
pub fn check_type(ctx: &Context, ty: Type) -> Result<(), String> {
    let kind = ctx.type_kind(ty);
    let (Some(shape), Some(element)) = (kind.shape(), kind.element()) else {
        return Ok(());
    };
    if shape.iter().any(|&d| d < 0) {
        return Ok(());
    }
    // A malformed TB_MAX_MEMORY is reported as it is, not as a property of the type.
    memory_limit()?;
    let element_bytes = ElemType::of(ctx, element)
        .ok()
        .and_then(|e| e.dtype().ok())
        .map_or(8, |d| d.size_in_bytes() as u64);
    check_size(shape, element_bytes)
        .map(|_| ())
        .map_err(|why| format!("'{}' {why}", type_to_string(ctx, ty)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_with_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("512K"), Some(512 << 10));
        assert_eq!(parse_bytes("64m"), Some(64 << 20));
        assert_eq!(parse_bytes("8G"), Some(8 << 30));
        assert_eq!(parse_bytes("8GB"), Some(8 << 30));
        assert_eq!(parse_bytes("1T"), Some(1 << 40));
        assert_eq!(parse_bytes(""), None);
        assert_eq!(parse_bytes("G"), None);
        assert_eq!(parse_bytes("-1"), None);
        assert_eq!(parse_bytes("99999999999T"), None, "overflows");
    }

    #[test]
    fn sizes_that_overflow_or_exceed_the_budget_are_refused() {
        assert!(check_size(&[2, 3], 4).is_ok_and(|b| b == 24));
        assert!(
            check_size(&[i64::MAX, 4], 1)
                .unwrap_err()
                .contains("2^64 elements")
        );
        assert!(
            check_size(&[1 << 62], 8)
                .unwrap_err()
                .contains("2^64 bytes")
        );
        assert!(check_size(&[-1], 4).unwrap_err().contains("dynamic"));
        let limit = memory_limit().unwrap();
        let too_many = (limit / 4).saturating_add(1) as i64;
        assert!(
            check_size(&[too_many], 4)
                .unwrap_err()
                .contains("memory limit")
        );
    }
}
