//! The run-time support JIT-compiled code calls: a thread pool for parallel loops.
//!
//! `tb_rt_parallel_for(body, ctx, n, threads)` runs `body(ctx, begin, end)` over chunks of
//! `[0, n)` on a pool of `threads` threads (0: one per core) and returns when all chunks
//! are done. The calling thread works too. Each thread has a home share of `[0, n)`, the
//! same from one loop to the next, which it claims a few chunks at a time; a thread done
//! with its share claims chunks of the others', so uneven iterations (or a thread the
//! system holds back) still balance. Home shares keep each thread on the data it touched
//! in the previous loop, and the one before, which its caches still hold. A parallel loop
//! nested in another runs in order on the thread that reaches it: the pool is already busy
//! with the outer loop.
//!
//! A model runs one parallel loop after another, each often well under a millisecond, and
//! waking a sleeping thread takes tens of microseconds (more in a virtual machine). So
//! between loops the workers, and the caller waiting for the last chunk, first watch for
//! the next event by spinning ([`SPIN`], then yielding the core until [`YIELD`]) and only
//! then sleep on a condition variable.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// How long a waiting thread spins on the CPU before yielding it.
const SPIN: Duration = Duration::from_micros(100);
/// How long a waiting thread keeps checking (yielding the CPU between checks) before it
/// sleeps.
const YIELD: Duration = Duration::from_millis(2);

/// Waits until `ready()` holds or the spin and yield phases are over; whether it holds.
fn watch(ready: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    let mut polls: u32 = 0;
    loop {
        if ready() {
            return true;
        }
        polls = polls.wrapping_add(1);
        // Reading the clock costs more than a poll: look at it every few polls.
        if polls.is_multiple_of(64) {
            let waited = start.elapsed();
            if waited > YIELD {
                return false;
            }
            if waited > SPIN {
                thread::yield_now();
                continue;
            }
        }
        std::hint::spin_loop();
    }
}

/// The outlined body of a parallel loop: runs iterations `[begin, end)`.
pub type Body = unsafe extern "C" fn(ctx: *mut c_void, begin: i64, end: i64);

thread_local! {
    /// Set while this thread runs a chunk: nested parallel loops then run in order.
    static IN_PARALLEL: Cell<bool> = const { Cell::new(false) };
}

/// One thread's home share of a job's iterations, on a cache line of its own so that
/// claims in one share do not slow down claims in another.
#[repr(align(64))]
struct Share {
    /// The first iteration of the share not yet claimed.
    next: AtomicI64,
    end: i64,
    /// Iterations per claim.
    grain: i64,
}

/// One parallel loop being run.
struct Job {
    body: Body,
    /// The caller's context; only dereferenced by `body` while the caller waits.
    ctx: usize,
    n: i64,
    /// Thread `t`'s home share is `shares[t]`: the caller's is 0, worker `t`'s is `t`.
    shares: Box<[Share]>,
    done: AtomicI64,
}

impl Job {
    /// `[0, n)` in `threads` home shares of nearly equal size, each claimed in about
    /// four chunks.
    fn new(body: Body, ctx: usize, n: i64, threads: usize) -> Job {
        let count = threads as i64;
        let shares = (0..count)
            .map(|t| {
                let begin = n * t / count;
                let end = n * (t + 1) / count;
                Share {
                    next: AtomicI64::new(begin),
                    end,
                    grain: ((end - begin) / 4).max(1),
                }
            })
            .collect();
        Job {
            body,
            ctx,
            n,
            shares,
            done: AtomicI64::new(0),
        }
    }

    /// Claims and runs chunks, those of home share `home` first, until none are left.
    fn work(&self, state: &Shared, home: usize) {
        IN_PARALLEL.with(|flag| flag.set(true));
        let count = self.shares.len();
        for offset in 0..count {
            self.work_share(state, &self.shares[(home + offset) % count]);
        }
        IN_PARALLEL.with(|flag| flag.set(false));
    }

    /// Claims and runs the chunks of `share` until none are left.
    fn work_share(&self, state: &Shared, share: &Share) {
        loop {
            let begin = share.next.fetch_add(share.grain, Ordering::Relaxed);
            if begin >= share.end {
                break;
            }
            let end = (begin + share.grain).min(share.end);
            // SAFETY: `body` and `ctx` come from compiled code that waits in
            // `parallel_for` until every claimed chunk is done.
            unsafe { (self.body)(self.ctx as *mut c_void, begin, end) };
            // Sequentially consistent with the caller's `caller_sleeps` store and `done`
            // load: either it sees this chunk done, or this sees it asleep and wakes it.
            if self.done.fetch_add(end - begin, Ordering::SeqCst) + (end - begin) == self.n
                && state.caller_sleeps.load(Ordering::SeqCst)
            {
                let _guard = state.lock.lock().unwrap_or_else(|p| p.into_inner());
                state.finished.notify_all();
            }
        }
    }
}

#[derive(Default)]
struct Slot {
    job: Option<Arc<Job>>,
    generation: u64,
}

struct Shared {
    lock: Mutex<Slot>,
    wake: Condvar,
    finished: Condvar,
    /// `Slot::generation`, readable without the lock by workers watching for a job.
    generation: AtomicU64,
    /// Workers asleep on `wake` (changed under the lock).
    sleepers: AtomicUsize,
    /// Whether the caller sleeps on `finished` (set under the lock).
    caller_sleeps: AtomicBool,
}

/// A fixed set of worker threads waiting for jobs.
struct Pool {
    shared: Arc<Shared>,
    /// Workers plus the caller.
    size: usize,
    /// One job at a time per pool.
    submit: Mutex<()>,
}

impl Pool {
    fn new(size: usize) -> Pool {
        let shared = Arc::new(Shared {
            lock: Mutex::new(Slot::default()),
            wake: Condvar::new(),
            finished: Condvar::new(),
            generation: AtomicU64::new(0),
            sleepers: AtomicUsize::new(0),
            caller_sleeps: AtomicBool::new(false),
        });
        for index in 1..size {
            let shared = Arc::clone(&shared);
            // A worker that cannot start leaves its share to the others.
            let _ = thread::Builder::new()
                .name(format!("tb-worker-{index}"))
                .spawn(move || worker(&shared, index));
        }
        Pool {
            shared,
            size,
            submit: Mutex::new(()),
        }
    }

    fn run(&self, job: Arc<Job>) {
        let _one_at_a_time = self.submit.lock().unwrap_or_else(|p| p.into_inner());
        {
            let mut slot = self.shared.lock.lock().unwrap_or_else(|p| p.into_inner());
            slot.job = Some(Arc::clone(&job));
            slot.generation += 1;
            self.shared
                .generation
                .store(slot.generation, Ordering::Release);
            if self.shared.sleepers.load(Ordering::Acquire) > 0 {
                self.shared.wake.notify_all();
            }
        }
        job.work(&self.shared, 0);
        let finished = || job.done.load(Ordering::SeqCst) >= job.n;
        if !watch(finished) {
            let mut slot = self.shared.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.shared.caller_sleeps.store(true, Ordering::SeqCst);
            while !finished() {
                slot = self
                    .shared
                    .finished
                    .wait(slot)
                    .unwrap_or_else(|p| p.into_inner());
            }
            self.shared.caller_sleeps.store(false, Ordering::SeqCst);
        }
        let mut slot = self.shared.lock.lock().unwrap_or_else(|p| p.into_inner());
        slot.job = None;
    }
}

/// Worker `index` of a pool: runs each job it sees, from home share `index` on.
fn worker(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        watch(|| shared.generation.load(Ordering::Acquire) != seen);
        let job = {
            let mut slot = shared.lock.lock().unwrap_or_else(|p| p.into_inner());
            if slot.generation == seen || slot.job.is_none() {
                shared.sleepers.fetch_add(1, Ordering::AcqRel);
                while slot.generation == seen || slot.job.is_none() {
                    slot = shared.wake.wait(slot).unwrap_or_else(|p| p.into_inner());
                }
                shared.sleepers.fetch_sub(1, Ordering::AcqRel);
            }
            seen = slot.generation;
            slot.job.clone()
        };
        if let Some(job) = job {
            job.work(shared, index);
        }
    }
}

/// The pool with `threads` threads (0: one per core), created on first use.
fn pool(threads: usize) -> Arc<Pool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<Pool>>>> = OnceLock::new();
    let size = if threads == 0 {
        thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    let pools = POOLS.get_or_init(Default::default);
    let mut pools = pools.lock().unwrap_or_else(|p| p.into_inner());
    Arc::clone(
        pools
            .entry(size)
            .or_insert_with(|| Arc::new(Pool::new(size))),
    )
}

/// Runs `body(ctx, begin, end)` over `[0, n)` on the thread pool; the symbol JIT-compiled
/// parallel loops call.
///
/// # Safety
/// `body` must be safe to call with `ctx` on any thread, for disjoint ranges at once.
pub unsafe extern "C" fn tb_rt_parallel_for(body: Body, ctx: *mut c_void, n: i64, threads: i64) {
    if n <= 0 {
        return;
    }
    let threads = usize::try_from(threads).unwrap_or(0);
    if threads == 1 || n == 1 || IN_PARALLEL.with(Cell::get) {
        // SAFETY: as the caller promises.
        unsafe { body(ctx, 0, n) };
        return;
    }
    let pool = pool(threads);
    if pool.size <= 1 {
        // SAFETY: as the caller promises.
        unsafe { body(ctx, 0, n) };
        return;
    }
    pool.run(Arc::new(Job::new(body, ctx as usize, n, pool.size)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::ThreadId;

    const N: usize = 10_007;

    /// Which thread ran each iteration, and how many times it ran.
    struct Record {
        runs: Vec<AtomicUsize>,
        owners: Vec<Mutex<Option<ThreadId>>>,
    }

    /// A body slow enough that every worker wakes up while the caller works.
    unsafe extern "C" fn note(ctx: *mut c_void, begin: i64, end: i64) {
        // SAFETY: the tests pass a `Record` that outlives the loop.
        let record = unsafe { &*(ctx as *const Record) };
        for i in begin as usize..end as usize {
            record.runs[i].fetch_add(1, Ordering::Relaxed);
            *record.owners[i].lock().unwrap() = Some(thread::current().id());
        }
        thread::sleep(Duration::from_millis(2));
    }

    fn run(threads: i64) -> Record {
        let record = Record {
            runs: (0..N).map(|_| AtomicUsize::new(0)).collect(),
            owners: (0..N).map(|_| Mutex::new(None)).collect(),
        };
        let ctx = &record as *const Record as *mut c_void;
        // SAFETY: `note` only reads `record`'s atomics and locks.
        unsafe { tb_rt_parallel_for(note, ctx, N as i64, threads) };
        record
    }

    #[test]
    fn every_iteration_of_an_uneven_range_runs_once() {
        let record = run(4);
        assert!(record.runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn each_thread_starts_on_a_home_share_of_its_own() {
        let record = run(4);
        let firsts: Vec<ThreadId> = (0..4)
            .map(|t| record.owners[N * t / 4].lock().unwrap().unwrap())
            .collect();
        assert_eq!(
            firsts[0],
            thread::current().id(),
            "the caller starts on share 0"
        );
        for a in 0..4 {
            for b in 0..a {
                assert_ne!(
                    firsts[a], firsts[b],
                    "shares {b} and {a} started on one thread"
                );
            }
        }
    }
}
