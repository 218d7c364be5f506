/* sweep_elementwise.c — binary elementwise ops over every broadcast pair of ranks 1-4
 * (sweep.h; LiteRT#10445, #9272, #8619).
 *
 * For ranks (ra, rb) the operands are the trailing dims of F = [2,3,4,5]: a = F[4-ra:],
 * b = F[4-rb:], and when ra == rb, b's first dim is 1 (so every pair broadcasts); e.g.
 * (3,4): [3,4,5] op [2,3,4,5] -> [2,3,4,5], a rank-3 tensor against a rank-4 one whose
 * leading dim is > 1. The second operand is a runtime input ("rt") or a constant
 * ("const"; DIV and MAXIMUM: only where the ranks differ). DIV's runtime divisor gets values in [0.75, 1.25] (input file), the
 * sweep's constant fill keeps |divisor| >= 1/251.
 * Extras: the Swin-T case ADD([24,49,49], const[1,24,49,49]) (230 KB of constant: the
 * one model over 100 KB; its fill compresses to a few KB), smaller and batch>1 variants,
 * both operands broadcasting, a constant first operand, a rank-0 scalar, and equal ranks
 * 1-3 against a constant whose dim 0 is > 1 ("eq_*").
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct { int32_t code; const char *name, *lower; } ew_op;
static const ew_op OPS[] = {
    { GC_OP_ADD, "ADD", "add" }, { GC_OP_SUB, "SUB", "sub" }, { GC_OP_MUL, "MUL", "mul" },
    { GC_OP_DIV, "DIV", "div" }, { GC_OP_MAXIMUM, "MAXIMUM", "maximum" },
};

static int bcast(int ra, const int32_t *a, int rb, const int32_t *b, int32_t *o) {
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int ai = i - (r - ra), bi = i - (r - rb);
        int x = ai >= 0 ? a[ai] : 1, y = bi >= 0 ? b[bi] : 1;
        o[i] = x > y ? x : y;
    }
    return r;
}

static void shape_str(char *buf, size_t n, int r, const int32_t *s) {
    size_t k = 0;
    buf[0] = 0;
    if (!r) { snprintf(buf, n, "scalar"); return; }
    for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "x" : "", s[i]);
}

/* a (runtime, or constant when a_const) op b (runtime or constant) */
static void binary(sw_ctx *x, const ew_op *o, int ra, const int32_t *a, int rb, const int32_t *b, bool a_const, bool b_const,
                   const char *tag) {
    int32_t os[8];
    int orank = bcast(ra, a, rb, b, os);
    sw_case c;
    sw_begin(&c);
    int32_t ta = a_const ? sw_const_f32(&c, "a", ra, a) : sw_t(&c, "a", SW_F32, ra, a);
    int32_t tb = b_const ? sw_const_f32(&c, "b", rb, b) : sw_t(&c, "b", SW_F32, rb, b);
    int32_t y = sw_t(&c, "y", SW_F32, orank, os);
    sw_op(&c, o->code, 1, SW_L(ta, tb), SW_L(y));
    if (o->code == GC_OP_DIV && !b_const) {   /* a divisor away from 0: [0.75, 1.25] */
        uint64_t n = 1;
        for (int i = 0; i < rb; i++) n *= (uint64_t)b[i];
        float v[256];
        if (n > 256) n = 256;   /* (every runtime divisor here is small) */
        for (uint64_t i = 0; i < n; i++) v[i] = (float)(0.75 + 0.5 * (0.5 + 0.5 * sin(0.37 * (double)i + 1)));
        sw_in_f32(&c, a_const ? 0 : 1, v, n);
    }
    char sa[64], sb[64], what[256];
    shape_str(sa, sizeof sa, ra, a);
    shape_str(sb, sizeof sb, rb, b);
    sw_attr_i(&c, "rank_a", ra);
    sw_attr_i(&c, "rank_b", rb);
    sw_attr_s(&c, "shape_a", sa);
    sw_attr_s(&c, "shape_b", sb);
    sw_attr_b(&c, "a_const", a_const);
    sw_attr_b(&c, "b_const", b_const);
    snprintf(what, sizeof what, "%s %s[%s] %s[%s]: broadcast rank %d vs %d", o->name, a_const ? "const" : "runtime", sa,
             b_const ? "const" : "runtime", sb, ra, rb);
    sw_emit(x, &c, "elementwise", o->name, what, "ew_%s_%s", o->lower, tag);
}

void sw_family_elementwise(sw_ctx *x) {
    static const int32_t F[4] = { 2, 3, 4, 5 };
    char tag[96];
    for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; k++) {
        const ew_op *o = &OPS[k];
        for (int ra = 1; ra <= 4; ra++)
            for (int rb = 1; rb <= 4; rb++) {
                int32_t a[4], b[4];
                memcpy(a, F + 4 - ra, sizeof(int32_t) * (size_t)ra);
                memcpy(b, F + 4 - rb, sizeof(int32_t) * (size_t)rb);
                if (ra == rb) b[0] = 1;
                for (int bc = 0; bc <= 1; bc++) {
                    /* DIV, MAXIMUM: a constant operand only where the ranks differ */
                    if (bc && ra == rb && (o->code == GC_OP_DIV || o->code == GC_OP_MAXIMUM)) continue;
                    snprintf(tag, sizeof tag, "r%d_r%d_%s", ra, rb, bc ? "const" : "rt");
                    binary(x, o, ra, a, rb, b, false, bc, tag);
                }
            }
        if (o->code == GC_OP_ADD || o->code == GC_OP_MUL) {   /* no broadcast at all: the baseline */
            binary(x, o, 4, F, 4, F, false, false, "same_rt");
            if (o->code == GC_OP_ADD) binary(x, o, 4, F, 4, F, false, true, "same_const");
        }
    }
    const ew_op *add = &OPS[0], *sub = &OPS[1], *mul = &OPS[2];
    /* Swin-T's relative position bias: ADD([24,49,49], const[1,24,49,49]) */
    binary(x, add, 3, (const int32_t[]){ 24, 49, 49 }, 4, (const int32_t[]){ 1, 24, 49, 49 }, false, true, "swin_24x49x49_const");
    for (int bc = 0; bc <= 1; bc++) {
        const char *s = bc ? "const" : "rt";
        for (int k = 0; k < 2; k++) {
            const ew_op *o = k ? mul : add;
            snprintf(tag, sizeof tag, "swin_4x7x7_1x4x7x7_%s", s);
            binary(x, o, 3, (const int32_t[]){ 4, 7, 7 }, 4, (const int32_t[]){ 1, 4, 7, 7 }, false, bc, tag);
            snprintf(tag, sizeof tag, "swin_4x7x7_2x4x7x7_%s", s);
            binary(x, o, 3, (const int32_t[]){ 4, 7, 7 }, 4, (const int32_t[]){ 2, 4, 7, 7 }, false, bc, tag);
            if (o == mul) continue;   /* MUL: the Swin shapes only */
            snprintf(tag, sizeof tag, "both_2x1x4x1_1x3x1x5_%s", s);
            binary(x, o, 4, (const int32_t[]){ 2, 1, 4, 1 }, 4, (const int32_t[]){ 1, 3, 1, 5 }, false, bc, tag);
            snprintf(tag, sizeof tag, "r4_scalar_%s", s);
            binary(x, o, 4, F, 0, NULL, false, bc, tag);
        }
    }
    /* a constant first operand (order matters for SUB) */
    for (int k = 0; k < 2; k++) {
        const ew_op *o = k ? sub : add;
        binary(x, o, 3, F + 1, 4, F, true, false, "const_r3_rt_r4");
        binary(x, o, 1, F + 3, 4, F, true, false, "const_r1_rt_r4");
        binary(x, o, 4, F, 2, F + 2, true, false, "const_r4_rt_r2");
    }
    /* Equal ranks, a runtime operand against a constant whose dim 0 is > 1: DENSIFY -> ADD
     * after densify_const, ADD([4,16], const [4,16]), was wrong on the H200, while a
     * constant [1,5] against a runtime [4,5] (r2_r2_const) was right. The same shapes, a
     * runtime operand that broadcasts ("rtb"), ranks 1-3, a constant first operand. */
    for (int k = 0; k < 2; k++) {
        const ew_op *o = k ? mul : add;
        binary(x, o, 2, F + 2, 2, F + 2, false, true, "eq_r2_same_const");
        binary(x, o, 2, (const int32_t[]){ 1, 5 }, 2, F + 2, false, true, "eq_r2_rtb_const");
    }
    binary(x, add, 2, (const int32_t[]){ 4, 16 }, 2, (const int32_t[]){ 4, 16 }, false, true, "eq_r2_same16_const");
    binary(x, add, 3, F + 1, 3, F + 1, false, true, "eq_r3_same_const");
    binary(x, add, 3, (const int32_t[]){ 1, 4, 5 }, 3, F + 1, false, true, "eq_r3_rtb_const");
    binary(x, add, 1, F + 3, 1, F + 3, false, true, "eq_r1_same_const");
    binary(x, sub, 2, F + 2, 2, F + 2, true, false, "eq_r2_cfirst_const");
}
