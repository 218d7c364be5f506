/* gemm_h16_range.c — when the half modes' quick kernels may run (gemm_f32.h "Quick
 * tiles"): the magnitudes of the weights (once, at packing) and of a tile's input rows
 * (per tile, before its kernels), as max |x| over the bits (|x| = bits & 0x7fffffff, an
 * Inf or NaN giving at least 0x7f800000), so NaN cannot slip past a float compare.
 * A tile is quick when max|a| * max|w| <= 65504 in double (exact: a product of two
 * floats), i.e. every product a w of the tile is finite and no larger than the largest
 * half, the range where gemm_h16_avx512.c's rq rounds as vcvtps2ph does.
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

void gc_gemm_b_note_range(gc_gemm_b *b) {
    const int64_t n = (int64_t)b->G * b->P * b->PW * b->K;
    b->wmax = b->w && n > 0 ? bits_to_abs(absmax_bits(b->w, n, 0)) : INFINITY;
}

bool gc_h16q_rows_ok(float wmax, const float *const *rows, int32_t nrows, int64_t off, int64_t len) {
    if (!(wmax <= 65504.0f)) return false;              /* inf (unknown) too */
    uint32_t m = 0;
    for (int32_t r = 0; r < nrows; r++) {
        if (r > 0 && rows[r] == rows[r - 1]) continue;  /* repeated rows (tile ends, zero rows) */
        m = absmax_bits(rows[r] + off, len, m);
        if (m >= 0x7f800000u) return false;
    }
    return (double)bits_to_abs(m) * (double)wmax <= 65504.0;
}
