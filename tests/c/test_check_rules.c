/* test_check_rules.c — every per-rule model of the catalogue (test_check_cases.c) gets
 * the verdict it was built for, on every target it names; plus the partitioning, fp16
 * DEQUANTIZE, dynamic-tensor, fix-hint, lint and rendering behaviour that one verdict
 * does not show. Set GPUCLEAN_EMIT_DIR to also write every case model there (the same
 * files tools/rule-models.c writes).
 */
#include "test.h"
#include "check/check.h"
#include "../../tools/rule-models.h"

#include <stdint.h>
#include <sys/stat.h>

static const gc_check_node *probe_node(const gc_check_result *r, const gc_model *m) {
    for (int32_t i = 0; i < r->n_nodes; i++) {
        const gc_check_node *n = &r->nodes[i];
        const gc_subgraph *sg = &m->subgraphs[n->subgraph];
        const gc_op *op = &sg->ops[n->index];
        if (op->n_outputs > 0 && op->outputs[0] >= 0 && !strcmp(sg->tensors[op->outputs[0]].name, "probe")) return n;
    }
    return NULL;
}

/* run one case on one target; returns the number of failed expectations */
static int run_case(const gc_rule_case *k, gc_target t) {
    int fails = 0;
    char err[256], want[128];
    gc_model *m = k->build();
    /* the model survives a write / read round trip (the emitted files are these bytes) */
    uint8_t *bytes = NULL; size_t n = 0;
    if (gc_model_write_mem(m, NULL, &bytes, &n, err, sizeof err) != GC_OK) {
        fprintf(stderr, "  %s: write failed: %s\n", k->name, err);
        gc_model_free(m);
        return 1;
    }
    gc_model *rm = gc_model_read_mem(bytes, n, err, sizeof err);
    if (!rm) {
        fprintf(stderr, "  %s: re-read failed: %s\n", k->name, err);
        free(bytes); gc_model_free(m);
        return 1;
    }
    gc_check_result *r = gc_check(rm, t, err, sizeof err);
    const gc_check_node *p = r ? probe_node(r, rm) : NULL;
    if (!r || !p) {
        fprintf(stderr, "  %s/%s: no result or no probe node\n", k->name, gc_target_name(t));
        fails++;
    } else {
        if (k->rule) {
            snprintf(want, sizeof want, "%s.%s", gc_target_name(t), k->rule);
            if (!p->rule || strcmp(p->rule, want)) {
                fprintf(stderr, "  %s/%s: rule %s, want %s (reason: %s)\n", k->name, gc_target_name(t),
                        p->rule ? p->rule : "(none)", want, p->reason);
                fails++;
            }
            if (k->reason && strcmp(p->reason ? p->reason : "", k->reason)) {
                fprintf(stderr, "  %s/%s: reason \"%s\", want \"%s\"\n", k->name, gc_target_name(t), p->reason, k->reason);
                fails++;
            }
            if (p->gpu) { fprintf(stderr, "  %s/%s: probe on GPU despite the rule\n", k->name, gc_target_name(t)); fails++; }
        } else if (!p->supported && !p->gpu) {
            fprintf(stderr, "  %s/%s: probe refused: %s [%s]\n", k->name, gc_target_name(t), p->reason,
                    p->rule ? p->rule : "");
            fails++;
        }
        if (k->gpu_nodes >= 0 && r->gpu_nodes != k->gpu_nodes) {
            fprintf(stderr, "  %s/%s: %d GPU nodes, want %d\n", k->name, gc_target_name(t), r->gpu_nodes, k->gpu_nodes);
            fails++;
        }
        if (k->fatal != (r->fatal != NULL)) {
            fprintf(stderr, "  %s/%s: fatal %s, want %s\n", k->name, gc_target_name(t), r->fatal ? r->fatal : "none",
                    k->fatal ? "an init failure" : "none");
            fails++;
        }
        if (k->fatal && !p->fatal) { fprintf(stderr, "  %s/%s: probe not marked fatal\n", k->name, gc_target_name(t)); fails++; }
    }
    gc_check_free(r);
    gc_model_free(rm);
    free(bytes);
    gc_model_free(m);
    return fails;
}

GC_TEST(check_rule_catalogue) {
    int ran = 0;
    for (int i = 0; i < gc_rule_cases_n; i++) {
        const gc_rule_case *k = &gc_rule_cases[i];
        for (int t = 0; t < 2; t++) {
            if (k->target >= 0 && k->target != t) continue;
            int f = run_case(k, (gc_target)t);
            gc_test_failures += f;
            ran++;
        }
    }
    CHECK(ran > 150);
    const char *dir = getenv("GPUCLEAN_EMIT_DIR");
    if (dir && *dir) {
        mkdir(dir, 0777);
        for (int i = 0; i < gc_rule_cases_n; i++) {
            char path[1024], err[256];
            snprintf(path, sizeof path, "%s/%s.tflite", dir, gc_rule_cases[i].name);
            gc_model *m = gc_rule_cases[i].build();
            CHECK_MSG(gc_model_write_file(m, path, NULL, err, sizeof err) == GC_OK, "%s", err);
            gc_model_free(m);
        }
    }
}

static const gc_rule_case *find_case(const char *name) {
    for (int i = 0; i < gc_rule_cases_n; i++)
        if (!strcmp(gc_rule_cases[i].name, name)) return &gc_rule_cases[i];
    return NULL;
}

static gc_check_result *check_case(const char *name, gc_target t, gc_model **mout) {
    const gc_rule_case *k = find_case(name);
    if (!k) return NULL;
    char err[256];
    *mout = k->build();
    return gc_check(*mout, t, err, sizeof err);
}

GC_TEST(check_partition_largest_only) {
    for (int t = 0; t < 2; t++) {
        gc_model *m;
        gc_check_result *r = check_case("partition_largest", (gc_target)t, &m);
        CHECK(r != NULL);
        if (!r) continue;
        CHECK_EQ_INT(r->n_nodes, 4);
        CHECK_EQ_INT(r->nodes[0].state, GC_NODE_CPU_PARTITION);   /* ADD: supported, smaller partition */
        CHECK_EQ_INT(r->nodes[1].state, GC_NODE_REJECTED);
        CHECK(r->nodes[2].gpu && r->nodes[3].gpu);
        CHECK_EQ_INT(r->subgraphs[0].n_candidates, 2);
        CHECK_EQ_INT(r->partitions, 1);
        CHECK_EQ_INT(r->subgraphs[0].node_subsets, 2);   /* {ADD, GATHER_ND} on CPU, {RELU, RELU6} */
        CHECK_MSG(!strcmp(r->subgraphs[0].delegate_log,
                          "Following operations are not supported by GPU delegate:\n"
                          "GATHER_ND: Operation is not supported.\n"
                          "2 operations will run on the GPU, and the remaining 2 operations will run on the CPU."),
                  "%s", r->subgraphs[0].delegate_log);
        gc_str s = {0};
        gc_check_residency_line(r, &s);
        CHECK(s.s && !strcmp(s.s, "GPU residency: 2/4 nodes in 1 partition(s)"));
        gc_str_free(&s);
        gc_check_free(r);
        gc_model_free(m);
    }
}

GC_TEST(check_fp16_dequantize) {
    gc_model *m;
    gc_check_result *r = check_case("fp16_weights_full", GC_TARGET_MLDRIFT, &m);
    CHECK(r && r->gpu_clean && r->gpu_nodes == 2 && r->total_nodes == 2);
    CHECK(r && r->nodes[0].gpu && !r->nodes[0].supported);     /* swallowed by full delegation */
    CHECK(r && r->subgraphs[0].delegate_log[0] == 0);
    gc_check_free(r); gc_model_free(m);
    r = check_case("fp16_weights_partial", GC_TARGET_MLDRIFT, &m);
    CHECK(r && r->gpu_nodes == 2 && r->total_nodes == 4);
    CHECK(r && r->nodes[0].state == GC_NODE_FP16_DEQUANT);
    CHECK_MSG(r && strstr(r->subgraphs[0].delegate_log, "\nDEQUANTIZE: \n"), "%s", r ? r->subgraphs[0].delegate_log : "");
    gc_check_free(r); gc_model_free(m);
}

GC_TEST(check_dynamic_tensor_blocks_delegation) {
    gc_model *m;
    gc_check_result *r = check_case("dynamic_reshape", GC_TARGET_MLDRIFT, &m);
    CHECK(r && r->model_error && strstr(r->model_error, "dynamic-sized tensors"));
    CHECK(r && r->gpu_nodes == 0 && !r->gpu_clean && r->nodes[1].supported && !r->nodes[1].gpu);
    gc_check_free(r); gc_model_free(m);
}

GC_TEST(check_fix_hints) {
    static const struct { const char *name, *fix; } want[] = {
        { "gather_nd", "fix.gather_nd" }, { "transpose_conv_v4", "fix.transpose_conv.unfuse_activation" },
        { "broadcast_to_runtime", "fix.broadcast_to.runtime" }, { "reshape_rank5", "fix.rank5" },
        { "strided_slice_shrink", "fix.strided_slice.no_shrink" }, { "arg_max_int64", "fix.arg_max.int32" },
        { "gather_indices_2d", "fix.gather.flatten_indices" }, { "squeeze", "fix.squeeze.reshape" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gc_model *m;
        gc_check_result *r = check_case(want[i].name, GC_TARGET_MLDRIFT, &m);
        const gc_check_node *p = r ? probe_node(r, m) : NULL;
        CHECK_MSG(p && p->fix_id && !strcmp(p->fix_id, want[i].fix), "%s: %s", want[i].name, p ? p->fix_id : "?");
        CHECK(p && p->fix_torch && p->fix_torch[0] && p->fix_tflite && p->fix_tflite[0]);
        gc_check_free(r); gc_model_free(m);
    }
}

GC_TEST(check_rendering) {
    gc_model *m;
    gc_check_result *r = check_case("gather_indices_2d", GC_TARGET_MLDRIFT, &m);
    CHECK(r != NULL);
    if (!r) return;
    gc_str t = {0}, j = {0};
    gc_check_text(r, m, "m.tflite", false, &t);
    CHECK_MSG(t.s && strstr(t.s, "m.tflite: node 0 GATHER 'probe': not on GPU: Only support 1D indices "
                                 "[mldrift.gather.indices_rank]\n  tensor input 'idx' INT32 [1,3]\n  fix: "), "%s", t.s);
    CHECK(t.s && strstr(t.s, "GPU residency: 0/1 nodes in 0 partition(s)\n"));
    gc_check_json(r, m, "m.tflite", &j);
    CHECK(j.s && !strncmp(j.s, "{\"schema\": 1, ", 14));
    CHECK(j.s && strstr(j.s, "\"rule\": \"mldrift.gather.indices_rank\""));
    CHECK(j.s && strstr(j.s, "\"gpu_clean\": false"));
    gc_str_free(&t); gc_str_free(&j);
    gc_check_free(r); gc_model_free(m);
}

/* ---- lints ------------------------------------------------------------------------------ */

#define L(...) (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}

static bool has_risk(const gc_check_result *r, const char *rule) {
    for (int32_t i = 0; i < r->n_risks; i++) if (!strcmp(r->risks[i].rule, rule)) return true;
    return false;
}

static gc_model *sum_model(int n, bool squares) {
    gc_rb b = gc_rb_new();
    int32_t x = gc_rb_t(&b, "x", GC_T_FLOAT32, L(1, n)), ax = gc_rb_i32(&b, "axes", L(1));
    int32_t s = gc_rb_t(&b, "s", GC_T_FLOAT32, L(1, 1)), in = x;
    if (squares) {
        in = gc_rb_t(&b, "sq", GC_T_FLOAT32, L(1, n));
        gc_rb_op(&b, GC_OP_MUL, 1, L(x, x), L(in));
    }
    int32_t op = gc_rb_op(&b, GC_OP_SUM, 1, L(in, ax), L(s));
    gc_rb_opt(&b, op, GC_O_ReducerOptions_keep_dims, 1);
    return gc_rb_done(&b);
}

static gc_model *mask_model(bool mask_full) {
    gc_rb b = gc_rb_new();
    int32_t q = gc_rb_t(&b, "q", GC_T_FLOAT32, L(1, 4, 16, 8)), k = gc_rb_t(&b, "k", GC_T_FLOAT32, L(1, 4, 8, 16));
    int32_t sc = gc_rb_t(&b, "scores", GC_T_FLOAT32, L(1, 4, 16, 16));
    int32_t mask = mask_full ? gc_rb_t(&b, "mask", GC_T_FLOAT32, L(1, 4, 16, 16)) : gc_rb_t(&b, "mask", GC_T_FLOAT32, L(1, 1, 16, 16));
    int32_t out = gc_rb_t(&b, "out", GC_T_FLOAT32, L(1, 4, 16, 16));
    gc_rb_op(&b, GC_OP_BATCH_MATMUL, 1, L(q, k), L(sc));
    gc_rb_op(&b, GC_OP_ADD, 1, L(sc, mask), L(out));
    return gc_rb_done(&b);
}

GC_TEST(check_lints) {
    char err[128];
    struct { gc_model *m; const char *rule; bool want; } c[] = {
        { sum_model(4096, false), "fp16.sum_large", true },
        { sum_model(16, false), "fp16.sum_large", false },
        { sum_model(256, true), "fp16.sum_of_squares", true },
        { mask_model(false), "fp16.bmm_mask_broadcast", true },
        { mask_model(true), "fp16.bmm_mask_broadcast", false },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        gc_check_result *r = gc_check(c[i].m, GC_TARGET_MLDRIFT, err, sizeof err);
        CHECK_MSG(r && has_risk(r, c[i].rule) == c[i].want, "case %zu: %s", i, c[i].rule);
        gc_check_free(r);
        gc_model_free(c[i].m);
    }
    /* softmax over a long axis, approximate GELU, output consumed inside, constant overflow */
    gc_rb b = gc_rb_new();
    int32_t x = gc_rb_t(&b, "x", GC_T_FLOAT32, L(1, 2048)), y = gc_rb_t(&b, "y", GC_T_FLOAT32, L(1, 2048));
    int32_t g = gc_rb_t(&b, "g", GC_T_FLOAT32, L(1, 2048)), z = gc_rb_t(&b, "z", GC_T_FLOAT32, L(1, 2048));
    float big[4] = { 1.0f, 70000.0f, 2.0f, 3.0f };
    int32_t k = gc_rb_c(&b, "big", GC_T_FLOAT32, L(4), big), w = gc_rb_t(&b, "w", GC_T_FLOAT32, L(4));
    int32_t v = gc_rb_t(&b, "v", GC_T_FLOAT32, L(4));
    int32_t sm = gc_rb_op(&b, GC_OP_SOFTMAX, 1, L(x), L(y));
    gc_rb_optf(&b, sm, GC_O_SoftmaxOptions_beta, 1.0);   /* the schema default is 0 */
    int32_t op = gc_rb_op(&b, GC_OP_GELU, 1, L(y), L(g));
    gc_rb_opt(&b, op, GC_O_GeluOptions_approximate, 1);
    gc_rb_op(&b, GC_OP_RELU, 1, L(g), L(z));
    gc_rb_op(&b, GC_OP_ADD, 1, L(w, k), L(v));
    gc_model *m = gc_rb_done(&b);
    int32_t outs[] = { g, z, v };
    gc_sg_set_io(m, 0, 2, (int32_t[]){ x, w }, 3, outs);
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r && has_risk(r, "fp16.softmax_long_axis"));
    CHECK(r && has_risk(r, "fp16.approx_activation"));
    CHECK(r && has_risk(r, "fp16.output_consumed"));
    CHECK(r && has_risk(r, "fp16.const_overflow"));
    CHECK(r && r->gpu_clean);   /* risks are warnings, not verdicts */
    gc_check_free(r);
    gc_model_free(m);
}

/* ---- corpus: no crash on either target, stable output ------------------------------------ */

GC_TEST(check_corpus_both_targets_deterministic) {
    const char *dir = gc_test_corpus_dir();
    if (!dir) SKIP("../shared/corpus not found (set GPUCLEAN_CORPUS)");
    static const char *names[] = { "dp_net.tflite", "movenet_single_pose_lightning_ptq.tflite",
                                   "group_norm_2_groups_op.tflite", "yamnet_audio_classifier_with_metadata.tflite",
                                   "torchaudio_conformer.tflite", "retinaface.tflite" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        gc_model *m = gc_model_read_file(path, err, sizeof err);
        CHECK_MSG(m != NULL, "%s: %s", path, err);
        if (!m) continue;
        for (int t = 0; t < 2; t++) {
            gc_check_result *a = gc_check(m, (gc_target)t, err, sizeof err), *b2 = gc_check(m, (gc_target)t, err, sizeof err);
            gc_str ja = {0}, jb = {0};
            CHECK(a && b2);
            if (a && b2) {
                gc_check_json(a, m, path, &ja);
                gc_check_json(b2, m, path, &jb);
                CHECK_MSG(ja.s && jb.s && !strcmp(ja.s, jb.s), "%s: two runs differ", names[i]);
            }
            gc_str_free(&ja); gc_str_free(&jb);
            gc_check_free(a); gc_check_free(b2);
        }
        gc_model_free(m);
    }
}

/* ---- robustness: every op code with odd arities, ranks and constness never crashes ---- */

GC_TEST(check_every_op_odd_shapes_no_crash) {
    static const int32_t shapes[][6] = { {0}, {1, 7}, {2, 3, 1}, {3, 2, 3, 4}, {4, 1, 4, 4, 3}, {5, 1, 2, 3, 2, 2} };
    static const int types[] = { GC_T_FLOAT32, GC_T_INT32, GC_T_INT8, GC_T_BOOL, GC_T_FLOAT16, GC_T_INT64 };
    char err[128];
    int runs = 0;
    for (int32_t code = 0; code < GC_OP_COUNT; code++) {
        uint32_t seed = 12345u + (uint32_t)code;
        for (int variant = 0; variant < 400; variant++) {
#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
            gc_rb b = gc_rb_new();
            int n_in = (int)(RND() % 5), n_out = 1 + (int)(RND() % 2);
            int32_t in[4], out[2];
            for (int k = 0; k < n_in; k++) {
                const int32_t *sh = shapes[RND() % 6];
                int type = types[RND() % 6];
                char name[16];
                snprintf(name, sizeof name, "i%d", k);
                unsigned kind = RND() % 10;
                if (kind < 2) in[k] = -1;
                else if (kind < 4) in[k] = gc_rb_c(&b, name, type, sh[0], sh + 1, NULL);
                else in[k] = gc_rb_t(&b, name, type, sh[0], sh + 1);
            }
            for (int k = 0; k < n_out; k++) {
                const int32_t *sh = shapes[RND() % 6];
                out[k] = gc_rb_t(&b, k ? "o1" : "probe", types[RND() % 6], sh[0], sh + 1);
            }
            if (code == GC_OP_CUSTOM) {
                static const char *names[] = { "Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D",
                                               "Resampler", "custom_call.GroupNorm", "custom_call.rotary_positional_embedding",
                                               "custom_call.absolute_positional_embedding", "odml.rope", "Whatever" };
                const int32_t opts[6] = { 1, 2, 2, 2, 2, 0 };
                gc_rb_custom(&b, names[variant % 9], n_in, in, n_out, out, variant % 2 ? opts : NULL, sizeof opts);
            } else {
                int32_t op = gc_rb_op(&b, code, 1 + variant % 3, n_in, in, n_out, out);
                const gc_options *o = &b.m->subgraphs[0].ops[op].opt;
                if (o->type && o->type < gc_opt_tables_count && gc_opt_tables[o->type].name)
                    for (int f = 0; f < gc_opt_tables[o->type].n_fields; f++) {
                        int kind = gc_opt_tables[o->type].fields[f].kind;
                        if (kind >= GC_F_BOOL && kind <= GC_F_U64 && (RND() % 3 == 0))
                            gc_rb_opt(&b, op, f, (int64_t)(RND() % 7) - 1);
                    }
            }
#undef RND
            gc_model *m = gc_rb_done(&b);
            for (int t = 0; t < 2; t++) {
                gc_check_result *r = gc_check(m, (gc_target)t, err, sizeof err);
                CHECK(r != NULL);
                gc_str s = {0};
                if (r) { gc_check_json(r, m, "x", &s); gc_check_text(r, m, "x", true, &s); }
                gc_str_free(&s);
                gc_check_free(r);
                runs++;
            }
            gc_model_free(m);
        }
    }
    CHECK(runs == GC_OP_COUNT * 800);
}
