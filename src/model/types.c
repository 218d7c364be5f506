/* types.c — TensorType facts: names, element sizes and packed byte counts.
 * TensorType numbers checked against google-ai-edge/LiteRT
 * tflite/converter/schema/schema.fbs @ 098fb976230858e7d5fbd2b0318e3aeafe2c9e10
 * (0..22 agree with schema.h). */
#include "model/schema.h"
#include "common/common.h"

#include <stddef.h>

static const struct {
    const char *name;
    int size; /* bytes per element; 0 = no fixed size */
} type_info[GC_T_COUNT] = {
    [GC_T_FLOAT32]    = {"FLOAT32", 4},
    [GC_T_FLOAT16]    = {"FLOAT16", 2},
    [GC_T_INT32]      = {"INT32", 4},
    [GC_T_UINT8]      = {"UINT8", 1},
    [GC_T_INT64]      = {"INT64", 8},
    [GC_T_STRING]     = {"STRING", 0},
    [GC_T_BOOL]       = {"BOOL", 1},
    [GC_T_INT16]      = {"INT16", 2},
    [GC_T_COMPLEX64]  = {"COMPLEX64", 8},
    [GC_T_INT8]       = {"INT8", 1},
    [GC_T_FLOAT64]    = {"FLOAT64", 8},
    [GC_T_COMPLEX128] = {"COMPLEX128", 16},
    [GC_T_UINT64]     = {"UINT64", 8},
    [GC_T_RESOURCE]   = {"RESOURCE", 0},
    [GC_T_VARIANT]    = {"VARIANT", 0},
    [GC_T_UINT32]     = {"UINT32", 4},
    [GC_T_UINT16]     = {"UINT16", 2},
    [GC_T_INT4]       = {"INT4", 1},   /* packed: 2 per byte, see gc_type_bytes */
    [GC_T_BFLOAT16]   = {"BFLOAT16", 2},
    [GC_T_INT2]       = {"INT2", 1},   /* packed: 4 per byte, see gc_type_bytes */
    [GC_T_UINT4]      = {"UINT4", 1},  /* packed: 2 per byte */
    [GC_T_FLOAT8_E4M3FN] = {"FLOAT8_E4M3FN", 1},
    [GC_T_FLOAT8_E5M2] = {"FLOAT8_E5M2", 1},
};

const char *gc_type_name(int type) {
    if (type < 0 || type >= GC_T_COUNT || !type_info[type].name) return "?";
    return type_info[type].name;
}

int gc_type_size(int type) {
    if (type < 0 || type >= GC_T_COUNT) return 0;
    return type_info[type].size;
}

uint64_t gc_type_bytes(int type, uint64_t n) {
    if (type == GC_T_INT4 || type == GC_T_UINT4) return n / 2 + (n % 2 != 0);
    if (type == GC_T_INT2) return n / 4 + (n % 4 != 0);
    int size = gc_type_size(type);
    if (size <= 0) return UINT64_MAX;
    uint64_t r;
    if (!gc_mul_u64(n, (uint64_t)size, &r)) return UINT64_MAX;
    return r;
}
