/* numerics.h — measured GPU facts, and the one engine that applies them in gpuclean check.
 *
 * A fact is one measured observation of the LiteRT GPU accelerator (ML Drift) on one
 * runtime, version and device: nodes of op OP whose features satisfy every condition of
 * WHEN either compute wrong numbers on the GPU (verdict "wrong"), make kernel building
 * fail so that the whole model falls back to the CPU ("init_failed"), or were measured
 * right ("ok", kept as negative evidence). The facts are data, curated from the device
 * sweep into data/gpu/facts.tsv (runtimes in data/gpu/runtimes.tsv; the format and every
 * node feature: data/gpu/README-facts.md); tools/gpu_facts.py validates them and generates
 * src/check/gpu_facts_table.c (gc_gpu_facts_builtin). No measured fact is written as code:
 * numerics.c is one matcher over a table pointer, so tests pass tables of their own.
 *
 *     gc_check_opts o = { .runtime = "js-2.5", .precision = GC_FPREC_FP32 };
 *     gc_check_result *r = gc_check_ex(m, GC_TARGET_MLDRIFT, &o, err, sizeof err);
 *     for (int32_t i = 0; i < r->n_nodes; i++)
 *         if (r->nodes[i].numerics == GC_NUM_WRONG)
 *             printf("%s: %s [%s]\n", r->nodes[i].op, r->nodes[i].evidence->message, r->nodes[i].numerics_rule);
 */
#ifndef GC_NUMERICS_H
#define GC_NUMERICS_H

#include <stdbool.h>
#include <stdint.h>
#include "common/common.h"
#include "model/model.h"

/* the precision a fact was measured at (GC_FPREC_ANY: both), and the one a check is for */
enum { GC_FPREC_ANY = 0, GC_FPREC_FP32 = 1, GC_FPREC_FP16 = 2 };
/* crashed: the runtime's process died compiling or running the model on the GPU (measured);
 * check treats it as wrong (not GPU-correct, exit 1) and says it crashed */
enum { GC_FACT_WRONG = 0, GC_FACT_INIT_FAILED = 1, GC_FACT_OK = 2, GC_FACT_CRASHED = 3 };
/* condition kinds: key=v (v may be "a|b": any of), key!=v (none of), key>N, key<N, key>=N, key<=N */
enum { GC_FC_EQ = 0, GC_FC_NE, GC_FC_GT, GC_FC_LT, GC_FC_GE, GC_FC_LE };

typedef struct {
    const char *key;         /* a node feature: "opt.exclusive", "in1.producer", "bcast" */
    int cmp;                 /* GC_FC_* */
    const char *value;       /* "1", "DENSIFY|DEQUANTIZE", "3x4" */
} gc_fact_cond;

typedef struct {
    const char *name;        /* "<kind>-<version>": "native-2.3.0" */
    const char *kind;        /* "native" (libLiteRt) or "js" (LiteRT.js), as gpuclean litert --runtime */
    const char *version;     /* "2.3.0" */
    bool is_default;         /* the runtime gpuclean check applies without --runtime */
    const char *what;        /* one line: which library, where it comes from */
} gc_gpu_runtime;

typedef struct {
    const char *id;          /* stable id: "numerics.cumsum_exclusive" (several rows may share one) */
    const char *runtime;     /* a gc_gpu_runtime.name */
    const char *device;      /* "nvidia-h200" */
    const char *op;          /* opcode name ("CUMSUM"), alternatives ("ADD|SUB") or "*" (any op) */
    const char *when;        /* the conditions as written, "-" for none */
    int n_cond;
    const gc_fact_cond *cond;
    int precision;           /* GC_FPREC_*: what it was measured at */
    int verdict;             /* GC_FACT_* */
    const char *error;       /* what was measured ("max_abs=14 corr=0.66"), or the delegate's message */
    const char *evidence;    /* sweep case names, comma-separated ("" when none) */
    const char *fix;         /* fix id ("fix.cumsum.exclusive"), "" when none */
    const char *message;     /* one line for the user */
    int line;                /* line in data/gpu/facts.tsv (0 in hand-made tables) */
} gc_gpu_fact;

typedef struct {
    const char *source;      /* "data/gpu/facts.tsv" */
    int n_runtimes;
    const gc_gpu_runtime *runtimes;
    int n_facts;
    const gc_gpu_fact *facts;
} gc_gpu_facts;

/* data/gpu/facts.tsv + runtimes.tsv, generated (tools/gpu_facts.py) */
extern const gc_gpu_facts gc_gpu_facts_builtin;

const char *gc_fact_precision_name(int p);             /* "any", "fp32", "fp16" */
const char *gc_fact_verdict_name(int v);               /* "wrong", "init_failed", "ok", "crashed" */
/* NULL or "": the default runtime; "native" / "js": the default (else newest) of that kind;
 * "native-2.3" (a version prefix that ends at a dot) or "native-2.3.0". NULL if unknown. */
const gc_gpu_runtime *gc_facts_runtime(const gc_gpu_facts *t, const char *name);
/* the first row with this id, NULL if none */
const gc_gpu_fact *gc_facts_find(const gc_gpu_facts *t, const char *id);
/* rows of a runtime (NULL: any) and device (NULL: any) */
int gc_facts_count(const gc_gpu_facts *t, const char *runtime, const char *device);
/* every row names a declared runtime, a known op (or "*"), a key the engine computes, a
 * well-formed value for it; false with "line N: what" in err otherwise */
bool gc_facts_validate(const gc_gpu_facts *t, char *err, size_t errlen);

/* ---- the engine (numerics.c) ------------------------------------------------------------ */

typedef enum { GC_NUM_OK = 0, GC_NUM_RISK = 1, GC_NUM_WRONG = 2 } gc_numerics;
const char *gc_numerics_name(gc_numerics n);           /* "ok", "risk", "wrong" */

/* One feature of node `node` of subgraph `sg` as the engine sees it, as text ("FLOAT32",
 * "3", "3x4"); on_gpu (may be NULL: all 0) marks the subgraph's nodes that run on the GPU
 * (for in<k>.producer_gpu). in* / out* keys give the first input / output where it is
 * defined. Returns false (buf "") when the key is unknown or undefined on this node. */
bool gc_fact_feature(const gc_model *m, int32_t sg, int32_t node, const char *key, const uint8_t *on_gpu,
                     char *buf, size_t n);
/* does fact f match that node (op and every condition; runtime and precision not looked at) */
bool gc_fact_matches(const gc_gpu_fact *f, const gc_model *m, int32_t sg, int32_t node, const uint8_t *on_gpu);

struct gc_check_result;
/* Kernel building on the selected runtime: the first node on the GPU that matches an
 * init_failed fact (precision any or the check's) fails the delegation; sets r->fatal to
 * the fact's message and the node's rule (fact id), reason (the delegate's message), fix
 * and evidence. Target mldrift only; nothing when r->fatal or r->model_error is set
 * already. The caller then restores the CPU plan (check.c). False on allocation failure. */
bool gc_numerics_init_failed(struct gc_check_result *r, const gc_model *m);
/* Per node on the GPU (final placement): numerics, numerics_rule, evidence; counts
 * r->wrong_nodes / r->risk_nodes, sets r->gpu_correct. Precedence: a wrong fact that
 * applies (measured at fp32 or any; at fp16 too when the check is for fp16) -> wrong; a
 * wrong fact measured only at fp16 while the check is for fp32 -> risk; a warning-level
 * risk note of lint.c on the node -> risk; a matching ok fact -> ok with it as evidence.
 * Nodes on the CPU are ok (the CPU is the reference). False on allocation failure. */
bool gc_numerics_apply(struct gc_check_result *r, const gc_model *m);

/* ---- rendering (numerics_doc.c) --------------------------------------------------------- */

/* "max_abs=14 corr=0.66; measured on native-2.3.0 (nvidia-h200, fp32); cases: a, b" */
void gc_fact_evidence_text(const gc_gpu_fact *f, gc_str *out);
/* `check --list-runtimes`: one tab-separated line per (runtime, device) */
void gc_facts_runtimes_text(const gc_gpu_facts *t, gc_str *out);
void gc_facts_runtimes_json(const gc_gpu_facts *t, gc_str *out);
/* `check --list-rules`: one line per fact row, the catalogue's columns */
void gc_facts_list_text(const gc_gpu_facts *t, gc_str *out);
/* the "Measured GPU facts" section of docs/rules.md */
void gc_facts_markdown(const gc_gpu_facts *t, gc_str *out);
/* `check --explain ID` for a fact id: every row with that id; passes as gc_rules_pass_fn */
void gc_fact_explain(const gc_gpu_facts *t, const char *id, void (*passes)(const char *fix_id, gc_str *out),
                     gc_str *out);

#endif
