/* qgemm8.c — the level choice, the packers and the tile drivers of the fast 8-bit paths
 * (qgemm8.h): tiles of MR output pixels with row pointers per tap (into the input or its
 * per-eval copy, or at the pad row: an implicit im2col, nothing gathered), panels of
 * columns in groups of up to NPMAX per microkernel call; depthwise: whole output rows.
 */
#include "interp/kernels/qgemm8.h"
#include "interp/kernels/cpu_isa.h"

#include <string.h>
#if defined(__x86_64__) && !defined(GC_NO_SIMD)
#include <emmintrin.h>
#endif

/* the per-eval conversion loops run across independent elements */
#include "interp/kernels/vec_loops.h"

gc_q8level gc_q8_level(int isa) {
#ifdef GC_HAVE_X86_Q8
    __builtin_cpu_init();
    if (isa >= GC_ISA_AVX512 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vnni"))
        return GC_Q8_VNNI;
    if (isa >= GC_ISA_AVX2) return GC_Q8_AVX2;
#else
    (void)isa;
#endif
    return GC_Q8_SCALAR;
}

const char *gc_q8_level_name(gc_q8level l) {
    return l == GC_Q8_VNNI ? "avx512-vnni" : l == GC_Q8_AVX2 ? "avx2" : "scalar";
}

static const gc_q8ukr_set *set_for(gc_q8level l) {
#ifdef GC_HAVE_X86_Q8
    if (l == GC_Q8_VNNI) return gc_q8ukr_vnni();
    if (l == GC_Q8_AVX2) return gc_q8ukr_avx2();
#endif
    (void)l;
    return gc_q8ukr_scalar();
}

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

size_t gc_q8conv_layout(gc_q8conv *c, gc_q8level level, bool w_signed, bool uniform_zw) {
    (void)w_signed;
    if (level == GC_Q8_VNNI && !uniform_zw && c->kind == GC_Q8_GEMM) level = GC_Q8_AVX2;
    c->level = level;
    c->ks = set_for(level);
    c->T = c->KH * c->KW;
    if (c->kind == GC_Q8_DW) {
        c->Cp = (int32_t)round_up(c->C, c->ks->DWV);
        uint64_t n = (uint64_t)c->T * (uint64_t)c->Cp;
        if (n > (SIZE_MAX - 128) / 4) return 0;
        return (size_t)n * 4 + 64;
    }
    const int32_t GS = c->ks->GS, PW = c->ks->PW;
    const int esz = level == GC_Q8_VNNI ? 1 : 2;
    c->Cp = (int32_t)round_up(c->C, GS);
    c->KG = c->Cp / GS;
    c->P = (int32_t)((c->OC + PW - 1) / PW);
    uint64_t per = (uint64_t)c->T * (uint64_t)c->KG * (uint64_t)GS * (uint64_t)PW * (uint64_t)esz;
    if (per == 0 || per > (SIZE_MAX - 128) / (uint64_t)c->P) return 0;
    c->pstride = (int64_t)per;
    c->a_direct = level == GC_Q8_VNNI && !c->x_signed && c->C % 4 == 0;
    c->flip = level == GC_Q8_VNNI && c->x_signed ? 0x80 : 0;
    return (size_t)(per * (uint64_t)c->P) + 64;
}

void gc_q8conv_bind(gc_q8conv *c, void *mem) {
    uintptr_t p = ((uintptr_t)mem + 63) & ~(uintptr_t)63;
    if (c->kind == GC_Q8_DW) c->wdw = (int32_t *)p;
    else c->w = (void *)p;
}

int32_t gc_q8conv_cols(const gc_q8conv *c) {
    return c->kind == GC_Q8_DW ? c->Cp : c->P * c->ks->PW;
}

static inline int32_t wval(const gc_q8wsrc *s, int64_t n, int64_t k) {
    uint8_t b = s->src[n * s->sn + k * s->sk];
    return s->w_signed ? (int32_t)(int8_t)b : (int32_t)b;
}

void gc_q8conv_pack(gc_q8conv *c, const gc_q8wsrc *s, bool fill, int32_t *colsum) {
    const int32_t cols = gc_q8conv_cols(c);
    memset(colsum, 0, (size_t)cols * sizeof(int32_t));
    if (c->kind == GC_Q8_DW) {
        for (int32_t t = 0; t < c->T; t++)
            for (int32_t ch = 0; ch < c->Cp; ch++) {
                int32_t v = ch < c->C ? wval(s, 0, (int64_t)t * c->C + ch) - s->zw[ch] : 0;
                if (fill) c->wdw[(size_t)t * (size_t)c->Cp + (size_t)ch] = (int32_t)(uint32_t)(uint16_t)(int16_t)v;
                colsum[ch] += v;
            }
        c->zws = 0;
        return;
    }
    const int32_t PW = c->ks->PW, GS = c->ks->GS;
    if (c->level == GC_Q8_VNNI) {
        const int32_t cw = s->w_signed ? 0 : 128;
        int8_t *w = (int8_t *)c->w;
        for (int32_t p = 0; p < c->P; p++)
            for (int32_t t = 0; t < c->T; t++)
                for (int32_t g = 0; g < c->KG; g++)
                    for (int32_t cc = 0; cc < PW; cc++)
                        for (int32_t j = 0; j < GS; j++) {
                            const int64_t n = (int64_t)p * PW + cc, ci = (int64_t)g * GS + j;
                            const int32_t v = n < c->OC && ci < c->C ? wval(s, n, (int64_t)t * c->C + ci) - cw : 0;
                            if (fill)
                                w[(size_t)p * (size_t)c->pstride + (((size_t)t * c->KG + g) * PW + cc) * GS + j] = (int8_t)v;
                            if (n < c->OC) colsum[n] += v;
                        }
        c->zws = s->zw[0] - cw;
        return;
    }
    int16_t *w = (int16_t *)c->w;
    const size_t ps = (size_t)c->pstride / 2;
    for (int32_t p = 0; p < c->P && fill; p++)
        for (int32_t t = 0; t < c->T; t++)
            for (int32_t g = 0; g < c->KG; g++)
                for (int32_t cc = 0; cc < PW; cc++)
                    for (int32_t j = 0; j < GS; j++) {
                        const int64_t n = (int64_t)p * PW + cc, ci = (int64_t)g * GS + j;
                        const int32_t v = n < c->OC && ci < c->C ? wval(s, n, (int64_t)t * c->C + ci) - s->zw[n] : 0;
                        w[(size_t)p * ps + (((size_t)t * c->KG + g) * PW + cc) * GS + j] = (int16_t)v;
                    }
    c->zws = 0;
}

void gc_q8conv_bias(const gc_q8conv *c, const int32_t *bias, const int32_t *colsum, const gc_q8wsrc *s,
                    int32_t *out) {
    (void)s;
    const int32_t cols = gc_q8conv_cols(c), real = c->kind == GC_Q8_DW ? c->C : c->OC;
    const int64_t zxu = c->zx + (c->flip ? 128 : 0), K = (int64_t)c->T * c->C;
    for (int32_t n = 0; n < cols; n++) {
        int64_t v = 0;
        if (n < real) {
            v = bias ? bias[n] : 0;
            if (c->kind == GC_Q8_DW) v -= (int64_t)c->zx * colsum[n];
            else if (c->level == GC_Q8_VNNI) v += -zxu * colsum[n] + K * zxu * c->zws;
        }
        out[n] = (int32_t)(uint32_t)(uint64_t)v;       /* modulo 2^32, as the kernels sum */
    }
}

/* ---- per eval ------------------------------------------------------------------------------ */

static size_t a_bytes(const gc_q8conv *c) {
    return (size_t)c->Bn * (size_t)c->H * (size_t)c->W * (size_t)c->Cp * (c->level == GC_Q8_VNNI ? 1u : 2u);
}
static size_t sums_off(const gc_q8conv *c) { return c->a_direct ? 0 : (a_bytes(c) + 63) / 64 * 64; }

size_t gc_q8conv_shared_bytes(const gc_q8conv *c) {
    if (c->kind == GC_Q8_DW) return 0;
    size_t n = sums_off(c);
    if (c->zws) n += (size_t)c->Bn * (size_t)c->H * (size_t)c->W * sizeof(int32_t);
    return n + 64;
}

size_t gc_q8conv_thread_bytes(const gc_q8conv *c) {
    if (c->kind == GC_Q8_DW) return 0;
    return (size_t)c->T * (size_t)c->ks->MR * sizeof(void *) + (size_t)c->ks->MR * sizeof(int32_t) + 64;
}

/* sums[p] = sum over the C channels of pixel p of (x ^ f) as bytes */
static void pixel_sums(const uint8_t *x, int32_t C, uint8_t f, int32_t *sums, size_t npix) {
    if (C == 3 || C == 1 || C == 2) {
        for (size_t p = 0; p < npix; p++) {
            const uint8_t *xp = x + p * (size_t)C;
            int32_t s = (uint8_t)(xp[0] ^ f);
            if (C > 1) s += (uint8_t)(xp[1] ^ f);
            if (C > 2) s += (uint8_t)(xp[2] ^ f);
            sums[p] = s;
        }
        return;
    }
#if defined(__x86_64__) && !defined(GC_NO_SIMD)
    /* 16 bytes at a time through psadbw (SSE2: every x86-64) */
    const __m128i fv = _mm_set1_epi8((char)f), zero = _mm_setzero_si128();
    for (size_t p = 0; p < npix; p++) {
        const uint8_t *xp = x + p * (size_t)C;
        __m128i acc = zero;
        int32_t i = 0;
        for (; i + 16 <= C; i += 16)
            acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(xp + i)), fv), zero));
        int32_t s = _mm_cvtsi128_si32(acc) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(acc, acc));
        for (; i < C; i++) s += (uint8_t)(xp[i] ^ f);
        sums[p] = s;
    }
#else
    for (size_t p = 0; p < npix; p++) {
        const uint8_t *xp = x + p * (size_t)C;
        int32_t s = 0;
        for (int32_t i = 0; i < C; i++) s += (uint8_t)(xp[i] ^ f);
        sums[p] = s;
    }
#endif
}

GC_CLONES static void conv_vnni(const gc_q8conv *c, const uint8_t *x, uint8_t *a, int32_t *sums, size_t npix) {
    const int32_t C = c->C, Cp = c->Cp;
    const uint8_t f = c->flip;
    if (a && C == Cp) {
        const size_t n = npix * (size_t)C;
        for (size_t i = 0; i < n; i++) a[i] = x[i] ^ f;
    } else if (a && C < 4) {                  /* the first layer's 1..3 channels: a word per pixel */
        const uint32_t fw = f * 0x01010101u & ((1u << (8 * C)) - 1u);
        uint32_t *aw = (uint32_t *)(void *)a;                /* a is 64-byte aligned */
        if (C == 3)
            for (size_t p = 0; p < npix; p++) {
                const uint8_t *xp = x + p * 3;
                aw[p] = ((uint32_t)xp[0] | (uint32_t)xp[1] << 8 | (uint32_t)xp[2] << 16) ^ fw;
            }
        else if (C == 2)
            for (size_t p = 0; p < npix; p++) aw[p] = ((uint32_t)x[2 * p] | (uint32_t)x[2 * p + 1] << 8) ^ fw;
        else
            for (size_t p = 0; p < npix; p++) aw[p] = (uint32_t)x[p] ^ fw;
    } else if (a) {
        for (size_t p = 0; p < npix; p++) {
            const uint8_t *xp = x + p * (size_t)C;
            uint8_t *ap = a + p * (size_t)Cp;
            for (int32_t i = 0; i < C; i++) ap[i] = xp[i] ^ f;
            for (int32_t i = C; i < Cp; i++) ap[i] = 0;
        }
    }
    if (sums) pixel_sums(x, C, f, sums, npix);
}

GC_CLONES static void conv_i16(const gc_q8conv *c, const uint8_t *x, int16_t *a, size_t npix) {
    const int32_t C = c->C, Cp = c->Cp, zx = c->zx;
    for (size_t p = 0; p < npix; p++) {
        const uint8_t *xp = x + p * (size_t)C;
        int16_t *ap = a + p * (size_t)Cp;
        if (c->x_signed) for (int32_t i = 0; i < C; i++) ap[i] = (int16_t)((int32_t)(int8_t)xp[i] - zx);
        else for (int32_t i = 0; i < C; i++) ap[i] = (int16_t)((int32_t)xp[i] - zx);
        for (int32_t i = C; i < Cp; i++) ap[i] = 0;
    }
}

void gc_q8conv_prep(const gc_q8conv *c, const uint8_t *x, void *shared) {
    if (c->kind == GC_Q8_DW) return;
    const size_t npix = (size_t)c->Bn * (size_t)c->H * (size_t)c->W;
    uint8_t *base = (uint8_t *)(((uintptr_t)shared + 63) & ~(uintptr_t)63);
    int32_t *sums = c->zws ? (int32_t *)(base + sums_off(c)) : NULL;
    if (c->level == GC_Q8_VNNI) conv_vnni(c, x, c->a_direct ? NULL : base, sums, npix);
    else conv_i16(c, x, (int16_t *)base, npix);
}

int64_t gc_q8conv_tiles(const gc_q8conv *c) {
    if (c->kind == GC_Q8_DW) return (int64_t)c->Bn * c->OH;
    int64_t m = (int64_t)c->Bn * c->OH * c->OW;
    return (m + c->ks->MR - 1) / c->ks->MR;
}

static void run_dw(const gc_q8conv *c, const uint8_t *x, uint8_t *y, int64_t t0, int64_t t1) {
    gc_q8dw_args g = { .pad = c->xpad, .w = c->wdw, .H = c->H, .W = c->W, .C = c->C, .Cp = c->Cp,
                       .KH = c->KH, .KW = c->KW, .sh = c->sh, .sw = c->sw, .dh = c->dh, .dw = c->dw,
                       .pt = c->pt, .pl = c->pl, .x_signed = c->x_signed, .rq = c->rq };
    const size_t img = (size_t)c->H * (size_t)c->W * (size_t)c->C, orow = (size_t)c->OW * (size_t)c->OC;
    for (int64_t r = t0; r < t1; r++) {
        const int32_t b = (int32_t)(r / c->OH), oy = (int32_t)(r % c->OH);
        g.x = x + (size_t)b * img;
        c->ks->dw(&g, y + (size_t)r * orow, oy, 0, c->OW);
    }
}

/* outputs o in [lo, hi) read only inputs o * s - pad + k * d in [0, in) for every tap k < K */
static void inside_range(int32_t pad, int32_t s, int32_t d, int32_t K, int32_t in, int32_t out, int32_t *lo, int32_t *hi) {
    int64_t l = ((int64_t)pad + s - 1) / s;
    int64_t num = (int64_t)in - 1 - (int64_t)(K - 1) * d + pad;
    int64_t h = num < 0 ? 0 : num / s + 1;
    if (l > out) l = out;
    if (h > out) h = out;
    if (h < l) h = l;
    *lo = (int32_t)l; *hi = (int32_t)h;
}

void gc_q8conv_run(const gc_q8conv *c, const uint8_t *x, const void *shared, void *thread, uint8_t *y,
                   int64_t t0, int64_t t1) {
    if (c->kind == GC_Q8_DW) { run_dw(c, x, y, t0, t1); return; }
    const gc_q8ukr_set *ks = c->ks;
    const int32_t MR = ks->MR, PW = ks->PW, T = c->T;
    const size_t esz = c->level == GC_Q8_VNNI ? 1 : 2, rowb = (size_t)c->Cp * esz;
    const uint8_t *base = (const uint8_t *)(((uintptr_t)shared + 63) & ~(uintptr_t)63);
    const int32_t *sums = c->zws ? (const int32_t *)(base + sums_off(c)) : NULL;
    const uint8_t *A = c->a_direct ? x : base;
    const void **ind = (const void **)(((uintptr_t)thread + 7) & ~(uintptr_t)7);
    int32_t *rowc = (int32_t *)(ind + (size_t)T * MR);
    const int64_t M = (int64_t)c->Bn * c->OH * c->OW, plane = (int64_t)c->OH * c->OW;
    const bool plain = T == 1 && c->sh == 1 && c->sw == 1 && c->pt == 0 && c->pl == 0 && c->OH == c->H && c->OW == c->W;
    /* the output pixels whose every tap lies inside the image: oy in [oy_lo, oy_hi), ox in [ox_lo, ox_hi) */
    const bool runs_ok = c->dw == 1 && c->KW > 1 && c->KH <= 32;
    int32_t oy_lo, oy_hi, ox_lo, ox_hi;
    inside_range(c->pt, c->sh, c->dh, c->KH, c->H, c->OH, &oy_lo, &oy_hi);
    inside_range(c->pl, c->sw, c->dw, c->KW, c->W, c->OW, &ox_lo, &ox_hi);
    gc_q8ukr_args u = { .T = T, .KG = c->KG, .a = ind, .a_mr = MR, .pstride = c->pstride,
                        .rowc = sums ? rowc : NULL, .ldy = c->OC };
    /* the first tile's first pixel (b, oy, ox); each tile then continues from the last */
    int32_t tb = 0, toy = 0, tox = 0;
    if (!plain) { const int64_t q = t0 * MR; tb = (int32_t)(q / plane); toy = (int32_t)(q % plane / c->OW); tox = (int32_t)(q % plane % c->OW); }
    enum { KHMAX = 32 };
    size_t pk[KHMAX];                               /* runs with sums: the run start pixel per kernel row */
    for (int64_t t = t0; t < t1; t++) {
        const int64_t p0 = t * MR, mr = M - p0 < MR ? M - p0 : MR;
        int32_t Tt = T, KGt = c->KG;                /* this tile's taps and groups per tap */
        if (plain) {
            for (int32_t m = 0; m < MR; m++) {
                const int64_t p = p0 + (m < mr ? m : 0);
                ind[m] = A + (size_t)p * rowb;
                if (sums) rowc[m] = (int32_t)((uint32_t)-c->zws * (uint32_t)sums[p]);
            }
        } else {
            int32_t bi = tb, oy = toy, ox = tox;
            /* row runs: with every tap of every row inside the image and no horizontal
             * dilation, the KW taps of a kernel row are KW * Cp consecutive elements of A,
             * in the packed k order: KH taps of KW * KG groups (the same panels) */
            bool runs = runs_ok;
            if (runs && ox + mr <= c->OW) runs = oy >= oy_lo && oy < oy_hi && ox >= ox_lo && ox + mr <= ox_hi;
            else
                for (int32_t m = 0, y2 = oy, x2 = ox; runs && m < mr; m++) {
                    runs = y2 >= oy_lo && y2 < oy_hi && x2 >= ox_lo && x2 < ox_hi;
                    if (++x2 == c->OW) { x2 = 0; if (++y2 == c->OH) y2 = 0; }
                }
            if (runs) { Tt = c->KH; KGt = c->KW * c->KG; }
            const int32_t b0 = bi, oy0 = oy, ox0 = ox;
            const size_t step = (size_t)c->sw * rowb;
            if (runs && !sums && mr == MR && ox + MR <= c->OW) {       /* one output row, all inside */
                const uint8_t *p0r = A + ((size_t)bi * (size_t)c->H * (size_t)c->W + (size_t)(oy * c->sh - c->pt) * (size_t)c->W +
                                          (size_t)(ox * c->sw - c->pl)) * rowb;
                const size_t rowstep = (size_t)c->dh * (size_t)c->W * rowb;
                for (int32_t ky = 0; ky < c->KH; ky++)
                    for (int32_t m = 0; m < MR; m++) ind[(size_t)ky * MR + m] = p0r + (size_t)ky * rowstep + (size_t)m * step;
                ox += MR;
                if (ox == c->OW) { ox = 0; if (++oy == c->OH) { oy = 0; bi++; } }
                tb = bi; toy = oy; tox = ox;
                goto kernels;
            }
            for (int32_t m = 0; m < MR; m++) {
                if (m == mr) { bi = b0; oy = oy0; ox = ox0; }      /* rows past the tile repeat row 0 */
                if (runs && m > 0 && m < mr && ox > 0) {            /* the next pixel of the same output row */
                    uint32_t rs = 0;
                    for (int32_t ky = 0; ky < c->KH; ky++) {
                        ind[(size_t)ky * MR + m] = (const uint8_t *)ind[(size_t)ky * MR + m - 1] + step;
                        if (sums) {
                            pk[ky] += (size_t)c->sw;
                            for (int32_t kx = 0; kx < c->KW; kx++) rs += (uint32_t)sums[pk[ky] + (size_t)kx];
                        }
                    }
                    if (sums) rowc[m] = (int32_t)((uint32_t)-c->zws * rs);
                    if (++ox == c->OW) { ox = 0; if (++oy == c->OH) { oy = 0; bi++; } }
                    continue;
                }
                const size_t img = (size_t)bi * (size_t)c->H * (size_t)c->W;
                uint32_t rs = 0;
                for (int32_t ky = 0; ky < c->KH; ky++) {
                    const int32_t iy = oy * c->sh - c->pt + ky * c->dh;
                    if (runs) {
                        const int32_t ix0 = ox * c->sw - c->pl;
                        const size_t pix = img + (size_t)iy * (size_t)c->W + (size_t)ix0;
                        ind[(size_t)ky * MR + m] = A + pix * rowb;
                        if (sums) pk[ky] = pix;
                        for (int32_t kx = 0; sums && kx < c->KW; kx++) rs += (uint32_t)sums[pix + (size_t)kx];
                        continue;
                    }
                    for (int32_t kx = 0; kx < c->KW; kx++) {
                        const int32_t ix = ox * c->sw - c->pl + kx * c->dw;
                        const bool in = iy >= 0 && iy < c->H && ix >= 0 && ix < c->W;
                        const size_t pix = img + (size_t)iy * (size_t)c->W + (size_t)ix;
                        ind[(size_t)(ky * c->KW + kx) * MR + m] = in ? (const void *)(A + pix * rowb) : c->pad;
                        if (sums) rs += in ? (uint32_t)sums[pix] : (uint32_t)c->padsum;
                    }
                }
                if (sums) rowc[m] = (int32_t)((uint32_t)-c->zws * rs);
                if (m < mr && ++ox == c->OW) { ox = 0; if (++oy == c->OH) { oy = 0; bi++; } }
            }
            tb = bi; toy = oy; tox = ox;                /* the next tile's first pixel */
        }
    kernels:
        u.T = Tt; u.KG = KGt;
        u.mr = (int32_t)mr;
        for (int32_t p = 0; p < c->P;) {
            const int32_t np = c->P - p < ks->NPMAX ? c->P - p : ks->NPMAX;
            const int32_t left = c->OC - p * PW;
            u.nc = left < np * PW ? left : np * PW;
            u.w = (const uint8_t *)c->w + (size_t)p * (size_t)c->pstride;
            u.rq = c->rq;
            const size_t off = (size_t)p * (size_t)PW;
            u.rq.bias += off; u.rq.mult += off; u.rq.lsh += off; u.rq.rsh += off; u.rq.fscale += off;
            u.y = y + (size_t)p0 * (size_t)c->OC + off;
            (mr == 1 ? ks->row1[np - 1] : ks->full[np - 1])(&u);
            p += np;
        }
    }
}
