/* common.c — status strings, arena, error formatting, growable arrays and strings,
 * atomic file writes. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

const char *gc_status_str(gc_status s) {
    switch (s) {
    case GC_OK: return "ok";
    case GC_ERR_IO: return "i/o error";
    case GC_ERR_FORMAT: return "malformed model";
    case GC_ERR_USAGE: return "usage error";
    case GC_ERR_NOMEM: return "out of memory";
    case GC_ERR_UNSUPPORTED: return "unsupported";
    case GC_ERR_RUNTIME: return "runtime error";
    }
    return "unknown status";
}

struct gc_arena_block { gc_arena_block *next; size_t cap, used; _Alignas(16) unsigned char data[]; };

void *gc_arena_alloc(gc_arena *a, size_t n) {
    void *p = gc_arena_alloc_nz(a, n);
    if (p) memset(p, 0, (n + 15u) & ~(size_t)15u);
    return p;
}

void *gc_arena_alloc_nz(gc_arena *a, size_t n) {
    size_t need = (n + 15u) & ~(size_t)15u;
    if (need < n) return NULL;
    gc_arena_block *b = a->head;
    if (!b || b->cap - b->used < need) {
        size_t cap = need > (64u << 10) ? need : (64u << 10);
        if (b && cap < b->cap * 2 && b->cap < (16u << 20)) cap = b->cap * 2;
        if (cap > SIZE_MAX - sizeof *b) return NULL;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a->head; b->cap = cap; b->used = 0;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += need;
    a->used_total += need;
    return p;
}

void *gc_arena_dup(gc_arena *a, const void *p, size_t n) {
    void *q = gc_arena_alloc(a, n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

char *gc_arena_strdup(gc_arena *a, const char *s) {
    size_t n = strlen(s);
    char *q = gc_arena_alloc(a, n + 1);
    if (q) memcpy(q, s, n + 1);
    return q;
}

void gc_arena_free(gc_arena *a) {
    gc_arena_block *b = a->head;
    while (b) { gc_arena_block *n = b->next; free(b); b = n; }
    a->head = NULL; a->used_total = 0;
}

void gc_errf(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap; va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

bool gc_grow(void **p, int32_t *cap, int32_t need, size_t elem) {
    if (need <= *cap) return true;
    if (need < 0) return false;
    int64_t nc = *cap ? (int64_t)*cap * 2 : 8;
    while (nc < need) nc *= 2;
    if (nc > INT32_MAX) nc = INT32_MAX;
    if ((uint64_t)nc > SIZE_MAX / elem) return false;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q) return false;
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *p = q; *cap = (int32_t)nc;
    return true;
}

static void str_reserve(gc_str *b, size_t extra) {
    if (b->oom) return;
    if (b->n + extra + 1 <= b->cap) return;
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->n + extra + 1) nc *= 2;
    char *q = realloc(b->s, nc);
    if (!q) { b->oom = true; return; }
    b->s = q; b->cap = nc;
}

void gc_str_putc(gc_str *b, char c) {
    str_reserve(b, 1);
    if (b->oom) return;
    b->s[b->n++] = c; b->s[b->n] = 0;
}

void gc_str_puts(gc_str *b, const char *s) {
    size_t n = strlen(s);
    str_reserve(b, n);
    if (b->oom) return;
    memcpy(b->s + b->n, s, n + 1); b->n += n;
}

void gc_str_printf(gc_str *b, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) { gc_str_puts(b, tmp); return; }
    str_reserve(b, (size_t)n);
    if (b->oom) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

void gc_str_json(gc_str *b, const char *s) {
    gc_str_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': gc_str_puts(b, "\\\""); break;
        case '\\': gc_str_puts(b, "\\\\"); break;
        case '\n': gc_str_puts(b, "\\n"); break;
        case '\r': gc_str_puts(b, "\\r"); break;
        case '\t': gc_str_puts(b, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) gc_str_printf(b, "\\u%04x", *p);
            else gc_str_putc(b, (char)*p);
        }
    }
    gc_str_putc(b, '"');
}

void gc_str_free(gc_str *b) { free(b->s); b->s = NULL; b->n = b->cap = 0; }

gc_status gc_write_atomic(const char *path, const void *const *chunks, const size_t *lens,
                          int n_chunks, char *err, size_t errlen) {
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 32);
    if (!tmp) { gc_errf(err, errlen, "%s: out of memory", path); return GC_ERR_NOMEM; }
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        gc_errf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(tmp); return GC_ERR_IO;
    }
    /* writev in batches of up to 512 chunks (IOV_MAX is >= 1024 on Linux), resuming
     * after short writes */
    struct iovec iov[512];
    int i = 0; size_t skip = 0;   /* bytes of chunk i already written */
    while (i < n_chunks) {
        int k = 0;
        for (int j = i; j < n_chunks && k < 512; j++) {
            size_t off = j == i ? skip : 0;
            if (lens[j] - off == 0) continue;
            iov[k].iov_base = (char *)chunks[j] + off;
            iov[k].iov_len = lens[j] - off;
            k++;
        }
        if (!k) break;
        ssize_t w = writev(fd, iov, k);
        if (w < 0) {
            if (errno == EINTR) continue;
            gc_errf(err, errlen, "%s: write failed: %s", path, strerror(errno));
            close(fd); unlink(tmp); free(tmp); return GC_ERR_IO;
        }
        size_t left = (size_t)w;
        while (i < n_chunks && left >= lens[i] - skip) { left -= lens[i] - skip; skip = 0; i++; }
        if (i < n_chunks) skip += left;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        gc_errf(err, errlen, "%s: cannot finish write: %s", path, strerror(errno));
        unlink(tmp); free(tmp); return GC_ERR_IO;
    }
    free(tmp);
    return GC_OK;
}

double gc_now(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
