/* fix.h — graph rewrites that make a model GPU-clean, each re-checked by gc_check and
 * each with a stated exactness that gc_fix_verify proves on the reference interpreter.
 *
 *     char err[256];
 *     gc_model *m = gc_model_read_file("model.tflite", err, sizeof err);
 *     gc_fix_opts o = gc_fix_opts_default();              // target mldrift, every pass
 *     gc_fix_result *r = gc_fix_apply(m, &o, err, sizeof err);   // edits m in place
 *     for (int32_t i = 0; i < r->n_changes; i++) printf("%s: %s\n", r->changes[i].pass->id, r->changes[i].detail);
 *     printf("%d/%d -> %d/%d\n", r->before.gpu_nodes, r->before.total_nodes, r->after.gpu_nodes, r->after.total_nodes);
 *     // the caller writes m (gc_model_write_file) — the library never writes files
 *     gc_fix_result_free(r);
 *
 * How the driver works (fix.c):
 *   1. gc_check the model for the target; every pass of the registry (in table order)
 *      looks at the nodes whose op is one of its anchors. A pass with scope "refused"
 *      only touches nodes the checker refuses (rejected: the delegate's IsNodeSupported
 *      says no) or whose kernel would fail to build (fatal), and nodes carrying the
 *      checker risk it names (silent miscomputes on a fully resident GPU, e.g. the
 *      classic delegate's mixed-rank broadcast) or whose numerics a measured fact of the
 *      runtime (opts.runtime) calls wrong with the pass's fix id as its fix (counted as
 *      the pass's risk below); opts.force widens a pass to every node that meets its
 *      precondition.
 *   2. A pass rewrites one site at a time: it checks its precondition (declining with a
 *      reason when it does not hold) and replaces the site by new ops that write the
 *      same output tensors (names and indices of every surviving tensor are kept, so
 *      the model's inputs, outputs and signatures do not change).
 *   3. The driver re-runs gc_check after every site and keeps the rewrite only when the
 *      checker's verdict is no worse — no new init failure, no more refused nodes, no
 *      more of the pass's risk — and strictly better: fewer refused nodes, CPU nodes or
 *      CPU/GPU node subsets, or the init failure or the pass's risk gone (forced sites:
 *      no worse is enough). No init failure may be latent either: each new node is also
 *      checked alone, since a kernel that cannot be built only shows once the node is
 *      in the delegated partition. Otherwise it rolls the site back and records why
 *      ("the GPU would refuse the new CAST: ...", "no gain ...").
 *      So a pass is only applied where the GPU accepts what it makes, per src/check.
 *   4. Passes repeat to a fixpoint (at most opts.max_rounds rounds over the registry;
 *      sites left alone get another try in each round after a change).
 *   5. Residency is judged on the result: the new ops of a site may sit outside the
 *      delegated partition until a later site brings them in, so step 3 lets the CPU
 *      node count rise on the way. If the rounds end with more CPU nodes, or the GPU
 *      work of a subgraph in more pieces (partitions, CPU/GPU node subsets), than the
 *      model had, every site is undone and the rounds run again strict: each site must
 *      then also add no CPU node and no piece (result.progress_rejected). So a fixed
 *      model never has more CPU nodes or more pieces than its original.
 *   6. Dead ops, tensors and buffers are pruned and the model is checked once more.
 *
 * Exactness: every pass states it (gc_fix_exactness). The reference interpreter's fp32
 * results are the ground truth: gc_fix_verify runs the original and the fixed model on
 * the same inputs and fails when the outputs differ beyond the weakest exactness of the
 * passes that were applied.
 */
#ifndef GC_FIX_H
#define GC_FIX_H

#include <stdbool.h>
#include <stdint.h>
#include "common/common.h"
#include "model/model.h"
#include "check/check.h"

/* What a pass promises about fp32 outputs (ordered from strongest to weakest). */
typedef enum {
    GC_FIX_BIT_EXACT = 0,     /* every output byte identical */
    GC_FIX_EXACT_FINITE = 1,  /* equal values (max |diff| 0, NaN where NaN) when the
                                 rewritten values are finite; +0/-0 may differ */
    GC_FIX_TOLERANCE = 2      /* |a - b| <= atol + rtol |b| */
} gc_fix_exactness;
const char *gc_fix_exactness_name(gc_fix_exactness e);   /* "bit-exact", ... */

/* Which nodes a pass considers. */
typedef enum {
    GC_FIX_SCOPE_REFUSED = 0, /* nodes gc_check refuses or marks fatal, nodes with the pass's
                                 risk, and nodes whose numerics are "wrong" by a measured fact
                                 naming the pass's fix id (unless forced) */
    GC_FIX_SCOPE_ANY = 1      /* every node meeting the precondition (a numerics fix for
                                 nodes the GPU accepts: pow_square) */
} gc_fix_scope;

typedef struct gc_fix_ctx gc_fix_ctx;   /* see fix_int.h (pass implementations) */

/* One row of the registry. */
typedef struct gc_fix_pass {
    const char *id;           /* "rank5_fold": the name --only/--skip/--force take */
    const char *fix_id;       /* the checker's fix id it implements ("fix.rank5") */
    const char *summary;      /* one line: rewrite, precondition */
    const int32_t *anchors;   /* op codes the pass starts from, ended by -1; NULL: any */
    gc_fix_exactness exactness;
    double rtol, atol;        /* GC_FIX_TOLERANCE only */
    gc_fix_scope scope;
    /* A checker risk rule ("classic.mixed_rank_broadcast") the pass removes: nodes
     * carrying it are targets too, and such a site is kept when the risk count drops
     * with no more refused nodes. NULL: none. */
    const char *risk;
    /* A second risk rule the pass removes, counted and targeted with `risk`
     * ("mldrift.mixed_rank_broadcast"). NULL: none. */
    const char *risk2;
    /* Rewrite the site anchored at op `op` of subgraph c->sg: 1 rewritten, 0 declined
     * (reason in the context: gc_fix_decline), -1 out of memory. */
    int (*apply)(gc_fix_ctx *c, int32_t op);
} gc_fix_pass;

/* The registry, in the order the driver runs it. */
int gc_fix_n_passes(void);
const gc_fix_pass *gc_fix_pass_at(int i);
/* by pass id or fix id ("rank5_fold" or "fix.rank5"); NULL when unknown */
const gc_fix_pass *gc_fix_pass_find(const char *name);

typedef struct {
    gc_target target;
    const char *only;         /* comma-separated pass ids or fix ids; NULL = every pass */
    const char *skip;         /* comma-separated; NULL = none */
    const char *force;        /* comma-separated, or "all": apply also to nodes the GPU
                                 already accepts (within the pass's precondition) */
    int max_rounds;           /* rounds over the registry; default 8 */
    uint64_t max_const_bytes; /* largest constant a pass may materialize; 64 MiB */
    const char *runtime;      /* whose measured GPU facts the checks apply (gc_check_opts.runtime):
                                 NULL = the default runtime; "js-2.5", ... (ML Drift only) */
    int precision;            /* GC_FPREC_FP32 (0, default) or GC_FPREC_FP16: the GPU precision the
                                 model runs at; facts measured wrong at fp16 only count as wrong
                                 (and are fixed) with fp16 (gc_check_opts.precision) */
} gc_fix_opts;
gc_fix_opts gc_fix_opts_default(void);
/* Check a comma list of pass names: NULL when every name is known, else the first
 * unknown one (copied into buf). */
const char *gc_fix_list_unknown(const char *list, char *buf, size_t n);

/* One rewritten site. */
typedef struct {
    const gc_fix_pass *pass;
    int32_t subgraph;
    const char *op;           /* the anchor's op name ("GATHER_ND") */
    const char *node;         /* the anchor's name (its first output tensor) */
    const char *detail;       /* what it became: "STRIDED_SLICE begin [0,0,0,0] ..." */
    int32_t removed, added;   /* ops */
} gc_fix_change;

/* A site a pass looked at and left alone (precondition false or rolled back). */
typedef struct {
    const gc_fix_pass *pass;
    int32_t subgraph;
    const char *op, *node;
    const char *reason;
} gc_fix_decline;

typedef struct {
    const gc_fix_pass *pass;
    int32_t sites, removed, added, declined;
} gc_fix_pass_stat;

typedef struct {
    int32_t gpu_nodes, total_nodes, partitions, refused;
    bool gpu_clean;
} gc_fix_residency;

typedef struct gc_fix_result {
    gc_target target;
    int32_t rounds;               /* rounds run (the last one changed nothing) */
    bool hit_max_rounds;          /* stopped by opts.max_rounds, not a fixpoint */
    int32_t n_stats;              /* one per pass of the registry that was enabled */
    gc_fix_pass_stat *stats;
    int32_t n_changes;
    gc_fix_change *changes;
    int32_t n_declines;
    gc_fix_decline *declines;
    int32_t pruned_ops;           /* ops dropped by the final prune (outputs unused) */
    gc_fix_residency before, after;
    gc_fix_exactness exactness;   /* weakest of the applied passes (BIT_EXACT if none) */
    double rtol, atol;            /* loosest tolerance of applied TOLERANCE passes */
    /* The progress rounds (sites kept for removing refusals) ended with more CPU nodes
     * or the GPU work in more pieces than the model had (`progress` says where): they
     * were undone and the rounds ran again strict (fix.c). */
    bool progress_rejected;
    gc_fix_residency progress;
    gc_check_result *check;       /* gc_check of the fixed model (owned) */
    gc_arena arena;               /* owns the strings and arrays above */
} gc_fix_result;

/* Apply the enabled passes to m (in place). NULL on allocation failure or bad options
 * (err says which). The model is left valid (gc_model_validate) either way. */
gc_fix_result *gc_fix_apply(gc_model *m, const gc_fix_opts *o, char *err, size_t errlen);
void gc_fix_result_free(gc_fix_result *r);

/* ---- numerical verification (fix_verify.c) --------------------------------------- */

/* One output of one run. */
typedef struct {
    int32_t signature;            /* entry (signature index, -1: subgraph 0) */
    const char *inputs;           /* "pattern sin" / "random 1" */
    const char *output;           /* output name */
    uint64_t n;                   /* elements */
    double max_abs;               /* max |fixed - original| over finite pairs */
    uint64_t nan_mismatch, inf_mismatch, violations;
    bool bytes_equal;
    bool ok;                      /* within the stated exactness */
} gc_fix_vrow;

typedef struct {
    bool ran;                     /* false: the interpreter could not run (why) */
    char why[512];
    gc_fix_exactness exactness;
    double rtol, atol;
    int32_t n_rows;
    gc_fix_vrow *rows;
    bool pass;                    /* ran and every row ok */
    gc_arena arena;
} gc_fix_verify_result;

/* Run `orig` and `fixed` in fp32 on the reference interpreter with the same inputs —
 * the sin pattern and gc_fill_random(seed) — for every signature (or subgraph 0), and
 * compare every output against the stated exactness. Returns GC_OK when the comparison
 * was made or could not be made (out->ran says which); an error status only for
 * allocation failures. Free with gc_fix_verify_free. */
gc_status gc_fix_verify(const gc_model *orig, const gc_model *fixed, gc_fix_exactness ex, double rtol,
                        double atol, uint64_t seed, gc_fix_verify_result *out);
void gc_fix_verify_free(gc_fix_verify_result *v);

/* ---- rendering (fix_report.c) ------------------------------------------------------ */

/* Text: per-pass lines, each rewritten site, declined sites, residency before -> after,
 * what remains refused and why. */
void gc_fix_text(const gc_fix_result *r, const gc_model *fixed, const char *in_path, const char *out_path,
                 gc_str *o);
void gc_fix_verify_text(const gc_fix_verify_result *v, gc_str *o);
/* One JSON document, schema 1 (fields listed in fix_report.c); v may be NULL. */
void gc_fix_json(const gc_fix_result *r, const gc_model *fixed, const char *in_path, const char *out_path,
                 const gc_fix_verify_result *v, bool written, gc_str *o);

#endif
