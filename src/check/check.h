/* check.h — static GPU verdicts for a .tflite model: will each node run on the LiteRT
 * GPU accelerator (ML Drift, behind CompiledModel; target "mldrift", the default) or on
 * the TFLite GPU delegate v2 (target "classic"), and if not, why — in the delegate's own
 * words — and what to change.
 *
 *     char err[256];
 *     gc_model *m = gc_model_read_file("model.tflite", err, sizeof err);
 *     gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
 *     for (int32_t i = 0; i < r->n_nodes; i++)
 *         if (!r->nodes[i].gpu) printf("%s: %s [%s]\n", r->nodes[i].op, r->nodes[i].reason, r->nodes[i].rule);
 *     printf("GPU residency: %d/%d nodes\n", r->gpu_nodes, r->total_nodes);
 *     gc_check_free(r);   // before or after gc_model_free(m): the result owns its strings
 *
 * What the runtime does, and so what gc_check simulates (gpu-delegate-rules.md §1):
 *   1. every node of every subgraph goes through the delegate's IsNodeSupported: the
 *      op's parser (version gate, compat checks, parser pre-checks), then the tensor
 *      type / rank filter (§2.2); fp16-constant DEQUANTIZE nodes are never claimed and
 *      their consumers see the fp16 constant instead (§1.1 step 1);
 *   2. the supported nodes are partitioned exactly like TFLite's
 *      PartitionGraphIntoIndependentNodeSubsets (greedy, side-effect ops chained) and
 *      only the largest partition is delegated (max_delegated_partitions = 1); the
 *      other supported nodes stay on the CPU without a reason in the delegate's log;
 *   3. classic only: parse-time checks ([P] in the rules document) on the delegated
 *      partition; any failure drops the whole delegate ("TfLiteGpuDelegate Init: ...").
 * Subgraphs that the delegate marks delegation-skippable (decompositions of
 * STABLEHLO_COMPOSITE nodes it lowers itself) are not counted.
 */
#ifndef GC_CHECK_H
#define GC_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include "common/common.h"
#include "model/model.h"
#include "numerics.h"

typedef enum { GC_TARGET_MLDRIFT = 0, GC_TARGET_CLASSIC = 1 } gc_target;
const char *gc_target_name(gc_target t);               /* "mldrift" / "classic" */
int gc_target_from_name(const char *s);                /* -1 when unknown */

/* Where a node ends. */
typedef enum {
    GC_NODE_GPU = 0,        /* in the delegated partition */
    GC_NODE_REJECTED,       /* the delegate refused it (reason, rule) */
    GC_NODE_CPU_PARTITION,  /* supported, but outside the largest partition */
    GC_NODE_FP16_DEQUANT,   /* fp16-constant DEQUANTIZE kept on the CPU (partial delegation) */
    GC_NODE_INIT_FAILED,    /* classic: the delegate failed to initialise, all on CPU */
    GC_NODE_SKIPPED         /* subgraph skipped by the delegate (composite decomposition) */
} gc_node_state;
const char *gc_node_state_name(gc_node_state s);       /* "gpu", "rejected", ... */

typedef struct {
    int32_t index;           /* tensor index in the subgraph */
    const char *name;
    const char *role;        /* "input" / "output" */
    int type;                /* GC_T_* */
    int32_t rank;
    const int32_t *shape;    /* rank entries (owned by the result) */
    bool is_const;
} gc_check_tensor;

typedef struct {
    int32_t subgraph, index;
    const char *op;          /* builtin name or custom name */
    const char *op_label;    /* as the delegate prints it: "CONV_2D", "CUSTOM Foo" */
    int32_t builtin;         /* GC_OP_* */
    int32_t version;
    bool gpu;                /* runs on the GPU */
    bool supported;          /* passed IsNodeSupported (may still end on the CPU) */
    gc_node_state state;
    const char *rule;        /* stable rule id; NULL when supported */
    const char *reason;      /* the delegate's wording; "" when supported */
    bool fatal;              /* classic [P]: would break delegate initialisation */
    int32_t partition;       /* candidate partition id within the subgraph, -1 if none */
    int32_t culprit;         /* tensor the rule names (index into tensors[]), -1 */
    int32_t n_tensors;
    gc_check_tensor *tensors;
    const char *fix_id;      /* stable id of the rewrite ("fix.gather_nd.const_indices") */
    const char *fix_torch;   /* PyTorch-level rewrite (seed table) */
    const char *fix_tflite;  /* .tflite-level rewrite gpuclean applies */
    gc_numerics numerics;    /* on the GPU: ok / risk / wrong (numerics.h); CPU nodes: ok */
    const char *numerics_rule;   /* fact id or risk id behind numerics; NULL */
    const gc_gpu_fact *evidence; /* the measured fact behind numerics_rule, or behind rule for a
                                    measured kernel-build failure; NULL (points into r->facts) */
} gc_check_node;

typedef struct {
    int32_t subgraph, id;
    int32_t n_nodes;
    int32_t first_node;      /* smallest node index */
    bool delegated;
} gc_check_partition;

typedef struct {
    int32_t index;
    const char *name;
    bool skipped;            /* delegation-skippable (or empty) */
    int32_t nodes, gpu_nodes;
    int32_t n_candidates;    /* partitions of supported nodes before the size cut */
    int32_t delegated;       /* partitions handed to the GPU (0 or 1) */
    int32_t node_subsets;    /* CPU + GPU subsets the interpreter ends with */
    const char *delegate_log;/* the delegate's own message for this subgraph, "" if none */
} gc_check_subgraph;

typedef enum { GC_RISK_INFO = 0, GC_RISK_WARN = 1 } gc_risk_level;

typedef struct {
    int32_t subgraph, node;  /* node -1: model-level */
    const char *rule;        /* "fp16.sum_large", ... */
    gc_risk_level level;
    const char *message;
    const char *fix;         /* suggested change, may be "" */
} gc_check_risk;

typedef struct gc_check_result {
    gc_target target;
    int32_t total_nodes;     /* nodes of the delegated (non-skipped) subgraphs */
    int32_t gpu_nodes;
    int32_t partitions;      /* delegated partitions (GPU kernels) over all subgraphs */
    bool gpu_clean;          /* every counted node on the GPU, no init failure */
    const char *fatal;       /* classic: "TfLiteGpuDelegate Init: OP: msg", else NULL */
    const char *model_error; /* whole-model blocker (dynamic tensors), else NULL */
    int32_t n_nodes;         /* every node of every subgraph, in (subgraph, index) order */
    gc_check_node *nodes;
    int32_t n_partitions;
    gc_check_partition *parts;
    int32_t n_subgraphs;
    gc_check_subgraph *subgraphs;
    int32_t n_risks;
    gc_check_risk *risks;
    const gc_gpu_facts *facts;       /* the measured facts applied (must outlive the result) */
    const gc_gpu_runtime *runtime;   /* whose facts; NULL for target classic */
    int precision;                   /* GC_FPREC_FP32 / GC_FPREC_FP16: the precision checked for */
    int32_t wrong_nodes, risk_nodes; /* GPU nodes whose numerics are wrong / at risk */
    bool gpu_correct;                /* no GPU node computes measured-wrong numbers */
    gc_arena arena;          /* owns every string and array above */
} gc_check_result;

/* Check every node. NULL only on allocation failure (err says so). Applies the built-in
 * facts of the default runtime at fp32: gc_check_ex(m, target, NULL, ...). */
gc_check_result *gc_check(const gc_model *m, gc_target target, char *err, size_t errlen);
typedef struct {
    const gc_gpu_facts *facts;   /* NULL: gc_gpu_facts_builtin (data/gpu/facts.tsv) */
    const char *runtime;         /* NULL: the table's default; "native-2.3", "js", ... (gc_facts_runtime) */
    int precision;               /* 0 or GC_FPREC_FP32: fp32; GC_FPREC_FP16 */
} gc_check_opts;
/* NULL on allocation failure, an unknown runtime or precision (err says which) */
gc_check_result *gc_check_ex(const gc_model *m, gc_target target, const gc_check_opts *opts, char *err,
                             size_t errlen);
void gc_check_free(gc_check_result *r);

/* Counts of a subgraph as the delegate prints them; -1 when the subgraph is absent. */
int32_t gc_check_gpu_nodes(const gc_check_result *r, int32_t subgraph);

/* ---- rendering (check_report.c) ------------------------------------------------ */

/* Compiler-style text: one "path: node N OP 'name': not on GPU: reason [rule]" block per
 * node that is not on the GPU (with "  fix:" lines), the risks, then the summary with
 * "GPU residency: N/M nodes in K partition(s)". Nodes (and risks) whose finding is the
 * same — op, rule, reason and fix — print once as "path: N OP nodes (2, 3, 29-31, ...):
 * not on GPU: reason [rule]" with the node list abbreviated after 12 items; verbose
 * prints every node on its own, the GPU ones included. */
void gc_check_text(const gc_check_result *r, const gc_model *m, const char *path,
                   bool verbose, gc_str *out);
/* The end of gc_check_text: error lines (model error, delegate init failure), with
 * subgraphs the per-subgraph counts and "target: T", then the residency line with
 * " (GPU-clean)" when clean. `check --quiet` prints this with subgraphs false. */
void gc_check_summary_text(const gc_check_result *r, const char *path, bool subgraphs, gc_str *out);
/* One JSON document, schema 1 (see check_report.c for the field list). */
void gc_check_json(const gc_check_result *r, const gc_model *m, const char *path, gc_str *out);
/* The fix ids gc_check can name (fixes.c; gc_check_node.fix_id), each once: the i-th or
 * NULL past the end. *advice_only (may be NULL): no `gpuclean fix` pass implements it —
 * the node's .tflite text then reads "no .tflite fix yet (PyTorch rewrite: ...)". */
const char *gc_fix_id_at(int i, bool *advice_only);
bool gc_fix_id_advice(const char *id);

/* "GPU residency: 71/72 nodes in 1 partition(s)" */
void gc_check_residency_line(const gc_check_result *r, gc_str *out);
/* numerics_doc.c: a node's finding from a measured fact ("error: wrong numbers on the GPU:
 * MESSAGE [id]" or a warning at fp16; the text after "PATH: node N OP 'name': ") with its
 * evidence and fix lines; the JSON "evidence" object of a fact (null for NULL) */
void gc_check_numerics_text(const gc_check_result *r, const gc_check_node *n, gc_str *out);
void gc_check_evidence_json(const gc_check_result *r, const gc_gpu_fact *f, gc_str *out);

/* ---- the rule catalogue (rules_catalog.c, generated from the checker's sources by
 * tools/rules_catalog.py; rendered by rules_doc.c) ------------------------------- */

typedef enum { GC_RULE_REJECT = 0, GC_RULE_STATE = 1, GC_RULE_RISK = 2 } gc_rule_kind;
/* where a rule can fire (bits of gc_rule_info.stages) */
enum {
    GC_RULE_ML = 1,          /* ML Drift IsSupported (target mldrift) */
    GC_RULE_CL = 2,          /* classic IsSupported (target classic) */
    GC_RULE_CL_INIT = 4,     /* classic parse-time check: fails delegate init */
    GC_RULE_ML_INIT = 8      /* ML Drift kernel creation: fails delegation */
};
typedef struct {
    const char *id;          /* without the target prefix; "<op>.version" for the version gate */
    gc_rule_kind kind;       /* a refusal, a driver state (fp16 DEQUANTIZE, partition), a risk note */
    unsigned stages;         /* GC_RULE_* */
    int n_ops;               /* builtin codes it can fire on; 0 = any op */
    const int32_t *ops;
    int n_wordings;          /* the delegate's wording(s): <n> <s> <x> stand for values */
    const char *const *wordings;
    const char *where;       /* "rules_conv.c: gc_ml_conv2d, ..." */
    const char *fix;         /* risks: the suggested change; NULL otherwise */
} gc_rule_info;
extern const gc_rule_info gc_rule_catalog[];
extern const int gc_rule_catalog_n;

/* by id, with or without "mldrift." / "classic." ("mldrift.conv_2d.version" finds
 * "<op>.version"); NULL when unknown */
const gc_rule_info *gc_rule_find(const char *rule);
/* Which gpuclean fix passes implement a fix id (the CLI links src/fix; the checker does
 * not): writes "pass, pass" or nothing. May be NULL. */
typedef void (*gc_rules_pass_fn)(const char *fix_id, gc_str *out);
/* `gpuclean check --list-rules`: one tab-separated line per rule id:
 * id, stages, ops, fix id(s), wording(s) */
void gc_rules_list_text(gc_rules_pass_fn passes, gc_str *out);
/* docs/rules.md */
void gc_rules_markdown(gc_rules_pass_fn passes, gc_str *out);
/* `gpuclean check --explain RULE` */
void gc_rule_explain(const gc_rule_info *r, gc_rules_pass_fn passes, gc_str *out);

#endif
