/* numerics.c — the engine of measured GPU facts (numerics.h): the node features a fact's
 * conditions read, the one matcher, and the two places gpuclean check applies facts —
 * kernel building (init_failed: the whole model falls back to the CPU) and the per-node
 * numerics verdict (wrong / risk / ok). Decides from data only: every measured fact is a
 * row of a gc_gpu_facts table (data/gpu/facts.tsv -> gpu_facts_table.c); nothing here
 * knows an op's miscompute.
 *
 * Features (data/gpu/README-facts.md is the reference; tools/gpu_facts.py validates the
 * same grammar):
 *   n_in, n_out             present input / output slots
 *   version                 the opcode's version
 *   in<k>.F, out<k>.F       field F of input / output slot k (undefined when absent)
 *   in*.F, out*.F           any input / output: the condition holds if it holds for one
 *   lo.F, hi.F              the lower- / higher-rank operand of a 2-input node whose ranks differ
 *   F = dtype (FLOAT32, ...), rank, dim<j> (static dim j), const (0/1), producer (opcode name
 *       of the producing op, "input" or "const"), producer_gpu (0/1: that op runs on the
 *       GPU; undefined for constants and inputs), graph_input, graph_output (0/1), consumed
 *       (distinct consumer ops), numel, quant (none, per_tensor, per_channel, blockwise,
 *       custom: the quantization details, blockwise/custom first)
 *   opt.<name>              scalar builtin option by schema field name (its default when the
 *                           file omits it; bools 0/1; enums as numbers)
 *   bcast                   2-input nodes: "<rank of in0>x<rank of in1>"
 *   rank_mismatch_lead      ranks differ: product of hi's leading dims that lo lacks
 *   bcast_meet              ranks differ: hi's dim that lo's dim 0 aligns with (hi.dim<hi.rank-lo.rank>)
 *   axis, axis_size         the op's one axis (normalised to 0..rank-1) and its size: SOFTMAX,
 *                           LOG_SOFTMAX, L2_NORMALIZATION (last), CUMSUM, reductions over one
 *                           axis, ARG_MAX/MIN, GATHER, CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V
 *   reduce_size             elements combined per output value: reductions (product of the
 *                           reduced dims), ARG_MAX/MIN, SOFTMAX / LOG_SOFTMAX / L2_NORMALIZATION
 *                           and CUMSUM (axis_size)
 *   axis_raw                that axis as the model gives it, before normalisation (CUMSUM's -1
 *                           stays -1); undefined where the op's axis is implicit (SOFTMAX)
 *   groups                  CONV_2D: input channels / the filter's input channels (in0.dim3 /
 *                           in1.dim3; 1 for a plain conv), when both are static and divide
 *   group_out               CONV_2D: output channels per group (in1.dim0 / groups), when
 *                           groups is defined and divides the filter's output channels
 *   composite               STABLEHLO_COMPOSITE: the composite's name (odml.group_norm)
 *   in<k>.producer.KEY      KEY (any key above but another producer.KEY) evaluated on the op
 *   in*.producer.KEY        that writes input k (in*: any input; lo., hi. likewise); undefined
 *                           for a constant or a tensor nobody writes. in1.producer.in0.dtype is
 *                           the dtype DEQUANTIZE read; in0.producer.opt.axis an UNPACK's axis.
 * A condition on an undefined feature is false, "!=" included.
 */
#include "check_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gc_fact_precision_name(int p) { return p == GC_FPREC_FP32 ? "fp32" : p == GC_FPREC_FP16 ? "fp16" : "any"; }

const char *gc_fact_verdict_name(int v) {
    return v == GC_FACT_WRONG ? "wrong" : v == GC_FACT_INIT_FAILED ? "init_failed" : v == GC_FACT_OK ? "ok"
         : v == GC_FACT_CRASHED ? "crashed" : "?";
}

const char *gc_numerics_name(gc_numerics n) { return n == GC_NUM_WRONG ? "wrong" : n == GC_NUM_RISK ? "risk" : "ok"; }

/* ---- the table ----------------------------------------------------------------------------- */

/* "2.3" names version "2.3.0" (a prefix ending at a dot), "2.3.0" itself */
static bool version_matches(const char *want, const char *have) {
    size_t n = strlen(want);
    return !strncmp(want, have, n) && (have[n] == 0 || have[n] == '.');
}

const gc_gpu_runtime *gc_facts_runtime(const gc_gpu_facts *t, const char *name) {
    if (!t) return NULL;
    const gc_gpu_runtime *best = NULL;
    if (!name || !name[0]) {
        for (int i = 0; i < t->n_runtimes; i++) if (t->runtimes[i].is_default) return &t->runtimes[i];
        return NULL;
    }
    for (int i = 0; i < t->n_runtimes; i++) if (!strcmp(t->runtimes[i].name, name)) return &t->runtimes[i];
    const char *dash = strchr(name, '-');
    size_t kn = dash ? (size_t)(dash - name) : strlen(name);
    for (int i = 0; i < t->n_runtimes; i++) {
        const gc_gpu_runtime *rt = &t->runtimes[i];
        if (strlen(rt->kind) != kn || strncmp(rt->kind, name, kn)) continue;
        if (dash) {
            if (dash[1] && version_matches(dash + 1, rt->version)) return rt;
            continue;
        }
        if (rt->is_default) return rt;             /* "native": the default of that kind, else the last listed */
        best = rt;
    }
    return best;
}

const gc_gpu_fact *gc_facts_find(const gc_gpu_facts *t, const char *id) {
    for (int i = 0; t && id && i < t->n_facts; i++) if (!strcmp(t->facts[i].id, id)) return &t->facts[i];
    return NULL;
}

int gc_facts_count(const gc_gpu_facts *t, const char *runtime, const char *device) {
    int n = 0;
    for (int i = 0; t && i < t->n_facts; i++)
        n += (!runtime || !strcmp(t->facts[i].runtime, runtime)) && (!device || !strcmp(t->facts[i].device, device));
    return n;
}

/* ---- keys ---------------------------------------------------------------------------------- */

typedef enum { K_N_IN, K_N_OUT, K_VERSION, K_BCAST, K_LEAD, K_MEET, K_AXIS, K_AXIS_SIZE, K_REDUCE_SIZE, K_AXIS_RAW,
               K_GROUPS, K_GROUP_OUT, K_COMPOSITE, K_OPT, K_TENSOR } kkind;
typedef enum { S_IN, S_OUT, S_IN_ANY, S_OUT_ANY, S_LO, S_HI } tsel;
typedef enum { F_DTYPE, F_RANK, F_DIM, F_CONST, F_PRODUCER, F_PRODUCER_GPU, F_GRAPH_INPUT, F_GRAPH_OUTPUT,
               F_CONSUMED, F_NUMEL, F_QUANT } tfield;
typedef struct {
    kkind kind;
    tsel sel;
    int slot;                /* in<k> / out<k> */
    tfield field;
    int dim;                 /* dim<j> */
    const char *opt;         /* opt.<name>: the name */
    /* <via_sel>.producer.<the key above>: evaluated on the op writing that input */
    bool via;
    tsel via_sel;            /* S_IN, S_IN_ANY, S_LO or S_HI */
    int via_slot;
} pkey;

#define MAX_SLOT 63
#define MAX_DIM 15

static const struct { const char *name; kkind kind; } node_keys[] = {
    { "n_in", K_N_IN }, { "n_out", K_N_OUT }, { "version", K_VERSION }, { "bcast", K_BCAST },
    { "rank_mismatch_lead", K_LEAD }, { "bcast_meet", K_MEET }, { "axis", K_AXIS }, { "axis_size", K_AXIS_SIZE },
    { "reduce_size", K_REDUCE_SIZE }, { "axis_raw", K_AXIS_RAW }, { "groups", K_GROUPS },
    { "group_out", K_GROUP_OUT }, { "composite", K_COMPOSITE } };
static const struct { const char *name; tfield f; } tensor_keys[] = {
    { "dtype", F_DTYPE }, { "rank", F_RANK }, { "const", F_CONST }, { "producer", F_PRODUCER },
    { "producer_gpu", F_PRODUCER_GPU }, { "graph_input", F_GRAPH_INPUT }, { "graph_output", F_GRAPH_OUTPUT },
    { "consumed", F_CONSUMED }, { "numel", F_NUMEL }, { "quant", F_QUANT } };

/* a small decimal at s (no sign, 1-2 digits); its length, 0 when none */
static int small_int(const char *s, int *v) {
    int n = 0;
    *v = 0;
    while (s[n] >= '0' && s[n] <= '9' && n < 2) { *v = *v * 10 + (s[n] - '0'); n++; }
    return (s[n] >= '0' && s[n] <= '9') ? 0 : n;
}

/* "in<k>." / "in*." / "out<k>." / "out*." / "lo." / "hi." at key: the selection and the
 * rest after the dot; NULL when key starts with none of them */
static const char *parse_sel(const char *key, tsel *sel, int *slot) {
    *slot = 0;
    if (!strncmp(key, "lo.", 3)) { *sel = S_LO; return key + 3; }
    if (!strncmp(key, "hi.", 3)) { *sel = S_HI; return key + 3; }
    bool in = !strncmp(key, "in", 2), out = !strncmp(key, "out", 3);
    if (!in && !out) return NULL;
    const char *s = key + (in ? 2 : 3);
    if (*s == '*') { *sel = in ? S_IN_ANY : S_OUT_ANY; s++; }
    else {
        int len = small_int(s, slot);
        if (!len || *slot > MAX_SLOT) return NULL;
        *sel = in ? S_IN : S_OUT;
        s += len;
    }
    return *s == '.' ? s + 1 : NULL;
}

static bool parse_plain_key(const char *key, pkey *k) {
    for (size_t i = 0; i < sizeof node_keys / sizeof node_keys[0]; i++)
        if (!strcmp(key, node_keys[i].name)) { k->kind = node_keys[i].kind; return true; }
    if (!strncmp(key, "opt.", 4)) {
        const char *s = key + 4;
        if (!*s) return false;
        for (const char *p = s; *p; p++) if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
        k->kind = K_OPT; k->opt = s;
        return true;
    }
    k->kind = K_TENSOR;
    const char *rest = parse_sel(key, &k->sel, &k->slot);
    if (!rest) return false;
    if (!strncmp(rest, "dim", 3) && rest[3] >= '0' && rest[3] <= '9') {
        int len = small_int(rest + 3, &k->dim);
        if (!len || rest[3 + len] || k->dim > MAX_DIM) return false;
        k->field = F_DIM;
        return true;
    }
    for (size_t i = 0; i < sizeof tensor_keys / sizeof tensor_keys[0]; i++)
        if (!strcmp(rest, tensor_keys[i].name)) { k->field = tensor_keys[i].f; return true; }
    return false;
}

static bool parse_key(const char *key, pkey *k) {
    memset(k, 0, sizeof *k);
    tsel sel;
    int slot;
    const char *rest = parse_sel(key, &sel, &slot);
    if (rest && !strncmp(rest, "producer.", 9)) {   /* in1.producer.in0.dtype: one level */
        if (sel == S_OUT || sel == S_OUT_ANY) return false;   /* an output's producer is the node */
        const char *inner = rest + 9;
        if (!parse_plain_key(inner, k)) return false;   /* a second producer. is not a key */
        k->via = true; k->via_sel = sel; k->via_slot = slot;
        return true;
    }
    return parse_plain_key(key, k);
}

/* ---- feature values ------------------------------------------------------------------------ */

typedef struct {
    const gc_model *m;
    const gc_subgraph *sg;
    const gc_graph *g;
    const gc_op *op;
    int32_t code;
    const uint8_t *on_gpu;   /* per node of the subgraph, may be NULL */
} nctx;

enum { V_NONE = 0, V_NUM, V_STR };
typedef struct {
    int kind;
    double num;
    const char *str;
    char buf[64];            /* "<rank>x<rank>", a composite's name */
} fval;

static void set_num(fval *v, double x) { v->kind = V_NUM; v->num = x; }

static int32_t slot_tensor(const nctx *c, bool out, int k) {
    int32_t n = out ? c->op->n_outputs : c->op->n_inputs;
    if (k < 0 || k >= n) return -1;
    int32_t t = out ? c->op->outputs[k] : c->op->inputs[k];
    return (t >= 0 && t < c->sg->n_tensors) ? t : -1;
}

static int present(const nctx *c, bool out) {
    int n = 0, k = out ? c->op->n_outputs : c->op->n_inputs;
    for (int i = 0; i < k; i++) n += slot_tensor(c, out, i) >= 0;
    return n;
}

/* the two operands of a 2-input node (slots 0 and 1, nothing else present) */
static bool two_operands(const nctx *c, const gc_tensor **a, const gc_tensor **b) {
    int32_t ta = slot_tensor(c, false, 0), tb = slot_tensor(c, false, 1);
    if (ta < 0 || tb < 0 || present(c, false) != 2) return false;
    *a = &c->sg->tensors[ta]; *b = &c->sg->tensors[tb];
    return true;
}

/* lower- and higher-rank operand: slot indices, false when the ranks are equal */
static bool lo_hi(const nctx *c, int32_t *lo, int32_t *hi) {
    const gc_tensor *a, *b;
    if (!two_operands(c, &a, &b) || a->rank == b->rank) return false;
    int32_t ta = slot_tensor(c, false, 0), tb = slot_tensor(c, false, 1);
    *lo = a->rank < b->rank ? ta : tb;
    *hi = a->rank < b->rank ? tb : ta;
    return true;
}

static bool tensor_is_const(const nctx *c, int32_t t) {
    const gc_tensor *x = &c->sg->tensors[t];
    return !x->is_variable && gc_tensor_is_const(c->m, x);
}

static bool in_list(const int32_t *v, int32_t n, int32_t t) {
    for (int32_t i = 0; i < n; i++) if (v[i] == t) return true;
    return false;
}

static void tensor_value(const nctx *c, int32_t t, const pkey *k, fval *v) {
    const gc_tensor *x = &c->sg->tensors[t];
    int32_t p = c->g->producer[t];
    switch (k->field) {
    case F_DTYPE: v->kind = V_STR; v->str = gc_type_name(x->type); return;
    case F_RANK: set_num(v, x->rank); return;
    case F_DIM: if (k->dim < x->rank && x->shape) set_num(v, x->shape[k->dim]); return;
    case F_CONST: set_num(v, tensor_is_const(c, t)); return;
    case F_PRODUCER:
        v->kind = V_STR;
        v->str = tensor_is_const(c, t) ? "const" : p >= 0 ? gc_op_name(c->m, &c->sg->ops[p]) : "input";
        return;
    case F_PRODUCER_GPU: if (p >= 0 && !tensor_is_const(c, t)) set_num(v, c->on_gpu ? c->on_gpu[p] != 0 : 0); return;
    case F_GRAPH_INPUT: set_num(v, in_list(c->sg->inputs, c->sg->n_inputs, t)); return;
    case F_GRAPH_OUTPUT: set_num(v, in_list(c->sg->outputs, c->sg->n_outputs, t)); return;
    case F_CONSUMED: {
        int32_t n = 0;   /* the consumer list is in op order: an op that reads t twice is adjacent */
        for (int32_t j = c->g->cons_off[t]; j < c->g->cons_off[t + 1]; j++)
            n += j == c->g->cons_off[t] || c->g->cons[j] != c->g->cons[j - 1];
        set_num(v, n);
        return;
    }
    case F_NUMEL: {
        uint64_t n = gc_tensor_numel(x);
        if (n != UINT64_MAX) set_num(v, (double)n);
        return;
    }
    case F_QUANT: {   /* how the tensor is quantized: blockwise / custom details first */
        const gc_quant *q = x->quant;
        v->kind = V_STR;
        if (q && q->details_type == 2) v->str = "blockwise";
        else if (q && q->details_type == 1) v->str = "custom";
        else if (q && q->n_scale > 1) v->str = "per_channel";
        else if (q && q->n_scale == 1) v->str = "per_tensor";
        else v->str = "none";
        return;
    }
    }
}

/* constant int element i of tensor t */
static bool const_int(const nctx *c, int32_t t, uint64_t i, int64_t *out) {
    if (t < 0 || !tensor_is_const(c, t)) return false;
    const gc_tensor *x = &c->sg->tensors[t];
    const gc_buffer *b = gc_tensor_buffer(c->m, x);
    if (!b || !b->data) return false;
    if (x->type == GC_T_INT32 && i < b->size / 4) { int32_t y; memcpy(&y, b->data + i * 4, 4); *out = y; return true; }
    if (x->type == GC_T_INT64 && i < b->size / 8) { memcpy(out, b->data + i * 8, 8); return true; }
    return false;
}

static bool norm_axis(int64_t a, int32_t rank, int32_t *out) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return false;
    *out = (int32_t)a;
    return true;
}

/* builtin option `name` of the node: from the op's table (or the options the file
 * carries), its schema default when absent; false when the op has no such scalar field */
static bool opt_value(const nctx *c, const char *name, fval *v) {
    for (int second = 0; second < 2; second++) {
        const gc_options *o = second ? &c->op->opt2 : &c->op->opt;
        int type = o->type ? o->type : second ? gc_builtin_options2_type(c->code) : gc_builtin_options_type(c->code);
        int count = second ? gc_opt2_tables_count : gc_opt_tables_count;
        if (type <= 0 || type >= count) continue;
        const gc_opt_table_def *def = second ? &gc_opt2_tables[type] : &gc_opt_tables[type];
        if (!def->name) continue;
        for (int f = 0; f < def->n_fields; f++) {
            const gc_opt_field_def *fd = &def->fields[f];
            if (!fd->name || strcmp(fd->name, name)) continue;
            bool fl = fd->kind == GC_F_F32 || fd->kind == GC_F_F64;
            if (fd->kind < GC_F_BOOL || fd->kind > GC_F_F64) return false;   /* vectors, strings */
            bool have = o->type == type && o->v && f < o->n_v;
            set_num(v, have ? (fl ? o->v[f].f : (double)o->v[f].i) : fd->dflt);
            return true;
        }
    }
    return false;
}

/* the one axis of the op and its size, the elements combined per output value, and the
 * axis as the model wrote it (*have_raw false when the op's axis is implicit) */
static void axis_features(const nctx *c, int32_t *axis, int64_t *axis_size, int64_t *reduce, int64_t *raw,
                          bool *have_raw) {
    *axis = -1; *axis_size = -1; *reduce = -1; *raw = 0; *have_raw = false;
    int32_t data = slot_tensor(c, false, 0), at = -1;
    int64_t a = 0;
    bool have = false, implicit = false;
    switch (c->code) {
    case GC_OP_SOFTMAX: case GC_OP_LOG_SOFTMAX: case GC_OP_L2_NORMALIZATION:
        a = -1; have = true; implicit = true; break;
    case GC_OP_CUMSUM: case GC_OP_ARG_MAX: case GC_OP_ARG_MIN:
        at = slot_tensor(c, false, 1);
        have = at >= 0 && gc_tensor_numel(&c->sg->tensors[at]) == 1 && const_int(c, at, 0, &a);
        break;
    case GC_OP_SUM: case GC_OP_MEAN: case GC_OP_REDUCE_MAX: case GC_OP_REDUCE_MIN: case GC_OP_REDUCE_PROD:
    case GC_OP_REDUCE_ANY: case GC_OP_REDUCE_ALL: {
        at = slot_tensor(c, false, 1);
        if (data < 0 || at < 0) return;
        const gc_tensor *x = &c->sg->tensors[data];
        uint64_t n = gc_tensor_numel(&c->sg->tensors[at]);
        uint64_t seen = 0;
        int64_t prod = 1;
        int32_t one = -1, count = 0;
        int64_t one_raw = 0;
        for (uint64_t i = 0; i < n && i < 64; i++) {
            int64_t ai;
            int32_t ax;
            if (!const_int(c, at, i, &ai) || !norm_axis(ai, x->rank, &ax) || !x->shape) return;
            if (ax >= 64 || (seen >> ax & 1)) continue;
            seen |= 1ull << ax;
            prod *= x->shape[ax];
            one = ax; one_raw = ai; count++;
        }
        *reduce = prod;
        if (count == 1) { *axis = one; *axis_size = x->shape[one]; *raw = one_raw; *have_raw = true; }
        return;
    }
    case GC_OP_GATHER: case GC_OP_CONCATENATION: case GC_OP_PACK: case GC_OP_UNPACK: {
        fval v = {0};
        have = opt_value(c, "axis", &v);
        a = (int64_t)v.num;
        if (c->code == GC_OP_CONCATENATION || c->code == GC_OP_PACK) data = slot_tensor(c, true, 0);
        break;
    }
    case GC_OP_SPLIT:
        data = slot_tensor(c, false, 1);
        at = slot_tensor(c, false, 0);
        have = at >= 0 && const_int(c, at, 0, &a);
        break;
    case GC_OP_SPLIT_V:
        at = slot_tensor(c, false, 2);
        have = at >= 0 && const_int(c, at, 0, &a);
        break;
    default: return;
    }
    if (!have || data < 0) return;
    const gc_tensor *x = &c->sg->tensors[data];
    if (!x->shape || !norm_axis(a, x->rank, axis)) { *axis = -1; return; }
    *raw = a; *have_raw = !implicit;
    *axis_size = x->shape[*axis];
    if (c->code == GC_OP_SOFTMAX || c->code == GC_OP_LOG_SOFTMAX || c->code == GC_OP_L2_NORMALIZATION ||
        c->code == GC_OP_CUMSUM || c->code == GC_OP_ARG_MAX || c->code == GC_OP_ARG_MIN)
        *reduce = *axis_size;
}

/* the value of a non-quantified key */
static void node_value(const nctx *c, const pkey *k, fval *v) {
    memset(v, 0, sizeof *v);
    const gc_tensor *a, *b;
    int32_t lo, hi;
    switch (k->kind) {
    case K_N_IN: set_num(v, present(c, false)); return;
    case K_N_OUT: set_num(v, present(c, true)); return;
    case K_VERSION: set_num(v, gc_op_code(c->m, c->op)->version); return;
    case K_BCAST:
        if (!two_operands(c, &a, &b)) return;
        snprintf(v->buf, sizeof v->buf, "%dx%d", a->rank, b->rank);
        v->kind = V_STR; v->str = v->buf;
        return;
    case K_LEAD: case K_MEET: {
        if (!lo_hi(c, &lo, &hi)) return;
        const gc_tensor *L = &c->sg->tensors[lo], *H = &c->sg->tensors[hi];
        int32_t miss = H->rank - L->rank;
        if (!H->shape) return;
        if (k->kind == K_MEET) { if (L->rank >= 1) set_num(v, H->shape[miss]); return; }
        double prod = 1;
        for (int32_t d = 0; d < miss; d++) prod *= H->shape[d];
        set_num(v, prod);
        return;
    }
    case K_AXIS: case K_AXIS_SIZE: case K_REDUCE_SIZE: case K_AXIS_RAW: {
        int32_t axis;
        int64_t size, reduce, raw;
        bool have_raw;
        axis_features(c, &axis, &size, &reduce, &raw, &have_raw);
        if (k->kind == K_AXIS_RAW) { if (have_raw) set_num(v, (double)raw); return; }
        int64_t x = k->kind == K_AXIS ? axis : k->kind == K_AXIS_SIZE ? size : reduce;
        if (x >= 0) set_num(v, (double)x);
        return;
    }
    case K_GROUPS:
    case K_GROUP_OUT: {   /* CONV_2D: x [N,H,W,C], filter [OC,KH,KW,C/groups] */
        int32_t tx = slot_tensor(c, false, 0), tw = slot_tensor(c, false, 1);
        if (c->code != GC_OP_CONV_2D || tx < 0 || tw < 0) return;
        const gc_tensor *x = &c->sg->tensors[tx], *w = &c->sg->tensors[tw];
        if (x->rank != 4 || w->rank != 4 || !x->shape || !w->shape) return;
        int32_t cin = x->shape[3], cg = w->shape[3];
        if (cin <= 0 || cg <= 0 || cin % cg) return;
        int32_t groups = cin / cg, oc = w->shape[0];
        if (k->kind == K_GROUPS) set_num(v, groups);
        else if (oc > 0 && oc % groups == 0) set_num(v, oc / groups);
        return;
    }
    case K_COMPOSITE: {   /* STABLEHLO_COMPOSITE: its name (odml.group_norm), in builtin_options_2 */
        const gc_options *o = &c->op->opt2;
        uint32_t nl = 0;
        const char *name = c->code == GC_OP_STABLEHLO_COMPOSITE && o->type == GC_BO2_StableHLOCompositeOptions
                               ? gc_opt_vec(o, GC_O_StableHLOCompositeOptions_name, &nl) : NULL;
        if (!name || nl >= sizeof v->buf) return;
        memcpy(v->buf, name, nl);
        v->buf[nl] = 0;
        v->kind = V_STR; v->str = v->buf;
        return;
    }
    case K_OPT: opt_value(c, k->opt, v); return;
    case K_TENSOR: {
        int32_t t = -1;
        if (k->sel == S_IN || k->sel == S_OUT) t = slot_tensor(c, k->sel == S_OUT, k->slot);
        else if ((k->sel == S_LO || k->sel == S_HI) && lo_hi(c, &lo, &hi)) t = k->sel == S_LO ? lo : hi;
        if (t >= 0) tensor_value(c, t, k, v);
        return;
    }
    }
}

/* ---- conditions ---------------------------------------------------------------------------- */

/* the whole of s[0..n) as a number */
static bool parse_num(const char *s, size_t n, double *out) {
    char buf[64];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    *out = strtod(buf, &end);
    return *end == 0;
}

static bool equals_one(const fval *v, const char *alt, size_t n) {
    double d;
    if (v->kind == V_NUM) return parse_num(alt, n, &d) && d == v->num;
    return v->kind == V_STR && strlen(v->str) == n && !memcmp(v->str, alt, n);
}

static bool holds(const fval *v, const gc_fact_cond *cd) {
    if (v->kind == V_NONE) return false;
    const char *s = cd->value ? cd->value : "";
    if (cd->cmp == GC_FC_EQ || cd->cmp == GC_FC_NE) {
        bool any = false;
        for (const char *p = s;;) {
            const char *e = strchr(p, '|');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (equals_one(v, p, n)) { any = true; break; }
            if (!e) break;
            p = e + 1;
        }
        return cd->cmp == GC_FC_EQ ? any : !any;
    }
    double x;
    if (v->kind != V_NUM || !parse_num(s, strlen(s), &x)) return false;
    switch (cd->cmp) {
    case GC_FC_GT: return v->num > x;
    case GC_FC_LT: return v->num < x;
    case GC_FC_GE: return v->num >= x;
    case GC_FC_LE: return v->num <= x;
    default: return false;
    }
}

/* the condition on node c, key k not via a producer */
static bool holds_on(const nctx *c, const pkey *k, const gc_fact_cond *cd) {
    if (k->kind == K_TENSOR && (k->sel == S_IN_ANY || k->sel == S_OUT_ANY)) {
        bool out = k->sel == S_OUT_ANY;
        int n = out ? c->op->n_outputs : c->op->n_inputs;
        for (int i = 0; i < n; i++) {
            int32_t t = slot_tensor(c, out, i);
            if (t < 0) continue;
            fval v;
            memset(&v, 0, sizeof v);
            tensor_value(c, t, k, &v);
            if (holds(&v, cd)) return true;
        }
        return false;
    }
    fval v;
    node_value(c, k, &v);
    return holds(&v, cd);
}

/* the ops writing the inputs a via key selects (in<k>, in*, lo, hi): up to n op indices,
 * each once; constants and tensors nobody writes have none */
static int via_producers(const nctx *c, const pkey *k, int32_t *ops, int n) {
    int32_t ts[MAX_SLOT + 1];
    int nt = 0, got = 0;
    int32_t lo, hi;
    if (k->via_sel == S_IN) ts[nt++] = slot_tensor(c, false, k->via_slot);
    else if (k->via_sel == S_IN_ANY)
        for (int i = 0; i < c->op->n_inputs && nt <= MAX_SLOT; i++) ts[nt++] = slot_tensor(c, false, i);
    else if (lo_hi(c, &lo, &hi)) ts[nt++] = k->via_sel == S_LO ? lo : hi;
    for (int i = 0; i < nt && got < n; i++) {
        int32_t t = ts[i];
        if (t < 0 || tensor_is_const(c, t) || c->g->producer[t] < 0) continue;
        int32_t p = c->g->producer[t];
        bool dup = false;
        for (int j = 0; j < got; j++) dup |= ops[j] == p;
        if (!dup) ops[got++] = p;
    }
    return got;
}

static nctx at_op(const nctx *c, int32_t op) {
    nctx p = *c;
    p.op = &c->sg->ops[op];
    p.code = gc_op_builtin(c->m, p.op);
    return p;
}

static bool cond_holds(const nctx *c, const gc_fact_cond *cd) {
    pkey k;
    if (!cd->key || !parse_key(cd->key, &k)) return false;
    if (!k.via) return holds_on(c, &k, cd);
    int32_t ops[MAX_SLOT + 1];
    int n = via_producers(c, &k, ops, MAX_SLOT + 1);
    for (int i = 0; i < n; i++) {
        nctx p = at_op(c, ops[i]);
        if (holds_on(&p, &k, cd)) return true;
    }
    return false;
}

static bool op_matches(const char *pattern, const char *name) {
    if (!pattern || !strcmp(pattern, "*")) return true;
    size_t len = strlen(name);
    for (const char *p = pattern;;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == len && !memcmp(p, name, n)) return true;
        if (!e) return false;
        p = e + 1;
    }
}

static bool matches(const gc_gpu_fact *f, const nctx *c) {
    if (!op_matches(f->op, gc_op_name(c->m, c->op))) return false;
    for (int i = 0; i < f->n_cond; i++) if (!cond_holds(c, &f->cond[i])) return false;
    return true;
}

static bool with_node(const gc_model *m, int32_t sg, int32_t node, const uint8_t *on_gpu, gc_graph *g, nctx *c) {
    if (!m || sg < 0 || sg >= m->n_subgraphs || node < 0 || node >= m->subgraphs[sg].n_ops) return false;
    if (!gc_graph_build(&m->subgraphs[sg], g)) return false;
    const gc_op *op = &m->subgraphs[sg].ops[node];
    *c = (nctx){ m, &m->subgraphs[sg], g, op, gc_op_builtin(m, op), on_gpu };
    return true;
}

bool gc_fact_feature(const gc_model *m, int32_t sg, int32_t node, const char *key, const uint8_t *on_gpu,
                     char *buf, size_t n) {
    if (n) buf[0] = 0;
    pkey k;
    gc_graph g;
    nctx c;
    if (!key || !parse_key(key, &k) || !with_node(m, sg, node, on_gpu, &g, &c)) return false;
    fval v;
    memset(&v, 0, sizeof v);
    int32_t ops[MAX_SLOT + 1];
    int n_at = 1;
    if (k.via) n_at = via_producers(&c, &k, ops, MAX_SLOT + 1);
    for (int j = 0; j < n_at && v.kind == V_NONE; j++) {
        nctx at = k.via ? at_op(&c, ops[j]) : c;
        if (k.kind == K_TENSOR && (k.sel == S_IN_ANY || k.sel == S_OUT_ANY)) {
            bool out = k.sel == S_OUT_ANY;
            for (int i = 0, cnt = out ? at.op->n_outputs : at.op->n_inputs; i < cnt && v.kind == V_NONE; i++) {
                int32_t t = slot_tensor(&at, out, i);
                if (t >= 0) tensor_value(&at, t, &k, &v);
            }
        } else {
            node_value(&at, &k, &v);
        }
    }
    gc_graph_free(&g);
    if (v.kind == V_STR) snprintf(buf, n, "%s", v.str);
    else if (v.kind == V_NUM && v.num == (double)(long long)v.num) snprintf(buf, n, "%lld", (long long)v.num);
    else if (v.kind == V_NUM) snprintf(buf, n, "%.17g", v.num);
    return v.kind != V_NONE;
}

bool gc_fact_matches(const gc_gpu_fact *f, const gc_model *m, int32_t sg, int32_t node, const uint8_t *on_gpu) {
    gc_graph g;
    nctx c;
    if (!f || !with_node(m, sg, node, on_gpu, &g, &c)) return false;
    bool ok = matches(f, &c);
    gc_graph_free(&g);
    return ok;
}

/* ---- validation ---------------------------------------------------------------------------- */

static bool opt_name_known(const char *name) {
    for (int second = 0; second < 2; second++) {
        const gc_opt_table_def *tabs = second ? gc_opt2_tables : gc_opt_tables;
        for (int t = 1, n = second ? gc_opt2_tables_count : gc_opt_tables_count; t < n; t++)
            for (int f = 0; tabs[t].name && f < tabs[t].n_fields; f++)
                if (tabs[t].fields[f].name && !strcmp(tabs[t].fields[f].name, name)) return true;
    }
    return false;
}

static bool op_pattern_known(const char *pattern) {
    if (!pattern || !*pattern) return false;
    if (!strcmp(pattern, "*")) return true;
    char name[64];
    for (const char *p = pattern;;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!n || n >= sizeof name) return false;
        memcpy(name, p, n);
        name[n] = 0;
        if (gc_builtin_from_name(name) < 0) return false;   /* custom ops: a name we cannot check */
        if (!e) return true;
        p = e + 1;
    }
}

bool gc_facts_validate(const gc_gpu_facts *t, char *err, size_t errlen) {
    if (!t) { gc_errf(err, errlen, "no facts table"); return false; }
    int defaults = 0;
    for (int i = 0; i < t->n_runtimes; i++) defaults += t->runtimes[i].is_default;
    if (t->n_runtimes && defaults != 1) {
        gc_errf(err, errlen, "%s: %d default runtimes (want exactly one)", t->source ? t->source : "facts", defaults);
        return false;
    }
    for (int i = 0; i < t->n_facts; i++) {
        const gc_gpu_fact *f = &t->facts[i];
        int line = f->line ? f->line : i + 1;
#define BAD(...) do { char m_[256]; snprintf(m_, sizeof m_, __VA_ARGS__); \
        gc_errf(err, errlen, "%s:%d: %s: %s", t->source ? t->source : "facts", line, f->id ? f->id : "?", m_); \
        return false; } while (0)
        if (!f->id || !f->id[0]) BAD("no id");
        bool rt = false;
        for (int k = 0; k < t->n_runtimes && !rt; k++) rt = !strcmp(t->runtimes[k].name, f->runtime ? f->runtime : "");
        if (!rt) BAD("runtime '%s' is not declared", f->runtime ? f->runtime : "");
        if (!op_pattern_known(f->op)) BAD("unknown op '%s'", f->op ? f->op : "");
        if (f->verdict < GC_FACT_WRONG || f->verdict > GC_FACT_CRASHED) BAD("verdict %d", f->verdict);
        if (f->precision < GC_FPREC_ANY || f->precision > GC_FPREC_FP16) BAD("precision %d", f->precision);
        if (!f->message || !f->message[0]) BAD("no message");
        if (f->n_cond && !f->cond) BAD("%d conditions, none given", f->n_cond);
        for (int k = 0; k < f->n_cond; k++) {
            const gc_fact_cond *cd = &f->cond[k];
            pkey pk;
            if (!cd->key || !parse_key(cd->key, &pk)) BAD("unknown key '%s'", cd->key ? cd->key : "");
            if (pk.kind == K_OPT && !opt_name_known(pk.opt)) BAD("no builtin option is called '%s'", pk.opt);
            if (cd->cmp < GC_FC_EQ || cd->cmp > GC_FC_LE) BAD("condition kind %d", cd->cmp);
            double x;
            if (cd->cmp >= GC_FC_GT && (!cd->value || !parse_num(cd->value, strlen(cd->value), &x)))
                BAD("'%s' compares with '%s', not a number", cd->key, cd->value ? cd->value : "");
        }
#undef BAD
    }
    return true;
}

/* ---- applying the facts in gpuclean check ----------------------------------------------------- */

static bool prec_applies(int fact, int check, bool wrong) {
    if (fact == GC_FPREC_ANY || fact == check) return true;
    return wrong && fact == GC_FPREC_FP32;         /* wrong at fp32: wrong at fp16 too */
}

static char *adup(gc_arena *a, const char *s) { return gc_arena_strdup(a, s ? s : ""); }

static void set_fix(gc_check_result *r, gc_check_node *n, const gc_gpu_fact *f) {
    if (!f->fix || !f->fix[0]) return;
    gc_fix x = gc_fix_by_id(f->fix);
    n->fix_id = adup(&r->arena, f->fix);
    n->fix_torch = x.torch ? x.torch : "";
    n->fix_tflite = x.tflite ? x.tflite : "";
}

/* per subgraph: the node range in r->nodes, a graph, the nodes on the GPU */
typedef struct {
    gc_graph g;
    uint8_t *on_gpu;
    nctx c;
} sgctx;

static bool sg_open(sgctx *s, const gc_model *m, int32_t sgi, const gc_check_node *nodes, bool init) {
    const gc_subgraph *sg = &m->subgraphs[sgi];
    s->on_gpu = calloc((size_t)(sg->n_ops ? sg->n_ops : 1), 1);
    if (!s->on_gpu || !gc_graph_build(sg, &s->g)) { free(s->on_gpu); s->on_gpu = NULL; return false; }
    for (int32_t i = 0; i < sg->n_ops; i++) s->on_gpu[i] = init ? nodes[i].state == GC_NODE_GPU : nodes[i].gpu;
    s->c = (nctx){ m, sg, &s->g, NULL, 0, s->on_gpu };
    return true;
}

static void sg_close(sgctx *s) { gc_graph_free(&s->g); free(s->on_gpu); s->on_gpu = NULL; }

static void sg_node(sgctx *s, int32_t i) {
    s->c.op = &s->c.sg->ops[i];
    s->c.code = gc_op_builtin(s->c.m, s->c.op);
}

static bool facts_apply(const gc_check_result *r) {
    return r->target == GC_TARGET_MLDRIFT && r->runtime && r->facts && gc_facts_count(r->facts, r->runtime->name, NULL);
}

bool gc_numerics_init_failed(gc_check_result *r, const gc_model *m) {
    if (!facts_apply(r) || r->fatal || r->model_error) return true;
    int32_t base = 0;
    for (int32_t s = 0; s < m->n_subgraphs; base += m->subgraphs[s].n_ops, s++) {
        gc_check_node *nodes = r->nodes + base;
        int32_t n = m->subgraphs[s].n_ops, on = 0;
        for (int32_t i = 0; i < n; i++) on += nodes[i].state == GC_NODE_GPU;
        if (!on) continue;
        sgctx S;
        if (!sg_open(&S, m, s, nodes, true)) return false;
        for (int32_t i = 0; i < n && !r->fatal; i++) {
            if (nodes[i].state != GC_NODE_GPU) continue;
            sg_node(&S, i);
            for (int k = 0; k < r->facts->n_facts; k++) {
                const gc_gpu_fact *f = &r->facts->facts[k];
                if (f->verdict != GC_FACT_INIT_FAILED || strcmp(f->runtime, r->runtime->name) ||
                    !prec_applies(f->precision, r->precision, false) || !matches(f, &S.c))
                    continue;
                gc_check_node *nd = &nodes[i];
                nd->fatal = true;
                nd->rule = adup(&r->arena, f->id);
                nd->reason = adup(&r->arena, f->error);
                nd->evidence = f;
                set_fix(r, nd, f);
                r->fatal = adup(&r->arena, f->message);
                break;
            }
        }
        sg_close(&S);
        if (r->fatal) break;
    }
    return true;
}

bool gc_numerics_apply(gc_check_result *r, const gc_model *m) {
    r->wrong_nodes = r->risk_nodes = 0;
    r->gpu_correct = true;
    /* warning-level risk notes per node: the first one's rule */
    const char **lint = calloc((size_t)(r->n_nodes ? r->n_nodes : 1), sizeof *lint);
    int32_t *base = calloc((size_t)(m->n_subgraphs ? m->n_subgraphs : 1), sizeof *base);
    if (!lint || !base) { free(lint); free(base); return false; }
    for (int32_t s = 1; s < m->n_subgraphs; s++) base[s] = base[s - 1] + m->subgraphs[s - 1].n_ops;
    for (int32_t i = 0; i < r->n_risks; i++) {
        const gc_check_risk *k = &r->risks[i];
        if (k->level != GC_RISK_WARN || k->node < 0 || k->subgraph < 0 || k->subgraph >= m->n_subgraphs ||
            k->node >= m->subgraphs[k->subgraph].n_ops)
            continue;
        int32_t at = base[k->subgraph] + k->node;
        if (at < r->n_nodes && !lint[at]) lint[at] = k->rule;
    }
    bool ok = true;
    for (int32_t s = 0; s < m->n_subgraphs && ok; s++) {
        gc_check_node *nodes = r->nodes + base[s];
        int32_t n = m->subgraphs[s].n_ops, on = 0;
        for (int32_t i = 0; i < n; i++) on += nodes[i].gpu;
        if (!on) continue;
        sgctx S;
        bool facts = facts_apply(r);
        if (facts && !sg_open(&S, m, s, nodes, false)) { ok = false; break; }
        for (int32_t i = 0; i < n; i++) {
            gc_check_node *nd = &nodes[i];
            if (!nd->gpu) continue;
            const gc_gpu_fact *wrong = NULL, *risk = NULL, *right = NULL;
            if (facts) {
                sg_node(&S, i);
                for (int k = 0; k < r->facts->n_facts && !wrong; k++) {
                    const gc_gpu_fact *f = &r->facts->facts[k];
                    if (f->verdict == GC_FACT_INIT_FAILED || strcmp(f->runtime, r->runtime->name)) continue;
                    bool bad = f->verdict == GC_FACT_WRONG || f->verdict == GC_FACT_CRASHED;
                    bool applies = prec_applies(f->precision, r->precision, bad);
                    if (f->verdict == GC_FACT_OK && (!applies || right)) continue;
                    if (bad && !applies && risk) continue;
                    if (!matches(f, &S.c)) continue;
                    if (f->verdict == GC_FACT_OK) right = f;
                    else if (applies) wrong = f;
                    else risk = f;           /* measured wrong at fp16 only, the check is for fp32 */
                }
            }
            const gc_gpu_fact *f = wrong ? wrong : risk ? risk : NULL;
            if (f) {
                nd->numerics = wrong ? GC_NUM_WRONG : GC_NUM_RISK;
                nd->numerics_rule = f->id;
                nd->evidence = f;
                if (wrong) set_fix(r, nd, f);
            } else if (lint[base[s] + i]) {
                nd->numerics = GC_NUM_RISK;
                nd->numerics_rule = lint[base[s] + i];
            } else if (right) {
                nd->numerics_rule = right->id;
                nd->evidence = right;
            }
            r->wrong_nodes += nd->numerics == GC_NUM_WRONG;
            r->risk_nodes += nd->numerics == GC_NUM_RISK;
        }
        if (facts) sg_close(&S);
    }
    free(lint);
    free(base);
    r->gpu_correct = r->wrong_nodes == 0;
    return ok;
}
