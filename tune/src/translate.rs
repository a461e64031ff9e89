//! Record translation (TensorBind): schedules for a task on device B proposed from the
//! records of the same task and others measured on device A, through tensor sentences.
//!
//! A record of A spells its decision as knob words (`mr=4 nr=32 vector=16 ...`); the words
//! decode into B's space when B offers every value ([`crate::sentence::decode`]), and a
//! record whose words B does not offer (a 16-lane vector on an SSE device) becomes B's
//! candidate sharing the most words with it. A transformer trained on A's records, read
//! with B's hardware words, ranks the translated records, and apart from them their
//! mutations and random decisions of B's space. The translated record it ranks first is
//! B's zero-shot schedule (no measurement on B before it); the first k of the two lists,
//! alternating, are the candidates of k-shot translation (measure k, keep the fastest).

use std::collections::HashSet;

use tb_passes::schedule::Rng;

use crate::cost_model::{CostModel, FeatureCache};
use crate::database::{Record, Status};
use crate::sentence::decode;
use crate::space::{Space, TunableTask};
use crate::target::TargetKey;

/// How B's candidates are gathered.
#[derive(Clone, Debug)]
pub struct TranslateOptions {
    /// A's fastest records of the task that are translated.
    pub records: usize,
    /// Random decisions of B's space ranked beside them.
    pub random: usize,
    /// Mutations of each translated record.
    pub mutations: usize,
    pub seed: u64,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            records: 16,
            random: 256,
            mutations: 8,
            seed: 1,
        }
    }
}

/// B's ranked proposals for one task.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposals {
    /// Decisions of B's space, best first, each lowering, no two spelling one schedule.
    pub ranked: Vec<Vec<usize>>,
    /// A's records that decoded exactly into B's space.
    pub exact: usize,
    /// A's records that became their nearest B candidate.
    pub nearest: usize,
}

/// The knob words of `decision` of `space` (the decision section of its sentence).
fn words(space: &Space, decision: &[usize]) -> Vec<String> {
    space.tokens(decision)
}

/// How many knob words two decisions share.
fn shared(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

/// `record` (a decision of `from`, A's space of the task) in `to` (B's space): its exact
/// decoding, or else the member of `pool` sharing the most knob words with it (`None` for
/// an empty pool or a record A's space does not accept).
pub fn translate_record(
    from: &Space,
    to: &Space,
    decision: &[usize],
    pool: &[Vec<usize>],
) -> Option<(Vec<usize>, bool)> {
    from.validate(decision).ok()?;
    let spelled = words(from, decision);
    if let Ok(d) = decode(to, &spelled) {
        return Some((d, true));
    }
    pool.iter()
        .max_by_key(|d| shared(&spelled, &words(to, d)))
        .map(|d| (d.clone(), false))
}

/// Ranks candidates of `task_b` (the task with its space on B) for `target_b` with `model`:
/// A's fastest successful records of the task (`records_a`, decisions of `space_a`)
/// translated, ranked by the model, alternating with the model's favourites among their
/// mutations and random decisions of B's space (the translated records first; either list
/// continues when the other runs out). Only decisions that lower are kept, each schedule
/// once; at most `count` are returned.
pub fn propose(
    task_b: &TunableTask,
    target_b: &TargetKey,
    space_a: &Space,
    records_a: &[Record],
    model: &dyn CostModel,
    count: usize,
    options: &TranslateOptions,
) -> Proposals {
    let space = &task_b.space;
    let mut rng = Rng::seeded(options.seed);
    let mut pool: Vec<Vec<usize>> = (0..options.random)
        .filter_map(|_| space.sample(&mut rng))
        .collect();
    let mut best_a: Vec<&Record> = records_a
        .iter()
        .filter(|r| {
            r.task_key == task_b.task.key
                && r.status == Status::Ok
                && r.latency_s.is_some()
                && !r.decision.is_empty()
        })
        .collect();
    best_a.sort_by(|a, b| a.latency_s.partial_cmp(&b.latency_s).expect("finite"));
    let (mut exact, mut nearest) = (0, 0);
    let mut translated: Vec<Vec<usize>> = Vec::new();
    for r in best_a.iter().take(options.records) {
        if let Some((d, is_exact)) = translate_record(space_a, space, &r.decision, &pool) {
            if is_exact {
                exact += 1;
            } else {
                nearest += 1;
            }
            translated.push(d);
        }
    }
    for d in &translated {
        for _ in 0..options.mutations {
            if let Some(m) = space.mutate(d, &mut rng) {
                pool.push(m);
            }
        }
    }
    let mut cache = FeatureCache::new();
    // Each list ranked by the model, best first, each schedule once and lowering.
    let mut seen = HashSet::new();
    let mut rank = |mut list: Vec<Vec<usize>>, seen: &mut HashSet<String>| {
        list.sort();
        list.dedup();
        let scores = model.scores(task_b, target_b, &list, &mut cache);
        let mut ranked: Vec<(Vec<usize>, f64)> = list.into_iter().zip(scores).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut out = Vec::new();
        for (d, _) in ranked {
            if out.len() >= count {
                break;
            }
            if !seen.contains(&space.describe(&d)) && task_b.lowers(&d).is_ok() {
                seen.insert(space.describe(&d));
                out.push(d);
            }
        }
        out
    };
    // A's measured schedules come first: the zero-shot proposal is the one of them the
    // model ranks highest on B; the few-shot candidates alternate between them and the
    // model's favourites among the mutations and random decisions.
    let from_records = rank(translated, &mut seen);
    let from_model = rank(pool, &mut seen);
    let mut out = Vec::new();
    let (mut a, mut b) = (from_records.into_iter(), from_model.into_iter());
    while out.len() < count {
        let next = if out.len() % 2 == 0 {
            a.next().or_else(|| b.next())
        } else {
            b.next().or_else(|| a.next())
        };
        match next {
            Some(d) => out.push(d),
            None => break,
        }
    }
    Proposals {
        ranked: out,
        exact,
        nearest,
    }
}
