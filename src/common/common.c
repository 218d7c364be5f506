/* common.c — status strings, arena, error formatting, growable arrays and strings,
 * atomic file writes. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
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

size_t gc_utf8_len(const unsigned char *p, size_t avail) {
    if (!avail) return 0;
    unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t n; unsigned lo = 0x80, hi = 0xbf;      /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) { n = 3; if (c == 0xe0) lo = 0xa0; if (c == 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; if (c == 0xf0) lo = 0x90; if (c == 0xf4) hi = 0x8f; }
    else return 0;                                /* continuation byte, overlong lead, > U+10FFFF */
    if (avail < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++) if ((p[i] & 0xc0) != 0x80) return 0;
    return n;
}

void gc_str_json(gc_str *b, const char *s) {
    gc_str_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {                         /* names are bytes: keep the output valid UTF-8 */
            size_t n = gc_utf8_len(p, 4);             /* stops at the NUL: 0 is no continuation */
            if (!n) { gc_str_puts(b, "\\ufffd"); continue; }
            for (size_t i = 0; i < n; i++) gc_str_putc(b, (char)p[i]);
            p += n - 1;
            continue;
        }
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

void gc_str_text(gc_str *b, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) { gc_str_putc(b, (char)c); p++; continue; }
        size_t k = c >= 0x80 ? gc_utf8_len(p, (size_t)(end - p)) : 0;
        if (k && !(c == 0xc2 && p[1] < 0xa0)) {   /* valid UTF-8, not a C1 control (U+0080..U+009F) */
            for (size_t i = 0; i < k; i++) gc_str_putc(b, (char)p[i]);
            p += k;
            continue;
        }
        gc_str_printf(b, "\\x%02x", c);
        p++;
    }
}

bool gc_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

gc_status gc_check_output_path(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (lstat(path, &st) != 0) return GC_OK;      /* absent: will be created */
    if (S_ISLNK(st.st_mode)) {
        gc_errf(err, errlen, "%s: is a symbolic link; refusing to replace it (give the target itself)", path);
        return GC_ERR_USAGE;
    }
    if (!S_ISREG(st.st_mode)) {
        gc_errf(err, errlen, "%s: not a regular file; refusing to replace it", path);
        return GC_ERR_USAGE;
    }
    return GC_OK;
}

gc_status gc_write_atomic(const char *path, const void *const *chunks, const size_t *lens,
                          int n_chunks, char *err, size_t errlen) {
    /* never replace a symlink, FIFO, device or directory with a regular file */
    gc_status cs = gc_check_output_path(path, err, errlen);
    if (cs != GC_OK) return cs;
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 32);
    if (!tmp) { gc_errf(err, errlen, "%s: out of memory", path); return GC_ERR_NOMEM; }
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    unlink(tmp);                                  /* a leftover of this pid (not followed) */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
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

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

gc_status gc_remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return GC_OK;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? GC_OK : GC_ERR_IO;
}

bool gc_path_inside(const char *path, const char *dir) {
    char rp[PATH_MAX], rd[PATH_MAX];
    if (!realpath(path, rp) || !realpath(dir, rd)) return false;
    size_t n = strlen(rd);
    if (!strcmp(rp, rd)) return true;
    if (n == 1) return true;                      /* "/" holds everything */
    return !strncmp(rp, rd, n) && rp[n] == '/';
}

/* mkdir -p of everything above `dir` */
static int mkdir_parents(const char *dir) {
    char buf[PATH_MAX];
    if (strlen(dir) >= sizeof buf) { errno = ENAMETOOLONG; return -1; }
    strcpy(buf, dir);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return 0;
    *slash = 0;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') { *p = 0; if (mkdir(buf, 0777) && errno != EEXIST) return -1; *p = '/'; }
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    return 0;
}

gc_status gc_outdir_begin(const char *dir, const char *const *markers, char *tmp, size_t tmplen,
                          char *err, size_t errlen) {
    struct stat st;
    if (!*dir) { gc_errf(err, errlen, "empty output directory name"); return GC_ERR_USAGE; }
    if (lstat(dir, &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            gc_errf(err, errlen, "%s: is a symbolic link; refusing to replace it (give the target itself)", dir);
            return GC_ERR_USAGE;
        }
        if (!S_ISDIR(st.st_mode)) { gc_errf(err, errlen, "%s: exists and is not a directory", dir); return GC_ERR_USAGE; }
        bool ours = false, empty = true;
        for (int i = 0; markers && markers[i] && !ours; i++) {
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", dir, markers[i]);
            ours = lstat(p, &st) == 0;
        }
        if (!ours) {
            DIR *d = opendir(dir);
            if (!d) { gc_errf(err, errlen, "%s: cannot open: %s", dir, strerror(errno)); return GC_ERR_IO; }
            struct dirent *e;
            while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { empty = false; break; }
            closedir(d);
        }
        if (!ours && !empty) {
            gc_errf(err, errlen, "%s: exists and is not an earlier output of this command; refusing to replace it "
                    "(give a new or empty directory)", dir);
            return GC_ERR_USAGE;
        }
    }
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if ((size_t)snprintf(tmp, tmplen, "%.*s.tmp.XXXXXX", (int)n, dir) >= tmplen) {
        gc_errf(err, errlen, "%s: name too long", dir); return GC_ERR_USAGE;
    }
    if (mkdir_parents(tmp) != 0 || !mkdtemp(tmp)) {
        gc_errf(err, errlen, "%s: cannot create the directory (%s)", dir, strerror(errno));
        return GC_ERR_IO;
    }
    chmod(tmp, 0755);
    return GC_OK;
}

gc_status gc_outdir_commit(const char *dir, const char *tmp, char *err, size_t errlen) {
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (rename(tmp, dir) == 0) return GC_OK;
        gc_errf(err, errlen, "%s: cannot move the new output into place: %s", dir, strerror(errno));
        return GC_ERR_IO;
    }
    /* swap atomically where the kernel can; else old -> aside, new -> dir */
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        gc_remove_tree(tmp);                      /* tmp now holds the old folder */
        return GC_OK;
    }
#endif
    char old[PATH_MAX];
    snprintf(old, sizeof old, "%s.old.XXXXXX", tmp);
    if (!mkdtemp(old) || rmdir(old) != 0 || rename(dir, old) != 0) {
        gc_errf(err, errlen, "%s: cannot move the old output aside: %s", dir, strerror(errno));
        return GC_ERR_IO;
    }
    if (rename(tmp, dir) != 0) {
        int e = errno;
        rename(old, dir);
        gc_errf(err, errlen, "%s: cannot move the new output into place: %s", dir, strerror(e));
        return GC_ERR_IO;
    }
    gc_remove_tree(old);
    return GC_OK;
}

void gc_outdir_abort(const char *tmp) { if (tmp && *tmp) gc_remove_tree(tmp); }

double gc_now(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
