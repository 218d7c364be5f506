/* test_gpu_bisect.c — the search behind `bisect --runtime` (gc_gb_search) on synthetic
 * graphs with known predicates: monotone along the execution order (exact answer, probe
 * count within ceil(log2 n) + 3 counting the full model), random (the answer diverges
 * while its float inputs do not, every point probed at most once), divergence flowing
 * along edges from known sources (the answer is a source), probes that cannot be judged
 * (counted as within tolerance), a hard probe failure; and the prefix-model invariant the
 * probes rely on: the truncated model's only output is read by no op. */
#include "test.h"
#include "model/model.h"
#include "model/schema.h"
#include "verify/gpu_bisect.h"

/* ---- synthetic graphs ------------------------------------------------------------------ */

typedef struct { uint64_t s; } rng;
static uint32_t rnd(rng *r) {                 /* xorshift64* */
    r->s ^= r->s >> 12; r->s ^= r->s << 25; r->s ^= r->s >> 27;
    return (uint32_t)((r->s * 2685821657736338717ull) >> 32);
}

#define MAXN 300
typedef struct {
    int32_t n;
    int32_t in_start[MAXN + 1], in_pts[2 * MAXN];
    int32_t dep_start[MAXN + 1], dep_pts[3 * MAXN];
    gc_gb_graph g;
} tgraph;

/* Every point reads 0-2 earlier points as float inputs (mostly the one before: chains,
 * with branches and merges), and sometimes one more through an integer path (dep only). */
static void make_graph(tgraph *t, int32_t n, rng *r, bool with_deps) {
    t->n = n;
    int32_t k = 0, d = 0;
    for (int32_t i = 0; i < n; i++) {
        t->in_start[i] = k; t->dep_start[i] = d;
        if (i > 0) {
            uint32_t x = rnd(r) % 10;
            int32_t a = x < 7 ? i - 1 : (int32_t)(rnd(r) % (uint32_t)i);
            t->in_pts[k++] = a; t->dep_pts[d++] = a;
            if (rnd(r) % 3 == 0) { int32_t b = (int32_t)(rnd(r) % (uint32_t)i); t->in_pts[k++] = b; t->dep_pts[d++] = b; }
            if (rnd(r) % 8 == 0) t->dep_pts[d++] = (int32_t)(rnd(r) % (uint32_t)i);
        }
    }
    t->in_start[n] = k; t->dep_start[n] = d;
    t->g = (gc_gb_graph){ n, t->in_start, t->in_pts, with_deps ? t->dep_start : NULL, with_deps ? t->dep_pts : NULL };
}

/* ancestors of hi (hi included) */
static void ancestors(const tgraph *t, bool with_deps, int32_t hi, uint8_t *anc) {
    memset(anc, 0, (size_t)t->n);
    anc[hi] = 1;
    for (int32_t i = hi; i >= 0; i--) {
        if (!anc[i]) continue;
        if (!with_deps) { for (int32_t j = 0; j < i; j++) anc[j] = 1; break; }
        for (int32_t k = t->dep_start[i]; k < t->dep_start[i + 1]; k++) anc[t->dep_pts[k]] = 1;
    }
}

typedef struct {
    const uint8_t *truth;        /* per point: GC_GB_OK / DIVERGES / SKIP */
    int32_t calls[MAXN];
    int32_t fail_at;             /* return UNKNOWN on this call number (1-based); 0 never */
    int32_t n_calls;
} oracle;

static gc_gb_verdict probe(int32_t i, void *user) {
    oracle *o = user;
    o->calls[i]++;
    o->n_calls++;
    if (o->fail_at && o->n_calls == o->fail_at) return GC_GB_UNKNOWN;
    return (gc_gb_verdict)o->truth[i];
}

static int ceil_log2(int32_t n) { int l = 0; while ((1 << l) < n) l++; return l; }

static bool probed_once(const oracle *o, int32_t n) {
    for (int32_t i = 0; i < n; i++) if (o->calls[i] > 1) return false;
    return true;
}

/* ---- predicates monotone along the execution order ------------------------------------- */

GC_TEST(gpu_bisect_search_monotone_exhaustive) {
    rng r = { 0x9E3779B97F4A7C15ull };
    static tgraph t;
    uint8_t truth[MAXN], verdict[MAXN], anc[MAXN];
    int worst_over = -100, cases = 0, bad = 0;
    for (int deps = 0; deps < 2; deps++)
        for (int32_t n = 1; n <= MAXN; n++) {
            make_graph(&t, n, &r, deps);
            ancestors(&t, deps, n - 1, anc);
            for (int32_t f = 0; f < n; f++) {
                for (int32_t i = 0; i < n; i++) truth[i] = i >= f ? GC_GB_DIVERGES : GC_GB_OK;
                memset(verdict, 0, sizeof verdict);
                verdict[n - 1] = GC_GB_DIVERGES;            /* the full model's output */
                oracle o = { .truth = truth };
                gc_gb_search_result sr;
                gc_gb_search(&t.g, n - 1, probe, &o, verdict, &sr);
                /* the answer: the first ancestor of the anchor at or after f */
                int32_t want = -1;
                for (int32_t i = f; i < n && want < 0; i++) if (anc[i]) want = i;
                int used = sr.n_probes + 1, bound = ceil_log2(n) + 3;
                if (used - bound > worst_over) worst_over = used - bound;
                cases++;
                if (sr.first != want || sr.error || sr.n_restarts || used > bound || !probed_once(&o, n) || o.n_calls != sr.n_probes) {
                    if (bad++ < 5)
                        fprintf(stderr, "  deps %d n %d f %d: first %d (want %d), %d probes (bound %d), %d restarts\n",
                                deps, n, f, sr.first, want, used, bound, sr.n_restarts);
                }
            }
        }
    CHECK_EQ_INT(bad, 0);
    CHECK(cases == 2 * MAXN * (MAXN + 1) / 2);
    CHECK(worst_over <= 0);
}

/* a chain (every point reads the one before): the answer is f itself, in ceil(log2 n) */
GC_TEST(gpu_bisect_search_chain_exact_log2) {
    static tgraph t;
    uint8_t truth[MAXN], verdict[MAXN];
    for (int32_t n = 1; n <= MAXN; n++) {
        for (int32_t i = 0; i <= n; i++) { t.in_start[i] = i ? i - 1 : 0; t.dep_start[i] = t.in_start[i]; }
        for (int32_t i = 1; i < n; i++) t.in_pts[i - 1] = t.dep_pts[i - 1] = i - 1;
        t.g = (gc_gb_graph){ n, t.in_start, t.in_pts, t.dep_start, t.dep_pts };
        for (int32_t f = 0; f < n; f++) {
            for (int32_t i = 0; i < n; i++) truth[i] = i >= f ? GC_GB_DIVERGES : GC_GB_OK;
            memset(verdict, 0, sizeof verdict);
            verdict[n - 1] = GC_GB_DIVERGES;
            oracle o = { .truth = truth };
            gc_gb_search_result sr;
            gc_gb_search(&t.g, n - 1, probe, &o, verdict, &sr);
            if (sr.first != f || sr.n_probes > ceil_log2(n) + 1) {
                CHECK_MSG(0, "chain n %d f %d: first %d, %d probes", n, f, sr.first, sr.n_probes);
                return;
            }
        }
    }
}

/* ---- not monotone ------------------------------------------------------------------------ */

GC_TEST(gpu_bisect_search_random_predicates) {
    rng r = { 12345 };
    static tgraph t;
    uint8_t truth[MAXN], verdict[MAXN], anc[MAXN];
    int restarted = 0, bad = 0;
    for (int deps = 0; deps < 2; deps++)
        for (int32_t n = 1; n <= MAXN; n++)
            for (int rep = 0; rep < 12; rep++) {
                make_graph(&t, n, &r, deps);
                uint32_t pct = 5 + 10 * (uint32_t)(rep % 6);
                for (int32_t i = 0; i < n; i++) {
                    uint32_t x = rnd(&r) % 100;
                    truth[i] = x < pct ? GC_GB_DIVERGES : x < pct + 5 ? GC_GB_SKIP : GC_GB_OK;
                }
                truth[n - 1] = GC_GB_DIVERGES;
                memset(verdict, 0, sizeof verdict);
                oracle o = { .truth = truth };
                gc_gb_search_result sr;
                gc_gb_search(&t.g, n - 1, probe, &o, verdict, &sr);   /* the anchor is probed */
                ancestors(&t, deps, n - 1, anc);
                bool ok = sr.first >= 0 && !sr.error && truth[sr.first] == GC_GB_DIVERGES && anc[sr.first] &&
                          probed_once(&o, n) && sr.n_probes <= n;
                for (int32_t k = ok ? t.in_start[sr.first] : 0; ok && k < t.in_start[sr.first + 1]; k++)
                    if (truth[t.in_pts[k]] == GC_GB_DIVERGES || verdict[t.in_pts[k]] == GC_GB_UNKNOWN) ok = false;
                if (sr.n_restarts) restarted++;
                if (!ok && bad++ < 5)
                    fprintf(stderr, "  deps %d n %d rep %d: first %d, %d probes, error %d\n", deps, n, rep, sr.first, sr.n_probes, sr.error);
            }
    CHECK_EQ_INT(bad, 0);
    CHECK(restarted > 0);                  /* the confirming step did find divergent inputs */
}

/* Divergence that flows along float edges from a few sources: the answer is a source. */
GC_TEST(gpu_bisect_search_propagation_finds_a_source) {
    rng r = { 777 };
    static tgraph t;
    uint8_t truth[MAXN], verdict[MAXN], src[MAXN];
    int bad = 0, runs = 0;
    for (int32_t n = 2; n <= MAXN; n++)
        for (int rep = 0; rep < 6; rep++) {
            make_graph(&t, n, &r, true);
            memset(src, 0, sizeof src);
            int ns = 1 + (int)(rnd(&r) % 3);
            for (int s = 0; s < ns; s++) src[rnd(&r) % (uint32_t)n] = 1;
            for (int32_t i = 0; i < n; i++) {
                bool d = src[i];
                for (int32_t k = t.in_start[i]; k < t.in_start[i + 1] && !d; k++) d = truth[t.in_pts[k]] == GC_GB_DIVERGES;
                truth[i] = d ? GC_GB_DIVERGES : GC_GB_OK;
            }
            if (truth[n - 1] != GC_GB_DIVERGES) continue;
            runs++;
            memset(verdict, 0, sizeof verdict);
            verdict[n - 1] = GC_GB_DIVERGES;
            oracle o = { .truth = truth };
            gc_gb_search_result sr;
            gc_gb_search(&t.g, n - 1, probe, &o, verdict, &sr);
            if ((sr.first < 0 || !src[sr.first] || !probed_once(&o, n)) && bad++ < 5)
                fprintf(stderr, "  n %d rep %d: first %d is not a source\n", n, rep, sr.first);
        }
    CHECK_EQ_INT(bad, 0);
    CHECK(runs > 500);
}

/* ---- edge cases ---------------------------------------------------------------------------- */

GC_TEST(gpu_bisect_search_skip_counts_as_within_tolerance) {
    static tgraph t;
    uint8_t truth[64], verdict[64];
    int32_t n = 64;
    for (int32_t i = 0; i <= n; i++) { t.in_start[i] = i ? i - 1 : 0; }
    for (int32_t i = 1; i < n; i++) t.in_pts[i - 1] = i - 1;
    t.g = (gc_gb_graph){ n, t.in_start, t.in_pts, NULL, NULL };
    /* 0..19 ok, 20..22 cannot be judged (ran on the CPU), 23.. diverge */
    for (int32_t i = 0; i < n; i++) truth[i] = i < 20 ? GC_GB_OK : i < 23 ? GC_GB_SKIP : GC_GB_DIVERGES;
    memset(verdict, 0, sizeof verdict);
    verdict[n - 1] = GC_GB_DIVERGES;
    oracle o = { .truth = truth };
    gc_gb_search_result sr;
    gc_gb_search(&t.g, n - 1, probe, &o, verdict, &sr);
    CHECK_EQ_INT(sr.first, 23);
    CHECK(verdict[22] == GC_GB_SKIP);      /* its input was probed, and said so */
}

GC_TEST(gpu_bisect_search_anchor_within_tolerance) {
    static tgraph t;
    uint8_t truth[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, verdict[8] = {0};
    for (int32_t i = 0; i <= 8; i++) t.in_start[i] = i ? i - 1 : 0;
    for (int32_t i = 1; i < 8; i++) t.in_pts[i - 1] = i - 1;
    t.g = (gc_gb_graph){ 8, t.in_start, t.in_pts, NULL, NULL };
    oracle o = { .truth = truth };
    gc_gb_search_result sr;
    gc_gb_search(&t.g, 7, probe, &o, verdict, &sr);
    CHECK_EQ_INT(sr.first, -1);
    CHECK_EQ_INT(sr.n_probes, 1);
    CHECK(!sr.error);
    gc_gb_search(&t.g, 8, probe, &o, verdict, &sr);     /* out of range: nothing */
    CHECK_EQ_INT(sr.first, -1);
    CHECK_EQ_INT(sr.n_probes, 0);
}

GC_TEST(gpu_bisect_search_probe_failure_stops) {
    static tgraph t;
    uint8_t truth[100], verdict[100];
    for (int32_t i = 0; i <= 100; i++) t.in_start[i] = i ? i - 1 : 0;
    for (int32_t i = 1; i < 100; i++) t.in_pts[i - 1] = i - 1;
    t.g = (gc_gb_graph){ 100, t.in_start, t.in_pts, NULL, NULL };
    for (int32_t i = 0; i < 100; i++) truth[i] = i >= 40 ? GC_GB_DIVERGES : GC_GB_OK;
    for (int fail = 1; fail <= 4; fail++) {
        memset(verdict, 0, sizeof verdict);
        verdict[99] = GC_GB_DIVERGES;
        oracle o = { .truth = truth, .fail_at = fail };
        gc_gb_search_result sr;
        gc_gb_search(&t.g, 99, probe, &o, verdict, &sr);
        CHECK(sr.error);
        CHECK_EQ_INT(sr.first, -1);
        CHECK_EQ_INT(o.n_calls, fail);     /* nothing probed after the failure */
    }
}

/* ---- the prefix models the probes are made of ----------------------------------------------- */

GC_TEST(gpu_bisect_prefix_output_is_read_by_no_op) {
    /* x -> a = x + 1 -> b = a * 2 -> c = a + b (a is read twice, b once) */
    for (int cut = 0; cut < 3; cut++) {
        gc_model *m = gc_model_new();
        int32_t sg = gc_model_add_subgraph(m, "main");
        int32_t s[] = { 1, 4 }, one[] = { 1 };
        float k1 = 1.0f, k2 = 2.0f;
        int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, s, 0);
        int32_t c1 = gc_sg_add_tensor(m, sg, "k1", GC_T_FLOAT32, 1, one, (uint32_t)gc_model_add_buffer(m, &k1, 4));
        int32_t c2 = gc_sg_add_tensor(m, sg, "k2", GC_T_FLOAT32, 1, one, (uint32_t)gc_model_add_buffer(m, &k2, 4));
        int32_t a = gc_sg_add_tensor(m, sg, "a", GC_T_FLOAT32, 2, s, 0);
        int32_t b = gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 2, s, 0);
        int32_t c = gc_sg_add_tensor(m, sg, "c", GC_T_FLOAT32, 2, s, 0);
        int32_t add = gc_model_add_opcode(m, GC_OP_ADD, NULL, 1), mul = gc_model_add_opcode(m, GC_OP_MUL, NULL, 1);
        int32_t i1[] = { x, c1 }, o1[] = { a }, i2[] = { a, c2 }, o2[] = { b }, i3[] = { a, b }, o3[] = { c };
        gc_sg_insert_op(m, sg, -1, add, 2, i1, 1, o1);
        gc_sg_insert_op(m, sg, -1, mul, 2, i2, 1, o2);
        gc_sg_insert_op(m, sg, -1, add, 2, i3, 1, o3);
        gc_sg_set_io(m, sg, 1, &x, 1, &c);
        int32_t at = cut == 0 ? a : cut == 1 ? b : c;
        CHECK(gc_model_truncate_at(m, sg, 1, &at) == GC_OK);
        const gc_subgraph *g = &m->subgraphs[sg];
        CHECK_EQ_INT(g->n_outputs, 1);
        CHECK_EQ_INT(g->n_ops, cut + 1);
        for (int32_t o = 0; o < g->n_ops; o++)
            for (int32_t k = 0; k < g->ops[o].n_inputs; k++) CHECK(g->ops[o].inputs[k] != g->outputs[0]);
        CHECK(!strcmp(g->tensors[g->outputs[0]].name, cut == 0 ? "a" : cut == 1 ? "b" : "c"));
        char err[256];
        CHECK_MSG(gc_model_validate(m, err, sizeof err) == GC_OK, "%s", err);
        gc_model_free(m);
    }
}

/* ---- judging one probe from a runtime report (the real-GPU branch) ----------------------- */

/* A native report with a CPU mode and a GPU mode, the per-runtime decision `kind`, and one
 * GPU-vs-CPU comparison set of the given diffs. */
typedef struct { gc_lrt_report rep; gc_lrt_mode modes[2]; gc_lrt_cmpset cs; gc_lrt_diff d[3]; } fake_report;

static void fake(fake_report *f, gc_lrt_verdict kind, const char *gmode, int gpu_ops, int cpu_ops) {
    memset(f, 0, sizeof *f);
    f->rep.have[GC_LRT_NATIVE] = true;
    f->rep.per_runtime_set[GC_LRT_NATIVE] = true;
    f->rep.per_runtime[GC_LRT_NATIVE].kind = kind;
    snprintf(f->rep.per_runtime[GC_LRT_NATIVE].text, sizeof f->rep.per_runtime[0].text, "decision %d", (int)kind);
    gc_lrt_result *r = &f->rep.res[GC_LRT_NATIVE];
    r->runtime = "native";
    r->modes = f->modes; r->n_modes = 2;
    f->modes[0] = (gc_lrt_mode){ .mode = "cpu", .status = "ok" };
    f->modes[1] = (gc_lrt_mode){ .mode = gmode, .gpu = true, .status = "ok", .has_residency = gpu_ops >= 0,
                                 .gpu_ops = gpu_ops, .cpu_ops = cpu_ops };
    f->cs = (gc_lrt_cmpset){ .runtime = "native", .mode = gmode, .ref_runtime = "native", .ref_mode = "cpu", .d = f->d, .n = 0 };
    f->rep.cmps = &f->cs; f->rep.n_cmps = 1;
}

static void diff(fake_report *f, int sig, const char *name, const char *dtype, double max_abs, double ref, double corr, uint64_t nan) {
    gc_lrt_diff *d = &f->d[f->cs.n++];
    d->sig_index = sig;
    d->index = f->cs.n - 1;
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->dtype, sizeof d->dtype, "%s", dtype);
    d->n = 100; d->max_abs = max_abs; d->ref_max_abs = ref; d->corr = corr; d->has_corr = corr >= -1; d->nan_mismatch = nan;
}

static gc_gb_probe judged(const fake_report *f, int precision, gc_lrt_tol tol, bool *no_gpu) {
    gc_gb_probe p;
    memset(&p, 0, sizeof p);
    p.gpu_ops = p.cpu_ops = -1;
    gc_gb_judge_report(&f->rep, GC_LRT_NATIVE, precision, tol, &p, no_gpu);
    return p;
}

GC_TEST(gpu_bisect_judge_report) {
    gc_lrt_tol t32 = gc_lrt_tol_for("gpu-fp32"), t16 = gc_lrt_tol_for("gpu-fp16");
    fake_report f;
    bool ng;
    /* within 1e-4 + 1e-3*max|cpu| and corr: ok, residency reported */
    fake(&f, GC_LRT_V_CLEAN, "gpu-fp32", 12, 0);
    diff(&f, 0, "y", "float32", 5e-4, 1.0, 0.99999, 0);
    gc_gb_probe p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_OK && !ng && !strcmp(p.status, "ok") && p.gpu_ops == 12 && p.cpu_ops == 0);
    CHECK_NEAR(p.cmp.limit, 1e-4 + 1e-3, 1e-12);
    CHECK_NEAR(p.cmp.rel, 5e-4, 1e-12);
    free(p.outs);
    /* over the limit: diverges; the same numbers at fp16 tolerance: ok */
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp32", 12, 0);
    diff(&f, 0, "y", "float32", 2e-3, 1.0, 0.99999, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES && !p.cmp.pass);
    free(p.outs);
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp16", 12, 0);
    diff(&f, 0, "y", "float32", 2e-3, 1.0, 0.9999, 0);
    p = judged(&f, GC_LRT_FP16, t16, &ng);
    CHECK(p.verdict == GC_GB_OK);
    free(p.outs);
    /* a low correlation diverges even within the absolute limit; NaN/Inf on one side too */
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp32", 5, 0);
    diff(&f, 0, "y", "float32", 9e-4, 1.0, 0.66, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES);
    free(p.outs);
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp32", 5, 0);
    diff(&f, 0, "y", "float32", 0, 1.0, 1.0, 3);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES && p.cmp.nan_mismatch == 3);
    free(p.outs);
    /* integers: one step is allowed, two are not */
    fake(&f, GC_LRT_V_CLEAN, "gpu-fp32", 5, 0);
    diff(&f, 0, "q", "int8", 1, 100, 0.99999, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_OK);
    free(p.outs);
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp32", 5, 0);
    diff(&f, 0, "q", "int8", 2, 100, 0.99999, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES);
    free(p.outs);
    /* a tighter rtol (--tol) changes the verdict of the same numbers */
    gc_lrt_tol tight = t32;
    tight.rtol = 1e-5;
    fake(&f, GC_LRT_V_CLEAN, "gpu-fp32", 5, 0);
    diff(&f, 0, "y", "float32", 5e-4, 1.0, 0.99999, 0);
    p = judged(&f, GC_LRT_FP32, tight, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES);
    free(p.outs);
    /* only the first signature counts; the worst output is the probe's measurement */
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp32", 5, 0);
    diff(&f, 0, "a", "float32", 1e-5, 1.0, 1.0, 0);
    diff(&f, 0, "b", "float32", 0.5, 1.0, 0.9, 0);
    diff(&f, 1, "other", "float32", 9.0, 1.0, 0.1, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES && p.n_outs == 2 && !strcmp(p.cmp.name, "b"));
    free(p.outs);
    /* partial residency is judged, and said; a whole-model CPU fallback is not */
    fake(&f, GC_LRT_V_FALLBACK, "gpu-fp32", 10, 2);
    diff(&f, 0, "y", "float32", 0.3, 1.0, 0.9, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES && strstr(p.note, "partial residency: 10/12") != NULL);
    free(p.outs);
    fake(&f, GC_LRT_V_FALLBACK, "gpu-fp32", 0, 12);
    diff(&f, 0, "y", "float32", 0.3, 1.0, 0.9, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_SKIP && !strcmp(p.status, "ran on CPU") && p.outs == NULL);
    fake(&f, GC_LRT_V_FALLBACK, "gpu-fp32", 12, 0);
    f.modes[1].delegate_init_failed = true;
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_SKIP && !strcmp(p.status, "ran on CPU"));
    /* no adapter, compile failure, crash, CPU failure: not judged, each said */
    fake(&f, GC_LRT_V_NO_GPU, "gpu-fp32", -1, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(ng && p.verdict == GC_GB_SKIP);
    fake(&f, GC_LRT_V_COMPILE_FAILED, "gpu-fp32", -1, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(!ng && p.verdict == GC_GB_SKIP && !strcmp(p.status, "GPU compile failed") && !strcmp(p.note, "decision 2"));
    fake(&f, GC_LRT_V_COMPILE_FAILED, "gpu-fp32", -1, 0);
    snprintf(f.rep.per_runtime[GC_LRT_NATIVE].text, sizeof f.rep.per_runtime[0].text, "GPU run failed: ADD: crashed");
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(!strcmp(p.status, "GPU run failed"));
    fake(&f, GC_LRT_V_CPU_FAILED, "gpu-fp32", 3, 0);
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_SKIP && !strcmp(p.status, "CPU failed"));
    /* bit-identical to the CPU: within tolerance, noted */
    fake(&f, GC_LRT_V_NOT_RUN, "gpu-fp32", 3, 0);
    diff(&f, 0, "y", "float32", 0, 1.0, 1.0, 0);
    f.d[0].identical = true;
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_OK && strstr(p.note, "bit-identical") != NULL);
    free(p.outs);
    /* a GPU output of another size diverges */
    fake(&f, GC_LRT_V_MISCOMPUTE, "gpu-fp32", 3, 0);
    diff(&f, 0, "y", "float32", 0, 0, 2, 0);
    snprintf(f.d[0].problem, sizeof f.d[0].problem, "element counts differ (100 vs 50)");
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_DIVERGES);
    free(p.outs);
    /* the runtime compared nothing for that mode: not judged */
    fake(&f, GC_LRT_V_CLEAN, "gpu-fp32", 3, 0);
    f.cs.mode = "gpu-fp16";
    p = judged(&f, GC_LRT_FP32, t32, &ng);
    CHECK(p.verdict == GC_GB_SKIP && !strcmp(p.status, "not compared"));
}
