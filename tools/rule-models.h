/* rule-models.h — the catalogue of per-rule test models (tests/c/test_check_cases.c):
 * one tiny model per GPU rule that triggers it, and one that does not. The C tests
 * (tests/c/test_check_rules.c) check gpuclean's verdicts on them; tools/rule-models.c
 * writes them all to a directory with a manifest, so the same models can be run on the
 * real GPU accelerator (shared/tools/litert-oracle) and compared
 * (tools/rule-models-compare.py).
 *
 * In every model the node under test writes the tensor named "probe".
 */
#ifndef GC_RULE_MODELS_H
#define GC_RULE_MODELS_H

#include <stdint.h>
#include "model/model.h"

typedef struct {
    const char *name;        /* file stem, e.g. "gather_indices_2d" */
    const char *what;        /* one line: what the model exercises */
    gc_model *(*build)(void);
    int target;              /* GC_TARGET_MLDRIFT, GC_TARGET_CLASSIC, or -1 for both */
    const char *rule;        /* expected rule on the probe node without the target prefix
                                ("gather.indices_rank"); NULL = the probe is supported */
    const char *reason;      /* expected delegate wording (exact), NULL = not checked */
    int gpu_nodes;           /* expected GPU nodes of subgraph 0, -1 = not checked */
    bool fatal;              /* classic: expect a delegate init failure */
    bool invalid;            /* the TFLite runtime itself refuses the model (its Prepare checks or
                                shape inference run before the delegate): C tests only */
} gc_rule_case;

extern const gc_rule_case gc_rule_cases[];
extern const int gc_rule_cases_n;

/* a small builder used by the catalogue */
typedef struct { gc_model *m; int32_t sg; int n; } gc_rb;
gc_rb gc_rb_new(void);
/* runtime tensor */
int32_t gc_rb_t(gc_rb *b, const char *name, int type, int rank, const int32_t *shape);
/* constant tensor; data NULL = a deterministic fill (0.5f.. for floats, 1 for ints) */
int32_t gc_rb_c(gc_rb *b, const char *name, int type, int rank, const int32_t *shape, const void *data);
int32_t gc_rb_i32(gc_rb *b, const char *name, int n, const int32_t *v);   /* 1-D int32 const */
int32_t gc_rb_op(gc_rb *b, int32_t code, int version, int n_in, const int32_t *in, int n_out, const int32_t *out);
int32_t gc_rb_custom(gc_rb *b, const char *name, int n_in, const int32_t *in, int n_out, const int32_t *out,
                     const void *options, uint32_t n_options);
void gc_rb_opt(gc_rb *b, int32_t op, int field, int64_t v);
void gc_rb_optf(gc_rb *b, int32_t op, int field, double v);
void gc_rb_quant(gc_rb *b, int32_t t, int n_scale, float scale, int64_t zero_point);
/* inputs = runtime tensors nobody produces; outputs = produced tensors nobody consumes */
gc_model *gc_rb_done(gc_rb *b);

#endif
