/* threadpool.c — the interpreter's persistent worker pool (threadpool.h).
 *
 * Protocol. `gen` numbers the jobs: odd while a job is open, even between jobs. The
 * caller writes the job (fn, arg, n, chunk, next = done = 0), then publishes it with
 * gen = odd; every participant takes chunks with fetch_add on `next` and adds what it
 * finished to `done`; the caller returns once done == n and closes the job (gen = even).
 * A worker joins a job by incrementing `active` and then re-reading gen: if gen moved on
 * it leaves again without touching the job. The caller writes the next job only once
 * `active` is 0, so a worker never reads a half-written job (seq_cst atomics give the
 * store / load pairs on gen and active — and on sleepers / waiting below — a single
 * order: one side always sees the other's write).
 *
 * Waiting. A worker between jobs spins on gen (with a pause instruction) for
 * spin_us, yields the core for another spin_us, then sleeps on work_cv; the caller
 * broadcasts only when `sleepers` > 0. The caller waiting for the last chunks spins
 * briefly, yields, then sleeps on done_cv; the worker that finishes the last item
 * signals only when `waiting` is set. GPUCLEAN_POOL_SPIN_US (0..100000, default 100)
 * sets spin_us when a pool is made. (1 ms, about what XNNPACK's pthreadpool spins —
 * bench/interp_vs_native's settle waits: 2.9-3.7 ms for native's workers — measured no
 * different from 0.1 ms at 2 threads on the 2-vCPU development VM: four interleaved
 * rounds of yolos / vit_tiny / deeplabv3 / mobilevit moved 1.1-2.1x either way, native's
 * own 2-thread times as much, 2026-12-03; so the shorter spin, which burns less of a
 * shared machine, stays.)
 *
 * Oversubscribed machines. A worker that took a chunk and then lost its core to another
 * process holds the caller until the scheduler gives it back (milliseconds). When the
 * caller waited for the last chunks longer than 200 us and longer than it computed
 * itself, the next `backoff` calls run on the caller alone (4, doubling up to 256 while
 * it keeps happening, halving after calls that went well). Which thread computes what
 * never changes the results, so this only trades the second core for steadiness. A call
 * that had to wake a sleeping worker does not count: the wake-up (tens to hundreds of us
 * on a VM) is the expected cost of the first op after an idle gap, and counting it made
 * every invoke after a pause — a frame loop, or the bench's interleaving — back off a
 * little longer, until whole invokes ran on one core.
 */
#include "interp/threadpool.h"
#include "interp/interp_impl.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

struct gc_pool;
typedef struct { struct gc_pool *p; int id; } worker_arg;

struct gc_pool {
    int size;                           /* participants: the caller + n_threads */
    int n_threads;
    pthread_t th[GC_POOL_MAX];
    worker_arg wa[GC_POOL_MAX];
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    int64_t spin_ns;
    _Atomic uint64_t gen;               /* odd: a job is open */
    _Atomic int active;                 /* workers inside the current job */
    _Atomic int sleepers;               /* workers blocked on work_cv */
    _Atomic int waiting;                /* the caller is blocked on done_cv */
    _Atomic int stop;
    /* the job (written by the caller while active == 0 and gen is even) */
    gc_pool_fn fn;
    void *arg;
    int64_t n, chunk;
    _Atomic int64_t next;               /* first item not handed out yet */
    _Atomic int64_t done;               /* items finished */
    _Atomic uint64_t jobs;              /* calls split over the workers */
    int skip, backoff;                  /* the caller's: calls left to run alone, next length */
};

static _Atomic int64_t forced_chunk;    /* gc_pool_force_chunk */

/* this thread's worker id while it runs a chunk (nested calls run inline), else -1 */
static _Thread_local int tl_worker = -1;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void run_chunks(gc_pool *p, int id) {
    const int64_t n = p->n, chunk = p->chunk;
    for (;;) {
        int64_t b = atomic_fetch_add(&p->next, chunk);
        if (b >= n) break;
        int64_t e = n - b < chunk ? n : b + chunk;
        tl_worker = id;
        p->fn(p->arg, b, e, id);
        tl_worker = -1;
        if (atomic_fetch_add(&p->done, e - b) + (e - b) == n && atomic_load(&p->waiting)) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

/* The next open job after `seen`, or 0 when the pool stops. */
static uint64_t wait_job(gc_pool *p, uint64_t seen) {
    int64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        uint64_t g = atomic_load(&p->gen);
        if (atomic_load(&p->stop)) return 0;
        if (g != seen && (g & 1)) return g;
        if ((i & 63) == 63) {
            int64_t t = now_ns();
            if (!t0) t0 = t;
            else if (t - t0 > 2 * p->spin_ns) break;
            else if (t - t0 > p->spin_ns) { sched_yield(); continue; }
        }
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1);
    uint64_t g = seen;
    while (!atomic_load(&p->stop) && ((g = atomic_load(&p->gen)) == seen || !(g & 1)))
        pthread_cond_wait(&p->work_cv, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
    return atomic_load(&p->stop) ? 0 : g;
}

static void *worker_main(void *vp) {
    worker_arg *w = vp;
    gc_pool *p = w->p;
    uint64_t seen = 0;
    for (;;) {
        uint64_t g = wait_job(p, seen);
        if (!g) break;
        atomic_fetch_add(&p->active, 1);
        if (atomic_load(&p->gen) == g) run_chunks(p, w->id);
        atomic_fetch_sub(&p->active, 1);
        seen = g;
    }
    return NULL;
}

gc_pool *gc_pool_new(int size) {
    if (size < 1) size = 1;
    if (size > GC_POOL_MAX) size = GC_POOL_MAX;
    gc_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->size = 1;
    int64_t spin_us = 100;
    const char *e = getenv("GPUCLEAN_POOL_SPIN_US");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (!*end && v >= 0 && v <= 100000) spin_us = v;
    }
    p->spin_ns = spin_us * 1000;
    if (pthread_mutex_init(&p->mu, NULL)) { free(p); return NULL; }
    if (pthread_cond_init(&p->work_cv, NULL)) { pthread_mutex_destroy(&p->mu); free(p); return NULL; }
    if (pthread_cond_init(&p->done_cv, NULL)) {
        pthread_cond_destroy(&p->work_cv); pthread_mutex_destroy(&p->mu); free(p); return NULL;
    }
    for (int i = 1; i < size; i++) {
        p->wa[p->n_threads] = (worker_arg){ p, p->n_threads + 1 };
        if (pthread_create(&p->th[p->n_threads], NULL, worker_main, &p->wa[p->n_threads])) break;
        p->n_threads++;
    }
    p->size = p->n_threads + 1;
    if (size > 1 && p->n_threads == 0) { gc_pool_free(p); return NULL; }
    return p;
}

void gc_pool_free(gc_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_threads; i++) pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

int gc_pool_size(const gc_pool *p) { return p ? p->size : 1; }

void gc_pool_for(gc_pool *p, int64_t n, int64_t chunk, gc_pool_fn fn, void *arg) {
    if (n <= 0) return;
    if (chunk < 1) chunk = 1;
    bool alone = !p || p->size <= 1 || n <= chunk || tl_worker >= 0;
    if (!alone && p->skip > 0) { p->skip--; alone = true; }          /* backing off */
    if (alone) {
        int outer = tl_worker, id = outer >= 0 ? outer : 0;
        tl_worker = id;
        fn(arg, 0, n, id);
        tl_worker = outer;
        return;
    }
    /* a worker that joined the previous job late leaves it at once (nothing left) */
    for (unsigned i = 0; atomic_load(&p->active) != 0; i++) {
        if (i < 4096) cpu_relax(); else sched_yield();
    }
    atomic_fetch_add(&p->jobs, 1);
    p->fn = fn; p->arg = arg; p->n = n; p->chunk = chunk;
    atomic_store(&p->next, 0);
    atomic_store(&p->done, 0);
    uint64_t g = atomic_load(&p->gen) + 1;
    atomic_store(&p->gen, g);
    const bool woke = atomic_load(&p->sleepers) > 0;     /* a worker has to be woken first */
    if (woke) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->work_cv);
        pthread_mutex_unlock(&p->mu);
    }
    const int64_t t_start = now_ns();
    run_chunks(p, 0);
    const int64_t t_own = now_ns();
    /* the last chunks may still run on workers: spin briefly, yield, then sleep */
    int64_t t0 = 0;
    for (unsigned i = 0; atomic_load(&p->done) < n; i++) {
        if ((i & 63) == 63) {
            int64_t t = now_ns();
            if (!t0) t0 = t;
            else if (t - t0 > 200000) {
                pthread_mutex_lock(&p->mu);
                atomic_store(&p->waiting, 1);
                while (atomic_load(&p->done) < n) pthread_cond_wait(&p->done_cv, &p->mu);
                atomic_store(&p->waiting, 0);
                pthread_mutex_unlock(&p->mu);
                break;
            } else if (t - t0 > 20000) { sched_yield(); continue; }
        }
        cpu_relax();
    }
    atomic_store(&p->gen, g + 1);
    const int64_t waited = now_ns() - t_own, own = t_own - t_start;
    if (waited > 200000 && waited > own && !woke) {
        p->backoff = p->backoff ? (p->backoff < 128 ? 2 * p->backoff : 256) : 4;
        p->skip = p->backoff;
    } else {
        p->backoff /= 2;
    }
}

uint64_t gc_pool_jobs(const gc_pool *p) { return p ? atomic_load(&p->jobs) : 0; }
void gc_pool_force_chunk(int64_t c) { atomic_store(&forced_chunk, c); }

int64_t gc_pool_chunk(const gc_pool *p, int64_t n_items, double item_work, double grain) {
    if (n_items <= 0) return 1;
    int64_t f = atomic_load(&forced_chunk);
    if (f > 0) return f < n_items ? f : n_items;
    double c = item_work > 0 ? grain / item_work : (double)n_items;
    int64_t chunk = c >= (double)n_items ? n_items : c < 1 ? 1 : (int64_t)c;
    int64_t parts = 4 * (int64_t)gc_pool_size(p);                 /* ~4 chunks per participant */
    int64_t bal = (n_items + parts - 1) / parts;
    return chunk > bal ? chunk : bal;
}

/* ---- gc_parallel (interp_impl.h): the older fixed split, run on the current pool ---------- */

static _Thread_local gc_pool *tl_current;

gc_pool *gc_pool_set_current(gc_pool *p) {
    gc_pool *old = tl_current;
    tl_current = p;
    return old;
}
gc_pool *gc_pool_current(void) { return tl_current; }

typedef struct { void (*fn)(void *, int, int); void *arg; int n; } par_job;

static void par_run(void *arg, int64_t b, int64_t e, int worker) {
    (void)worker;
    const par_job *j = arg;
    for (int64_t i = b; i < e; i++) j->fn(j->arg, (int)i, j->n);
}

void gc_parallel(int n, void (*fn)(void *arg, int i, int n), void *arg) {
    if (n > GC_MAX_THREADS) n = GC_MAX_THREADS;
    if (n <= 1) { fn(arg, 0, 1); return; }
    par_job j = { fn, arg, n };
    gc_pool_for(tl_current, n, 1, par_run, &j);
}
