//! Record translation (TensorBind): schedules for a task on device B proposed from the
//! records of the same task and others measured on device A, through tensor sentences.
//!
//! A record of A spells its decision as knob words (`mr=4 nr=32 vector=16 ...`); the words
//! decode into B's space when B offers every value ([`crate::sentence::decode`]), and a
//! record whose words B does not offer (a 16-lane vector on an SSE device) becomes B's
//! candidate sharing the most words with it. These translated records, their mutations and
//! random decisions of B's space are ranked by a transformer trained on A's records, read
//! with B's hardware words: the first is B's zero-shot schedule (no measurement on B before
//! it), the first k the candidates of k-shot translation (measure k, keep the fastest).

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
/// translated, their mutations, and random decisions of B's space. Only decisions that
/// lower are kept, each schedule once; at most `count` are returned.
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
    pool.extend(translated);
    pool.sort();
    pool.dedup();
    let mut cache = FeatureCache::new();
    let scores = model.scores(task_b, target_b, &pool, &mut cache);
    let mut ranked: Vec<(Vec<usize>, f64)> = pool.into_iter().zip(scores).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (d, _) in ranked {
        if out.len() >= count {
            break;
        }
        if seen.insert(space.describe(&d)) && task_b.lowers(&d).is_ok() {
            out.push(d);
        }
    }
    Proposals {
        ranked: out,
        exact,
        nearest,
    }
}
