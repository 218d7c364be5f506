/* litert.c — runs the LiteRT.js runner (node runtime/litert/runner.mjs) under a time
 * limit, reads both runtimes' result.json files, compares GPU outputs with CPU outputs
 * and the native CPU with the LiteRT.js CPU, and reaches the verdict of `gpuclean
 * litert` (see litert.h). */
#include "runtime/litert.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/litert_json.h"
#include "verify/npy.h"

/* Copy a C string into a fixed buffer, truncating (always NUL-terminated). */
static void sncopy(char *dst, size_t n, const char *src) {
    if (!n) return;
    size_t k = strnlen(src, n - 1);
    memcpy(dst, src, k);
    dst[k] = 0;
}

static const char *RT_NAME[3] = { "", "js", "native" };

/* ---- the LiteRT.js runner ------------------------------------------------------------- */

static bool is_file(const char *p) { struct stat st; return stat(p, &st) == 0 && S_ISREG(st.st_mode); }

static bool find_node(char *buf, size_t n) {
    const char *e = getenv("GPUCLEAN_NODE");
    if (e && *e) { snprintf(buf, n, "%s", e); return access(e, X_OK) == 0; }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len) {
            snprintf(buf, n, "%.*s/node", (int)len, path);
            if (access(buf, X_OK) == 0 && is_file(buf)) return true;
        }
        path += len;
        if (*path == ':') path++;
    }
    return false;
}

static int count_modes(const gc_lrt_opts *o) {
    int n = (o->accelerators & GC_LRT_CPU) ? 1 : 0;
    if (o->accelerators & GC_LRT_GPU) n += ((o->precisions & GC_LRT_FP32) ? 1 : 0) + ((o->precisions & GC_LRT_FP16) ? 1 : 0);
    return n;
}

gc_status gc_lrt_run_js(const gc_lrt_opts *o, const char *outdir, char *err, size_t errlen) {
    char home[4096], runner[4300], core[4400], node[4096];
    if (!gc_lrt_home(home, sizeof home)) {
        gc_errf(err, errlen, "LiteRT.js runtime not installed: run make test / tools/setup.sh (runtime/litert not found; set GPUCLEAN_HOME)");
        return GC_ERR_UNSUPPORTED;
    }
    snprintf(runner, sizeof runner, "%s/runtime/litert/runner.mjs", home);
    snprintf(core, sizeof core, "%s/runtime/litert/node_modules/@litertjs/core/package.json", home);
    if (!is_file(runner) || !is_file(core)) {
        gc_errf(err, errlen, "LiteRT.js runtime not installed: run make test / tools/setup.sh, "
                "or gpuclean setup-js for a pip install (%s missing)",
                is_file(runner) ? "runtime/litert/node_modules" : "runtime/litert/runner.mjs");
        return GC_ERR_UNSUPPORTED;
    }
    if (!find_node(node, sizeof node)) {
        gc_errf(err, errlen, "LiteRT.js runtime not installed: run make test / tools/setup.sh (node not found)");
        return GC_ERR_UNSUPPORTED;
    }
    if (mkdir(outdir, 0755) && errno != EEXIST) { gc_errf(err, errlen, "%s: %s", outdir, strerror(errno)); return GC_ERR_IO; }

    double per = o->timeout_s > 0 ? o->timeout_s : 120;
    char acc[8], prec[8], tmo[32], runs[16], seed[32], logp[4200];
    snprintf(acc, sizeof acc, "%s", o->accelerators == (GC_LRT_CPU | GC_LRT_GPU) ? "both" : o->accelerators == GC_LRT_GPU ? "gpu" : "cpu");
    snprintf(prec, sizeof prec, "%s", o->precisions == (GC_LRT_FP32 | GC_LRT_FP16) ? "both" : o->precisions == GC_LRT_FP16 ? "fp16" : "fp32");
    snprintf(tmo, sizeof tmo, "%g", per);
    snprintf(runs, sizeof runs, "%d", o->runs < 0 ? 3 : o->runs);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    snprintf(logp, sizeof logp, "%s/runner.log", outdir);

    int argc = 0, cap = 20 + 2 * o->n_inputs;
    char **argv = calloc((size_t)cap, sizeof *argv);
    char **inargs = calloc((size_t)o->n_inputs + 1, sizeof *inargs);
    if (!argv || !inargs) { free(argv); free(inargs); gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    argv[argc++] = node; argv[argc++] = runner; argv[argc++] = (char *)o->model;
    argv[argc++] = "--out"; argv[argc++] = (char *)outdir;
    argv[argc++] = "--accelerator"; argv[argc++] = acc;
    argv[argc++] = "--precision"; argv[argc++] = prec;
    argv[argc++] = "--timeout"; argv[argc++] = tmo;
    argv[argc++] = "--runs"; argv[argc++] = runs;
    if (o->input_kind == GC_LRT_IN_RANDOM) { argv[argc++] = "--random"; argv[argc++] = seed; }
    for (int i = 0; i < o->n_inputs; i++) {
        size_t len = strlen(o->inputs[i].key) + strlen(o->inputs[i].file) + 2;
        inargs[i] = malloc(len);
        if (!inargs[i]) continue;
        snprintf(inargs[i], len, "%s=%s", o->inputs[i].key, o->inputs[i].file);
        argv[argc++] = "--input"; argv[argc++] = inargs[i];
    }
    argv[argc] = NULL;

    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) { dup2(nul, 0); close(nul); }
        setpgid(0, 0);                               /* so a timeout kills its workers too */
        execv(node, argv);
        fprintf(stderr, "exec %s: %s\n", node, strerror(errno));
        _exit(127);
    }
    for (int i = 0; i < o->n_inputs; i++) free(inargs[i]);
    free(inargs);
    free(argv);
    if (pid < 0) { gc_errf(err, errlen, "fork: %s", strerror(errno)); return GC_ERR_RUNTIME; }

    double limit = per * (count_modes(o) + 1) + 30, deadline = gc_now() + limit;
    int st = 0;
    bool timed_out = false;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) { gc_errf(err, errlen, "waitpid: %s", strerror(errno)); return GC_ERR_RUNTIME; }
        if (gc_now() > deadline) {
            kill(-pid, SIGKILL); kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            timed_out = true;
            break;
        }
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    char line[1024] = "";
    FILE *f = fopen(logp, "r");
    if (f) {                                         /* the last non-empty line */
        char buf[1024];
        while (fgets(buf, sizeof buf, f)) if (buf[0] && buf[0] != '\n') snprintf(line, sizeof line, "%s", buf);
        fclose(f);
        line[strcspn(line, "\n")] = 0;
    }
    const char *msg = !strncmp(line, "runner.mjs: ", 12) ? line + 12 : line;
    if (timed_out) { gc_errf(err, errlen, "LiteRT.js runner: no result within %.0f s (killed)", limit); return GC_ERR_RUNTIME; }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return GC_OK;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 2) { gc_errf(err, errlen, "%s", msg); return GC_ERR_USAGE; }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 3 && strstr(msg, "not installed")) { gc_errf(err, errlen, "%s", msg); return GC_ERR_UNSUPPORTED; }
    if (WIFSIGNALED(st)) gc_errf(err, errlen, "LiteRT.js runner killed by signal %d (%s)", WTERMSIG(st), msg);
    else gc_errf(err, errlen, "LiteRT.js runner failed (exit %d): %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, msg);
    return GC_ERR_RUNTIME;
}

/* ---- loading result.json ---------------------------------------------------------------- */

static const char *dupstr(gc_arena *a, const char *s) { return s ? gc_arena_strdup(a, s) : NULL; }

static void load_tensors(gc_arena *a, const gc_lj *arr, gc_lrt_tensor **out, int *n) {
    int c = gc_lj_len(arr);
    *n = 0;
    *out = c ? gc_arena_alloc(a, (size_t)c * sizeof **out) : NULL;
    if (c && !*out) return;
    for (int i = 0; i < c; i++) {
        const gc_lj *t = gc_lj_at(arr, i);
        gc_lrt_tensor *x = &(*out)[i];
        x->name = dupstr(a, gc_lj_str(gc_lj_get(t, "name"), ""));
        x->dtype = dupstr(a, gc_lj_str(gc_lj_get(t, "dtype"), "?"));
        x->file = dupstr(a, gc_lj_str(gc_lj_get(t, "file"), NULL));
        const gc_lj *sh = gc_lj_get(t, "shape");
        x->rank = gc_lj_len(sh) > 8 ? 8 : gc_lj_len(sh);
        for (int d = 0; d < x->rank; d++) x->shape[d] = (int64_t)gc_lj_num(gc_lj_at(sh, d), 0);
        x->n = (uint64_t)gc_lj_num(gc_lj_get(t, "n"), 0);
    }
    *n = c;
}

gc_status gc_lrt_result_load(const char *dir, gc_lrt_result *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->model_nodes = -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/result.json", dir);
    const gc_lj *root = gc_lj_parse_file(&r->arena, path, err, errlen);
    if (!root) return GC_ERR_FORMAT;
    if (gc_lj_num(gc_lj_get(root, "schema"), 0) != 1) { gc_errf(err, errlen, "%s: not schema 1", path); return GC_ERR_FORMAT; }
    gc_arena *a = &r->arena;
    r->dir = dupstr(a, dir);
    r->runtime = dupstr(a, gc_lj_str(gc_lj_get(root, "runtime"), "?"));
    const gc_lj *v = gc_lj_get(root, "versions");
    char vt[512];
    if (!strcmp(r->runtime, "js")) {
        r->version = dupstr(a, gc_lj_str(gc_lj_get(v, "litertjs"), "?"));
        snprintf(vt, sizeof vt, "LiteRT.js %s (webgpu %s, node %s)", r->version,
                 gc_lj_str(gc_lj_get(v, "webgpu"), "?"), gc_lj_str(gc_lj_get(v, "node"), "?"));
    } else {
        r->version = dupstr(a, gc_lj_str(gc_lj_get(v, "litert_native"), "?"));
        snprintf(vt, sizeof vt, "native libLiteRt.so %s (ai-edge-litert wheel)", r->version);
    }
    r->versions_text = dupstr(a, vt);
    const gc_lj *g = gc_lj_get(root, "gpu");
    if (g && g->type == GC_LJ_OBJ) {
        r->gpu_probed = true;
        r->gpu_available = gc_lj_bool(gc_lj_get(g, "available"), false);
        r->gpu_reason = dupstr(a, gc_lj_str(gc_lj_get(g, "reason"), NULL));
        const gc_lj *ad = gc_lj_get(g, "adapter");
        if (ad && ad->type == GC_LJ_OBJ) {
            char t[512];
            snprintf(t, sizeof t, "%s %s %s %s", gc_lj_str(gc_lj_get(ad, "vendor"), ""),
                     gc_lj_str(gc_lj_get(ad, "architecture"), ""), gc_lj_str(gc_lj_get(ad, "device"), ""),
                     gc_lj_str(gc_lj_get(ad, "description"), ""));
            r->gpu_adapter = dupstr(a, t);
        }
    }
    const gc_lj *modes = gc_lj_get(root, "modes");
    r->n_modes = gc_lj_len(modes);
    r->modes = r->n_modes ? gc_arena_alloc(a, (size_t)r->n_modes * sizeof *r->modes) : NULL;
    if (r->n_modes && !r->modes) { gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    for (int i = 0; i < r->n_modes; i++) {
        const gc_lj *m = gc_lj_at(modes, i);
        gc_lrt_mode *x = &r->modes[i];
        x->mode = dupstr(a, gc_lj_str(gc_lj_get(m, "mode"), "?"));
        x->gpu = !strcmp(gc_lj_str(gc_lj_get(m, "accelerator"), "cpu"), "gpu");
        x->status = dupstr(a, gc_lj_str(gc_lj_get(m, "status"), "error"));
        x->error = dupstr(a, gc_lj_str(gc_lj_get(m, "error"), NULL));
        x->error_class = dupstr(a, gc_lj_str(gc_lj_get(m, "error_class"), NULL));
        x->limit = dupstr(a, gc_lj_str(gc_lj_get(m, "limit"), NULL));
        const gc_lj *c = gc_lj_get(m, "compile");
        x->compile_ok = gc_lj_bool(gc_lj_get(c, "ok"), false);
        x->compile_ms = gc_lj_num(gc_lj_get(c, "ms"), -1);
        const gc_lj *res = gc_lj_get(m, "residency");
        if (res && res->type == GC_LJ_OBJ) {
            x->has_residency = true;
            x->gpu_ops = (int)gc_lj_num(gc_lj_get(res, "gpu_ops"), 0);
            x->cpu_ops = (int)gc_lj_num(gc_lj_get(res, "cpu_ops"), 0);
            x->residency_line = dupstr(a, gc_lj_str(gc_lj_get(res, "line"), NULL));
        }
        const gc_lj *u = gc_lj_get(m, "unsupported");
        x->n_unsup = gc_lj_len(u);
        x->unsup = x->n_unsup ? gc_arena_alloc(a, (size_t)x->n_unsup * sizeof *x->unsup) : NULL;
        if (!x->unsup) x->n_unsup = 0;
        for (int k = 0; k < x->n_unsup; k++) {
            x->unsup[k].op = dupstr(a, gc_lj_str(gc_lj_get(gc_lj_at(u, k), "op"), "?"));
            x->unsup[k].reason = dupstr(a, gc_lj_str(gc_lj_get(gc_lj_at(u, k), "reason"), ""));
        }
        x->fallback_all = gc_lj_bool(gc_lj_get(m, "fallback_all"), false);
        x->delegate_init_failed = gc_lj_bool(gc_lj_get(m, "delegate_init_failed"), false);
        const gc_lj *fa = gc_lj_get(m, "fully_accelerated");
        x->fully_accelerated = (fa && fa->type == GC_LJ_BOOL) ? fa->b : -1;
        x->executed_on = dupstr(a, gc_lj_str(gc_lj_get(m, "executed_on"), NULL));
        x->peak_rss_kb = (int64_t)gc_lj_num(gc_lj_get(m, "peak_rss_kb"), -1);
        const gc_lj *fn = gc_lj_get(m, "failed_node");
        x->failed_op = dupstr(a, gc_lj_str(gc_lj_get(fn, "op"), NULL));
        x->failed_stage = dupstr(a, gc_lj_str(gc_lj_get(fn, "stage"), NULL));
        const gc_lj *le = gc_lj_get(m, "log_errors");
        x->n_log_errors = gc_lj_len(le);
        x->log_errors = x->n_log_errors ? gc_arena_alloc(a, (size_t)x->n_log_errors * sizeof *x->log_errors) : NULL;
        if (!x->log_errors) x->n_log_errors = 0;
        for (int k = 0; k < x->n_log_errors; k++) x->log_errors[k] = dupstr(a, gc_lj_str(gc_lj_at(le, k), ""));
        const gc_lj *sg = gc_lj_get(m, "signatures");
        x->n_sigs = gc_lj_len(sg);
        x->sigs = x->n_sigs ? gc_arena_alloc(a, (size_t)x->n_sigs * sizeof *x->sigs) : NULL;
        if (!x->sigs) x->n_sigs = 0;
        for (int k = 0; k < x->n_sigs; k++) {
            const gc_lj *s = gc_lj_at(sg, k);
            gc_lrt_sig *y = &x->sigs[k];
            y->index = (int)gc_lj_num(gc_lj_get(s, "index"), k);
            y->key = dupstr(a, gc_lj_str(gc_lj_get(s, "key"), ""));
            y->ok = gc_lj_bool(gc_lj_get(s, "ok"), false);
            y->error = dupstr(a, gc_lj_str(gc_lj_get(s, "error"), NULL));
            y->error_class = dupstr(a, gc_lj_str(gc_lj_get(s, "error_class"), NULL));
            y->first_ms = gc_lj_num(gc_lj_get(s, "first_ms"), -1);
            y->avg_ms = gc_lj_num(gc_lj_get(s, "avg_ms"), -1);
            y->median_ms = gc_lj_num(gc_lj_get(s, "median_ms"), -1);
            load_tensors(a, gc_lj_get(s, "inputs"), &y->inputs, &y->n_inputs);
            load_tensors(a, gc_lj_get(s, "outputs"), &y->outputs, &y->n_outputs);
        }
    }
    return GC_OK;
}

void gc_lrt_result_free(gc_lrt_result *r) { gc_arena_free(&r->arena); memset(r, 0, sizeof *r); }

const gc_lrt_mode *gc_lrt_find_mode(const gc_lrt_result *r, const char *mode) {
    for (int i = 0; r && i < r->n_modes; i++) if (!strcmp(r->modes[i].mode, mode)) return &r->modes[i];
    return NULL;
}

/* ---- comparing ------------------------------------------------------------------------------ */

gc_lrt_tol gc_lrt_tol_for(const char *mode) {
    if (!strcmp(mode, "gpu-fp16")) return (gc_lrt_tol){ 1e-3, 2e-2, 0.999 };
    if (!strcmp(mode, "gpu-fp32")) return (gc_lrt_tol){ 1e-4, 1e-3, 0.9999 };
    return (gc_lrt_tol){ 1e-4, 1e-3, 0.99999 };          /* one CPU runtime vs another */
}

static bool is_int_dtype(int t) { return t != GC_T_FLOAT32 && t != GC_T_FLOAT16 && t != GC_T_FLOAT64; }

static void compare_one(const char *fa, const char *fb, gc_lrt_tol tol, gc_lrt_diff *d) {
    gc_npy a, b;
    char e1[512];
    if (gc_npy_read(fa, &a, e1, sizeof e1) != GC_OK) { sncopy(d->problem, sizeof d->problem, e1); return; }
    if (gc_npy_read(fb, &b, e1, sizeof e1) != GC_OK) { gc_npy_free(&a); sncopy(d->problem, sizeof d->problem, e1); return; }
    uint64_t n = gc_npy_count(&a);
    snprintf(d->dtype, sizeof d->dtype, "%s", gc_npy_dtype_name(b.dtype));
    d->n = n;
    if (gc_npy_count(&b) != n) {
        snprintf(d->problem, sizeof d->problem, "element counts differ (%llu vs %llu)",
                 (unsigned long long)n, (unsigned long long)gc_npy_count(&b));
        goto done;
    }
    double sa = 0, sb = 0, maxd = 0, maxr = 0;
    uint64_t nan_mm = 0, fin = 0;
    double buf_a[512], buf_b[512];
    for (uint64_t i = 0; i < n; i += 512) {                 /* pass 1: max |Δ|, means */
        size_t m = (size_t)(n - i < 512 ? n - i : 512);
        gc_npy_to_f64(a.dtype, a.data, i, m, buf_a);
        gc_npy_to_f64(b.dtype, b.data, i, m, buf_b);
        for (size_t k = 0; k < m; k++) {
            double x = buf_a[k], y = buf_b[k];
            if (isnan(x) != isnan(y)) { nan_mm++; continue; }
            if (isnan(x)) continue;
            if (isinf(x) || isinf(y)) { if (x != y) nan_mm++; continue; }
            double dd = fabs(x - y);
            if (dd > maxd) maxd = dd;
            if (fabs(x) > maxr) maxr = fabs(x);
            sa += x; sb += y; fin++;
        }
    }
    d->max_abs = maxd;
    d->ref_max_abs = maxr;
    d->nan_mismatch = nan_mm;
    d->identical = nan_mm == 0 && a.nbytes == b.nbytes && (a.dtype == b.dtype) && !memcmp(a.data, b.data, a.nbytes);
    if (fin > 1) {
        double ma = sa / (double)fin, mb = sb / (double)fin, sab = 0, saa = 0, sbb = 0;
        for (uint64_t i = 0; i < n; i += 512) {
            size_t m = (size_t)(n - i < 512 ? n - i : 512);
            gc_npy_to_f64(a.dtype, a.data, i, m, buf_a);
            gc_npy_to_f64(b.dtype, b.data, i, m, buf_b);
            for (size_t k = 0; k < m; k++) {
                double x = buf_a[k], y = buf_b[k];
                if (!isfinite(x) || !isfinite(y)) continue;
                sab += (x - ma) * (y - mb); saa += (x - ma) * (x - ma); sbb += (y - mb) * (y - mb);
            }
        }
        if (saa > 0 && sbb > 0) { d->has_corr = true; d->corr = sab / sqrt(saa * sbb); }
    }
    double atol = is_int_dtype(b.dtype) && tol.atol < 1 ? 1 : tol.atol;
    bool close = maxd <= atol + tol.rtol * maxr;
    bool corr_ok = !d->has_corr || d->corr >= tol.min_corr || maxd <= atol;
    d->pass = nan_mm == 0 && close && corr_ok;
done:
    gc_npy_free(&a);
    gc_npy_free(&b);
}

void gc_lrt_compare_files(const char *fa, const char *fb, gc_lrt_tol tol, gc_lrt_diff *d) {
    compare_one(fa, fb, tol, d);
}

gc_status gc_lrt_compare(const gc_lrt_result *ra, const gc_lrt_mode *a,
                         const gc_lrt_result *rb, const gc_lrt_mode *b, gc_lrt_tol tol,
                         gc_lrt_diff **out, int *n, char *err, size_t errlen) {
    *out = NULL; *n = 0;
    int total = 0;
    for (int s = 0; s < b->n_sigs; s++) total += b->sigs[s].n_outputs;
    if (!total) return GC_OK;
    gc_lrt_diff *d = calloc((size_t)total, sizeof *d);
    if (!d) { gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    int k = 0;
    for (int s = 0; s < b->n_sigs; s++) {
        const gc_lrt_sig *sb = &b->sigs[s], *sa = NULL;
        for (int t = 0; t < a->n_sigs; t++) if (a->sigs[t].index == sb->index) sa = &a->sigs[t];
        for (int o = 0; o < sb->n_outputs; o++, k++) {
            gc_lrt_diff *x = &d[k];
            x->sig_index = sb->index; x->index = o;
            snprintf(x->sig, sizeof x->sig, "%s", sb->key);
            snprintf(x->name, sizeof x->name, "%s", sb->outputs[o].name);
            snprintf(x->dtype, sizeof x->dtype, "%s", sb->outputs[o].dtype);
            x->n = sb->outputs[o].n;
            if (!sa || o >= sa->n_outputs || !sa->outputs[o].file || !sb->outputs[o].file) {
                snprintf(x->problem, sizeof x->problem, "no reference output");
                continue;
            }
            char fa[4400], fb[4400];
            snprintf(fa, sizeof fa, "%s/%s", ra->dir, sa->outputs[o].file);
            snprintf(fb, sizeof fb, "%s/%s", rb->dir, sb->outputs[o].file);
            compare_one(fa, fb, tol, x);
        }
    }
    *out = d; *n = k;
    return GC_OK;
}

/* ---- the verdict --------------------------------------------------------------------------------- */

static void add_warning(gc_lrt_report *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(gc_lrt_report *rep, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **w = realloc(rep->warnings, (size_t)(rep->n_warnings + 1) * sizeof *w);
    if (!w) return;
    rep->warnings = w;
    if ((w[rep->n_warnings] = strdup(buf))) rep->n_warnings++;
}

static const gc_lrt_cmpset *find_cmp(const gc_lrt_report *rep, const char *rt, const char *mode, const char *ref_rt) {
    for (int i = 0; i < rep->n_cmps; i++)
        if (!strcmp(rep->cmps[i].runtime, rt) && !strcmp(rep->cmps[i].mode, mode) && !strcmp(rep->cmps[i].ref_runtime, ref_rt))
            return &rep->cmps[i];
    return NULL;
}

static void out_label(char *buf, size_t n, const gc_lrt_diff *d, bool multi_sig) {
    if (multi_sig) snprintf(buf, n, "%s/%s", d->sig, d->name[0] ? d->name : "?");
    else snprintf(buf, n, "%s", d->name[0] ? d->name : "?");
}

static bool mode_failed_hard(const gc_lrt_mode *m) {  /* failed, and not because of a runtime limit */
    return m && strcmp(m->status, "ok") && strcmp(m->status, "runtime_limit") && strcmp(m->status, "unavailable");
}

static const char *first_error(const gc_lrt_mode *m) {
    for (int i = 0; i < m->n_log_errors; i++) {
        const char *e = m->log_errors[i];
        if (strstr(e, "litert_web.cc") || strstr(e, "litert_compiled_model_next.h") || !strncmp(e, "└", 3)) continue;
        return !strncmp(e, "ERROR: ", 7) ? e + 7 : e;
    }
    return m->error ? m->error : "unknown error";
}

static void decide(gc_lrt_report *rep, int rt) {
    const gc_lrt_result *r = &rep->res[rt];
    const char *name = RT_NAME[rt];
    gc_lrt_decision *d = &rep->per_runtime[rt];
    const gc_lrt_mode *cpu = gc_lrt_find_mode(r, "cpu");
    const gc_lrt_mode *g = gc_lrt_find_mode(r, "gpu-fp32");
    if (!g) g = gc_lrt_find_mode(r, "gpu-fp16");
    d->runtime = name;
    rep->per_runtime_set[rt] = true;
    if (!g) {
        d->kind = GC_LRT_V_CPU_ONLY; d->mode = "cpu";
        if (cpu && !strcmp(cpu->status, "ok")) snprintf(d->text, sizeof d->text, "CPU only: ran clean (GPU not requested)");
        else if (cpu && !strcmp(cpu->status, "runtime_limit"))
            snprintf(d->text, sizeof d->text, "runtime limit (%s): %s", rt == GC_LRT_JS ? "LiteRT.js" : "native",
                     cpu->limit ? cpu->limit : cpu->error ? cpu->error : "?");
        else { d->kind = GC_LRT_V_CPU_FAILED; snprintf(d->text, sizeof d->text, "CPU failed: %s", cpu ? first_error(cpu) : "no CPU result"); }
        return;
    }
    d->mode = g->mode;
    if (!strcmp(g->status, "unavailable")) {
        /* No GPU here: then what the CPU did is the news. */
        if (cpu && !strcmp(cpu->status, "runtime_limit")) {
            d->kind = GC_LRT_V_RUNTIME_LIMIT;
            snprintf(d->text, sizeof d->text, "runtime limit (%s): %s (and no GPU adapter)", rt == GC_LRT_JS ? "LiteRT.js" : "native",
                     cpu->limit ? cpu->limit : cpu->error ? cpu->error : "?");
        } else if (mode_failed_hard(cpu)) {
            d->kind = GC_LRT_V_CPU_FAILED;
            snprintf(d->text, sizeof d->text, "CPU failed: %s (and no GPU adapter)", first_error(cpu));
        } else {
            d->kind = GC_LRT_V_NO_GPU;
            snprintf(d->text, sizeof d->text, "no GPU adapter: CPU only");
        }
        return;
    }
    int total = g->gpu_ops + g->cpu_ops;
    if (g->has_residency && g->cpu_ops > 0) {
        d->kind = GC_LRT_V_FALLBACK;
        snprintf(d->text, sizeof d->text, "CPU fallback: %d/%d nodes on GPU", g->gpu_ops, total);
        return;
    }
    if (g->delegate_init_failed) {
        d->kind = GC_LRT_V_FALLBACK;
        if (g->has_residency) snprintf(d->text, sizeof d->text, "CPU fallback: 0/%d nodes on GPU (the delegate accepted %d but failed to build its kernels)", total, g->gpu_ops);
        else snprintf(d->text, sizeof d->text, "CPU fallback: 0 nodes on GPU (the delegate failed to build its kernels)");
        return;
    }
    if (!strcmp(g->status, "runtime_limit")) {
        d->kind = GC_LRT_V_RUNTIME_LIMIT;
        snprintf(d->text, sizeof d->text, "runtime limit (%s): %s", rt == GC_LRT_JS ? "LiteRT.js" : "native",
                 g->limit ? g->limit : g->error ? g->error : "?");
        return;
    }
    if (strcmp(g->status, "ok")) {
        if (mode_failed_hard(cpu) && !cpu->compile_ok) {
            d->kind = GC_LRT_V_CPU_FAILED;
            snprintf(d->text, sizeof d->text, "CPU failed: %s", first_error(cpu));
            return;
        }
        d->kind = GC_LRT_V_COMPILE_FAILED;
        const char *op = g->failed_op ? g->failed_op : g->n_unsup ? g->unsup[0].op : "?";
        const char *why = g->n_unsup ? g->unsup[0].reason : first_error(g);
        if (!strcmp(g->status, "timeout") || !strcmp(g->status, "crashed")) why = g->error ? g->error : g->status;
        snprintf(d->text, sizeof d->text, "GPU %s failed: %s: %s", g->compile_ok ? "run" : "compile", op, why);
        return;
    }
    if (g->fallback_all || (g->executed_on && !strcmp(g->executed_on, "cpu"))) {
        d->kind = GC_LRT_V_FALLBACK;
        snprintf(d->text, sizeof d->text, "CPU fallback: the runtime ran the whole model on the CPU");
        return;
    }
    /* Every node on the GPU: the numbers decide. */
    const gc_lrt_cmpset *c = find_cmp(rep, name, g->mode, name);
    if (!cpu || strcmp(cpu->status, "ok") || !c) {
        d->kind = GC_LRT_V_CPU_FAILED;
        snprintf(d->text, sizeof d->text, "all nodes on the GPU, but no CPU reference to check against (%s)",
                 cpu ? (cpu->limit ? cpu->limit : first_error(cpu)) : "CPU not run");
        return;
    }
    bool all_identical = c->n > 0, multi = false;
    const gc_lrt_diff *worst = NULL;
    for (int i = 0; i < c->n; i++) {
        if (c->d[i].sig_index) multi = true;
        if (!c->d[i].identical) all_identical = false;
        if (!c->d[i].pass && (!worst || c->d[i].max_abs > worst->max_abs || c->d[i].problem[0])) worst = &c->d[i];
    }
    if (all_identical && !strcmp(g->mode, "gpu-fp32")) {
        /* exact ops (gathers, pooling of small sums) can be bit-identical at fp32; if
         * the fp16 run of the same runtime differs, the GPU did run */
        const gc_lrt_cmpset *h = find_cmp(rep, name, "gpu-fp16", name);
        for (int i = 0; h && i < h->n; i++) if (!h->d[i].identical) { all_identical = false; break; }
    }
    if (all_identical) {
        d->kind = GC_LRT_V_NOT_RUN;
        snprintf(d->text, sizeof d->text, "GPU output bit-identical to CPU: the GPU did not run");
        return;
    }
    if (worst) {
        char lab[300];
        out_label(lab, sizeof lab, worst, multi);
        d->kind = GC_LRT_V_MISCOMPUTE;
        if (worst->problem[0]) snprintf(d->text, sizeof d->text, "GPU miscompute: %.200s: %.200s", lab, worst->problem);
        else if (worst->nan_mismatch)
            snprintf(d->text, sizeof d->text, "GPU miscompute: all nodes on the GPU, but %s has %llu NaN/Inf value(s) where the CPU has none (or the reverse); finite max |diff| %.4g",
                     lab, (unsigned long long)worst->nan_mismatch, worst->max_abs);
        else if (worst->has_corr)
            snprintf(d->text, sizeof d->text, "GPU miscompute: all nodes on the GPU, but %s max |diff| %.4g (corr %.6f)", lab, worst->max_abs, worst->corr);
        else snprintf(d->text, sizeof d->text, "GPU miscompute: all nodes on the GPU, but %s max |diff| %.4g", lab, worst->max_abs);
        return;
    }
    /* fp32 right: a broken fp16 run of the same runtime is still a miscompute (LiteRT.js's
     * wide 3x3 convs at fp16: resnet18 corr 0.0011). Rounding is not: "broken" is the
     * criterion tools/fp16_predict.py scores by — corr < 0.9 with an error over 1% of
     * max|CPU|, or an error over half of max|CPU|; NaN/Inf where the CPU is finite is fp16
     * overflow, left to the warnings below. */
    const gc_lrt_mode *h = strcmp(g->mode, "gpu-fp16") ? gc_lrt_find_mode(r, "gpu-fp16") : NULL;
    const gc_lrt_cmpset *hc = h && !strcmp(h->status, "ok") && !h->fallback_all && !(h->has_residency && h->cpu_ops > 0)
                                  ? find_cmp(rep, name, "gpu-fp16", name) : NULL;
    for (int i = 0; hc && i < hc->n; i++) {
        const gc_lrt_diff *x = &hc->d[i];
        if (x->pass || x->problem[0] || x->nan_mismatch || x->identical) continue;
        bool broken = x->max_abs > 0.5 * x->ref_max_abs ||
                      (x->has_corr && x->corr < 0.9 && x->max_abs > 0.01 * x->ref_max_abs);
        if (!broken) continue;
        char lab[300];
        out_label(lab, sizeof lab, x, multi);
        d->kind = GC_LRT_V_MISCOMPUTE;
        d->mode = h->mode;
        if (x->has_corr)
            snprintf(d->text, sizeof d->text, "GPU miscompute at fp16: all nodes on the GPU and fp32 right, but %s at fp16 max |diff| %.4g of max |CPU| %.4g (corr %.6f)",
                     lab, x->max_abs, x->ref_max_abs, x->corr);
        else
            snprintf(d->text, sizeof d->text, "GPU miscompute at fp16: all nodes on the GPU and fp32 right, but %s at fp16 max |diff| %.4g of max |CPU| %.4g",
                     lab, x->max_abs, x->ref_max_abs);
        return;
    }
    d->kind = GC_LRT_V_CLEAN;
    snprintf(d->text, sizeof d->text, "GPU-clean");
}

static int informative(gc_lrt_verdict k) {
    switch (k) {
    case GC_LRT_V_NO_GPU: return 1;
    case GC_LRT_V_RUNTIME_LIMIT: return 0;
    case GC_LRT_V_CPU_ONLY: return 1;
    default: return 2;
    }
}

static void add_cmp(gc_lrt_report *rep, int rta, const char *ma, int rtb, const char *mb, gc_lrt_tol tol) {
    const gc_lrt_mode *a = gc_lrt_find_mode(&rep->res[rta], ma), *b = gc_lrt_find_mode(&rep->res[rtb], mb);
    if (!a || !b || strcmp(a->status, "ok") || !b->n_sigs) return;
    bool any = false;
    for (int s = 0; s < b->n_sigs; s++) if (b->sigs[s].ok) any = true;
    if (!any) return;
    gc_lrt_cmpset *c = realloc(rep->cmps, (size_t)(rep->n_cmps + 1) * sizeof *c);
    if (!c) return;
    rep->cmps = c;
    c = &rep->cmps[rep->n_cmps++];
    memset(c, 0, sizeof *c);
    c->runtime = RT_NAME[rtb]; c->mode = b->mode; c->ref_runtime = RT_NAME[rta]; c->ref_mode = a->mode;
    char err[256];
    if (gc_lrt_compare(&rep->res[rta], a, &rep->res[rtb], b, tol, &c->d, &c->n, err, sizeof err) != GC_OK)
        sncopy(c->problem, sizeof c->problem, err);
}

gc_status gc_lrt_check(const gc_lrt_opts *o, const char *outdir, gc_lrt_report *rep, char *err, size_t errlen) {
    memset(rep, 0, sizeof *rep);
    rep->exit_code = -1;
    rep->model = o->model;
    rep->opts = *o;
    snprintf(rep->outdir, sizeof rep->outdir, "%s", outdir);
    if (mkdir(outdir, 0755) && errno != EEXIST) { gc_errf(err, errlen, "%s: %s", outdir, strerror(errno)); return GC_ERR_IO; }

    char sub[4200], e[1024], inputs_dir[4300];
    gc_lrt_opts oo = *o;
    if (o->runtimes & GC_LRT_JS) {
        snprintf(sub, sizeof sub, "%s/js", outdir);
        gc_status s = gc_lrt_run_js(o, sub, e, sizeof e);
        if (s == GC_ERR_USAGE) { gc_errf(err, errlen, "%s", e); return s; }
        if (s == GC_OK && gc_lrt_result_load(sub, &rep->res[GC_LRT_JS], e, sizeof e) == GC_OK) {
            rep->have[GC_LRT_JS] = true;
            snprintf(inputs_dir, sizeof inputs_dir, "%s/inputs", sub);
            oo.inputs_dir = inputs_dir;                /* native reads what LiteRT.js was fed */
        } else sncopy(rep->unavailable[GC_LRT_JS], sizeof rep->unavailable[0], e);
    }
    if (o->runtimes & GC_LRT_NATIVE) {
        snprintf(sub, sizeof sub, "%s/native", outdir);
        gc_status s = gc_lrt_run_native(&oo, sub, e, sizeof e);
        if (s == GC_OK && gc_lrt_result_load(sub, &rep->res[GC_LRT_NATIVE], e, sizeof e) == GC_OK)
            rep->have[GC_LRT_NATIVE] = true;
        else sncopy(rep->unavailable[GC_LRT_NATIVE], sizeof rep->unavailable[0], e);
    }
    if (!rep->have[GC_LRT_JS] && !rep->have[GC_LRT_NATIVE]) {
        if (o->runtimes == GC_LRT_JS) gc_errf(err, errlen, "%s", rep->unavailable[GC_LRT_JS]);
        else if (o->runtimes == GC_LRT_NATIVE) gc_errf(err, errlen, "%s", rep->unavailable[GC_LRT_NATIVE]);
        else gc_errf(err, errlen, "no LiteRT runtime ran: %s; %s", rep->unavailable[GC_LRT_JS], rep->unavailable[GC_LRT_NATIVE]);
        return GC_ERR_UNSUPPORTED;
    }

    return gc_lrt_assess(rep);
}

gc_status gc_lrt_assess(gc_lrt_report *rep) {
    const gc_lrt_opts *o = &rep->opts;
    /* The native GPU accelerator needs a Vulkan GPU too: when LiteRT.js's probe found no
     * adapter and the native GPU compile failed for want of one, say so plainly. */
    if (rep->have[GC_LRT_NATIVE]) {
        gc_lrt_result *nr = &rep->res[GC_LRT_NATIVE];
        for (int i = 0; i < nr->n_modes; i++) {
            gc_lrt_mode *m = &nr->modes[i];
            if (!m->gpu || !strcmp(m->status, "ok") || m->has_residency) continue;
            bool no_gpu = false;
            for (int k = 0; k < m->n_log_errors; k++)
                if (strstr(m->log_errors[k], "GPU accelerator could not be loaded") || strstr(m->log_errors[k], "libvulkan") ||
                    strstr(m->log_errors[k], "No adapter") || strstr(m->log_errors[k], "Failed to create WebGPU")) no_gpu = true;
            if (rep->have[GC_LRT_JS] && rep->res[GC_LRT_JS].gpu_probed && !rep->res[GC_LRT_JS].gpu_available &&
                !m->compile_ok && m->error && strstr(m->error, "LiteRtCreateCompiledModel")) no_gpu = true;
            if (no_gpu) { m->status = "unavailable"; m->error_class = "unavailable"; }
        }
    }

    for (int rt = 1; rt <= 2; rt++) {
        if (!rep->have[rt]) continue;
        const gc_lrt_result *r = &rep->res[rt];
        for (int i = 0; i < r->n_modes; i++)
            if (r->modes[i].gpu && !strcmp(r->modes[i].status, "ok")) add_cmp(rep, rt, "cpu", rt, r->modes[i].mode, gc_lrt_tol_for(r->modes[i].mode));
    }
    if (rep->have[GC_LRT_JS] && rep->have[GC_LRT_NATIVE]) {
        add_cmp(rep, GC_LRT_JS, "cpu", GC_LRT_NATIVE, "cpu", gc_lrt_tol_for("cpu"));
        const gc_lrt_cmpset *c = find_cmp(rep, "native", "cpu", "js");
        if (c && c->n) {
            rep->cpu_agree_known = true;
            rep->cpu_agree = true;
            for (int i = 0; i < c->n; i++) if (!c->d[i].pass) rep->cpu_agree = false;
        }
    }

    /* Per-runtime verdicts, then the headline: the first informative one, js first. */
    int best = -1;
    for (int rt = 1; rt <= 2; rt++) {
        if (!rep->have[rt]) continue;
        decide(rep, rt);
        if (best < 0 || informative(rep->per_runtime[rt].kind) > informative(rep->per_runtime[best].kind)) best = rt;
    }
    rep->verdict = rep->per_runtime[best];

    /* The seed's warnings, and the runtimes' own limits. */
    for (int i = 0; i < rep->n_cmps; i++) {
        const gc_lrt_cmpset *c = &rep->cmps[i];
        if (!strcmp(c->mode, "cpu")) continue;
        const gc_lrt_mode *g = gc_lrt_find_mode(&rep->res[!strcmp(c->runtime, "js") ? GC_LRT_JS : GC_LRT_NATIVE], c->mode);
        int nid = 0, nbad = 0;
        for (int k = 0; k < c->n; k++) { if (c->d[k].identical) nid++; if (!c->d[k].pass) nbad++; }
        if (nid)
            add_warning(rep, "%s %s: %d of %d outputs bit-identical to the CPU: the GPU did not run them%s",
                        c->runtime, c->mode, nid, c->n,
                        g && g->fallback_all ? " (LiteRT.js without JSPI fell back to the CPU for the whole model)" : "");
        if (nbad && g && (!g->has_residency || g->cpu_ops == 0) && !g->fallback_all)
            add_warning(rep, "%s %s: full GPU residency but %d of %d outputs out of tolerance: a miscompute",
                        c->runtime, c->mode, nbad, c->n);
    }
    for (int rt = 1; rt <= 2; rt++) {
        if (!rep->have[rt]) continue;
        const gc_lrt_result *r = &rep->res[rt];
        for (int i = 0; i < r->n_modes; i++) {
            const gc_lrt_mode *m = &r->modes[i];
            if (!strcmp(m->status, "runtime_limit"))
                add_warning(rep, "%s %s: runtime limit, not a GPU verdict: %s", RT_NAME[rt], m->mode,
                            m->limit ? m->limit : m->error ? m->error : "?");
        }
    }
    if (rep->cpu_agree_known && !rep->cpu_agree)
        add_warning(rep, "native and LiteRT.js CPU outputs disagree beyond tolerance");
    for (int rt = 1; rt <= 2; rt++)
        if ((o->runtimes & rt) && !rep->have[rt]) add_warning(rep, "%s: %s", RT_NAME[rt], rep->unavailable[rt]);
    return GC_OK;
}

int gc_lrt_report_exit(gc_lrt_report *rep, bool no_gpu_ok) {
    int code = 1;
    gc_lrt_verdict k = rep->verdict.kind;
    bool cpu_clean = false, cpu_bad = false;
    for (int rt = 1; rt <= 2; rt++) {
        const gc_lrt_mode *c = rep->have[rt] ? gc_lrt_find_mode(&rep->res[rt], "cpu") : NULL;
        if (c && !strcmp(c->status, "ok")) cpu_clean = true;
        if (mode_failed_hard(c)) cpu_bad = true;
    }
    bool agree_ok = !rep->cpu_agree_known || rep->cpu_agree;
    if (k == GC_LRT_V_CLEAN) {
        code = 0;
        for (int rt = 1; rt <= 2; rt++)
            if (rep->per_runtime_set[rt] && informative(rep->per_runtime[rt].kind) == 2 && rep->per_runtime[rt].kind != GC_LRT_V_CLEAN) code = 1;
        if (!agree_ok) code = 1;
    } else if ((k == GC_LRT_V_CPU_ONLY || (k == GC_LRT_V_NO_GPU && no_gpu_ok)) && cpu_clean && !cpu_bad && agree_ok) {
        code = 0;
    }
    rep->exit_code = code;
    return code;
}

/* ---- printing --------------------------------------------------------------------------------- */

static const char *verdict_key(gc_lrt_verdict k) {
    switch (k) {
    case GC_LRT_V_CLEAN: return "gpu_clean";
    case GC_LRT_V_FALLBACK: return "cpu_fallback";
    case GC_LRT_V_COMPILE_FAILED: return "gpu_compile_failed";
    case GC_LRT_V_NO_GPU: return "no_gpu_adapter";
    case GC_LRT_V_MISCOMPUTE: return "gpu_miscompute";
    case GC_LRT_V_NOT_RUN: return "gpu_did_not_run";
    case GC_LRT_V_RUNTIME_LIMIT: return "runtime_limit";
    case GC_LRT_V_CPU_FAILED: return "cpu_failed";
    case GC_LRT_V_CPU_ONLY: return "cpu_only";
    }
    return "?";
}

static void fmt_ms(char *b, size_t n, double ms) { if (ms < 0) snprintf(b, n, "-"); else snprintf(b, n, "%.3g ms", ms); }

void gc_lrt_report_text(const gc_lrt_report *rep, gc_str *out) {
    gc_str_printf(out, "model:    %s\n", rep->model);
    for (int rt = 1; rt <= 2; rt++) {
        if (rep->have[rt]) gc_str_printf(out, "runtime:  %s\n", rep->res[rt].versions_text);
        else if (rep->opts.runtimes & rt) gc_str_printf(out, "runtime:  %s not run: %s\n", RT_NAME[rt], rep->unavailable[rt]);
    }
    if (rep->have[GC_LRT_JS] && rep->res[GC_LRT_JS].gpu_probed) {
        const gc_lrt_result *r = &rep->res[GC_LRT_JS];
        if (r->gpu_available) gc_str_printf(out, "gpu:      %s\n", r->gpu_adapter ? r->gpu_adapter : "WebGPU adapter");
        else gc_str_printf(out, "gpu:      none: %s\n", r->gpu_reason ? r->gpu_reason : "no WebGPU adapter");
    }
    gc_str_puts(out, "\n  runtime mode      status         compile    first run  avg run\n");
    for (int rt = 1; rt <= 2; rt++) {
        if (!rep->have[rt]) continue;
        const gc_lrt_result *r = &rep->res[rt];
        for (int i = 0; i < r->n_modes; i++) {
            const gc_lrt_mode *m = &r->modes[i];
            char c[32], f[32], a[32];
            double first = -1, avg = -1;
            for (int s = 0; s < m->n_sigs; s++) {
                if (m->sigs[s].first_ms >= 0) first = (first < 0 ? 0 : first) + m->sigs[s].first_ms;
                if (m->sigs[s].avg_ms >= 0) avg = (avg < 0 ? 0 : avg) + m->sigs[s].avg_ms;
            }
            fmt_ms(c, sizeof c, m->compile_ms); fmt_ms(f, sizeof f, first); fmt_ms(a, sizeof a, avg);
            gc_str_printf(out, "  %-7s %-9s %-14s %-10s %-10s %s\n", RT_NAME[rt], m->mode, m->status, c, f, a);
            if (strcmp(m->status, "ok")) {
                const char *why = m->limit ? m->limit : m->error ? m->error : NULL;
                if (why) {
                    char one[300];
                    snprintf(one, sizeof one, "%s", why);
                    one[strcspn(one, "\n")] = 0;
                    gc_str_printf(out, "          %s\n", one);
                }
            }
        }
    }
    for (int rt = 1; rt <= 2; rt++) {
        if (!rep->have[rt]) continue;
        const gc_lrt_result *r = &rep->res[rt];
        for (int i = 0; i < r->n_modes; i++) {
            const gc_lrt_mode *m = &r->modes[i];
            if (!m->gpu || !strcmp(m->status, "unavailable")) continue;
            if (m->has_residency) gc_str_printf(out, "\nresidency (%s %s): %s\n", RT_NAME[rt], m->mode, m->residency_line ? m->residency_line : "");
            else if (m->compile_ok && !m->fallback_all) gc_str_printf(out, "\nresidency (%s %s): every node on the GPU (the delegate named no CPU node)\n", RT_NAME[rt], m->mode);
            for (int k = 0; k < m->n_unsup; k++) gc_str_printf(out, "  rejected: %s: %s\n", m->unsup[k].op, m->unsup[k].reason);
            if (m->fallback_all) gc_str_puts(out, "  LiteRT.js ran the whole model on the CPU (no JSPI: partial delegation falls back)\n");
        }
    }
    for (int i = 0; i < rep->n_cmps; i++) {
        const gc_lrt_cmpset *c = &rep->cmps[i];
        bool multi = false;
        for (int k = 0; k < c->n; k++) if (c->d[k].sig_index) multi = true;
        gc_str_printf(out, "\n%s %s %s vs %s %s:\n", strcmp(c->mode, "cpu") ? "parity" : "agreement",
                      c->runtime, c->mode, c->ref_runtime, c->ref_mode);
        if (c->problem[0]) gc_str_printf(out, "  %s\n", c->problem);
        for (int k = 0; k < c->n; k++) {
            const gc_lrt_diff *d = &c->d[k];
            char lab[300];
            out_label(lab, sizeof lab, d, multi);
            if (d->problem[0]) { gc_str_printf(out, "  [%d] %-40s %s\n", d->index, lab, d->problem); continue; }
            char corr[32];
            if (d->has_corr) snprintf(corr, sizeof corr, "%.6f", d->corr); else snprintf(corr, sizeof corr, "n/a");
            char nf[64] = "";
            if (d->nan_mismatch) snprintf(nf, sizeof nf, " (%llu non-finite mismatches)", (unsigned long long)d->nan_mismatch);
            gc_str_printf(out, "  [%d] %-40s %-7s n=%-8llu max|diff| %-10.4g corr %-9s %s%s%s\n", d->index, lab, d->dtype,
                          (unsigned long long)d->n, d->max_abs, corr, d->pass ? "ok" : "FAIL", d->identical ? " (bit-identical)" : "", nf);
        }
    }
    if (rep->n_warnings) gc_str_putc(out, '\n');
    for (int i = 0; i < rep->n_warnings; i++) gc_str_printf(out, "warning: %s\n", rep->warnings[i]);
    gc_str_putc(out, '\n');
    for (int rt = 1; rt <= 2; rt++)
        if (rep->have[GC_LRT_JS] && rep->have[GC_LRT_NATIVE] && rep->per_runtime_set[rt])
            gc_str_printf(out, "%-7s %s\n", RT_NAME[rt], rep->per_runtime[rt].text);
    if (rep->cpu_agree_known) gc_str_printf(out, "cpu:    native and LiteRT.js %s\n", rep->cpu_agree ? "agree" : "DISAGREE");
    gc_str_printf(out, "verdict: %s\n", rep->verdict.text);
}

static void json_opt_str(gc_str *j, const char *key, const char *v) {
    gc_str_printf(j, ",\"%s\":", key);
    if (v) gc_str_json(j, v); else gc_str_puts(j, "null");
}

static void json_num(gc_str *j, const char *key, double v) {
    gc_str_printf(j, ",\"%s\":", key);
    if (v < 0 || !isfinite(v)) gc_str_puts(j, "null"); else gc_str_printf(j, "%.6g", v);
}

static void json_decision(gc_str *j, const gc_lrt_decision *d) {
    gc_str_printf(j, "{\"kind\":\"%s\",\"text\":", verdict_key(d->kind));
    gc_str_json(j, d->text);
    json_opt_str(j, "runtime", d->runtime);
    json_opt_str(j, "mode", d->mode);
    gc_str_putc(j, '}');
}

void gc_lrt_report_json(const gc_lrt_report *rep, gc_str *j) {
    gc_str_puts(j, "{\"schema\":1,\"model\":");
    gc_str_json(j, rep->model);
    gc_str_puts(j, ",\"out\":");
    gc_str_json(j, rep->outdir);
    gc_str_puts(j, ",\"verdict\":");
    json_decision(j, &rep->verdict);
    if (rep->exit_code >= 0) gc_str_printf(j, ",\"exit\":%d", rep->exit_code);
    gc_str_puts(j, ",\"runtimes\":{");
    bool first = true;
    for (int rt = 1; rt <= 2; rt++) {
        if (!(rep->opts.runtimes & rt)) continue;
        gc_str_printf(j, "%s\"%s\":{\"ran\":%s", first ? "" : ",", RT_NAME[rt], rep->have[rt] ? "true" : "false");
        first = false;
        if (!rep->have[rt]) { json_opt_str(j, "reason", rep->unavailable[rt]); gc_str_putc(j, '}'); continue; }
        const gc_lrt_result *r = &rep->res[rt];
        json_opt_str(j, "version", r->version);
        json_opt_str(j, "versions", r->versions_text);
        json_opt_str(j, "dir", r->dir);
        if (r->gpu_probed) {
            gc_str_printf(j, ",\"gpu\":{\"available\":%s", r->gpu_available ? "true" : "false");
            json_opt_str(j, "adapter", r->gpu_adapter);
            json_opt_str(j, "reason", r->gpu_reason);
            gc_str_putc(j, '}');
        }
        if (rep->per_runtime_set[rt]) { gc_str_puts(j, ",\"verdict\":"); json_decision(j, &rep->per_runtime[rt]); }
        gc_str_puts(j, ",\"modes\":[");
        for (int i = 0; i < r->n_modes; i++) {
            const gc_lrt_mode *m = &r->modes[i];
            gc_str_printf(j, "%s{\"mode\":\"%s\",\"status\":\"%s\",\"compile_ok\":%s", i ? "," : "", m->mode, m->status,
                          m->compile_ok ? "true" : "false");
            json_num(j, "compile_ms", m->compile_ms);
            json_opt_str(j, "error", m->error);
            json_opt_str(j, "error_class", m->error_class);
            json_opt_str(j, "limit", m->limit);
            if (m->peak_rss_kb > 0) gc_str_printf(j, ",\"peak_rss_kb\":%lld", (long long)m->peak_rss_kb);
            gc_str_puts(j, ",\"residency\":");
            if (m->has_residency) {
                gc_str_printf(j, "{\"gpu_ops\":%d,\"cpu_ops\":%d", m->gpu_ops, m->cpu_ops);
                json_opt_str(j, "line", m->residency_line);
                gc_str_putc(j, '}');
            } else gc_str_puts(j, "null");
            gc_str_puts(j, ",\"unsupported\":[");
            for (int k = 0; k < m->n_unsup; k++) {
                gc_str_printf(j, "%s{\"op\":", k ? "," : "");
                gc_str_json(j, m->unsup[k].op);
                gc_str_puts(j, ",\"reason\":");
                gc_str_json(j, m->unsup[k].reason);
                gc_str_putc(j, '}');
            }
            gc_str_printf(j, "],\"fallback_all\":%s,\"delegate_init_failed\":%s", m->fallback_all ? "true" : "false",
                          m->delegate_init_failed ? "true" : "false");
            gc_str_puts(j, ",\"signatures\":[");
            for (int s = 0; s < m->n_sigs; s++) {
                const gc_lrt_sig *g = &m->sigs[s];
                gc_str_printf(j, "%s{\"index\":%d,\"key\":", s ? "," : "", g->index);
                gc_str_json(j, g->key);
                gc_str_printf(j, ",\"ok\":%s", g->ok ? "true" : "false");
                json_opt_str(j, "error", g->error);
                json_num(j, "first_ms", g->first_ms);
                json_num(j, "avg_ms", g->avg_ms);
                if (g->median_ms >= 0) json_num(j, "median_ms", g->median_ms);
                gc_str_puts(j, ",\"outputs\":[");
                for (int k = 0; k < g->n_outputs; k++) {
                    const gc_lrt_tensor *t = &g->outputs[k];
                    gc_str_printf(j, "%s{\"name\":", k ? "," : "");
                    gc_str_json(j, t->name);
                    json_opt_str(j, "dtype", t->dtype);
                    gc_str_puts(j, ",\"shape\":[");
                    for (int d = 0; d < t->rank; d++) gc_str_printf(j, "%s%lld", d ? "," : "", (long long)t->shape[d]);
                    gc_str_puts(j, "]");
                    json_opt_str(j, "file", t->file);
                    gc_str_putc(j, '}');
                }
                gc_str_puts(j, "]}");
            }
            gc_str_puts(j, "]}");
        }
        gc_str_puts(j, "]}");
    }
    gc_str_puts(j, "},\"comparisons\":[");
    for (int i = 0; i < rep->n_cmps; i++) {
        const gc_lrt_cmpset *c = &rep->cmps[i];
        gc_str_printf(j, "%s{\"runtime\":\"%s\",\"mode\":\"%s\",\"ref_runtime\":\"%s\",\"ref_mode\":\"%s\"", i ? "," : "",
                      c->runtime, c->mode, c->ref_runtime, c->ref_mode);
        gc_lrt_tol t = gc_lrt_tol_for(c->mode);
        gc_str_printf(j, ",\"tolerance\":{\"atol\":%g,\"rtol\":%g,\"min_corr\":%g},\"outputs\":[", t.atol, t.rtol, t.min_corr);
        for (int k = 0; k < c->n; k++) {
            const gc_lrt_diff *d = &c->d[k];
            gc_str_printf(j, "%s{\"signature\":", k ? "," : "");
            gc_str_json(j, d->sig);
            gc_str_printf(j, ",\"index\":%d,\"name\":", d->index);
            gc_str_json(j, d->name);
            gc_str_printf(j, ",\"dtype\":\"%s\",\"n\":%llu", d->dtype, (unsigned long long)d->n);
            if (d->problem[0]) { json_opt_str(j, "problem", d->problem); gc_str_puts(j, ",\"pass\":false}"); continue; }
            gc_str_printf(j, ",\"max_abs\":%.9g,\"ref_max_abs\":%.9g,\"corr\":", d->max_abs, d->ref_max_abs);
            if (d->has_corr) gc_str_printf(j, "%.9g", d->corr); else gc_str_puts(j, "null");
            gc_str_printf(j, ",\"identical\":%s,\"nan_mismatch\":%llu,\"pass\":%s}", d->identical ? "true" : "false",
                          (unsigned long long)d->nan_mismatch, d->pass ? "true" : "false");
        }
        gc_str_puts(j, "]}");
    }
    gc_str_puts(j, "],\"cpu_agree\":");
    gc_str_puts(j, rep->cpu_agree_known ? (rep->cpu_agree ? "true" : "false") : "null");
    gc_str_puts(j, ",\"warnings\":[");
    for (int i = 0; i < rep->n_warnings; i++) { gc_str_puts(j, i ? "," : ""); gc_str_json(j, rep->warnings[i]); }
    gc_str_puts(j, "]}\n");
}

void gc_lrt_report_free(gc_lrt_report *rep) {
    for (int rt = 1; rt <= 2; rt++) if (rep->have[rt]) gc_lrt_result_free(&rep->res[rt]);
    for (int i = 0; i < rep->n_cmps; i++) free(rep->cmps[i].d);
    free(rep->cmps);
    for (int i = 0; i < rep->n_warnings; i++) free(rep->warnings[i]);
    free(rep->warnings);
    memset(rep, 0, sizeof *rep);
}
