/* npy.h — NumPy tensor files: .npy (one array) and .npz (a ZIP of .npy members).
 *
 * A gc_npy is one dense array: `dtype` is a TFLite tensor type id (GC_T_FLOAT32, ...
 * from model/schema.h), `shape[0..rank)` its dimensions, `data` a malloc'd buffer of
 * `nbytes` bytes, little-endian, C (row-major) order, whatever the file's byte order
 * was. Supported dtypes: float16/32/64, int8/16/32/64, uint8/16/32/64, bool.
 *
 *     gc_npy a; char err[256];
 *     if (gc_npy_read("out.npy", &a, err, sizeof err) != GC_OK) { puts(err); ... }
 *     ... a.data ...
 *     gc_npy_free(&a);
 *
 * Every function returns GC_OK or an error status and writes one line,
 * "<path>: <what is wrong>", into err. Files are treated as hostile: sizes are
 * overflow-checked against the bytes actually present. GC_ERR_FORMAT = malformed,
 * GC_ERR_UNSUPPORTED = valid NumPy we do not handle (fortran_order True with more
 * than one non-trivial axis, structured/string/complex dtypes), GC_ERR_IO = cannot
 * read/write, GC_ERR_NOMEM = allocation failed.
 */
#ifndef GC_NPY_H
#define GC_NPY_H

#include <stddef.h>
#include <stdint.h>
#include "common/common.h"
#include "model/schema.h"

#define GC_NPY_MAX_RANK 8

typedef struct {
    int dtype;                        /* GC_T_* */
    int rank;                         /* 0..GC_NPY_MAX_RANK */
    int64_t shape[GC_NPY_MAX_RANK];   /* shape[0..rank) >= 0 */
    void *data;                       /* malloc'd (never NULL after a read), LE, C order */
    uint64_t nbytes;                  /* = product(shape) * itemsize */
    char name[128];                   /* .npz member name without ".npy"; for .npy the
                                         file's base name without ".npy"; else "" */
} gc_npy;

/* Read a .npy file (format 1.0, 2.0 or 3.0). */
gc_status gc_npy_read(const char *path, gc_npy *out, char *err, size_t errlen);
/* The same from bytes in memory (copied; `buf` is not kept). */
gc_status gc_npy_read_mem(const void *buf, size_t n, gc_npy *out, char *err, size_t errlen);
/* Write a .npy file atomically: format 1.0 (2.0 if the header needs it), little-endian,
 * C order. `data` holds product(shape) elements of `dtype`, little-endian. */
gc_status gc_npy_write(const char *path, int dtype, int rank, const int64_t *shape,
                       const void *data, char *err, size_t errlen);

/* Read every member of a .npz file (stored or deflated members; ZIP64 understood).
 * On success *arrays is a malloc'd array of *n entries, free each with gc_npy_free
 * and then free(*arrays) (gc_npz_free does both). Directory entries are skipped. */
gc_status gc_npz_read(const char *path, gc_npy **arrays, int *n, char *err, size_t errlen);
/* Write an uncompressed .npz atomically: member arrays[i].name + ".npy" for each i.
 * Names must be non-empty and unique. Archives past 4 GiB (ZIP64) are refused. */
gc_status gc_npz_write(const char *path, const gc_npy *arrays, int n, char *err, size_t errlen);

void gc_npy_free(gc_npy *a);                 /* frees data; the struct may be reused */
void gc_npz_free(gc_npy *arrays, int n);     /* gc_npy_free on each, then free(arrays) */

/* ---- helpers shared with compare ------------------------------------------------ */

/* Bytes per element of a supported dtype; 0 if the dtype is not supported here. */
int gc_npy_itemsize(int dtype);
/* NumPy name of a dtype ("float32", "bool", ...); "?" if not supported here. */
const char *gc_npy_dtype_name(int dtype);
/* Number of elements (product of the shape; 1 for rank 0). */
uint64_t gc_npy_count(const gc_npy *a);
/* Convert elements [i0, i0+n) of little-endian `data` of `dtype` to double
 * (bool: 0/1, nonzero byte = 1). The dtype must be supported. */
void gc_npy_to_f64(int dtype, const void *data, uint64_t i0, size_t n, double *dst);
/* IEEE binary16 bits -> float (exact; subnormals, inf, NaN preserved). */
float gc_npy_half_to_float(uint16_t h);
/* CRC-32 (ISO-HDLC / zlib polynomial 0xEDB88320) continuing from `crc` (start at 0). */
uint32_t gc_crc32(uint32_t crc, const void *buf, size_t n);
/* Raw DEFLATE (RFC 1951) decoder: inflate `in` into exactly `out_n` bytes of `out`.
 * Fails (false) on malformed input, on output that would pass out_n, or if the
 * stream ends short of out_n bytes. */
bool gc_inflate(const uint8_t *in, size_t in_n, uint8_t *out, size_t out_n);

#endif
