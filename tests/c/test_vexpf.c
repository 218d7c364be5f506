/* test_vexpf.c — the vector expf (kernels/vexpf.h) gives the plain loop's bits (libm's
 * expf, the same float operations around it) at every level this CPU runs: GC_VEXP_PLAIN
 * on every 211th float bit pattern of all 2^32 and on every 7th float of the fast range
 * [-87, 88.5]; GC_VEXP_SHIFT, GC_VEXP_LOGISTIC and GC_VEXP_SWISH on every 4099th pattern and on every
 * 97th float of [-100, 100], with several shifts and scales; plus the special values
 * (+-0, +-inf, NaN, the ends of the ranges, zero_below and its neighbours) and every
 * length 0..40 (the padded tails). GC_VEXPF_EXHAUSTIVE=1 checks GC_VEXP_PLAIN on all 2^32
 * floats (about a minute per level). LOGISTIC and SWISH: every 11th float of [16, 110] (their
 * e = +0 below t = -17). Under AddressSanitizer (make asan, the memory-safety run of make test)
 * the two dense sweeps take every SAN-th of those points (SAN = 10): the plain build keeps
 * the full density, and ASan's run of them took 56 of its 133 s. */
#include "test.h"
#include "interp/kernels/cpu_isa.h"
#include "interp/kernels/vexpf.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

#if defined(__SANITIZE_ADDRESS__)
#define SAN 10
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAN 10
#endif
#endif
#ifndef SAN
#define SAN 1
#endif

static float plain(gc_vexp_op op, float v, const gc_vexp_params *p) {
    float t = op == GC_VEXP_SHIFT ? (v - p->sub) * p->mul : op >= GC_VEXP_LOGISTIC ? -v : v;
    float e = t < p->zero_below ? 0.0f : expf(t);
    return op == GC_VEXP_LOGISTIC ? 1.0f / (1.0f + e) : op == GC_VEXP_SWISH ? v * (1.0f / (1.0f + e)) : e;
}

static bool same(float a, float b) { return bits(a) == bits(b) || (isnan(a) && isnan(b)); }

/* n values from next(k) through level isa against the plain loop; returns mismatches */
typedef float (*gen_fn)(uint64_t k, const void *ctx);

static long check_run(gc_isa isa, gc_vexp_op op, const gc_vexp_params *p, gen_fn gen, const void *ctx,
                      uint64_t count, const char *what) {
    enum { N = 4096 };
    static float x[N], y[N];
    long bad = 0;
    for (uint64_t k0 = 0; k0 < count; k0 += N) {
        size_t n = count - k0 < N ? (size_t)(count - k0) : N;
        for (size_t i = 0; i < n; i++) x[i] = gen(k0 + i, ctx);
        gc_vexpf_run(isa, op, x, y, n, p);
        for (size_t i = 0; i < n; i++) {
            float want = plain(op, x[i], p);
            if (!same(y[i], want)) {
                if (bad < 5)
                    fprintf(stderr, "  %s %s op %d: x %a (0x%08x) -> 0x%08x, expf loop 0x%08x\n", gc_isa_name(isa), what,
                            (int)op, (double)x[i], bits(x[i]), bits(y[i]), bits(want));
                bad++;
            }
        }
    }
    return bad;
}

typedef struct { uint64_t lo, step; } pat_ctx;
static float gen_pattern(uint64_t k, const void *c) {
    const pat_ctx *q = c;
    return from_bits((uint32_t)(q->lo + k * q->step));
}
typedef struct { float lo; uint64_t step; } range_ctx;    /* floats from lo upward (lo < 0 or > 0) */
static float gen_range(uint64_t k, const void *c) {
    const range_ctx *q = c;
    /* walk the ordered floats: map an ordinal to a float across zero */
    int64_t o0 = bits(q->lo) & 0x80000000u ? -(int64_t)(bits(q->lo) & 0x7fffffffu) : (int64_t)bits(q->lo);
    int64_t o = o0 + (int64_t)(k * q->step);
    return o < 0 ? from_bits(0x80000000u | (uint32_t)(-o)) : from_bits((uint32_t)o);
}
static uint64_t range_count(float lo, float hi, uint64_t step) {
    int64_t a = bits(lo) & 0x80000000u ? -(int64_t)(bits(lo) & 0x7fffffffu) : (int64_t)bits(lo);
    int64_t b = bits(hi) & 0x80000000u ? -(int64_t)(bits(hi) & 0x7fffffffu) : (int64_t)bits(hi);
    return (uint64_t)(b - a) / step + 1;
}
typedef struct { const float *v; } list_ctx;
static float gen_list(uint64_t k, const void *c) { return ((const list_ctx *)c)->v[k]; }

static int levels(gc_isa *out) {
    int n = 0;
    gc_isa top = gc_isa_detect();
    for (int l = GC_ISA_SCALAR; l <= (int)top; l++) out[n++] = (gc_isa)l;
    return n;
}

GC_TEST(vexpf_plain_matches_expf) {
    gc_isa lv[3];
    int nl = levels(lv);
    const gc_vexp_params p = { 0, 1, gc_expf_zero_below() };
    const bool all = getenv("GC_VEXPF_EXHAUSTIVE") && atoi(getenv("GC_VEXPF_EXHAUSTIVE")) == 1;
    for (int l = 0; l < nl; l++) {
        pat_ctx pc = { 0, all ? 1 : 211 * SAN };
        CHECK_EQ_INT(check_run(lv[l], GC_VEXP_PLAIN, &p, gen_pattern, &pc, all ? 0x100000000ull : 0x100000000ull / (211 * SAN), "patterns"), 0);
        if (!all) {
            range_ctx rc = { -87.0f, 7 * SAN };
            CHECK_EQ_INT(check_run(lv[l], GC_VEXP_PLAIN, &p, gen_range, &rc, range_count(-87.0f, 88.5f, 7 * SAN), "fast range"), 0);
        }
    }
}

GC_TEST(vexpf_shift_logistic_match) {
    gc_isa lv[3];
    int nl = levels(lv);
    const float zb = gc_expf_zero_below();
    const float shifts[][2] = { { 0, 1 }, { 3.25f, 1 }, { -1.5f, 0.125f }, { 20, 2.5f }, { 0.1f, -1 } };
    for (int l = 0; l < nl; l++)
        for (int s = 0; s < 5; s++)
            for (int op = GC_VEXP_SHIFT; op <= GC_VEXP_SWISH; op++) {
                const gc_vexp_params p = { shifts[s][0], shifts[s][1], zb };
                pat_ctx pc = { 7, 4099 * SAN };
                CHECK_EQ_INT(check_run(lv[l], (gc_vexp_op)op, &p, gen_pattern, &pc, 0x100000000ull / (4099 * SAN), "patterns"), 0);
                range_ctx rc = { -100.0f, 97 * SAN };
                CHECK_EQ_INT(check_run(lv[l], (gc_vexp_op)op, &p, gen_range, &rc, range_count(-100.0f, 100.0f, 97 * SAN), "range"), 0);
            }
}

GC_TEST(vexpf_specials_and_tails) {
    gc_isa lv[3];
    int nl = levels(lv);
    const float zb = gc_expf_zero_below();
    CHECK(expf(zb) != 0.0f && expf(nextafterf(zb, -INFINITY)) == 0.0f);
    const float sp[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f, 1e-45f, -1e-45f, 1e-38f,
                         -87.0f, nextafterf(-87.0f, -INFINITY), 88.5f, nextafterf(88.5f, INFINITY),
                         88.72283f, 88.72284f, 89.0f, -87.33655f, -87.33654f, -88.0f, -100.0f, -103.0f,
                         zb, nextafterf(zb, -INFINITY), nextafterf(zb, 0), -104.0f, -1e30f, -3.4e38f, 3.4e38f,
                         0.5f, 0.6931472f, -0.6931472f, 10.0f, -10.0f, 0.34657359f, -0.34657359f, 44.0f, -44.0f, 2.0f };
    const int nsp = (int)(sizeof sp / sizeof sp[0]);
    list_ctx lc = { sp };
    for (int l = 0; l < nl; l++)
        for (int op = GC_VEXP_PLAIN; op <= GC_VEXP_SWISH; op++) {
            const gc_vexp_params p = { op == GC_VEXP_SHIFT ? 1.0f : 0, op == GC_VEXP_SHIFT ? 0.5f : 1, zb };
            for (int n = 0; n <= nsp; n++)          /* every length: the tails */
                CHECK_EQ_INT(check_run(lv[l], (gc_vexp_op)op, &p, gen_list, &lc, (uint64_t)n, "specials"), 0);
            /* in place (x == y) */
            float buf[64];
            memcpy(buf, sp, sizeof sp);
            gc_vexpf_run(lv[l], (gc_vexp_op)op, buf, buf, (size_t)nsp, &p);
            for (int i = 0; i < nsp; i++) CHECK(same(buf[i], plain((gc_vexp_op)op, sp[i], &p)));
        }
}

/* LOGISTIC and SWISH take t = -v below GC_VEXP_ONE_BELOW as e = +0 (vexpf.h: 1 + expf(t)
 * rounds to 1 there): every 11th float v of [16, 110] (t across -17 down past zero_below), at
 * every level, against the plain loop with libm's expf. */
GC_TEST(vexpf_logistic_one_below) {
    CHECK(1.0f + expf(GC_VEXP_ONE_BELOW) == 1.0f);
    CHECK(1.0f + expf(nextafterf(GC_VEXP_ONE_BELOW, 0.0f)) == 1.0f);
    gc_isa lv[3];
    int nl = levels(lv);
    const gc_vexp_params p = { 0, 1, gc_expf_zero_below() };
    for (int l = 0; l < nl; l++)
        for (int op = GC_VEXP_LOGISTIC; op <= GC_VEXP_SWISH; op++) {
            range_ctx rc = { 16.0f, 11 };
            CHECK_EQ_INT(check_run(lv[l], (gc_vexp_op)op, &p, gen_range, &rc, range_count(16.0f, 110.0f, 11), "[16, 110]"), 0);
        }
}
