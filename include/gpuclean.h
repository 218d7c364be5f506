/* gpuclean.h — the public C API of libgpuclean.
 *
 * A short tour:
 *
 *     char err[512];
 *     gc_model *m = gc_model_read_file("model.tflite", err, sizeof err);  // mmap, verified
 *     if (!m) { fprintf(stderr, "model.tflite: %s\n", err); return 2; }
 *     gc_str s = {0};
 *     gc_inspect_text(m, "model.tflite", false, &s);   // or gc_inspect_json
 *     fputs(s.s, stdout); gc_str_free(&s);
 *     int32_t t = gc_find_tensor(&m->subgraphs[0], "encoder/block3/out");
 *     gc_model_add_outputs(m, 0, 1, &t);               // expose an intermediate
 *     gc_model_write_file(m, "dump.tflite", NULL, err, sizeof err);   // atomic
 *     gc_model_free(m);
 *
 * The model layer (read, write, edit) is in model/model.h, the GPU checker in
 * check/check.h, the interpreter in interp/interp.h, tensor files and metrics in
 * verify/npy.h and verify/compare.h, bisection in verify/bisect.h, the graph rewrites
 * in fix/fix.h; this header pulls them all in. The foreign-function facade (ints,
 * strings, JSON) is api/api.h, included on its own.
 *
 * Installed (make install PREFIX=P): P/include/gpuclean/gpuclean.h and the headers
 * beside it, found relative to each other, so either of
 *     #include <gpuclean/gpuclean.h>     cc -IP/include ...
 *     #include <gpuclean.h>              cc -IP/include/gpuclean ...
 * compiles; `pkg-config --cflags --libs gpuclean` gives the first (P/lib/pkgconfig).
 * Link with -lgpuclean -lm -ldl -lpthread. C++ may include it: the declarations have C
 * linkage. */
#ifndef GPUCLEAN_H
#define GPUCLEAN_H

/* the C headers the declarations use, outside the extern "C" block (C++ gives them
 * their own linkage) */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "model/model.h"
#include "report/report.h"
#include "check/check.h"
#include "interp/interp.h"
#include "verify/npy.h"
#include "verify/compare.h"
#include "verify/bisect.h"
#include "fix/fix.h"

#ifdef __cplusplus
}
#endif

#endif
