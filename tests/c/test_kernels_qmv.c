/* test_kernels_qmv.c — the int8 matrix-vector products of the recurrent integer kernels
 * and the int16 row dots of SVDF's time filter (kernels/qgemm8_mv.h) against the
 * references' wrapping int32 loops, at every level this
 * CPU has, over shapes with row and depth tails; and the corpus's stateful integer models
 * (int8 LSTMs, int8 SVDF, and a float LSTM) over several invokes, fast paths against the reference kernels
 * (opts.reference_kernels), byte for byte, at every instruction-set level, both
 * --int-arith modes. */
#include "test.h"
#include "test_qfast_harness.h"
#include "interp/kernels/qgemm8_mv.h"
#include "report/report.h"

GC_TEST(kernels_qmv_random) {
    const int shapes[][2] = { { 1, 1 }, { 16, 4 }, { 17, 5 }, { 128, 257 }, { 33, 130 }, { 64, 64 }, { 5, 300 },
                              { 80, 3 }, { 129, 2 } };
    int levels = 0;
    for (int lv = GC_Q8_AVX2; lv <= GC_Q8_VNNI; lv++) {
        gc_q8level have = gc_q8_level(gc_isa_detect());
        if ((int)have < lv) continue;
        levels++;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int R = shapes[s][0], C = shapes[s][1];
            int8_t *w = (int8_t *)bytes((size_t)R * C, GC_T_INT8), *x = (int8_t *)bytes((size_t)C, GC_T_INT8);
            if (s == 0) { w[0] = -128; x[0] = -128; }               /* the extremes */
            size_t nb = gc_q8mv_bytes((gc_q8level)lv, R, C);
            CHECK(nb > 0);
            void *mem = calloc(1, nb);
            gc_q8mv m;
            gc_q8mv_init(&m, (gc_q8level)lv, w, R, C, mem);
            void *scr = malloc(gc_q8mv_scratch_bytes(&m));
            int32_t *d = malloc((size_t)(R + 16) * sizeof *d);
            for (int i = 0; i < R + 16; i++) d[i] = 0x5a5a5a5a;     /* past rows: untouched */
            gc_q8mv_run(&m, x, scr, d);
            for (int r = 0; r < R; r++) {
                uint32_t acc = 0;
                for (int c = 0; c < C; c++) acc += (uint32_t)((int32_t)w[(size_t)r * C + c] * (int32_t)x[c]);
                CHECK_MSG(d[r] == (int32_t)acc, "level %s, [%d, %d]: row %d = %d, reference %d", gc_q8_level_name((gc_q8level)lv),
                          R, C, r, d[r], (int32_t)acc);
                if (d[r] != (int32_t)acc) break;
            }
            for (int r = R; r < R + 16; r++) CHECK_MSG(d[r] == 0x5a5a5a5a, "[%d, %d]: wrote row %d", R, C, r);
            free(w); free(x); free(mem); free(scr); free(d);
        }
    }
    if (!levels) SKIP("no AVX2 on this CPU");
}

GC_TEST(kernels_qmv_rowdots16) {
    /* M even (vpmaddwd) and odd (the loop); all -2^15: the pair sum's one overflow */
    const int shapes[][2] = { { 64, 8 }, { 3, 2 }, { 5, 7 }, { 9, 34 }, { 1, 16 }, { 7, 6 } };
    for (int lv = GC_Q8_SCALAR; lv <= (int)gc_q8_level(gc_isa_detect()); lv++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int R = shapes[s][0], M = shapes[s][1];
            int16_t *a = (int16_t *)bytes((size_t)R * M * 2, 0), *b = (int16_t *)bytes((size_t)R * M * 2, 0);
            if (s == 0) for (int i = 0; i < 16; i++) a[i] = b[i] = INT16_MIN;
            int32_t *d = malloc((size_t)R * sizeof *d);
            gc_q16_rowdots((gc_q8level)lv, a, b, R, M, d);
            for (int r = 0; r < R; r++) {
                uint32_t acc = 0;
                for (int m = 0; m < M; m++) acc += (uint32_t)((int32_t)a[r * M + m] * (int32_t)b[r * M + m]);
                CHECK_MSG(d[r] == (int32_t)acc, "level %d, [%d, %d]: row %d = %d, reference %d", lv, R, M, r, d[r], (int32_t)acc);
            }
            free(a); free(b); free(d);
        }
}

/* several invokes (the state carries over): every output of every invoke the same bytes */
static void stateful_case(const char *file, int invokes) {
    char err[512];
    gc_model *m = gc_model_read_file(file, err, sizeof err);
    CHECK_MSG(m != NULL, "%s: %s", file, err);
    if (!m) return;
    for (int qmode = 0; qmode <= 1; qmode++) {
        uint8_t *want[8] = { 0 };
        size_t nw[8] = { 0 };
        for (int isa = -1; isa <= (int)gc_isa_detect(); isa++) {   /* -1: the reference kernels */
            const bool ref = isa < 0;
            gc_isa_force(isa);
            gc_interp_opts o = { .precision = GC_PREC_FP32, .signature = GC_SIG_AUTO, .threads = 1,
                                 .reference_kernels = ref, .qmode = (gc_qmode)qmode };
            rs = 0x2545f4914f6cdd1dull;                     /* the same inputs for every run */
            gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
            bool ok = it && gc_interp_prepare(it) == GC_OK;
            CHECK_MSG(ok, "%s: %s", file, it ? gc_interp_errmsg(it) : err);
            for (int k = 0; ok && k < gc_interp_n_inputs(it); k++) {
                gc_tview v = gc_interp_input(it, k);
                ok = gc_fill_pattern_sin(&v, k) == GC_OK;
            }
            for (int s = 0; ok && s < invokes && s < 8; s++) {
                if (s) {                                    /* a new input each step */
                    gc_tview v = gc_interp_input(it, 0);
                    for (size_t i = 0; i < v.nbytes; i++) ((uint8_t *)v.data)[i] = (uint8_t)rnd();
                    if (v.dtype == GC_T_FLOAT32)
                        for (size_t i = 0; i < v.nbytes / 4; i++) ((float *)v.data)[i] = frand(-2, 2);
                }
                ok = gc_interp_invoke(it) == GC_OK;
                CHECK_MSG(ok, "%s: invoke %d: %s", file, s, gc_interp_errmsg(it));
                if (!ok) break;
                gc_tview y = gc_interp_output(it, 0);
                if (ref) {
                    nw[s] = y.nbytes;
                    want[s] = malloc(y.nbytes);
                    memcpy(want[s], y.data, y.nbytes);
                } else {
                    CHECK_MSG(y.nbytes == nw[s] && !memcmp(y.data, want[s], nw[s]), "%s: %s, isa %s, invoke %d: output differs "
                              "from the reference kernels", file, qmode ? "xnnpack" : "tflite", gc_isa_name((gc_isa)isa), s);
                }
            }
            gc_interp_free(it);
        }
        gc_isa_force(-1);
        for (int s = 0; s < 8; s++) free(want[s]);
    }
    gc_model_free(m);
}

GC_TEST(kernels_qmv_stateful_corpus) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("no corpus");
    const char *files[] = { "dtln_noise_suppression.tflite", "keyword_scrambled.tflite",
                            "trained_lstm.tflite" /* float LSTM: rnn.c's row-blocked products */ };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", dir, files[i]);
        stateful_case(file, 6);
    }
}
