/* main.c — `gpuclean <verb> ...`: dispatch to the verb table in cli.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "common/common.h"
#include "interp/interp.h"

#define GPUCLEAN_VERSION "0.1.0"

typedef struct { const char *name, *help; int (*fn)(int, char **); } verb;
#define GC_VERB_ROW(n, h) { #n, h, gc_cli_##n },
static const verb verbs[] = { GC_VERBS(GC_VERB_ROW) };
#undef GC_VERB_ROW

int gc_cli_usage_error(const char *v, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    fprintf(stderr, "gpuclean %s: ", v);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

const char *gc_cli_version(void) { return GPUCLEAN_VERSION; }

int gc_cli_status_exit(gc_status s) {
    return s == GC_ERR_UNSUPPORTED || s == GC_ERR_RUNTIME ? 1 : 2;
}

int gc_cli_input_file(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    gc_cli_err("%s: not a regular file", path);
    return 2;
}

void gc_cli_write_text(FILE *f, const char *s, size_t n) {
    gc_str t = {0};
    gc_str_text(&t, s, n);
    if (t.oom) fputs("(out of memory escaping the report)\n", f);
    else if (t.s) fwrite(t.s, 1, t.n, f);
    gc_str_free(&t);
}

void gc_cli_err(const char *fmt, ...) {
    char buf[2048];
    va_list ap; va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    gc_cli_write_text(stderr, buf, strlen(buf));
    fputc('\n', stderr);
}

static void usage(FILE *f) {
    fprintf(f, "gpuclean %s — make LiteRT models run fully and correctly on the GPU\n\n"
               "usage: gpuclean <verb> [options]   (gpuclean help <verb> or gpuclean <verb> --help)\n"
               "       gpuclean --version | -V\n\n",
            GPUCLEAN_VERSION);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (verbs[i].fn) fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].help);
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        (!strcmp(argv[1], "help") && argc == 2)) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("gpuclean %s\n", GPUCLEAN_VERSION); return 0;
    }
    if (!strcmp(argv[1], "help")) {                /* gpuclean help VERB = gpuclean VERB --help */
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
            if (!strcmp(argv[2], verbs[i].name) && verbs[i].fn) {
                char *hargv[] = { argv[2], (char *)"--help", NULL };
                return verbs[i].fn(2, hargv);
            }
        fprintf(stderr, "gpuclean help: unknown verb '%s'\n", argv[2]);
        usage(stderr);
        return 2;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name)) {
            if (!verbs[i].fn) return gc_cli_usage_error(argv[1], "not built into this binary");
            /* every interpreter reads it (interp.h gc_float_arith): a typo must not pass silently */
            const char *fa = getenv("GPUCLEAN_FLOAT_ARITH");
            if (fa && *fa && gc_float_arith_parse(fa) < 0)
                return gc_cli_usage_error(argv[1], "GPUCLEAN_FLOAT_ARITH must be fma or muladd, not '%s'", fa);
            return verbs[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "gpuclean: unknown verb '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
