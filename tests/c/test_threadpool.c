/* test_threadpool.c — the interpreter's worker pool (src/interp/threadpool.h): every item
 * of every job runs exactly once, worker ids stay below the pool size and are distinct
 * among concurrent chunks, nested calls run inline, size 1 starts no thread, and
 * gc_parallel runs each index once on the current pool. */
#include "test.h"
#include "interp/interp_impl.h"
#include "interp/threadpool.h"

#include <stdatomic.h>
#include <dirent.h>
#include <unistd.h>

typedef struct {
    _Atomic int *hits;                  /* per item */
    _Atomic int busy[GC_POOL_MAX];      /* chunks running per worker id */
    _Atomic int bad;                    /* id out of range or shared by two chunks at once */
    int size;
    gc_pool *p;
    _Atomic int nested_bad;
} job;

static void count_fn(void *arg, int64_t b, int64_t e, int w) {
    job *j = arg;
    if (w < 0 || w >= j->size) { atomic_fetch_add(&j->bad, 1); return; }
    if (atomic_fetch_add(&j->busy[w], 1) != 0) atomic_fetch_add(&j->bad, 1);
    for (int64_t i = b; i < e; i++) atomic_fetch_add(&j->hits[i], 1);
    atomic_fetch_sub(&j->busy[w], 1);
}

static int threads_of_process(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* pthread_join returns once the thread's tid is cleared, which the kernel does before it
 * drops the task from /proc/self/task, so a joined thread can still be listed for a short
 * while (seen on CI: one extra task right after gc_pool_free). Poll until the count is
 * `want` or 2 s pass; returns the last count (a leaked thread never goes away). */
static int threads_settle_to(int want) {
    int n = threads_of_process();
    for (int i = 0; i < 2000 && n != want; i++) { usleep(1000); n = threads_of_process(); }
    return n;
}

/* The count once earlier tests' joined threads have left the list: polls until it has not
 * changed for 20 ms (at most 2 s). */
static int threads_settled(void) {
    int n = threads_of_process(), same = 0;
    for (int i = 0; i < 2000 && same < 20; i++) {
        usleep(1000);
        int m = threads_of_process();
        same = m == n ? same + 1 : 0;
        n = m;
    }
    return n;
}

GC_TEST(threadpool_every_item_once) {
    static _Atomic int hits[5000];
    const int sizes[] = { 1, 2, 3, 5 };
    for (int s = 0; s < 4; s++) {
        int before = threads_settled();
        gc_pool *p = gc_pool_new(sizes[s]);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK_EQ_INT(gc_pool_size(p), sizes[s]);
        if (before > 0) CHECK_EQ_INT(threads_of_process(), before + sizes[s] - 1);
        static job j;
        memset(&j, 0, sizeof j);
        j.hits = hits; j.size = gc_pool_size(p);
        uint64_t seed = 12345;
        for (int it = 0; it < 1500; it++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int64_t n = (int64_t)(seed >> 33) % 5000;
            int64_t chunk = 1 + (int64_t)(seed >> 20) % 97;
            if (it % 7 == 0) chunk = 1;
            for (int64_t i = 0; i < n; i++) atomic_store(&hits[i], 0);
            gc_pool_for(p, n, chunk, count_fn, &j);
            int wrong = 0;
            for (int64_t i = 0; i < n; i++) wrong += atomic_load(&hits[i]) != 1;
            CHECK_MSG(wrong == 0, "size %d job %d (n %lld chunk %lld): %d items not run exactly once",
                      sizes[s], it, (long long)n, (long long)chunk, wrong);
            if (wrong) break;
            if (it == 700) usleep(2000);             /* let the workers fall asleep once */
        }
        CHECK_EQ_INT(atomic_load(&j.bad), 0);
        gc_pool_free(p);
        if (before > 0) CHECK_EQ_INT(threads_settle_to(before), before);
    }
}

static void inner_fn(void *arg, int64_t b, int64_t e, int w) {
    job *j = arg;
    (void)b; (void)e;
    atomic_fetch_add(&j->hits[0], 1);
    (void)w;
}

static void outer_fn(void *arg, int64_t b, int64_t e, int w) {
    job *j = arg;
    for (int64_t i = b; i < e; i++) {
        /* a nested call runs inline, in one piece, with this thread's id */
        job in;
        memset(&in, 0, sizeof in);
        static _Thread_local _Atomic int one[1];
        atomic_store(&one[0], 0);
        in.hits = one;
        gc_pool_for(j->p, 1000, 1, inner_fn, &in);
        if (atomic_load(&one[0]) != 1) atomic_fetch_add(&j->nested_bad, 1);
        atomic_fetch_add(&j->hits[i], 1);
    }
    (void)w;
}

GC_TEST(threadpool_nested_inline) {
    static _Atomic int hits[64];
    gc_pool *p = gc_pool_new(3);
    CHECK(p != NULL);
    static job j;
    memset(&j, 0, sizeof j);
    j.hits = hits; j.size = gc_pool_size(p); j.p = p;
    gc_pool_for(p, 64, 1, outer_fn, &j);
    for (int i = 0; i < 64; i++) CHECK_EQ_INT(atomic_load(&hits[i]), 1);
    CHECK_EQ_INT(atomic_load(&j.nested_bad), 0);
    gc_pool_free(p);
    /* NULL pool: one inline call */
    atomic_store(&hits[0], 0);
    job k; memset(&k, 0, sizeof k); k.hits = hits;
    gc_pool_for(NULL, 500, 1, inner_fn, &k);
    CHECK_EQ_INT(atomic_load(&hits[0]), 1);
    CHECK_EQ_INT(gc_pool_size(NULL), 1);
}

static _Atomic int par_hits[GC_MAX_THREADS];
static _Atomic int par_n_bad;
static void par_fn(void *arg, int i, int n) {
    (void)arg;
    if (n != 7 || i < 0 || i >= n) atomic_fetch_add(&par_n_bad, 1);
    else atomic_fetch_add(&par_hits[i], 1);
}

GC_TEST(threadpool_gc_parallel_compat) {
    gc_pool *p = gc_pool_new(2);
    for (int round = 0; round < 2; round++) {
        gc_pool *old = gc_pool_set_current(round ? p : NULL);
        for (int i = 0; i < GC_MAX_THREADS; i++) atomic_store(&par_hits[i], 0);
        gc_parallel(7, par_fn, NULL);
        for (int i = 0; i < 7; i++) CHECK_EQ_INT(atomic_load(&par_hits[i]), 1);
        CHECK_EQ_INT(atomic_load(&par_n_bad), 0);
        CHECK(gc_pool_current() == (round ? p : NULL));
        gc_pool_set_current(old);
    }
    gc_pool_free(p);
}

GC_TEST(threadpool_chunk) {
    gc_pool *p = gc_pool_new(2);
    /* small work: one chunk (inline); large: ~4 chunks per participant at least */
    CHECK_EQ_INT(gc_pool_chunk(p, 1000, 1.0, 32768.0), 1000);
    CHECK_EQ_INT(gc_pool_chunk(p, 100000, 1.0, 32768.0), 32768);
    CHECK_EQ_INT(gc_pool_chunk(p, 1000, 1e6, 32768.0), 125);
    CHECK_EQ_INT(gc_pool_chunk(NULL, 1000, 1e6, 32768.0), 250);
    gc_pool_free(p);
}

/* Oversubscription: when the caller waits for a worker longer than it computed itself
 * (here a worker sleeps 3 ms per chunk, as if preempted; the caller 0.2 ms), the next 4 calls run on the
 * caller alone (no job split), then splitting resumes. */
static _Atomic int slow_worker_chunks;
static void slow_fn(void *arg, int64_t b, int64_t e, int w) {
    (void)arg; (void)b; (void)e;
    if (w > 0) { atomic_fetch_add(&slow_worker_chunks, 1); usleep(3000); }
    else usleep(200);                                        /* the caller: a little work */
}
static _Atomic int seen_worker;
static void who_fn(void *arg, int64_t b, int64_t e, int w) {
    (void)arg; (void)b; (void)e;
    if (w > 0) atomic_store(&seen_worker, 1);
}

GC_TEST(threadpool_backoff_when_workers_stall) {
    gc_pool *p = gc_pool_new(2);
    CHECK(p != NULL);
    if (!p) return;
    bool backed = false;
    for (int tries = 0; tries < 20 && !backed; tries++) {    /* until a stall made it back off */
        gc_pool_for(p, 4, 1, slow_fn, NULL);
        uint64_t a = gc_pool_jobs(p);
        atomic_store(&seen_worker, 0);
        gc_pool_for(p, 64, 1, who_fn, NULL);
        backed = gc_pool_jobs(p) == a;
        if (backed) CHECK(!atomic_load(&seen_worker));
    }
    CHECK(atomic_load(&slow_worker_chunks) > 0);
    CHECK_MSG(backed, "no call ran alone after workers stalled");
    for (int i = 0; i < 3; i++) {                            /* the rest of the 4 */
        uint64_t a = gc_pool_jobs(p);
        atomic_store(&seen_worker, 0);
        gc_pool_for(p, 64, 1, who_fn, NULL);
        CHECK_MSG(gc_pool_jobs(p) == a && !atomic_load(&seen_worker), "call %d after the stall was split", i + 2);
    }
    uint64_t a = gc_pool_jobs(p);
    gc_pool_for(p, 64, 1, who_fn, NULL);
    CHECK_EQ_INT(gc_pool_jobs(p), a + 1);                    /* then it splits again */
    gc_pool_free(p);
}
