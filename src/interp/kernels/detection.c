/* detection.c — TFLite_Detection_PostProcess, the SSD post-processing custom op that
 * TFLite's builtin op resolver registers (kernels/detection_postprocess.cc): box decoding
 * against anchors, then non-max suppression, single-threaded.
 *
 * Inputs: 0 box encodings [1, A, >=4] (y, x, h, w per anchor; FLOAT32, or UINT8 with a
 * per-tensor scale), 1 class scores [1, A, K] (FLOAT32 or UINT8; K = num_classes or
 * num_classes + 1 with a leading background class), 2 anchors [A, 4] (y, x, h, w; UINT8
 * when the encodings are). Outputs, D = max_detections * max_classes_per_detection:
 * boxes [1, D, 4] (ymin, xmin, ymax, xmax), classes [1, D], scores [1, D], count [1]
 * (all FLOAT32). Options (FlexBuffer map): max_detections, max_classes_per_detection,
 * detections_per_class (default 100), use_regular_nms (default false),
 * nms_score_threshold, nms_iou_threshold (in (0, 1]), num_classes, y_scale, x_scale,
 * h_scale, w_scale.
 *
 * Decode (double, as TFLite): yc = y / y_scale * ha + ya, xc likewise,
 * half_h = 0.5 exp(h / h_scale) ha, half_w likewise (each narrowed to float), box =
 * (yc - half_h, xc - half_w, yc + half_h, xc + half_w) in float. UINT8 encodings and
 * anchors: ((float)q - zp) * scale; UINT8 scores: (float)(scale * (q - zp)) in double.
 * Single-class NMS: keep scores >= threshold, stable sort by decreasing score, greedily
 * take a box and drop later ones whose IoU with it is > the IoU threshold (IoU 0 when
 * either area <= 0), up to the limit; any decoded box with ymin > ymax or xmin > xmax
 * fails the invoke (TFLite's ValidateBoxes).
 * Fast NMS (default): per anchor, the classes by decreasing score (the top one: the first
 * maximum; more: libstdc++'s std::partial_sort, reproduced below so that ties come out in
 * LiteRT's order); NMS over the anchors' top scores, max_detections; each kept anchor
 * fills max_classes_per_detection rows (its top classes). Rows past the kept ones are
 * written 0 (TFLite leaves them unwritten).
 * Regular NMS: NMS per class (limit min(detections_per_class, max_detections)), the
 * per-class results merged into one list by decreasing score (a stable merge: earlier
 * classes first on ties), cut at max_detections; rows past it are 0.
 * Classes are reported without the background offset. count = rows written.
 */
#include <math.h>
#include "interp/interp_impl.h"
#include "model/flexbuf.h"

typedef struct {
    int max_det, max_cls, per_class, num_classes;
    bool regular;
    gc_f32 score_thr, iou_thr, ys, xs, hs, ws;
    int A, K, enc_len;
    int s_boxes, s_scores, s_work;   /* scratch slots */
} dpp_data;

static gc_status opt_int(gc_ctx *ctx, gc_flex fb, const char *key, bool need, int64_t dflt, int64_t lo, int64_t hi, int *out) {
    int64_t i = 0; double f = 0;
    int k = gc_flex_root_get(fb, key, &i, &f);
    if (k == 0 && !need) { *out = (int)dflt; return GC_OK; }
    GC_ENSURE(ctx, k == 1, "custom option '%s' is %s (an integer is needed)", key, k == 0 ? "absent" : "not an integer");
    GC_ENSURE(ctx, i >= lo && i <= hi, "custom option '%s' = %lld is out of range [%lld, %lld]", key, (long long)i,
              (long long)lo, (long long)hi);
    *out = (int)i;
    return GC_OK;
}
static gc_status opt_num(gc_ctx *ctx, gc_flex fb, const char *key, gc_f32 *out) {
    int64_t i = 0; double f = 0;
    int k = gc_flex_root_get(fb, key, &i, &f);
    GC_ENSURE(ctx, k == 1 || k == 2, "custom option '%s' is %s (a number is needed)", key, k == 0 ? "absent" : "not a number");
    *out = k == 1 ? (gc_f32)i : (gc_f32)f;
    GC_ENSURE(ctx, isfinite(*out), "custom option '%s' is not finite", key);
    return GC_OK;
}

/* the work area of one invoke: every list sized for its worst case */
typedef struct {
    float *col, *kv, *mscore, *tscore;
    int *keep, *order, *sorttmp, *active, *cls_order, *sel, *midx, *tidx;
} dpp_work;

static size_t layout(const dpp_data *d, uint8_t *base, dpp_work *w) {
    size_t A = (size_t)d->A, M = (size_t)d->max_det + (size_t)(d->per_class < d->max_det ? d->per_class : d->max_det) + 1;
    size_t off = 0;
#define DPP_TAKE(field, type, count) do { if (w) w->field = (type *)(base + off); \
        off += ((count) * sizeof(type) + 15) / 16 * 16; } while (0)
    DPP_TAKE(col, float, A); DPP_TAKE(kv, float, A); DPP_TAKE(mscore, float, M); DPP_TAKE(tscore, float, M);
    DPP_TAKE(keep, int, A); DPP_TAKE(order, int, A); DPP_TAKE(sorttmp, int, A); DPP_TAKE(active, int, A);
    DPP_TAKE(cls_order, int, d->regular ? 1 : A * (size_t)d->num_classes); DPP_TAKE(sel, int, A);
    DPP_TAKE(midx, int, M); DPP_TAKE(tidx, int, M);
#undef DPP_TAKE
    return off + 16;
}

static gc_status dpp_prepare(gc_ctx *ctx, gc_node *n) {
    GC_TRY(gc_check_arity(ctx, n, 3, 3, 4));
    gc_rt *enc = n->in[0], *cls = n->in[1], *anc = n->in[2];
    dpp_data *d = gc_ctx_alloc(ctx, sizeof *d);
    if (!d) return GC_ERR_NOMEM;
    gc_flex fb = { n->op->custom_options, n->op->custom_options ? n->op->n_custom_options : 0 };
    GC_TRY(opt_int(ctx, fb, "max_detections", true, 0, 0, 1 << 20, &d->max_det));
    GC_TRY(opt_int(ctx, fb, "max_classes_per_detection", true, 0, 1, 1 << 20, &d->max_cls));
    GC_TRY(opt_int(ctx, fb, "detections_per_class", false, 100, 1, 1 << 20, &d->per_class));
    GC_TRY(opt_int(ctx, fb, "num_classes", true, 0, 1, 1 << 20, &d->num_classes));
    int reg = 0;
    GC_TRY(opt_int(ctx, fb, "use_regular_nms", false, 0, 0, 1, &reg));
    d->regular = reg != 0;
    GC_TRY(opt_num(ctx, fb, "nms_score_threshold", &d->score_thr));
    GC_TRY(opt_num(ctx, fb, "nms_iou_threshold", &d->iou_thr));
    GC_TRY(opt_num(ctx, fb, "y_scale", &d->ys)); GC_TRY(opt_num(ctx, fb, "x_scale", &d->xs));
    GC_TRY(opt_num(ctx, fb, "h_scale", &d->hs)); GC_TRY(opt_num(ctx, fb, "w_scale", &d->ws));
    GC_ENSURE(ctx, d->iou_thr > 0 && d->iou_thr <= 1, "nms_iou_threshold %g is outside (0, 1]", (double)d->iou_thr);
    GC_ENSURE(ctx, enc->rank == 3 && cls->rank == 3 && anc->rank == 2, "expects encodings [1,A,4+], scores [1,A,K], anchors [A,4]");
    GC_UNSUP(ctx, enc->shape[0] == 1 && cls->shape[0] == 1, "batch %d (1 only, as TFLite)", (int)enc->shape[0]);
    d->A = enc->shape[1]; d->enc_len = enc->shape[2]; d->K = cls->shape[2];
    GC_ENSURE(ctx, d->enc_len >= 4 && cls->shape[1] == d->A && anc->shape[0] == d->A && anc->shape[1] == 4,
              "encodings [1,%d,%d], scores [1,%d,%d] and anchors [%d,%d] disagree", d->A, d->enc_len, (int)cls->shape[1],
              d->K, (int)anc->shape[0], (int)anc->shape[1]);
    GC_ENSURE(ctx, d->K >= d->num_classes && d->K - d->num_classes <= 1, "%d score columns for %d classes", d->K, d->num_classes);
    bool q = enc->dtype == GC_T_UINT8;
    GC_UNSUP(ctx, (q && anc->dtype == GC_T_UINT8 && enc->scale > 0 && anc->scale > 0) ||
             (gc_is_float(enc->dtype) && gc_is_float(anc->dtype)),
             "encodings %s / anchors %s (FLOAT32, or UINT8 with scales)", gc_type_name(enc->dtype), gc_type_name(anc->dtype));
    GC_UNSUP(ctx, gc_is_float(cls->dtype) || (cls->dtype == GC_T_UINT8 && cls->scale > 0), "scores of %s", gc_type_name(cls->dtype));
    for (int k = 0; k < 4; k++) GC_UNSUP(ctx, gc_is_float(n->out[k]->dtype), "output %d is %s (FLOAT32)", k, gc_type_name(n->out[k]->dtype));
    int64_t D = (int64_t)d->max_det * d->max_cls;
    GC_ENSURE(ctx, D <= (1 << 24), "max_detections * max_classes_per_detection = %lld is too large", (long long)D);
    size_t A = (size_t)d->A, AK = A * (size_t)d->K;
    d->s_boxes = gc_ctx_scratch(ctx, n, A * 4 * sizeof(float));
    d->s_scores = gc_ctx_scratch(ctx, n, AK * sizeof(float));
    size_t work = layout(d, NULL, NULL);
    d->s_work = gc_ctx_scratch(ctx, n, work);
    n->data = d;
    int32_t s0[3] = { 1, (int32_t)D, 4 }, s1[2] = { 1, (int32_t)D }, s3[1] = { 1 };
    GC_TRY(gc_set_shape(ctx, n->out[0], 3, s0));
    GC_TRY(gc_set_shape(ctx, n->out[1], 2, s1));
    GC_TRY(gc_set_shape(ctx, n->out[2], 2, s1));
    return gc_set_shape(ctx, n->out[3], 1, s3);
}

/* ---- libstdc++'s heap-based std::partial_sort on indices, comp(i, j) = v[i] > v[j] ---- */

static bool gt(const float *v, int a, int b) { return v[a] > v[b]; }

static void push_heap_(int *h, long hole, long top, int value, const float *v) {
    long parent = (hole - 1) / 2;
    while (hole > top && gt(v, h[parent], value)) { h[hole] = h[parent]; hole = parent; parent = (hole - 1) / 2; }
    h[hole] = value;
}
static void adjust_heap_(int *h, long hole, long len, int value, const float *v) {
    const long top = hole;
    long child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (gt(v, h[child], h[child - 1])) child--;
        h[hole] = h[child]; hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        h[hole] = h[child - 1]; hole = child - 1;
    }
    push_heap_(h, hole, top, value, v);
}
static void partial_sort_(int *idx, long mid, long len, const float *v) {
    if (mid >= 2)                                              /* make_heap(first, middle) */
        for (long parent = (mid - 2) / 2;; parent--) {
            adjust_heap_(idx, parent, mid, idx[parent], v);
            if (parent == 0) break;
        }
    for (long i = mid; i < len; i++)                           /* heap select */
        if (gt(v, idx[i], idx[0])) { int val = idx[i]; idx[i] = idx[0]; adjust_heap_(idx, 0, mid, val, v); }
    for (long last = mid; last > 1;) {                         /* sort_heap */
        --last;
        int val = idx[last]; idx[last] = idx[0]; adjust_heap_(idx, 0, last, val, v);
    }
}

/* stable decreasing argsort of v[0..n) into order (insertion into runs: n is small enough;
 * a merge sort keeps it O(n log n)) */
static void stable_desc(const float *v, int n, int *order, int *tmp) {
    for (int i = 0; i < n; i++) order[i] = i;
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, k = lo;
            while (a < mid && b < hi) tmp[k++] = v[order[b]] > v[order[a]] ? order[b++] : order[a++];
            while (a < mid) tmp[k++] = order[a++];
            while (b < hi) tmp[k++] = order[b++];
        }
        memcpy(order, tmp, (size_t)n * sizeof *order);
    }
}

static float iou(const float *bx, int i, int j) {
    const float *a = bx + 4 * (size_t)i, *b = bx + 4 * (size_t)j;
    float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0) return 0.0f;
    float y0 = a[0] > b[0] ? a[0] : b[0], x0 = a[1] > b[1] ? a[1] : b[1];
    float y1 = a[2] < b[2] ? a[2] : b[2], x1 = a[3] < b[3] ? a[3] : b[3];
    float ih = y1 - y0, iw = x1 - x0;
    float inter = (ih > 0.0f ? ih : 0.0f) * (iw > 0.0f ? iw : 0.0f);
    return inter / (area_a + area_b - inter);
}

/* single-class NMS over scores[0..A): selected anchor indices (<= limit) into w->sel */
static int nms(const dpp_data *d, const float *bx, const float *scores, int limit, dpp_work *w) {
    int nk = 0;
    for (int i = 0; i < d->A; i++) if (scores[i] >= d->score_thr) w->keep[nk++] = i;
    for (int i = 0; i < nk; i++) w->kv[i] = scores[w->keep[i]];
    stable_desc(w->kv, nk, w->order, w->sorttmp);
    int out = nk < limit ? nk : limit, ns = 0, active = nk;
    for (int i = 0; i < nk; i++) w->active[i] = 1;
    for (int i = 0; i < nk; i++) {
        if (active == 0 || ns >= out) break;
        if (!w->active[i]) continue;
        w->sel[ns++] = w->keep[w->order[i]];
        w->active[i] = 0; active--;
        for (int j = i + 1; j < nk; j++)
            if (w->active[j] && iou(bx, w->keep[w->order[i]], w->keep[w->order[j]]) > d->iou_thr) { w->active[j] = 0; active--; }
    }
    return ns;
}

static gc_status dpp_eval(gc_ctx *ctx, gc_node *n) {
    const dpp_data *d = n->data;
    const gc_rt *enc = n->in[0], *cls = n->in[1], *anc = n->in[2];
    const int A = d->A, K = d->K, NC = d->num_classes, off = K - NC;
    float *bx = (float *)n->scratch[d->s_boxes], *sc = (float *)n->scratch[d->s_scores];
    for (int i = 0; i < A; i++) {
        float e[4], a[4];
        if (enc->dtype == GC_T_UINT8) {
            const uint8_t *pe = enc->data + (size_t)i * d->enc_len, *pa = anc->data + (size_t)i * 4;
            for (int k = 0; k < 4; k++) {
                e[k] = ((float)pe[k] - (float)enc->zp) * enc->scale;
                a[k] = ((float)pa[k] - (float)anc->zp) * anc->scale;
            }
        } else {
            for (int k = 0; k < 4; k++) {
                e[k] = ((const float *)enc->data)[(size_t)i * d->enc_len + k];
                a[k] = ((const float *)anc->data)[(size_t)i * 4 + k];
            }
        }
        float yc = (float)((double)e[0] / (double)d->ys * (double)a[2] + (double)a[0]);
        float xc = (float)((double)e[1] / (double)d->xs * (double)a[3] + (double)a[1]);
        float hh = (float)(0.5 * exp((double)e[2] / (double)d->hs) * (double)a[2]);
        float hw = (float)(0.5 * exp((double)e[3] / (double)d->ws) * (double)a[3]);
        float *b = bx + 4 * (size_t)i;
        b[0] = yc - hh; b[1] = xc - hw; b[2] = yc + hh; b[3] = xc + hw;
    }
    for (int i = 0; i < A; i++) {
        const float *b = bx + 4 * (size_t)i;
        if (b[0] > b[2] || b[1] > b[3])
            return gc_fail(ctx, GC_ERR_FORMAT, "decoded box %d is inverted (ymin > ymax or xmin > xmax)", i);
    }
    const float *scores;
    if (cls->dtype == GC_T_UINT8) {
        for (size_t i = 0; i < (size_t)A * K; i++) sc[i] = (float)((double)cls->scale * ((int32_t)cls->data[i] - cls->zp));
        scores = sc;
    } else {
        scores = (const float *)cls->data;
    }
    dpp_work w;
    layout(d, n->scratch[d->s_work], &w);
    float *ob = (float *)n->out[0]->data, *oc = (float *)n->out[1]->data, *os = (float *)n->out[2]->data;
    size_t D = (size_t)d->max_det * d->max_cls;
    memset(ob, 0, D * 4 * sizeof(float)); memset(oc, 0, D * sizeof(float)); memset(os, 0, D * sizeof(float));
    int count = 0;
    if (!d->regular) {
        int kk = d->max_cls < NC ? d->max_cls : NC;
        for (int r = 0; r < A; r++) {
            const float *s = scores + (size_t)r * K + off;
            int *o = w.cls_order + (size_t)r * NC;
            if (kk == 1) {                                  /* ArgMaxVector: the first maximum */
                int best = 0;
                for (int c = 1; c < NC; c++) if (s[c] > s[best]) best = c;
                o[0] = best;
            } else {
                for (int c = 0; c < NC; c++) o[c] = c;
                partial_sort_(o, kk, NC, s);
            }
            w.col[r] = s[o[0]];
        }
        int ns = nms(d, bx, w.col, d->max_det, &w);
        for (int i = 0; i < ns; i++) {
            int a = w.sel[i];
            const float *s = scores + (size_t)a * K + off;
            const int *o = w.cls_order + (size_t)a * NC;
            for (int c = 0; c < kk; c++) {
                size_t row = (size_t)d->max_cls * i + c;
                memcpy(ob + 4 * row, bx + 4 * (size_t)a, 4 * sizeof(float));
                oc[row] = (float)o[c];
                os[row] = s[o[c]];
            }
        }
        count = ns;
    } else {
        int per = d->per_class < d->max_det ? d->per_class : d->max_det, m = 0;
        for (int c = 0; c < NC; c++) {
            for (int r = 0; r < A; r++) w.col[r] = scores[(size_t)r * K + c + off];
            int ns = nms(d, bx, w.col, per, &w);
            if (!ns) continue;
            /* stable merge (std::inplace_merge): the earlier list wins ties */
            int a = 0, b = 0, k = 0;
            while (a < m && b < ns) {
                float sb = w.col[w.sel[b]];
                if (sb > w.mscore[a]) { w.tidx[k] = w.sel[b] * K + c + off; w.tscore[k++] = sb; b++; }
                else { w.tidx[k] = w.midx[a]; w.tscore[k++] = w.mscore[a++]; }
            }
            while (a < m) { w.tidx[k] = w.midx[a]; w.tscore[k++] = w.mscore[a++]; }
            while (b < ns) { w.tidx[k] = w.sel[b] * K + c + off; w.tscore[k++] = w.col[w.sel[b]]; b++; }
            m = k < d->max_det ? k : d->max_det;
            memcpy(w.midx, w.tidx, (size_t)m * sizeof(int));
            memcpy(w.mscore, w.tscore, (size_t)m * sizeof(float));
        }
        for (int i = 0; i < m; i++) {
            int anchor = w.midx[i] / K, klass = w.midx[i] - anchor * K - off;
            memcpy(ob + 4 * (size_t)i, bx + 4 * (size_t)anchor, 4 * sizeof(float));
            oc[i] = (float)klass;
            os[i] = w.mscore[i];
        }
        count = m;
    }
    ((float *)n->out[3]->data)[0] = (float)count;
    return GC_OK;
}

const gc_kernel GC_K(gc_k_detection_postprocess) = { "TFLite_Detection_PostProcess", dpp_prepare, dpp_eval, GC_K_NOFOLD };
