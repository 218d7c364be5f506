/* common.h — status codes, the arena, checked size arithmetic, small helpers. */
#ifndef GC_COMMON_H
#define GC_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>

typedef enum {
    GC_OK = 0,
    GC_ERR_IO,          /* could not open/read/write a file */
    GC_ERR_FORMAT,      /* malformed input (bad flatbuffer, out-of-range index, ...) */
    GC_ERR_USAGE,       /* bad arguments */
    GC_ERR_NOMEM,       /* allocation failed or a size limit was hit */
    GC_ERR_UNSUPPORTED, /* valid input we do not handle (names what) */
    GC_ERR_RUNTIME      /* an external runtime failed */
} gc_status;

const char *gc_status_str(gc_status s);

/* Bump allocator: blocks of >= 64 KiB, 16-byte aligned allocations, freed at once. */
typedef struct gc_arena_block gc_arena_block;
typedef struct { gc_arena_block *head; size_t used_total; } gc_arena;
void *gc_arena_alloc(gc_arena *a, size_t n);          /* zeroed; NULL on failure */
void *gc_arena_alloc_nz(gc_arena *a, size_t n);       /* not zeroed */
void *gc_arena_dup(gc_arena *a, const void *p, size_t n);
char *gc_arena_strdup(gc_arena *a, const char *s);
void gc_arena_free(gc_arena *a);

/* Overflow-checked size arithmetic: return false on overflow. */
static inline bool gc_mul_u64(uint64_t a, uint64_t b, uint64_t *r) {
    return !__builtin_mul_overflow(a, b, r);
}
static inline bool gc_add_u64(uint64_t a, uint64_t b, uint64_t *r) {
    return !__builtin_add_overflow(a, b, r);
}

/* double → int64 without undefined behaviour: NaN → 0, saturating. */
static inline int64_t gc_f2i(double f) {
    if (f != f) return 0;
    if (f >= 9.2e18) return INT64_MAX;
    if (f <= -9.2e18) return INT64_MIN;
    return (int64_t)f;
}

/* printf into a fixed error buffer (NULL/0 allowed). */
void gc_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Grow a dynamic array so that it holds at least `need` elements (doubling). */
bool gc_grow(void **p, int32_t *cap, int32_t need, size_t elem);

/* A growable byte string. */
typedef struct { char *s; size_t n, cap; bool oom; } gc_str;
void gc_str_putc(gc_str *b, char c);
void gc_str_puts(gc_str *b, const char *s);
void gc_str_printf(gc_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gc_str_json(gc_str *b, const char *s);   /* a JSON string literal, quoted; always valid
                                                 UTF-8 (an invalid byte becomes \ufffd) */
void gc_str_free(gc_str *b);
/* Append n bytes as safe terminal text: newlines, tabs, printable ASCII and valid UTF-8
 * pass; control characters (ESC, C1, ...) and invalid bytes become "\xNN". */
void gc_str_text(gc_str *b, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at p (at most avail bytes), 0 when invalid. */
size_t gc_utf8_len(const unsigned char *p, size_t avail);

/* Paths. gc_same_file: both exist and are one file (st_dev/st_ino, symlinks followed).
 * gc_path_inside: path is dir or lies below it (real paths). gc_check_output_path: an
 * existing output must be a regular file, not a symlink, FIFO, device or directory
 * (GC_ERR_USAGE with "PATH: ..."); absent is fine. */
bool gc_same_file(const char *a, const char *b);
bool gc_path_inside(const char *path, const char *dir);
gc_status gc_check_output_path(const char *path, char *err, size_t errlen);
gc_status gc_remove_tree(const char *path);   /* rm -r, never following symlinks */

/* Output folders, built whole: gc_outdir_begin accepts DIR when it is absent, empty, or
 * an earlier output of the same command (one of `markers`, NULL-terminated, exists in
 * it), never a symlink or a file; it creates DIR.tmp.XXXXXX beside it (name in tmp).
 * The caller writes there; gc_outdir_commit replaces DIR with it (the old folder is
 * removed: no stale files), gc_outdir_abort removes it (no partial folder). */
gc_status gc_outdir_begin(const char *dir, const char *const *markers, char *tmp, size_t tmplen,
                          char *err, size_t errlen);
gc_status gc_outdir_commit(const char *dir, const char *tmp, char *err, size_t errlen);
void gc_outdir_abort(const char *tmp);

/* Write bytes to `path` atomically (temp file in the same directory + rename). An
 * existing `path` that is not a regular file (symlink, FIFO, device) is refused. */
gc_status gc_write_atomic(const char *path, const void *const *chunks, const size_t *lens,
                          int n_chunks, char *err, size_t errlen);

/* Monotonic clock in seconds. */
double gc_now(void);

#endif
