/* test_kernels_lookup.c — EMBEDDING_LOOKUP: row copies of every table type, the hybrid
 * (dequantizing) cases with per-tensor and per-row scales, INT4 packing, fp16 mode, and
 * the messages: bad types and shapes at prepare, ids out of range at eval. Expected
 * values are worked out here element by element. */
#include "test_kernels_harness.h"
#include "interp/fp16.h"

static bool has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

GC_TEST(kernel_embedding_lookup_float_rows_rank3_fp32_fp16) {
    /* table [5, 2, 3]: value 0.1 * (row * 10 + k), not exact in half */
    float tab[30];
    for (int r = 0; r < 5; r++) for (int k = 0; k < 6; k++) tab[r * 6 + k] = 0.1f * (float)(r * 10 + k);
    int32_t ids[4] = { 4, 0, 2, 4 };
    kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(4), ids), KT_C(GC_T_FLOAT32, 3, KT_S(5, 2, 3), tab) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 3, KT_S(4, 2, 3)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    float got[24], want[24], want16[24];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++) {
            want[i * 6 + k] = tab[ids[i] * 6 + k];
            want16[i * 6 + k] = gc_f16_round(tab[ids[i] * 6 + k]);
        }
    int32_t shp[6] = { 0 }; int rank = 0;
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, NULL, 0, shp, &rank));
    CHECK_EQ_INT(rank, 3);
    CHECK(shp[0] == 4 && shp[1] == 2 && shp[2] == 3);
    kt_check_f(got, want, 24, 0, "fp32");
    CHECK(kt_run(&r, GC_PREC_FP16, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want16, 24, 0, "fp16");      /* the stored (half) table rows */
    CHECK(kt_run(&r, GC_PREC_FP16_ACC, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want16, 24, 0, "fp16-acc");
    gc_model_free(r.m);
}

GC_TEST(kernel_embedding_lookup_copies_other_types) {
    /* INT64, FLOAT16 (same type in and out: bytes copied) and INT8 -> INT8 */
    int64_t t64[6] = { 1, -2, 3, INT64_MAX, INT64_MIN, 6 };
    int32_t ids[3] = { 2, 0, 1 };
    kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(3), ids), KT_C(GC_T_INT64, 2, KT_S(3, 2), t64) };
    kt_tensor outs[] = { KT_OUT(GC_T_INT64, 2, KT_S(3, 2)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    int64_t g64[6], w64[6] = { INT64_MIN, 6, 1, -2, 3, INT64_MAX };
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, g64, sizeof g64, NULL, 0, NULL, NULL));
    for (int i = 0; i < 6; i++) CHECK_MSG(g64[i] == w64[i], "int64[%d]", i);
    gc_model_free(r.m);

    uint16_t h[6];
    for (int i = 0; i < 6; i++) h[i] = gc_f32_to_f16(0.3f * (float)i - 1.0f);
    kt_tensor hins[] = { KT_IN(GC_T_INT32, 1, KT_S(3), ids), KT_C(GC_T_FLOAT16, 2, KT_S(3, 2), h) };
    kt_tensor houts[] = { KT_OUT(GC_T_FLOAT16, 2, KT_S(3, 2)) };
    r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, hins, 2, houts, 1);
    uint16_t gh[6];
    CHECK(kt_run(&r, GC_PREC_FP32, hins, 2, 0, gh, sizeof gh, NULL, 0, NULL, NULL));
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) CHECK_MSG(gh[i * 2 + k] == h[ids[i] * 2 + k], "f16[%d]", i * 2 + k);
    gc_model_free(r.m);

    /* FLOAT16 table -> FLOAT32 output: exact widening */
    houts[0].type = GC_T_FLOAT32;
    r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, hins, 2, houts, 1);
    float gf[6];
    CHECK(kt_run(&r, GC_PREC_FP32, hins, 2, 0, gf, sizeof gf, NULL, 0, NULL, NULL));
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) CHECK_NEAR(gf[i * 2 + k], gc_f16_to_f32(h[ids[i] * 2 + k]), 0);
    gc_model_free(r.m);

    int8_t q[6] = { -128, 127, 0, 1, -1, 5 };
    kt_tensor qins[] = { KT_IN(GC_T_INT32, 1, KT_S(3), ids), KT_Q(GC_T_INT8, 2, KT_S(3, 2), q, 0.5f, 3) };
    kt_tensor qouts[] = { KT_QOUT(GC_T_INT8, 2, KT_S(3, 2), 0.5f, 3) };
    r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, qins, 2, qouts, 1);
    int8_t gq[6], wq[6] = { -1, 5, -128, 127, 0, 1 };
    CHECK(kt_run(&r, GC_PREC_FP32, qins, 2, 0, gq, sizeof gq, NULL, 0, NULL, NULL));
    CHECK(memcmp(gq, wq, 6) == 0);
    gc_model_free(r.m);
}

GC_TEST(kernel_embedding_lookup_hybrid_int8_uint8_per_tensor) {
    int8_t q[8] = { -128, -3, 0, 7, 127, 1, -1, 64 };          /* [2, 4] */
    int32_t ids[3] = { 1, 1, 0 };
    kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(3), ids), KT_Q(GC_T_INT8, 2, KT_S(2, 4), q, 0.125f, 0) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(3, 4)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    float got[12], want[12] = { 15.875f, 0.125f, -0.125f, 8, 15.875f, 0.125f, -0.125f, 8, -16, -0.375f, 0, 0.875f };
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want, 12, 0, "int8");
    gc_model_free(r.m);

    /* UINT8: the bytes are read as int8, as TFLite's hybrid kernel does (200 -> -56) */
    uint8_t u[4] = { 200, 0, 127, 255 };                       /* [2, 2] */
    int32_t uid[2] = { 0, 1 };
    kt_tensor uins[] = { KT_IN(GC_T_INT32, 1, KT_S(2), uid), KT_Q(GC_T_UINT8, 2, KT_S(2, 2), u, 0.5f, 0) };
    kt_tensor uouts[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 2)) };
    r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, uins, 2, uouts, 1);
    float ug[4], uw[4] = { -28, 0, 63.5f, -0.5f };
    CHECK(kt_run(&r, GC_PREC_FP32, uins, 2, 0, ug, sizeof ug, NULL, 0, NULL, NULL));
    kt_check_f(ug, uw, 4, 0, "uint8");
    gc_model_free(r.m);
}

GC_TEST(kernel_embedding_lookup_hybrid_per_row_scales_and_fp16) {
    int8_t q[6] = { 3, -5, 100, 1, -7, 9 };                     /* [3, 2] */
    float sc[3] = { 0.5f, 0.1f, 3.0f };
    int32_t ids[4] = { 2, 1, 0, 1 };
    kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(4), ids),
                        KT_QA(GC_T_INT8, 2, KT_S(3, 2), q, 3, sc, NULL, 0) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(4, 2)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    float got[8], want[8], want16[8];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            /* the product in double, rounded once to float */
            want[i * 2 + k] = (float)((double)q[ids[i] * 2 + k] * (double)sc[ids[i]]);
            want16[i * 2 + k] = gc_f16_round(want[i * 2 + k]);
        }
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want, 8, 0, "per-row");
    CHECK(kt_run(&r, GC_PREC_FP16, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want16, 8, 0, "per-row fp16");   /* the float output is stored as half */
    gc_model_free(r.m);
}

GC_TEST(kernel_embedding_lookup_hybrid_int4_packed) {
    /* table [3, 3] of int4 values v[e] = e - 4 (e = 0..8), packed low nibble first; rows
     * straddle bytes (3 nibbles a row) */
    uint8_t packed[5] = { 0 };
    for (int e = 0; e < 9; e++) {
        uint8_t nib = (uint8_t)((e - 4) & 15);
        packed[e / 2] |= (uint8_t)(e % 2 ? nib << 4 : nib);
    }
    int32_t ids[3] = { 1, 2, 0 };
    kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(3), ids), KT_Q(GC_T_INT4, 2, KT_S(3, 3), packed, 0.25f, 0) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(3, 3)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    float got[9], want[9];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) want[i * 3 + k] = (float)(ids[i] * 3 + k - 4) * 0.25f;
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want, 9, 0, "int4");
    gc_model_free(r.m);
}

GC_TEST(kernel_embedding_lookup_ids_out_of_range_fail_at_eval) {
    float tab[6] = { 1, 2, 3, 4, 5, 6 };
    int32_t bad[3][2] = { { 0, 3 }, { -1, 0 }, { 1, INT32_MAX } };
    for (int c = 0; c < 3; c++) {
        kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(2), bad[c]), KT_C(GC_T_FLOAT32, 2, KT_S(3, 2), tab) };
        kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 2)) };
        kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
        float got[4]; char err[512];
        CHECK(!kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, err, sizeof err, NULL, NULL));
        CHECK_MSG(has(err, "invoke:") && has(err, "EMBEDDING_LOOKUP") && has(err, "out of range [0, 3)"), "%s", err);
        gc_model_free(r.m);
    }
    /* constant ids are looked up at prepare: the same message, from prepare */
    int32_t cid[2] = { 1, 7 };
    kt_tensor ins[] = { KT_C(GC_T_INT32, 1, KT_S(2), cid), KT_C(GC_T_FLOAT32, 2, KT_S(3, 2), tab) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 2)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    float got[4]; char err[512];
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "prepare:") && has(err, "id 7 at position 1 is out of range [0, 3)"), "%s", err);
    gc_model_free(r.m);
}

/* One prepare-time refusal: build, run, expect `msg` in the error. */
static void refused(const kt_tensor *ins, const kt_tensor *outs, const char *msg) {
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    char err[512];
    uint8_t got[256];
    CHECK(!kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, kt_bytes(&outs[0]), err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "prepare:") && has(err, msg), "wanted '%s', got: %s", msg, err);
    gc_model_free(r.m);
}

GC_TEST(kernel_embedding_lookup_prepare_refusals) {
    int32_t ids[2] = { 0, 1 }; int64_t ids64[2] = { 0, 1 };
    float tab[6] = { 0 }; int8_t q[6] = { 0 };
    float sc2[2] = { 1, 1 }, sc3[3] = { 1, 1, 1 }; int64_t zp3[3] = { 0, 2, 0 };
    kt_tensor fout[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 2)) };
    /* ids type and rank */
    kt_tensor a[] = { KT_IN(GC_T_INT64, 1, KT_S(2), ids64), KT_C(GC_T_FLOAT32, 2, KT_S(3, 2), tab) };
    refused(a, fout, "ids must be INT32");
    kt_tensor b[] = { KT_IN(GC_T_INT32, 2, KT_S(1, 2), ids), KT_C(GC_T_FLOAT32, 2, KT_S(3, 2), tab) };
    kt_tensor bout[] = { KT_OUT(GC_T_FLOAT32, 3, KT_S(1, 2, 2)) };
    refused(b, bout, "ids must have rank 1");
    /* table rank */
    kt_tensor c[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_C(GC_T_FLOAT32, 1, KT_S(6), tab) };
    kt_tensor cout[] = { KT_OUT(GC_T_FLOAT32, 1, KT_S(2)) };
    refused(c, cout, "rank >= 2");
    /* hybrid without a scale, with a zero point, with bad per-row scales */
    kt_tensor d[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_C(GC_T_INT8, 2, KT_S(3, 2), q) };
    refused(d, fout, "has no quantization scale");
    kt_tensor e[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_Q(GC_T_INT8, 2, KT_S(3, 2), q, 0.5f, 4) };
    refused(e, fout, "only symmetric");
    kt_tensor f[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_QA(GC_T_INT8, 2, KT_S(3, 2), q, 2, sc2, NULL, 0) };
    refused(f, fout, "2 scales for 3 rows");
    kt_tensor g[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_QA(GC_T_INT8, 2, KT_S(3, 2), q, 2, sc2, NULL, 1) };
    refused(g, fout, "must be on dimension 0");
    kt_tensor h[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_QA(GC_T_INT8, 2, KT_S(3, 2), q, 3, sc3, zp3, 0) };
    refused(h, fout, "zero point 2 at 1");
    /* per-row scales on a copied (int8 -> int8) table; int8 table -> int32 output */
    kt_tensor i8out[] = { KT_OUT(GC_T_INT8, 2, KT_S(2, 2)) };
    kt_tensor k[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_QA(GC_T_INT8, 2, KT_S(3, 2), q, 3, sc3, NULL, 0) };
    refused(k, i8out, "per-axis quantization of a copied table");
    kt_tensor i32out[] = { KT_OUT(GC_T_INT32, 2, KT_S(2, 2)) };
    refused(d, i32out, "table type INT8 with output type INT32");
}

GC_TEST(kernel_embedding_lookup_runtime_table_empty_ids_empty_table) {
    /* the table as a run-time input (fed after the ids) */
    float tab[6] = { 1, 2, 3, 4, 5, 6 };
    int32_t ids[2] = { 2, 2 };
    kt_tensor ins[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_IN(GC_T_FLOAT32, 2, KT_S(3, 2), tab) };
    kt_tensor outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(2, 2)) };
    kt_model r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, ins, 2, outs, 1);
    float got[4], want[4] = { 5, 6, 5, 6 };
    CHECK(kt_run(&r, GC_PREC_FP32, ins, 2, 0, got, sizeof got, NULL, 0, NULL, NULL));
    kt_check_f(got, want, 4, 0, "runtime table");
    gc_model_free(r.m);

    /* no ids: an empty [0, 2] output */
    kt_tensor e_ins[] = { KT_IN(GC_T_INT32, 1, KT_S(0), ids), KT_C(GC_T_FLOAT32, 2, KT_S(3, 2), tab) };
    kt_tensor e_outs[] = { KT_OUT(GC_T_FLOAT32, 2, KT_S(0, 2)) };
    r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, e_ins, 2, e_outs, 1);
    int32_t shp[6] = { -1, -1 }; int rank = 0;
    CHECK(kt_run(&r, GC_PREC_FP32, e_ins, 2, 0, got, 0, NULL, 0, shp, &rank));
    CHECK(rank == 2 && shp[0] == 0 && shp[1] == 2);
    gc_model_free(r.m);

    /* a table without rows (a run-time input: an empty constant has no buffer): every id
     * is out of range */
    kt_tensor z_ins[] = { KT_IN(GC_T_INT32, 1, KT_S(2), ids), KT_IN(GC_T_FLOAT32, 2, KT_S(0, 2), tab) };
    r = kt_build(GC_OP_EMBEDDING_LOOKUP, 0, z_ins, 2, outs, 1);
    char err[512];
    CHECK(!kt_run(&r, GC_PREC_FP32, z_ins, 2, 0, got, sizeof got, err, sizeof err, NULL, NULL));
    CHECK_MSG(has(err, "out of range [0, 0)"), "%s", err);
    gc_model_free(r.m);
}
