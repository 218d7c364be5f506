/* report.h — rendering of results as text and JSON (decides nothing). */
#ifndef GC_REPORT_H
#define GC_REPORT_H
#include "model/model.h"

/* gpuclean inspect: text (verbose adds every tensor and op) and JSON schema 1 */
void gc_inspect_text(const gc_model *m, const char *path, bool verbose, gc_str *out);
void gc_inspect_json(const gc_model *m, const char *path, gc_str *out);
#endif
