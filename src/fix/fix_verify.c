/* fix_verify.c — proves a fix numerically: the original and the fixed model run on the
 * reference interpreter in fp32 with the same inputs (the sin pattern, then
 * gc_fill_random(seed)), every signature (or subgraph 0), and every output is compared
 * against the exactness the applied passes state:
 *   bit-exact            the output bytes are identical;
 *   exact for finite     every pair is equal as numbers (+0 == -0) or both NaN;
 *   within tolerance     |a - b| <= atol + rtol |b|, or both NaN, or the same infinity.
 * max |diff| is reported over the pairs where both values are finite.
 */
#include "fix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp/interp.h"
#include "verify/npy.h"

typedef struct { int32_t cap; } rows_cap;

static gc_fix_vrow *add_row(gc_fix_verify_result *v, rows_cap *rc) {
    if (!gc_grow((void **)&v->rows, &rc->cap, v->n_rows + 1, sizeof *v->rows)) return NULL;
    gc_fix_vrow *r = &v->rows[v->n_rows++];
    memset(r, 0, sizeof *r);
    return r;
}

static void compare(const gc_tview *a, const gc_tview *b, gc_fix_vrow *r, const gc_fix_verify_result *v) {
    r->n = a->nbytes && gc_type_size(a->dtype) ? a->nbytes / (size_t)gc_type_size(a->dtype) : 0;
    r->bytes_equal = a->nbytes == b->nbytes && (a->nbytes == 0 || !memcmp(a->data, b->data, a->nbytes));
    bool numeric = gc_npy_itemsize(a->dtype) != 0;
    if (numeric) {
        double xa[256], xb[256];
        for (uint64_t i0 = 0; i0 < r->n; i0 += 256) {
            size_t cnt = (size_t)(r->n - i0 < 256 ? r->n - i0 : 256);
            gc_npy_to_f64(a->dtype, a->data, i0, cnt, xa);   /* a: fixed */
            gc_npy_to_f64(b->dtype, b->data, i0, cnt, xb);   /* b: original */
            for (size_t j = 0; j < cnt; j++) {
                double p = xa[j], q = xb[j];
                bool pn = isnan(p), qn = isnan(q);
                if (pn || qn) {
                    if (pn != qn) { r->nan_mismatch++; r->violations++; }
                    continue;
                }
                if (isinf(p) || isinf(q)) {
                    if (p != q) { r->inf_mismatch++; r->violations++; }
                    continue;
                }
                double d = fabs(p - q);
                if (d > r->max_abs) r->max_abs = d;
                if (v->exactness == GC_FIX_TOLERANCE ? d > v->atol + v->rtol * fabs(q) : d != 0) r->violations++;
            }
        }
    } else if (!r->bytes_equal) r->violations = 1;
    r->ok = v->exactness == GC_FIX_BIT_EXACT ? r->bytes_equal : r->violations == 0;
}

/* one entry (signature s, or subgraph 0 when s < 0); false when v->why was set */
static bool run_entry(const gc_model *orig, const gc_model *fixed, int s, uint64_t seed, gc_fix_verify_result *v,
                      rows_cap *rc) {
    gc_interp_opts o;
    memset(&o, 0, sizeof o);
    o.precision = GC_PREC_FP32;
    o.signature = s;
    o.subgraph = 0;
    char err[400];
    gc_interp *a = gc_interp_new(orig, &o, err, sizeof err);
    if (!a) { snprintf(v->why, sizeof v->why, "the interpreter cannot run the original model: %s", err); return false; }
    if (gc_interp_prepare(a) != GC_OK) {
        snprintf(v->why, sizeof v->why, "the interpreter cannot run the original model: %s", gc_interp_errmsg(a));
        gc_interp_free(a);
        return false;
    }
    v->ran = true;
    gc_interp *b = gc_interp_new(fixed, &o, err, sizeof err);
    if (!b || gc_interp_prepare(b) != GC_OK) {
        snprintf(v->why, sizeof v->why, "the fixed model does not run on the interpreter: %s", b ? gc_interp_errmsg(b) : err);
        gc_interp_free(a); gc_interp_free(b);
        return false;
    }
    bool ok = true;
    int ni = gc_interp_n_inputs(a), no = gc_interp_n_outputs(a);
    if (ni != gc_interp_n_inputs(b) || no != gc_interp_n_outputs(b)) {
        snprintf(v->why, sizeof v->why, "the fixed model has %d inputs / %d outputs, the original %d / %d",
                 gc_interp_n_inputs(b), gc_interp_n_outputs(b), ni, no);
        ok = false;
    }
    for (int kind = 0; kind < 2 && ok; kind++) {
        for (int k = 0; k < ni && ok; k++) {
            gc_tview ia = gc_interp_input(a, k), ib = gc_interp_input(b, k);
            if (ia.dtype != ib.dtype || ia.nbytes != ib.nbytes) {
                snprintf(v->why, sizeof v->why, "input %d differs between the models", k);
                ok = false; break;
            }
            gc_status st = kind == 0 ? gc_fill_pattern_sin(&ia, k) : gc_fill_random(&ia, seed, s < 0 ? 0 : s, k);
            if (st != GC_OK) {
                snprintf(v->why, sizeof v->why, "no generated inputs of type %s (input %d)", gc_type_name(ia.dtype), k);
                v->ran = false; ok = false; break;
            }
            if (ia.nbytes) memcpy(ib.data, ia.data, ia.nbytes);
        }
        if (!ok) break;
        if (gc_interp_invoke(a) != GC_OK) {
            snprintf(v->why, sizeof v->why, "the original model fails on the interpreter: %s", gc_interp_errmsg(a));
            v->ran = false; ok = false; break;
        }
        if (gc_interp_invoke(b) != GC_OK) {
            snprintf(v->why, sizeof v->why, "the fixed model fails on the interpreter: %s", gc_interp_errmsg(b));
            ok = false; break;
        }
        char what[48];
        if (kind == 0) snprintf(what, sizeof what, "pattern sin");
        else snprintf(what, sizeof what, "random %llu", (unsigned long long)seed);
        for (int j = 0; j < no; j++) {
            gc_tview oa = gc_interp_output(a, j), ob = gc_interp_output(b, j);
            gc_fix_vrow *r = add_row(v, rc);
            if (!r) { ok = false; snprintf(v->why, sizeof v->why, "out of memory"); break; }
            r->signature = s;
            r->inputs = gc_arena_strdup(&v->arena, what);
            r->output = gc_arena_strdup(&v->arena, oa.name ? oa.name : "");
            bool same = oa.dtype == ob.dtype && oa.rank == ob.rank;
            for (int d = 0; same && d < oa.rank; d++) same = oa.shape[d] == ob.shape[d];
            if (!same) { r->violations = 1; r->ok = false; continue; }
            compare(&ob, &oa, r, v);
        }
    }
    gc_interp_free(a);
    gc_interp_free(b);
    return ok;
}

gc_status gc_fix_verify(const gc_model *orig, const gc_model *fixed, gc_fix_exactness ex, double rtol, double atol,
                        uint64_t seed, gc_fix_verify_result *v) {
    memset(v, 0, sizeof *v);
    v->exactness = ex; v->rtol = rtol; v->atol = atol;
    rows_cap rc = {0};
    int n_entries = orig->n_signatures > 0 ? orig->n_signatures : 1;
    bool ok = true;
    for (int e = 0; e < n_entries && ok; e++)
        ok = run_entry(orig, fixed, orig->n_signatures > 0 ? e : -1, seed, v, &rc);
    v->pass = v->ran && ok;
    for (int32_t i = 0; i < v->n_rows; i++) if (!v->rows[i].ok) v->pass = false;
    return GC_OK;
}

void gc_fix_verify_free(gc_fix_verify_result *v) {
    if (!v) return;
    free(v->rows);
    gc_arena_free(&v->arena);
    memset(v, 0, sizeof *v);
}
