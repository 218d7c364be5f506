/* run.c — `gpuclean run`: the reference interpreter from the command line.
 *
 *   gpuclean run MODEL [--signature NAME|INDEX] [--input NAME_OR_INDEX=FILE.npy]...
 *       [--random SEED | --pattern sin] [--precision fp32|fp16|fp16-acc|fp64] --out DIR
 *       [--dump-all] [--runs N]
 *
 * Writes DIR/output_<k>.npy (k in the entry's output order), DIR/input_<k>.npy (the
 * inputs actually fed), DIR/manifest.json (schema 1: names, shapes, dtypes, timings,
 * planned memory) and, with --dump-all, DIR/tensors/s<S>_t<T>.npy for every op output.
 * DIR is built whole: everything is written into DIR.tmp.XXXXXX beside it, which
 * replaces DIR on success (no stale files from an earlier run) and is removed on failure
 * (no partial folder). An existing DIR must be empty or an earlier `gpuclean run` output
 * (it has a manifest.json), and must not hold MODEL or an --input file.
 * Exit 0 on success; 2 on bad usage or bad input (a malformed model or tensor, an
 * unreadable file); 1 when the model is valid but the interpreter cannot run it (an op
 * without a kernel). One line on stderr names the file and the problem. verify and
 * bisect use the same codes (gc_cli_status_exit).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "interp/interp.h"
#include "verify/npy.h"

#define MAX_INPUTS 64

typedef struct { const char *key, *file; } input_arg;

typedef struct {
    const char *dir;
    gc_str list;                /* JSON array body of dumped tensors */
    const gc_model *m;
    bool enabled;
    int count, failed;
    char err[512];
} dump_ctx;

static int usage(FILE *f) {
    fprintf(f, "usage: gpuclean run MODEL [--signature NAME|INDEX] [--input NAME_OR_INDEX=FILE.npy]...\n"
               "           [--random SEED | --pattern sin] [--precision fp32|fp16|fp16-acc|fp64] --out DIR\n"
               "           [--gpu-runtime native|js] [--dump-all] [--runs N] [--threads N]\n"
               "           [--int-arith tflite|xnnpack] [--float-arith fma|muladd] [--reference-kernels]\n"
               "  Runs MODEL on gpuclean's reference interpreter. Inputs not given as files are made\n"
               "  by --pattern sin (default; input k: 0.5+0.5*sin(0.37*i+k), the oracle's pattern) or\n"
               "  --random SEED (float N(0,1), integers in valid ranges). --precision fp16 is the GPU's\n"
               "  fp16 mode: every float tensor stored as half, arithmetic as --gpu-runtime does it:\n"
               "  native (default: libLiteRt's WebGPU accelerator, half math in small-channel convs,\n"
               "  Winograd 3x3 convs and multi-step activations) or js (LiteRT.js: float math);\n"
               "  docs/fp16-model.md. fp16-acc rounds every multiply-add of every accumulation;\n"
               "  fp64 computes every float op in double (the truth to judge fp32 by; float32 files).\n"
               "  Writes DIR/output_<k>.npy, DIR/input_<k>.npy, DIR/manifest.json; --dump-all adds\n"
               "  DIR/tensors/s<subgraph>_t<tensor>.npy for every op output. --runs N times N invokes.\n"
               "  DIR is replaced whole on success (an existing DIR must be empty or an earlier\n"
               "  run's output) and left untouched on failure.\n"
               "  --threads N runs the heavy ops (convolutions, matrix products, softmax, large\n"
               "  elementwise ops, pools, resizes, reductions, PAD, TRANSPOSE, CONCATENATION) on a\n"
               "  pool of N threads kept for the run (identical results at any N).\n"
               "  --reference-kernels: fp32 float and 8-bit CONV_2D / DEPTHWISE_CONV_2D /\n"
               "  FULLY_CONNECTED / BATCH_MATMUL (and the other fast paths: 8-bit elementwise ops,\n"
               "  RESIZE_BILINEAR, ...), and in fp16 / fp16-acc the float convs (TRANSPOSE_CONV and\n"
               "  the native Winograd too) and matrix products, run the plain reference loops\n"
               "  instead of the fast kernels, and float reductions and pools theirs (bit-identical\n"
               "  results, slower; GPUCLEAN_ISA=scalar|avx2|avx512 caps the fast ones).\n"
               "  --int-arith: how quantized kernels rescale: tflite (TFLite's reference kernels,\n"
               "  default) or xnnpack (float scale, round half to even, as LiteRT's CPU runtime).\n"
               "  --float-arith (fp32): how CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,\n"
               "  FULLY_CONNECTED and BATCH_MATMUL multiply-add: fma (default: fused, one rounding, as\n"
               "  GPUs and XNNPACK do) or muladd (a multiply then an add, two roundings; fma is up to\n"
               "  2x faster where adds share the FMA ports, e.g. Intel cores; a CPU without FMA\n"
               "  hardware wants muladd). Both give the same bits on every machine and at every\n"
               "  --threads. GPUCLEAN_FLOAT_ARITH=fma|muladd in the environment sets the default of\n"
               "  every command (verify, compare, bisect, the Python API).\n");
    return f == stdout ? 0 : 2;
}

static void json_shape(gc_str *o, int rank, const int32_t *shape) {
    gc_str_putc(o, '[');
    for (int d = 0; d < rank; d++) gc_str_printf(o, "%s%d", d ? ", " : "", (int)shape[d]);
    gc_str_putc(o, ']');
}

static const char *dtype_name(int t) {
    const char *s = gc_npy_dtype_name(t);
    return strcmp(s, "?") ? s : gc_type_name(t);
}

static gc_status write_view(const char *path, const gc_tview *v, char *err, size_t errlen) {
    int64_t shp[GC_MAX_RANK];
    for (int d = 0; d < v->rank; d++) shp[d] = v->shape[d];
    if (!gc_npy_itemsize(v->dtype)) {
        gc_errf(err, errlen, "%s: type %s cannot be written as .npy", path, gc_type_name(v->dtype));
        return GC_ERR_UNSUPPORTED;
    }
    return gc_npy_write(path, v->dtype, v->rank, shp, v->data, err, errlen);
}

static bool ask_node(int32_t subgraph, int32_t op_index, void *user) {
    (void)subgraph; (void)op_index;
    return ((dump_ctx *)user)->enabled;
}

static int on_node(int32_t op_index, const gc_tview *outs, int n_outs, void *user) {
    dump_ctx *dc = user;
    for (int j = 0; j < n_outs; j++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/tensors/s%d_t%d.npy", dc->dir, (int)outs[j].subgraph, (int)outs[j].tensor);
        char err[512];
        gc_status st = write_view(path, &outs[j], err, sizeof err);
        if (st != GC_OK && st != GC_ERR_UNSUPPORTED) {
            snprintf(dc->err, sizeof dc->err, "%s", err);
            dc->failed = 1;
            return 1;
        }
        const gc_subgraph *sg = &dc->m->subgraphs[outs[j].subgraph];
        gc_str_printf(&dc->list, "%s\n    {\"subgraph\": %d, \"op\": %d, \"op_name\": ", dc->count ? "," : "",
                      (int)outs[j].subgraph, (int)op_index);
        gc_str_json(&dc->list, gc_op_name(dc->m, &sg->ops[op_index]));
        gc_str_printf(&dc->list, ", \"tensor\": %d, \"name\": ", (int)outs[j].tensor);
        gc_str_json(&dc->list, outs[j].name);
        gc_str_printf(&dc->list, ", \"dtype\": \"%s\", \"shape\": ", dtype_name(outs[j].dtype));
        json_shape(&dc->list, outs[j].rank, outs[j].shape);
        if (st == GC_OK) gc_str_printf(&dc->list, ", \"file\": \"tensors/s%d_t%d.npy\"}", (int)outs[j].subgraph, (int)outs[j].tensor);
        else gc_str_puts(&dc->list, ", \"file\": null}");
        dc->count++;
    }
    return 0;
}

/* Convert npy elements into the input's type (numeric cast, as the LiteRT runner does). */
static gc_status feed(const gc_npy *a, const gc_tview *v, const char *file, char *err, size_t errlen) {
    uint64_t n = gc_npy_count(a);
    if (a->dtype == v->dtype) { memcpy(v->data, a->data, v->nbytes); return GC_OK; }
    double buf[256];
    for (uint64_t i0 = 0; i0 < n; i0 += 256) {
        size_t cnt = (size_t)(n - i0 < 256 ? n - i0 : 256);
        gc_npy_to_f64(a->dtype, a->data, i0, cnt, buf);
        for (size_t j = 0; j < cnt; j++) {
            uint64_t i = i0 + j; double x = buf[j];
            switch (v->dtype) {
            case GC_T_FLOAT32: ((float *)v->data)[i] = (float)x; break;
            case GC_T_INT32: ((int32_t *)v->data)[i] = (int32_t)x; break;
            case GC_T_INT64: ((int64_t *)v->data)[i] = (int64_t)x; break;
            case GC_T_UINT8: ((uint8_t *)v->data)[i] = (uint8_t)x; break;
            case GC_T_INT8: ((int8_t *)v->data)[i] = (int8_t)x; break;
            case GC_T_INT16: ((int16_t *)v->data)[i] = (int16_t)x; break;
            case GC_T_BOOL: ((uint8_t *)v->data)[i] = x != 0; break;
            default:
                gc_errf(err, errlen, "%s: cannot convert %s to the input's type %s", file,
                        gc_npy_dtype_name(a->dtype), gc_type_name(v->dtype));
                return GC_ERR_UNSUPPORTED;
            }
        }
    }
    return GC_OK;
}

int gc_cli_run(int argc, char **argv) {
    const char *model_path = NULL, *sig_arg = NULL, *out_dir = NULL, *prec_arg = "fp32", *qmode_arg = "tflite",
               *grt_arg = "native", *farith_arg = NULL;
    input_arg ins[MAX_INPUTS]; int n_ins = 0;
    bool random = false, dump_all = false, ref_kernels = false;
    uint64_t seed = 0; long runs = 1, threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED() do { if (!val) return gc_cli_usage_error("run", "%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(stdout);
        else if (!strcmp(a, "--signature")) { NEED(); sig_arg = val; }
        else if (!strcmp(a, "--out")) { NEED(); out_dir = val; }
        else if (!strcmp(a, "--precision")) { NEED(); prec_arg = val; }
        else if (!strcmp(a, "--gpu-runtime")) { NEED(); grt_arg = val; }
        else if (!strcmp(a, "--int-arith")) { NEED(); qmode_arg = val; }
        else if (!strcmp(a, "--float-arith")) { NEED(); farith_arg = val; }
        else if (!strcmp(a, "--dump-all")) dump_all = true;
        else if (!strcmp(a, "--reference-kernels")) ref_kernels = true;
        else if (!strcmp(a, "--pattern")) {
            NEED();
            if (strcmp(val, "sin")) return gc_cli_usage_error("run", "--pattern knows only 'sin', not '%s'", val);
            random = false;
        } else if (!strcmp(a, "--random")) {
            NEED();
            char *end; errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (*end || errno || val[0] == '-') return gc_cli_usage_error("run", "--random needs a non-negative integer seed, not '%s'", val);
            seed = s; random = true;
        } else if (!strcmp(a, "--threads")) {
            NEED();
            char *end; threads = strtol(val, &end, 10);
            if (*end || threads < 1 || threads > 16) return gc_cli_usage_error("run", "--threads needs an integer 1..16, not '%s'", val);
        } else if (!strcmp(a, "--runs")) {
            NEED();
            char *end; runs = strtol(val, &end, 10);
            if (*end || runs < 1 || runs > 100000) return gc_cli_usage_error("run", "--runs needs an integer >= 1, not '%s'", val);
        } else if (!strcmp(a, "--input")) {
            NEED();
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || !eq[1]) return gc_cli_usage_error("run", "--input needs NAME_OR_INDEX=FILE.npy, not '%s'", val);
            if (n_ins >= MAX_INPUTS) return gc_cli_usage_error("run", "more than %d --input", MAX_INPUTS);
            char *key = strndup(val, (size_t)(eq - val));
            if (!key) return gc_cli_usage_error("run", "out of memory");
            ins[n_ins].key = key; ins[n_ins].file = eq + 1; n_ins++;
        } else if (a[0] == '-') return gc_cli_usage_error("run", "unknown option '%s'", a);
        else if (!model_path) model_path = a;
        else return gc_cli_usage_error("run", "more than one model given ('%s')", a);
#undef NEED
    }
    if (!model_path) return gc_cli_usage_error("run", "no model given (gpuclean run MODEL --out DIR)");
    if (!out_dir) return gc_cli_usage_error("run", "--out DIR is required");
    int prec = gc_precision_parse(prec_arg);
    if (prec < 0) return gc_cli_usage_error("run", "--precision must be fp32, fp16, fp16-acc or fp64, not '%s'", prec_arg);
    int grt = gc_f16_runtime_parse(grt_arg);
    if (grt < 0) return gc_cli_usage_error("run", "--gpu-runtime must be native or js, not '%s'", grt_arg);
    int qmode = gc_qmode_parse(qmode_arg);
    if (qmode < 0) return gc_cli_usage_error("run", "--int-arith must be tflite or xnnpack, not '%s'", qmode_arg);
    const int farith = farith_arg ? gc_float_arith_parse(farith_arg) : GC_FLOAT_DEFAULT;
    if (farith < 0) return gc_cli_usage_error("run", "--float-arith must be fma or muladd, not '%s'", farith_arg);

    char err[512];
    int rc = 2;
    if (gc_cli_input_file(model_path)) return 2;
    for (int j = 0; j < n_ins; j++) if (gc_cli_input_file(ins[j].file)) return 2;
    /* DIR is replaced on success: it must not hold what we read */
    if (gc_path_inside(model_path, out_dir))
        return gc_cli_usage_error("run", "%s: MODEL lies inside the output directory %s, which is replaced", model_path, out_dir);
    for (int j = 0; j < n_ins; j++)
        if (gc_path_inside(ins[j].file, out_dir))
            return gc_cli_usage_error("run", "%s: the input lies inside the output directory %s, which is replaced", ins[j].file, out_dir);
    gc_model *m = gc_model_read_file_lazy(model_path, err, sizeof err);
    if (!m) { gc_cli_err("gpuclean run: %s: %s", model_path, err); return 2; }
    gc_interp *it = NULL;
    gc_npy *arrays = calloc(MAX_INPUTS, sizeof *arrays);
    gc_str man = {0};
    char wdir[1024] = "";                       /* DIR.tmp.XXXXXX: everything goes here first */
    static const char *const markers[] = { "manifest.json", NULL };
    dump_ctx dc = { .dir = wdir, .m = m };
    if (!arrays) goto done;
    if (gc_outdir_begin(out_dir, markers, wdir, sizeof wdir, err, sizeof err) != GC_OK) {
        wdir[0] = 0;
        gc_cli_err("gpuclean run: %s", err);
        goto done;
    }

    int sig = GC_SIG_AUTO;
    if (sig_arg) {
        sig = -1;
        for (int s = 0; s < m->n_signatures; s++) if (!strcmp(m->signatures[s].key, sig_arg)) sig = s;
        if (sig < 0) {
            char *end; long v = strtol(sig_arg, &end, 10);
            if (!*end && v >= 0 && v < m->n_signatures) sig = (int)v;
        }
        if (sig < 0) {
            gc_cli_err("gpuclean run: %s: no signature '%s' (the model has %d)", model_path, sig_arg, (int)m->n_signatures);
            goto done;
        }
    }
    gc_interp_opts o = { .precision = (gc_precision)prec, .qmode = (gc_qmode)qmode, .signature = sig,
                         .threads = (int)threads, .gpu_runtime = (gc_f16_runtime)grt,
                         .reference_kernels = ref_kernels, .float_arith = (gc_float_arith)farith };
    if (dump_all) { o.on_node = on_node; o.ask = ask_node; o.user = &dc; dc.enabled = true; }
    it = gc_interp_new(m, &o, err, sizeof err);
    if (!it) { gc_cli_err("gpuclean run: %s: %s", model_path, err); goto done; }
    int n_in = gc_interp_n_inputs(it), n_out = gc_interp_n_outputs(it);

    /* resolve --input keys; read the files; take dynamic shapes from them */
    int given[MAX_INPUTS];
    for (int k = 0; k < MAX_INPUTS; k++) given[k] = -1;
    for (int j = 0; j < n_ins; j++) {
        int k = gc_interp_find_input(it, ins[j].key);
        if (k < 0) {
            char *end; long v = strtol(ins[j].key, &end, 10);
            if (!*end && v >= 0 && v < n_in) k = (int)v;
        }
        if (k < 0 || k >= MAX_INPUTS) {
            gc_cli_err("gpuclean run: --input %s: the entry has no input named or numbered '%s' (%d inputs)",
                    ins[j].key, ins[j].key, n_in);
            goto done;
        }
        if (gc_npy_read(ins[j].file, &arrays[j], err, sizeof err) != GC_OK) {
            gc_cli_err("gpuclean run: %s", err); goto done;
        }
        given[k] = j;
        gc_tview v = gc_interp_input(it, k);
        uint64_t need = 1, have = gc_npy_count(&arrays[j]);
        for (int d = 0; d < v.rank; d++) need *= (uint64_t)v.shape[d];
        if (need != have) {
            int32_t shp[GC_MAX_RANK];
            bool ok = arrays[j].rank <= GC_MAX_RANK;
            for (int d = 0; ok && d < arrays[j].rank; d++) { shp[d] = (int32_t)arrays[j].shape[d]; ok = arrays[j].shape[d] < INT32_MAX; }
            if (!ok || gc_interp_set_input_shape(it, k, arrays[j].rank, shp) != GC_OK) {
                gc_cli_err("gpuclean run: %s: %llu elements, input %d ('%s') needs %llu (%s)", ins[j].file,
                        (unsigned long long)have, k, v.name, (unsigned long long)need, gc_interp_errmsg(it));
                goto done;
            }
        }
    }
    double t0 = gc_now();
    gc_status pst = gc_interp_prepare(it);
    if (pst != GC_OK) {
        gc_cli_err("gpuclean run: %s: %s", model_path, gc_interp_errmsg(it));
        rc = gc_cli_status_exit(pst); goto done;
    }
    char tdir[1100];
    if (dump_all && (snprintf(tdir, sizeof tdir, "%s/tensors", wdir), mkdir(tdir, 0777))) {
        gc_cli_err("gpuclean run: %s: cannot create the directory (%s)", tdir, strerror(errno));
        goto done;
    }
    int sig_index = sig == GC_SIG_AUTO ? (m->n_signatures > 0 ? 0 : -1) : sig;
    gc_str_printf(&man, "{\n  \"schema\": 1,\n  \"tool\": \"gpuclean run\",\n  \"model\": ");
    gc_str_json(&man, model_path);
    gc_str_puts(&man, ",\n  \"signature\": ");
    if (gc_interp_signature_key(it)) gc_str_json(&man, gc_interp_signature_key(it)); else gc_str_puts(&man, "null");
    gc_str_printf(&man, ",\n  \"subgraph\": %d,\n  \"precision\": \"%s\",\n  \"gpu_runtime\": \"%s\",\n"
                  "  \"int_arith\": \"%s\",\n  \"float_arith\": \"%s\",\n  \"inputs\": [",
                  (int)gc_interp_entry_subgraph(it), gc_precision_name((gc_precision)prec),
                  gc_f16_runtime_name((gc_f16_runtime)grt), gc_qmode_name((gc_qmode)qmode), gc_float_arith_name((gc_float_arith)farith));
    for (int k = 0; k < n_in; k++) {
        gc_tview v = gc_interp_input(it, k);
        const char *source;
        char srcbuf[64];
        if (k < MAX_INPUTS && given[k] >= 0) {
            if (feed(&arrays[given[k]], &v, ins[given[k]].file, err, sizeof err) != GC_OK) {
                gc_cli_err("gpuclean run: %s", err); goto done;
            }
            source = ins[given[k]].file;
        } else if (random) {
            if (gc_fill_random(&v, seed, sig_index < 0 ? 0 : sig_index, k) != GC_OK) {
                gc_cli_err("gpuclean run: %s: cannot make random data for input %d ('%s') of type %s",
                        model_path, k, v.name, gc_type_name(v.dtype));
                goto done;
            }
            snprintf(srcbuf, sizeof srcbuf, "random %llu", (unsigned long long)seed); source = srcbuf;
        } else {
            if (gc_fill_pattern_sin(&v, k) != GC_OK) {
                gc_cli_err("gpuclean run: %s: cannot make pattern data for input %d ('%s') of type %s",
                        model_path, k, v.name, gc_type_name(v.dtype));
                goto done;
            }
            source = "pattern sin";
        }
        char path[1200];
        snprintf(path, sizeof path, "%s/input_%d.npy", wdir, k);
        if (write_view(path, &v, err, sizeof err) != GC_OK) { gc_cli_err("gpuclean run: %s", err); goto done; }
        gc_str_puts(&man, k ? ",\n    {\"name\": " : "\n    {\"name\": ");
        gc_str_json(&man, v.name);
        gc_str_printf(&man, ", \"tensor\": %d, \"dtype\": \"%s\", \"shape\": ", (int)v.tensor, dtype_name(v.dtype));
        json_shape(&man, v.rank, v.shape);
        gc_str_printf(&man, ", \"file\": \"input_%d.npy\", \"source\": ", k);
        gc_str_json(&man, source);
        gc_str_putc(&man, '}');
    }
    gc_str_puts(&man, "\n  ],\n");
    double prepare_ms = (gc_now() - t0) * 1e3, first_ms = 0, total_ms = 0;
    for (long r = 0; r < runs; r++) {
        double t1 = gc_now();
        gc_status ist = gc_interp_invoke(it);
        if (ist != GC_OK) {
            gc_cli_err("gpuclean run: %s: %s", model_path, gc_interp_errmsg(it));
            rc = gc_cli_status_exit(ist); goto done;
        }
        double ms = (gc_now() - t1) * 1e3;
        if (dc.failed) { gc_cli_err("gpuclean run: %s", dc.err); goto done; }
        if (r > 0) { total_ms += ms; continue; }
        first_ms = ms;
        dc.enabled = false;                       /* dump the first run only */
        /* outputs of the first run (state such as LSTM variables moves on after it) */
        gc_str_puts(&man, "  \"outputs\": [");
        for (int k = 0; k < n_out; k++) {
            gc_tview v = gc_interp_output(it, k);
            char path[1200];
            snprintf(path, sizeof path, "%s/output_%d.npy", wdir, k);
            if (write_view(path, &v, err, sizeof err) != GC_OK) { gc_cli_err("gpuclean run: %s", err); goto done; }
            gc_str_puts(&man, k ? ",\n    {\"name\": " : "\n    {\"name\": ");
            gc_str_json(&man, v.name);
            gc_str_printf(&man, ", \"tensor\": %d, \"dtype\": \"%s\", \"shape\": ", (int)v.tensor, dtype_name(v.dtype));
            json_shape(&man, v.rank, v.shape);
            if (v.scale > 0) gc_str_printf(&man, ", \"scale\": %.9g, \"zero_point\": %d", (double)v.scale, (int)v.zero_point);
            gc_str_printf(&man, ", \"file\": \"output_%d.npy\"}", k);
        }
    }
    gc_interp_stats st;
    gc_interp_stats_get(it, &st);
    gc_str_printf(&man, "\n  ],\n  \"timings_ms\": {\"prepare\": %.3f, \"first_invoke\": %.3f, \"runs\": %ld, "
                  "\"avg_invoke\": %.3f},\n", prepare_ms, first_ms, runs,
                  runs > 1 ? total_ms / (double)(runs - 1) : first_ms);
    gc_str_printf(&man, "  \"memory\": {\"arena_bytes\": %zu, \"naive_bytes\": %zu, \"persistent_bytes\": %zu},\n",
                  st.arena_bytes, st.naive_bytes, st.persistent_bytes);
    gc_str_printf(&man, "  \"ops\": %d,\n  \"ops_folded\": %d,\n  \"ops_fast\": %d,\n  \"isa\": \"%s\",\n"
                  "  \"shape_mismatches\": %d,\n  \"stopped\": %s",
                  (int)st.n_nodes, (int)st.n_folded, (int)st.n_fast, st.isa, (int)st.shape_mismatch,
                  gc_interp_stopped(it) ? "true" : "false");
    if (dump_all) { gc_str_puts(&man, ",\n  \"tensors\": ["); if (dc.list.s) gc_str_puts(&man, dc.list.s); gc_str_puts(&man, "\n  ]"); }
    gc_str_puts(&man, "\n}\n");
    if (man.oom) { gc_cli_err("gpuclean run: out of memory"); goto done; }
    {
        char path[1200];
        snprintf(path, sizeof path, "%s/manifest.json", wdir);
        const void *chunks[1] = { man.s }; size_t lens[1] = { man.n };
        if (gc_write_atomic(path, chunks, lens, 1, err, sizeof err) != GC_OK) {
            gc_cli_err("gpuclean run: %s", err); goto done;
        }
    }
    if (gc_outdir_commit(out_dir, wdir, err, sizeof err) != GC_OK) { gc_cli_err("gpuclean run: %s", err); goto done; }
    wdir[0] = 0;
    rc = 0;
done:
    gc_outdir_abort(wdir);
    gc_str_free(&man);
    gc_str_free(&dc.list);
    gc_interp_free(it);
    for (int j = 0; j < n_ins; j++) { gc_npy_free(&arrays[j]); free((char *)ins[j].key); }
    free(arrays);
    gc_model_free(m);
    return rc;
}
