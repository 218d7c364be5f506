/* litert_json.h — a small JSON reader for the LiteRT runners' result.json files.
 *
 * gc_lj_parse builds a read-only tree in an arena: objects keep their keys in file
 * order, numbers are doubles, strings are NUL-terminated UTF-8 (escapes decoded; a
 * \u0000 escape ends the C string early, which is fine for our use). Input is treated
 * as hostile: nesting is limited to GC_LJ_MAX_DEPTH, every read is bounds-checked, and
 * anything that is not RFC 8259 JSON (after optional leading/trailing whitespace) is an
 * error "line L col C: what". The accessors are NULL-safe: a missing key or a value of
 * the wrong type gives the default.
 */
#ifndef GC_LITERT_JSON_H
#define GC_LITERT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "common/common.h"

#define GC_LJ_MAX_DEPTH 64

typedef enum { GC_LJ_NULL, GC_LJ_BOOL, GC_LJ_NUM, GC_LJ_STR, GC_LJ_ARR, GC_LJ_OBJ } gc_lj_type;

typedef struct gc_lj {
    gc_lj_type type;
    bool b;
    double num;
    const char *str;           /* GC_LJ_STR */
    int32_t count;             /* GC_LJ_ARR / GC_LJ_OBJ: number of items */
    struct gc_lj *items;       /* items[count] */
    const char **keys;         /* GC_LJ_OBJ: keys[count] */
} gc_lj;

/* Parse `n` bytes of `text`; the tree lives in `arena`. NULL on error (message in err). */
const gc_lj *gc_lj_parse(gc_arena *arena, const char *text, size_t n, char *err, size_t errlen);
/* Read and parse a whole file (at most 64 MiB). Errors name the file. */
const gc_lj *gc_lj_parse_file(gc_arena *arena, const char *path, char *err, size_t errlen);

const gc_lj *gc_lj_get(const gc_lj *obj, const char *key);   /* NULL if absent */
const gc_lj *gc_lj_at(const gc_lj *arr, int32_t i);           /* NULL if out of range */
int32_t gc_lj_len(const gc_lj *arr);                          /* 0 unless array/object */
const char *gc_lj_str(const gc_lj *v, const char *dflt);
double gc_lj_num(const gc_lj *v, double dflt);
bool gc_lj_bool(const gc_lj *v, bool dflt);
bool gc_lj_is_null(const gc_lj *v);                           /* absent or null */

#endif
