/* check.c — the driver: run every node through the target delegate's IsNodeSupported
 * (op table + type filter), simulate the partitioning and the one-partition delegation,
 * apply the classic parse-time failures, and assemble the verdicts
 * (gpu-delegate-rules.md §1.1 steps 1-7 and §1.2 for ML Drift; §2.3 constness, §2.5
 * dynamic tensors; FP16GraphPartitionHelper of tflite/delegates/utils.cc: fp16-constant
 * DEQUANTIZE nodes are never claimed, their consumers see the fp16 constant, and when
 * every other node is supported they join the single partition, "full delegation").
 */
#include "check_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gc_target_name(gc_target t) { return t == GC_TARGET_CLASSIC ? "classic" : "mldrift"; }

int gc_target_from_name(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "mldrift") || !strcmp(s, "ml_drift") || !strcmp(s, "litert")) return GC_TARGET_MLDRIFT;
    if (!strcmp(s, "classic") || !strcmp(s, "v2")) return GC_TARGET_CLASSIC;
    return -1;
}

const char *gc_node_state_name(gc_node_state s) {
    switch (s) {
    case GC_NODE_GPU: return "gpu";
    case GC_NODE_REJECTED: return "rejected";
    case GC_NODE_CPU_PARTITION: return "cpu_partition";
    case GC_NODE_FP16_DEQUANT: return "fp16_dequant_cpu";
    case GC_NODE_INIT_FAILED: return "init_failed";
    case GC_NODE_SKIPPED: return "skipped";
    }
    return "?";
}

/* ---- graph ------------------------------------------------------------------------------ */

bool gc_graph_build(const gc_subgraph *sg, gc_graph *g) {
    int32_t nt = sg->n_tensors;
    memset(g, 0, sizeof *g);
    g->n_tensors = nt;
    g->producer = malloc(sizeof(int32_t) * (size_t)(nt ? nt : 1));
    g->cons_off = calloc((size_t)nt + 1, sizeof(int32_t));
    if (!g->producer || !g->cons_off) { gc_graph_free(g); return false; }
    for (int32_t t = 0; t < nt; t++) g->producer[t] = -1;
    int64_t total = 0;
    for (int32_t i = 0; i < sg->n_ops; i++) {
        const gc_op *op = &sg->ops[i];
        for (int32_t k = 0; k < op->n_outputs; k++)
            if (op->outputs[k] >= 0 && op->outputs[k] < nt && g->producer[op->outputs[k]] < 0)
                g->producer[op->outputs[k]] = i;
        for (int32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && op->inputs[k] < nt) { g->cons_off[op->inputs[k] + 1]++; total++; }
    }
    for (int32_t t = 0; t < nt; t++) g->cons_off[t + 1] += g->cons_off[t];
    g->cons = malloc(sizeof(int32_t) * (size_t)(total ? total : 1));
    int32_t *fill = malloc(sizeof(int32_t) * (size_t)(nt ? nt : 1));
    if (!g->cons || !fill) { free(fill); gc_graph_free(g); return false; }
    memcpy(fill, g->cons_off, sizeof(int32_t) * (size_t)nt);
    for (int32_t i = 0; i < sg->n_ops; i++) {
        const gc_op *op = &sg->ops[i];
        for (int32_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0 && op->inputs[k] < nt) g->cons[fill[op->inputs[k]]++] = i;
    }
    free(fill);
    return true;
}

void gc_graph_free(gc_graph *g) {
    free(g->producer); free(g->cons_off); free(g->cons);
    memset(g, 0, sizeof *g);
}

int32_t gc_graph_n_consumers(const gc_graph *g, int32_t t) {
    return (t >= 0 && t < g->n_tensors) ? g->cons_off[t + 1] - g->cons_off[t] : 0;
}

/* ---- tensor flags (allocation types, §2.2-2.5) ------------------------------------------- */

/* inputs whose non-constness makes the op's output dynamic (TFLite kernels call
 * SetTensorToDynamic when these are neither constant nor persistent) */
static bool shape_input(int32_t code, int k) {
    switch (code) {
    case GC_OP_RESHAPE: case GC_OP_RESIZE_BILINEAR: case GC_OP_RESIZE_NEAREST_NEIGHBOR: case GC_OP_TILE:
    case GC_OP_BROADCAST_TO: case GC_OP_PAD: case GC_OP_PADV2: case GC_OP_MIRROR_PAD: case GC_OP_MEAN:
    case GC_OP_SUM: case GC_OP_REDUCE_MAX: case GC_OP_REDUCE_MIN: case GC_OP_REDUCE_PROD:
    case GC_OP_REDUCE_ANY: case GC_OP_REDUCE_ALL: case GC_OP_ARG_MAX: case GC_OP_ARG_MIN:
    case GC_OP_EXPAND_DIMS: case GC_OP_ONE_HOT: case GC_OP_TOPK_V2: case GC_OP_TRANSPOSE:
        return k == 1;
    case GC_OP_FILL: case GC_OP_TRANSPOSE_CONV: case GC_OP_SPLIT: return k == 0;
    case GC_OP_SLICE: return k == 1 || k == 2;
    case GC_OP_STRIDED_SLICE: return k >= 1 && k <= 3;
    case GC_OP_SPACE_TO_BATCH_ND: case GC_OP_BATCH_TO_SPACE_ND: return k == 1 || k == 2;
    case GC_OP_SPLIT_V: return k == 1 || k == 2;
    case GC_OP_RANGE: return k <= 2;
    case GC_OP_SCATTER_ND: return k == 2;
    default: return false;
    }
}

static bool always_dynamic(int32_t code) {
    return code == GC_OP_WHERE || code == GC_OP_UNIQUE || code == GC_OP_NON_MAX_SUPPRESSION_V4 ||
           code == GC_OP_NON_MAX_SUPPRESSION_V5;
}

/* fills flags; returns the first dynamic tensor (execution order) or -1 */
static int32_t tensor_flags(const gc_model *m, const gc_subgraph *sg, uint8_t *tf) {
    int32_t first_dyn = -1;
    for (int32_t t = 0; t < sg->n_tensors; t++) {
        const gc_tensor *x = &sg->tensors[t];
        tf[t] = 0;
        if (x->is_variable) tf[t] |= GC_TF_VARIABLE;
        else if (gc_tensor_is_const(m, x)) tf[t] |= GC_TF_CONST;
    }
    for (int32_t i = 0; i < sg->n_inputs; i++)
        if (sg->inputs[i] >= 0 && sg->inputs[i] < sg->n_tensors) tf[sg->inputs[i]] |= GC_TF_GRAPH_IN;
    for (int32_t i = 0; i < sg->n_outputs; i++)
        if (sg->outputs[i] >= 0 && sg->outputs[i] < sg->n_tensors) tf[sg->outputs[i]] |= GC_TF_GRAPH_OUT;
    for (int32_t i = 0; i < sg->n_ops; i++) {
        const gc_op *op = &sg->ops[i];
        int32_t code = gc_op_builtin(m, op);
        bool dyn = always_dynamic(code), in_dyn = false;
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (t < 0 || t >= sg->n_tensors) continue;
            if (tf[t] & GC_TF_DYNAMIC) { dyn = true; in_dyn = true; }
            if (shape_input(code, k) && !(tf[t] & (GC_TF_CONST | GC_TF_PERSIST_RO))) dyn = true;
        }
        bool persist = (code == GC_OP_SHAPE || code == GC_OP_RANK) && !in_dyn;
        for (int32_t k = 0; k < op->n_outputs; k++) {
            int32_t t = op->outputs[k];
            if (t < 0 || t >= sg->n_tensors || (tf[t] & (GC_TF_CONST | GC_TF_VARIABLE))) continue;
            if (persist) tf[t] |= GC_TF_PERSIST_RO;
            else if (dyn) {
                tf[t] |= GC_TF_DYNAMIC;
                if (first_dyn < 0) first_dyn = t;
            }
        }
    }
    return first_dyn;
}

static bool side_effect(const gc_model *m, const gc_subgraph *sg, const gc_op *op) {
    int32_t code = gc_op_builtin(m, op);
    if (code == GC_OP_IF || code == GC_OP_WHILE || code == GC_OP_CALL_ONCE) return true;
    for (int32_t k = 0; k < op->n_inputs; k++)
        if (op->inputs[k] >= 0 && op->inputs[k] < sg->n_tensors && sg->tensors[op->inputs[k]].type == GC_T_RESOURCE)
            return true;
    for (int32_t k = 0; k < op->n_outputs; k++)
        if (op->outputs[k] >= 0 && op->outputs[k] < sg->n_tensors && sg->tensors[op->outputs[k]].type == GC_T_RESOURCE)
            return true;
    return false;
}

/* ---- result assembly ---------------------------------------------------------------------- */

static char *adup(gc_arena *a, const char *s) { return gc_arena_strdup(a, s ? s : ""); }

static char *afmt(gc_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *afmt(gc_arena *a, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return gc_arena_strdup(a, buf);
}

static void fill_tensors(gc_check_result *r, gc_check_node *n, const gc_rctx *c, int32_t culprit) {
    int32_t cnt = 0;
    for (int i = 0; i < c->n_in; i++) if (gc_in_idx(c, i) >= 0) cnt++;
    for (int i = 0; i < c->op->n_outputs; i++) if (gc_out_idx(c, i) >= 0) cnt++;
    n->tensors = gc_arena_alloc(&r->arena, sizeof(gc_check_tensor) * (size_t)(cnt ? cnt : 1));
    n->n_tensors = 0;
    n->culprit = -1;
    if (!n->tensors) return;
    for (int io = 0; io < 2; io++) {
        int k = io ? c->op->n_outputs : c->n_in;
        for (int i = 0; i < k; i++) {
            int32_t t = io ? gc_out_idx(c, i) : gc_in_idx(c, i);
            if (t < 0) continue;
            const gc_tensor *x = &c->sg->tensors[t];
            gc_check_tensor *o = &n->tensors[n->n_tensors];
            o->index = t; o->name = x->name; o->role = io ? "output" : "input";
            o->type = x->type; o->rank = x->rank; o->shape = x->shape;
            o->is_const = gc_is_const_t(c, t);
            if (t == culprit && n->culprit < 0) n->culprit = n->n_tensors;
            n->n_tensors++;
        }
    }
}

static void set_verdict(gc_check_result *r, gc_check_node *n, const gc_rctx *c, const gc_hit *h) {
    n->rule = afmt(&r->arena, "%s.%s", gc_target_name(c->target), h->rule);
    n->reason = adup(&r->arena, h->reason);
    gc_fix f = gc_fix_for(c, h->rule);
    n->fix_id = f.id; n->fix_torch = f.torch; n->fix_tflite = f.tflite;
    fill_tensors(r, n, c, h->tensor);
}

typedef struct { gc_lint *v; int32_t n, cap; } lint_list;

static void lint_sink(void *user, const gc_lint *l) {
    lint_list *L = user;
    if (L->n == L->cap) {
        int32_t cap = L->cap ? L->cap * 2 : 16;
        gc_lint *v = realloc(L->v, sizeof *v * (size_t)cap);
        if (!v) return;
        L->v = v; L->cap = cap;
    }
    L->v[L->n++] = *l;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the delegate's own message for one subgraph (GetOpsToReplace, §6.1) */
static const char *delegate_log(gc_check_result *r, gc_check_node *nodes, int32_t n, int32_t replaced) {
    const char **lines = malloc(sizeof(char *) * (size_t)(n ? n : 1));
    if (!lines) return "";
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        if (!nodes[i].supported && nodes[i].state != GC_NODE_SKIPPED)
            lines[k++] = afmt(&r->arena, "%s: %s", nodes[i].op_label, nodes[i].reason ? nodes[i].reason : "");
    const char *out = "";
    if (k > 0 && n > replaced) {
        qsort(lines, (size_t)k, sizeof *lines, cmp_str);
        gc_str s = {0};
        gc_str_puts(&s, "Following operations are not supported by GPU delegate:\n");
        for (int32_t i = 0; i < k; i++) {
            if (i && !strcmp(lines[i], lines[i - 1])) continue;
            gc_str_puts(&s, lines[i]);
            gc_str_putc(&s, '\n');
        }
        if (replaced > 0)
            gc_str_printf(&s, "%d operations will run on the GPU, and the remaining %d operations will run on the CPU.",
                          replaced, n - replaced);
        else
            gc_str_printf(&s, "No operations will run on the GPU, and all %d operations will run on the CPU.", n);
        out = s.s ? adup(&r->arena, s.s) : "";
        gc_str_free(&s);
    }
    free(lines);
    return out;
}

typedef struct {
    gc_check_result *r;
    const gc_model *m;
    gc_target target;
    uint8_t *skippable;
    lint_list lints;
    int32_t n_parts, cap_parts;
    char err[256];
} run;

static bool add_part(run *R, gc_check_partition p) {
    if (R->n_parts == R->cap_parts) {
        int32_t cap = R->cap_parts ? R->cap_parts * 2 : 16;
        gc_check_partition *v = gc_arena_alloc(&R->r->arena, sizeof *v * (size_t)cap);
        if (!v) return false;
        if (R->n_parts) memcpy(v, R->r->parts, sizeof *v * (size_t)R->n_parts);
        R->r->parts = v; R->cap_parts = cap;
    }
    R->r->parts[R->n_parts++] = p;
    return true;
}

static bool check_subgraph(run *R, int32_t s, gc_check_node *nodes) {
    gc_check_result *r = R->r;
    const gc_model *m = R->m;
    const gc_subgraph *sg = &m->subgraphs[s];
    gc_check_subgraph *S = &r->subgraphs[s];
    int32_t n = sg->n_ops;
    S->index = s;
    S->name = sg->name ? sg->name : "";
    S->delegate_log = "";
    for (int32_t i = 0; i < n; i++) {
        const gc_op *op = &sg->ops[i];
        const gc_opcode *oc = gc_op_code(m, op);
        gc_check_node *nd = &nodes[i];
        nd->subgraph = s; nd->index = i;
        nd->builtin = gc_op_builtin(m, op);
        nd->op = gc_op_name(m, op);
        nd->version = oc->version;
        nd->partition = -1; nd->culprit = -1;
        nd->reason = "";
        if ((nd->builtin == GC_OP_CUSTOM || nd->builtin == GC_OP_DELEGATE) && oc->custom_code)
            nd->op_label = afmt(&r->arena, "%s %s", gc_builtin_name(nd->builtin), oc->custom_code);
        else
            nd->op_label = gc_builtin_name(nd->builtin);
    }
    bool skip = R->skippable[s] || (sg->name && !strncmp(sg->name, "VALIDATION:", 11)) || n == 0;
    if (skip) {
        S->skipped = true;
        for (int32_t i = 0; i < n; i++) nodes[i].state = GC_NODE_SKIPPED;
        return true;
    }
    S->nodes = n;
    r->total_nodes += n;

    gc_graph g;
    uint8_t *tf = malloc((size_t)(sg->n_tensors ? sg->n_tensors : 1));
    uint8_t *supported = calloc((size_t)(n ? n : 1), 1), *se = calloc((size_t)(n ? n : 1), 1);
    uint8_t *fp16dq = calloc((size_t)(n ? n : 1), 1), *delegated = calloc((size_t)(n ? n : 1), 1);
    int32_t *remap = malloc(sizeof(int32_t) * (size_t)(sg->n_tensors ? sg->n_tensors : 1));
    int32_t *inbuf = NULL;
    int32_t max_in = 1;
    for (int32_t i = 0; i < n; i++) if (sg->ops[i].n_inputs > max_in) max_in = sg->ops[i].n_inputs;
    inbuf = malloc(sizeof(int32_t) * (size_t)max_in);
    bool ok = tf && supported && se && fp16dq && delegated && remap && inbuf && gc_graph_build(sg, &g);
    if (!ok) {
        free(tf); free(supported); free(se); free(fp16dq); free(delegated); free(remap); free(inbuf);
        snprintf(R->err, sizeof R->err, "out of memory checking subgraph %d", s);
        return false;
    }
    tensor_flags(m, sg, tf);
    for (int32_t t = 0; t < sg->n_tensors; t++) remap[t] = t;

    /* 1. IsNodeSupported for every node, in execution order */
    int32_t n_supported = 0, n_fp16 = 0;
    for (int32_t i = 0; i < n; i++) {
        const gc_op *op = &sg->ops[i];
        gc_check_node *nd = &nodes[i];
        se[i] = side_effect(m, sg, op);
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            inbuf[k] = (t >= 0 && t < sg->n_tensors) ? remap[t] : t;
        }
        gc_rctx c = { .m = m, .sg = sg, .sgi = s, .node = i, .op = op, .code = nd->builtin,
                      .custom = nd->builtin == GC_OP_CUSTOM ? gc_op_code(m, op)->custom_code : NULL,
                      .version = nd->version, .target = R->target, .n_in = op->n_inputs, .in = inbuf,
                      .tf = tf, .g = &g };
        if (c.code == GC_OP_CUSTOM && !c.custom) c.custom = "";
        /* FP16GraphPartitionHelper::IsNodeSupported: fp16 constant DEQUANTIZE */
        if (c.code == GC_OP_DEQUANTIZE && c.n_in > 0 && gc_in(&c, 0) && gc_in(&c, 0)->type == GC_T_FLOAT16 &&
            gc_is_const_in(&c, 0) && op->n_outputs > 0 && op->outputs[0] >= 0) {
            remap[op->outputs[0]] = gc_in_idx(&c, 0);
            fp16dq[i] = 1; n_fp16++;
            nd->state = GC_NODE_FP16_DEQUANT;
            nd->rule = afmt(&r->arena, "%s.fp16_dequantize", gc_target_name(R->target));
            fill_tensors(r, nd, &c, -1);
            continue;
        }
        gc_hit h;
        memset(&h, 0, sizeof h);
        h.tensor = -1;
        const gc_op_rules *rules = gc_op_rules_for(c.code);
        gc_rule_fn fn = R->target == GC_TARGET_CLASSIC ? rules->classic : rules->mldrift;
        int rej;
        if (!fn) {
            rej = gc_hit_set(&h, "unsupported_op", -1, "Operation is not supported.");
        } else {
            rej = fn(&c, &h);
            if (!rej) rej = gc_type_filter(&c, &h);
        }
        if (rej) {
            nd->state = GC_NODE_REJECTED;
            set_verdict(r, nd, &c, &h);
        } else {
            supported[i] = 1; n_supported++;
            nd->supported = true;
            fill_tensors(r, nd, &c, -1);
        }
    }

    /* 2. partitions; only the largest is delegated (ties: the first) */
    gc_partitioning P;
    int32_t best = -1;
    if (n_supported > 0 && gc_partition(sg, supported, se, &P)) {
        for (int32_t k = 0; k < P.n_subsets; k++) {
            if (P.subset_type[k] != 1) continue;
            S->n_candidates++;
            if (best < 0 || P.subset_size[k] > P.subset_size[best]) best = k;
        }
        int32_t part_id = 0;
        for (int32_t k = 0; k < P.n_subsets; k++) {
            if (P.subset_type[k] != 1) continue;
            gc_check_partition cp = { s, part_id, P.subset_size[k], -1, k == best };
            for (int32_t i = 0; i < n; i++)
                if (P.subset_of[i] == k) {
                    nodes[i].partition = part_id;
                    if (cp.first_node < 0) cp.first_node = i;
                }
            add_part(R, cp);
            part_id++;
        }
        bool full = n_supported + n_fp16 == n;
        for (int32_t i = 0; i < n; i++) delegated[i] = full || (best >= 0 && P.subset_of[i] == best);
        gc_partitioning_free(&P);
    }
    int32_t replaced = 0;
    for (int32_t i = 0; i < n; i++) replaced += delegated[i];
    if (r->model_error) memset(delegated, 0, (size_t)n);   /* ModifyGraphWithDelegate failed first */
    else S->delegate_log = delegate_log(r, nodes, n, replaced);

    /* 3. kernel building on the delegated partition: classic parse-time ([P]) checks, ML
     * Drift kernel-creation failures seen on the device; the first failure drops all */
    if (!r->model_error && !r->fatal) {
        for (int32_t i = 0; i < n && !r->fatal; i++) {
            if (!delegated[i] || fp16dq[i]) continue;
            const gc_op *op = &sg->ops[i];
            for (int32_t k = 0; k < op->n_inputs; k++) {
                int32_t t = op->inputs[k];
                inbuf[k] = (t >= 0 && t < sg->n_tensors) ? remap[t] : t;
            }
            gc_rctx c = { .m = m, .sg = sg, .sgi = s, .node = i, .op = op, .code = nodes[i].builtin,
                          .custom = nodes[i].builtin == GC_OP_CUSTOM ? gc_op_code(m, op)->custom_code : NULL,
                          .version = nodes[i].version, .target = R->target, .n_in = op->n_inputs, .in = inbuf,
                          .tf = tf, .g = &g };
            gc_hit h;
            memset(&h, 0, sizeof h);
            h.tensor = -1;
            bool failed;
            if (R->target == GC_TARGET_CLASSIC) {
                gc_rule_fn p = gc_op_rules_for(c.code)->classic_parse;
                failed = gc_clp_common(&c, &h) || (p && p(&c, &h));
            } else {
                gc_rule_fn p = gc_mldrift_init_rule(c.code);
                failed = p && p(&c, &h);
            }
            if (failed) {
                nodes[i].fatal = true;
                set_verdict(r, &nodes[i], &c, &h);
                if (R->target == GC_TARGET_CLASSIC)
                    r->fatal = afmt(&r->arena, "TfLiteGpuDelegate Init: %s: %s", nodes[i].op_label, h.reason);
                else
                    r->fatal = afmt(&r->arena, "Failed to create litert::ml_drift::DelegateKernelLiteRt: "
                                    "INVALID_ARGUMENT: %s", h.reason);
            }
        }
    }

    /* 4. final states */
    bool init_failed = r->fatal != NULL;
    for (int32_t i = 0; i < n; i++) {
        gc_check_node *nd = &nodes[i];
        if (delegated[i] && !init_failed && !r->model_error) {
            nd->gpu = true; nd->state = GC_NODE_GPU;
            S->gpu_nodes++;
        } else if (delegated[i]) {
            nd->state = GC_NODE_INIT_FAILED;
        } else if (fp16dq[i]) {
            nd->state = GC_NODE_FP16_DEQUANT;
        } else if (nd->supported) {
            nd->state = GC_NODE_CPU_PARTITION;
        }
    }
    if (S->gpu_nodes > 0) S->delegated = 1;
    r->gpu_nodes += S->gpu_nodes;
    r->partitions += S->delegated;

    /* node subsets the interpreter ends with ("yielding K partitions") */
    if (S->gpu_nodes > 0 && S->gpu_nodes < n && gc_partition(sg, delegated, se, &P)) {
        S->node_subsets = P.n_subsets;
        gc_partitioning_free(&P);
    } else {
        S->node_subsets = 1;
    }

    /* composites lowered by the GPU make their decomposition subgraph skippable */
    if (R->target == GC_TARGET_MLDRIFT)
        for (int32_t i = 0; i < n; i++) {
            if (!nodes[i].gpu || nodes[i].builtin != GC_OP_STABLEHLO_COMPOSITE) continue;
            const gc_options *o = &sg->ops[i].opt2;
            if (o->type != GC_BO2_StableHLOCompositeOptions) continue;
            int64_t d = gc_opt_int(o, GC_O_StableHLOCompositeOptions_decomposition_subgraph_index);
            if (d > 0 && d < m->n_subgraphs) R->skippable[d] = 1;
        }

    gc_lint_subgraph(m, s, &g, tf, R->target, lint_sink, &R->lints);
    gc_graph_free(&g);
    free(tf); free(supported); free(se); free(fp16dq); free(delegated); free(remap); free(inbuf);
    return true;
}

gc_check_result *gc_check(const gc_model *m, gc_target target, char *err, size_t errlen) {
    return gc_check_ex(m, target, NULL, err, errlen);
}

gc_check_result *gc_check_ex(const gc_model *m, gc_target target, const gc_check_opts *opts, char *err,
                             size_t errlen) {
    /* the measured facts (numerics.c): the selected runtime's, ML Drift only */
    const gc_gpu_facts *facts = opts && opts->facts ? opts->facts : &gc_gpu_facts_builtin;
    const char *rt_name = opts ? opts->runtime : NULL;
    const gc_gpu_runtime *rt = target == GC_TARGET_MLDRIFT ? gc_facts_runtime(facts, rt_name) : NULL;
    int precision = opts && opts->precision ? opts->precision : GC_FPREC_FP32;
    if (rt_name && rt_name[0] && !gc_facts_runtime(facts, rt_name)) {
        gc_errf(err, errlen, "unknown runtime '%s' (gpuclean check --list-runtimes)", rt_name);
        return NULL;
    }
    if (precision != GC_FPREC_FP32 && precision != GC_FPREC_FP16) {
        gc_errf(err, errlen, "unknown precision %d (fp32 or fp16)", precision);
        return NULL;
    }
    gc_check_result *r = calloc(1, sizeof *r);
    if (!r) { gc_errf(err, errlen, "out of memory"); return NULL; }
    r->target = target;
    r->facts = facts; r->runtime = rt; r->precision = precision;
    int32_t total = 0;
    for (int32_t s = 0; s < m->n_subgraphs; s++) total += m->subgraphs[s].n_ops;
    r->n_nodes = total;
    r->nodes = gc_arena_alloc(&r->arena, sizeof(gc_check_node) * (size_t)(total ? total : 1));
    r->n_subgraphs = m->n_subgraphs;
    r->subgraphs = gc_arena_alloc(&r->arena, sizeof(gc_check_subgraph) * (size_t)(m->n_subgraphs ? m->n_subgraphs : 1));
    run R = { .r = r, .m = m, .target = target };
    R.skippable = calloc((size_t)(m->n_subgraphs ? m->n_subgraphs : 1), 1);
    if (!r->nodes || !r->subgraphs || !R.skippable) {
        free(R.skippable);
        gc_check_free(r);
        gc_errf(err, errlen, "out of memory");
        return NULL;
    }
    /* a dynamic-sized tensor anywhere makes ModifyGraphWithDelegate fail before the
     * delegate sees the graph (tflite/core/subgraph.cc, §2.5) */
    for (int32_t s = 0; s < m->n_subgraphs && !r->model_error; s++) {
        const gc_subgraph *sg = &m->subgraphs[s];
        if (sg->name && !strncmp(sg->name, "VALIDATION:", 11)) continue;
        uint8_t *tf = malloc((size_t)(sg->n_tensors ? sg->n_tensors : 1));
        if (!tf) continue;
        int32_t first_dyn = tensor_flags(m, sg, tf);
        if (first_dyn >= 0)
            r->model_error = afmt(&r->arena, "Attempting to use a delegate that only supports static-sized tensors "
                                  "with a graph that has dynamic-sized tensors (tensor#%d is a dynamic-sized tensor).",
                                  first_dyn);
        free(tf);
    }
    int32_t base = 0;
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        if (!check_subgraph(&R, s, r->nodes + base)) {
            gc_errf(err, errlen, "%s", R.err);
            free(R.skippable); free(R.lints.v);
            gc_check_free(r);
            return NULL;
        }
        base += m->subgraphs[s].n_ops;
    }
    /* kernel building on the selected runtime: measured init_failed facts */
    bool mem = gc_numerics_init_failed(r, m);
    if (r->fatal) {   /* "Restored original execution plan after delegate application failure." */
        for (int32_t i = 0; i < r->n_nodes; i++)
            if (r->nodes[i].gpu) { r->nodes[i].gpu = false; r->nodes[i].state = GC_NODE_INIT_FAILED; }
        for (int32_t s = 0; s < r->n_subgraphs; s++) { r->subgraphs[s].gpu_nodes = 0; r->subgraphs[s].delegated = 0; }
        for (int32_t i = 0; i < R.n_parts; i++) r->parts[i].delegated = false;
        r->gpu_nodes = 0;
        r->partitions = 0;
    }
    r->n_partitions = R.n_parts;
    r->n_risks = R.lints.n;
    r->risks = gc_arena_alloc(&r->arena, sizeof(gc_check_risk) * (size_t)(R.lints.n ? R.lints.n : 1));
    for (int32_t i = 0; r->risks && i < R.lints.n; i++) {
        const gc_lint *l = &R.lints.v[i];
        r->risks[i] = (gc_check_risk){ l->sg, l->node, l->rule, l->level, adup(&r->arena, l->msg),
                                       l->fix ? l->fix : "" };
    }
    if (!r->risks) r->n_risks = 0;
    free(R.skippable); free(R.lints.v);
    r->gpu_clean = r->gpu_nodes == r->total_nodes && !r->fatal && !r->model_error;
    if (!mem || !gc_numerics_apply(r, m)) {   /* per-node numerics: measured facts, risk lints */
        gc_check_free(r);
        gc_errf(err, errlen, "out of memory applying the measured GPU facts");
        return NULL;
    }
    return r;
}

void gc_check_free(gc_check_result *r) {
    if (!r) return;
    gc_arena_free(&r->arena);
    free(r);
}

int32_t gc_check_gpu_nodes(const gc_check_result *r, int32_t subgraph) {
    if (subgraph < 0 || subgraph >= r->n_subgraphs) return -1;
    return r->subgraphs[subgraph].gpu_nodes;
}
