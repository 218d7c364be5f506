/* fuzz_npy.c — libFuzzer target for the tensor-file readers every .npy input goes
 * through (verify --ref, bisect --ref, compare, litert --input, the Python binding):
 * the bytes are read as a .npy from memory and from a file, and as a .npz archive (ZIP,
 * stored or deflated members, ZIP64). What reads must be self-consistent (nbytes =
 * count * itemsize, data present), convert to double, compare with itself (0 difference
 * where finite), and survive a write -> re-read round trip bit for bit. A failure must
 * say why (err set). Any crash or sanitizer report is a bug. Inputs over 4 MiB are
 * skipped. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "verify/npy.h"
#include "verify/compare.h"

static int g_fd = -1;
static char g_path[64], g_out[128];

static void cleanup(void) {
    char p[160];
    unlink(g_out);
    snprintf(p, sizeof p, "%s.npz", g_out);
    unlink(p);
}

static void setup(void) {
    if (g_fd >= 0) return;
    g_fd = memfd_create("fuzz_npy", 0);
    if (g_fd < 0) { perror("memfd_create"); abort(); }
    snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    if (!tmp || !*tmp) tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";   /* memory: fast */
    snprintf(g_out, sizeof g_out, "%s/fuzz_npy_%d.npy", tmp, (int)getpid());
    atexit(cleanup);
}

/* the bytes as the file the path readers open */
static void put_file(const uint8_t *data, size_t size) {
    if (ftruncate(g_fd, 0) != 0 || pwrite(g_fd, data, size, 0) != (ssize_t)size) { perror("memfd"); abort(); }
}

static void check_array(const gc_npy *a) {
    int isz = gc_npy_itemsize(a->dtype);
    if (isz <= 0 || a->rank < 0 || a->rank > GC_NPY_MAX_RANK) abort();
    uint64_t n = gc_npy_count(a);
    if (n * (uint64_t)isz != a->nbytes || !a->data) abort();
    double buf[64];
    for (uint64_t i = 0; i < n; i += 64) gc_npy_to_f64(a->dtype, a->data, i, (size_t)(n - i < 64 ? n - i : 64), buf);
    gc_metrics m;
    char err[512] = "";
    if (gc_compare(a, a, 0, 0, &m, err, sizeof err) == GC_OK) {
        if (m.nan_mismatch || m.inf_mismatch) abort();     /* a tensor never mismatches itself */
        if (m.n_finite && m.max_abs != 0) abort();
        gc_str s = {0};
        gc_metrics_json(&m, &s);
        gc_str_free(&s);
    } else if (!err[0]) abort();
}

static void round_trip(const gc_npy *a) {
    char err[512] = "";
    if (a->nbytes > (1u << 22)) return;
    if (gc_npy_write(g_out, a->dtype, a->rank, a->shape, a->data, err, sizeof err) != GC_OK) {
        if (!err[0]) abort();
        return;
    }
    gc_npy b;
    if (gc_npy_read(g_out, &b, err, sizeof err) != GC_OK) { fprintf(stderr, "re-read: %s\n", err); abort(); }
    if (b.dtype != a->dtype || b.rank != a->rank || b.nbytes != a->nbytes ||
        memcmp(b.shape, a->shape, sizeof(int64_t) * (size_t)a->rank) ||
        (a->nbytes && memcmp(b.data, a->data, (size_t)a->nbytes))) {
        fprintf(stderr, "npy round trip differs\n");
        abort();
    }
    gc_npy_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (4u << 20)) return 0;
    setup();
    char err[512] = "";
    gc_npy a;
    gc_status s = gc_npy_read_mem(data, size, &a, err, sizeof err);
    if (s == GC_OK) {
        check_array(&a);
        round_trip(&a);
        gc_npy_free(&a);
    } else if (!err[0]) abort();

    put_file(data, size);
    err[0] = 0;
    s = gc_npy_read(g_path, &a, err, sizeof err);
    if (s == GC_OK) { check_array(&a); gc_npy_free(&a); }
    else if (!err[0]) abort();

    gc_npy *arr = NULL;
    int n = 0;
    err[0] = 0;
    s = gc_npz_read(g_path, &arr, &n, err, sizeof err);
    if (s == GC_OK) {
        for (int i = 0; i < n; i++) check_array(&arr[i]);
        if (n > 0 && n <= 16) {                      /* npz round trip */
            char p[160];
            snprintf(p, sizeof p, "%s.npz", g_out);
            bool named = true;
            for (int i = 0; i < n; i++) named &= arr[i].name[0] != 0;
            for (int i = 0; i < n && named; i++)
                for (int j = 0; j < i; j++) named &= strcmp(arr[i].name, arr[j].name) != 0;
            if (named && gc_npz_write(p, arr, n, err, sizeof err) == GC_OK) {
                gc_npy *brr = NULL;
                int m = 0;
                if (gc_npz_read(p, &brr, &m, err, sizeof err) != GC_OK || m != n) {
                    fprintf(stderr, "npz re-read: %s\n", err);
                    abort();
                }
                for (int i = 0; i < n; i++)
                    if (brr[i].dtype != arr[i].dtype || brr[i].nbytes != arr[i].nbytes ||
                        (arr[i].nbytes && memcmp(brr[i].data, arr[i].data, (size_t)arr[i].nbytes))) {
                        fprintf(stderr, "npz round trip differs (member %d)\n", i);
                        abort();
                    }
                gc_npz_free(brr, m);
                unlink(p);
            }
        }
        gc_npz_free(arr, n);
    } else if (!err[0]) abort();
    return 0;
}
