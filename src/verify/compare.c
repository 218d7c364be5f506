/* compare.c — metrics of agreement between an array `a` and a reference `b`.
 *
 * Both arrays are read as double, element by element in C order (streamed in chunks,
 * so no copy of the arrays is made). For each element pair (x, y):
 *   - exactly one of x, y NaN                  -> nan_mismatch, a violation
 *   - both NaN                                 -> agreement; not in the statistics
 *   - neither NaN, one or both infinite, x != y -> inf_mismatch (so +inf vs -inf counts),
 *                                                 a violation
 *   - both infinite with the same sign         -> agreement; not in the statistics
 *   - both finite: d = |x - y| enters the statistics below, and the pair violates the
 *     tolerance when d > atol + rtol * |y|   (numpy.isclose with b as the reference)
 * Over the n_finite pairs where both values are finite:
 *   max_abs  = max d                      mean_abs = sum d / n_finite
 *   rmse     = sqrt(sum d^2 / n_finite)   max_rel  = max d / max(|y|, FLT_MIN)
 *   cosine   = sum xy / (sqrt(sum x^2) sqrt(sum y^2)); 1 when both norms are 0, 0 when
 *              exactly one is
 *   pearson  = cov(x, y) / (sd(x) sd(y)) (Welford's one-pass co-moments); 1 when both
 *              are constant and equal everywhere, NaN when either is otherwise constant
 *   snr_db   = 10 log10(sum y^2 / sum d^2): +inf when sum d^2 = 0, -inf when sum y^2 = 0
 *   psnr_db  = 10 log10(max|y|^2 / (sum d^2 / n_finite)), the same conventions
 *   tol_ratio_max = max d / (atol + rtol |y|) (a zero denominator gives +inf for d > 0)
 * All of these are 0 (cosine, pearson: 1; snr, psnr: +inf) when n_finite = 0.
 * argmax_agree: the last axis is the class axis; for each of the n / shape[rank-1] rows
 *   the first index of the largest non-NaN value is found in a and in b, and the result
 *   is the fraction of rows where they agree (a row that is all NaN has no argmax; two
 *   such rows agree). Rank 0 counts as one row of one element; no rows gives 1.
 * worst: the flat C-order index of the first NaN/Inf mismatch if there is one,
 *   otherwise of the first largest d; 0 when n = 0.
 * pass: violations == 0.
 */
#include "compare.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4096

void gc_shape_str(int rank, const int64_t *shape, gc_str *out) {
    gc_str_putc(out, '(');
    for (int i = 0; i < rank; i++) gc_str_printf(out, "%s%lld", i ? ", " : "", (long long)shape[i]);
    gc_str_puts(out, rank == 1 ? ",)" : ")");
}

static bool check_array(const gc_npy *x, const char *which, char *err, size_t errlen,
                        gc_status *st) {
    int isz = gc_npy_itemsize(x->dtype);
    if (!isz) {
        gc_errf(err, errlen, "%s: unsupported dtype %d", which, x->dtype);
        *st = GC_ERR_UNSUPPORTED;
        return false;
    }
    if (x->rank < 0 || x->rank > GC_NPY_MAX_RANK) {
        gc_errf(err, errlen, "%s: bad rank %d", which, x->rank);
        *st = GC_ERR_USAGE;
        return false;
    }
    uint64_t n = 1, bytes;
    bool zero = false;
    for (int i = 0; i < x->rank; i++) {
        if (x->shape[i] < 0) { gc_errf(err, errlen, "%s: negative dimension", which); *st = GC_ERR_USAGE; return false; }
        zero |= x->shape[i] == 0;
    }
    for (int i = 0; i < x->rank && !zero; i++)
        if (!gc_mul_u64(n, (uint64_t)x->shape[i], &n)) n = UINT64_MAX;
    if (zero) n = 0;
    if (!gc_mul_u64(n, (uint64_t)isz, &bytes) || bytes != x->nbytes || (bytes && !x->data)) {
        gc_errf(err, errlen, "%s: nbytes %llu does not match its shape and dtype", which,
                (unsigned long long)x->nbytes);
        *st = GC_ERR_USAGE;
        return false;
    }
    return true;
}

typedef struct { double best; int64_t idx; } argmax_state;

static void argmax_step(argmax_state *s, double v, int64_t pos) {
    if (isnan(v)) return;
    if (s->idx < 0 || v > s->best) { s->best = v; s->idx = pos; }
}

gc_status gc_compare(const gc_npy *a, const gc_npy *ref, double rtol, double atol,
                     gc_metrics *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    gc_status st = GC_OK;
    if (!check_array(a, "a", err, errlen, &st) || !check_array(ref, "reference", err, errlen, &st))
        return st;
    if (!(rtol >= 0) || !(atol >= 0) || isinf(rtol) || isinf(atol)) {
        gc_errf(err, errlen, "tolerances must be finite and >= 0 (rtol %g, atol %g)", rtol, atol);
        return GC_ERR_USAGE;
    }
    bool same = a->rank == ref->rank;
    for (int i = 0; same && i < a->rank; i++) same = a->shape[i] == ref->shape[i];
    if (!same) {
        gc_str s = { 0 };
        gc_shape_str(a->rank, a->shape, &s);
        gc_str_puts(&s, " vs ");
        gc_shape_str(ref->rank, ref->shape, &s);
        gc_errf(err, errlen, "shape mismatch: %s", s.s ? s.s : "?");
        gc_str_free(&s);
        return GC_ERR_FORMAT;
    }
    double *xa = malloc(2 * CHUNK * sizeof *xa);
    if (!xa) { gc_errf(err, errlen, "out of memory"); return GC_ERR_NOMEM; }
    double *xb = xa + CHUNK;

    uint64_t n = gc_npy_count(a);
    m->n = n;
    m->rtol = rtol;
    m->atol = atol;
    m->rank = a->rank;
    memcpy(m->shape, a->shape, sizeof m->shape);
    int64_t L = a->rank ? a->shape[a->rank - 1] : 1;
    m->argmax_rows = L > 0 ? n / (uint64_t)L : 0;

    double sum_d = 0, sum_d2 = 0, sum_ab = 0, sum_a2 = 0, sum_b2 = 0, peak = 0;
    double mean_a = 0, mean_b = 0, m2a = 0, m2b = 0, cab = 0, worst_d = -1;
    bool have_mismatch = false;
    uint64_t agree = 0;
    int64_t pos = 0;                               /* index within the current row */
    argmax_state am = { 0, -1 }, bm = { 0, -1 };

    for (uint64_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t k = n - i0 < CHUNK ? (size_t)(n - i0) : CHUNK;
        gc_npy_to_f64(a->dtype, a->data, i0, k, xa);
        gc_npy_to_f64(ref->dtype, ref->data, i0, k, xb);
        for (size_t j = 0; j < k; j++) {
            double x = xa[j], y = xb[j];
            uint64_t i = i0 + j;
            argmax_step(&am, x, pos);
            argmax_step(&bm, y, pos);
            if (++pos == L) {
                agree += am.idx == bm.idx;
                pos = 0;
                am.idx = bm.idx = -1;
            }
            bool mismatch = false;
            if (isnan(x) || isnan(y)) {
                if (isnan(x) == isnan(y)) continue;            /* both NaN: agree */
                m->nan_mismatch++;
                mismatch = true;
            } else if (isinf(x) || isinf(y)) {
                if (x == y) continue;                          /* same infinity: agree */
                m->inf_mismatch++;
                mismatch = true;
            }
            if (mismatch) {
                m->violations++;
                if (!have_mismatch) {
                    have_mismatch = true;
                    m->worst = i; m->worst_a = x; m->worst_b = y;
                }
                continue;
            }
            double d = fabs(x - y), ay = fabs(y);
            double kf = (double)++m->n_finite;
            if (d > m->max_abs) m->max_abs = d;
            if (!have_mismatch && d > worst_d) {
                worst_d = d;
                m->worst = i; m->worst_a = x; m->worst_b = y;
            }
            double rel = d / (ay > FLT_MIN ? ay : FLT_MIN);
            if (rel > m->max_rel) m->max_rel = rel;
            double tol = atol + rtol * ay;
            double ratio = tol > 0 ? d / tol : (d > 0 ? INFINITY : 0);
            if (ratio > m->tol_ratio_max) m->tol_ratio_max = ratio;
            if (d > tol) m->violations++;
            if (ay > peak) peak = ay;
            sum_d += d;
            sum_d2 += d * d;
            sum_ab += x * y;
            sum_a2 += x * x;
            sum_b2 += y * y;
            double dx = x - mean_a, dy = y - mean_b;          /* Welford co-moments */
            mean_a += dx / kf;
            mean_b += dy / kf;
            m2a += dx * (x - mean_a);
            m2b += dy * (y - mean_b);
            cab += dx * (y - mean_b);
        }
    }
    free(xa);

    m->argmax_agree = m->argmax_rows ? (double)agree / (double)m->argmax_rows : 1.0;
    m->pass = m->violations == 0;
    if (m->n_finite == 0) {
        m->cosine = m->pearson = 1.0;
        m->snr_db = m->psnr_db = INFINITY;
        return GC_OK;
    }
    double nf = (double)m->n_finite;
    m->mean_abs = sum_d / nf;
    m->rmse = sqrt(sum_d2 / nf);
    if (sum_a2 == 0 && sum_b2 == 0) m->cosine = 1.0;
    else if (sum_a2 == 0 || sum_b2 == 0) m->cosine = 0.0;
    else {
        double den = sum_a2 * sum_b2;             /* exact 1 for identical arrays */
        den = isfinite(den) && den > 0 ? sqrt(den) : sqrt(sum_a2) * sqrt(sum_b2);
        double c = sum_ab / den;
        m->cosine = c > 1 ? 1 : c < -1 ? -1 : c;
    }
    if (m2a > 0 && m2b > 0) {
        double den = m2a * m2b;
        den = isfinite(den) && den > 0 ? sqrt(den) : sqrt(m2a) * sqrt(m2b);
        double r = cab / den;
        m->pearson = r > 1 ? 1 : r < -1 ? -1 : r;
    } else {
        m->pearson = (m2a == 0 && m2b == 0 && m->max_abs == 0) ? 1.0 : NAN;
    }
    if (sum_d2 == 0) m->snr_db = m->psnr_db = INFINITY;
    else {
        m->snr_db = sum_b2 == 0 ? -INFINITY : 10.0 * (log10(sum_b2) - log10(sum_d2));
        m->psnr_db = peak == 0 ? -INFINITY : 20.0 * log10(peak) - 10.0 * log10(sum_d2 / nf);
    }
    return GC_OK;
}

void gc_json_num(gc_str *o, double v) {
    if (!isfinite(v)) { gc_str_puts(o, "null"); return; }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    gc_str_puts(o, buf);
}

static void put_u64(gc_str *o, uint64_t v) { gc_str_printf(o, "%llu", (unsigned long long)v); }

void gc_metrics_worst_index(const gc_metrics *m, gc_str *o) {
    int64_t idx[GC_NPY_MAX_RANK];
    uint64_t r = m->worst;
    for (int i = m->rank - 1; i >= 0; i--) {
        uint64_t d = (uint64_t)m->shape[i];
        idx[i] = d ? (int64_t)(r % d) : 0;
        r = d ? r / d : 0;
    }
    gc_str_putc(o, '[');
    for (int i = 0; i < m->rank; i++) gc_str_printf(o, "%s%lld", i ? ", " : "", (long long)idx[i]);
    gc_str_putc(o, ']');
}

void gc_metrics_json(const gc_metrics *m, gc_str *o) {
    gc_str_puts(o, "{\"n\": "); put_u64(o, m->n);
    gc_str_puts(o, ", \"n_finite\": "); put_u64(o, m->n_finite);
    gc_str_puts(o, ", \"max_abs\": "); gc_json_num(o, m->max_abs);
    gc_str_puts(o, ", \"mean_abs\": "); gc_json_num(o, m->mean_abs);
    gc_str_puts(o, ", \"rmse\": "); gc_json_num(o, m->rmse);
    gc_str_puts(o, ", \"max_rel\": "); gc_json_num(o, m->max_rel);
    gc_str_puts(o, ", \"cosine\": "); gc_json_num(o, m->cosine);
    gc_str_puts(o, ", \"pearson\": "); gc_json_num(o, m->pearson);
    gc_str_puts(o, ", \"snr_db\": "); gc_json_num(o, m->snr_db);
    gc_str_puts(o, ", \"psnr_db\": "); gc_json_num(o, m->psnr_db);
    gc_str_puts(o, ", \"nan_mismatch\": "); put_u64(o, m->nan_mismatch);
    gc_str_puts(o, ", \"inf_mismatch\": "); put_u64(o, m->inf_mismatch);
    gc_str_puts(o, ", \"argmax_agree\": "); gc_json_num(o, m->argmax_agree);
    gc_str_puts(o, ", \"argmax_rows\": "); put_u64(o, m->argmax_rows);
    gc_str_puts(o, ", \"worst\": "); put_u64(o, m->worst);
    gc_str_puts(o, ", \"worst_index\": ");
    if (m->n == 0) gc_str_puts(o, "null");
    else gc_metrics_worst_index(m, o);
    gc_str_puts(o, ", \"worst_a\": "); gc_json_num(o, m->worst_a);
    gc_str_puts(o, ", \"worst_b\": "); gc_json_num(o, m->worst_b);
    gc_str_puts(o, ", \"tol_ratio_max\": "); gc_json_num(o, m->tol_ratio_max);
    gc_str_puts(o, ", \"rtol\": "); gc_json_num(o, m->rtol);
    gc_str_puts(o, ", \"atol\": "); gc_json_num(o, m->atol);
    gc_str_puts(o, ", \"violations\": "); put_u64(o, m->violations);
    gc_str_puts(o, m->pass ? ", \"pass\": true}" : ", \"pass\": false}");
}
