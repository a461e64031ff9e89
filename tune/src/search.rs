//! Model-guided search over the tasks of a model.
//!
//! **Task scheduler.** Every tunable task is first measured with the heuristic schedule;
//! then each round goes to the task with the largest expected gain
//! `weight * best_latency * max(recent_improvement, 0.05)`, where `recent_improvement` is
//! the relative drop of the task's best latency over its last two rounds (1 before the
//! task has had two): a simple form of Ansor's gradient scheduler, spending trials where
//! the end-to-end time is likely to drop most.
//!
//! **Candidates.** A round measures up to [`SearchOptions::batch`] new decisions of the
//! task. Model-guided: an evolutionary search (population of the best measured decisions
//! and random samples, then generations of mutation and crossover of valid decisions, each
//! scored by the ranker) proposes its best unmeasured decisions; each slot is a random
//! sample instead with probability epsilon. Until the ranker is trained, and with
//! `random`, every candidate is a random sample. A candidate is proposed only if no
//! measured or proposed one spells the same schedule and the lowering accepts it
//! ([`TunableTask::lowers`]), so no trial is spent twice on one program or on a decision
//! that cannot compile. The ranker retrains on every successful record of the target
//! after each round.
//!
//! **Generated candidates** ([`ModelKind::Tlm`]). The schedule generator
//! ([`crate::tlm`]) replaces the evolutionary search: each round takes its beam search's
//! most likely decisions and its samples in turn (epsilon-greedy random samples as
//! above), and it is fine-tuned on the best records after every round, starting from a
//! pretrained generator when one is given.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tb_passes::schedule::Rng;

use crate::cost_model::{CostModel, FeatureCache, ModelKind, train_model};
use crate::database::{Record, Status};
use crate::features::{FEATURE_COUNT, FEATURE_SCHEMA_VERSION, features};
use crate::gbdt::{Dataset, Ranker, TrainOptions};
use crate::space::TunableTask;
use crate::target::TargetKey;
use crate::task::parse_module;
use crate::tlm::{Config as GeneratorConfig, Generator, examples, search_training};

/// What a measurement returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub status: Status,
    pub latency_s: Option<f64>,
    pub runs_s: Vec<f64>,
    pub error: Option<String>,
}

/// Compiles and times one candidate (`None`: the heuristic schedule) of a task.
pub trait Measurer {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement;

    /// Measures a round: `(index into tasks, decision)` pairs. `None` for a candidate
    /// left unmeasured because a stop was requested (the search then ends). A queue
    /// measures a round in parallel; by default the candidates are measured in turn.
    fn measure_batch(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
    ) -> Result<Vec<Option<Measurement>>, String> {
        let mut out = Vec::with_capacity(batch.len());
        for (i, decision) in batch {
            if crate::stop::requested() {
                out.push(None);
            } else {
                out.push(Some(self.measure(&tasks[*i], decision.as_deref())));
            }
        }
        Ok(out)
    }

    /// Measures a round like [`Measurer::measure_batch`], handing each measurement to
    /// `done` with its index in `batch` as soon as it is known, so it is stored before the
    /// rest of the round is measured. A candidate never handed over was left unmeasured
    /// because a stop was requested. By default the round is measured by `measure_batch`
    /// and handed over in order.
    fn measure_each(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
        done: &mut dyn FnMut(usize, Measurement) -> Result<(), String>,
    ) -> Result<(), String> {
        for (i, m) in self.measure_batch(tasks, batch)?.into_iter().enumerate() {
            if let Some(m) = m {
                done(i, m)?;
            }
        }
        Ok(())
    }
}

/// Where records go as they are measured (the database, in the tool).
pub trait RecordSink {
    fn add(&mut self, task: &TunableTask, record: &Record) -> Result<(), String>;
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub trials: usize,
    pub batch: usize,
    pub epsilon: f64,
    pub population: usize,
    pub generations: usize,
    pub random: bool,
    pub seed: u64,
    /// The cost model the search trains and ranks with.
    pub model: ModelKind,
    /// With [`ModelKind::Tlm`]: the generator to start from (pretrained on other tasks'
    /// records); the search fine-tunes a copy. Without one it starts from a fresh one.
    pub pretrained: Option<Arc<Generator>>,
    /// With [`ModelKind::Tlm`]: the temperature the generator samples at.
    pub temperature: f64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            trials: 64,
            batch: 4,
            epsilon: 0.1,
            population: 32,
            generations: 3,
            random: false,
            seed: 1,
            model: ModelKind::Tree,
            pretrained: None,
            temperature: 1.0,
        }
    }
}

/// The state of one task during a search.
#[derive(Clone, Debug, Default)]
pub struct TaskProgress {
    pub trials: usize,
    pub failed: usize,
    pub default_latency: Option<f64>,
    pub best_latency: Option<f64>,
    pub best_description: Option<String>,
    /// The best latency after each of the task's rounds.
    history: Vec<f64>,
}

/// What a search did: per task, and the weighted sum of best latencies after each trial.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub tasks: Vec<TaskProgress>,
    pub curve: Vec<f64>,
}

/// One trial's event, for progress display.
pub struct Event<'a> {
    pub task: usize,
    pub trial: usize,
    pub description: &'a str,
    pub measurement: &'a Measurement,
}

/// The features of `decision` of `task`, `None` when the candidate cannot be transformed.
pub fn candidate_features(task: &TunableTask, decision: &[usize]) -> Option<Vec<f64>> {
    let (mut ctx, module) = parse_module(&task.task.ir).ok()?;
    task.space
        .transform(&mut ctx, module, Some(decision))
        .ok()?;
    Some(features(
        &ctx,
        module,
        &task.space.decision_features(decision),
    ))
}

/// Trains a ranker on the records of `records` (grouped by task, labelled by speed
/// relative to the task's best; failed trials labelled 0).
pub fn train_ranker(
    tasks: &[TunableTask],
    records: &[Record],
    cache: &mut FeatureCache,
) -> Option<Ranker> {
    train_ranker_with(tasks, records, cache, &TrainOptions::default())
}

/// [`train_ranker`] with the trees grown as `options` says.
pub fn train_ranker_with(
    tasks: &[TunableTask],
    records: &[Record],
    cache: &mut FeatureCache,
    options: &TrainOptions,
) -> Option<Ranker> {
    let mut data = TrainingRows::default();
    data.add_device(tasks, records, cache);
    data.train(options)
}

/// A ranker trained on the records of several devices, each device's tasks with their
/// spaces on that device (`(tasks, records)` pairs): a task measured on two devices is two
/// groups, since its candidates rank differently there. The tree's features describe the
/// scheduled program, not the hardware, so it ranks another device's candidates by what
/// their code does (record translation).
pub fn train_ranker_on_devices(
    devices: &[(&[TunableTask], &[Record])],
    options: &TrainOptions,
) -> Option<Ranker> {
    let mut data = TrainingRows::default();
    for (tasks, records) in devices {
        // A task's key is the same on every device, its space (and so the candidate a
        // decision spells) is not: each device's features are cached apart.
        data.add_device(tasks, records, &mut FeatureCache::new());
    }
    data.train(options)
}

/// Feature rows, labels and groups gathered for training.
#[derive(Default)]
struct TrainingRows {
    rows: Vec<Vec<f64>>,
    labels: Vec<f64>,
    groups: Vec<usize>,
    next_group: usize,
}

impl TrainingRows {
    /// Adds one group per task of `tasks` with measured records.
    fn add_device(&mut self, tasks: &[TunableTask], records: &[Record], cache: &mut FeatureCache) {
        for task in tasks {
            let measured: Vec<&Record> = records
                .iter()
                .filter(|r| r.task_key == task.task.key && !r.decision.is_empty())
                .collect();
            let Some(best) = crate::database::fastest_latency(measured.iter().copied()) else {
                continue;
            };
            for r in measured {
                let key = (task.task.key.clone(), r.decision.clone());
                let f = cache
                    .entry(key)
                    .or_insert_with(|| candidate_features(task, &r.decision));
                if let Some(f) = f {
                    self.rows.push(f.clone());
                    // A failed candidate (crash, timeout, wrong result) ranks below all
                    // others.
                    self.labels.push(match (r.status, r.latency_s) {
                        (Status::Ok, Some(l)) => best / l,
                        _ => 0.0,
                    });
                    self.groups.push(self.next_group);
                }
            }
            self.next_group += 1;
        }
    }

    /// The ranker; `None` with fewer than 8 rows.
    fn train(&self, options: &TrainOptions) -> Option<Ranker> {
        if self.rows.len() < 8 {
            return None;
        }
        Some(Ranker::train(
            &Dataset {
                rows: &self.rows,
                labels: &self.labels,
                groups: &self.groups,
            },
            FEATURE_COUNT,
            FEATURE_SCHEMA_VERSION,
            options,
        ))
    }
}

fn random_f64(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Proposes up to `count` unmeasured decisions for `task`.
#[allow(clippy::too_many_arguments)]
fn propose(
    task: &TunableTask,
    target: &TargetKey,
    measured: &[(Vec<usize>, Option<f64>)],
    ranker: Option<&dyn CostModel>,
    options: &SearchOptions,
    rng: &mut Rng,
    count: usize,
    cache: &mut FeatureCache,
) -> Vec<Vec<usize>> {
    let space = &task.space;
    // Decisions that spell the same schedule (a tile level equal to the extent is no tile,
    // whichever level it is at) compile to the same code: measured once, by description.
    let seen: HashSet<String> = measured.iter().map(|(d, _)| space.describe(d)).collect();
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    // Whether `d` is new and lowers; if so it is taken.
    let mut take = |d: &Vec<usize>| {
        let description = space.describe(d);
        !seen.contains(&description) && task.lowers(d).is_ok() && taken.insert(description)
    };
    let random_one = |rng: &mut Rng, take: &mut dyn FnMut(&Vec<usize>) -> bool| {
        (0..20).find_map(|_| space.sample(rng).filter(|d| take(d)))
    };
    let ranker = ranker.filter(|_| !options.random);
    let Some(ranker) = ranker else {
        while out.len() < count {
            match random_one(rng, &mut take) {
                Some(d) => out.push(d),
                None => break,
            }
        }
        return out;
    };
    let mut score = |ds: Vec<Vec<usize>>, pool: &mut HashMap<Vec<usize>, f64>| {
        let scores = ranker.scores(task, target, &ds, cache);
        pool.extend(ds.into_iter().zip(scores));
    };
    let mut best_measured: Vec<&(Vec<usize>, Option<f64>)> =
        measured.iter().filter(|(_, l)| l.is_some()).collect();
    best_measured.sort_by(|a, b| a.1.partial_cmp(&b.1).expect("finite"));
    let mut population: Vec<Vec<usize>> = best_measured
        .iter()
        .take(options.population / 2)
        .map(|(d, _)| d.clone())
        .collect();
    while population.len() < options.population {
        match space.sample(rng) {
            Some(d) => population.push(d),
            None => break,
        }
    }
    let mut pool: HashMap<Vec<usize>, f64> = HashMap::new();
    population.sort();
    population.dedup();
    score(population, &mut pool);
    for _ in 0..options.generations {
        let mut ranked: Vec<(Vec<usize>, f64)> =
            pool.iter().map(|(d, s)| (d.clone(), *s)).collect();
        // Ties (a tree model scores many candidates alike) go by the decision, not by the
        // pool's hash order, which changes from one process to the next: the same seed
        // must pick the same parents.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let parents: Vec<Vec<usize>> = ranked
            .into_iter()
            .take(options.population / 2)
            .map(|(d, _)| d)
            .collect();
        if parents.is_empty() {
            break;
        }
        let mut children: Vec<Vec<usize>> = Vec::new();
        for i in 0..options.population {
            let a = &parents[i % parents.len()];
            let child = if rng.below(2) == 0 {
                space.mutate(a, rng)
            } else {
                let b = &parents[rng.below(parents.len())];
                space.crossover(a, b, rng)
            };
            if let Some(c) = child
                && !pool.contains_key(&c)
                && !children.contains(&c)
            {
                children.push(c);
            }
        }
        // Scored together: one batch for the transformer.
        score(children, &mut pool);
    }
    let mut ranked: Vec<(Vec<usize>, f64)> = pool.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut best = ranked.into_iter().map(|(d, _)| d);
    while out.len() < count {
        let next = if random_f64(rng) < options.epsilon {
            random_one(rng, &mut take)
        } else {
            best.by_ref().find(|d| take(d))
        };
        match next.or_else(|| random_one(rng, &mut take)) {
            Some(d) => out.push(d),
            None => break,
        }
    }
    out
}

/// Proposes up to `count` unmeasured decisions for `task` from the schedule generator:
/// the most likely decisions beam search finds and decisions sampled at the options'
/// temperature, taken in turn, each slot a random sample instead with probability
/// epsilon; the same filters as [`propose`] (new schedule, lowers) apply.
#[allow(clippy::too_many_arguments)]
fn propose_generated(
    task: &TunableTask,
    target: &TargetKey,
    measured: &[(Vec<usize>, Option<f64>)],
    generator: &Generator,
    options: &SearchOptions,
    rng: &mut Rng,
    count: usize,
) -> Result<Vec<Vec<usize>>, String> {
    let space = &task.space;
    let seen: HashSet<String> = measured.iter().map(|(d, _)| space.describe(d)).collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut take = |d: &Vec<usize>| {
        let description = space.describe(d);
        !seen.contains(&description) && task.lowers(d).is_ok() && taken.insert(description)
    };
    let beams = generator.beam(task, target, 2 * count)?;
    let samples = generator.sample(task, target, 8 * count, options.temperature, rng)?;
    // Most likely first, alternating with samples so each round also explores.
    let mut generated = Vec::with_capacity(beams.len() + samples.len());
    let mut beams = beams.into_iter().map(|(d, _)| d);
    let mut samples = samples.into_iter();
    loop {
        match (beams.next(), samples.next()) {
            (None, None) => break,
            (b, s) => generated.extend(b.into_iter().chain(s)),
        }
    }
    let mut generated = generated.into_iter();
    let mut out = Vec::new();
    while out.len() < count {
        let next = if random_f64(rng) < options.epsilon {
            None
        } else {
            generated.by_ref().find(|d| take(d))
        };
        let next = next.or_else(|| (0..20).find_map(|_| space.sample(rng).filter(|d| take(d))));
        match next {
            Some(d) => out.push(d),
            None => break,
        }
    }
    Ok(out)
}

/// Fine-tunes the generator on the best of `records` (see [`crate::tlm::examples`]).
fn fine_tune(
    generator: &Generator,
    tasks: &[TunableTask],
    records: &[Record],
    seed: u64,
) -> Result<(), String> {
    let options = search_training(seed);
    generator.fit(&examples(tasks, records, options.top_fraction), &options)?;
    Ok(())
}

/// Tunes `tasks` on `target` within `options.trials` measurements (the heuristic's
/// included). `previous` are records measured before (the database's), which seed the
/// ranker and the population. `on_trial` sees every trial.
pub fn tune(
    tasks: &[TunableTask],
    target: &TargetKey,
    previous: &[Record],
    measurer: &mut dyn Measurer,
    sink: &mut dyn RecordSink,
    options: &SearchOptions,
    on_trial: &mut dyn FnMut(Event),
) -> Result<SearchResult, String> {
    let mut rng = Rng::seeded(options.seed);
    let mut records: Vec<Record> = previous.to_vec();
    let mut cache = HashMap::new();
    let mut progress: Vec<TaskProgress> = vec![TaskProgress::default(); tasks.len()];
    let mut measured: Vec<Vec<(Vec<usize>, Option<f64>)>> = vec![Vec::new(); tasks.len()];
    for (i, task) in tasks.iter().enumerate() {
        for r in records
            .iter()
            .filter(|r| r.task_key == task.task.key && !r.decision.is_empty())
        {
            measured[i].push((
                r.decision.clone(),
                r.latency_s.filter(|_| r.status == Status::Ok),
            ));
        }
    }
    let tunable: Vec<usize> = (0..tasks.len())
        .filter(|&i| tasks[i].space.is_tunable())
        .collect();
    let mut curve = Vec::new();
    let mut trial = 0;
    let search_name = if options.random { "random" } else { "model" };
    let mut run = |i: usize,
                   decision: Option<Vec<usize>>,
                   m: Measurement,
                   trial: &mut usize,
                   progress: &mut Vec<TaskProgress>,
                   records: &mut Vec<Record>,
                   measured: &mut Vec<Vec<(Vec<usize>, Option<f64>)>>,
                   curve: &mut Vec<f64>|
     -> Result<(), String> {
        let task = &tasks[i];
        let description = match &decision {
            Some(d) => task.space.describe(d),
            None => "heuristic".to_string(),
        };
        let record = Record {
            target: target.clone(),
            task_key: task.task.key.clone(),
            space: task.space.kind().to_string(),
            decision: decision.clone().unwrap_or_default(),
            description: description.clone(),
            status: m.status,
            latency_s: m.latency_s,
            runs_s: m.runs_s.clone(),
            error: m.error.clone(),
            search: if decision.is_some() {
                search_name
            } else {
                "default"
            }
            .to_string(),
        };
        sink.add(task, &record)?;
        *trial += 1;
        let p = &mut progress[i];
        p.trials += 1;
        if m.status != Status::Ok {
            p.failed += 1;
        }
        if let Some(l) = m.latency_s.filter(|_| m.status == Status::Ok) {
            if decision.is_none() {
                p.default_latency = Some(l);
            }
            if p.best_latency.is_none_or(|b| l < b) {
                p.best_latency = Some(l);
                p.best_description = Some(description.clone());
            }
        }
        if let Some(d) = decision {
            measured[i].push((d, m.latency_s.filter(|_| m.status == Status::Ok)));
        }
        records.push(record);
        curve.push(
            tunable
                .iter()
                .map(|&t| progress[t].best_latency.unwrap_or(0.0) * tasks[t].task.weight as f64)
                .sum(),
        );
        on_trial(Event {
            task: i,
            trial: *trial,
            description: &description,
            measurement: &m,
        });
        Ok(())
    };
    let heuristics: Vec<(usize, Option<Vec<usize>>)> = tunable
        .iter()
        .take(options.trials)
        .map(|&i| (i, None))
        .collect();
    let mut delivered = 0;
    measurer.measure_each(tasks, &heuristics, &mut |j, m| {
        delivered += 1;
        let (i, decision) = &heuristics[j];
        run(
            *i,
            decision.clone(),
            m,
            &mut trial,
            &mut progress,
            &mut records,
            &mut measured,
            &mut curve,
        )
    })?;
    let mut stopped = delivered < heuristics.len();
    let mut ranker: Option<Box<dyn CostModel>> = None;
    // The generator proposes instead of the evolutionary search; it starts from the
    // pretrained one (or a fresh one) and first learns from the records before the search.
    let generator = match (options.model, options.random) {
        (ModelKind::Tlm, false) => {
            let g = match &options.pretrained {
                Some(g) => g.duplicate()?,
                None => Generator::new(GeneratorConfig::default(), options.seed)?,
            };
            fine_tune(&g, tasks, &records, options.seed)?;
            Some(g)
        }
        _ => None,
    };
    let mut exhausted: HashSet<usize> = HashSet::new();
    while trial < options.trials && !stopped {
        let Some(&i) = tunable
            .iter()
            .filter(|i| !exhausted.contains(i))
            .max_by(|&&a, &&b| {
                expected_gain(&progress[a], tasks[a].task.weight)
                    .total_cmp(&expected_gain(&progress[b], tasks[b].task.weight))
            })
        else {
            break;
        };
        let count = options.batch.min(options.trials - trial);
        let proposals = match &generator {
            Some(g) => {
                propose_generated(&tasks[i], target, &measured[i], g, options, &mut rng, count)?
            }
            None => propose(
                &tasks[i],
                target,
                &measured[i],
                ranker.as_deref(),
                options,
                &mut rng,
                count,
                &mut cache,
            ),
        };
        if proposals.is_empty() {
            exhausted.insert(i);
            continue;
        }
        let batch: Vec<(usize, Option<Vec<usize>>)> =
            proposals.into_iter().map(|d| (i, Some(d))).collect();
        let mut delivered = 0;
        measurer.measure_each(tasks, &batch, &mut |j, m| {
            delivered += 1;
            let (i, decision) = &batch[j];
            run(
                *i,
                decision.clone(),
                m,
                &mut trial,
                &mut progress,
                &mut records,
                &mut measured,
                &mut curve,
            )
        })?;
        stopped = delivered < batch.len();
        let best = progress[i].best_latency.unwrap_or(f64::INFINITY);
        progress[i].history.push(best);
        if let Some(g) = &generator {
            fine_tune(g, tasks, &records, options.seed)?;
        } else if !options.random {
            ranker =
                train_model(options.model, tasks, &records, &mut cache, options.seed).or(ranker);
        }
    }
    Ok(SearchResult {
        tasks: progress,
        curve,
    })
}

fn expected_gain(p: &TaskProgress, weight: usize) -> f64 {
    let best = p.best_latency.unwrap_or(1.0);
    let improvement = match p.history.as_slice() {
        [.., before, now] if before.is_finite() && *before > 0.0 => (before - now) / before,
        _ => 1.0,
    };
    weight as f64 * best * improvement.max(0.05)
}

/// A ranker's TenSet-style scores on one held-out task.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOutScore {
    pub task_key: String,
    /// Distinct successfully measured candidates of the task the ranker chose among.
    pub candidates: usize,
    /// `best / fastest of the ranker's first k`: 1 when its first choice (top-1) or one of
    /// its first five (top-5) is the fastest measured candidate.
    pub top1: f64,
    pub top5: f64,
    /// The latencies behind them: the fastest candidate's, and the fastest among the
    /// ranker's first one and first five (seconds).
    pub best_s: f64,
    pub top1_s: f64,
    pub top5_s: f64,
}

/// TenSet's network-level top-k scores of held-out tasks: the time a network would spend
/// in these tasks with each task's fastest candidate, over the time it would spend with
/// the fastest of the ranker's first k (`Σ w·best / Σ w·top-k`), each task weighted by
/// `weight(task key)`, the times it occurs in the network. Heavy tasks count for what they
/// cost, where a median over tasks counts a microsecond kernel like a convolution. `None`
/// without scores.
pub fn network_scores(scores: &[HeldOutScore], weight: impl Fn(&str) -> f64) -> Option<(f64, f64)> {
    let (mut best, mut top1, mut top5) = (0.0, 0.0, 0.0);
    for s in scores {
        let w = weight(&s.task_key);
        best += w * s.best_s;
        top1 += w * s.top1_s;
        top5 += w * s.top5_s;
    }
    (top1 > 0.0 && top5 > 0.0).then(|| (best / top1, best / top5))
}

impl HeldOutScore {
    /// The scores of task `task_key` from `scored`, its candidates as (prediction,
    /// latency) pairs; `None` when fewer than two candidates leave nothing to rank.
    pub fn of(task_key: &str, mut scored: Vec<(f64, f64)>) -> Option<HeldOutScore> {
        if scored.len() < 2 {
            return None;
        }
        let best = scored.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
        // Highest prediction first; ties broken towards the slower candidate, so a ranker
        // that cannot tell candidates apart earns no credit from the order they came in.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
        let fastest_of_first = |k: usize| {
            scored
                .iter()
                .take(k)
                .map(|s| s.1)
                .fold(f64::INFINITY, f64::min)
        };
        let (top1_s, top5_s) = (fastest_of_first(1), fastest_of_first(5));
        Some(HeldOutScore {
            task_key: task_key.to_string(),
            candidates: scored.len(),
            top1: best / top1_s,
            top5: best / top5_s,
            best_s: best,
            top1_s,
            top5_s,
        })
    }
}

/// Trains a ranker on `train` (tasks and their records) and scores it on the tasks of
/// `test`, which it has never seen: for each test task, the measured candidates are ranked
/// by the ranker's prediction and the fastest latency among its first k is compared with
/// the fastest of all (TenSet's top-k). Heuristic records (no decision) and failed trials
/// are not candidates; a decision measured twice keeps its faster latency. Tasks with fewer
/// than two candidates are skipped. `None` when the training records are too few to train.
pub fn held_out_scores(
    train_tasks: &[TunableTask],
    train_records: &[Record],
    test_tasks: &[TunableTask],
    test_records: &[Record],
) -> Option<Vec<HeldOutScore>> {
    let mut cache = HashMap::new();
    let ranker = train_ranker(train_tasks, train_records, &mut cache)?;
    let mut out = Vec::new();
    for task in test_tasks {
        let mut fastest: HashMap<&Vec<usize>, f64> = HashMap::new();
        for r in test_records.iter().filter(|r| {
            r.task_key == task.task.key && !r.decision.is_empty() && r.status == Status::Ok
        }) {
            if let Some(l) = r.latency_s {
                let entry = fastest.entry(&r.decision).or_insert(l);
                *entry = entry.min(l);
            }
        }
        let scored: Vec<(f64, f64)> = fastest
            .into_iter()
            .filter_map(|(d, l)| candidate_features(task, d).map(|f| (ranker.predict(&f), l)))
            .collect();
        out.extend(HeldOutScore::of(&task.task.key, scored));
    }
    Some(out)
}
