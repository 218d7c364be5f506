/* test_report_html.c — the HTML report (src/report/html*.c), its DAG layout
 * (dag_layout.c), the CSP hash (sha256.c) and the Model Explorer overlays
 * (model_explorer.c): layering and ordering invariants and speed, escaping of hostile
 * names (no markup, no early </script>, valid UTF-8), the legend counts against the check
 * result, the script hash in the policy, the overlay's graph and node ids. */
#include "test.h"
#include "../../tools/rule-models.h"
#include "check/check.h"
#include "report/dag_layout.h"
#include "report/html.h"
#include "report/model_explorer.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define F32 GC_T_FLOAT32

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

GC_TEST(report_sha256_vectors) {
    /* FIPS 180-4 examples and two more lengths (empty, a 1000-byte message crossing blocks) */
    static const struct { const char *msg; size_t n; const char *b64; } v[] = {
        { "", 0, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" },
        { "abc", 3, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" },
        { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
          "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char b[45];
        gc_html_sha256_b64(v[i].msg, v[i].n, b);
        CHECK_MSG(!strcmp(b, v[i].b64), "sha256(%zu bytes) = %s", v[i].n, b);
    }
    char a[1000], b[45];
    memset(a, 'a', sizeof a);
    gc_html_sha256_b64(a, sizeof a, b);
    CHECK_MSG(!strcmp(b, "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM="), "%s", b);
}

/* x -> chain of n ADDs; when fan > 0, op 0 also feeds `fan` ops whose outputs a second
 * chain reads one by one (ADD(prev, fan_i)) */
static gc_model *chain_fan(int n, int fan) {
    gc_rb b = gc_rb_new();
    const int32_t sh[2] = { 1, 4 };
    int32_t x = gc_rb_t(&b, "x", F32, 2, sh), c = gc_rb_c(&b, "c", F32, 2, sh, NULL);
    char name[32];
    int32_t first = -1, prev = x;
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "t%d", i);
        int32_t y = gc_rb_t(&b, name, F32, 2, sh);
        gc_rb_op(&b, GC_OP_ADD, 1, 2, (int32_t[]){ prev, c }, 1, (int32_t[]){ y });
        if (first < 0) first = y;
        prev = y;
    }
    int32_t f[512];
    for (int i = 0; i < fan && i < 512; i++) {
        snprintf(name, sizeof name, "f%d", i);
        f[i] = gc_rb_t(&b, name, F32, 2, sh);
        gc_rb_op(&b, GC_OP_MUL, 1, 2, (int32_t[]){ first, c }, 1, (int32_t[]){ f[i] });
    }
    int32_t acc = first;
    for (int i = 0; i < fan && i < 512; i++) {
        snprintf(name, sizeof name, "a%d", i);
        int32_t y = gc_rb_t(&b, name, F32, 2, sh);
        gc_rb_op(&b, GC_OP_ADD, 1, 2, (int32_t[]){ acc, f[i] }, 1, (int32_t[]){ y });
        acc = y;
    }
    return gc_rb_done(&b);
}

static void layout_invariants(const gc_dag_layout *L) {
    for (int32_t e = 0; e < L->n_edges; e++)
        if (L->edge_from[e] < L->edge_to[e])
            CHECK_MSG(L->layer[L->edge_from[e]] < L->layer[L->edge_to[e]], "edge %d -> %d goes up (%d -> %d)",
                      L->edge_from[e], L->edge_to[e], L->layer[L->edge_from[e]], L->layer[L->edge_to[e]]);
    /* nodes of one layer at least one column apart */
    for (int32_t i = 0; i < L->n; i++)
        for (int32_t j = i + 1; j < L->n && j < i + 400; j++)
            if (L->layer[i] == L->layer[j]) CHECK_MSG(fabs(L->x[i] - L->x[j]) >= 1 - 1e-9, "nodes %d and %d overlap", i, j);
    for (int32_t i = 0; i < L->n; i++) CHECK(L->x[i] >= 0 && L->x[i] < L->width);
}

GC_TEST(report_dag_layout_chain_and_fan) {
    gc_model *m = chain_fan(20, 0);
    gc_dag_layout L;
    CHECK(gc_dag_layout_subgraph(m, 0, &L) == GC_OK);
    CHECK_EQ_INT(L.n, 20);
    CHECK_EQ_INT(L.n_layers, 20);                 /* a chain: one op per layer ... */
    CHECK_EQ_INT(L.n_edges, 19);
    for (int32_t j = 1; j < L.n; j++) CHECK_NEAR(L.x[j], L.x[0], 1e-9);   /* ... in one column */
    layout_invariants(&L);
    gc_dag_layout_free(&L);
    gc_model_free(m);

    /* 100 ops fed by op 0 and read one by one by a chain: laid out as late as their
     * reader allows, so no layer is wide (longest-path layering alone puts all 100 in
     * layer 1) */
    m = chain_fan(3, 100);
    CHECK(gc_dag_layout_subgraph(m, 0, &L) == GC_OK);
    CHECK_EQ_INT(L.n, 203);
    int32_t w[256] = {0}, maxw = 0;
    for (int32_t j = 0; j < L.n; j++) if (L.layer[j] < 256 && ++w[L.layer[j]] > maxw) maxw = w[L.layer[j]];
    CHECK_MSG(maxw <= 3, "widest layer %d", maxw);
    CHECK_MSG(L.width <= 4, "width %.1f columns", L.width);
    layout_invariants(&L);
    gc_dag_layout_free(&L);
    gc_model_free(m);
}

GC_TEST(report_dag_layout_fast_on_big_graphs) {
    gc_model *m = chain_fan(2000, 500);           /* 3000 ops, 3500 edges */
    clock_t t0 = clock();
    gc_dag_layout L;
    CHECK(gc_dag_layout_subgraph(m, 0, &L) == GC_OK);
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_EQ_INT(L.n, 3000);
    CHECK_MSG(s < 1.0, "layout of 3000 ops took %.2f s", s);
    layout_invariants(&L);
    gc_dag_layout_free(&L);
    gc_model_free(m);
}

/* hostile names: tensor and custom op names that try to end the data block, open markup,
 * break out of an attribute, and carry an invalid UTF-8 byte and a control byte */
#define HOSTILE "</script><img src=x onerror=alert(1)>"
static gc_model *hostile(void) {
    gc_rb b = gc_rb_new();
    const int32_t sh[2] = { 1, 4 };
    int32_t x = gc_rb_t(&b, HOSTILE, F32, 2, sh), c = gc_rb_c(&b, "c\" onclick=\"alert(2)", F32, 2, sh, NULL);
    int32_t y = gc_rb_t(&b, "y\xff\x1b[31m<!--", F32, 2, sh), z = gc_rb_t(&b, "z", F32, 2, sh);
    gc_rb_op(&b, GC_OP_ADD, 1, 2, (int32_t[]){ x, c }, 1, (int32_t[]){ y });
    gc_rb_custom(&b, "Evil" HOSTILE, 1, (int32_t[]){ y }, 1, (int32_t[]){ z }, NULL, 0);
    b.m->subgraphs[0].name = "sg" HOSTILE;
    return gc_rb_done(&b);
}

static bool valid_utf8(const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t l = (unsigned char)s[i] < 0x80 ? 1 : gc_utf8_len((const unsigned char *)s + i, n - i);
        if (!l) return false;
        i += l;
    }
    return true;
}

GC_TEST(report_html_escapes_hostile_names) {
    gc_model *m = hostile();
    char err[256];
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r != NULL);
    if (!r) { gc_model_free(m); return; }
    gc_html_report rep = { .verb = "check", .model = "m" HOSTILE ".tflite", .version = "t", .text = "text " HOSTILE };
    gc_str o = {0};
    gc_html_render(&rep, r, m, &o);
    CHECK(o.s && !o.oom);
    if (o.s) {
        CHECK_EQ_INT(count(o.s, "<img"), 0);
        CHECK_EQ_INT(count(o.s, "</script>"), 2);          /* the data block's and the script's */
        CHECK_EQ_INT(count(o.s, "<script"), 2);
        CHECK_EQ_INT(count(o.s, "onclick=\"alert"), 0);
        CHECK_EQ_INT(count(o.s, "<!--"), 0);
        CHECK(count(o.s, "\x1b") == 0);
        CHECK(valid_utf8(o.s, o.n));
        CHECK(strstr(o.s, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") != NULL);   /* markup text */
        CHECK(strstr(o.s, "\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e") != NULL);  /* data */
        /* the custom op's label in the graph, cut to fit and escaped */
        CHECK(strstr(o.s, ">Evil&lt;/script&gt;\xe2\x80\xa6</text>") != NULL);
    }
    gc_str_free(&o);
    gc_check_free(r);
    gc_model_free(m);
}

/* the policy allows exactly the page's script: its hash is the script's SHA-256 */
GC_TEST(report_html_csp_hash_matches_script) {
    gc_model *m = chain_fan(5, 2);
    char err[256];
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r != NULL);
    if (!r) { gc_model_free(m); return; }
    gc_html_report rep = { .verb = "check", .model = "m.tflite", .version = "t" };
    gc_str o = {0};
    gc_html_render(&rep, r, m, &o);
    const char *p = o.s ? strstr(o.s, "script-src 'sha256-") : NULL;
    const char *s = o.s ? strstr(o.s, "\n<script>") : NULL;
    CHECK(p && s);
    if (p && s) {
        s += strlen("\n<script>");
        const char *e = strstr(s, "</script>");
        CHECK(e != NULL);
        char b[45];
        gc_html_sha256_b64(s, (size_t)(e - s), b);
        CHECK_MSG(!strncmp(p + strlen("script-src 'sha256-"), b, 44), "policy %.80s, script hash %s", p, b);
        CHECK(strstr(o.s, "default-src 'none'") != NULL);
        CHECK_EQ_INT(count(o.s, "http://") - count(o.s, "xmlns=\"http://www.w3.org/2000/svg\""), 0);   /* nothing fetched */
        CHECK_EQ_INT(count(o.s, "https://"), 0);
    }
    gc_str_free(&o);
    gc_check_free(r);
    gc_model_free(m);
}

/* legend counts and node classes follow the check result; error series in the data */
GC_TEST(report_html_classes_and_series) {
    gc_rb b = gc_rb_new();
    const int32_t sh[2] = { 1, 8 };
    int32_t x = gc_rb_t(&b, "x", F32, 2, sh), c = gc_rb_c(&b, "c", F32, 2, sh, NULL);
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        int32_t y = gc_rb_t(&b, name, F32, 2, sh);
        gc_rb_op(&b, GC_OP_ADD, i == 2 ? 99 : 1, 2, (int32_t[]){ x, c }, 1, (int32_t[]){ y });   /* op 2 refused */
        x = y;
    }
    gc_model *m = gc_rb_done(&b);
    char err[256];
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r != NULL);
    if (!r) { gc_model_free(m); return; }
    int32_t rej = 0, gpu = 0, cpu = 0;
    for (int32_t k = 0; k < r->n_nodes; k++) {
        gc_html_class cl = gc_html_node_class(r, &r->nodes[k], false);
        rej += cl == GC_HTML_REJECTED; gpu += cl == GC_HTML_GPU; cpu += cl == GC_HTML_CPU;
    }
    CHECK_EQ_INT(rej, 1);
    CHECK_EQ_INT(gpu + cpu, 5);
    gc_html_probe pr[3] = {
        { .subgraph = 0, .node = 0, .tensor = -1, .max_abs = 1e-6, .rel = 1e-6, .corr = 1, .snr_db = 120 },
        { .subgraph = 0, .node = 3, .tensor = -1, .max_abs = 0.5, .rel = 0.2, .corr = 0.9, .snr_db = 14 },
        { .subgraph = 0, .node = 5, .tensor = -1, .max_abs = NAN, .rel = INFINITY, .corr = NAN, .snr_db = NAN,
          .nonfinite = true },
    };
    gc_html_series s = { .title = "A vs B", .tol = 1e-2, .first = 1, .n_probes = 3, .probes = pr };
    gc_html_report rep = { .verb = "bisect", .model = "m.tflite", .version = "t", .n_series = 1, .series = &s,
                           .color_by_error = true };
    gc_str o = {0};
    gc_html_render(&rep, r, m, &o);
    CHECK(o.s != NULL);
    if (o.s) {
        char want[96];
        snprintf(want, sizeof want, "rejected by a rule: %d<", rej);
        CHECK_MSG(strstr(o.s, want) != NULL, "no '%s'", want);
        snprintf(want, sizeof want, "on the GPU: %d<", gpu);
        CHECK_MSG(strstr(o.s, want) != NULL, "no '%s'", want);
        CHECK(strstr(o.s, "id=\"gc-first-divergent\">First divergent: node ") != NULL);
        CHECK(strstr(o.s, "first divergent: op 3</text>") != NULL);           /* marked on the plots */
        CHECK_EQ_INT(count(o.s, "<figure class=\"plot\">"), 3);
        CHECK(strstr(o.s, "\"colorByError\":true") != NULL);
        CHECK(strstr(o.s, "\"rel\":null,\"snr\":null,\"exact\":false,\"corr\":null,\"nf\":true") != NULL);
        CHECK(strstr(o.s, "class=\"n c1\"") != NULL);                          /* a red node */
        CHECK_EQ_INT(count(o.s, "<g class=\"n "), 6);
    }
    gc_str_free(&o);
    gc_check_free(r);
    gc_model_free(m);
}

GC_TEST(report_model_explorer_ids) {
    gc_model *m = chain_fan(4, 0);
    char id[64];
    gc_me_graph_id(m, 0, true, id, sizeof id);
    CHECK(!strcmp(id, "main"));                   /* gc_rb names subgraph 0 "main" */
    m->subgraphs[0].name = "";
    gc_me_graph_id(m, 0, true, id, sizeof id);
    CHECK(!strcmp(id, "main"));
    gc_me_graph_id(m, 3, false, id, sizeof id);
    CHECK(!strcmp(id, "subgraph_3"));
    /* a signature naming the unnamed subgraph: newer adapters use its key */
    CHECK(gc_grow((void **)&m->signatures, &m->cap_signatures, 1, sizeof *m->signatures));
    memset(&m->signatures[0], 0, sizeof m->signatures[0]);
    m->signatures[0].key = "serving_default";
    m->signatures[0].subgraph = 0;
    m->n_signatures = 1;
    gc_me_graph_id(m, 0, true, id, sizeof id);
    CHECK(!strcmp(id, "serving_default"));
    char err[256];
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    CHECK(r != NULL);
    if (r) {
        gc_str o = {0};
        gc_me_verdict_json(r, m, &o);
        CHECK(o.s != NULL);
        if (o.s) {
            CHECK(strstr(o.s, "\"serving_default\": {") != NULL);   /* both ids, same data */
            CHECK(strstr(o.s, "\"main\": {") != NULL);
            CHECK_EQ_INT(count(o.s, "\"3\": {\"value\": \"gpu\""), 2);
            CHECK_EQ_INT(count(o.s, "\"4\": "), 0);                  /* node ids are the 4 ops */
        }
        gc_str_free(&o);
        gc_check_free(r);
    }
    gc_html_probe pr[3] = {
        { .subgraph = 0, .node = 1, .rel = 1e-5 }, { .subgraph = 0, .node = 1, .rel = 0.5 },
        { .subgraph = 0, .node = 2, .rel = NAN, .nonfinite = true },
    };
    gc_html_series s = { .title = "fp32 vs fp16", .tol = 1e-2, .first = 1, .n_probes = 3, .probes = pr };
    gc_str e = {0};
    gc_me_error_json(&s, m, &e);
    CHECK(e.s != NULL);
    if (e.s) {
        CHECK_EQ_INT(count(e.s, "\"1\": {\"value\": 0.5, \"bgColor\": \"#ea4335\"}"), 2);   /* the worst probe */
        CHECK_EQ_INT(count(e.s, "\"2\": {\"value\": \"nonfinite\""), 2);
        CHECK_EQ_INT(count(e.s, "\"0\": "), 0);                      /* not measured: left out */
    }
    gc_str_free(&e);
    gc_model_free(m);
}

GC_TEST(report_write_file_refuses_non_files) {
    char dir[] = "/tmp/gctest-html-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    gc_str s = {0};
    gc_str_puts(&s, "<!DOCTYPE html>");
    char err[512];
    CHECK(gc_report_check_path(dir, err, sizeof err) == GC_ERR_USAGE);
    CHECK(gc_report_write_file(dir, &s, err, sizeof err) == GC_ERR_USAGE);
    char path[600];
    snprintf(path, sizeof path, "%s/r.html", dir);
    CHECK(gc_report_check_path(path, err, sizeof err) == GC_OK);
    CHECK(gc_report_write_file(path, &s, err, sizeof err) == GC_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == (off_t)s.n);
    s.oom = true;
    CHECK(gc_report_write_file(path, &s, err, sizeof err) == GC_ERR_NOMEM);
    unlink(path);
    rmdir(dir);
    gc_str_free(&s);
}

/* a measured "wrong" fact makes GPU nodes purple: class, legend, the numerics findings
 * table with the fact's message and evidence, the panel data, the overlay's value */
static const gc_gpu_runtime t_rts[] = { { "native-9.9.9", "native", "9.9.9", true, "a test runtime" } };
static const gc_fact_cond t_mul[] = { { "in1.const", GC_FC_EQ, "1" } };
static const gc_gpu_fact t_facts[] = {
    { "numerics.test_mul_const", "native-9.9.9", "test-gpu", "MUL", "in1.const=1", 1, t_mul, GC_FPREC_ANY,
      GC_FACT_WRONG, "max_abs=3 corr=0.5", "mul_c1,mul_c2", "", "MUL by a constant <wrong> on this GPU", 1 },
};
static const gc_gpu_facts t_table = { "test.tsv", 1, t_rts, 1, t_facts };

GC_TEST(report_html_wrong_numbers_are_purple) {
    gc_rb b = gc_rb_new();
    const int32_t sh[2] = { 1, 8 };
    int32_t x = gc_rb_t(&b, "x", F32, 2, sh), c = gc_rb_c(&b, "c", F32, 2, sh, NULL);
    int32_t y = gc_rb_t(&b, "y", F32, 2, sh), z = gc_rb_t(&b, "z", F32, 2, sh);
    gc_rb_op(&b, GC_OP_ADD, 1, 2, (int32_t[]){ x, c }, 1, (int32_t[]){ y });
    gc_rb_op(&b, GC_OP_MUL, 1, 2, (int32_t[]){ y, c }, 1, (int32_t[]){ z });
    gc_model *m = gc_rb_done(&b);
    gc_check_opts co = { .facts = &t_table };
    char err[256];
    gc_check_result *r = gc_check_ex(m, GC_TARGET_MLDRIFT, &co, err, sizeof err);
    CHECK(r != NULL);
    if (!r) { gc_model_free(m); return; }
    CHECK_EQ_INT(r->wrong_nodes, 1);
    CHECK(gc_html_node_class(r, &r->nodes[1], false) == GC_HTML_WRONG);
    CHECK(gc_html_node_class(r, &r->nodes[0], false) == GC_HTML_GPU);
    gc_html_report rep = { .verb = "check", .model = "m.tflite", .version = "t" };
    gc_str o = {0};
    gc_html_render(&rep, r, m, &o);
    CHECK(o.s != NULL);
    if (o.s) {
        CHECK(strstr(o.s, "on the GPU, wrong numbers (measured): 1<") != NULL);
        CHECK(strstr(o.s, "<g class=\"n c3\" id=\"n1\"") != NULL);
        CHECK(strstr(o.s, "id=\"gc-numerics\"") != NULL);
        CHECK(strstr(o.s, "MUL by a constant &lt;wrong&gt; on this GPU") != NULL);
        CHECK(strstr(o.s, "max_abs=3 corr=0.5") != NULL);
        CHECK(strstr(o.s, "\"num\":\"wrong\",\"numr\":\"numerics.test_mul_const\",\"ev\":{\"id\":\"numerics.test_mul_const\"") != NULL);
    }
    gc_str e = {0};
    gc_me_verdict_json(r, m, &e);
    CHECK(e.s && strstr(e.s, "\"1\": {\"value\": \"wrong\"") != NULL);
    gc_str_free(&e);
    gc_str_free(&o);
    gc_check_free(r);
    gc_model_free(m);
}
