/* cli.h — the gpuclean verbs. Each verb lives in src/cli/<verb>.c as
 *     int gc_cli_<verb>(int argc, char **argv);   argv[0] is the verb
 * and returns the process exit code: 0 clean/pass, 1 findings, 2 bad usage/input.
 * Verbs only parse arguments and wire library calls; logic lives in the library. */
#ifndef GC_CLI_H
#define GC_CLI_H
#include <stdio.h>

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
#endif
