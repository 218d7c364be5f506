/* sweep_split.c — SPLIT / SPLIT_V / UNPACK and where their outputs go (sweep.h).
 *
 * LiteRT's GPU accelerator accepts these ops in its op filter and then, in some graphs,
 * fails to build its kernels ("Output id not found") so the whole model falls back to
 * the CPU; the cases vary what could decide it:
 *   op      SPLIT (inputs: axis scalar, x), SPLIT_V (x, size_splits, axis), UNPACK (x)
 *   axis    1 or 3 (the last); n outputs 2 or 3 (SPLIT_V: unequal sizes)
 *   usage   outputs   every output is a graph output
 *           consumed  each output i -> ADD(out_i, c_i) -> graph output
 *           combined  CONCATENATION of the outputs in reverse order -> one graph output
 *           mixed     output 0 is a graph output, the others are consumed
 *           both      output 0 is a graph output AND consumed (LiteRT#8599), the others consumed
 *           unused    the last output is neither consumed nor a graph output
 *   source  x is the graph input, or computed on the GPU (x0 + const)
 * x is [1,6,4,12] for SPLIT/SPLIT_V; UNPACK along axis 1 takes [1,n,4,12] -> n x [1,4,12],
 * along axis 3 [1,6,4,n] -> n x [1,6,4].
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

typedef enum { U_OUTPUTS, U_CONSUMED, U_COMBINED, U_MIXED, U_BOTH, U_UNUSED, U_N } usage;
static const char *const USAGE[U_N] = { "outputs", "consumed", "combined", "mixed", "both", "unused" };
static const char *const USAGE_WHAT[U_N] = {
    "every output is a graph output", "each output consumed by an ADD", "outputs concatenated back (reversed)",
    "output 0 a graph output, the others consumed", "output 0 both a graph output and consumed, the others consumed",
    "the last output unused (neither consumed nor a graph output)",
};

typedef enum { K_SPLIT, K_SPLIT_V, K_UNPACK } kind;

static void split_case(sw_ctx *x, kind k, int axis, int n, usage u, bool computed) {
    int32_t xs[4];
    if (k == K_UNPACK) {
        if (axis == 1) { xs[0] = 1; xs[1] = n; xs[2] = 4; xs[3] = 12; }
        else { xs[0] = 1; xs[1] = 6; xs[2] = 4; xs[3] = n; }
    } else { xs[0] = 1; xs[1] = 6; xs[2] = 4; xs[3] = 12; }
    /* output shapes */
    int32_t os[3][4], orank = k == K_UNPACK ? 3 : 4;
    int32_t sizes[3];
    for (int i = 0; i < n; i++) {
        if (k == K_SPLIT_V) sizes[i] = (i + 1) * xs[axis] / (n == 2 ? 3 : 6);   /* n=2: 1/3, 2/3; n=3: 1/6, 2/6, 3/6 */
        else sizes[i] = xs[axis] / n;
        if (k == K_UNPACK) {
            int o = 0;
            for (int d = 0; d < 4; d++) if (d != axis) os[i][o++] = xs[d];
        } else {
            memcpy(os[i], xs, sizeof xs);
            os[i][axis] = sizes[i];
        }
    }
    sw_case c;
    sw_begin(&c);
    int32_t src = sw_t(&c, "x", SW_F32, 4, xs);
    if (computed) {
        int32_t k0 = sw_const_f32(&c, "x_bias", 0, NULL), xx = sw_t(&c, "x_plus", SW_F32, 4, xs);
        sw_op(&c, GC_OP_ADD, 1, SW_L(src, k0), SW_L(xx));
        src = xx;
    }
    int32_t outs[3];
    for (int i = 0; i < n; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "part%d", i);
        outs[i] = sw_t(&c, nm, SW_F32, orank, os[i]);
    }
    const char *op = "SPLIT", *lower = "split";
    if (k == K_SPLIT) {
        int32_t ax = sw_const_i32(&c, "axis", 0, NULL, (const int32_t[]){ axis });
        int32_t o = sw_op(&c, GC_OP_SPLIT, 1, SW_L(ax, src), n, outs);
        sw_opt(&c, o, GC_O_SplitOptions_num_splits, n);
    } else if (k == K_SPLIT_V) {
        int32_t sz = sw_const_i32(&c, "size_splits", SW_L(n), sizes);
        int32_t ax = sw_const_i32(&c, "axis", 0, NULL, (const int32_t[]){ axis });
        int32_t o = sw_op(&c, GC_OP_SPLIT_V, 1, SW_L(src, sz, ax), n, outs);
        sw_opt(&c, o, GC_O_SplitVOptions_num_splits, n);
        op = "SPLIT_V"; lower = "split_v";
    } else {
        int32_t o = sw_op(&c, GC_OP_UNPACK, 1, SW_L(src), n, outs);
        sw_opt(&c, o, GC_O_UnpackOptions_num, n);
        sw_opt(&c, o, GC_O_UnpackOptions_axis, axis);
        op = "UNPACK"; lower = "unpack";
    }
    int32_t g[SW_MAX_OUTPUTS];
    int ng = 0;
    if (u == U_COMBINED) {
        int32_t cs[4], rev[3];
        int cax = k == K_UNPACK ? 2 : axis;
        memcpy(cs, os[0], sizeof cs);
        cs[cax] = 0;
        for (int i = 0; i < n; i++) { cs[cax] += os[i][cax]; rev[i] = outs[n - 1 - i]; }
        int32_t y = sw_t(&c, "y", SW_F32, orank, cs);
        int32_t o = sw_op(&c, GC_OP_CONCATENATION, 1, n, rev, SW_L(y));
        sw_opt(&c, o, GC_O_ConcatenationOptions_axis, cax);
        g[ng++] = y;
    } else {
        for (int i = 0; i < n; i++) {
            bool out = u == U_OUTPUTS || ((u == U_MIXED || u == U_BOTH) && i == 0);
            bool consumed = u == U_CONSUMED || (u == U_MIXED && i > 0) || u == U_BOTH || (u == U_UNUSED && i < n - 1);
            if (out) g[ng++] = outs[i];
            if (consumed) {
                char nm[16];
                snprintf(nm, sizeof nm, "y%d", i);
                int32_t ci = sw_const_f32(&c, "c", 0, NULL), y = sw_t(&c, nm, SW_F32, orank, os[i]);
                sw_op(&c, GC_OP_ADD, 1, SW_L(outs[i], ci), SW_L(y));
                g[ng++] = y;
            }
        }
    }
    sw_outputs(&c, ng, g);
    sw_attr_i(&c, "axis", axis);
    sw_attr_i(&c, "num", n);
    sw_attr_s(&c, "usage", USAGE[u]);
    sw_attr_s(&c, "source", computed ? "computed" : "input");
    char what[256];
    snprintf(what, sizeof what, "%s of %s [%d,%d,%d,%d] axis %d into %d: %s", op, computed ? "a computed tensor" : "the input",
             xs[0], xs[1], xs[2], xs[3], axis, n, USAGE_WHAT[u]);
    sw_emit(x, &c, "split", op, what, "%s_axis%d_n%d_%s%s", lower, axis, n, USAGE[u], computed ? "_computed" : "");
}

void sw_family_split(sw_ctx *x) {
    for (int k = K_SPLIT; k <= K_UNPACK; k++)
        for (int u = 0; u < U_N; u++)
            for (int axis = 3; axis >= 1; axis -= 2)
                for (int n = 2; n <= 3; n++) {
                    if (n == 3 && (u == U_COMBINED || u == U_MIXED || (u == U_UNUSED && axis == 1))) continue;
                    split_case(x, k, axis, n, u, false);
                }
    for (int k = K_SPLIT; k <= K_SPLIT_V; k++) {
        split_case(x, k, 3, 2, U_OUTPUTS, true);
        split_case(x, k, 3, 2, U_CONSUMED, true);
        split_case(x, k, 3, 2, U_BOTH, true);
    }
}
