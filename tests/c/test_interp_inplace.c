/* test_interp_inplace.c — the planner's in-place SOFTMAX / LOG_SOFTMAX (interp.c
 * plan_aliases): t = x * x; y = SOFTMAX(t) writes over t's block when nothing reads t
 * afterwards, and gets its own block when something does (z = y + t reads t after the
 * softmax). Both must give the plain loop's values (softmax of each row of t, in double
 * here), at fp32, fp16 and fp64, at 1 and 2 threads. The node callback sees where each
 * op's output lives (fp64: with fp64_views, the FLOAT64 tensors themselves). */
#include "test.h"
#include "interp/interp.h"
#include "model/model.h"

#include <stdint.h>
#include <string.h>

enum { ROWS = 6, LEN = 40 };

/* x [ROWS][LEN] -> MUL(x, x) = t -> (LOG_)SOFTMAX(t) = y [-> ADD(y, t) = z] */
static gc_model *build(int32_t code, bool reread) {
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    const int32_t shp[2] = { ROWS, LEN };
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, shp, 0);
    int32_t t = gc_sg_add_tensor(m, sg, "t", GC_T_FLOAT32, 2, shp, 0);
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 2, shp, 0);
    int32_t z = gc_sg_add_tensor(m, sg, "z", GC_T_FLOAT32, 2, shp, 0);
    int32_t mul = gc_model_add_opcode(m, GC_OP_MUL, NULL, 1);
    int32_t sm = gc_model_add_opcode(m, code, NULL, 1);
    int32_t add = gc_model_add_opcode(m, GC_OP_ADD, NULL, 1);
    const int32_t in_mul[2] = { x, x }, in_add[2] = { y, t };
    gc_sg_insert_op(m, sg, 0, mul, 2, in_mul, 1, &t);
    gc_sg_insert_op(m, sg, 1, sm, 1, &t, 1, &y);
    if (code == GC_OP_SOFTMAX) {
        gc_opt_init(m, &m->subgraphs[sg].ops[1].opt, GC_BO_SoftmaxOptions);
        gc_opt_set_float(m, &m->subgraphs[sg].ops[1].opt, GC_O_SoftmaxOptions_beta, 1.0);
    }
    if (reread) {
        gc_sg_insert_op(m, sg, 2, add, 2, in_add, 1, &z);
        gc_opt_init(m, &m->subgraphs[sg].ops[2].opt, GC_BO_AddOptions);
    }
    gc_sg_set_io(m, sg, 1, &x, 1, reread ? &z : &y);
    return m;
}

typedef struct { void *out[3]; } where;

static int on_node(int32_t op, const gc_tview *outs, int n_outs, void *user) {
    where *w = user;
    if (op >= 0 && op < 3 && n_outs > 0) w->out[op] = outs[0].data;
    return 0;
}

static void one(int32_t code, bool reread, gc_precision prec, int threads) {
    float xin[ROWS * LEN];
    for (int i = 0; i < ROWS * LEN; i++) xin[i] = 0.5f * sinf(0.37f * (float)i) * (float)(1 + i % 5);
    gc_model *m = build(code, reread);
    where w = { { NULL, NULL, NULL } };
    char err[512];
    gc_interp_opts o = { .signature = -1, .precision = prec, .threads = threads, .on_node = on_node, .user = &w,
                        .fp64_views = prec == GC_PREC_FP64 };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    CHECK_MSG(it != NULL, "%s", err);
    if (!it) { gc_model_free(m); return; }
    bool ok = gc_interp_prepare(it) == GC_OK;
    CHECK_MSG(ok, "prepare: %s", gc_interp_errmsg(it));
    if (ok) {
        gc_tview in = gc_interp_input(it, 0);
        memcpy(in.data, xin, sizeof xin);
        ok = gc_interp_invoke(it) == GC_OK;
        CHECK_MSG(ok, "invoke: %s", gc_interp_errmsg(it));
    }
    if (ok) {
        /* in place exactly when nothing reads t after the softmax */
        CHECK_MSG((w.out[1] == w.out[0]) == !reread, "op %d reread %d prec %d: softmax output %s its input",
                  (int)code, (int)reread, (int)prec, w.out[1] == w.out[0] ? "shares" : "does not share");
        gc_tview v = gc_interp_output(it, 0);
        const double tol = prec == GC_PREC_FP32 || prec == GC_PREC_FP64 ? 1e-6 : 4e-3;
        for (int r = 0; r < ROWS; r++) {
            double t[LEN], mx = -1e300, s = 0;
            for (int i = 0; i < LEN; i++) {
                float xv = xin[r * LEN + i];
                t[i] = (double)(xv * xv);
                if (t[i] > mx) mx = t[i];
            }
            for (int i = 0; i < LEN; i++) s += exp(t[i] - mx);
            for (int i = 0; i < LEN; i++) {
                const double sm = code == GC_OP_SOFTMAX ? exp(t[i] - mx) / s : t[i] - mx - log(s);
                const double want = reread ? sm + t[i] : sm;
                double got = prec == GC_PREC_FP64 && v.dtype == GC_T_FLOAT64 ? ((const double *)v.data)[r * LEN + i]
                                                                             : (double)((const float *)v.data)[r * LEN + i];
                const double tl = tol * (1 + fabs(sm) + (reread ? fabs(t[i]) : 0));   /* the terms' size */
                CHECK_MSG(fabs(got - want) <= tl, "op %d reread %d prec %d threads %d [%d][%d]: %.9g vs %.9g",
                          (int)code, (int)reread, (int)prec, threads, r, i, got, want);
            }
        }
    }
    gc_interp_free(it);
    gc_model_free(m);
}

GC_TEST(interp_softmax_in_place_when_input_dead) {
    const gc_precision precs[] = { GC_PREC_FP32, GC_PREC_FP16, GC_PREC_FP64 };
    for (int c = 0; c < 2; c++)
        for (int rr = 0; rr < 2; rr++)
            for (int p = 0; p < 3; p++)
                for (int th = 1; th <= 2; th++)
                    one(c ? GC_OP_LOG_SOFTMAX : GC_OP_SOFTMAX, rr == 1, precs[p], th);
}
