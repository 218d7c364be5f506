/* api.c — the ctypes facade (api.h). Thin: every function forwards to the library and
 * turns its result into ints, views and JSON. The checker and the interpreter are
 * referenced weakly so that this file links into any libgpuclean, whichever of its
 * parts are built; a missing part is reported by the name of the missing function. */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "model/model.h"
#include "report/report.h"
#include "check/check.h"
#include "interp/interp.h"
#include "verify/npy.h"
#include "verify/compare.h"

#pragma weak gc_check
#pragma weak gc_check_free
#pragma weak gc_check_json
#pragma weak gc_check_ex
#pragma weak gc_target_from_name
#pragma weak gc_interp_new
#pragma weak gc_interp_free
#pragma weak gc_interp_n_inputs
#pragma weak gc_interp_n_outputs
#pragma weak gc_interp_set_input_shape
#pragma weak gc_interp_prepare
#pragma weak gc_interp_input
#pragma weak gc_interp_output
#pragma weak gc_interp_invoke
#pragma weak gc_interp_errmsg
#pragma weak gc_precision_parse
#pragma weak gc_f16_runtime_parse
#pragma weak gc_compare
#pragma weak gc_metrics_json

#define MISSING(fn) do { gc_errf(err, errlen, "%s is not built into this libgpuclean", #fn); \
                         return GC_ERR_UNSUPPORTED; } while (0)

int gc_api_version(void) { return GC_API_VERSION; }
void gc_api_free(void *p) { free(p); }

int gc_api_has(const char *part) {
    if (!part) return 0;
    if (!strcmp(part, "check")) return gc_check && gc_check_free && gc_check_json;
    if (!strcmp(part, "interp"))
        return gc_interp_new && gc_interp_prepare && gc_interp_invoke && gc_interp_output;
    if (!strcmp(part, "compare")) return gc_compare && gc_metrics_json;
    if (!strcmp(part, "inspect")) return 1;
    return 0;
}

/* hand a finished gc_str to the caller as a malloc'd C string */
static int take_str(gc_str *s, char **json, char *err, size_t errlen) {
    if (s->oom || !s->s) {
        gc_str_free(s);
        gc_errf(err, errlen, "out of memory");
        return GC_ERR_NOMEM;
    }
    *json = s->s;
    return GC_OK;
}

/* ---- models --------------------------------------------------------------------------- */

gc_model *gc_api_model_open(const char *path, char *err, size_t errlen) {
    if (!path) { gc_errf(err, errlen, "no path"); return NULL; }
    return gc_model_read_file(path, err, errlen);
}

void gc_api_model_close(gc_model *m) { gc_model_free(m); }

int gc_api_model_n_subgraphs(const gc_model *m) { return m ? m->n_subgraphs : 0; }

int gc_api_model_n_tensors(const gc_model *m, int sg) {
    if (!m || sg < 0 || sg >= m->n_subgraphs) return -1;
    return m->subgraphs[sg].n_tensors;
}

int gc_api_model_find_tensor(const gc_model *m, int sg, const char *name) {
    if (!m || !name || sg < 0 || sg >= m->n_subgraphs) return -1;
    return gc_find_tensor(&m->subgraphs[sg], name);
}

int gc_api_model_tensor(const gc_model *m, int sg, int t, gc_api_tensor *out,
                        char *err, size_t errlen) {
    if (!m || !out) { gc_errf(err, errlen, "no model"); return GC_ERR_USAGE; }
    if (sg < 0 || sg >= m->n_subgraphs) {
        gc_errf(err, errlen, "no subgraph %d (the model has %d)", sg, m->n_subgraphs);
        return GC_ERR_USAGE;
    }
    const gc_subgraph *g = &m->subgraphs[sg];
    if (t < 0 || t >= g->n_tensors) {
        gc_errf(err, errlen, "subgraph %d has no tensor %d (it has %d)", sg, t, g->n_tensors);
        return GC_ERR_USAGE;
    }
    const gc_tensor *x = &g->tensors[t];
    if (x->rank > 8) {
        gc_errf(err, errlen, "tensor %d '%s' has rank %d (> 8)", t, x->name, x->rank);
        return GC_ERR_UNSUPPORTED;
    }
    memset(out, 0, sizeof *out);
    out->name = x->name;
    out->dtype = x->type;
    out->rank = x->rank;
    for (int i = 0; i < x->rank; i++) out->shape[i] = x->shape[i];
    const gc_buffer *b = gc_tensor_buffer(m, x);
    if (b && b->data && b->size) {
        out->data = (void *)b->data;
        out->nbytes = b->size;
    }
    return GC_OK;
}

int gc_api_inspect_json(const gc_model *m, const char *path, char **json,
                        char *err, size_t errlen) {
    if (!m || !json) { gc_errf(err, errlen, "no model"); return GC_ERR_USAGE; }
    gc_str s = {0};
    gc_inspect_json(m, path ? path : "", &s);
    return take_str(&s, json, err, errlen);
}

int gc_api_check_json(const gc_model *m, const char *path, const char *target,
                      char **json, char *err, size_t errlen) {
    if (!m || !json) { gc_errf(err, errlen, "no model"); return GC_ERR_USAGE; }
    if (!gc_check) MISSING(gc_check);
    if (!gc_check_json) MISSING(gc_check_json);
    if (!gc_check_free) MISSING(gc_check_free);
    gc_target tg = GC_TARGET_MLDRIFT;
    if (target && *target) {
        int t = gc_target_from_name ? gc_target_from_name(target)
              : !strcmp(target, "mldrift") ? 0 : !strcmp(target, "classic") ? 1 : -1;
        if (t < 0) {
            gc_errf(err, errlen, "unknown target '%s' (mldrift or classic)", target);
            return GC_ERR_USAGE;
        }
        tg = (gc_target)t;
    }
    gc_check_result *r = gc_check(m, tg, err, errlen);
    if (!r) return GC_ERR_NOMEM;
    gc_str s = {0};
    gc_check_json(r, m, path ? path : "", &s);
    gc_check_free(r);
    return take_str(&s, json, err, errlen);
}

int gc_api_check_json_ex(const gc_model *m, const char *path, const char *target, const char *runtime,
                         const char *precision, char **json, char *err, size_t errlen) {
    if (!runtime && !precision) return gc_api_check_json(m, path, target, json, err, errlen);
    if (!m || !json) { gc_errf(err, errlen, "no model"); return GC_ERR_USAGE; }
    if (!gc_check_ex || !gc_check_json || !gc_check_free || !gc_target_from_name) MISSING(gc_check_ex);
    int t = target && *target ? gc_target_from_name(target) : GC_TARGET_MLDRIFT;
    if (t < 0) { gc_errf(err, errlen, "unknown target '%s' (mldrift or classic)", target); return GC_ERR_USAGE; }
    gc_check_opts o = { .runtime = runtime };
    if (precision && strcmp(precision, "fp32") && strcmp(precision, "fp16")) {
        gc_errf(err, errlen, "unknown precision '%s' (fp32 or fp16)", precision);
        return GC_ERR_USAGE;
    }
    o.precision = precision && !strcmp(precision, "fp16") ? GC_FPREC_FP16 : GC_FPREC_FP32;
    if (runtime && t == GC_TARGET_CLASSIC) {
        gc_errf(err, errlen, "runtime '%s': measured facts are the LiteRT GPU accelerator's (target mldrift)", runtime);
        return GC_ERR_USAGE;
    }
    gc_check_result *r = gc_check_ex(m, (gc_target)t, &o, err, errlen);
    if (!r) return err && strstr(err, "out of memory") ? GC_ERR_NOMEM : GC_ERR_USAGE;
    gc_str s = {0};
    gc_check_json(r, m, path ? path : "", &s);
    gc_check_free(r);
    return take_str(&s, json, err, errlen);
}

/* ---- interpreter ------------------------------------------------------------------------ */

gc_interp *gc_api_interp_new(const gc_model *m, const char *precision, int signature,
                             char *err, size_t errlen) {
    return gc_api_interp_new_rt(m, precision, NULL, signature, err, errlen);
}

gc_interp *gc_api_interp_new_rt(const gc_model *m, const char *precision, const char *gpu_runtime,
                                int signature, char *err, size_t errlen) {
    if (!gc_interp_new || !gc_precision_parse || !gc_f16_runtime_parse) {
        gc_errf(err, errlen, "gc_interp_new is not built into this libgpuclean");
        return NULL;
    }
    if (!m) { gc_errf(err, errlen, "no model"); return NULL; }
    int p = gc_precision_parse(precision ? precision : "fp32");
    if (p < 0) {
        gc_errf(err, errlen, "unknown precision '%s' (fp32, fp16, fp16-acc, fp64)", precision);
        return NULL;
    }
    int rt = gc_f16_runtime_parse(gpu_runtime ? gpu_runtime : "native");
    if (rt < 0) {
        gc_errf(err, errlen, "unknown GPU runtime '%s' (native, js)", gpu_runtime);
        return NULL;
    }
    gc_interp_opts o;
    memset(&o, 0, sizeof o);
    o.precision = (gc_precision)p;
    o.gpu_runtime = (gc_f16_runtime)rt;
    o.signature = signature;
    return gc_interp_new(m, &o, err, errlen);
}

void gc_api_interp_free(gc_interp *it) {
    if (it && gc_interp_free) gc_interp_free(it);
}

int gc_api_interp_n_io(const gc_interp *it, int outputs) {
    if (!it || !gc_interp_n_inputs) return 0;
    return outputs ? gc_interp_n_outputs(it) : gc_interp_n_inputs(it);
}

static int interp_status(const gc_interp *it, gc_status st, char *err, size_t errlen) {
    if (st != GC_OK) {
        const char *msg = gc_interp_errmsg ? gc_interp_errmsg(it) : NULL;
        gc_errf(err, errlen, "%s", msg && *msg ? msg : gc_status_str(st));
    }
    return st;
}

int gc_api_interp_set_input_shape(gc_interp *it, int k, int rank, const int64_t *shape,
                                  char *err, size_t errlen) {
    if (!gc_interp_set_input_shape) MISSING(gc_interp_set_input_shape);
    if (!it || rank < 0 || rank > GC_MAX_RANK || (rank && !shape)) {
        gc_errf(err, errlen, "bad shape (rank %d)", rank);
        return GC_ERR_USAGE;
    }
    int32_t dims[GC_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0 || shape[i] > INT32_MAX) {
            gc_errf(err, errlen, "dimension %d is %lld", i, (long long)shape[i]);
            return GC_ERR_USAGE;
        }
        dims[i] = (int32_t)shape[i];
    }
    return interp_status(it, gc_interp_set_input_shape(it, k, rank, dims), err, errlen);
}

int gc_api_interp_prepare(gc_interp *it, char *err, size_t errlen) {
    if (!gc_interp_prepare) MISSING(gc_interp_prepare);
    if (!it) { gc_errf(err, errlen, "no interpreter"); return GC_ERR_USAGE; }
    return interp_status(it, gc_interp_prepare(it), err, errlen);
}

int gc_api_interp_invoke(gc_interp *it, char *err, size_t errlen) {
    if (!gc_interp_invoke) MISSING(gc_interp_invoke);
    if (!it) { gc_errf(err, errlen, "no interpreter"); return GC_ERR_USAGE; }
    return interp_status(it, gc_interp_invoke(it), err, errlen);
}

int gc_api_interp_tensor(const gc_interp *it, int output, int k, gc_api_tensor *out,
                         char *err, size_t errlen) {
    if (!gc_interp_input || !gc_interp_output) MISSING(gc_interp_output);
    if (!it || !out) { gc_errf(err, errlen, "no interpreter"); return GC_ERR_USAGE; }
    int n = output ? gc_interp_n_outputs(it) : gc_interp_n_inputs(it);
    if (k < 0 || k >= n) {
        gc_errf(err, errlen, "no %s %d (there are %d)", output ? "output" : "input", k, n);
        return GC_ERR_USAGE;
    }
    gc_tview v = output ? gc_interp_output(it, k) : gc_interp_input(it, k);
    memset(out, 0, sizeof *out);
    out->name = v.name ? v.name : "";
    out->dtype = v.dtype;
    out->rank = v.rank;
    for (int i = 0; i < v.rank && i < 8; i++) out->shape[i] = v.shape[i];
    out->data = v.data;
    out->nbytes = v.nbytes;
    return GC_OK;
}

/* ---- compare ------------------------------------------------------------------------------ */

static int to_npy(const gc_api_tensor *t, gc_npy *a, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    if (!t || t->rank < 0 || t->rank > GC_NPY_MAX_RANK) {
        gc_errf(err, errlen, "bad tensor (rank %d)", t ? t->rank : -1);
        return GC_ERR_USAGE;
    }
    int item = gc_npy_itemsize(t->dtype);
    if (!item) {
        gc_errf(err, errlen, "dtype %d cannot be compared", t->dtype);
        return GC_ERR_UNSUPPORTED;
    }
    uint64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0 || !gc_mul_u64(n, (uint64_t)t->shape[i], &n)) {
            gc_errf(err, errlen, "bad shape");
            return GC_ERR_USAGE;
        }
    }
    if (n * (uint64_t)item != t->nbytes || (n && !t->data)) {
        gc_errf(err, errlen, "tensor holds %llu bytes, its shape needs %llu",
                (unsigned long long)t->nbytes, (unsigned long long)(n * item));
        return GC_ERR_USAGE;
    }
    a->dtype = t->dtype;
    a->rank = t->rank;
    memcpy(a->shape, t->shape, sizeof(int64_t) * (size_t)t->rank);
    a->data = t->data;
    a->nbytes = t->nbytes;
    return GC_OK;
}

int gc_api_compare_json(const gc_api_tensor *a, const gc_api_tensor *ref, double rtol,
                        double atol, char **json, char *err, size_t errlen) {
    if (!gc_compare || !gc_metrics_json) MISSING(gc_compare);
    if (!json) { gc_errf(err, errlen, "no output"); return GC_ERR_USAGE; }
    gc_npy na, nr;
    int st = to_npy(a, &na, err, errlen);
    if (st == GC_OK) st = to_npy(ref, &nr, err, errlen);
    if (st != GC_OK) return st;
    gc_metrics mt;
    st = gc_compare(&na, &nr, rtol, atol, &mt, err, errlen);
    if (st != GC_OK) return st;
    gc_str s = {0};
    gc_metrics_json(&mt, &s);
    return take_str(&s, json, err, errlen);
}
