/* sweep_reduce.c — reductions, SOFTMAX, CUMSUM and CAST (sweep.h).
 *
 * SUM / MEAN / REDUCE_MAX: x, axes int32 [n] constant, keep_dims; out keeps the reduced
 * dims as 1 (keep_dims) or drops them. Sizes near the fp16 limits: a SUM of 4096 values
 * around 8 (= 32768, half of fp16's 65504; input file) and of 65536 sin-pattern values
 * (mean 0.5 = 32768). SOFTMAX over the last axis of [1,N] / [1,2,3,N] for N in
 * 1, 7, 64, 1000, 4096 ([1,2,3,N] from 64 up), with logits up to 20 (exp(20) overflows fp16 unless the max is
 * subtracted first). CUMSUM: x, axis int32 scalar constant; exclusive/reverse all four.
 * CAST float32 -> int32 truncates toward zero (tflite); the inputs hold +-0.5 fractions,
 * negatives and values fp16 cannot hold (2049.5, 65519.5, 1e6+0.5, ...).
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void shape_str(char *buf, size_t n, int r, const int32_t *s) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "x" : "", s[i]);
}

static uint64_t numel(int r, const int32_t *s) {
    uint64_t n = 1;
    for (int i = 0; i < r; i++) n *= (uint64_t)s[i];
    return n;
}

/* ---- reductions ---------------------------------------------------------------------------- */

typedef struct { int32_t code; const char *name, *lower; } red_op;
static const red_op RED[] = { { GC_OP_SUM, "SUM", "sum" }, { GC_OP_MEAN, "MEAN", "mean" }, { GC_OP_REDUCE_MAX, "REDUCE_MAX", "reduce_max" } };

/* values: 0 = the device's sin pattern; > 0 = an input file of values around it */
static void reduce(sw_ctx *x, const red_op *o, int rank, const int32_t *s, int na, const int32_t *axes, bool keep, float around,
                   const char *tag) {
    bool red[8] = { 0 };
    for (int i = 0; i < na; i++) red[axes[i] < 0 ? axes[i] + rank : axes[i]] = true;
    int32_t os[8];
    int orank = 0;
    for (int i = 0; i < rank; i++) {
        if (!red[i]) os[orank++] = s[i];
        else if (keep) os[orank++] = 1;
    }
    uint64_t reduced = 1;
    for (int i = 0; i < rank; i++) if (red[i]) reduced *= (uint64_t)s[i];
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, rank, s);
    int32_t ax = sw_const_i32(&c, "axes", SW_L(na), axes);
    int32_t y = sw_t(&c, "y", SW_F32, orank, os);
    int32_t op = sw_op(&c, o->code, 1, SW_L(in, ax), SW_L(y));
    sw_opt(&c, op, GC_O_ReducerOptions_keep_dims, keep);
    if (around > 0) {
        uint64_t n = numel(rank, s);
        float *v = malloc(sizeof(float) * (size_t)n);
        if (!v) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
        for (uint64_t i = 0; i < n; i++) v[i] = (float)(around + 0.5 * sin(0.37 * (double)i));
        sw_in_f32(&c, 0, v, n);
        free(v);
    }
    char sh[64], ax_s[32] = "", what[256];
    size_t k = 0;
    for (int i = 0; i < na; i++) k += (size_t)snprintf(ax_s + k, sizeof ax_s - k, "%s%d", i ? "," : "", axes[i]);
    shape_str(sh, sizeof sh, rank, s);
    sw_attr_i(&c, "rank", rank);
    sw_attr_s(&c, "shape", sh);
    sw_attr_s(&c, "axes", ax_s);
    sw_attr_b(&c, "keep_dims", keep);
    sw_attr_i(&c, "reduced_size", (long long)reduced);
    sw_attr_s(&c, "values", around > 0 ? "around" : "sin");
    if (around > 0) sw_attr_i(&c, "values_around", (long long)around);
    snprintf(what, sizeof what, "%s of [%s] over axes (%s) keep_dims=%d: %llu values each%s", o->name, sh, ax_s, keep,
             (unsigned long long)reduced, around > 0 ? " (inputs around a constant)" : "");
    sw_emit(x, &c, "reduce", o->name, what, "%s_%s_axes%s_keep%d%s", o->lower, sh, tag, keep, around > 0 ? "_around" : "");
}

void sw_family_reduce(sw_ctx *x) {
    static const int32_t s4[] = { 1, 6, 8, 10 }, s3[] = { 4, 10, 12 };
    for (int k = 0; k < 3; k++) {
        const red_op *o = &RED[k];
        for (int keep = 0; keep <= 1; keep++) {
            reduce(x, o, 4, s4, SW_L(3), keep, 0, "3");
            reduce(x, o, 4, s4, SW_L(1, 2), keep, 0, "12");
            if (!keep) reduce(x, o, 4, s4, SW_L(1), keep, 0, "1");
            reduce(x, o, 4, s4, SW_L(1, 2, 3), keep, 0, "123");
            reduce(x, o, 3, s3, SW_L(2), keep, 0, "2");
        }
        if (o->code == GC_OP_SUM) reduce(x, o, 3, s3, SW_L(1), false, 0, "1");
        /* near the fp16 limits */
        reduce(x, o, 4, (const int32_t[]){ 1, 256, 256, 1 }, SW_L(1, 2), true, 0, "12");
    }
    const red_op *sum = &RED[0];
    reduce(x, sum, 4, s4, SW_L(-1), false, 0, "m1");
    reduce(x, sum, 4, s4, SW_L(2, 3), true, 0, "23");
    reduce(x, sum, 4, (const int32_t[]){ 1, 64, 64, 1 }, SW_L(1, 2), true, 8, "12");
    reduce(x, sum, 4, (const int32_t[]){ 1, 1, 1, 4096 }, SW_L(3), true, 8, "3");
    reduce(x, sum, 2, (const int32_t[]){ 2, 4096 }, SW_L(1), false, 8, "1");
    reduce(x, sum, 4, (const int32_t[]){ 1, 1, 1, 65536 }, SW_L(3), true, 0, "3");
    reduce(x, sum, 4, (const int32_t[]){ 1, 16, 64, 64 }, SW_L(1, 2, 3), false, 0, "123");
    reduce(x, &RED[1], 4, (const int32_t[]){ 1, 64, 64, 1 }, SW_L(1, 2), true, 8, "12");
}

/* ---- SOFTMAX --------------------------------------------------------------------------------- */

static void softmax(sw_ctx *x, int rank, const int32_t *s, double beta, float scale, const char *tag) {
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, rank, s), y = sw_t(&c, "y", SW_F32, rank, s);
    int32_t op = sw_op(&c, GC_OP_SOFTMAX, 1, SW_L(in), SW_L(y));
    sw_optf(&c, op, GC_O_SoftmaxOptions_beta, beta);
    if (scale > 0) {
        uint64_t n = numel(rank, s);
        float *v = malloc(sizeof(float) * (size_t)n);
        if (!v) { fprintf(stderr, "gpu-sweep: out of memory\n"); exit(1); }
        for (uint64_t i = 0; i < n; i++) v[i] = (float)(scale * (0.5 + 0.5 * sin(0.37 * (double)i)));
        sw_in_f32(&c, 0, v, n);
        free(v);
    }
    char sh[64], what[256];
    shape_str(sh, sizeof sh, rank, s);
    sw_attr_i(&c, "axis_size", s[rank - 1]);
    sw_attr_i(&c, "rank", rank);
    sw_attr_s(&c, "shape", sh);
    char bs[32];
    snprintf(bs, sizeof bs, "%g", beta);
    sw_attr_s(&c, "beta", bs);
    sw_attr_i(&c, "logit_max", scale > 0 ? (long long)scale : 1);
    snprintf(what, sizeof what, "SOFTMAX over the last axis of [%s] (size %d), beta %g, logits in [0,%g]", sh, s[rank - 1], beta,
             scale > 0 ? scale : 1.0);
    sw_emit(x, &c, "softmax", "SOFTMAX", what, "softmax_%s%s", sh, tag);
}

void sw_family_softmax(sw_ctx *x) {
    static const int sizes[] = { 1, 7, 64, 1000, 4096 };
    for (int i = 0; i < 5; i++) {
        softmax(x, 2, (const int32_t[]){ 1, sizes[i] }, 1.0, 0, "");
        if (sizes[i] >= 64) softmax(x, 4, (const int32_t[]){ 1, 2, 3, sizes[i] }, 1.0, 0, "");
    }
    softmax(x, 3, (const int32_t[]){ 2, 5, 64 }, 1.0, 0, "");
    for (int i = 2; i < 5; i++) softmax(x, 2, (const int32_t[]){ 1, sizes[i] }, 1.0, 20, "_logits20");
    softmax(x, 4, (const int32_t[]){ 1, 2, 3, 1000 }, 1.0, 20, "_logits20");
}

/* ---- CUMSUM ---------------------------------------------------------------------------------- */

static void cumsum(sw_ctx *x, int rank, const int32_t *s, int axis, bool excl, bool rev) {
    sw_case c;
    sw_begin(&c);
    int32_t in = sw_t(&c, "x", SW_F32, rank, s), y = sw_t(&c, "y", SW_F32, rank, s);
    int32_t ax = sw_const_i32(&c, "axis", 0, NULL, (const int32_t[]){ axis });
    int32_t op = sw_op(&c, GC_OP_CUMSUM, 1, SW_L(in, ax), SW_L(y));
    sw_opt(&c, op, GC_O_CumsumOptions_exclusive, excl);
    sw_opt(&c, op, GC_O_CumsumOptions_reverse, rev);
    char sh[64], what[256];
    shape_str(sh, sizeof sh, rank, s);
    sw_attr_i(&c, "rank", rank);
    sw_attr_s(&c, "shape", sh);
    sw_attr_i(&c, "axis", axis);
    sw_attr_b(&c, "exclusive", excl);
    sw_attr_b(&c, "reverse", rev);
    snprintf(what, sizeof what, "CUMSUM of [%s] along axis %d exclusive=%d reverse=%d", sh, axis, excl, rev);
    sw_emit(x, &c, "cumsum", "CUMSUM", what, "cumsum_%s_axis%s%d_ex%d_rev%d", sh, axis < 0 ? "m" : "", axis < 0 ? -axis : axis,
            excl, rev);
}

void sw_family_cumsum(sw_ctx *x) {
    static const int32_t s4[] = { 1, 3, 5, 8 }, s2[] = { 6, 10 }, s3[] = { 2, 6, 10 };
    for (int e = 0; e <= 1; e++)
        for (int r = 0; r <= 1; r++) {
            cumsum(x, 4, s4, 3, e, r);
            cumsum(x, 2, s2, 1, e, r);
        }
    for (int e = 0; e <= 1; e++) {
        cumsum(x, 4, s4, 1, e, 0);
        cumsum(x, 2, s2, -1, e, 0);
    }
    cumsum(x, 3, s3, 1, 0, 0);
    cumsum(x, 4, s4, 2, 0, 0);
    cumsum(x, 2, s2, 0, 0, 0);
    cumsum(x, 3, s3, 2, 0, 0);
    cumsum(x, 2, (const int32_t[]){ 1, 1000 }, 1, 0, 0);
    cumsum(x, 4, s4, -1, 0, 0);   /* a negative axis at rank 4 (axis -1 of [6,10] was wrong) */
}

/* ---- CAST ------------------------------------------------------------------------------------ */

/* +-0.5 fractions, negatives, values fp16 cannot hold, the int32 edge of float32 */
static const float F2I[32] = {
    -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -0.49f, 0.49f, -0.51f, 0.51f, -3.7f, 3.7f, -1000000.5f, 1000000.5f,
    123456.75f, -123456.75f, 2049.5f, 4095.5f, 8191.5f, 65519.5f, -65519.5f, 70000.25f, 16777215.0f, -16777215.0f,
    0.0f, -0.0f, 0.999f, -0.999f, 1.0001f, 7.5f, -7.5f, 12345.6f,
};
static const int32_t I2F[32] = {
    0, 1, -1, 2, -2, 7, -7, 100, -100, 2047, 2048, 2049, -2049, 4097, 12345, -12345, 65504, 65519, 65520, 70000,
    -70000, 100000, 1000000, -1000000, 16777216, 16777217, -16777217, 2147483647, -2147483647, 123456789, 3, -3,
};

typedef enum { CAST_F2I, CAST_F2I_BACK, CAST_F2I_COMPUTED, CAST_I2F, CAST_I2F_ADD } cast_kind;

static void cast(sw_ctx *x, cast_kind k, int rank, const int32_t *s, bool values, const char *tag) {
    sw_case c;
    sw_begin(&c);
    bool from_float = k <= CAST_F2I_COMPUTED;
    int32_t in = sw_t(&c, "x", from_float ? SW_F32 : SW_I32, rank, s), src = in;
    const char *what_k = "";
    if (k == CAST_F2I_COMPUTED) {   /* a float computed on the GPU feeds the CAST */
        const float q = 0.25f;
        int32_t cq = sw_const(&c, "quarter", SW_F32, 0, NULL, &q), a = sw_t(&c, "x_plus", SW_F32, rank, s);
        sw_op(&c, GC_OP_ADD, 1, SW_L(in, cq), SW_L(a));
        src = a;
    }
    int32_t p = sw_t(&c, "cast", from_float ? SW_I32 : SW_F32, rank, s);
    int32_t op = sw_op(&c, GC_OP_CAST, 1, SW_L(src), SW_L(p));
    gc_opt_set_int(c.b.m, &c.b.m->subgraphs[0].ops[op].opt, GC_O_CastOptions_in_data_type, from_float ? SW_F32 : SW_I32);
    gc_opt_set_int(c.b.m, &c.b.m->subgraphs[0].ops[op].opt, GC_O_CastOptions_out_data_type, from_float ? SW_I32 : SW_F32);
    if (k == CAST_F2I) what_k = "float32 -> int32 (int32 graph output)";
    if (k == CAST_F2I_BACK || k == CAST_F2I_COMPUTED) {
        int32_t y = sw_t(&c, "y", SW_F32, rank, s);
        int32_t op2 = sw_op(&c, GC_OP_CAST, 1, SW_L(p), SW_L(y));
        gc_opt_set_int(c.b.m, &c.b.m->subgraphs[0].ops[op2].opt, GC_O_CastOptions_in_data_type, SW_I32);
        gc_opt_set_int(c.b.m, &c.b.m->subgraphs[0].ops[op2].opt, GC_O_CastOptions_out_data_type, SW_F32);
        what_k = k == CAST_F2I_BACK ? "float32 -> int32 -> float32" : "(x + 0.25) -> int32 -> float32";
    }
    if (k == CAST_I2F) what_k = "int32 -> float32";
    if (k == CAST_I2F_ADD) {
        const float h = 0.5f;
        int32_t ch = sw_const(&c, "half", SW_F32, 0, NULL, &h), y = sw_t(&c, "y", SW_F32, rank, s);
        sw_op(&c, GC_OP_ADD, 1, SW_L(p, ch), SW_L(y));
        what_k = "int32 -> float32 -> + 0.5";
    }
    uint64_t n = numel(rank, s);
    if (values && n == 32) {
        if (from_float) sw_in_f32(&c, 0, F2I, 32);
        else sw_in_i32(&c, 0, I2F, 32);
    }
    char sh[64], what[256];
    shape_str(sh, sizeof sh, rank, s);
    sw_attr_s(&c, "from", from_float ? "FLOAT32" : "INT32");
    sw_attr_s(&c, "to", from_float ? "INT32" : "FLOAT32");
    sw_attr_s(&c, "pattern", tag);
    sw_attr_s(&c, "shape", sh);
    sw_attr_s(&c, "values", values ? "edge" : "sin");
    snprintf(what, sizeof what, "CAST %s on [%s], %s", what_k, sh,
             values ? (from_float ? "+-0.5 fractions, negatives, large values" : "negatives, values past 2048/65504/2^24")
                    : "the device's pattern");
    sw_emit(x, &c, "cast", "CAST", what, "cast_%s_%s_%s", tag, sh, values ? "edge" : "sin");
}

void sw_family_cast(sw_ctx *x) {
    static const int32_t s2[] = { 1, 32 }, s4[] = { 1, 2, 4, 4 }, s4b[] = { 1, 4, 4, 8 };
    cast(x, CAST_F2I, 2, s2, true, "f2i");
    cast(x, CAST_F2I, 4, s4, true, "f2i");
    cast(x, CAST_F2I_BACK, 2, s2, true, "f2i_back");
    cast(x, CAST_F2I_COMPUTED, 2, s2, true, "f2i_computed");
    cast(x, CAST_F2I_BACK, 4, s4b, false, "f2i_back");
    cast(x, CAST_I2F, 2, s2, true, "i2f");
    cast(x, CAST_I2F, 4, s4, true, "i2f");
    cast(x, CAST_I2F_ADD, 2, s2, true, "i2f_add");
    cast(x, CAST_I2F, 4, s4b, false, "i2f");
}
