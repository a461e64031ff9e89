//! The run-time support JIT-compiled code calls: a thread pool for parallel loops.
//!
//! `tb_rt_parallel_for(body, ctx, n, threads)` runs `body(ctx, begin, end)` over chunks of
//! `[0, n)` on a pool of `threads` threads (0: one per core) and returns when all chunks
//! are done. The calling thread works too. Chunks are handed out dynamically, a few per
//! thread, so uneven iterations balance. A parallel loop nested in another runs in order
//! on the thread that reaches it: the pool is already busy with the outer loop.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread;

/// The outlined body of a parallel loop: runs iterations `[begin, end)`.
pub type Body = unsafe extern "C" fn(ctx: *mut c_void, begin: i64, end: i64);

thread_local! {
    /// Set while this thread runs a chunk: nested parallel loops then run in order.
    static IN_PARALLEL: Cell<bool> = const { Cell::new(false) };
}

/// One parallel loop being run.
struct Job {
    body: Body,
    /// The caller's context; only dereferenced by `body` while the caller waits.
    ctx: usize,
    n: i64,
    grain: i64,
    next: AtomicI64,
    done: AtomicI64,
}

impl Job {
    /// Claims and runs chunks until none are left.
    fn work(&self, state: &Shared) {
        IN_PARALLEL.with(|flag| flag.set(true));
        loop {
            let begin = self.next.fetch_add(self.grain, Ordering::Relaxed);
            if begin >= self.n {
                break;
            }
            let end = (begin + self.grain).min(self.n);
            // SAFETY: `body` and `ctx` come from compiled code that waits in
            // `parallel_for` until every claimed chunk is done.
            unsafe { (self.body)(self.ctx as *mut c_void, begin, end) };
            if self.done.fetch_add(end - begin, Ordering::AcqRel) + (end - begin) == self.n {
                let _guard = state.lock.lock().unwrap_or_else(|p| p.into_inner());
                state.finished.notify_all();
            }
        }
        IN_PARALLEL.with(|flag| flag.set(false));
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
        });
        for index in 1..size {
            let shared = Arc::clone(&shared);
            // A worker that cannot start leaves its share to the others.
            let _ = thread::Builder::new()
                .name(format!("tb-worker-{index}"))
                .spawn(move || worker(&shared));
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
            self.shared.wake.notify_all();
        }
        job.work(&self.shared);
        let mut slot = self.shared.lock.lock().unwrap_or_else(|p| p.into_inner());
        while job.done.load(Ordering::Acquire) < job.n {
            slot = self
                .shared
                .finished
                .wait(slot)
                .unwrap_or_else(|p| p.into_inner());
        }
        slot.job = None;
    }
}

fn worker(shared: &Shared) {
    let mut seen = 0;
    loop {
        let job = {
            let mut slot = shared.lock.lock().unwrap_or_else(|p| p.into_inner());
            while slot.generation == seen || slot.job.is_none() {
                slot = shared.wake.wait(slot).unwrap_or_else(|p| p.into_inner());
            }
            seen = slot.generation;
            slot.job.clone()
        };
        if let Some(job) = job {
            job.work(shared);
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
    let grain = (n / (pool.size as i64 * 4)).max(1);
    pool.run(Arc::new(Job {
        body,
        ctx: ctx as usize,
        n,
        grain,
        next: AtomicI64::new(0),
        done: AtomicI64::new(0),
    }));
}
