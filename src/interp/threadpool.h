/* threadpool.h — one persistent pool of worker threads per interpreter (private).
 *
 * A pool of size N has N - 1 worker threads; the thread that calls gc_pool_for is the
 * N-th participant. Size 1 (and NULL) has no threads at all: gc_pool_for then calls
 * fn once, on the calling thread, for the whole range.
 *
 *   gc_pool *p = gc_pool_new(3);                 // NULL when threads could not start
 *   gc_pool_for(p, n_items, chunk, fn, arg);     // fn(arg, begin, end, worker) over [0, n)
 *   gc_pool_free(p);                             // joins the workers
 *
 * gc_pool_for hands out [0, n_items) in chunks of `chunk` items (the last one shorter)
 * from an atomic counter: whoever is free takes the next chunk, the caller included,
 * and it returns when every item is done. `worker` is 0 on the caller and 1..N-1 on the
 * pool threads: distinct among the calls running at one time, so it may index per-worker
 * scratch of gc_pool_size() slots. Which worker runs which chunk, and how many there
 * are, varies from run to run: a kernel must split independent outputs only, each
 * computed the same way whatever range it falls in (then results do not depend on the
 * thread count; one caveat, as in gemm_f32.h: where a range edge moves an element from a
 * vector loop to its scalar tail, an arithmetic op whose operands are both NaN may return
 * the other NaN — payload and sign are the compiler's operand order, not the kernel's).
 *
 * Workers wait for work by spinning briefly, then yielding, then sleeping on a condition
 * variable (the machine may be shared: a long spin would steal other processes' cores).
 * One gc_pool_for at a time per pool (the interpreter is single-threaded between ops);
 * a call made from inside a running fn (nested) runs inline on that thread with that
 * thread's worker id. A pool must not be used across fork().
 */
#ifndef GC_THREADPOOL_H
#define GC_THREADPOOL_H

#include <stdint.h>

typedef struct gc_pool gc_pool;

/* fn covers items [begin, end) of the range; worker in [0, gc_pool_size). */
typedef void (*gc_pool_fn)(void *arg, int64_t begin, int64_t end, int worker);

/* A pool of `size` participants (the caller and size - 1 threads; size is clamped to
 * 1..GC_POOL_MAX). NULL on failure (no memory, no thread could start) — callers treat
 * NULL as size 1. If only some threads start, the pool is smaller. */
gc_pool *gc_pool_new(int size);
void gc_pool_free(gc_pool *p);
int gc_pool_size(const gc_pool *p);                 /* 1 for NULL */

/* Run fn over [0, n_items) in chunks of `chunk` (>= 1) items; returns when all are done.
 * n_items <= chunk, a pool of size 1 or a nested call: one call fn(arg, 0, n, w). */
void gc_pool_for(gc_pool *p, int64_t n_items, int64_t chunk, gc_pool_fn fn, void *arg);

/* Chunks of about `grain` units of work for `n_items` items of `item_work` units each:
 * at least 1 item, at most what gives every participant a share (so all take part). */
int64_t gc_pool_chunk(const gc_pool *p, int64_t n_items, double item_work, double grain);

/* Calls of gc_pool_for that were split over more than one participant (0 for NULL). */
uint64_t gc_pool_jobs(const gc_pool *p);

/* Tests: every gc_pool_chunk returns min(c, n_items) while c > 0 (small chunks put
 * range boundaries everywhere); 0 restores the normal sizes. */
void gc_pool_force_chunk(int64_t c);

#define GC_POOL_MAX 64

#endif
