/* cli.h — the gpuclean verbs. Each verb lives in src/cli/<verb>.c as
 *     int gc_cli_<verb>(int argc, char **argv);   argv[0] is the verb
 * and returns the process exit code: 0 clean/pass, 1 findings, 2 bad usage/input.
 * Verbs only parse arguments and wire library calls; logic lives in the library. */
#ifndef GC_CLI_H
#define GC_CLI_H
#include <stdbool.h>
#include <stdio.h>
#include "common/common.h"

#define GC_VERBS(X) \
    X(inspect, "print a model's structure: subgraphs, signatures, tensors, ops, buffers") \
    X(edit,    "re-serialize a model, add outputs, truncate at tensors") \
    X(check,   "static GPU verdict per node, partitions, residency, fp16 risks") \
    X(run,     "reference interpreter in fp32 / fp16 (GPU precision)") \
    X(compare, "compare two .npy files or output directories") \
    X(litert,  "the real LiteRT runtime: CPU/GPU compile, residency, GPU-vs-CPU parity") \
    X(verify,  "parity of a model against reference outputs") \
    X(bisect,  "first divergent tensor between two precisions or runtimes") \
    X(fix,     "graph rewrites that make a model GPU-clean, re-checked")

#define GC_DECL_VERB(name, help) int gc_cli_##name(int argc, char **argv) __attribute__((weak));
GC_VERBS(GC_DECL_VERB)
#undef GC_DECL_VERB

/* Print "gpuclean <verb>: <msg>" to stderr and return 2. */
int gc_cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An input given on the command line that exists but is not a regular file (FIFO,
 * directory, device: reading it would hang or fail late) prints "FILE: not a regular
 * file" and gives 2; 0 otherwise (a missing file is left to the reader's message). */
int gc_cli_input_file(const char *path);

/* One line on stderr (a newline is added), control characters escaped: messages quote
 * tensor names and other bytes from the model. */
void gc_cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit code of a failed interpreter step, the same in run, verify and bisect: 1 for a
 * valid model the interpreter cannot run (GC_ERR_UNSUPPORTED: an op without a kernel,
 * GC_ERR_RUNTIME), 2 for bad input (malformed, unreadable, over a size limit). */
int gc_cli_status_exit(gc_status s);

/* Write report text to f with control characters escaped (tensor names are bytes). */
void gc_cli_write_text(FILE *f, const char *s, size_t n);

/* --quiet: write only the lines of s (escaped) that start with one of the prefixes
 * (NULL-terminated list); returns how many were written. */
int gc_cli_write_lines(FILE *f, const char *s, size_t n, const char *const *prefixes);

/* Progress of a long run on stderr (src/cli/progress.c). Shown when stderr is a terminal
 * (a line rewritten in place, cleared at the end) or when forced with --progress (plain
 * lines, at most one update a second); never on stdout, so reports and --json stay
 * clean; off with --quiet or --no-progress unless --progress is given. */
typedef struct {
    bool on, tty, dirty;
    const char *verb;
    double t0, last;
} gc_cli_progress;
enum { GC_PROGRESS_AUTO = -1, GC_PROGRESS_OFF = 0, GC_PROGRESS_ON = 1 };
void gc_cli_progress_init(gc_cli_progress *p, const char *verb, int mode);
/* a phase starts (always shown when on) */
void gc_cli_progress_step(gc_cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* an update within the phase (throttled) */
void gc_cli_progress_tick(gc_cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the run ended: clear the terminal line, or print "done in N s" in --progress mode */
void gc_cli_progress_done(gc_cli_progress *p);
double gc_cli_progress_elapsed(const gc_cli_progress *p);

/* gpuclean's version ("0.1.0"; main.c) */
const char *gc_cli_version(void);

#endif
