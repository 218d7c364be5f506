/* fb.c — the verified FlatBuffer accessors declared in fb.h. */
#include "fb.h"

#include <stdarg.h>
#include <stdio.h>

bool fb_fail(fb_reader *r, const char *fmt, ...) {
    if (!r->failed && r->err && r->errlen) {
        va_list ap; va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
    r->failed = true;
    return false;
}

bool fb_spend(fb_reader *r, uint64_t n) {
    if (n > r->budget)
        return fb_fail(r, "structure far larger than the file (shared or cyclic references?)");
    r->budget -= n;
    return true;
}

static bool in_range(const fb_reader *r, uint64_t pos, uint64_t len) {
    return pos <= r->n && len <= r->n - pos;
}

bool fb_table_at(fb_reader *r, uint64_t pos, fb_table *t, const char *what) {
    if (!fb_spend(r, 1)) return false;
    if (!in_range(r, pos, 4))
        return fb_fail(r, "%s: table offset %llu outside the file (%llu bytes)", what,
                       (unsigned long long)pos, (unsigned long long)r->n);
    int32_t so; memcpy(&so, r->b + pos, 4);
    int64_t vt = (int64_t)pos - (int64_t)so;
    if (vt < 0 || !in_range(r, (uint64_t)vt, 4))
        return fb_fail(r, "%s: vtable offset %lld outside the file", what, (long long)vt);
    uint16_t vsz = fb_u16(r->b + vt), tsz = fb_u16(r->b + vt + 2);
    if (vsz < 4 || (vsz & 1) || !in_range(r, (uint64_t)vt, vsz))
        return fb_fail(r, "%s: bad vtable (size %u) at offset %lld", what, vsz, (long long)vt);
    if (tsz < 4 || !in_range(r, pos, tsz))
        return fb_fail(r, "%s: table at offset %llu (size %u) runs past the end of the file",
                       what, (unsigned long long)pos, tsz);
    t->pos = pos; t->vt = (uint64_t)vt; t->nfields = (vsz - 4u) / 2u; t->size = tsz;
    return true;
}

bool fb_root(fb_reader *r, const char *ident, fb_table *t) {
    if (r->n < 8) return fb_fail(r, "file too small to be a .tflite model (%llu bytes)",
                                 (unsigned long long)r->n);
    if (ident && memcmp(r->b + 4, ident, 4) != 0) {
        char got[5]; for (int i = 0; i < 4; i++) {
            unsigned char c = r->b[4 + i]; got[i] = (c >= 32 && c < 127) ? (char)c : '?';
        }
        got[4] = 0;
        return fb_fail(r, "not a TFLite model: file identifier is \"%s\", expected \"%s\"",
                       got, ident);
    }
    return fb_table_at(r, fb_u32(r->b), t, "model");
}

bool fb_has(const fb_reader *r, const fb_table *t, int id) {
    if (id < 0 || (uint32_t)id >= t->nfields) return false;
    return fb_u16(r->b + t->vt + 4 + 2 * (uint32_t)id) != 0;
}

bool fb_field(fb_reader *r, const fb_table *t, int id, uint32_t size, uint32_t *off) {
    *off = 0;
    if (id < 0 || (uint32_t)id >= t->nfields) return true;
    uint16_t o = fb_u16(r->b + t->vt + 4 + 2 * (uint32_t)id);
    if (!o) return true;
    if ((uint32_t)o + size > t->size)
        return fb_fail(r, "field %d at table offset %llu lies outside its table", id,
                       (unsigned long long)t->pos);
    *off = o;
    return true;
}

#define FB_GET(name, type)                                                           \
    bool fb_get_##name(fb_reader *r, const fb_table *t, int id, type dflt, type *v) { \
        uint32_t o;                                                                  \
        if (!fb_field(r, t, id, sizeof(type), &o)) return false;                     \
        if (!o) { *v = dflt; return true; }                                          \
        memcpy(v, r->b + t->pos + o, sizeof(type));                                  \
        return true;                                                                 \
    }
FB_GET(u8, uint8_t)
FB_GET(i8, int8_t)
FB_GET(i16, int16_t)
FB_GET(u16, uint16_t)
FB_GET(i32, int32_t)
FB_GET(u32, uint32_t)
FB_GET(u64, uint64_t)
FB_GET(f32, float)
FB_GET(f64, double)
#undef FB_GET

bool fb_get_ref(fb_reader *r, const fb_table *t, int id, uint64_t *pos) {
    uint32_t o;
    *pos = 0;
    if (!fb_field(r, t, id, 4, &o)) return false;
    if (!o) return true;
    uint64_t at = t->pos + o;
    uint32_t rel = fb_u32(r->b + at);
    if (rel == 0) return fb_fail(r, "zero offset in field %d of table at %llu", id,
                                 (unsigned long long)t->pos);
    *pos = at + rel;
    if (*pos >= r->n)
        return fb_fail(r, "field %d of table at %llu points outside the file", id,
                       (unsigned long long)t->pos);
    return true;
}

bool fb_vector(fb_reader *r, uint64_t pos, uint32_t elem, uint32_t *count, uint64_t *data,
               const char *what) {
    if (!in_range(r, pos, 4))
        return fb_fail(r, "%s: vector at offset %llu outside the file", what,
                       (unsigned long long)pos);
    uint32_t n = fb_u32(r->b + pos);
    uint64_t bytes = (uint64_t)n * elem;
    if (!in_range(r, pos + 4, bytes))
        return fb_fail(r, "%s: vector of %u elements at offset %llu runs past the end of the file",
                       what, n, (unsigned long long)pos);
    if (!fb_spend(r, n / 8 + 1)) return false;
    *count = n; *data = pos + 4;
    return true;
}

bool fb_get_vector(fb_reader *r, const fb_table *t, int id, uint32_t elem, uint32_t *count,
                   uint64_t *data, bool *present, const char *what) {
    uint64_t pos;
    *count = 0; *data = 0;
    if (present) *present = false;
    if (!fb_get_ref(r, t, id, &pos)) return false;
    if (!pos) return true;
    if (present) *present = true;
    return fb_vector(r, pos, elem, count, data, what);
}

bool fb_get_string(fb_reader *r, const fb_table *t, int id, const char **s, uint32_t *len,
                   const char *what) {
    uint32_t n; uint64_t d;
    *s = NULL; if (len) *len = 0;
    if (!fb_get_vector(r, t, id, 1, &n, &d, NULL, what)) return false;
    if (!d) return true;
    if (d + n >= r->n || r->b[d + n] != 0)
        return fb_fail(r, "%s: string is not NUL-terminated", what);
    *s = (const char *)(r->b + d);
    if (len) *len = n;
    return true;
}

bool fb_vector_table(fb_reader *r, uint64_t data, uint32_t i, fb_table *t, const char *what) {
    uint64_t at = data + 4ull * i;
    uint32_t rel = fb_u32(r->b + at);
    if (rel == 0) return fb_fail(r, "%s: zero offset in table vector", what);
    return fb_table_at(r, at + rel, t, what);
}
