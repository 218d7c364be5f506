/* test_fix_promises.c — what `fix` promises (issue 12, "Promises not kept"): a rewrite
 * is kept only when the checker's verdict strictly improves, the result never has more
 * CPU nodes or partitions than the original (the progress rounds are undone and re-run
 * strict when they end worse), a whole-model blocker makes refusal counts no gain; and
 * every fix id the checker can name is either a pass of `fix` or marked advice-only. */
#include "test_fix_lib.h"

/* four ADDs on x (the delegated partition), a custom op the GPU does not know, then a
 * rank-2 PAD the GPU refuses: pad_rank4 makes it RESHAPE + PAD + RESHAPE, three
 * supported nodes in a partition of their own behind the custom op, not delegated —
 * two CPU nodes would become four */
static gc_model *model_pad_apart(void) {
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 4, V(1, 8, 8, 4));
    float one = 1;
    int32_t c = C(&b, "one", GC_T_FLOAT32, 1, V(1), &one, sizeof one);
    int32_t cur = x;
    for (int k = 0; k < 4; k++) {
        char n[16];
        snprintf(n, sizeof n, "add%d", k);
        int32_t y = T(&b, n, GC_T_FLOAT32, 4, V(1, 8, 8, 4));
        OP(&b, GC_OP_ADD, 1, 2, V(cur, c), 1, V(y));
        cur = y;
    }
    int32_t u = T(&b, "opaque", GC_T_FLOAT32, 2, V(16, 16));
    gc_sg_insert_op(b.m, b.sg, -1, gc_model_add_opcode(b.m, GC_OP_CUSTOM, "GcTestOpaque", 1), 1, V(cur), 1, V(u));
    int32_t pads[4] = { 1, 1, 1, 1 };
    int32_t p = C(&b, "pads", GC_T_INT32, 2, V(2, 2), pads, sizeof pads);
    int32_t y2 = T(&b, "padded", GC_T_FLOAT32, 2, V(18, 18));
    OP(&b, GC_OP_PAD, 1, 2, V(u, p), 1, V(y2));
    IO(&b, 1, V(x), 1, V(y2));
    return b.m;
}

GC_TEST(fix_never_more_cpu_nodes) {
    gc_model *m = model_pad_apart();
    char err[256];
    gc_check_result *ck = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(ck && ck->gpu_nodes == 4 && ck->total_nodes == 6);
    gc_check_free(ck);
    run r;
    fix_run(m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "pad_rank4"), 0);
    const char *why = decline_reason(r.r, "pad_rank4");
    CHECK_MSG(why && strstr(why, "4 node(s) would run on the CPU instead of 2"), "%s", why ? why : "(none)");
    CHECK(r.r && r.r->progress_rejected);
    CHECK(r.r && r.r->progress.total_nodes - r.r->progress.gpu_nodes == 4);
    CHECK(r.r && r.r->after.gpu_nodes == 4 && r.r->after.total_nodes == 6 && r.r->after.partitions == 1);
    CHECK_EQ_INT(count_ops(m, GC_OP_PAD), 1);
    CHECK_EQ_INT(m->subgraphs[0].n_ops, 6);
    /* the report says why */
    gc_str t = {0};
    gc_fix_text(r.r, m, "in.tflite", "out.tflite", &t);
    CHECK(t.s && strstr(t.s, "judged strictly: keeping every rewrite that removed a refusal gave 4/8 nodes"));
    CHECK(t.s && strstr(t.s, "GPU residency: 4/6 nodes -> 4/6 nodes in 1 partition(s)\n"));
    gc_str_free(&t);
    run_free(&r);
    /* forced, the rule holds too */
    gc_fix_opts o = gc_fix_opts_default();
    o.force = "pad_rank4";
    fix_run(m, &o, &r, false);
    CHECK_EQ_INT(sites(r.r, "pad_rank4"), 0);
    CHECK(r.r && r.r->after.total_nodes - r.r->after.gpu_nodes == 2);
    run_free(&r);
    gc_model_free(m);
}

GC_TEST(fix_progress_kept_when_the_result_is_better) {
    /* the same PAD feeding the ADD chain: its rewrite joins the delegated partition, so
     * the progress rounds stand (no strict re-run) and the model is GPU-clean */
    mb b = mb_new();
    int32_t x2 = T(&b, "x2", GC_T_FLOAT32, 4, V(1, 1, 4, 4));
    int32_t r2 = T(&b, "x2_2d", GC_T_FLOAT32, 2, V(4, 4));
    int32_t s = CI(&b, "s", NV(4, 4));
    int32_t k = OP(&b, GC_OP_RESHAPE, 1, 2, V(x2, s), 1, V(r2));
    gc_opt_set_vec(b.m, OPT(&b, k), GC_O_ReshapeOptions_new_shape, V(4, 4), 2);
    int32_t pads[4] = { 1, 1, 1, 1 };
    int32_t p = C(&b, "pads", GC_T_INT32, 2, V(2, 2), pads, sizeof pads);
    int32_t y2 = T(&b, "padded", GC_T_FLOAT32, 2, V(6, 6));
    OP(&b, GC_OP_PAD, 1, 2, V(r2, p), 1, V(y2));
    float one = 1;
    int32_t c = C(&b, "one", GC_T_FLOAT32, 1, V(1), &one, sizeof one);
    int32_t y = T(&b, "y", GC_T_FLOAT32, 2, V(6, 6));
    OP(&b, GC_OP_ADD, 1, 2, V(y2, c), 1, V(y));
    IO(&b, 1, V(x2), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "pad_rank4"), 1);
    if (sites(r.r, "pad_rank4") != 1) dump(r.r);
    CHECK(r.r && !r.r->progress_rejected && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_no_gain_under_a_model_blocker) {
    /* a RESHAPE to a run-time shape makes a dynamic-sized tensor: every node stays on
     * the CPU, so SQUEEZE -> RESHAPE (one refusal less, same nodes) is no gain */
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(1, 2, 8));
    int32_t sq = T(&b, "squeezed", GC_T_FLOAT32, 2, V(2, 8));
    int32_t k = OP(&b, GC_OP_SQUEEZE, 1, 1, V(x), 1, V(sq));
    gc_opt_set_vec(b.m, OPT(&b, k), GC_O_SqueezeOptions_squeeze_dims, V(0), 1);
    int32_t shp = T(&b, "shape", GC_T_INT32, 1, V(2));
    int32_t d = T(&b, "dyn", GC_T_FLOAT32, 2, V(4, 4));
    OP(&b, GC_OP_RESHAPE, 1, 2, V(sq, shp), 1, V(d));
    IO(&b, 2, V(x, shp), 2, V(sq, d));
    char err[256];
    gc_check_result *ck = gc_check(b.m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(ck && ck->model_error && ck->gpu_nodes == 0);
    int32_t ref = 0;
    for (int32_t i = 0; ck && i < ck->n_nodes; i++) ref += ck->nodes[i].state == GC_NODE_REJECTED;
    gc_check_free(ck);
    run r;
    fix_run(b.m, NULL, &r, false);
    CHECK_EQ_INT(r.r ? r.r->n_changes : -1, 0);
    if (ref > 0) {
        const char *why = decline_reason(r.r, "squeeze_to_reshape");
        CHECK_MSG(why && strstr(why, "no gain (every node stays on the CPU"), "%s", why ? why : "(none)");
    }
    CHECK_EQ_INT(count_ops(b.m, GC_OP_SQUEEZE), 1);
    run_free(&r);
    gc_model_free(b.m);
}

/* ---- the fix ids the checker names ------------------------------------------------------ */

#include "check/check_int.h"

#include <dirent.h>

static const char *ADVICE_LEAD = "no .tflite fix yet (PyTorch rewrite: ";

/* the checker's fix for (op, rule) as gc_check asks for it (the BROADCAST_TO pair
 * depends on whether input 0 is constant) */
static gc_fix fix_asked(int32_t code, const char *rule, bool const_input) {
    gc_subgraph sg;
    memset(&sg, 0, sizeof sg);
    sg.n_tensors = 1;
    uint8_t tf[1] = { (uint8_t)(const_input ? GC_TF_CONST : 0) };
    int32_t in[1] = { 0 };
    gc_rctx c;
    memset(&c, 0, sizeof c);
    c.sg = &sg; c.code = code; c.n_in = 1; c.in = in; c.tf = tf;
    return gc_fix_for(&c, rule);
}

static bool id_listed(const char *id, bool *advice) {
    bool a = false;
    for (int i = 0; gc_fix_id_at(i, &a); i++)
        if (!strcmp(gc_fix_id_at(i, &a), id)) { if (advice) *advice = a; return true; }
    return false;
}

/* one fix the checker can name: listed, and either a pass or advice worded as such */
static void check_fix(const gc_fix *f, const char *where) {
    if (!f->id || !f->id[0]) return;
    bool advice = false;
    CHECK_MSG(id_listed(f->id, &advice), "%s: %s is not in gc_fix_id_at", where, f->id);
    const gc_fix_pass *p = gc_fix_pass_find(f->id);
    if (advice) {
        CHECK_MSG(!p, "%s: %s is marked advice only but pass %s implements it", where, f->id, p ? p->id : "");
        CHECK_MSG(f->tflite && !strncmp(f->tflite, ADVICE_LEAD, strlen(ADVICE_LEAD)), "%s: %s: '%s'", where, f->id,
                  f->tflite ? f->tflite : "");
    } else {
        CHECK_MSG(p && !strcmp(p->fix_id, f->id), "%s: the checker names %s, which no fix pass implements", where,
                  f->id);
        CHECK_MSG(f->tflite && strncmp(f->tflite, ADVICE_LEAD, strlen(ADVICE_LEAD)) && strncmp(f->tflite, "none", 4),
                  "%s: %s has a pass but reads '%s'", where, f->id, f->tflite ? f->tflite : "");
    }
}

GC_TEST(fix_every_checker_fix_id_is_a_pass_or_advice) {
    int n = 0, advice = 0;
    bool a;
    for (const char *id; (id = gc_fix_id_at(n, &a)); n++) {
        advice += a;
        const gc_fix_pass *p = gc_fix_pass_find(id);
        CHECK_MSG(a ? !p : p != NULL, "%s: %s", id, a ? "advice only, yet a pass implements it" : "no pass");
        CHECK(gc_fix_id_advice(id) == a);
    }
    CHECK(n >= 25 && advice >= 8 && n - advice >= 17);
    /* every (rule, op) of the rule catalogue, as the checker asks */
    int asked = 0;
    for (int r = 0; r < gc_rule_catalog_n; r++) {
        const gc_rule_info *ri = &gc_rule_catalog[r];
        if (ri->kind != GC_RULE_REJECT) continue;
        int nops = ri->n_ops ? ri->n_ops : GC_OP_COUNT;
        for (int k = 0; k < nops; k++) {
            int32_t op = ri->n_ops ? ri->ops[k] : k;
            char rule[160];
            if (!strcmp(ri->id, "<op>.version")) {
                const char *name = gc_builtin_name(op);
                size_t i = 0;
                for (; name[i] && i + 9 < sizeof rule; i++)
                    rule[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
                snprintf(rule + i, sizeof rule - i, ".version");
            } else snprintf(rule, sizeof rule, "%s", ri->id);
            for (int cst = 0; cst < 2; cst++) {
                gc_fix f = fix_asked(op, rule, cst);
                char where[240];
                snprintf(where, sizeof where, "%s on %s", rule, gc_builtin_name(op));
                check_fix(&f, where);
                asked++;
            }
        }
    }
    CHECK(asked > 1000);
}

GC_TEST(fix_corpus_fix_ids_are_passes_or_advice) {
    /* what gpuclean check actually names on the corpus, both targets */
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus absent");
    DIR *d = opendir(dir);
    if (!d) SKIP("cannot open %s", dir);
    struct dirent *e;
    int named = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".tflite")) continue;
        char path[1200], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gc_model *m = gc_model_read_file(path, err, sizeof err);
        if (!m) continue;
        for (int t = 0; t < 2; t++) {
            gc_check_result *r = gc_check(m, t ? GC_TARGET_CLASSIC : GC_TARGET_MLDRIFT, err, sizeof err);
            for (int32_t i = 0; r && i < r->n_nodes; i++) {
                const gc_check_node *nd = &r->nodes[i];
                if (!nd->fix_id || !nd->fix_id[0]) continue;
                gc_fix f = { nd->fix_id, nd->fix_torch, nd->fix_tflite };
                char where[300];
                snprintf(where, sizeof where, "%s node %d", e->d_name, nd->index);
                check_fix(&f, where);
                named++;
            }
            gc_check_free(r);
        }
        gc_model_free(m);
    }
    closedir(d);
    CHECK(named > 0);
}

/* ---- the passes added for ids the checker named without a pass ---------------------------- */

GC_TEST(fix_strided_slice_lower_bool_mask) {
    /* mask[:, None, None, :] on a bool [1,32] mask as transformers writes it: a
     * STRIDED_SLICE with new_axis_mask (version 6), bool (3 in its plain form); every
     * stride 1, so SLICE version 1 + RESHAPE */
    mb b = mb_new();
    int32_t mask = T(&b, "mask", GC_T_INT32, 2, V(1, 32));
    int32_t mbool = T(&b, "mask_bool", GC_T_BOOL, 2, V(1, 32));
    OP(&b, GC_OP_CAST, 1, 1, V(mask), 1, V(mbool));
    int32_t bg = CI(&b, "begin", NV(0, 0, 0, 0)), en = CI(&b, "end", NV(0, 0, 0, 0)), st = CI(&b, "strides", NV(1, 1, 1, 1));
    int32_t m4 = T(&b, "mask4", GC_T_BOOL, 4, V(1, 1, 1, 32));
    int32_t k = OP(&b, GC_OP_STRIDED_SLICE, 6, 4, V(mbool, bg, en, st), 1, V(m4));
    gc_opt_set_int(b.m, OPT(&b, k), GC_O_StridedSliceOptions_begin_mask, 15);
    gc_opt_set_int(b.m, OPT(&b, k), GC_O_StridedSliceOptions_end_mask, 15);
    gc_opt_set_int(b.m, OPT(&b, k), GC_O_StridedSliceOptions_new_axis_mask, 6);
    int32_t x = T(&b, "scores", GC_T_FLOAT32, 4, V(1, 1, 1, 32));
    float zero = 0;
    int32_t z = C(&b, "zero", GC_T_FLOAT32, 1, V(1), &zero, sizeof zero);
    int32_t y = T(&b, "masked", GC_T_FLOAT32, 4, V(1, 1, 1, 32));
    OP(&b, GC_OP_SELECT_V2, 1, 3, V(m4, x, z), 1, V(y));
    IO(&b, 2, V(mask, x), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "strided_slice_lower"), 1);
    if (sites(r.r, "strided_slice_lower") != 1) dump(r.r);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_STRIDED_SLICE), 0);
    CHECK_EQ_INT(op_version(b.m, GC_OP_SLICE), 1);
    CHECK(strstr(detail_of(r.r, "strided_slice_lower"), "SLICE v1 begin [0,0] size [1,32] (was STRIDED_SLICE v6), "
                                                        "RESHAPE to [1,1,1,32]"));
    CHECK(r.r && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_strided_slice_lower_offset) {
    /* `offset` (version 8): end = begin + end; x[:, 2:2+4:2] of [1,10,3] float -> plain
     * STRIDED_SLICE version 1 */
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 3, V(1, 10, 3));
    int32_t bg = CI(&b, "begin", NV(0, 2, 0)), en = CI(&b, "end", NV(1, 4, 3)), st = CI(&b, "strides", NV(1, 2, 1));
    int32_t y = T(&b, "y", GC_T_FLOAT32, 3, V(1, 2, 3));
    int32_t k = OP(&b, GC_OP_STRIDED_SLICE, 8, 4, V(x, bg, en, st), 1, V(y));
    gc_opt_set_int(b.m, OPT(&b, k), GC_O_StridedSliceOptions_offset, 1);
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "strided_slice_canon") + sites(r.r, "strided_slice_lower"), 1);
    CHECK_EQ_INT(op_version(b.m, GC_OP_STRIDED_SLICE), 1);
    CHECK(r.r && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(b.m);
}

GC_TEST(fix_arg_min_to_arg_max) {
    /* ARG_MIN over the last axis of [2,5] with ties and -0/+0: ARG_MAX(NEG(x)) keeps the
     * first index, bit-exact on the interpreter */
    mb b = mb_new();
    int32_t x = T(&b, "x", GC_T_FLOAT32, 2, V(2, 5));
    int32_t ax = CI(&b, "axis", NV(1));
    int32_t y = T(&b, "idx", GC_T_INT32, 1, V(2));
    int32_t k = OP(&b, GC_OP_ARG_MIN, 1, 2, V(x, ax), 1, V(y));
    gc_opt_set_int(b.m, OPT(&b, k), GC_O_ArgMinOptions_output_type, GC_T_INT32);
    IO(&b, 1, V(x), 1, V(y));
    run r;
    fix_run(b.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "arg_min_to_max"), 1);
    if (sites(r.r, "arg_min_to_max") != 1) dump(r.r);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_ARG_MIN), 0);
    CHECK_EQ_INT(count_ops(b.m, GC_OP_NEG), 1);
    const gc_op *am = first_op(b.m, GC_OP_ARG_MAX);
    CHECK(am && gc_opt_int(&am->opt, GC_O_ArgMaxOptions_output_type) == GC_T_INT32);
    CHECK(r.r && r.r->after.gpu_clean);
    run_free(&r);
    gc_model_free(b.m);
    /* ties resolved the same way: run both on an input with repeated minima */
    mb c = mb_new();
    float v[10] = { 3, -1, 4, -1, 5,   0.0f, -0.0f, 2, -0.0f, 7 };
    int32_t xc = C(&c, "xc", GC_T_FLOAT32, 2, V(2, 5), v, sizeof v);
    int32_t in = T(&c, "in", GC_T_FLOAT32, 2, V(2, 5));
    int32_t sum = T(&c, "sum", GC_T_FLOAT32, 2, V(2, 5));
    OP(&c, GC_OP_ADD, 1, 2, V(in, xc), 1, V(sum));   /* a runtime tensor: not folded */
    int32_t a2 = CI(&c, "axis", NV(1));
    int32_t yc = T(&c, "idx", GC_T_INT32, 1, V(2));
    k = OP(&c, GC_OP_ARG_MIN, 1, 2, V(sum, a2), 1, V(yc));
    gc_opt_set_int(c.m, OPT(&c, k), GC_O_ArgMinOptions_output_type, GC_T_INT32);
    IO(&c, 1, V(in), 1, V(yc));
    fix_run(c.m, NULL, &r, true);
    CHECK_EQ_INT(sites(r.r, "arg_min_to_max"), 1);
    run_free(&r);
    gc_model_free(c.m);
    /* integers: declined */
    mb d = mb_new();
    int32_t xi = T(&d, "xi", GC_T_INT32, 2, V(2, 5));
    int32_t a3 = CI(&d, "axis", NV(1));
    int32_t yi = T(&d, "idx", GC_T_INT32, 1, V(2));
    OP(&d, GC_OP_ARG_MIN, 1, 2, V(xi, a3), 1, V(yi));
    IO(&d, 1, V(xi), 1, V(yi));
    fix_run(d.m, NULL, &r, false);
    CHECK_EQ_INT(sites(r.r, "arg_min_to_max"), 0);
    const char *why = decline_reason(r.r, "arg_min_to_max");
    CHECK_MSG(why && strstr(why, "negating an integer"), "%s", why ? why : "(none)");
    run_free(&r);
    gc_model_free(d.m);
}

GC_TEST(fix_identical_inputs_through_reshape) {
    /* MAXIMUM(x, x) and SUB(x, x) on one tensor: refused on both delegates */
    for (int t = 0; t < 2; t++) {
        mb b = mb_new();
        int32_t x = T(&b, "x", GC_T_FLOAT32, 4, V(1, 4, 4, 8));
        int32_t mx = T(&b, "mx", GC_T_FLOAT32, 4, V(1, 4, 4, 8));
        OP(&b, GC_OP_MAXIMUM, 1, 2, V(x, x), 1, V(mx));
        int32_t d = T(&b, "d", GC_T_FLOAT32, 4, V(1, 4, 4, 8));
        OP(&b, GC_OP_SUB, 1, 2, V(mx, mx), 1, V(d));
        int32_t y = T(&b, "y", GC_T_FLOAT32, 4, V(1, 4, 4, 8));
        OP(&b, GC_OP_ADD, 1, 2, V(d, x), 1, V(y));
        IO(&b, 1, V(x), 1, V(y));
        gc_fix_opts o = gc_fix_opts_default();
        o.target = t ? GC_TARGET_CLASSIC : GC_TARGET_MLDRIFT;
        run r;
        fix_run(b.m, &o, &r, true);
        if (t == 0) CHECK_EQ_INT(r.refused_before, 2);   /* classic: the first breaks delegate init */
        CHECK_EQ_INT(sites(r.r, "identical_inputs"), 2);
        if (sites(r.r, "identical_inputs") != 2) dump(r.r);
        CHECK_EQ_INT(count_ops(b.m, GC_OP_RESHAPE), 2);
        CHECK(r.r && r.r->after.gpu_clean);
        run_free(&r);
        gc_model_free(b.m);
    }
}
