/* progress.c — progress of long runs on stderr (cli.h: gc_cli_progress) and the line
 * filter behind --quiet. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gc_cli_progress_init(gc_cli_progress *p, const char *verb, int mode) {
    memset(p, 0, sizeof *p);
    p->verb = verb;
    p->tty = isatty(STDERR_FILENO) == 1;
    p->on = mode == GC_PROGRESS_ON || (mode == GC_PROGRESS_AUTO && p->tty);
    p->t0 = p->last = now_s();
}

double gc_cli_progress_elapsed(const gc_cli_progress *p) { return now_s() - p->t0; }

static void show(gc_cli_progress *p, const char *fmt, va_list ap) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    gc_str t = {0};
    gc_str_text(&t, msg, strlen(msg));          /* tensor names: escape control bytes */
    const char *m = t.s && !t.oom ? t.s : "";
    if (p->tty) fprintf(stderr, "\r\033[Kgpuclean %s: %s [%.1f s]", p->verb, m, gc_cli_progress_elapsed(p));
    else fprintf(stderr, "gpuclean %s: %s [%.1f s]\n", p->verb, m, gc_cli_progress_elapsed(p));
    fflush(stderr);
    gc_str_free(&t);
    p->dirty = p->tty;
    p->last = now_s();
}

void gc_cli_progress_step(gc_cli_progress *p, const char *fmt, ...) {
    if (!p->on) return;
    va_list ap; va_start(ap, fmt);
    show(p, fmt, ap);
    va_end(ap);
}

void gc_cli_progress_tick(gc_cli_progress *p, const char *fmt, ...) {
    if (!p->on) return;
    double t = now_s();
    if (t - p->last < (p->tty ? 0.1 : 1.0)) return;
    va_list ap; va_start(ap, fmt);
    show(p, fmt, ap);
    va_end(ap);
}

void gc_cli_progress_done(gc_cli_progress *p) {
    if (!p->on) return;
    if (p->tty) { if (p->dirty) fputs("\r\033[K", stderr); }
    else fprintf(stderr, "gpuclean %s: done [%.1f s]\n", p->verb, gc_cli_progress_elapsed(p));
    fflush(stderr);
    p->dirty = false;
}

int gc_cli_write_lines(FILE *f, const char *s, size_t n, const char *const *prefixes) {
    int shown = 0;
    size_t i = 0;
    while (i < n) {
        const char *e = memchr(s + i, '\n', n - i);
        size_t len = e ? (size_t)(e - (s + i)) + 1 : n - i;
        for (const char *const *p = prefixes; *p; p++) {
            size_t k = strlen(*p);
            if (len >= k && !memcmp(s + i, *p, k)) { gc_cli_write_text(f, s + i, len); shown++; break; }
        }
        i += len;
    }
    return shown;
}
