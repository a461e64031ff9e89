//! What the generator reads and writes. It reads a tensor sentence's prefix (the `<task>`
//! and `<hw>` sections of [`crate::sentence`], the `<decision>` marker and the space's
//! kind) and writes one word per knob, in knob order. A knob's word names that knob's own
//! value: the same as [`Space::tokens`] for schedule spaces, while the micro-kernel and
//! convolution spaces write `nr-vectors=M` (the register block's vector count) where a
//! sentence writes `nr=M*vector`, a word that would need the later vector knob.

use crate::sentence::{DECISION_MARK, HARDWARE_MARK, Hardware, TASK_MARK, task_tokens};
use crate::space::{Space, knob_value};

/// The words before the first knob: task, hardware, the decision marker and the space.
pub fn prefix_words(space: &Space, hardware: &Hardware) -> Vec<String> {
    let mut out = vec![TASK_MARK.to_string()];
    out.extend(task_tokens(space));
    out.push(HARDWARE_MARK.to_string());
    out.extend(hardware.tokens());
    out.push(DECISION_MARK.to_string());
    out.push(format!("space={}", space.kind()));
    out
}

/// For each knob, the word of each of its choices.
pub fn knob_words(space: &Space) -> Vec<Vec<String>> {
    fn words<T: std::fmt::Display>(name: &str, values: &[T]) -> Vec<String> {
        values.iter().map(|v| format!("{name}={v}")).collect()
    }
    match space {
        Space::MicroKernel(s) => vec![
            words("mr", &s.mr),
            words("nr-vectors", &s.mult),
            words("vector", &s.vector),
            words("kc", &s.kc),
            words("nc", &s.nc),
            words("pack-rhs", &s.pack),
        ],
        Space::Conv(s) => vec![
            words("mr", &s.mr),
            words("nr-vectors", &s.mult),
            words("vector", &s.vector),
            words("threads", &s.threads),
        ],
        Space::Schedule(s) => s
            .knobs()
            .iter()
            .map(|k| {
                (0..k.len())
                    .map(|c| format!("{}={}", k.name(), knob_value(k, c)))
                    .collect()
            })
            .collect(),
        Space::Fixed(_) => vec![],
    }
}
