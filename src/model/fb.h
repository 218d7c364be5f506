/* fb.h — verified, bounds-checked access to a FlatBuffer (little-endian).
 *
 * Layout facts used (FlatBuffers binary format):
 *   buffer[0..4)   uoffset_t to the root table; buffer[4..8) the file identifier
 *   table at T:    int32 soffset; the vtable is at T - soffset
 *   vtable at V:   uint16 vtable_bytes, uint16 table_bytes, then one uint16 per field:
 *                  the field's offset from T, 0 = absent (use the schema default)
 *   offset field:  uint32 at F; the referenced object is at F + value (forward only)
 *   vector at P:   uint32 count, then count elements
 *   string at P:   uint32 length, the bytes, a NUL
 * Every accessor checks bounds against the whole file and fails with a message
 * instead of reading out of range; reads go through memcpy, so misaligned data is
 * fine. A work budget (elements visited) bounds the cost of files that reuse one
 * object from many places, so a small file cannot make us do unbounded work.
 */
#ifndef GC_FB_H
#define GC_FB_H

#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include "../common/common.h"

typedef struct {
    const uint8_t *b; uint64_t n;   /* the whole file */
    uint64_t budget;                /* elements we may still visit */
    char *err; size_t errlen;
    bool failed;
} fb_reader;

typedef struct {
    uint64_t pos;                   /* table start */
    uint64_t vt;                    /* vtable start */
    uint32_t nfields;               /* fields the vtable describes */
    uint32_t size;                  /* inline table bytes */
} fb_table;

static inline uint32_t fb_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t fb_u16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

bool fb_fail(fb_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Open the table at pos; checks the soffset, the vtable and the inline size. */
bool fb_table_at(fb_reader *r, uint64_t pos, fb_table *t, const char *what);
/* Root table (checks the identifier when ident != NULL). */
bool fb_root(fb_reader *r, const char *ident, fb_table *t);

/* Offset of field `id` inside the table, or 0 when absent. Fails if the field's
 * `size` bytes do not fit in the table. */
bool fb_field(fb_reader *r, const fb_table *t, int id, uint32_t size, uint32_t *off);

/* Scalars: absent fields give dflt. */
bool fb_get_u8(fb_reader *r, const fb_table *t, int id, uint8_t dflt, uint8_t *v);
bool fb_get_i8(fb_reader *r, const fb_table *t, int id, int8_t dflt, int8_t *v);
bool fb_get_i16(fb_reader *r, const fb_table *t, int id, int16_t dflt, int16_t *v);
bool fb_get_u16(fb_reader *r, const fb_table *t, int id, uint16_t dflt, uint16_t *v);
bool fb_get_i32(fb_reader *r, const fb_table *t, int id, int32_t dflt, int32_t *v);
bool fb_get_u32(fb_reader *r, const fb_table *t, int id, uint32_t dflt, uint32_t *v);
bool fb_get_u64(fb_reader *r, const fb_table *t, int id, uint64_t dflt, uint64_t *v);
bool fb_get_f32(fb_reader *r, const fb_table *t, int id, float dflt, float *v);
bool fb_get_f64(fb_reader *r, const fb_table *t, int id, double dflt, double *v);
bool fb_has(const fb_reader *r, const fb_table *t, int id);

/* Referenced object of an offset field: *pos = 0 when absent. */
bool fb_get_ref(fb_reader *r, const fb_table *t, int id, uint64_t *pos);
/* Vector at pos with elements of elem bytes: count and start of elements. */
bool fb_vector(fb_reader *r, uint64_t pos, uint32_t elem, uint32_t *count, uint64_t *data,
               const char *what);
/* Vector field: count = 0 and present = false when absent. */
bool fb_get_vector(fb_reader *r, const fb_table *t, int id, uint32_t elem, uint32_t *count,
                   uint64_t *data, bool *present, const char *what);
/* String field: *s points into the file (NUL-terminated, verified); NULL if absent. */
bool fb_get_string(fb_reader *r, const fb_table *t, int id, const char **s, uint32_t *len,
                   const char *what);
/* Element i of a vector of tables. */
bool fb_vector_table(fb_reader *r, uint64_t data, uint32_t i, fb_table *t, const char *what);

/* Spend budget for n elements; fails when exhausted. */
bool fb_spend(fb_reader *r, uint64_t n);

#endif
