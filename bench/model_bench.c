/* model_bench.c — speed and memory of the model layer (issue: Foundation):
 *   1. read + inspect (text) of the largest corpus model, best of 20 (target ≤ 20 ms)
 *   2. read + write of every corpus model vs copying the file to a new file with
 *      read/write in 64 KiB blocks (target ≤ 2x copy)
 *   3. a ≥ 2.5 GB model made by the builder with its weights stored after the
 *      flatbuffer: `gpuclean inspect` wall time and peak RSS in a child process
 *      (targets ≤ 200 ms, ≤ 64 MB). The big file is written once to $BENCH_TMP
 *      (default /tmp) and removed afterwards.
 * Usage: model_bench CORPUS_DIR GPUCLEAN_BINARY */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "model/model.h"
#include "report/report.h"

static double copy_file(const char *src, const char *dst) {
    double t0 = gc_now();
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[1 << 16]; ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) if (write(out, buf, (size_t)n) != n) break;
    close(in); close(out);
    return gc_now() - t0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: model_bench CORPUS_DIR GPUCLEAN\n"); return 2; }
    const char *dir = argv[1], *bin = argv[2];
    const char *tmp = getenv("BENCH_TMP") ? getenv("BENCH_TMP") : "/tmp";
    char err[512], path[1024], out[1024], cp[1024];
    snprintf(out, sizeof out, "%s/gc_bench_out.tflite", tmp);
    snprintf(cp, sizeof cp, "%s/gc_bench_copy.tflite", tmp);
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "%s: cannot open\n", dir); return 2; }
    struct dirent *e; char biggest[1024] = ""; off_t bsize = 0;
    printf("%-55s %9s %9s %9s %6s\n", "model", "bytes", "rw ms", "copy ms", "ratio");
    double worst = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 7, ".tflite")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st; stat(path, &st);
        if (st.st_size > bsize) { bsize = st.st_size; snprintf(biggest, sizeof biggest, "%s", path); }
        double best_rw = 1e9, best_cp = 1e9;
        for (int r = 0; r < 5; r++) {
            /* both sides create a new file (no old inode to truncate or replace) */
            unlink(out); unlink(cp);
            double t0 = gc_now();
            gc_model *m = gc_model_read_file(path, err, sizeof err);
            if (!m) { fprintf(stderr, "%s: %s\n", path, err); break; }
            gc_model_write_file(m, out, NULL, err, sizeof err);
            gc_model_free(m);
            double t = gc_now() - t0;
            if (t < best_rw) best_rw = t;
            double c = copy_file(path, cp);
            if (c < best_cp) best_cp = c;
        }
        double ratio = best_rw / best_cp;
        if (ratio > worst) worst = ratio;
        printf("%-55s %9lld %9.2f %9.2f %6.2f\n", e->d_name, (long long)st.st_size, best_rw * 1e3, best_cp * 1e3, ratio);
    }
    closedir(d);
    printf("read+write vs copy: worst ratio %.2f (target <= 2)\n", worst);
    unlink(out); unlink(cp);

    double best = 1e9;
    for (int r = 0; r < 20; r++) {
        double t0 = gc_now();
        gc_model *m = gc_model_read_file(biggest, err, sizeof err);
        gc_str s = {0};
        gc_inspect_text(m, biggest, false, &s);
        gc_str_free(&s);
        gc_model_free(m);
        double t = gc_now() - t0;
        if (t < best) best = t;
    }
    printf("inspect (read + text) of the largest corpus model %s (%lld bytes): %.2f ms (target <= 20)\n",
           strrchr(biggest, '/') + 1, (long long)bsize, best * 1e3);

    /* a 2.5 GB model: 40 FULLY_CONNECTED weights of 64 MiB each, zero pages */
    const uint64_t per = 64ull << 20; const int nw = 40;
    void *zero = mmap(NULL, per, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    gc_model *m = gc_model_new();
    int32_t sg = gc_model_add_subgraph(m, "main");
    int32_t dims_x[] = {1, 4096}, dims_w[] = {4096, 4096};
    int32_t x = gc_sg_add_tensor(m, sg, "x", GC_T_FLOAT32, 2, dims_x, 0), first = x;
    int32_t oc = gc_model_add_opcode(m, GC_OP_FULLY_CONNECTED, NULL, 1);
    for (int i = 0; i < nw; i++) {
        char name[32]; snprintf(name, sizeof name, "w%d", i);
        int32_t w = gc_sg_add_tensor(m, sg, name, GC_T_FLOAT32, 2, dims_w,
                                     (uint32_t)gc_model_add_buffer_ref(m, zero, per));
        snprintf(name, sizeof name, "y%d", i);
        int32_t y = gc_sg_add_tensor(m, sg, name, GC_T_FLOAT32, 2, dims_x, 0);
        int32_t in[] = {x, w, -1}, o[] = {y};
        gc_sg_insert_op(m, sg, -1, oc, 3, in, 1, o);
        x = y;
    }
    gc_sg_set_io(m, sg, 1, &first, 1, &x);
    char big[1024]; snprintf(big, sizeof big, "%s/gc_bench_big.tflite", tmp);
    double t0 = gc_now();
    if (gc_model_write_file(m, big, NULL, err, sizeof err) != GC_OK) { fprintf(stderr, "%s\n", err); return 1; }
    double tw = gc_now() - t0;
    gc_model_free(m);
    struct stat st; stat(big, &st);
    printf("built a %.2f GB model (weights after the flatbuffer) in %.1f s\n", st.st_size / 1e9, tw);
    double bt = 1e9; long rss = 0;
    for (int r = 0; r < 5; r++) {
        t0 = gc_now();
        pid_t p = fork();
        if (p == 0) {
            int fd = open("/dev/null", O_WRONLY); dup2(fd, 1);
            execl(bin, bin, "inspect", big, (char *)NULL);
            _exit(127);
        }
        int status; struct rusage ru;
        wait4(p, &status, 0, &ru);
        double t = gc_now() - t0;
        if (t < bt) bt = t;
        if (ru.ru_maxrss > rss) rss = ru.ru_maxrss;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "inspect failed\n"); return 1; }
    }
    printf("gpuclean inspect on the %.2f GB model: %.1f ms, peak RSS %.1f MB (targets <= 200 ms, <= 64 MB)\n",
           st.st_size / 1e9, bt * 1e3, rss / 1024.0);
    unlink(big);
    return 0;
}
