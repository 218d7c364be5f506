/* flexbuf.h — a bounds-checked FlexBuffer reader (flexbuf.c): the root map's scalars,
 * int vectors and strings. Anything malformed or of another shape reads as "absent". */
#ifndef GC_MODEL_FLEXBUF_H
#define GC_MODEL_FLEXBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct { const uint8_t *p; size_t n; } gc_flex;
/* look up key in the root map; kind: 0 absent, 1 int, 2 float, 3 other; value in *i or *f */
int gc_flex_root_get(gc_flex fb, const char *key, int64_t *i, double *f);
/* nested int vector at root[key1][key2] (e.g. "_TENSOR_V1_reduction_axes"/"TENSOR_DATA");
 * returns the element count (capped at cap) or -1 when absent */
int gc_flex_root_get_ivec2(gc_flex fb, const char *key1, const char *key2, int64_t *v, int cap);
/* int vector (typed int/uint vector, or untyped vector of ints) at root[key]: the element
 * count (the full count, even when over cap; at most cap are stored) or -1 when absent */
int gc_flex_root_get_ivec(gc_flex fb, const char *key, int64_t *v, int cap);
/* string (or key) at root[key]: pointer into the buffer and its length (not NUL-terminated
 * in general); returns 1, or 0 when absent or not a string */
int gc_flex_root_get_str(gc_flex fb, const char *key, const char **s, size_t *len);

#endif
