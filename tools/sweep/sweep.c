/* sweep.c — build/gpu-sweep: writes the GPU miscompute sweep (sweep.h) to a folder.
 *
 *   build/gpu-sweep OUT_DIR [--only FAMILY,...] [--verify]
 *   build/gpu-sweep --list
 *
 * writes OUT_DIR/<case>.tflite for every case of the selected families,
 * OUT_DIR/inputs/<case>/input_<k>.npy where a case gives its own input values, and
 * OUT_DIR/manifest.jsonl: one JSON object per line and case, in generation order:
 *   name, file, family, op (the op under test), what (one line), attrs (flat object),
 *   inputs [{name, dtype, shape, values: "sin" | "inputs/<case>/input_<k>.npy"}],
 *   outputs [{name, dtype, shape}], ops (every op of the graph, in order), bytes,
 *   predicted {gpu_nodes, total_nodes, gpu_clean}: gpuclean check's mldrift verdict.
 * --verify re-reads every written model through the model layer, requires it equal to
 * what was built and runs the checker on it. Exit 0, 1 on a failure, 2 on bad usage.
 */
#include "sweep.h"
#include "check/check.h"
#include "verify/npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const char *dir;
    bool verify;
    gc_str manifest;
    uint64_t bytes, largest;
    char largest_name[128];
} writer;

static int mkdir_p(const char *d) { return mkdir(d, 0777) && errno != EEXIST ? -1 : 0; }

static void json_shape(gc_str *j, int rank, const int32_t *shape) {
    gc_str_putc(j, '[');
    for (int i = 0; i < rank; i++) gc_str_printf(j, "%s%d", i ? "," : "", shape[i]);
    gc_str_putc(j, ']');
}

static void json_tensors(gc_str *j, const gc_subgraph *sg, int n, const int32_t *idx, const char *case_name,
                         const sw_input *in) {
    gc_str_putc(j, '[');
    for (int i = 0; i < n; i++) {
        const gc_tensor *t = &sg->tensors[idx[i]];
        gc_str_printf(j, "%s{\"name\":", i ? "," : "");
        gc_str_json(j, t->name);
        gc_str_puts(j, ",\"dtype\":");
        gc_str_json(j, gc_type_name(t->type));
        gc_str_puts(j, ",\"shape\":");
        json_shape(j, t->rank, t->shape);
        if (in) {
            if (i < SW_MAX_INPUTS && in[i].data) gc_str_printf(j, ",\"values\":\"inputs/%s/input_%d.npy\"", case_name, i);
            else gc_str_puts(j, ",\"values\":\"sin\"");
        }
        gc_str_putc(j, '}');
    }
    gc_str_putc(j, ']');
}

static int write_case(sw_ctx *x, const sw_meta *meta, const gc_model *m, const sw_input *in, int n_in) {
    writer *w = x->user;
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s.tflite", w->dir, meta->name);
    uint8_t *buf = NULL;
    size_t size = 0;
    if (gc_model_write_mem(m, NULL, &buf, &size, err, sizeof err) != GC_OK) {
        gc_errf(x->err, sizeof x->err, "%s: %s", meta->name, err);
        x->n_errors++;
        return 1;
    }
    const void *chunks[1] = { buf };
    size_t lens[1] = { size };
    if (gc_write_atomic(path, chunks, lens, 1, err, sizeof err) != GC_OK) {
        gc_errf(x->err, sizeof x->err, "%s", err);
        x->n_errors++;
        free(buf);
        return 1;
    }
    free(buf);
    w->bytes += size;
    if (size > w->largest) { w->largest = size; snprintf(w->largest_name, sizeof w->largest_name, "%s", meta->name); }

    const gc_subgraph *sg = &m->subgraphs[0];
    for (int k = 0; k < n_in; k++) {
        if (!in[k].data) continue;
        char d[2048];
        snprintf(d, sizeof d, "%s/inputs", w->dir);
        mkdir_p(d);
        snprintf(d, sizeof d, "%s/inputs/%s", w->dir, meta->name);
        mkdir_p(d);
        snprintf(path, sizeof path, "%s/input_%d.npy", d, k);
        if (gc_npy_write(path, in[k].type, in[k].rank, in[k].shape, in[k].data, err, sizeof err) != GC_OK) {
            gc_errf(x->err, sizeof x->err, "%s", err);
            x->n_errors++;
            return 1;
        }
    }

    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    if (!r) { gc_errf(x->err, sizeof x->err, "%s: check: %s", meta->name, err); x->n_errors++; return 1; }
    if (w->verify) {
        snprintf(path, sizeof path, "%s/%s.tflite", w->dir, meta->name);
        gc_model *back = gc_model_read_file(path, err, sizeof err);
        if (!back) { gc_errf(x->err, sizeof x->err, "%s: re-read: %s", path, err); x->n_errors++; gc_check_free(r); return 1; }
        bool same = gc_model_equal(m, back, err, sizeof err);
        gc_check_result *r2 = same ? gc_check(back, GC_TARGET_MLDRIFT, err, sizeof err) : NULL;
        if (!same || !r2 || r2->gpu_nodes != r->gpu_nodes || r2->total_nodes != r->total_nodes) {
            gc_errf(x->err, sizeof x->err, "%s: re-read model %s: %s", path, same ? "checks differently" : "differs", err);
            x->n_errors++;
        }
        gc_check_free(r2);
        gc_model_free(back);
        if (x->n_errors) { gc_check_free(r); return 1; }
    }

    gc_str *j = &w->manifest;
    gc_str_puts(j, "{\"name\":");
    gc_str_json(j, meta->name);
    gc_str_printf(j, ",\"file\":\"%s.tflite\",\"family\":", meta->name);
    gc_str_json(j, meta->family);
    gc_str_puts(j, ",\"op\":");
    gc_str_json(j, meta->op);
    gc_str_puts(j, ",\"what\":");
    gc_str_json(j, meta->what);
    gc_str_printf(j, ",\"attrs\":%s,\"inputs\":", meta->attrs_json);
    json_tensors(j, sg, sg->n_inputs, sg->inputs, meta->name, in);
    gc_str_puts(j, ",\"outputs\":");
    json_tensors(j, sg, sg->n_outputs, sg->outputs, meta->name, NULL);
    gc_str_puts(j, ",\"ops\":[");
    for (int i = 0; i < sg->n_ops; i++) {
        if (i) gc_str_putc(j, ',');
        gc_str_json(j, gc_op_name(m, &sg->ops[i]));
    }
    gc_str_printf(j, "],\"bytes\":%zu,\"predicted\":{\"gpu_nodes\":%d,\"total_nodes\":%d,\"gpu_clean\":%s}}\n", size,
                  r->gpu_nodes, r->total_nodes, r->gpu_clean ? "true" : "false");
    gc_check_free(r);
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: gpu-sweep OUT_DIR [--only FAMILY,...] [--verify]\n"
                    "       gpu-sweep --list\n"
                    "  writes OUT_DIR/<case>.tflite, OUT_DIR/inputs/<case>/input_<k>.npy and OUT_DIR/manifest.jsonl\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *only = NULL;
    bool verify = false, list = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--verify")) verify = true;
        else if (!strcmp(argv[i], "--list")) list = true;
        else if (argv[i][0] == '-' || dir) return usage();
        else dir = argv[i];
    }
    if (list) {
        for (int i = 0; i < sw_families_n; i++) printf("%-16s %s\n", sw_families[i].name, sw_families[i].what);
        return 0;
    }
    if (!dir) return usage();
    if (only) {
        for (const char *p = only; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            bool known = false;
            for (int i = 0; i < sw_families_n; i++)
                if (strlen(sw_families[i].name) == len && !strncmp(sw_families[i].name, p, len)) known = true;
            if (!known) { fprintf(stderr, "gpu-sweep: unknown family '%.*s' (gpu-sweep --list)\n", (int)len, p); return 2; }
            if (!e) break;
            p = e + 1;
        }
    }
    if (mkdir_p(dir)) { fprintf(stderr, "gpu-sweep: %s: %s\n", dir, strerror(errno)); return 2; }
    writer w = { .dir = dir, .verify = verify };
    sw_ctx x = { .sink = write_case, .user = &w, .only = only };
    sw_run_all(&x);
    if (x.n_errors) { fprintf(stderr, "gpu-sweep: %s\n", x.err); gc_str_free(&w.manifest); return 1; }
    char path[2048], err[512];
    snprintf(path, sizeof path, "%s/manifest.jsonl", dir);
    const void *chunks[1] = { w.manifest.s ? w.manifest.s : "" };
    size_t lens[1] = { w.manifest.n };
    if (gc_write_atomic(path, chunks, lens, 1, err, sizeof err) != GC_OK) { fprintf(stderr, "gpu-sweep: %s\n", err); return 1; }
    gc_str_free(&w.manifest);
    printf("gpu-sweep: %d cases (%.1f KiB of models, largest %s %.1f KiB)%s -> %s\n", x.n_cases, (double)w.bytes / 1024,
           w.largest_name, (double)w.largest / 1024, verify ? ", every one re-read and checked" : "", dir);
    return 0;
}
