//! Map composition: re-indexing a producer's reads into a consumer's domain.
//!
//! A producer reads `x` at `f(p)` for each of its points `p`; a consumer reads the producer
//! at `m(c)` for each of its points `c`. Inlined into the consumer, the producer's read of
//! `x` becomes `f(m(c))`, that is the map `f ∘ m` over the consumer's domain.

use tb_ir::affine::AffineMap;
use tb_ir::{AttrKind, Context, OpId};

/// `producer_read ∘ consumer_read`, simplified; `None` if the arities do not chain.
pub fn compose_reads(producer_read: &AffineMap, consumer_read: &AffineMap) -> Option<AffineMap> {
    producer_read
        .try_compose(consumer_read)
        .map(|m| m.simplify())
}

/// Replaces the `map` of the `te.read` `read` (an inherent attribute).
pub fn set_read_map(ctx: &mut Context, read: OpId, map: AffineMap) {
    let attr = ctx.intern_attr(AttrKind::AffineMap(map));
    let mut entries: Vec<(String, tb_ir::Attr)> = ctx
        .op(read)
        .properties
        .map(|p| ctx.dictionary_entries(p).to_vec())
        .unwrap_or_default();
    match entries.iter_mut().find(|(name, _)| name == "map") {
        Some(entry) => entry.1 = attr,
        None => entries.push(("map".to_string(), attr)),
    }
    let dict = ctx.dictionary_attr(entries);
    ctx.op_mut(read).properties = Some(dict);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tb_ir::affine::parse_affine_map;

    fn compose(producer: &str, consumer: &str) -> String {
        let p = parse_affine_map(producer).unwrap();
        let c = parse_affine_map(consumer).unwrap();
        compose_reads(&p, &c).unwrap().to_string()
    }

    #[test]
    fn transpose_of_a_transpose_is_the_identity() {
        assert_eq!(
            compose("(d0, d1) -> (d1, d0)", "(d0, d1) -> (d1, d0)"),
            "(d0, d1) -> (d0, d1)"
        );
    }

    #[test]
    fn broadcast_through_an_elementwise_producer() {
        // The producer reads a bias per column; the consumer reads the producer's row 0.
        assert_eq!(
            compose("(d0, d1) -> (d1)", "(d0, d1, d2) -> (0, d1)"),
            "(d0, d1, d2) -> (d1)"
        );
    }

    #[test]
    fn strided_slice_of_an_offset_read() {
        assert_eq!(
            compose("(d0) -> (d0 + 1)", "(d0) -> (d0 * 2)"),
            "(d0) -> (d0 * 2 + 1)"
        );
    }

    #[test]
    fn mismatched_arity_does_not_compose() {
        let p = parse_affine_map("(d0, d1) -> (d0)").unwrap();
        let c = parse_affine_map("(d0) -> (d0)").unwrap();
        assert!(compose_reads(&p, &c).is_none());
    }
}
