/* test_kernels_pool.h — the checks of test_kernels_pool*.c (one-op models run at 1, 2
 * and 3 threads, with tiny forced chunks, and against the reference loops). */
#ifndef GC_TEST_KERNELS_POOL_H
#define GC_TEST_KERNELS_POOL_H

#include "test_kernels_harness.h"
#include "interp/interp_impl.h"
#include "interp/threadpool.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rs __attribute__((unused)) = 0x243f6a8885a308d3ull;
static inline uint32_t rnd(void) {
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32);
}
/* floats in [-scale, scale]; with specials: ~1/64 of them -0, +-Inf, NaN or a -3.4e38 mask */
static inline float *fdata(size_t n, float scale, bool specials) {
    float *p = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        p[i] = ((float)(rnd() >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
        if (specials && rnd() % 64 == 0) {
            const float sp[] = { -0.0f, INFINITY, -INFINITY, NAN, -3.4e38f, 0.0f };
            p[i] = sp[rnd() % 6];
        }
    }
    return p;
}
static inline uint8_t *bdata(size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
    return p;
}

typedef struct { void *data; size_t n; uint64_t jobs; bool ok; } result;

static inline result run_op(kt_model *r, const kt_tensor *ins, int n_in, int threads, bool ref, gc_precision p) {
    result res = { NULL, 0, 0, false };
    char err[512];
    gc_interp_opts o = { .precision = p, .signature = -1, .threads = threads, .reference_kernels = ref };
    gc_interp *it = gc_interp_new(r->m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (!ok) fprintf(stderr, "  prepare: %s\n", it ? gc_interp_errmsg(it) : err);
    for (int i = 0, g = 0; ok && i < n_in; i++) {
        if (ins[i].type < 0 || ins[i].data) continue;
        gc_tview v = gc_interp_input(it, g++);
        memcpy(v.data, ins[i].feed, v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { fprintf(stderr, "  invoke: %s\n", gc_interp_errmsg(it)); ok = false; }
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        res.n = v.nbytes;
        res.data = malloc(v.nbytes ? v.nbytes : 1);
        memcpy(res.data, v.data, v.nbytes);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        res.jobs = st.pool_jobs;
        res.ok = true;
    }
    gc_interp_free(it);
    return res;
}

/* HAS_REF: also the reference loops at 1 thread; REF_THREADS: and at 2, 3 threads (the
 * reference kernels split too); NO_SPLIT: too small to split; FP16: fp16 and fp16-acc at
 * 1 and 3 threads (and against the reference with HAS_REF) */
enum { HAS_REF = 1, NO_SPLIT = 2, FP16 = 4, REF_THREADS = 8 };

/* the same bytes; float outputs: or both NaN (which NaN an operation returns when both
 * operands are NaN is the compiler's choice of operand order: payloads are not kept, as
 * in test_kernels_fast.c) */
static bool float_out __attribute__((unused));
static inline bool same(const result *a, const result *b) {
    if (!a->ok || !b->ok || a->n != b->n) return false;
    if (!float_out) return !memcmp(a->data, b->data, a->n);
    const uint32_t *x = a->data, *y = b->data;
    for (size_t i = 0; i < a->n / 4; i++)
        if (x[i] != y[i] && !((x[i] & 0x7fffffffu) > 0x7f800000u && (y[i] & 0x7fffffffu) > 0x7f800000u)) return false;
    return true;
}

/* The checks above for one model; returns the 1-thread fp32 output (caller frees). */
static inline void *check(kt_model *r, const kt_tensor *ins, int n_in, int flags, const char *what, size_t *nbytes) {
    float_out = r->m->subgraphs[0].tensors[r->m->subgraphs[0].outputs[0]].type == GC_T_FLOAT32;
    result base = run_op(r, ins, n_in, 1, false, GC_PREC_FP32);
    CHECK_MSG(base.ok, "%s: single-thread run failed", what);
    if (!base.ok) return NULL;
    CHECK_MSG(base.jobs == 0, "%s: 1 thread split %llu jobs", what, (unsigned long long)base.jobs);
    for (int t = 2; t <= 4; t++) {
        if (t == 4) gc_pool_force_chunk(5);
        result m = run_op(r, ins, n_in, t == 4 ? 3 : t, false, GC_PREC_FP32);
        if (t == 4) gc_pool_force_chunk(0);
        CHECK_MSG(same(&base, &m), "%s: %s differs from 1 thread", what, t == 4 ? "3 threads, chunks of 5" : t == 2 ? "2 threads" : "3 threads");
        if (!(flags & NO_SPLIT) && t < 4) CHECK_MSG(m.jobs > 0, "%s: %d threads did not split", what, t);
        free(m.data);
    }
    if (flags & (HAS_REF | REF_THREADS)) {
        for (int t = 1; t <= ((flags & REF_THREADS) ? 4 : 1); t++) {
            if (t == 4) gc_pool_force_chunk(3);
            result ref = run_op(r, ins, n_in, t == 4 ? 3 : t, true, GC_PREC_FP32);
            if (t == 4) gc_pool_force_chunk(0);
            CHECK_MSG(same(&base, &ref), "%s: differs from the reference loop at %d threads%s", what,
                      t == 4 ? 3 : t, t == 4 ? ", chunks of 3" : "");
            free(ref.data);
        }
    }
    if (flags & FP16) {
        for (int p = GC_PREC_FP16; p <= GC_PREC_FP16_ACC; p++) {
            result a = run_op(r, ins, n_in, 1, false, (gc_precision)p), b = run_op(r, ins, n_in, 3, false, (gc_precision)p);
            CHECK_MSG(same(&a, &b), "%s: %s at 3 threads differs", what, gc_precision_name((gc_precision)p));
            if (flags & HAS_REF) {
                result c = run_op(r, ins, n_in, 1, true, (gc_precision)p);
                CHECK_MSG(same(&a, &c), "%s: %s differs from the reference loop", what, gc_precision_name((gc_precision)p));
                free(c.data);
            }
            free(a.data); free(b.data);
        }
    }
    *nbytes = base.n;
    return base.data;
}

static inline void done(kt_model *r, void *out) { free(out); gc_model_free(r->m); }

#endif
