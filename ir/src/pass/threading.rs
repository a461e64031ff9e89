//! Running a nested pipeline on several ops at once, as MLIR does: the ops a nested pass
//! manager runs on are isolated from above, so each can be transformed on its own.
//!
//! Fork and join: every worker thread gets a fork of the context (see [`crate::fork`]) with
//! its own pass instances built from the same pipeline text, claims ops in program order,
//! copies each in, runs the pipeline on it, and keeps the result. Back on the calling thread
//! the forks' arenas are adopted as they are (their ids are unique), what the workers
//! interned is re-interned in program order, and each result is moved onto its original
//! op, which keeps its id and place. What comes out is what a sequential run gives: the IR
//! (copies keep every use-list order), the IR dumps (kept per op and appended in op order)
//! and the error (that of the first failing op in program order; ops after it are left as
//! they were, as a sequential run leaves them).
//!
//! Limits, as MLIR's rules for nested passes: a pass may read above its op only what the
//! fork rebuilds (ancestors' attributes and the symbols in them, see [`Scaffold`]), and
//! symbol ops handled by another worker show their attributes as they were before the
//! pipeline; ops a pass adds outside its op are lost. Ids of ops nested in a target do not
//! survive a threaded run (the op gets a new body). Resource blobs a pass adds are merged
//! back in op order. `--mlir-timing` sums a pass's time over threads.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::manager::{Instrumentation, OpPassManager, PassManager, TimingNode};
use super::pipeline::Pipeline;
use super::registry::PassRegistry;
use crate::context::{Context, ExternalResourceValue, ResourceBlob};
use crate::diagnostics::Diagnostic;
use crate::fork::Scaffold;
use crate::import::Importer;
use crate::operation::OpId;

/// Stack size of worker threads: what Linux gives a main thread by default.
const WORKER_STACK: usize = 8 << 20;

/// The environment variable that sets how many threads passes may use.
pub const THREADS_ENV: &str = "TB_NUM_THREADS";

/// The thread count set by `TB_NUM_THREADS`, if it is set: a positive integer.
pub fn threads_from_env() -> Result<Option<usize>, String> {
    match std::env::var(THREADS_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "{THREADS_ENV} must be a positive integer, not '{v}'"
            )),
        },
        Err(_) => Err(format!("{THREADS_ENV} must be a positive integer")),
    }
}

/// `TB_NUM_THREADS` when it is valid, else the parallelism the system offers.
pub fn default_threads() -> usize {
    match threads_from_env() {
        Ok(Some(n)) => n,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// Whether running `nested` on `targets` on threads is possible and may pay: at least two
/// ops, each registered as isolated from above and without operands, results or successors
/// (nothing connects it to its siblings).
pub(super) fn can_fork(ctx: &Context, nested: &OpPassManager, targets: &[OpId]) -> bool {
    targets.len() >= 2
        && !nested.is_empty()
        && targets.iter().all(|&t| {
            let data = ctx.op(t);
            !data.erased
                && data.operands.is_empty()
                && data.results.is_empty()
                && data.successors.is_empty()
                && ctx
                    .op_traits(t)
                    .is_some_and(|traits| traits.isolated_from_above)
        })
}

/// What every worker reads.
struct Job<'a> {
    parent: &'a Context,
    anchor: OpId,
    targets: &'a [OpId],
    pipeline: &'a Pipeline,
    registry: &'a PassRegistry,
    instr: &'a Instrumentation,
    /// The next target to claim.
    next: AtomicUsize,
    /// The first target that failed so far (`usize::MAX`: none).
    failed: AtomicUsize,
}

/// One target after the pipeline ran on it, in a worker's fork.
struct Done {
    index: usize,
    /// The copy in the fork (`None`: it could not be copied in).
    op: Option<OpId>,
    log: String,
    result: Result<(), Diagnostic>,
    /// Resource blobs and external resources the fork holds that differ from the parent's.
    resources: Vec<(String, ResourceBlob)>,
    external: Vec<(String, Vec<(String, ExternalResourceValue)>)>,
}

struct Worker {
    ctx: Context,
    done: Vec<Done>,
    timing: TimingNode,
    /// The pipeline could not be built (it was built once already, so this is unexpected).
    setup: Result<(), String>,
}

impl Job<'_> {
    fn work(&self, mut ctx: Context) -> Worker {
        let mut worker = Worker {
            ctx: Context::default(),
            done: Vec::new(),
            timing: TimingNode::default(),
            setup: Ok(()),
        };
        let mut pm = match PassManager::new(self.pipeline, self.registry) {
            Ok(pm) => pm,
            Err(e) => {
                worker.setup = Err(e);
                worker.ctx = ctx;
                return worker;
            }
        };
        pm.set_threads(1);
        let mut importer = Importer::new(&ctx, self.parent);
        let mut scaffold = Scaffold::build(
            &mut ctx,
            self.parent,
            &mut importer,
            self.anchor,
            self.targets,
        );
        loop {
            let index = self.next.fetch_add(1, Ordering::SeqCst);
            if index >= self.targets.len() || index > self.failed.load(Ordering::SeqCst) {
                break;
            }
            let op = match importer.import_op(&mut ctx, self.parent, self.targets[index]) {
                Ok(op) => op,
                Err(message) => {
                    let loc = self.parent.op(self.targets[index]).loc;
                    self.failed.fetch_min(index, Ordering::SeqCst);
                    worker.done.push(Done {
                        index,
                        op: None,
                        log: String::new(),
                        result: Err(Diagnostic::error(loc, message)),
                        resources: Vec::new(),
                        external: Vec::new(),
                    });
                    continue;
                }
            };
            scaffold.place(&mut ctx, index, op);
            let result = pm.run(&mut ctx, op, self.instr);
            if result.is_err() {
                self.failed.fetch_min(index, Ordering::SeqCst);
            }
            worker.done.push(Done {
                index,
                op: Some(op),
                log: std::mem::take(&mut pm.log),
                result,
                resources: changed_resources(&ctx, self.parent),
                external: changed_external(&ctx, self.parent),
            });
        }
        worker.timing = std::mem::take(&mut pm.timing);
        worker.ctx = ctx;
        worker
    }
}

fn changed_resources(fork: &Context, parent: &Context) -> Vec<(String, ResourceBlob)> {
    if Arc::ptr_eq(&fork.resources, &parent.resources) {
        return Vec::new();
    }
    fork.resources
        .iter()
        .filter(|(k, v)| parent.resources.get(*k) != Some(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

type ExternalGroup = (String, Vec<(String, ExternalResourceValue)>);

fn changed_external(fork: &Context, parent: &Context) -> Vec<ExternalGroup> {
    fork.external_resources
        .iter()
        .filter(|(k, v)| parent.external_resources.get(*k) != Some(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

impl PassManager {
    /// Runs `nested` on `targets` (ops directly inside `anchor`, see [`can_fork`]) on up to
    /// `self.threads` threads, this one included.
    pub(super) fn run_nested_on_threads(
        &mut self,
        nested: &OpPassManager,
        ctx: &mut Context,
        anchor: OpId,
        targets: &[OpId],
        instr: &Instrumentation,
    ) -> Result<(), Diagnostic> {
        let count = self.threads.min(targets.len());
        let forks: Vec<Context> = (0..count).map(|_| ctx.fork()).collect();
        let job = Job {
            parent: ctx,
            anchor,
            targets,
            pipeline: &nested.source,
            registry: &self.registry,
            instr,
            next: AtomicUsize::new(0),
            failed: AtomicUsize::new(usize::MAX),
        };
        let workers: Vec<Worker> = std::thread::scope(|s| {
            let job = &job;
            let mut forks = forks.into_iter();
            let own = forks.next();
            // Workers get the stack a main thread usually has, so that a pass that recurses
            // deeply fails (or not) as it does sequentially. A thread that cannot start
            // leaves its share to the others: work is claimed, not assigned.
            let handles: Vec<_> = forks
                .filter_map(|f| {
                    std::thread::Builder::new()
                        .name("tb-pass-worker".into())
                        .stack_size(WORKER_STACK)
                        .spawn_scoped(s, move || job.work(f))
                        .ok()
                })
                .collect();
            let mut workers: Vec<Worker> = own.into_iter().map(|f| job.work(f)).collect();
            for handle in handles {
                match handle.join() {
                    Ok(w) => workers.push(w),
                    // A pass that panics on a worker panics here, as it would sequentially.
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            workers
        });
        let failed = job.failed.load(Ordering::SeqCst);
        for w in &workers {
            if let Err(message) = &w.setup {
                return Err(Diagnostic::error(ctx.op(anchor).loc, message.clone()));
            }
            if instr.timing || instr.statistics {
                let path = self.timing_path.clone();
                self.timing.at_path(&path).merge(&w.timing);
            }
        }
        self.join(ctx, targets, workers, failed)
    }

    /// Takes the results in place of the original ops, in program order, up to the first
    /// failure: what the forks interned is re-interned here in that order, then their
    /// arenas are adopted as they are.
    fn join(
        &mut self,
        ctx: &mut Context,
        targets: &[OpId],
        mut workers: Vec<Worker>,
        failed: usize,
    ) -> Result<(), Diagnostic> {
        let mut importers: Vec<Importer> =
            workers.iter().map(|w| Importer::new(ctx, &w.ctx)).collect();
        let mut order: HashMap<usize, (usize, usize)> = HashMap::new();
        for (w, worker) in workers.iter().enumerate() {
            for (d, done) in worker.done.iter().enumerate() {
                order.insert(done.index, (w, d));
            }
        }
        let mut taken = Vec::new();
        let mut error = None;
        for (index, &target) in targets.iter().enumerate().take(failed.saturating_add(1)) {
            // Every target up to the first failure was claimed and run: claims stop only
            // past a failure.
            let Some(&(w, d)) = order.get(&index) else {
                break;
            };
            let worker = &mut workers[w];
            let done = &worker.done[d];
            self.log.push_str(&done.log);
            // A failing op is taken too: a sequential run leaves it as the pass did.
            if let Some(op) = done.op {
                importers[w].translate_in_place(ctx, &mut worker.ctx, op);
                taken.push((target, op));
            }
            if !done.resources.is_empty() {
                let table = Arc::make_mut(&mut ctx.resources);
                for (k, v) in &done.resources {
                    table.insert(k.clone(), v.clone());
                }
            }
            for (k, v) in &done.external {
                ctx.external_resources.insert(k.clone(), v.clone());
            }
            if let Err(diag) = &done.result {
                error = Some(importers[w].import_diagnostic(ctx, &worker.ctx, diag));
                break;
            }
        }
        for worker in workers {
            let adopted = ctx.adopt(worker.ctx);
            debug_assert!(adopted, "workers hold forks of this context");
        }
        for (target, op) in taken {
            ctx.take_body(target, op)
                .map_err(|m| Diagnostic::error(ctx.op(target).loc, m))?;
        }
        error.map_or(Ok(()), Err)
    }
}
