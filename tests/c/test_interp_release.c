/* test_interp_release.c — weights the fast kernels copied at prepare give their memory
 * back (interp.c release_inputs): a FLOAT16 filter DEQUANTIZEd at prepare (the folded
 * fp32 copy is freed once the conv packed it; kept while a node callback may read it),
 * the half-rounded copy of a FLOAT32 filter in the fp16 modes, and constant weights in a
 * mapped model file (gc_model_drop_pages: the process's resident pages drop, the bytes
 * stay the same). Outputs never change.
 */
#include "test.h"
#include "interp/interp.h"
#include "interp/fp16.h"
#include "model/model.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

enum { OC = 64, KH = 3, KW = 3, IC = 48 };     /* 27648 weights: 108 KiB in fp32 */

/* x [1, 10, 10, IC] -> CONV_2D 3x3 SAME with filter = DEQUANTIZE(FLOAT16 const) or a
 * FLOAT32 const -> y [1, 10, 10, OC] */
static gc_model *model(bool f16) {
    static float w[OC * KH * KW * IC], b[OC];
    static uint16_t h[OC * KH * KW * IC];
    for (int i = 0; i < OC * KH * KW * IC; i++) { w[i] = sinf(0.37f * (float)i); h[i] = gc_f32_to_f16(w[i]); }
    for (int i = 0; i < OC; i++) b[i] = 0.01f * (float)i;
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t sx[] = {1, 10, 10, IC}, sw[] = {OC, KH, KW, IC}, sb[] = {OC}, sy[] = {1, 10, 10, OC};
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 4, sx, 0);
    int32_t tw;
    if (f16) {
        int32_t th = gc_sg_add_tensor(m, sg, "wh", GC_T_FLOAT16, 4, sw, (uint32_t)gc_model_add_buffer(m, h, sizeof h));
        tw = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 4, sw, 0);
        int32_t in[] = {th}, out[] = {tw};
        gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_DEQUANTIZE, NULL, 1), 1, in, 1, out);
    } else {
        tw = gc_sg_add_tensor(m, sg, "w", GC_T_FLOAT32, 4, sw, (uint32_t)gc_model_add_buffer(m, w, sizeof w));
    }
    int32_t tb = gc_sg_add_tensor(m, sg, "b", GC_T_FLOAT32, 1, sb, (uint32_t)gc_model_add_buffer(m, b, sizeof b));
    int32_t y = gc_sg_add_tensor(m, sg, "y", GC_T_FLOAT32, 4, sy, 0);
    int32_t in[] = {x, tw, tb}, out[] = {y};
    int32_t k = gc_sg_insert_op(m, sg, -1, gc_model_add_opcode(m, GC_OP_CONV_2D, NULL, 1), 3, in, 1, out);
    gc_options *o = &m->subgraphs[sg].ops[k].opt;
    gc_opt_set_int(m, o, GC_O_Conv2DOptions_stride_w, 1);
    gc_opt_set_int(m, o, GC_O_Conv2DOptions_stride_h, 1);
    gc_sg_set_io(m, sg, 1, &x, 1, &y);
    return m;
}

static int seen;
static int count_node(int32_t op, const gc_tview *outs, int n, void *user) {
    (void)op; (void)user;
    for (int i = 0; i < n; i++) seen += outs[i].data != NULL;
    return 0;
}

/* run; copy the output (10*10*OC floats) into y; persistent bytes into *pers */
static bool run_p(const gc_model *m, gc_precision prec, gc_f16_runtime rt, bool ref, bool callback, float *y,
                  size_t *pers) {
    char err[512];
    gc_interp_opts o = { .precision = prec, .gpu_runtime = rt, .signature = GC_SIG_AUTO, .reference_kernels = ref,
                         .on_node = callback ? count_node : NULL };
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    bool ok = it && gc_interp_prepare(it) == GC_OK;
    if (ok) {
        gc_tview v = gc_interp_input(it, 0);
        gc_fill_pattern_sin(&v, 0);
        ok = gc_interp_invoke(it) == GC_OK;
    }
    if (ok) {
        gc_tview v = gc_interp_output(it, 0);
        ok = v.nbytes == (size_t)10 * 10 * OC * sizeof(float);
        if (ok) memcpy(y, v.data, v.nbytes);
        gc_interp_stats st;
        gc_interp_stats_get(it, &st);
        *pers = st.persistent_bytes;
    }
    gc_interp_free(it);
    return ok;
}
static bool run(const gc_model *m, bool ref, bool callback, float *y, size_t *pers) {
    return run_p(m, GC_PREC_FP32, GC_GPU_NATIVE, ref, callback, y, pers);
}

/* fp16 modes: the half-rounded copy of a FLOAT32 filter is given back once the fast conv
 * packed it (the reference keeps it and its transposed copy); outputs unchanged, and with
 * a node callback too (constants are not node outputs). */
GC_TEST(interp_release_fp16_rounded_filter) {
    static float a[10 * 10 * OC], b[10 * 10 * OC], c[10 * 10 * OC];
    gc_model *m = model(false);
    const size_t filter = (size_t)OC * KH * KW * IC * sizeof(float);
    const struct { gc_precision p; gc_f16_runtime rt; const char *name; } modes[] = {
        { GC_PREC_FP16, GC_GPU_NATIVE, "fp16 native" }, { GC_PREC_FP16, GC_GPU_JS, "fp16 js" },
        { GC_PREC_FP16_ACC, GC_GPU_NATIVE, "fp16-acc" } };
    for (int i = 0; i < 3; i++) {
        size_t pref = 0, pfast = 0, pcb = 0;
        CHECK(run_p(m, modes[i].p, modes[i].rt, true, false, a, &pref));
        CHECK(run_p(m, modes[i].p, modes[i].rt, false, false, b, &pfast));
        CHECK(run_p(m, modes[i].p, modes[i].rt, false, true, c, &pcb));
        CHECK_MSG(!memcmp(a, b, sizeof a) && !memcmp(a, c, sizeof a), "%s: outputs differ", modes[i].name);
        CHECK_MSG(pfast + filter <= pref + 4096, "%s: fast %zu bytes, reference %zu: the rounded filter was kept",
                  modes[i].name, pfast, pref);
        CHECK_MSG(pcb <= pfast + 4096, "%s: callback run holds %zu bytes, fast %zu", modes[i].name, pcb, pfast);
    }
    gc_model_free(m);
}

GC_TEST(interp_release_folded_filter) {
    static float a[10 * 10 * OC], b[10 * 10 * OC], c[10 * 10 * OC];
    gc_model *m = model(true);
    size_t pref = 0, pfast = 0, pcb = 0;
    CHECK(run(m, true, false, a, &pref));
    CHECK(run(m, false, false, b, &pfast));
    seen = 0;
    CHECK(run(m, false, true, c, &pcb));
    CHECK_MSG(!memcmp(a, b, sizeof a) && !memcmp(a, c, sizeof a), "outputs differ");
    const size_t folded = (size_t)OC * KH * KW * IC * sizeof(float);
    /* reference: folded filter + its transposed copy; fast: the packed copy only */
    CHECK_MSG(pfast + folded <= pref + 4096, "fast %zu bytes, reference %zu: the folded filter was kept", pfast, pref);
    /* with a callback the DEQUANTIZE output stays readable */
    CHECK_MSG(pcb >= pfast + folded, "callback run holds %zu bytes, fast %zu", pcb, pfast);
    CHECK_MSG(seen == 2, "callback saw %d outputs with data", seen);
    gc_model_free(m);
}

/* Resident kB of the mapping that holds p (/proc/self/smaps: per mapping, unlike statm,
 * which other allocations move); -1 when unknown. */
static long mapping_rss_kb(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    bool in = false;
    long r = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char *dash = strchr(line, '-'), *sp = strchr(line, ' ');
        if (dash && sp && dash < sp && sscanf(line, "%lx-%lx", &a, &b) == 2) {
            in = (uintptr_t)p >= a && (uintptr_t)p < b;
            continue;
        }
        if (in && !strncmp(line, "Rss:", 4)) { r = atol(line + 4); break; }
    }
    fclose(f);
    return r;
}

GC_TEST(interp_release_mapped_weights) {
    static const char probe = 0;
    if (mapping_rss_kb(&probe) < 0) SKIP("no /proc/self/smaps");
    /* a filter of 4 MiB in a model file */
    enum { BOC = 256, BIC = 1024 };
    gc_model *src = gc_model_new();
    int32_t sg = gc_model_add_subgraph(src, "main");
    float *w = malloc((size_t)BOC * BIC * sizeof(float));
    for (size_t i = 0; i < (size_t)BOC * BIC; i++) w[i] = cosf(0.01f * (float)i);
    int32_t sx[] = {4, BIC}, sw[] = {BOC, BIC}, sy[] = {4, BOC};
    int32_t x = gc_sg_add_tensor(src, sg, "x", GC_T_FLOAT32, 2, sx, 0);
    int32_t tw = gc_sg_add_tensor(src, sg, "w", GC_T_FLOAT32, 2, sw,
                                  (uint32_t)gc_model_add_buffer(src, w, (size_t)BOC * BIC * sizeof(float)));
    int32_t y = gc_sg_add_tensor(src, sg, "y", GC_T_FLOAT32, 2, sy, 0);
    int32_t in[] = {x, tw}, out[] = {y};
    gc_sg_insert_op(src, sg, -1, gc_model_add_opcode(src, GC_OP_FULLY_CONNECTED, NULL, 1), 2, in, 1, out);
    gc_sg_set_io(src, sg, 1, &x, 1, &y);
    char path[] = "/tmp/gc_release_XXXXXX", err[512];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) { gc_model_free(src); free(w); return; }
    close(fd);
    CHECK(gc_model_write_file(src, path, NULL, err, sizeof err) == GC_OK);
    gc_model_free(src);
    gc_model *m = gc_model_read_file(path, err, sizeof err);
    CHECK(m != NULL);
    if (!m) { unlink(path); free(w); return; }
    const gc_tensor *t = &m->subgraphs[0].tensors[tw];
    const gc_buffer *buf = gc_tensor_buffer(m, t);
    CHECK(buf && buf->size == (size_t)BOC * BIC * sizeof(float) && !memcmp(buf->data, w, buf->size));
    /* the mapping is populated (and was just read); dropping gives the pages back */
    long before = mapping_rss_kb(buf->data);
    gc_model_drop_pages(m, buf->data, buf->size);
    long after = mapping_rss_kb(buf->data);
    long page = sysconf(_SC_PAGESIZE);
    CHECK_MSG((before - after) * 1024 >= (long)buf->size - 2 * page, "mapping RSS %ld -> %ld kB", before, after);
    CHECK_MSG(!memcmp(buf->data, w, buf->size), "weights changed after gc_model_drop_pages");
    /* a pointer outside the mapping is left alone */
    gc_model_drop_pages(m, w, sizeof(float) * 1024);
    CHECK(w[1023] == cosf(0.01f * 1023.0f));
    /* and the interpreter on the file: fast == reference */
    float ya[4 * BOC], yb[4 * BOC];
    for (int ref = 0; ref < 2; ref++) {
        gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = GC_SIG_AUTO, .reference_kernels = ref };
        gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
        CHECK(it && gc_interp_prepare(it) == GC_OK);
        gc_tview v = gc_interp_input(it, 0);
        gc_fill_pattern_sin(&v, 0);
        CHECK(gc_interp_invoke(it) == GC_OK);
        gc_tview yo = gc_interp_output(it, 0);
        memcpy(ref ? yb : ya, yo.data, sizeof ya);
        gc_interp_free(it);
    }
    CHECK(!memcmp(ya, yb, sizeof ya));
    CHECK_MSG(!memcmp(buf->data, w, buf->size), "weights changed after the runs");
    gc_model_free(m);
    unlink(path);
    free(w);
}
