/* inputs.c — deterministic input tensors (see interp.h for the exact definitions). The
 * generators reproduce runtime/litert/runner.mjs bit for bit on the types LiteRT.js can
 * feed (float32, int32, uint8), so our results compare with the real runtime's. */
#include "interp/interp_impl.h"

gc_status gc_fill_pattern_sin(const gc_tview *v, int k) {
    uint64_t n = gc_numel_shape(v->rank, v->shape);
    for (uint64_t i = 0; i < n; i++) {
        switch (v->dtype) {
        case GC_T_FLOAT32: ((float *)v->data)[i] = (float)(0.5 + 0.5 * sin(0.37 * (double)i + (double)k)); break;
        case GC_T_INT32: ((int32_t *)v->data)[i] = (int32_t)((i * 7 + (uint64_t)k) % 3); break;
        case GC_T_INT64: ((int64_t *)v->data)[i] = (int64_t)((i * 7 + (uint64_t)k) % 3); break;
        case GC_T_UINT8: ((uint8_t *)v->data)[i] = (uint8_t)((i * 37 + (uint64_t)k) % 256); break;
        case GC_T_INT8: ((int8_t *)v->data)[i] = (int8_t)((int)((i * 37 + (uint64_t)k) % 256) - 128); break;
        case GC_T_INT16: ((int16_t *)v->data)[i] = (int16_t)(((int)((i * 37 + (uint64_t)k) % 256) - 128) * 128); break;
        case GC_T_BOOL: ((uint8_t *)v->data)[i] = (uint8_t)((i + (uint64_t)k) % 2); break;
        default: return GC_ERR_UNSUPPORTED;
        }
    }
    return GC_OK;
}

static uint64_t splitmix64(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct { uint64_t s; } rng;
static uint64_t next64(rng *r) {
    r->s ^= r->s >> 12; r->s ^= r->s << 25; r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}
static double uniform(rng *r) { return (double)(next64(r) >> 11) / 9007199254740992.0; }

gc_status gc_fill_random(const gc_tview *v, uint64_t seed, int sig, int k) {
    rng r = { splitmix64(splitmix64(splitmix64(seed) ^ (uint64_t)sig) ^ (uint64_t)k) };
    if (r.s == 0) r.s = 1;
    uint64_t n = gc_numel_shape(v->rank, v->shape);
    if (v->dtype == GC_T_FLOAT32) {
        float *x = v->data;
        for (uint64_t i = 0; i < n; i += 2) {
            double u1 = 1.0 - uniform(&r), u2 = uniform(&r), m = sqrt(-2.0 * log(u1));
            x[i] = (float)(m * cos(2.0 * M_PI * u2));
            if (i + 1 < n) x[i + 1] = (float)(m * sin(2.0 * M_PI * u2));
        }
        return GC_OK;
    }
    for (uint64_t i = 0; i < n; i++) {
        double u = uniform(&r);
        switch (v->dtype) {
        case GC_T_INT32: ((int32_t *)v->data)[i] = (int32_t)floor(u * 3); break;
        case GC_T_INT64: ((int64_t *)v->data)[i] = (int64_t)floor(u * 3); break;
        case GC_T_UINT8: ((uint8_t *)v->data)[i] = (uint8_t)floor(u * 256); break;
        case GC_T_INT8: ((int8_t *)v->data)[i] = (int8_t)((int)floor(u * 256) - 128); break;
        case GC_T_INT16: ((int16_t *)v->data)[i] = (int16_t)((int)floor(u * 65536) - 32768); break;
        case GC_T_BOOL: ((uint8_t *)v->data)[i] = u < 0.5 ? 0 : 1; break;
        default: return GC_ERR_UNSUPPORTED;
        }
    }
    return GC_OK;
}
