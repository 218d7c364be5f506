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
 * verify/npy.h and verify/compare.h; this header pulls in what is built. */
#ifndef GPUCLEAN_H
#define GPUCLEAN_H
#include "model/model.h"
#include "report/report.h"
#endif
