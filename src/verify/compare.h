/* compare.h — numeric agreement of two arrays of the same shape.
 *
 * `a` is the array under test, `ref` the reference. Both are read as double (any
 * dtype gc_npy supports; bool is 0/1), so float16 can be compared with float32, or an
 * int8 output with int32. Definitions of every metric are at the top of compare.c.
 *
 *     gc_metrics m; char err[256];
 *     if (gc_compare(&gpu, &cpu, 1e-5, 1e-6, &m, err, sizeof err) == GC_OK && !m.pass) ...
 */
#ifndef GC_COMPARE_H
#define GC_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include "common/common.h"
#include "verify/npy.h"

typedef struct {
    uint64_t n;              /* elements compared */
    uint64_t n_finite;       /* pairs where both values are finite (the error statistics
                                below are taken over these) */
    double max_abs;          /* max |a-b| */
    double mean_abs;         /* mean |a-b| */
    double rmse;             /* sqrt(mean (a-b)^2) */
    double max_rel;          /* max |a-b| / max(|b|, FLT_MIN) */
    double cosine;           /* sum ab / sqrt(sum a^2 * sum b^2) */
    double pearson;          /* correlation coefficient of a and b */
    double snr_db;           /* 10 log10(sum b^2 / sum (a-b)^2); +inf when equal */
    double psnr_db;          /* 10 log10(max|b|^2 / mean (a-b)^2); +inf when equal */
    uint64_t nan_mismatch;   /* exactly one of a, b is NaN */
    uint64_t inf_mismatch;   /* neither NaN, at least one infinite, a != b */
    double argmax_agree;     /* fraction of rows (last axis) whose argmax agrees */
    uint64_t argmax_rows;    /* rows = n / last dimension (1 for rank 0) */
    uint64_t worst;          /* flat C-order index of the worst element */
    double worst_a, worst_b; /* the values there */
    double tol_ratio_max;    /* max |a-b| / (atol + rtol |b|) (finite pairs) */
    double rtol, atol;       /* the tolerance used */
    uint64_t violations;     /* elements failing |a-b| <= atol + rtol |b|, NaN/Inf
                                mismatches included */
    bool pass;               /* violations == 0 */
    int rank;
    int64_t shape[GC_NPY_MAX_RANK];
} gc_metrics;

/* Compare `a` against `ref`. Shapes must be equal (else GC_ERR_FORMAT, "shape
 * mismatch: (2, 3) vs (3, 2)"); rtol and atol must be >= 0 (else GC_ERR_USAGE). */
gc_status gc_compare(const gc_npy *a, const gc_npy *ref, double rtol, double atol,
                     gc_metrics *m, char *err, size_t errlen);

/* Append the metrics as one JSON object; non-finite values are written as null. */
void gc_metrics_json(const gc_metrics *m, gc_str *out);

/* Append the worst element's index as "[i, j, ...]" ("[]" for rank 0). */
void gc_metrics_worst_index(const gc_metrics *m, gc_str *out);

/* Append a double as a JSON number in its shortest round-trip form; null when not
 * finite. */
void gc_json_num(gc_str *out, double v);

/* Append "(2, 3)" — the shape as NumPy prints it ("()" for rank 0, "(3,)" rank 1). */
void gc_shape_str(int rank, const int64_t *shape, gc_str *out);

#endif
