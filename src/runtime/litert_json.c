/* litert_json.c — a small, bounds-checked JSON reader (see litert_json.h). Recursive
 * descent with a depth limit; arrays and objects are collected in temporary growable
 * buffers and copied into the arena once their size is known. */
#include "runtime/litert_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s, *end, *start;
    gc_arena *arena;
    char *err; size_t errlen;
    bool failed;
} lj_parser;

static void lj_fail(lj_parser *p, const char *what) {
    if (p->failed) return;
    p->failed = true;
    int line = 1, col = 1;
    for (const char *q = p->start; q < p->s && q < p->end; q++) {
        if (*q == '\n') { line++; col = 1; } else col++;
    }
    gc_errf(p->err, p->errlen, "line %d col %d: %s", line, col, what);
}

static void lj_ws(lj_parser *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static bool lj_lit(lj_parser *p, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, lit, n) != 0) return false;
    p->s += n;
    return true;
}

static int lj_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool lj_u4(lj_parser *p, uint32_t *out) {
    if (p->end - p->s < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = lj_hex(p->s[i]);
        if (h < 0) return false;
        v = v << 4 | (uint32_t)h;
    }
    p->s += 4;
    *out = v;
    return true;
}

static size_t lj_utf8(uint32_t cp, char *o) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

/* p->s is just past the opening quote. Decoded length never exceeds the raw length. */
static const char *lj_string(lj_parser *p) {
    const char *q = p->s;
    while (q < p->end && *q != '"') q += (*q == '\\' && q + 1 < p->end) ? 2 : 1;
    if (q >= p->end) { lj_fail(p, "unterminated string"); return NULL; }
    size_t raw = (size_t)(q - p->s);
    char *out = gc_arena_alloc(p->arena, raw + 1);
    if (!out) { lj_fail(p, "out of memory"); return NULL; }
    size_t n = 0;
    while (p->s < q) {
        unsigned char c = (unsigned char)*p->s++;
        if (c < 0x20) { lj_fail(p, "control character in string"); return NULL; }
        if (c != '\\') { out[n++] = (char)c; continue; }
        char e = *p->s++;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (!lj_u4(p, &cp) || p->s > q) { lj_fail(p, "bad \\u escape"); return NULL; }
            if (cp >= 0xD800 && cp < 0xDC00 && q - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
                const char *save = p->s;
                uint32_t lo;
                p->s += 2;
                if (lj_u4(p, &lo) && lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else p->s = save;
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;    /* lone surrogate */
            char tmp[4];
            size_t k = lj_utf8(cp, tmp);
            memcpy(out + n, tmp, k);                          /* 6 raw bytes >= 4 out */
            n += k;
            break;
        }
        default: lj_fail(p, "bad escape in string"); return NULL;
        }
    }
    out[n] = 0;
    p->s = q + 1;
    return out;
}

static bool lj_value(lj_parser *p, gc_lj *v, int depth);

static bool lj_container(lj_parser *p, gc_lj *v, int depth, bool is_obj) {
    gc_lj *items = NULL; const char **keys = NULL;
    int32_t n = 0, cap = 0, kcap = 0;
    bool ok = false;
    p->s++;                                           /* '[' or '{' */
    lj_ws(p);
    char close = is_obj ? '}' : ']';
    if (p->s < p->end && *p->s == close) { p->s++; ok = true; goto done; }
    for (;;) {
        if (!gc_grow((void **)&items, &cap, n + 1, sizeof *items)) { lj_fail(p, "out of memory"); goto done; }
        if (is_obj) {
            if (!gc_grow((void **)&keys, &kcap, n + 1, sizeof *keys)) { lj_fail(p, "out of memory"); goto done; }
            lj_ws(p);
            if (p->s >= p->end || *p->s != '"') { lj_fail(p, "expected a string key"); goto done; }
            p->s++;
            if (!(keys[n] = lj_string(p))) goto done;
            lj_ws(p);
            if (p->s >= p->end || *p->s != ':') { lj_fail(p, "expected ':'"); goto done; }
            p->s++;
        }
        memset(&items[n], 0, sizeof items[n]);
        if (!lj_value(p, &items[n], depth + 1)) goto done;
        n++;
        lj_ws(p);
        if (p->s < p->end && *p->s == ',') { p->s++; continue; }
        if (p->s < p->end && *p->s == close) { p->s++; ok = true; break; }
        lj_fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
        goto done;
    }
done:
    if (ok) {
        v->type = is_obj ? GC_LJ_OBJ : GC_LJ_ARR;
        v->count = n;
        if (n) {
            v->items = gc_arena_dup(p->arena, items, (size_t)n * sizeof *items);
            if (is_obj) v->keys = gc_arena_dup(p->arena, keys, (size_t)n * sizeof *keys);
            if (!v->items || (is_obj && !v->keys)) { lj_fail(p, "out of memory"); ok = false; }
        }
    }
    free(items);
    free(keys);
    return ok;
}

static bool lj_number(lj_parser *p, gc_lj *v) {
    const char *q = p->s;
    if (q < p->end && *q == '-') q++;
    if (q >= p->end || !(*q >= '0' && *q <= '9')) { lj_fail(p, "bad number"); return false; }
    if (*q == '0') q++; else while (q < p->end && *q >= '0' && *q <= '9') q++;
    if (q < p->end && *q == '.') {
        q++;
        if (q >= p->end || !(*q >= '0' && *q <= '9')) { lj_fail(p, "bad number"); return false; }
        while (q < p->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < p->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < p->end && (*q == '+' || *q == '-')) q++;
        if (q >= p->end || !(*q >= '0' && *q <= '9')) { lj_fail(p, "bad number"); return false; }
        while (q < p->end && *q >= '0' && *q <= '9') q++;
    }
    char buf[64];
    size_t len = (size_t)(q - p->s);
    if (len >= sizeof buf) { lj_fail(p, "number too long"); return false; }
    memcpy(buf, p->s, len);
    buf[len] = 0;
    v->type = GC_LJ_NUM;
    v->num = strtod(buf, NULL);
    p->s = q;
    return true;
}

static bool lj_value(lj_parser *p, gc_lj *v, int depth) {
    if (depth > GC_LJ_MAX_DEPTH) { lj_fail(p, "nesting too deep"); return false; }
    lj_ws(p);
    if (p->s >= p->end) { lj_fail(p, "unexpected end of input"); return false; }
    switch (*p->s) {
    case '{': return lj_container(p, v, depth, true);
    case '[': return lj_container(p, v, depth, false);
    case '"':
        p->s++;
        v->type = GC_LJ_STR;
        return (v->str = lj_string(p)) != NULL;
    case 't': if (lj_lit(p, "true")) { v->type = GC_LJ_BOOL; v->b = true; return true; } break;
    case 'f': if (lj_lit(p, "false")) { v->type = GC_LJ_BOOL; v->b = false; return true; } break;
    case 'n': if (lj_lit(p, "null")) { v->type = GC_LJ_NULL; return true; } break;
    default:
        if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) return lj_number(p, v);
    }
    lj_fail(p, "unexpected character");
    return false;
}

const gc_lj *gc_lj_parse(gc_arena *arena, const char *text, size_t n, char *err, size_t errlen) {
    lj_parser p = { text, text + n, text, arena, err, errlen, false };
    gc_lj *root = gc_arena_alloc(arena, sizeof *root);
    if (!root) { gc_errf(err, errlen, "out of memory"); return NULL; }
    if (!lj_value(&p, root, 0)) return NULL;
    lj_ws(&p);
    if (p.s != p.end) { lj_fail(&p, "trailing characters after the JSON value"); return NULL; }
    return root;
}

const gc_lj *gc_lj_parse_file(gc_arena *arena, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) { gc_errf(err, errlen, "%s: cannot open (%s)", path, strerror(errno)); return NULL; }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    const size_t max = (size_t)64 << 20;
    while (buf) {
        if (n == cap) {
            if (cap >= max) { free(buf); buf = NULL; fclose(f); gc_errf(err, errlen, "%s: larger than 64 MiB", path); return NULL; }
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb; cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool ioerr = ferror(f);
    fclose(f);
    if (!buf) { gc_errf(err, errlen, "%s: out of memory", path); return NULL; }
    if (ioerr) { free(buf); gc_errf(err, errlen, "%s: read error", path); return NULL; }
    char msg[200];
    const gc_lj *root = gc_lj_parse(arena, buf, n, msg, sizeof msg);
    free(buf);
    if (!root) gc_errf(err, errlen, "%s: %s", path, msg);
    return root;
}

const gc_lj *gc_lj_get(const gc_lj *obj, const char *key) {
    if (!obj || obj->type != GC_LJ_OBJ) return NULL;
    for (int32_t i = 0; i < obj->count; i++)
        if (!strcmp(obj->keys[i], key)) return &obj->items[i];
    return NULL;
}

const gc_lj *gc_lj_at(const gc_lj *arr, int32_t i) {
    if (!arr || (arr->type != GC_LJ_ARR && arr->type != GC_LJ_OBJ) || i < 0 || i >= arr->count) return NULL;
    return &arr->items[i];
}

int32_t gc_lj_len(const gc_lj *arr) {
    return (arr && (arr->type == GC_LJ_ARR || arr->type == GC_LJ_OBJ)) ? arr->count : 0;
}

const char *gc_lj_str(const gc_lj *v, const char *dflt) {
    return (v && v->type == GC_LJ_STR) ? v->str : dflt;
}

double gc_lj_num(const gc_lj *v, double dflt) {
    return (v && v->type == GC_LJ_NUM) ? v->num : dflt;
}

bool gc_lj_bool(const gc_lj *v, bool dflt) {
    return (v && v->type == GC_LJ_BOOL) ? v->b : dflt;
}

bool gc_lj_is_null(const gc_lj *v) { return !v || v->type == GC_LJ_NULL; }
