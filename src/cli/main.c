/* main.c — `gpuclean <verb> ...`: dispatch to the verb table in cli.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

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

static void usage(FILE *f) {
    fprintf(f, "gpuclean %s — make LiteRT models run fully and correctly on the GPU\n\n"
               "usage: gpuclean <verb> [options]   (gpuclean <verb> --help for details)\n\n",
            GPUCLEAN_VERSION);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (verbs[i].fn) fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].help);
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) { printf("gpuclean %s\n", GPUCLEAN_VERSION); return 0; }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name)) {
            if (!verbs[i].fn) return gc_cli_usage_error(argv[1], "not built into this binary");
            return verbs[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "gpuclean: unknown verb '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
