/* TensorBind's runtime library for compiled modules: the thread pool parallel loops run on.
 *
 * Compiled code calls tb_rt_parallel_for(body, ctx, n, threads) for each parallel loop;
 * this runs body(ctx, begin, end) over chunks of [0, n) on a pool of worker threads and
 * returns once every chunk is done. The calling thread works too. Each thread has a home
 * share of [0, n), the same from one loop to the next, which it claims a few chunks at a
 * time; a thread done with its share claims chunks of the others', so uneven iterations
 * (or a thread the system holds back) still balance. Home shares keep each thread on the
 * data it touched in the previous loops, which its caches still hold. `tb-translate
 * --emit=shared-lib --threads=N` links this file into the library, where it replaces the
 * weak, sequential tb_rt_parallel_for the object file carries; a program linking an object
 * file (--emit=obj) compiles it alongside (`tb-translate --emit=c-runtime`).
 *
 * The pool is started on the first parallel loop, with `threads` threads (0: one per
 * online core); the environment variable TB_NUM_THREADS, when set to a positive number,
 * overrides both. A parallel loop nested in another, or one started while the pool is busy
 * with another caller's loop, runs in order on the calling thread instead of waiting.
 *
 * Between loops, workers (and the caller waiting for the last worker) first watch for the
 * next event by spinning for TB_RT_SPIN_NS, then yielding the core until TB_RT_YIELD_NS,
 * and only then sleep on a condition variable: a model runs one short parallel loop after
 * another, and waking a sleeping thread takes tens of microseconds. */

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define TB_RT_SPIN_NS 100000
#define TB_RT_YIELD_NS 2000000

typedef void (*tb_rt_body)(void *ctx, int64_t begin, int64_t end);

/* One thread's home share of a job's iterations, on a cache line of its own so that claims
 * in one share do not slow down claims in another. */
struct tb_rt_share {
    _Alignas(64) int64_t next; /* first iteration not yet claimed (atomic) */
    int64_t end;
    int64_t grain; /* iterations per claim */
};

struct tb_rt_job {
    tb_rt_body body;
    void *ctx;
    /* Thread t's home share is shares[t]: the caller's is 0, worker t's is t. */
    struct tb_rt_share *shares;
    int64_t count; /* shares */
    int active;    /* workers inside the job (under tb_rt_lock) */
};

static pthread_mutex_t tb_rt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tb_rt_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t tb_rt_finished = PTHREAD_COND_INITIALIZER;
/* One loop at a time runs on the pool; others run in order on their own thread. */
static pthread_mutex_t tb_rt_busy = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t tb_rt_start_lock = PTHREAD_MUTEX_INITIALIZER;
static int tb_rt_started; /* atomic */
static struct tb_rt_job *tb_rt_current;
static uint64_t tb_rt_generation;
/* Threads in the pool, the caller included; written once, before tb_rt_started. */
static int64_t tb_rt_size = 1;
/* The home shares of the loop running on the pool (one loop at a time), one per thread;
 * allocated with the pool. */
static struct tb_rt_share *tb_rt_shares;
static __thread int tb_rt_in_parallel;

static int64_t tb_rt_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Waits until *value differs from `from` (or, with `until_zero`, is 0) or the spin and
 * yield phases are over; whether it did. */
static int tb_rt_watch(const void *value, uint64_t from, int until_zero) {
    int64_t start = tb_rt_now_ns();
    for (uint32_t polls = 1;; polls++) {
        int ready;
        if (until_zero)
            ready = __atomic_load_n((const int *)value, __ATOMIC_ACQUIRE) == 0;
        else
            ready = __atomic_load_n((const uint64_t *)value, __ATOMIC_ACQUIRE) != from;
        if (ready)
            return 1;
        /* Reading the clock costs more than a poll: look at it every few polls. */
        if (polls % 64 == 0) {
            int64_t waited = tb_rt_now_ns() - start;
            if (waited > TB_RT_YIELD_NS)
                return 0;
            if (waited > TB_RT_SPIN_NS) {
                sched_yield();
                continue;
            }
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

/* Claims and runs chunks of `job`, those of home share `home` first, until none are left. */
static void tb_rt_work(struct tb_rt_job *job, int64_t home) {
    tb_rt_in_parallel = 1;
    for (int64_t offset = 0; offset < job->count; offset++) {
        struct tb_rt_share *share = &job->shares[(home + offset) % job->count];
        for (;;) {
            int64_t begin = __atomic_fetch_add(&share->next, share->grain, __ATOMIC_RELAXED);
            if (begin >= share->end)
                break;
            int64_t end = share->end - begin < share->grain ? share->end : begin + share->grain;
            job->body(job->ctx, begin, end);
        }
    }
    tb_rt_in_parallel = 0;
}

/* Worker `index` (1, 2, ...) of the pool. */
static void *tb_rt_worker(void *index_ptr) {
    int64_t index = (int64_t)(intptr_t)index_ptr;
    uint64_t seen = 0;
    for (;;) {
        tb_rt_watch(&tb_rt_generation, seen, 0);
        pthread_mutex_lock(&tb_rt_lock);
        while (tb_rt_current == NULL || tb_rt_generation == seen)
            pthread_cond_wait(&tb_rt_wake, &tb_rt_lock);
        seen = tb_rt_generation;
        struct tb_rt_job *job = tb_rt_current;
        __atomic_add_fetch(&job->active, 1, __ATOMIC_ACQ_REL);
        pthread_mutex_unlock(&tb_rt_lock);

        tb_rt_work(job, index);

        pthread_mutex_lock(&tb_rt_lock);
        /* The caller frees the job (it lives on its stack) once no worker is inside. */
        if (__atomic_sub_fetch(&job->active, 1, __ATOMIC_ACQ_REL) == 0)
            pthread_cond_broadcast(&tb_rt_finished);
        pthread_mutex_unlock(&tb_rt_lock);
    }
    return NULL;
}

static void tb_rt_start(int64_t size) {
    const char *env = getenv("TB_NUM_THREADS");
    if (env != NULL && atoll(env) > 0)
        size = atoll(env);
    if (size <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        size = cores > 0 ? cores : 1;
    }
    int64_t started = 1;
    for (int64_t i = 1; i < size; i++) {
        pthread_t thread;
        /* A worker that cannot start leaves its share to the others. */
        if (pthread_create(&thread, NULL, tb_rt_worker, (void *)(intptr_t)started) == 0) {
            pthread_detach(thread);
            started++;
        }
    }
    /* A share's size is a multiple of its 64-byte alignment, as aligned_alloc needs. */
    tb_rt_shares = aligned_alloc(_Alignof(struct tb_rt_share), (size_t)started * sizeof *tb_rt_shares);
    /* Without room for the shares, loops run in order on their caller. */
    tb_rt_size = tb_rt_shares != NULL ? started : 1;
}

/* The number of threads parallel loops run on (starting the pool with `threads` if no
 * loop has started it yet). */
int64_t tb_rt_num_threads(int64_t threads) {
    if (!__atomic_load_n(&tb_rt_started, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&tb_rt_start_lock);
        if (!__atomic_load_n(&tb_rt_started, __ATOMIC_RELAXED)) {
            tb_rt_start(threads);
            __atomic_store_n(&tb_rt_started, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&tb_rt_start_lock);
    }
    return tb_rt_size;
}

void tb_rt_parallel_for(tb_rt_body body, void *ctx, int64_t n, int64_t threads) {
    if (n <= 0)
        return;
    if (threads == 1 || n == 1 || tb_rt_in_parallel || tb_rt_num_threads(threads) <= 1 ||
        pthread_mutex_trylock(&tb_rt_busy) != 0) {
        body(ctx, 0, n);
        return;
    }
    /* [0, n) in home shares of nearly equal size, each claimed in about four chunks. */
    struct tb_rt_share *shares = tb_rt_shares;
    for (int64_t t = 0; t < tb_rt_size; t++) {
        shares[t].next = n * t / tb_rt_size;
        shares[t].end = n * (t + 1) / tb_rt_size;
        int64_t grain = (shares[t].end - shares[t].next) / 4;
        shares[t].grain = grain > 0 ? grain : 1;
    }
    struct tb_rt_job job = {body, ctx, shares, tb_rt_size, 0};

    pthread_mutex_lock(&tb_rt_lock);
    tb_rt_current = &job;
    __atomic_store_n(&tb_rt_generation, tb_rt_generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&tb_rt_wake);
    pthread_mutex_unlock(&tb_rt_lock);

    tb_rt_work(&job, 0);

    pthread_mutex_lock(&tb_rt_lock);
    /* No worker may pick the job up from now on; wait for those inside it. */
    tb_rt_current = NULL;
    pthread_mutex_unlock(&tb_rt_lock);
    if (!tb_rt_watch(&job.active, 0, 1)) {
        pthread_mutex_lock(&tb_rt_lock);
        while (__atomic_load_n(&job.active, __ATOMIC_ACQUIRE) > 0)
            pthread_cond_wait(&tb_rt_finished, &tb_rt_lock);
        pthread_mutex_unlock(&tb_rt_lock);
    }
    pthread_mutex_unlock(&tb_rt_busy);
}
