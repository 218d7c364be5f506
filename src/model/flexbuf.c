/* flexbuf.c — a bounds-checked reader for the few FlexBuffer shapes gpuclean needs:
 * the attributes of a STABLEHLO_COMPOSITE node (a map of scalars and small int vectors;
 * gpu-delegate-rules.md §2.8: odml.group_norm reads "sub_type", "num_groups",
 * "epsilon", "channel_axis", "_TENSOR_V1_reduction_axes") and the custom options of
 * MediaPipe's custom ops (interp/kernels/mediapipe.c: scalars, int vectors, strings). Format facts (FlexBuffers
 * spec): the last byte is the root's byte width, the one before it the root's packed
 * type (type << 2 | log2 width); offsets point backwards; a map stores keys-vector
 * offset, keys byte width and size in the three slots before its values, and the value
 * types after them. Anything unexpected reads as "absent".
 */
#include "model/flexbuf.h"

#include <stdbool.h>

#include <string.h>

enum { FB_NULL = 0, FB_INT = 1, FB_UINT = 2, FB_FLOAT = 3, FB_KEY = 4, FB_STRING = 5,
       FB_IND_INT = 6, FB_IND_UINT = 7, FB_IND_FLOAT = 8, FB_MAP = 9, FB_VECTOR = 10,
       FB_VEC_INT = 11, FB_VEC_UINT = 12, FB_VEC_FLOAT = 13, FB_VEC_KEY = 14, FB_BOOL = 26 };

typedef struct {
    gc_flex fb;
    size_t at;        /* offset of the value slot */
    int parent_w;     /* width of the slot */
    int byte_w;       /* width of the referenced data's elements */
    int type;
} fref;

static bool rd_u(gc_flex fb, size_t at, int w, uint64_t *v) {
    if (w != 1 && w != 2 && w != 4 && w != 8) return false;
    if (at > fb.n || fb.n - at < (size_t)w) return false;
    uint64_t x = 0;
    for (int i = w - 1; i >= 0; i--) x = (x << 8) | fb.p[at + (size_t)i];
    *v = x;
    return true;
}

static bool rd_i(gc_flex fb, size_t at, int w, int64_t *v) {
    uint64_t u;
    if (!rd_u(fb, at, w, &u)) return false;
    if (w < 8 && (u >> (w * 8 - 1)) & 1) u |= ~0ull << (w * 8);
    *v = (int64_t)u;
    return true;
}

static bool rd_f(gc_flex fb, size_t at, int w, double *v) {
    uint64_t u;
    if (!rd_u(fb, at, w, &u)) return false;
    if (w == 4) { uint32_t b = (uint32_t)u; float f; memcpy(&f, &b, 4); *v = f; return true; }
    if (w == 8) { memcpy(v, &u, 8); return true; }
    return false;
}

/* follow an offset stored at `at` (width w): target = at - offset */
static bool indirect(gc_flex fb, size_t at, int w, size_t *target) {
    uint64_t off;
    if (!rd_u(fb, at, w, &off) || off > at) return false;
    *target = at - (size_t)off;
    return true;
}

static bool root(gc_flex fb, fref *r) {
    if (!fb.p || fb.n < 3) return false;
    int rw = fb.p[fb.n - 1];
    uint8_t packed = fb.p[fb.n - 2];
    if (rw != 1 && rw != 2 && rw != 4 && rw != 8) return false;
    if (fb.n < 2 + (size_t)rw) return false;
    r->fb = fb; r->at = fb.n - 2 - (size_t)rw; r->parent_w = rw;
    r->byte_w = 1 << (packed & 3); r->type = packed >> 2;
    return true;
}

/* child i of a map or untyped vector whose data starts at `data` (element width w) */
static bool child(gc_flex fb, size_t data, int w, uint64_t size, uint64_t i, fref *out) {
    if (i >= size) return false;
    size_t tpos = data + (size_t)size * (size_t)w + (size_t)i;
    if (tpos >= fb.n) return false;
    uint8_t packed = fb.p[tpos];
    out->fb = fb; out->at = data + (size_t)i * (size_t)w; out->parent_w = w;
    out->byte_w = 1 << (packed & 3); out->type = packed >> 2;
    return true;
}

static bool map_get(const fref *m, const char *key, fref *out) {
    if (m->type != FB_MAP) return false;
    size_t data;
    if (!indirect(m->fb, m->at, m->parent_w, &data)) return false;
    int w = m->byte_w;
    uint64_t size, kw;
    size_t kvec;
    if (data < (size_t)(3 * w)) return false;
    if (!rd_u(m->fb, data - (size_t)w, w, &size)) return false;
    if (!rd_u(m->fb, data - 2 * (size_t)w, w, &kw)) return false;
    if (!indirect(m->fb, data - 3 * (size_t)w, w, &kvec)) return false;
    if (size > m->fb.n) return false;
    for (uint64_t i = 0; i < size; i++) {
        size_t ks;
        if (!indirect(m->fb, kvec + (size_t)i * (size_t)kw, (int)kw, &ks)) return false;
        size_t len = strnlen((const char *)m->fb.p + ks, m->fb.n - ks);
        if (ks + len >= m->fb.n) return false;
        if (len == strlen(key) && !memcmp(m->fb.p + ks, key, len))
            return child(m->fb, data, w, size, i, out);
    }
    return false;
}

/* scalar: 1 int, 2 float, 3 other */
static int scalar(const fref *r, int64_t *i, double *f) {
    size_t at;
    switch (r->type) {
    case FB_INT: case FB_BOOL: return rd_i(r->fb, r->at, r->parent_w, i) ? 1 : 3;
    case FB_UINT: { uint64_t u; if (!rd_u(r->fb, r->at, r->parent_w, &u)) return 3; *i = (int64_t)u; return 1; }
    case FB_FLOAT: return rd_f(r->fb, r->at, r->parent_w, f) ? 2 : 3;
    case FB_IND_INT:
        return indirect(r->fb, r->at, r->parent_w, &at) && rd_i(r->fb, at, r->byte_w, i) ? 1 : 3;
    case FB_IND_UINT: {
        uint64_t u;
        if (!indirect(r->fb, r->at, r->parent_w, &at) || !rd_u(r->fb, at, r->byte_w, &u)) return 3;
        *i = (int64_t)u; return 1;
    }
    case FB_IND_FLOAT:
        return indirect(r->fb, r->at, r->parent_w, &at) && rd_f(r->fb, at, r->byte_w, f) ? 2 : 3;
    case FB_NULL: return 0;
    default: return 3;
    }
}

int gc_flex_root_get(gc_flex fb, const char *key, int64_t *i, double *f) {
    fref r, v;
    if (!root(fb, &r) || !map_get(&r, key, &v)) return 0;
    return scalar(&v, i, f);
}

/* the elements of an int vector (typed int/uint, or untyped of ints): count, or -1 */
static int ivec(const fref *vec, int64_t *v, int cap) {
    gc_flex fb = vec->fb;
    size_t data;
    if (!indirect(fb, vec->at, vec->parent_w, &data)) return -1;
    int w = vec->byte_w;
    uint64_t size;
    if (data < (size_t)w || !rd_u(fb, data - (size_t)w, w, &size) || size > fb.n) return -1;
    for (uint64_t k = 0; k < size; k++) {
        int64_t x = 0;
        if (vec->type == FB_VEC_INT || vec->type == FB_VEC_UINT) {
            if (!rd_i(fb, data + (size_t)k * (size_t)w, w, &x)) return -1;
            if (vec->type == FB_VEC_UINT && w < 8) { uint64_t u; if (!rd_u(fb, data + (size_t)k * (size_t)w, w, &u)) return -1; x = (int64_t)u; }
        } else if (vec->type == FB_VECTOR) {
            fref e;
            double d;
            if (!child(fb, data, w, size, k, &e) || scalar(&e, &x, &d) != 1) return -1;
        } else {
            return -1;
        }
        if ((int64_t)k < cap) v[k] = x;
    }
    return (int)size;
}

int gc_flex_root_get_ivec(gc_flex fb, const char *key, int64_t *v, int cap) {
    fref r, vec;
    if (!root(fb, &r) || !map_get(&r, key, &vec)) return -1;
    return ivec(&vec, v, cap);
}

int gc_flex_root_get_str(gc_flex fb, const char *key, const char **str, size_t *len) {
    fref r, v;
    if (!root(fb, &r) || !map_get(&r, key, &v)) return 0;
    size_t at;
    if (!indirect(fb, v.at, v.parent_w, &at)) return 0;
    if (v.type == FB_STRING) {
        uint64_t n;
        int w = v.byte_w;
        if (at < (size_t)w || !rd_u(fb, at - (size_t)w, w, &n) || n > fb.n - at) return 0;
        *str = (const char *)fb.p + at; *len = (size_t)n;
        return 1;
    }
    if (v.type == FB_KEY) {
        size_t n = strnlen((const char *)fb.p + at, fb.n - at);
        if (at + n >= fb.n) return 0;
        *str = (const char *)fb.p + at; *len = n;
        return 1;
    }
    return 0;
}

int gc_flex_root_get_ivec2(gc_flex fb, const char *key1, const char *key2, int64_t *v, int cap) {
    fref r, m, vec;
    if (!root(fb, &r) || !map_get(&r, key1, &m) || !map_get(&m, key2, &vec)) return -1;
    size_t data;
    if (!indirect(fb, vec.at, vec.parent_w, &data)) return -1;
    int w = vec.byte_w;
    uint64_t size;
    if (data < (size_t)w || !rd_u(fb, data - (size_t)w, w, &size) || size > fb.n) return -1;
    int n = 0;
    for (uint64_t k = 0; k < size && n < cap; k++) {
        int64_t x = 0;
        if (vec.type == FB_VEC_INT || vec.type == FB_VEC_UINT) {
            if (!rd_i(fb, data + (size_t)k * (size_t)w, w, &x)) return -1;
        } else if (vec.type == FB_VECTOR) {
            fref e;
            double d;
            if (!child(fb, data, w, size, k, &e) || scalar(&e, &x, &d) != 1) return -1;
        } else {
            return -1;
        }
        v[n++] = x;
    }
    return n;
}
