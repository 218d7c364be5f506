/* gemm_h16_range.c — when the half modes' quick kernels may run (gemm_f32.h "Quick
 * tiles"): the magnitudes of the weights (once, at packing) and of a tile's input rows
 * (per tile, before its kernels), as max |x| over the bits (|x| = bits & 0x7fffffff, an
 * Inf or NaN giving at least 0x7f800000), so NaN cannot slip past a float compare.
 * A tile is quick when max|a| * max|w| <= 65504 in double (exact: a product of two
 * floats), i.e. every product a w of the tile is finite and no larger than the largest
 * half, the range where gemm_h16_avx512.c's rq rounds as vcvtps2ph does.
 * A quick SLICE tile is a split one (gemm_f32.h "Split tiles") when, besides, every packed
 * weight (noted at packing: gc_gemm_b.whalf) and every value of its rows is a half's
 * value, and 4 max|a| max|w| <= 65000.
 */
#include "interp/kernels/gemm_f32.h"
#include "interp/kernels/gemm_f32_ukr.h"

#include <math.h>
#include <string.h>

#include "interp/kernels/vec_loops.h"

/* max over n floats of (bits & 0x7fffffff), into m */
GC_CLONES static uint32_t absmax_bits(const float *x, int64_t n, uint32_t m) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, x + i, 4);
        u &= 0x7fffffffu;
        m = u > m ? u : m;
    }
    return m;
}

static float bits_to_abs(uint32_t m) {
    if (m >= 0x7f800000u) return INFINITY;
    float f;
    memcpy(&f, &m, 4);
    return f;
}

/* the bits of x (|x| = u = bits & 0x7fffffff) that a half's value has clear: below 2^-24
 * (u < 2^-14: the biased exponent eb <= 112; with eb >= 103 the lowest 126 - eb of the 23
 * fraction bits, below: all of u), else the fraction's lowest 13 */
static inline uint32_t nonhalf_bits(uint32_t u) {
    const uint32_t eb = u >> 23;
    return u >= 0x38800000u ? u & 0x1fffu : eb >= 103u ? u & ((1u << (126u - eb)) - 1u) : u;
}

/* max over n floats of (bits & 0x7fffffff), into m; *nh |= the bits no half has (0: every
 * finite x of magnitude <= 65504 a half's value) */
GC_CLONES static uint32_t absmax_half_bits(const float *x, int64_t n, uint32_t m, uint32_t *nh) {
    uint32_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, x + i, 4);
        u &= 0x7fffffffu;
        m = u > m ? u : m;
        bad |= nonhalf_bits(u);
    }
    *nh |= bad;
    return m;
}

void gc_gemm_b_note_range(gc_gemm_b *b) {
    const int64_t n = (int64_t)b->G * b->P * b->PW * b->K;
    uint32_t nh = 0;
    b->wmax = !b->w || n <= 0 ? INFINITY
            : bits_to_abs(b->ksv ? absmax_half_bits(b->w, n, 0, &nh) : absmax_bits(b->w, n, 0));
    b->whalf = b->ksv && b->w && n > 0 && nh == 0;
}

/* max|a| * max|w| over the tile's rows (+inf when a row holds an Inf or NaN, or wmax is
 * unknown); with halves, *nh |= the bits no half has (absmax_half_bits) */
static double tile_product_bound(float wmax, const float *const *rows, int32_t nrows, int64_t off, int64_t len,
                                 bool halves, uint32_t *nh) {
    if (!(wmax <= 65504.0f)) return INFINITY;           /* inf (unknown) too */
    uint32_t m = 0;
    for (int32_t r = 0; r < nrows; r++) {
        if (r > 0 && rows[r] == rows[r - 1]) continue;  /* repeated rows (tile ends, zero rows) */
        m = halves ? absmax_half_bits(rows[r] + off, len, m, nh) : absmax_bits(rows[r] + off, len, m);
        if (m >= 0x7f800000u) return INFINITY;
    }
    return (double)bits_to_abs(m) * (double)wmax;
}

bool gc_h16q_rows_ok(float wmax, const float *const *rows, int32_t nrows, int64_t off, int64_t len) {
    uint32_t nh = 0;
    return tile_product_bound(wmax, rows, nrows, off, len, false, &nh) <= 65504.0;
}

/* quick: max|a| max|w| <= 65504 (gc_h16q_rows_ok); split, in addition: a and w all halves
 * and 4 max|a| max|w| <= 65000, so that a slice's sum of 4 rounded products (each at most
 * r(max|a| max|w|) <= (1 + 2^-11) max|a| max|w|) and its partial sums, rounded, stay
 * below 65520 (65130 at most) */
const gc_ukr_set *gc_h16q_tile_set(const gc_gemm_b *b, const float *const *rows, int32_t nrows, int64_t off,
                                   int64_t len) {
    if (!b->ksq) return b->ks;
    const bool split = b->ksv && b->whalf;
    uint32_t nh = 0;
    const double pm = tile_product_bound(b->wmax, rows, nrows, off, len, split, &nh);
    if (!(pm <= 65504.0)) return b->ks;
    return split && nh == 0 && 4.0 * pm <= 65000.0 ? b->ksv : b->ksq;
}
