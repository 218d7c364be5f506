/* gemm_f32.c — packing and the tile drivers of the fast float paths (gemm_f32.h): they
 * cut the output into tiles of MR rows and call the microkernels (gemm_f32_ukr.h) per
 * tile and pair of panels, with row pointers (CONV_2D: one per tap and output pixel,
 * pointing into the input or at the zero row: an implicit im2col, nothing copied).
 */
#include "interp/kernels/gemm_f32.h"
#include "interp/kernels/gemm_f32_ukr.h"
#include "interp/fp16.h"

#include <math.h>
#include <string.h>

enum { MAX_MR = GC_GEMM_MAX_MR };

static const gc_ukr_set *set_for(gc_isa isa, gc_gemm_mode mode, int32_t N) {
#ifdef GC_HAVE_X86_KERNELS
    if (mode == GC_GEMM_H2FMA) return isa == GC_ISA_AVX512 && N > 8 ? gc_ukr_h2fma_avx512() : gc_ukr_h2fma_scalar();
    if (mode == GC_GEMM_F32_FMA)
        return isa == GC_ISA_AVX512 && N > 8 ? gc_ukr_avx512_fma()
             : isa >= GC_ISA_AVX2 ? (N > 8 ? gc_ukr_avx2_wide_fma() : gc_ukr_avx2_fma()) : gc_ukr_scalar_fma();
    if (mode == GC_GEMM_K16H) {
        if (isa == GC_ISA_AVX512 && N > 8) return gc_ukr_k16h_avx512();
        if (isa >= GC_ISA_AVX2 && gc_f16_have_f16c()) return gc_ukr_k16h_avx2();
        return gc_ukr_k16h_scalar();
    }
    if (mode != GC_GEMM_F32) {
        const bool h = mode == GC_GEMM_H16;
        if (isa == GC_ISA_AVX512 && N > 8) return h ? gc_ukr_h16_avx512() : gc_ukr_slice_avx512();
        if (isa >= GC_ISA_AVX2 && gc_f16_have_f16c()) return h ? gc_ukr_h16_avx2() : gc_ukr_slice_avx2();
        return h ? gc_ukr_h16_scalar() : gc_ukr_slice_scalar();
    }
    if (isa == GC_ISA_AVX512 && N > 8) return gc_ukr_avx512();
    if (isa >= GC_ISA_AVX2) return N > 8 ? gc_ukr_avx2_wide() : gc_ukr_avx2();
#else
    (void)isa; (void)N;
    if (mode == GC_GEMM_K16H) return gc_ukr_k16h_scalar();
    if (mode == GC_GEMM_H2FMA) return gc_ukr_h2fma_scalar();
    if (mode == GC_GEMM_F32_FMA) return gc_ukr_scalar_fma();
    if (mode != GC_GEMM_F32) return mode == GC_GEMM_H16 ? gc_ukr_h16_scalar() : gc_ukr_slice_scalar();
#endif
    return gc_ukr_scalar();
}

/* the quick kernels of the half modes (gemm_f32.h), where the level has them */
static const gc_ukr_set *quick_for(const gc_ukr_set *ks) {
#ifdef GC_HAVE_X86_KERNELS
    if (ks == gc_ukr_h16_avx512()) return gc_ukr_h16q_avx512();
    if (ks == gc_ukr_slice_avx512()) return gc_ukr_sliceq_avx512();
#endif
    (void)ks;
    return NULL;
}

size_t gc_gemm_b_layout(gc_gemm_b *b, gc_isa isa, int32_t G, int32_t K, int32_t N) {
    return gc_gemm_b_layout_mode(b, isa, GC_GEMM_F32, G, K, N);
}

size_t gc_gemm_b_layout_mode(gc_gemm_b *b, gc_isa isa, gc_gemm_mode mode, int32_t G, int32_t K, int32_t N) {
    memset(b, 0, sizeof *b);
    if (G <= 0 || K <= 0 || N <= 0) return 0;
    b->ks = set_for(isa, mode, N);
    b->ksq = quick_for(b->ks);
#ifdef GC_HAVE_X86_KERNELS
    b->ksv = b->ks == gc_ukr_slice_avx512() ? gc_ukr_slicev_avx512() : NULL;
#endif
    b->wmax = INFINITY;
    b->mode = (int32_t)mode;
    b->G = G; b->K = K; b->N = N;
    b->PW = b->ks->PW; b->MR = b->ks->MR;
    b->P = (int32_t)(((int64_t)N + b->PW - 1) / b->PW);
    /* G * P * PW * K floats, + 16 for the alignment */
    uint64_t n = (uint64_t)G * (uint64_t)b->P;
    if (n > UINT64_MAX / (uint64_t)b->PW) return 0;
    n *= (uint64_t)b->PW;
    if (n > (UINT64_MAX - 16) / (uint64_t)K) return 0;
    n = n * (uint64_t)K + 16;
    if (n > SIZE_MAX / sizeof(float)) return 0;
    return (size_t)n;
}

void gc_gemm_b_bind(gc_gemm_b *b, float *mem) {
    uintptr_t p = (uintptr_t)mem;
    p = (p + 63) & ~(uintptr_t)63;
    b->w = (float *)p;
}

static inline float *panel(const gc_gemm_b *b, int32_t g, int32_t p) {
    return b->w + ((size_t)g * (size_t)b->P + (size_t)p) * (size_t)b->K * (size_t)b->PW;
}

void gc_gemm_pack_nk(gc_gemm_b *b, const float *src, int64_t ld) {
    for (int32_t g = 0; g < b->G; g++)
        for (int32_t p = 0; p < b->P; p++) {
            float *d = panel(b, g, p);
            for (int32_t c = 0; c < b->PW; c++) {
                int64_t n = (int64_t)p * b->PW + c;
                const float *s = n < b->N ? src + ((size_t)g * (size_t)b->N + (size_t)n) * (size_t)ld : NULL;
                for (int32_t k = 0; k < b->K; k++) d[(size_t)k * (size_t)b->PW + (size_t)c] = s ? s[k] : 0.0f;
            }
        }
    gc_gemm_b_note_range(b);
}

void gc_gemm_pack_kn(gc_gemm_b *b, const float *src) {
    for (int32_t p = 0; p < b->P; p++) {
        float *d = panel(b, 0, p);
        for (int32_t k = 0; k < b->K; k++)
            for (int32_t c = 0; c < b->PW; c++) {
                int64_t n = (int64_t)p * b->PW + c;
                d[(size_t)k * (size_t)b->PW + (size_t)c] = n < b->N ? src[(size_t)k * (size_t)b->N + (size_t)n] : 0.0f;
            }
    }
    gc_gemm_b_note_range(b);
}

size_t gc_gemm_bias_floats(const gc_gemm_b *b) { return (size_t)b->G * (size_t)b->P * (size_t)b->PW; }

void gc_gemm_pack_bias(const gc_gemm_b *b, const float *bias, float *out) {
    size_t per = (size_t)b->P * (size_t)b->PW;
    for (int32_t g = 0; g < b->G; g++)
        for (size_t n = 0; n < per; n++)
            out[(size_t)g * per + n] = bias && n < (size_t)b->N ? bias[(size_t)g * (size_t)b->N + n] : 0.0f;
}

/* Panels [p0, p1) of group g for one tile: pairs through the two-panel kernel (single rows:
 * fours where the set has a four-panel kernel), a last odd one through the one-panel
 * kernel; with p0 = 0 and p1 = P, a set's `all` kernel takes them in one call. */
static void tile_panel_range(const gc_gemm_b *b, const gc_ukr_set *ks, gc_ukr_args *u, int32_t g, const float *bias,
                             float *y, int32_t p0, int32_t p1) {
    const bool r1 = u->mr == 1;
    u->a_mr = b->MR;
    u->pstride = (int64_t)b->K * b->PW;
    if (!r1 && ks->all && p0 == 0 && p1 == b->P) {
        u->nc = b->N;
        u->w = panel(b, g, 0);
        u->bias = bias ? bias + (size_t)g * (size_t)b->P * (size_t)b->PW : NULL;
        u->y = y;
        ks->all(u);
        return;
    }
    for (int32_t p = p0; p < p1;) {
        int np = 1;                                             /* a set without `two`: one at a time */
        if (r1 && ks->four_r1 && p + 3 < p1) np = 4;
        else if (p + 1 < p1 && (r1 ? ks->two_r1 != NULL : ks->two != NULL)) np = 2;
        int64_t nleft = (int64_t)b->N - (int64_t)p * b->PW;
        int64_t nmax = np * (int64_t)b->PW;
        u->nc = (int32_t)(nleft < nmax ? nleft : nmax);
        u->w = panel(b, g, p);
        u->bias = bias ? bias + ((size_t)g * (size_t)b->P + (size_t)p) * (size_t)b->PW : NULL;
        u->y = y + (size_t)p * (size_t)b->PW;
        (np == 4 ? ks->four_r1 : np == 2 ? (r1 ? ks->two_r1 : ks->two) : (r1 ? ks->one_r1 : ks->one))(u);
        p += np;
    }
}
static void tile_panels(const gc_gemm_b *b, const gc_ukr_set *ks, gc_ukr_args *u, int32_t g, const float *bias, float *y) {
    tile_panel_range(b, ks, u, g, bias, y, 0, b->P);
}

void gc_gemm_tile(const gc_gemm_b *b, int32_t g, const float *const *ind, int32_t T, int32_t ICg, int64_t a_off,
                  int32_t mr, const float *bias, float lo, float hi, float *y, int64_t ldy) {
    gc_ukr_args u = { .mr = mr, .T = T, .ICg = ICg, .a = ind, .a_off = a_off, .lo = lo, .hi = hi, .ldy = ldy };
    tile_panels(b, gc_h16q_tile_set(b, ind, T * b->MR, a_off, ICg), &u, g, bias, y);
}

/* ---- FULLY_CONNECTED / BATCH_MATMUL ---------------------------------------------------- */

int64_t gc_gemmf_tiles(const gc_gemm_b *b, int64_t M) { return (M + b->MR - 1) / b->MR; }

/* the copy's row stride: K rounded up to 16 floats, then 16 more (64 bytes: consecutive
 * rows one L1 set apart) */
static int64_t apack_ld(const gc_gemm_b *b) { return ((int64_t)b->K + 15) / 16 * 16 + 16; }

size_t gc_gemmf_apack_floats(const gc_gemm_b *b, int64_t lda) {
    if (b->K < 512 || (lda * (int64_t)sizeof(float)) % 4096 != 0) return 0;
    return (size_t)b->MR * (size_t)apack_ld(b) + 16;        /* + 16: the 64-byte alignment */
}

void gc_gemmf_run(const gc_gemm_b *b, const float *bias, float lo, float hi,
                  const float *a, int64_t lda, float *y, int64_t ldy, int64_t M,
                  int64_t t0, int64_t t1, float *apack) {
    const int32_t MR = b->MR;
    const float *rows[MAX_MR];
    gc_ukr_args u = { .T = 1, .ICg = b->K, .a = rows, .a_off = 0, .lo = lo, .hi = hi, .ldy = ldy };
    float *ap = NULL;
    const int64_t ldp = apack_ld(b);
    if (apack && gc_gemmf_apack_floats(b, lda)) ap = (float *)(((uintptr_t)apack + 63) & ~(uintptr_t)63);
    /* Sets without an `all` kernel (AVX2, portable), float sums, no per-row rounding, no
     * row copies, several tiles: blocks of panels outer, the tiles inner, so that a block of
     * the weights (<= 64 KiB) stays in cache while the rows stream past it; tile by tile,
     * every tile streamed all the weights (fc1 / fc2 of vit_tiny: 590 KB, past Zen 3's
     * 512 KB L2). Each output is still one kernel call over the whole K: the same bits. */
    if (!ap && !b->store && !b->ks->all && (b->mode == GC_GEMM_F32 || b->mode == GC_GEMM_F32_FMA) && t1 - t0 > 1 &&
        b->P > 2) {
        int64_t per = (int64_t)b->K * b->PW * (int64_t)sizeof(float);
        int32_t pb = (int32_t)(65536 / (per > 0 ? per : 1));
        pb = pb < 2 ? 2 : pb > b->P ? b->P : pb & ~1;
        for (int32_t p0 = 0; p0 < b->P; p0 += pb) {
            const int32_t p1 = p0 + pb < b->P ? p0 + pb : b->P;
            for (int64_t t = t0; t < t1; t++) {
                int64_t m0 = t * MR, mr = M - m0 < MR ? M - m0 : MR;
                for (int32_t m = 0; m < MR; m++) rows[m] = a + (size_t)(m0 + (m < mr ? m : 0)) * (size_t)lda;
                u.mr = (int32_t)mr;
                tile_panel_range(b, b->ks, &u, 0, bias, y + (size_t)m0 * (size_t)ldy, p0, p1);
            }
        }
        return;
    }
    for (int64_t t = t0; t < t1; t++) {
        int64_t m0 = t * MR, mr = M - m0 < MR ? M - m0 : MR;
        if (ap && mr > 1) {                        /* the tile's rows, copied apart (see gemm_f32.h) */
            for (int64_t m = 0; m < mr; m++)
                memcpy(ap + (size_t)(m * ldp), a + (size_t)(m0 + m) * (size_t)lda, (size_t)b->K * sizeof(float));
            for (int32_t m = 0; m < MR; m++) rows[m] = ap + (size_t)((m < mr ? m : 0) * ldp);
        } else
        for (int32_t m = 0; m < MR; m++) rows[m] = a + (size_t)(m0 + (m < mr ? m : 0)) * (size_t)lda;
        u.mr = (int32_t)mr;
        tile_panels(b, gc_h16q_tile_set(b, rows, (int32_t)mr, 0, b->K), &u, 0, bias, y + (size_t)m0 * (size_t)ldy);
        for (int64_t m = 0; b->store && m < mr; m++) gc_f16_store(b->store, y + (size_t)(m0 + m) * (size_t)ldy, (size_t)b->N);
    }
}

/* ---- CONV_2D ----------------------------------------------------------------------------- */

bool gc_convf_exact(const float *w, size_t n, bool has_padding_taps) {
    if (!has_padding_taps) return true;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i])) return false;
    return true;
}

int64_t gc_convf_tiles(const gc_convf *c) {
    int64_t m = (int64_t)c->Bn * c->OH * c->OW;
    return (m + c->b.MR - 1) / c->b.MR;
}

/* Row runs: with one group and no horizontal dilation, the KW taps of one kernel row read
 * KW*C consecutive floats of the input (pixels ix0 .. ix0+KW-1, all channels), in the
 * reference's (kx, ic) order. So the K loop runs over KH "taps" of KW*C values each: one
 * row pointer per output pixel and kernel row, straight into the input when the whole run
 * lies inside it, else into a per-thread copy of the run with zeros for the pixels outside
 * (and the zero row for a kernel row outside). */
static bool row_runs(const gc_convf *c) { return c->b.G == 1 && c->dw == 1 && c->KW > 1; }

/* scaled rows: K rounded up to 16 floats, then 16 more (consecutive rows one L1 set apart) */
static int64_t scaled_ld(const gc_convf *c) { return ((int64_t)c->b.K + 15) / 16 * 16 + 16; }

size_t gc_convf_scratch_bytes(const gc_convf *c) {
    size_t n = (size_t)c->KH * (size_t)c->KW * (size_t)c->b.MR * sizeof(const float *) + 64;
    if (row_runs(c)) n += (size_t)c->b.MR * (size_t)c->b.K * sizeof(float) + 64;
    if (c->scaled) n += (size_t)c->b.MR * (size_t)scaled_ld(c) * sizeof(float) + 64;
    return n;
}

/* u[k] = x[k] * s[k] (first: s[k] * x[k]) for k < n: one float multiply each */
static void scale_row_c(float *u, const float *x, const float *s, int64_t n, bool first) {
    if (first) for (int64_t k = 0; k < n; k++) u[k] = s[k] * x[k];
    else for (int64_t k = 0; k < n; k++) u[k] = x[k] * s[k];
}
#ifdef GC_HAVE_X86_KERNELS
#include <immintrin.h>
__attribute__((target("avx512f"))) static void scale_row_512(float *u, const float *x, const float *s, int64_t n,
                                                             bool first) {
    int64_t k = 0;
    for (; k + 16 <= n; k += 16) {
        const __m512 a = _mm512_loadu_ps(x + k), b = _mm512_loadu_ps(s + k);
        _mm512_storeu_ps(u + k, first ? _mm512_mul_ps(b, a) : _mm512_mul_ps(a, b));
    }
    scale_row_c(u + k, x + k, s + k, n - k, first);
}
#endif

void gc_convf_run(const gc_convf *c, const float *x, float *y, void *scratch, int64_t t0, int64_t t1) {
    const int32_t MR = c->b.MR, G = c->b.G, N = c->b.N;
    const bool runs = row_runs(c);
    const int32_t T = runs ? c->KH : c->KH * c->KW, ICg = c->b.K / T, RUN = c->KW * c->C;
    const int64_t M = (int64_t)c->Bn * c->OH * c->OW, plane = (int64_t)c->OH * c->OW;
    const float **ind = (const float **)scratch;          /* [T][MR] */
    float *edge = NULL;                                   /* runs: [MR][KH][KW*C] copies at the borders */
    if (runs) {
        uintptr_t p = (uintptr_t)(ind + (size_t)c->KH * c->KW * MR);
        edge = (float *)((p + 63) & ~(uintptr_t)63);
    }
    float *urows = NULL;                                  /* scaled: [MR][scaled_ld] products */
    void (*scale_row)(float *, const float *, const float *, int64_t, bool) = scale_row_c;
    if (c->scaled) {
        uintptr_t p = (uintptr_t)(ind + (size_t)c->KH * c->KW * MR);
        urows = (float *)((p + 63) & ~(uintptr_t)63);
#ifdef GC_HAVE_X86_KERNELS
        if (c->b.PW == 16) scale_row = scale_row_512;   /* the AVX-512 sets (the only 16-float panels) */
#endif
    }
    gc_ukr_args u = { .T = T, .ICg = ICg, .a = ind, .lo = c->lo, .hi = c->hi, .ldy = c->OC };
    /* a 1x1 stride-1 conv without padding: output pixel p reads input pixel p (the same
     * pointers the general loop below computes, without its per-row position walk) */
    const bool direct = c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && c->pt == 0 && c->pl == 0 &&
                        c->H == c->OH && c->W == c->OW;
    for (int64_t t = t0; t < t1; t++) {
        int64_t p0 = t * MR, mr = M - p0 < MR ? M - p0 : MR;
        if (direct && urows) {
            const int64_t ld = scaled_ld(c);
            for (int32_t m = 0; m < mr; m++)
                scale_row(urows + (size_t)(m * ld), x + (size_t)(p0 + m) * (size_t)c->C, c->xs, c->C, c->xs_first);
            for (int32_t m = 0; m < MR; m++) ind[m] = urows + (size_t)((m < mr ? m : 0) * ld);
        } else if (direct) {
            for (int32_t m = 0; m < MR; m++)                      /* rows past the tile repeat row 0 */
                ind[m] = x + (size_t)(p0 + (m < mr ? m : 0)) * (size_t)c->C;
        } else {
            /* the tile's first pixel, then step through the next ones (no division per pixel) */
            int32_t bi = (int32_t)(p0 / plane), oy = (int32_t)(p0 % plane / c->OW), ox = (int32_t)(p0 % plane % c->OW);
            const int32_t b0 = bi, oy0 = oy, ox0 = ox;
            for (int32_t m = 0; m < MR; m++) {
                if (m == mr) { bi = b0; oy = oy0; ox = ox0; }   /* rows past the tile repeat row 0 */
                const float *xb = x + (size_t)bi * (size_t)c->H * (size_t)c->W * (size_t)c->C;
                const int32_t ix0 = ox * c->sw - c->pl;
                for (int32_t ky = 0; ky < c->KH; ky++) {
                    const int32_t iy = oy * c->sh - c->pt + ky * c->dh;
                    const bool row_in = iy >= 0 && iy < c->H;
                    if (runs) {
                        const float *src = c->zero;
                        if (row_in && ix0 >= 0 && ix0 + c->KW <= c->W) {
                            src = xb + ((size_t)iy * (size_t)c->W + (size_t)ix0) * (size_t)c->C;
                        } else if (row_in) {                   /* part of the run is outside */
                            float *e = edge + ((size_t)m * (size_t)c->KH + (size_t)ky) * (size_t)RUN;
                            for (int32_t kx = 0; kx < c->KW; kx++) {
                                const int32_t ix = ix0 + kx;
                                const float *sp = xb + ((size_t)iy * (size_t)c->W + (size_t)ix) * (size_t)c->C;
                                for (int32_t i = 0; i < c->C; i++) e[(size_t)kx * c->C + i] = ix >= 0 && ix < c->W ? sp[i] : 0.0f;
                            }
                            src = e;
                        }
                        ind[(size_t)ky * MR + m] = src;
                        continue;
                    }
                    for (int32_t kx = 0; kx < c->KW; kx++) {
                        const int32_t ix = ix0 + kx * c->dw;
                        const bool in = row_in && ix >= 0 && ix < c->W;
                        ind[(size_t)(ky * c->KW + kx) * MR + m] =
                            in ? xb + ((size_t)iy * (size_t)c->W + (size_t)ix) * (size_t)c->C : c->zero;
                    }
                }
                if (m < mr && ++ox == c->OW) { ox = 0; if (++oy == c->OH) { oy = 0; bi++; } }
            }
        }
        u.mr = (int32_t)mr;
        float *yt = y + (size_t)p0 * (size_t)c->OC;
        /* every row pointer reads G * ICg floats over the groups (one group: ICg) */
        const gc_ukr_set *ks = gc_h16q_tile_set(&c->b, ind, T * MR, 0, (int64_t)G * ICg);
        for (int32_t g = 0; g < G; g++) {
            u.a_off = (int64_t)g * ICg;
            tile_panels(&c->b, ks, &u, g, c->bias, yt + (size_t)g * (size_t)N);
        }
        if (c->b.store) gc_f16_store(c->b.store, yt, (size_t)mr * (size_t)c->OC);
        if (c->epi) c->epi(yt, (size_t)mr * (size_t)c->OC, c->epi_arg);
    }
}
