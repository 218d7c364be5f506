/* schema.h — facts of the TFLite flatbuffer schema (schema.fbs, identifier "TFL3")
 * that the reader, the writer and every other module share: tensor types, builtin
 * operator codes and names, and the builtin-options tables described field by field.
 *
 * The option tables are data, not code: gc_opt_tables[type] lists the fields of the
 * BuiltinOptions union member `type` in schema order (field id = index), with the
 * kind of each field and its schema default. The reader and the writer walk these
 * descriptions generically, so every option of every op round-trips losslessly,
 * and kernels read options by field id (see schema_gen.h for the named ids).
 */
#ifndef GC_SCHEMA_H
#define GC_SCHEMA_H

#include <stdint.h>

/* TensorType (schema enum, byte) */
enum {
    GC_T_FLOAT32 = 0, GC_T_FLOAT16 = 1, GC_T_INT32 = 2, GC_T_UINT8 = 3,
    GC_T_INT64 = 4, GC_T_STRING = 5, GC_T_BOOL = 6, GC_T_INT16 = 7,
    GC_T_COMPLEX64 = 8, GC_T_INT8 = 9, GC_T_FLOAT64 = 10, GC_T_COMPLEX128 = 11,
    GC_T_UINT64 = 12, GC_T_RESOURCE = 13, GC_T_VARIANT = 14, GC_T_UINT32 = 15,
    GC_T_UINT16 = 16, GC_T_INT4 = 17, GC_T_BFLOAT16 = 18, GC_T_INT2 = 19,
    GC_T_UINT4 = 20, GC_T_FLOAT8_E4M3FN = 21, GC_T_FLOAT8_E5M2 = 22,
    GC_T_COUNT
};
const char *gc_type_name(int type);     /* "FLOAT32", ..., "?" when unknown */
/* bytes per element; 0 for STRING/RESOURCE/VARIANT; INT4/INT2 report 1 (packed
 * sizes are computed by gc_type_bytes) */
int gc_type_size(int type);
/* bytes of n elements of `type` (INT4: ceil(n/2), INT2: ceil(n/4)); UINT64_MAX on
 * overflow or for types without a fixed size */
uint64_t gc_type_bytes(int type, uint64_t n);

/* Kinds of option fields. Scalars are stored as int64 (integers, bools, enums) or
 * double (floats); vectors are copied into the model arena. */
typedef enum {
    GC_F_BOOL = 1, GC_F_I8, GC_F_U8, GC_F_I16, GC_F_U16, GC_F_I32, GC_F_U32,
    GC_F_I64, GC_F_U64, GC_F_F32, GC_F_F64,
    GC_F_VEC_I32, GC_F_VEC_I64, GC_F_VEC_F32, GC_F_VEC_U8, GC_F_VEC_I8,
    GC_F_VEC_BOOL, GC_F_VEC_I16, GC_F_VEC_U16, GC_F_VEC_U32, GC_F_VEC_F64, GC_F_STR,
    GC_F_DEPRECATED /* a field id that is reserved; never written */
} gc_field_kind;

typedef struct {
    const char *name;   /* schema field name, e.g. "stride_w" */
    uint8_t kind;       /* gc_field_kind */
    double dflt;        /* schema default for scalars (0 when none) */
} gc_opt_field_def;

typedef struct {
    const char *name;                 /* union member, e.g. "Conv2DOptions" */
    uint8_t n_fields;                 /* <= GC_OPT_MAX_FIELDS */
    const gc_opt_field_def *fields;   /* n_fields entries, index = field id */
} gc_opt_table_def;

#define GC_OPT_MAX_FIELDS 48

/* BuiltinOptions (union 1) and BuiltinOptions2 (union 2). Index = union type byte.
 * Entries with name == NULL are types this build does not know. */
extern const gc_opt_table_def gc_opt_tables[];
extern const int gc_opt_tables_count;
extern const gc_opt_table_def gc_opt2_tables[];
extern const int gc_opt2_tables_count;

/* BuiltinOperator names, index = builtin code ("ADD", "CONV_2D", ...). */
extern const char *const gc_builtin_names[];
extern const int gc_builtin_count;
const char *gc_builtin_name(int32_t code);          /* "?" when unknown */
int32_t gc_builtin_from_name(const char *name);     /* -1 when unknown */
/* The BuiltinOptions union type an op normally carries (0 = none). */
int gc_builtin_options_type(int32_t code);

#include "schema_gen.h" /* GC_OP_* codes, GC_BO_* union ids, GC_O_<Table>_<field> ids */

#endif
