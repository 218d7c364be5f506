/* npy.c — NumPy .npy and .npz files, read and write.
 *
 * .npy (numpy/lib/format.py, NEP 1): the magic "\x93NUMPY", a major and a minor version
 * byte, the header length (version 1.0: uint16 LE; 2.0 and 3.0: uint32 LE; 3.0 only
 * allows UTF-8 in the header, which we never need), then the header: a Python dict
 * literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and ended by '\n', then the raw array bytes. We read 1.0/2.0/3.0 and write 1.0
 * (2.0 when the header passes 65535 bytes), padding the preamble+header to a multiple
 * of 64 bytes as NumPy does.
 *   descr: [<>=|] kind size with kind f (2, 4, 8), i/u (1, 2, 4, 8) or b (1). Big-endian
 *          ('>') data is byte-swapped to little-endian on read. Anything else (complex,
 *          strings, datetimes, structured dtypes given as a list) is GC_ERR_UNSUPPORTED
 *          naming the descr.
 *   fortran_order True is accepted when at most one axis is longer than 1 (then the
 *          layout equals C order) and refused (GC_ERR_UNSUPPORTED) otherwise.
 *   shape: a tuple of non-negative integers, at most 8 of them (Python 2's "3L" too).
 * The three keys must each appear once and no other key may; the data must be exactly
 * product(shape) * itemsize bytes (overflow-checked), trailing bytes are an error.
 *
 * .npz (numpy.savez / savez_compressed): a ZIP archive, one member "<name>.npy" per
 * array. We read the end-of-central-directory record (ZIP64 too: NumPy writes ZIP64
 * local headers), then each central-directory entry; members are stored (method 0) or
 * deflated (method 8, decoded by the small RFC 1951 inflater below); every member's
 * CRC-32 and sizes are checked. Encrypted members and multi-disk archives are refused.
 * We write stored members with their CRC-32, a fixed DOS time of 1980-01-01 00:00 (so
 * output is reproducible), and refuse archives that would need ZIP64 (> 4 GiB).
 *
 * Data in a gc_npy is always little-endian; this file assumes a little-endian host.
 */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c assumes a little-endian host"
#endif

#define NPY_MAX_HEADER (1u << 20)   /* we refuse headers past 1 MiB (NumPy: 10000 B) */

/* ---- dtypes ---------------------------------------------------------------------- */

typedef struct { int dtype; char kind; int size; const char *name; } dtype_info;

static const dtype_info dtypes[] = {
    { GC_T_FLOAT16, 'f', 2, "float16" }, { GC_T_FLOAT32, 'f', 4, "float32" },
    { GC_T_FLOAT64, 'f', 8, "float64" }, { GC_T_INT8, 'i', 1, "int8" },
    { GC_T_INT16, 'i', 2, "int16" },     { GC_T_INT32, 'i', 4, "int32" },
    { GC_T_INT64, 'i', 8, "int64" },     { GC_T_UINT8, 'u', 1, "uint8" },
    { GC_T_UINT16, 'u', 2, "uint16" },   { GC_T_UINT32, 'u', 4, "uint32" },
    { GC_T_UINT64, 'u', 8, "uint64" },   { GC_T_BOOL, 'b', 1, "bool" },
};
#define N_DTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

static const dtype_info *dtype_find(int dtype) {
    for (int i = 0; i < N_DTYPES; i++)
        if (dtypes[i].dtype == dtype) return &dtypes[i];
    return NULL;
}

int gc_npy_itemsize(int dtype) {
    const dtype_info *d = dtype_find(dtype);
    return d ? d->size : 0;
}

const char *gc_npy_dtype_name(int dtype) {
    const dtype_info *d = dtype_find(dtype);
    return d ? d->name : "?";
}

uint64_t gc_npy_count(const gc_npy *a) {
    uint64_t n = 1;
    for (int i = 0; i < a->rank; i++) n *= (uint64_t)a->shape[i];
    return n;
}

float gc_npy_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);            /* inf / NaN (payload kept) */
    } else if (exp == 0) {
        if (man == 0) bits = sign;                          /* ±0 */
        else {                                              /* subnormal: normalize */
            int e = -1;
            do { man <<= 1; e++; } while (!(man & 0x400u));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void gc_npy_to_f64(int dtype, const void *data, uint64_t i0, size_t n, double *dst) {
#define CONV(T) do { const unsigned char *p = (const unsigned char *)data + i0 * sizeof(T); \
        for (size_t k = 0; k < n; k++) { T v; memcpy(&v, p + k * sizeof(T), sizeof v); \
            dst[k] = (double)v; } } while (0)
    switch (dtype) {
    case GC_T_FLOAT32: CONV(float); break;
    case GC_T_FLOAT64: CONV(double); break;
    case GC_T_INT8: CONV(int8_t); break;
    case GC_T_INT16: CONV(int16_t); break;
    case GC_T_INT32: CONV(int32_t); break;
    case GC_T_INT64: CONV(int64_t); break;
    case GC_T_UINT8: CONV(uint8_t); break;
    case GC_T_UINT16: CONV(uint16_t); break;
    case GC_T_UINT32: CONV(uint32_t); break;
    case GC_T_UINT64: CONV(uint64_t); break;
    case GC_T_FLOAT16: {
        const unsigned char *p = (const unsigned char *)data + i0 * 2;
        for (size_t k = 0; k < n; k++)
            dst[k] = gc_npy_half_to_float((uint16_t)(p[2 * k] | (p[2 * k + 1] << 8)));
        break;
    }
    case GC_T_BOOL: {
        const unsigned char *p = (const unsigned char *)data + i0;
        for (size_t k = 0; k < n; k++) dst[k] = p[k] ? 1.0 : 0.0;
        break;
    }
    default:
        for (size_t k = 0; k < n; k++) dst[k] = NAN;
    }
#undef CONV
}

void gc_npy_free(gc_npy *a) {
    if (!a) return;
    free(a->data);
    a->data = NULL;
    a->nbytes = 0;
}

void gc_npz_free(gc_npy *arrays, int n) {
    if (!arrays) return;
    for (int i = 0; i < n; i++) gc_npy_free(&arrays[i]);
    free(arrays);
}

/* ---- CRC-32 ---------------------------------------------------------------------- */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t gc_crc32(uint32_t crc, const void *buf, size_t n) {
    pthread_once(&crc_once, crc_init);
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ---- inflate (RFC 1951) ---------------------------------------------------------- */

typedef struct {
    const uint8_t *in; size_t in_n, in_pos;
    uint32_t bitbuf; int bitcnt;
    uint8_t *out; size_t out_n, out_pos;
    bool bad;
} inflater;

typedef struct { uint16_t count[16]; uint16_t sym[288]; } huff;

static uint32_t inf_bits(inflater *s, int need) {
    while (s->bitcnt < need) {
        if (s->in_pos >= s->in_n) { s->bad = true; return 0; }
        s->bitbuf |= (uint32_t)s->in[s->in_pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    uint32_t v = s->bitbuf & ((1u << need) - 1u);
    s->bitbuf >>= need;
    s->bitcnt -= need;
    return v;
}

/* Canonical Huffman code from code lengths; false if over-subscribed. Incomplete
 * codes are allowed (a stream that uses a missing code fails in decode). */
static bool huff_build(huff *h, const uint8_t *len, int n) {
    uint16_t offs[16];
    memset(h->count, 0, sizeof h->count);
    for (int i = 0; i < n; i++) h->count[len[i]]++;
    int left = 1;
    for (int l = 1; l < 16; l++) {
        left <<= 1;
        left -= h->count[l];
        if (left < 0) return false;
    }
    offs[1] = 0;
    for (int l = 1; l < 15; l++) offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
    for (int i = 0; i < n; i++)
        if (len[i]) h->sym[offs[len[i]]++] = (uint16_t)i;
    return true;
}

/* Codes are read one bit at a time, first bit = most significant bit of the code. */
static int huff_decode(inflater *s, const huff *h) {
    int code = 0, first = 0, index = 0;
    for (int l = 1; l < 16; l++) {
        code |= (int)inf_bits(s, 1);
        if (s->bad) return -1;
        int cnt = h->count[l];
        if (code - first < cnt) return h->sym[index + code - first];
        index += cnt;
        first = (first + cnt) << 1;
        code <<= 1;
    }
    s->bad = true;
    return -1;
}

static const uint16_t len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23,
    27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3,
    3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97,
    129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
    24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
    7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

static bool inf_codes(inflater *s, const huff *lit, const huff *dist) {
    for (;;) {
        int sym = huff_decode(s, lit);
        if (sym < 0) return false;
        if (sym < 256) {
            if (s->out_pos >= s->out_n) return false;
            s->out[s->out_pos++] = (uint8_t)sym;
        } else if (sym == 256) {
            return true;
        } else {
            sym -= 257;
            if (sym >= 29) return false;
            size_t len = len_base[sym] + inf_bits(s, len_extra[sym]);
            int ds = huff_decode(s, dist);
            if (ds < 0 || ds >= 30) return false;
            size_t d = dist_base[ds] + inf_bits(s, dist_extra[ds]);
            if (s->bad || d > s->out_pos || len > s->out_n - s->out_pos) return false;
            uint8_t *o = s->out + s->out_pos;
            for (size_t i = 0; i < len; i++) o[i] = o[(ptrdiff_t)i - (ptrdiff_t)d];
            s->out_pos += len;
        }
    }
}

static bool inf_stored(inflater *s) {
    s->bitbuf = 0; s->bitcnt = 0;               /* drop to a byte boundary */
    if (s->in_n - s->in_pos < 4) return false;
    const uint8_t *p = s->in + s->in_pos;
    unsigned len = p[0] | (unsigned)p[1] << 8, nlen = p[2] | (unsigned)p[3] << 8;
    if (len != (~nlen & 0xffffu)) return false;
    s->in_pos += 4;
    if (s->in_n - s->in_pos < len || s->out_n - s->out_pos < len) return false;
    memcpy(s->out + s->out_pos, s->in + s->in_pos, len);
    s->in_pos += len; s->out_pos += len;
    return true;
}

static huff fixed_lit, fixed_dist;
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;

static void fixed_init(void) {
    uint8_t l[288];
    int i = 0;
    for (; i < 144; i++) l[i] = 8;
    for (; i < 256; i++) l[i] = 9;
    for (; i < 280; i++) l[i] = 7;
    for (; i < 288; i++) l[i] = 8;
    huff_build(&fixed_lit, l, 288);
    for (i = 0; i < 30; i++) l[i] = 5;
    huff_build(&fixed_dist, l, 30);
}

static bool inf_fixed(inflater *s) {
    pthread_once(&fixed_once, fixed_init);
    return inf_codes(s, &fixed_lit, &fixed_dist);
}

static bool inf_dynamic(inflater *s) {
    static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13,
        2, 14, 1, 15 };
    uint8_t lens[320];
    huff lit, dist, cl;
    int nlen = (int)inf_bits(s, 5) + 257, ndist = (int)inf_bits(s, 5) + 1;
    int ncode = (int)inf_bits(s, 4) + 4;
    if (s->bad || nlen > 286 || ndist > 30) return false;
    memset(lens, 0, sizeof lens);
    for (int i = 0; i < ncode; i++) lens[order[i]] = (uint8_t)inf_bits(s, 3);
    if (s->bad || !huff_build(&cl, lens, 19)) return false;
    int i = 0;
    while (i < nlen + ndist) {
        int sym = huff_decode(s, &cl);
        if (sym < 0) return false;
        if (sym < 16) { lens[i++] = (uint8_t)sym; continue; }
        uint8_t v = 0;
        int rep;
        if (sym == 16) {
            if (i == 0) return false;
            v = lens[i - 1];
            rep = 3 + (int)inf_bits(s, 2);
        } else if (sym == 17) {
            rep = 3 + (int)inf_bits(s, 3);
        } else {
            rep = 11 + (int)inf_bits(s, 7);
        }
        if (s->bad || i + rep > nlen + ndist) return false;
        while (rep--) lens[i++] = v;
    }
    if (lens[256] == 0) return false;               /* no end-of-block code */
    if (!huff_build(&lit, lens, nlen) || !huff_build(&dist, lens + nlen, ndist)) return false;
    return inf_codes(s, &lit, &dist);
}

bool gc_inflate(const uint8_t *in, size_t in_n, uint8_t *out, size_t out_n) {
    inflater s = { .in = in, .in_n = in_n, .out = out, .out_n = out_n };
    int last;
    do {
        last = (int)inf_bits(&s, 1);
        int type = (int)inf_bits(&s, 2);
        if (s.bad) return false;
        bool ok = type == 0 ? inf_stored(&s) : type == 1 ? inf_fixed(&s)
                : type == 2 ? inf_dynamic(&s) : false;
        if (!ok || s.bad) return false;
    } while (!last);
    return s.out_pos == out_n;
}

/* ---- .npy header parsing --------------------------------------------------------- */

typedef struct {
    int dtype, rank;
    int64_t shape[GC_NPY_MAX_RANK];
    bool swap;                    /* file data is big-endian */
    int itemsize;
    uint64_t data_off, nbytes;
} npy_hdr;

typedef struct { const char *p, *end; } cursor;

static void skip_ws(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) { c->p++; return true; }
    return false;
}

/* A Python string literal in ' or " without escapes, into out (NUL-terminated). */
static bool parse_str(cursor *c, char *out, size_t cap) {
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || *c->p == '\n' || n + 1 >= cap) return false;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return false;
    c->p++;
    out[n] = 0;
    return true;
}

static bool parse_ident(cursor *c, const char *word) {
    skip_ws(c);
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n)) return false;
    c->p += n;
    return true;
}

/* Printable copy of header text for error messages. */
static void snip(const char *p, const char *end, char *out, size_t cap) {
    size_t n = 0;
    while (p < end && n + 1 < cap && *p != '\n') {
        unsigned char ch = (unsigned char)*p++;
        out[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    out[n] = 0;
}

static gc_status parse_descr(const char *d, npy_hdr *h, const char *label, char *err,
                             size_t errlen) {
    const char *p = d;
    char order = '=';
    if (*p == '<' || *p == '>' || *p == '=' || *p == '|') order = *p++;
    char kind = *p ? *p++ : 0;
    int size = 0;
    bool digits = false;
    while (*p >= '0' && *p <= '9' && size < 1000) { size = size * 10 + (*p++ - '0'); digits = true; }
    if (kind && digits && !*p)
        for (int i = 0; i < N_DTYPES; i++)
            if (dtypes[i].kind == kind && dtypes[i].size == size) {
                h->dtype = dtypes[i].dtype;
                h->itemsize = size;
                h->swap = order == '>' && size > 1;
                return GC_OK;
            }
    char shown[64];
    snip(d, d + strlen(d), shown, sizeof shown);
    gc_errf(err, errlen, "%s: unsupported dtype '%s' (supported: float16/32/64, "
            "int8..int64, uint8..uint64, bool)", label, shown);
    return GC_ERR_UNSUPPORTED;
}

/* Parse the preamble and header of a complete .npy image of `n` bytes and check that
 * exactly the announced number of data bytes follows. */
static gc_status parse_header(const uint8_t *buf, size_t n, const char *label, npy_hdr *h,
                              char *err, size_t errlen) {
    memset(h, 0, sizeof *h);
    if (n < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        gc_errf(err, errlen, "%s: not a .npy file (bad magic)", label);
        return GC_ERR_FORMAT;
    }
    int major = buf[6], minor = buf[7];
    uint64_t hlen, pre;
    if (major == 1 && minor == 0) {
        hlen = buf[8] | (uint64_t)buf[9] << 8;
        pre = 10;
    } else if ((major == 2 || major == 3) && minor == 0) {
        if (n < 12) { gc_errf(err, errlen, "%s: truncated header", label); return GC_ERR_FORMAT; }
        hlen = buf[8] | (uint64_t)buf[9] << 8 | (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
        pre = 12;
    } else {
        gc_errf(err, errlen, "%s: unsupported .npy format version %d.%d", label, major, minor);
        return GC_ERR_UNSUPPORTED;
    }
    if (hlen > NPY_MAX_HEADER) {
        gc_errf(err, errlen, "%s: header length %llu is implausible", label,
                (unsigned long long)hlen);
        return GC_ERR_FORMAT;
    }
    if (hlen > n - pre) {
        gc_errf(err, errlen, "%s: truncated header (%llu bytes declared, %llu present)", label,
                (unsigned long long)hlen, (unsigned long long)(n - pre));
        return GC_ERR_FORMAT;
    }
    h->data_off = pre + hlen;
    cursor c = { (const char *)buf + pre, (const char *)buf + pre + hlen };
    char text[64];
    bool have_descr = false, have_fo = false, have_shape = false, fortran = false;
    char descr[64];
    gc_status st;
    if (!eat(&c, '{')) goto bad;
    for (;;) {
        if (eat(&c, '}')) break;
        char key[32];
        if (!parse_str(&c, key, sizeof key) || !eat(&c, ':')) goto bad;
        if (!strcmp(key, "descr")) {
            if (have_descr) goto dup;
            have_descr = true;
            skip_ws(&c);
            if (c.p < c.end && *c.p == '[') {
                gc_errf(err, errlen, "%s: unsupported dtype: structured (record) arrays", label);
                return GC_ERR_UNSUPPORTED;
            }
            if (!parse_str(&c, descr, sizeof descr)) goto bad;
        } else if (!strcmp(key, "fortran_order")) {
            if (have_fo) goto dup;
            have_fo = true;
            if (parse_ident(&c, "True")) fortran = true;
            else if (parse_ident(&c, "False")) fortran = false;
            else goto bad;
        } else if (!strcmp(key, "shape")) {
            if (have_shape) goto dup;
            have_shape = true;
            if (!eat(&c, '(')) goto bad;
            for (;;) {
                if (eat(&c, ')')) break;
                skip_ws(&c);
                if (c.p >= c.end || *c.p < '0' || *c.p > '9') goto bad;
                uint64_t v = 0;
                while (c.p < c.end && *c.p >= '0' && *c.p <= '9') {
                    if (v > ((uint64_t)INT64_MAX - 9) / 10) {
                        gc_errf(err, errlen, "%s: shape dimension too large", label);
                        return GC_ERR_FORMAT;
                    }
                    v = v * 10 + (uint64_t)(*c.p++ - '0');
                }
                if (c.p < c.end && (*c.p == 'L' || *c.p == 'l')) c.p++;
                if (h->rank >= GC_NPY_MAX_RANK) {
                    gc_errf(err, errlen, "%s: rank exceeds %d", label, GC_NPY_MAX_RANK);
                    return GC_ERR_UNSUPPORTED;
                }
                h->shape[h->rank++] = (int64_t)v;
                if (eat(&c, ')')) break;
                if (!eat(&c, ',')) goto bad;
            }
        } else {
            gc_errf(err, errlen, "%s: unexpected header key '%s'", label, key);
            return GC_ERR_FORMAT;
        }
        if (eat(&c, '}')) break;
        if (!eat(&c, ',')) goto bad;
    }
    skip_ws(&c);
    while (c.p < c.end && *c.p == 0) c.p++;   /* tolerate NUL padding from some writers */
    if (c.p != c.end) goto bad;
    if (!have_descr || !have_fo || !have_shape) {
        gc_errf(err, errlen, "%s: header lacks '%s'", label,
                !have_descr ? "descr" : !have_fo ? "fortran_order" : "shape");
        return GC_ERR_FORMAT;
    }
    if ((st = parse_descr(descr, h, label, err, errlen)) != GC_OK) return st;
    if (fortran) {
        int big = 0;
        for (int i = 0; i < h->rank; i++) big += h->shape[i] > 1;
        if (big > 1) {
            gc_errf(err, errlen, "%s: fortran_order True is not supported (save a C-order "
                    "array, e.g. np.ascontiguousarray)", label);
            return GC_ERR_UNSUPPORTED;
        }
    }
    uint64_t count = 1;
    bool zero = false;
    for (int i = 0; i < h->rank; i++) zero |= h->shape[i] == 0;
    if (zero) count = 0;
    else
        for (int i = 0; i < h->rank; i++)
            if (!gc_mul_u64(count, (uint64_t)h->shape[i], &count)) goto too_big;
    if (!gc_mul_u64(count, (uint64_t)h->itemsize, &h->nbytes) || h->nbytes > SIZE_MAX / 2)
        goto too_big;
    if (h->nbytes != n - h->data_off) {
        gc_errf(err, errlen, "%s: %s: header says %llu data bytes, file has %llu", label,
                h->nbytes > n - h->data_off ? "truncated data" : "trailing bytes",
                (unsigned long long)h->nbytes, (unsigned long long)(n - h->data_off));
        return GC_ERR_FORMAT;
    }
    return GC_OK;
too_big:
    gc_errf(err, errlen, "%s: array size overflows", label);
    return GC_ERR_FORMAT;
dup:
    gc_errf(err, errlen, "%s: duplicate key in header", label);
    return GC_ERR_FORMAT;
bad:
    snip((const char *)buf + pre, (const char *)buf + pre + hlen, text, sizeof text);
    gc_errf(err, errlen, "%s: malformed header near offset %ld: \"%s\"", label,
            (long)(c.p - (const char *)buf), text);
    return GC_ERR_FORMAT;
}

static void swap_bytes(uint8_t *p, uint64_t nbytes, int size) {
    for (uint64_t i = 0; i + (uint64_t)size <= nbytes; i += (uint64_t)size)
        for (int a = 0, b = size - 1; a < b; a++, b--) {
            uint8_t t = p[i + a]; p[i + a] = p[i + b]; p[i + b] = t;
        }
}

static void fill_out(gc_npy *out, const npy_hdr *h, void *data) {
    memset(out, 0, sizeof *out);
    out->dtype = h->dtype;
    out->rank = h->rank;
    memcpy(out->shape, h->shape, sizeof h->shape);
    out->data = data;
    out->nbytes = h->nbytes;
    if (h->swap) swap_bytes(data, h->nbytes, h->itemsize);
}

/* Parse an image we own (malloc'd, n bytes): the data is moved to the front and the
 * buffer becomes out->data. Frees buf on failure. */
static gc_status parse_owned(uint8_t *buf, size_t n, const char *label, gc_npy *out,
                             char *err, size_t errlen) {
    npy_hdr h;
    gc_status st = parse_header(buf, n, label, &h, err, errlen);
    if (st != GC_OK) { free(buf); return st; }
    memmove(buf, buf + h.data_off, (size_t)h.nbytes);
    uint8_t *q = realloc(buf, h.nbytes ? (size_t)h.nbytes : 1);
    if (q) buf = q;
    fill_out(out, &h, buf);
    return GC_OK;
}

gc_status gc_npy_read_mem(const void *buf, size_t n, gc_npy *out, char *err, size_t errlen) {
    npy_hdr h;
    memset(out, 0, sizeof *out);
    gc_status st = parse_header(buf, n, "<memory>", &h, err, errlen);
    if (st != GC_OK) return st;
    void *data = malloc(h.nbytes ? (size_t)h.nbytes : 1);
    if (!data) {
        gc_errf(err, errlen, "<memory>: out of memory (%llu bytes)", (unsigned long long)h.nbytes);
        return GC_ERR_NOMEM;
    }
    if (h.nbytes) memcpy(data, (const uint8_t *)buf + h.data_off, (size_t)h.nbytes);
    fill_out(out, &h, data);
    return GC_OK;
}

/* pread exactly n bytes at off; false on error or short read. */
static bool pread_all(int fd, void *dst, size_t n, uint64_t off) {
    uint8_t *p = dst;
    while (n) {
        ssize_t r = pread(fd, p, n > (1u << 30) ? (1u << 30) : n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r; n -= (size_t)r; off += (uint64_t)r;
    }
    return true;
}

static gc_status open_sized(const char *path, int *fd, uint64_t *size, char *err, size_t errlen) {
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below) */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) {
        gc_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return GC_ERR_IO;
    }
    struct stat sb;
    if (fstat(*fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        gc_errf(err, errlen, "%s: not a regular file", path);
        close(*fd);
        return GC_ERR_IO;
    }
    fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
    *size = (uint64_t)sb.st_size;
    return GC_OK;
}

static void base_name(const char *path, char *out, size_t cap) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n >= 4 && !strcmp(b + n - 4, ".npy")) n -= 4;
    if (n >= cap) n = cap - 1;
    memcpy(out, b, n);
    out[n] = 0;
}

gc_status gc_npy_read(const char *path, gc_npy *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t size;
    gc_status st = open_sized(path, &fd, &size, err, errlen);
    if (st != GC_OK) return st;
    if (size > SIZE_MAX / 2) {
        close(fd);
        gc_errf(err, errlen, "%s: file too large", path);
        return GC_ERR_NOMEM;
    }
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf) {
        close(fd);
        gc_errf(err, errlen, "%s: out of memory (%llu bytes)", path, (unsigned long long)size);
        return GC_ERR_NOMEM;
    }
    if (!pread_all(fd, buf, (size_t)size, 0)) {
        gc_errf(err, errlen, "%s: read failed: %s", path, errno ? strerror(errno) : "short read");
        free(buf); close(fd);
        return GC_ERR_IO;
    }
    close(fd);
    st = parse_owned(buf, (size_t)size, path, out, err, errlen);
    if (st == GC_OK) base_name(path, out->name, sizeof out->name);
    return st;
}

/* ---- .npy writing ---------------------------------------------------------------- */

/* Header image (preamble + dict + padding + '\n') into a malloc'd buffer. */
static gc_status npy_header(int dtype, int rank, const int64_t *shape, uint8_t **hdr,
                            size_t *hdr_n, uint64_t *nbytes, const char *label, char *err,
                            size_t errlen) {
    const dtype_info *d = dtype_find(dtype);
    if (!d) {
        gc_errf(err, errlen, "%s: cannot write dtype %d (not a supported tensor type)", label,
                dtype);
        return GC_ERR_UNSUPPORTED;
    }
    if (rank < 0 || rank > GC_NPY_MAX_RANK || (rank && !shape)) {
        gc_errf(err, errlen, "%s: bad rank %d", label, rank);
        return GC_ERR_USAGE;
    }
    uint64_t count = 1;
    bool zero = false;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0) {
            gc_errf(err, errlen, "%s: negative dimension %lld", label, (long long)shape[i]);
            return GC_ERR_USAGE;
        }
        zero |= shape[i] == 0;
    }
    for (int i = 0; i < rank && !zero; i++)
        if (!gc_mul_u64(count, (uint64_t)shape[i], &count)) goto overflow;
    if (zero) count = 0;
    if (!gc_mul_u64(count, (uint64_t)d->size, nbytes)) goto overflow;

    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%c%d', 'fortran_order': False, 'shape': (",
                     d->size == 1 ? '|' : '<', d->kind, d->size);
    for (int i = 0; i < rank; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld", i ? ", " : "",
                      (long long)shape[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", rank == 1 ? "," : "");
    size_t pre = 10, body = (size_t)n + 1;                  /* + '\n' */
    size_t total = (pre + body + 63) / 64 * 64;
    if (total - pre > 65535) {                              /* version 2.0 */
        pre = 12;
        total = (pre + body + 63) / 64 * 64;
    }
    uint8_t *h = malloc(total);
    if (!h) { gc_errf(err, errlen, "%s: out of memory", label); return GC_ERR_NOMEM; }
    size_t hl = total - pre;
    memcpy(h, "\x93NUMPY", 6);
    h[6] = pre == 10 ? 1 : 2;
    h[7] = 0;
    h[8] = (uint8_t)hl; h[9] = (uint8_t)(hl >> 8);
    if (pre == 12) { h[10] = (uint8_t)(hl >> 16); h[11] = (uint8_t)(hl >> 24); }
    memcpy(h + pre, dict, (size_t)n);
    memset(h + pre + n, ' ', total - pre - (size_t)n - 1);
    h[total - 1] = '\n';
    *hdr = h;
    *hdr_n = total;
    return GC_OK;
overflow:
    gc_errf(err, errlen, "%s: array size overflows", label);
    return GC_ERR_USAGE;
}

gc_status gc_npy_write(const char *path, int dtype, int rank, const int64_t *shape,
                       const void *data, char *err, size_t errlen) {
    uint8_t *hdr;
    size_t hdr_n;
    uint64_t nbytes;
    gc_status st = npy_header(dtype, rank, shape, &hdr, &hdr_n, &nbytes, path, err, errlen);
    if (st != GC_OK) return st;
    if (nbytes && !data) {
        free(hdr);
        gc_errf(err, errlen, "%s: no data", path);
        return GC_ERR_USAGE;
    }
    const void *chunks[2] = { hdr, data };
    size_t lens[2] = { hdr_n, (size_t)nbytes };
    st = gc_write_atomic(path, chunks, lens, 2, err, errlen);
    free(hdr);
    return st;
}

/* ---- .npz reading ---------------------------------------------------------------- */

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, v); wr16(p + 2, v >> 16); }

#define ZIP_LOCAL 0x04034b50u
#define ZIP_CENTRAL 0x02014b50u
#define ZIP_EOCD 0x06054b50u
#define ZIP64_EOCD 0x06064b50u
#define ZIP64_LOCATOR 0x07064b50u

typedef struct {
    int fd;
    uint64_t size;
    const char *path;
    char *err;
    size_t errlen;
} zip_in;

static gc_status zbad(zip_in *z, const char *what) {
    gc_errf(z->err, z->errlen, "%s: %s", z->path, what);
    return GC_ERR_FORMAT;
}

/* Find the central directory: *cd_off, *cd_size, *entries. */
static gc_status zip_find_cd(zip_in *z, uint64_t *cd_off, uint64_t *cd_size, uint64_t *entries) {
    if (z->size < 22) return zbad(z, "not a .npz file (too small for a ZIP archive)");
    size_t tail = z->size < 22 + 65535 ? (size_t)z->size : 22 + 65535;
    uint8_t *t = malloc(tail);
    if (!t) { gc_errf(z->err, z->errlen, "%s: out of memory", z->path); return GC_ERR_NOMEM; }
    uint64_t tail_off = z->size - tail;
    if (!pread_all(z->fd, t, tail, tail_off)) {
        free(t);
        gc_errf(z->err, z->errlen, "%s: read failed", z->path);
        return GC_ERR_IO;
    }
    long at = -1;
    for (long i = (long)tail - 22; i >= 0; i--)
        if (rd32(t + i) == ZIP_EOCD && (size_t)i + 22 + rd16(t + i + 20) <= tail) { at = i; break; }
    if (at < 0) { free(t); return zbad(z, "not a .npz file (no ZIP end-of-central-directory)"); }
    const uint8_t *e = t + at;
    if (rd16(e + 4) != 0 || rd16(e + 6) != 0) { free(t); return zbad(z, "multi-disk ZIP archives are not supported"); }
    *entries = rd16(e + 10);
    *cd_size = rd32(e + 12);
    *cd_off = rd32(e + 16);
    uint64_t eocd_pos = tail_off + (uint64_t)at;
    free(t);
    if (eocd_pos >= 20) {
        uint8_t loc[20];
        if (!pread_all(z->fd, loc, 20, eocd_pos - 20)) return zbad(z, "read failed");
        if (rd32(loc) == ZIP64_LOCATOR) {
            uint64_t off = rd64(loc + 8);
            uint8_t r[56];
            if (off > eocd_pos - 20 || eocd_pos - 20 - off < 56 || !pread_all(z->fd, r, 56, off) ||
                rd32(r) != ZIP64_EOCD)
                return zbad(z, "bad ZIP64 end-of-central-directory record");
            if (rd32(r + 16) != 0 || rd32(r + 20) != 0)
                return zbad(z, "multi-disk ZIP archives are not supported");
            *entries = rd64(r + 32);
            *cd_size = rd64(r + 40);
            *cd_off = rd64(r + 48);
            eocd_pos = off;
        }
    }
    if (*cd_off > eocd_pos || *cd_size > eocd_pos - *cd_off)
        return zbad(z, "central directory lies outside the file");
    if (*entries > *cd_size / 46 || *entries > INT_MAX / 2)
        return zbad(z, "central directory entry count is inconsistent");
    return GC_OK;
}

static gc_status zip_member(zip_in *z, const char *mname, uint16_t method, uint16_t flags,
                            uint32_t crc, uint64_t csize, uint64_t usize, uint64_t lho,
                            uint64_t limit, gc_npy *out) {
    char label[400];
    snprintf(label, sizeof label, "%s: member '%s'", z->path, mname);
    if (flags & 1) {
        gc_errf(z->err, z->errlen, "%s: encrypted members are not supported", label);
        return GC_ERR_UNSUPPORTED;
    }
    if (method != 0 && method != 8) {
        gc_errf(z->err, z->errlen, "%s: compression method %u is not supported", label, method);
        return GC_ERR_UNSUPPORTED;
    }
    uint8_t lh[30];
    if (lho > limit || limit - lho < 30 || !pread_all(z->fd, lh, 30, lho) || rd32(lh) != ZIP_LOCAL) {
        gc_errf(z->err, z->errlen, "%s: bad local header", label);
        return GC_ERR_FORMAT;
    }
    uint64_t doff = lho + 30 + rd16(lh + 26) + rd16(lh + 28);
    if (doff > limit || csize > limit - doff || (method == 0 && csize != usize) ||
        usize > SIZE_MAX / 2) {
        gc_errf(z->err, z->errlen, "%s: member data lies outside the archive", label);
        return GC_ERR_FORMAT;
    }
    if (method == 8 && usize / 1032 > csize + 1) {      /* DEFLATE expands at most 1032:1 */
        gc_errf(z->err, z->errlen, "%s: declared size %llu is impossible for %llu compressed "
                "bytes", label, (unsigned long long)usize, (unsigned long long)csize);
        return GC_ERR_FORMAT;
    }
    uint8_t *cbuf = malloc(csize ? (size_t)csize : 1);
    if (!cbuf) { gc_errf(z->err, z->errlen, "%s: out of memory", label); return GC_ERR_NOMEM; }
    if (csize && !pread_all(z->fd, cbuf, (size_t)csize, doff)) {
        free(cbuf);
        gc_errf(z->err, z->errlen, "%s: read failed", label);
        return GC_ERR_IO;
    }
    uint8_t *ubuf = cbuf;
    if (method == 8) {
        ubuf = malloc(usize ? (size_t)usize : 1);
        if (!ubuf) { free(cbuf); gc_errf(z->err, z->errlen, "%s: out of memory", label); return GC_ERR_NOMEM; }
        bool ok = gc_inflate(cbuf, (size_t)csize, ubuf, (size_t)usize);
        free(cbuf);
        if (!ok) {
            free(ubuf);
            gc_errf(z->err, z->errlen, "%s: corrupt deflate stream", label);
            return GC_ERR_FORMAT;
        }
    }
    if (gc_crc32(0, ubuf, (size_t)usize) != crc) {
        free(ubuf);
        gc_errf(z->err, z->errlen, "%s: CRC-32 mismatch", label);
        return GC_ERR_FORMAT;
    }
    return parse_owned(ubuf, (size_t)usize, label, out, z->err, z->errlen);
}

gc_status gc_npz_read(const char *path, gc_npy **arrays, int *n, char *err, size_t errlen) {
    *arrays = NULL;
    *n = 0;
    zip_in z = { .path = path, .err = err, .errlen = errlen };
    gc_status st = open_sized(path, &z.fd, &z.size, err, errlen);
    if (st != GC_OK) return st;
    uint64_t cd_off, cd_size, entries;
    uint8_t *cd = NULL;
    gc_npy *arr = NULL;
    int count = 0;
    if ((st = zip_find_cd(&z, &cd_off, &cd_size, &entries)) != GC_OK) goto done;
    cd = malloc(cd_size ? (size_t)cd_size : 1);
    arr = calloc(entries ? (size_t)entries : 1, sizeof *arr);
    if (!cd || !arr) { st = GC_ERR_NOMEM; gc_errf(err, errlen, "%s: out of memory", path); goto done; }
    if (cd_size && !pread_all(z.fd, cd, (size_t)cd_size, cd_off)) {
        st = GC_ERR_IO; gc_errf(err, errlen, "%s: read failed", path); goto done;
    }
    size_t pos = 0;
    for (uint64_t i = 0; i < entries; i++) {
        if (cd_size - pos < 46 || rd32(cd + pos) != ZIP_CENTRAL) {
            st = zbad(&z, "malformed central directory"); goto done;
        }
        const uint8_t *e = cd + pos;
        uint16_t flags = rd16(e + 8), method = rd16(e + 10);
        uint32_t crc = rd32(e + 16);
        uint64_t csize = rd32(e + 20), usize = rd32(e + 24), lho = rd32(e + 42);
        size_t nl = rd16(e + 28), xl = rd16(e + 30), cl = rd16(e + 32);
        if (cd_size - pos - 46 < (uint64_t)nl + xl + cl) {
            st = zbad(&z, "malformed central directory"); goto done;
        }
        const uint8_t *nm = e + 46, *x = nm + nl, *xend = x + xl;
        /* ZIP64 extra field: the 0xFFFFFFFF fields follow in this order. */
        while (xend - x >= 4) {
            uint16_t id = rd16(x), sz = rd16(x + 2);
            if ((size_t)(xend - x - 4) < sz) break;
            if (id == 1) {
                const uint8_t *f = x + 4, *fe = f + sz;
                bool ok = true;
                if (usize == 0xffffffffu) { ok = fe - f >= 8; if (ok) { usize = rd64(f); f += 8; } }
                if (ok && csize == 0xffffffffu) { ok = fe - f >= 8; if (ok) { csize = rd64(f); f += 8; } }
                if (ok && lho == 0xffffffffu) { ok = fe - f >= 8; if (ok) { lho = rd64(f); f += 8; } }
                if (!ok) { st = zbad(&z, "malformed ZIP64 extra field"); goto done; }
            }
            x += 4 + sz;
        }
        pos += 46 + nl + xl + cl;
        char mname[256];
        if (nl == 0 || nl >= sizeof mname || memchr(nm, 0, nl)) {
            st = zbad(&z, "member name is empty, too long or contains NUL"); goto done;
        }
        memcpy(mname, nm, nl);
        mname[nl] = 0;
        if (mname[nl - 1] == '/' && usize == 0) continue;            /* a directory */
        st = zip_member(&z, mname, method, flags, crc, csize, usize, lho, cd_off, &arr[count]);
        if (st != GC_OK) goto done;
        if (nl >= 4 && !strcmp(mname + nl - 4, ".npy")) mname[nl - 4] = 0;
        if (strlen(mname) >= sizeof arr[count].name) {
            gc_npy_free(&arr[count]);
            gc_errf(err, errlen, "%s: member name '%s' longer than %zu bytes", path, mname,
                    sizeof arr[count].name - 1);
            st = GC_ERR_UNSUPPORTED;
            goto done;
        }
        strcpy(arr[count].name, mname);
        count++;
    }
done:
    close(z.fd);
    free(cd);
    if (st != GC_OK) { gc_npz_free(arr, count); return st; }
    *arrays = arr;
    *n = count;
    return GC_OK;
}

/* ---- .npz writing ---------------------------------------------------------------- */

gc_status gc_npz_write(const char *path, const gc_npy *arrays, int n, char *err, size_t errlen) {
    if (n < 0 || (n && !arrays) || n > 65534) {
        gc_errf(err, errlen, "%s: bad array count %d", path, n);
        return GC_ERR_USAGE;
    }
    gc_status st = GC_OK;
    size_t nchunks = (size_t)n * 3 + 1;
    const void **chunks = calloc(nchunks, sizeof *chunks);
    size_t *lens = calloc(nchunks, sizeof *lens);
    uint8_t **own = calloc((size_t)n * 2 + 1, sizeof *own);     /* buffers we free */
    size_t cd_cap = 22;
    for (int i = 0; i < n; i++) cd_cap += 46 + strlen(arrays[i].name) + 4;
    uint8_t *cd = malloc(cd_cap);
    if (own) own[(size_t)n * 2] = cd;
    if (!chunks || !lens || !own || !cd) {
        st = GC_ERR_NOMEM; gc_errf(err, errlen, "%s: out of memory", path); goto done;
    }
    uint64_t off = 0;
    size_t cdn = 0;
    for (int i = 0; i < n; i++) {
        const gc_npy *a = &arrays[i];
        size_t nl = strnlen(a->name, sizeof a->name);
        if (nl == 0 || nl == sizeof a->name) {
            st = GC_ERR_USAGE; gc_errf(err, errlen, "%s: array %d has an empty or unterminated name", path, i);
            goto done;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(arrays[j].name, a->name)) {
                st = GC_ERR_USAGE; gc_errf(err, errlen, "%s: duplicate array name '%s'", path, a->name);
                goto done;
            }
        char label[300];
        snprintf(label, sizeof label, "%s: array '%s'", path, a->name);
        uint8_t *hdr;
        size_t hdr_n;
        uint64_t nbytes;
        if ((st = npy_header(a->dtype, a->rank, a->shape, &hdr, &hdr_n, &nbytes, label, err,
                             errlen)) != GC_OK)
            goto done;
        own[2 * i + 1] = hdr;
        if (nbytes != a->nbytes || (nbytes && !a->data)) {
            st = GC_ERR_USAGE;
            gc_errf(err, errlen, "%s: nbytes %llu does not match shape and dtype (%llu)", label,
                    (unsigned long long)a->nbytes, (unsigned long long)nbytes);
            goto done;
        }
        uint64_t usize = hdr_n + nbytes;
        uint32_t crc = gc_crc32(gc_crc32(0, hdr, hdr_n), a->data, (size_t)nbytes);
        size_t mnl = nl + 4;
        uint8_t *lh = malloc(30 + mnl);
        if (!lh) { st = GC_ERR_NOMEM; gc_errf(err, errlen, "%s: out of memory", path); goto done; }
        own[2 * i] = lh;
        if (usize > 0xfffffffeu || off + 30 + mnl + usize > 0xfffffffeu) {
            st = GC_ERR_UNSUPPORTED;
            gc_errf(err, errlen, "%s: archive would exceed 4 GiB (ZIP64 writing is not supported)", path);
            goto done;
        }
        /* local file header */
        wr32(lh, ZIP_LOCAL); wr16(lh + 4, 20); wr16(lh + 6, 0); wr16(lh + 8, 0);
        wr16(lh + 10, 0); wr16(lh + 12, 0x21);                  /* 1980-01-01 00:00 */
        wr32(lh + 14, crc); wr32(lh + 18, (uint32_t)usize); wr32(lh + 22, (uint32_t)usize);
        wr16(lh + 26, (uint32_t)mnl); wr16(lh + 28, 0);
        memcpy(lh + 30, a->name, nl); memcpy(lh + 30 + nl, ".npy", 4);
        /* central directory entry */
        uint8_t *c = cd + cdn;
        memset(c, 0, 46);
        wr32(c, ZIP_CENTRAL); wr16(c + 4, 20); wr16(c + 6, 20); wr16(c + 14, 0x21);
        wr32(c + 16, crc); wr32(c + 20, (uint32_t)usize); wr32(c + 24, (uint32_t)usize);
        wr16(c + 28, (uint32_t)mnl); wr32(c + 42, (uint32_t)off);
        memcpy(c + 46, lh + 30, mnl);
        cdn += 46 + mnl;
        chunks[3 * i] = lh; lens[3 * i] = 30 + mnl;
        chunks[3 * i + 1] = hdr; lens[3 * i + 1] = hdr_n;
        chunks[3 * i + 2] = a->data; lens[3 * i + 2] = (size_t)nbytes;
        off += 30 + mnl + usize;
    }
    if (off + cdn > 0xfffffffeu) {
        st = GC_ERR_UNSUPPORTED;
        gc_errf(err, errlen, "%s: archive would exceed 4 GiB (ZIP64 writing is not supported)", path);
        goto done;
    }
    uint8_t *e = cd + cdn;
    memset(e, 0, 22);
    wr32(e, ZIP_EOCD); wr16(e + 8, (uint32_t)n); wr16(e + 10, (uint32_t)n);
    wr32(e + 12, (uint32_t)cdn); wr32(e + 16, (uint32_t)off);
    chunks[(size_t)n * 3] = cd; lens[(size_t)n * 3] = cdn + 22;
    st = gc_write_atomic(path, chunks, lens, (int)nchunks, err, errlen);
done:
    if (own) for (size_t i = 0; i < (size_t)n * 2 + 1; i++) free(own[i]);
    else free(cd);
    free(own);
    free(chunks);
    free(lens);
    return st;
}
