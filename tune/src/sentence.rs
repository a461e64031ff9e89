//! Tensor sentences: a task, the hardware it runs on and one decision of its space, spelled
//! as a sequence of word tokens for sequence models (the transformer cost model).
//!
//! A sentence has three sections, each opened by a marker token:
//!
//! ```text
//! <task> op=contraction rank=3 elem=4 loop=s:2^6 loop=s:2^6 loop=r:2^7
//! <hw> isa=avx2 vbytes=32 vregs=16 threads=1 l1=2^15 l2=2^20
//! <decision> space=schedule tile[0][0]=8 ... order=[0, 2, 1] vector=8 unroll=1
//! ```
//!
//! - **Task.** `op=` is the operator class: `matmul` (a micro-kernel space), `contraction`
//!   (a reduction and at least two spatial loops), `reduction`, or `elementwise`; `rank=`
//!   the loop count; `elem=` the element bytes (schedule spaces); then one `loop=` token per
//!   loop in nest order, `s` (spatial) or `r` (reduction) with its extent rounded to the
//!   nearest power of two (so similar shapes share words). A matmul's loops are batch, m,
//!   n (spatial) and k (reduction).
//! - **Hardware.** The ISA class from the target's LLVM feature string (`avx512`: `+avx512f`;
//!   `avx2`: `+avx2`; else `sse`), its vector register bytes and count, the thread count
//!   and the L1 and L2 data cache sizes (powers of two). The CPU model is not a word: a
//!   model must carry over to CPUs it never saw, through their descriptors.
//! - **Decision.** [`Space::tokens`]: the space's kind, then one `knob=value` word per knob
//!   with the knob's value (not its index), so the same value reads the same across tasks.
//!
//! A sentence decodes back ([`decode`]) to the decision vector of a given space, or is
//! rejected with the reason (a missing or unknown word, a value the knob does not offer, or
//! a decision the space's validity rules refuse). Words become model inputs through
//! [`token_id`], a stable hash into [`VOCABULARY`] ids; [`TOKENIZER_VERSION`] changes
//! whenever any word or the hash changes, and saved models record it.

use tb_passes::schedule::{Knob, Target};

use crate::space::{Space, knob_value};
use crate::target::TargetKey;

/// The version of the words and of [`token_id`]; a saved model trained on another version
/// is refused.
pub const TOKENIZER_VERSION: u32 = 1;

/// Token ids are below this. Ids 0..[`RESERVED`] are reserved (0: padding).
pub const VOCABULARY: usize = 4096;

/// Ids below this are not words: 0 pads a batch of sentences to one length.
pub const RESERVED: usize = 4;

/// The padding id.
pub const PAD: u32 = 0;

pub const TASK_MARK: &str = "<task>";
pub const HARDWARE_MARK: &str = "<hw>";
pub const DECISION_MARK: &str = "<decision>";

/// What a sentence says about the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hardware {
    /// `avx512`, `avx2` or `sse`.
    pub isa: String,
    pub vector_bytes: i64,
    pub vector_registers: i64,
    pub threads: usize,
    pub l1_bytes: i64,
    pub l2_bytes: i64,
}

impl Hardware {
    /// The descriptor of a database target: ISA and vector registers from its feature
    /// string, threads from the key, cache sizes from `caches` (the schedule target's).
    pub fn of(key: &TargetKey, caches: &Target) -> Hardware {
        let has = |feature: &str| {
            key.features
                .split(',')
                .any(|f| f.trim() == format!("+{feature}"))
        };
        let (isa, vector_bytes, vector_registers) = if has("avx512f") {
            ("avx512", 64, 32)
        } else if has("avx2") || has("avx") {
            ("avx2", 32, 16)
        } else {
            ("sse", 16, 16)
        };
        Hardware {
            isa: isa.to_string(),
            vector_bytes,
            vector_registers,
            threads: key.threads,
            l1_bytes: caches.l1_bytes,
            l2_bytes: caches.l2_bytes,
        }
    }

    /// The descriptor's words (after the [`HARDWARE_MARK`]).
    pub fn tokens(&self) -> Vec<String> {
        vec![
            format!("isa={}", self.isa),
            format!("vbytes={}", self.vector_bytes),
            format!("vregs={}", self.vector_registers),
            format!("threads={}", self.threads),
            format!("l1={}", power_word(self.l1_bytes)),
            format!("l2={}", power_word(self.l2_bytes)),
        ]
    }
}

/// `2^e` for the power of two nearest to `n` (in log scale); `0` for `n <= 0`.
fn power_word(n: i64) -> String {
    if n <= 0 {
        return "0".into();
    }
    format!("2^{}", (n as f64).log2().round() as i64)
}

/// The task's words (after the [`TASK_MARK`]): operator class and loop structure.
pub fn task_tokens(space: &Space) -> Vec<String> {
    let loops: Vec<(bool, i64)> = match space {
        Space::MicroKernel(s) => vec![(false, s.batch), (false, s.m), (false, s.n), (true, s.k)],
        // Output channels, rows, columns; then input channels and the window's rows and
        // columns, which the convolution reduces over.
        Space::Conv(s) => s
            .extents
            .iter()
            .enumerate()
            .map(|(i, &e)| (i >= 3, e))
            .collect(),
        Space::Schedule(s) => {
            let nest = s.nest();
            nest.reduction
                .iter()
                .zip(&nest.extents)
                .map(|(&r, &e)| (r, e))
                .collect()
        }
        Space::Fixed(_) => vec![],
    };
    let reductions = loops.iter().filter(|(r, _)| *r).count();
    let op = match space {
        Space::MicroKernel(_) => "matmul",
        Space::Conv(_) => "conv",
        Space::Fixed(_) => "fixed",
        Space::Schedule(_) if reductions > 0 && loops.len() - reductions >= 2 => "contraction",
        Space::Schedule(_) if reductions > 0 => "reduction",
        Space::Schedule(_) => "elementwise",
    };
    let mut out = vec![format!("op={op}"), format!("rank={}", loops.len())];
    if let Space::Schedule(s) = space {
        out.push(format!("elem={}", s.nest().element_bytes));
    }
    for (reduction, extent) in loops {
        let kind = if reduction { "r" } else { "s" };
        out.push(format!("loop={kind}:{}", power_word(extent)));
    }
    out
}

/// The sentence of `decision` of a task with `space` on `hardware`.
pub fn sentence(space: &Space, hardware: &Hardware, decision: &[usize]) -> Vec<String> {
    let mut out = vec![TASK_MARK.to_string()];
    out.extend(task_tokens(space));
    out.push(HARDWARE_MARK.to_string());
    out.extend(hardware.tokens());
    out.push(DECISION_MARK.to_string());
    out.extend(space.tokens(decision));
    out
}

/// The decision vector of `space` that `words` spell, or why there is none. Only the
/// decision section is read (the task and hardware sections describe, they do not
/// choose); a sentence without one is read whole as a decision section.
pub fn decode(space: &Space, words: &[String]) -> Result<Vec<usize>, String> {
    let start = words
        .iter()
        .position(|w| w == DECISION_MARK)
        .map_or(0, |p| p + 1);
    let decision = &words[start..];
    let (kind, knobs) = decision
        .split_first()
        .ok_or("the sentence has no decision words")?;
    let expected = format!("space={}", space.kind());
    if *kind != expected {
        return Err(format!(
            "the decision starts with '{kind}', not '{expected}'"
        ));
    }
    let pairs: Vec<(&str, &str)> = knobs
        .iter()
        .map(|w| {
            w.split_once('=')
                .ok_or_else(|| format!("'{w}' is not a knob=value word"))
        })
        .collect::<Result<_, _>>()?;
    // The value of the `i`th knob word as a number, and the index of a value among a
    // knob's choices.
    let number = |i: usize| -> Result<i64, String> {
        pairs[i]
            .1
            .parse::<i64>()
            .map_err(|_| format!("{}={} is not a number", pairs[i].0, pairs[i].1))
    };
    let index = |name: &str, choices: &[i64], v: i64| -> Result<usize, String> {
        choices
            .iter()
            .position(|&c| c == v)
            .ok_or_else(|| format!("{name}={v} is not one of {choices:?}"))
    };
    let out = match space {
        Space::MicroKernel(s) => {
            let names = ["mr", "nr", "vector", "kc", "nc", "pack-rhs"];
            check_names(&pairs, &names)?;
            let mr = index("mr", &s.mr, number(0)?)?;
            let vector_value = number(2)?;
            let vector = index("vector", &s.vector, vector_value)?;
            let nr = number(1)?;
            if nr % vector_value != 0 {
                return Err(format!(
                    "nr={nr} is not a multiple of vector={vector_value}"
                ));
            }
            let mult = index("nr / vector", &s.mult, nr / vector_value)?;
            let kc = index("kc", &s.kc, number(3)?)?;
            let nc = index("nc", &s.nc, number(4)?)?;
            let pack = match pairs[5].1 {
                "true" => true,
                "false" => false,
                other => return Err(format!("pack-rhs={other} is not true or false")),
            };
            let pack = s
                .pack
                .iter()
                .position(|&p| p == pack)
                .ok_or_else(|| format!("pack-rhs={pack} is not offered"))?;
            vec![mr, mult, vector, kc, nc, pack]
        }
        Space::Conv(s) => {
            check_names(&pairs, &["mr", "nr", "vector", "threads"])?;
            let mr = index("mr", &s.mr, number(0)?)?;
            let vector_value = number(2)?;
            let vector = index("vector", &s.vector, vector_value)?;
            let nr = number(1)?;
            if vector_value == 0 || nr % vector_value != 0 {
                return Err(format!(
                    "nr={nr} is not a multiple of vector={vector_value}"
                ));
            }
            let mult = index("nr / vector", &s.mult, nr / vector_value)?;
            let threads = match pairs[3].1 {
                "true" => true,
                "false" => false,
                other => return Err(format!("threads={other} is not true or false")),
            };
            let threads = s
                .threads
                .iter()
                .position(|&t| t == threads)
                .ok_or_else(|| format!("threads={threads} is not offered"))?;
            vec![mr, mult, vector, threads]
        }
        Space::Schedule(s) => {
            let knobs = s.knobs();
            let names: Vec<String> = knobs.iter().map(Knob::name).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            check_names(&pairs, &names)?;
            knobs
                .iter()
                .zip(&pairs)
                .map(|(knob, (name, value))| {
                    (0..knob.len())
                        .find(|&c| knob_value(knob, c) == *value)
                        .ok_or_else(|| format!("{name}={value} is not one of the knob's values"))
                })
                .collect::<Result<Vec<usize>, String>>()?
        }
        Space::Fixed(why) => return Err(format!("the task has no knobs: {why}")),
    };
    space.validate(&out)?;
    Ok(out)
}

fn check_names(pairs: &[(&str, &str)], names: &[&str]) -> Result<(), String> {
    if pairs.len() != names.len() {
        return Err(format!(
            "the decision has {} knob words, the space has {} knobs",
            pairs.len(),
            names.len()
        ));
    }
    for ((name, _), expected) in pairs.iter().zip(names) {
        if name != expected {
            return Err(format!(
                "knob word '{name}' where '{expected}' was expected"
            ));
        }
    }
    Ok(())
}

/// The model input id of a word: FNV-1a (64-bit) of its bytes, folded into
/// `RESERVED..VOCABULARY`. Stable across builds and machines; distinct words may share an
/// id (the vocabulary is open: new shapes and values need no retraining of the tokenizer).
pub fn token_id(word: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in word.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (RESERVED as u64 + h % (VOCABULARY - RESERVED) as u64) as u32
}

/// The ids of a sentence's words.
pub fn token_ids(words: &[String]) -> Vec<u32> {
    words.iter().map(|w| token_id(w)).collect()
}
