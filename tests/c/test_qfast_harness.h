/* test_qfast_harness.h — for the tests of the fast 8-bit kernels (test_kernels_qfast.c,
 * test_kernels_qelem.c): a random generator, and `compare`, which runs a model with the
 * reference kernels (opts.reference_kernels) and then with the fast ones at every
 * instruction-set level this CPU has (gc_isa_force), 1 and 3 threads, in both integer
 * arithmetic modes, and requires the same output bytes and the expected number of fast
 * (interp stats n_fast) and absorbed (n_absorbed) nodes; a case the reference refuses in a
 * mode must be refused by the fast path too. */
#ifndef GC_TEST_QFAST_HARNESS_H
#define GC_TEST_QFAST_HARNESS_H

#include "test_kernels_harness.h"
#include "interp/kernels/cpu_isa.h"
#include "model/schema.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rs = 0x2545f4914f6cdd1dull;
static inline uint32_t rnd(void) {                     /* xorshift64* */
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32);
}
static inline int irand(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static inline float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 8) / 16777216.0f; }
static inline uint8_t *bytes(size_t n, int dt) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
    (void)dt;
    return p;
}
static inline int32_t zp_for(int dt) { return dt == GC_T_INT8 ? irand(-128, 127) : irand(0, 255); }

typedef struct { int n_fast, n_absorbed; } path;

/* the precision run() uses (fp32 unless a test sets it) */
static gc_precision qf_prec = GC_PREC_FP32;
static gc_f16_runtime qf_rt = GC_GPU_NATIVE;

/* Run the model; copy output 0 into *out (malloc'd). */
static inline bool run(gc_model *m, const void *const *feeds, int n_feeds, bool ref, int threads, int qmode,
                uint8_t **out, size_t *nbytes, path *p) {
    char err[512];
    gc_interp_opts o = { .precision = qf_prec, .gpu_runtime = qf_rt, .signature = -1, .threads = threads,
                         .reference_kernels = ref, .qmode = (gc_qmode)qmode };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (!ok) fprintf(stderr, "  prepare: %s\n", it ? gc_interp_errmsg(it) : err);
    for (int i = 0; ok && i < n_feeds; i++) {
        gc_tview v = gc_interp_input(it, i);
        memcpy(v.data, feeds[i], v.nbytes);
    }
    if (ok && gc_interp_invoke(it) != GC_OK) { fprintf(stderr, "  invoke: %s\n", gc_interp_errmsg(it)); ok = false; }
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        *nbytes = v.nbytes;
        *out = malloc(v.nbytes ? v.nbytes : 1);
        memcpy(*out, v.data, v.nbytes);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        p->n_fast = st.n_fast; p->n_absorbed = st.n_absorbed;
    }
    gc_interp_free(it);
    return ok;
}

static int n_cases, n_fast_cases;


/* The reference once per mode, then the fast kernels at each level (1 and 3 threads):
 * identical bytes; the fast path (and the PAD folding) taken exactly as expected. */
static inline void compare(gc_model *m, const void *const *feeds, int n_feeds, int want_fast, int want_absorbed,
                    const char *what) {
    for (int qmode = 0; qmode <= 1; qmode++) {
        uint8_t *want = NULL; size_t nw = 0; path p = { 0, 0 };
        if (!run(m, feeds, n_feeds, true, 1, qmode, &want, &nw, &p)) {
            /* a case the reference refuses in this mode (XNNPACK's ADD range): so must the
             * fast path */
            uint8_t *got = NULL; size_t ng = 0;
            CHECK_MSG(!run(m, feeds, n_feeds, false, 1, qmode, &got, &ng, &p), "%s: reference refused, fast path ran", what);
            free(got);
            continue;
        }
        CHECK_MSG(p.n_fast == 0 && p.n_absorbed == 0, "%s: reference run used %d fast kernels", what, p.n_fast);
        n_cases++;
        n_fast_cases += want_fast > 0;
        for (int isa = GC_ISA_SCALAR; isa <= (int)gc_isa_detect(); isa++) {
            gc_isa_force(isa);
            for (int threads = 1; threads <= 3; threads += 2) {
                uint8_t *got = NULL; size_t ng = 0;
                bool ok = run(m, feeds, n_feeds, false, threads, qmode, &got, &ng, &p);
                CHECK_MSG(ok, "%s: fast run failed (isa %s)", what, gc_isa_name((gc_isa)isa));
                if (ok) {
                    CHECK_MSG(p.n_fast == want_fast && p.n_absorbed == want_absorbed,
                              "%s: isa %s: %d fast kernels, %d absorbed; expected %d, %d", what,
                              gc_isa_name((gc_isa)isa), p.n_fast, p.n_absorbed, want_fast, want_absorbed);
                    CHECK_MSG(ng == nw, "%s: %zu bytes vs %zu", what, ng, nw);
                    size_t d = 0;
                    while (ng == nw && d < nw && got[d] == want[d]) d++;
                    CHECK_MSG(d == nw, "%s: isa %s, %d threads, %s: output byte %zu = %d, reference %d", what,
                              gc_isa_name((gc_isa)isa), threads, qmode ? "xnnpack" : "tflite", d,
                              d < nw ? got[d] : 0, d < nw ? want[d] : 0);
                }
                free(got);
            }
        }
        gc_isa_force(-1);
        free(want);
    }
}

static inline kt_tensor qin(int dt, int rank, const int32_t *shape, const void *feed, float s, int32_t z) {
    kt_tensor t = { .type = dt, .rank = rank, .feed = feed, .scale = s, .zp = z };
    memcpy(t.shape, shape, (size_t)rank * sizeof(int32_t));
    return t;
}
static inline kt_tensor qout(int dt, int rank, const int32_t *shape, float s, int32_t z) {
    kt_tensor t = { .type = dt, .rank = rank, .scale = s, .zp = z };
    memcpy(t.shape, shape, (size_t)rank * sizeof(int32_t));
    return t;
}
#endif
