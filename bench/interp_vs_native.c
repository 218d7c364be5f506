/* interp_vs_native.c — gpuclean's reference interpreter (fp32) against the native LiteRT
 * CPU runtime (libLiteRt.so from the ai-edge-litert wheel: XNNPACK), model by model, in
 * one Markdown table: median invoke latency of each at 1 thread and at N threads (N =
 * the cores this process may run on), the ratio ours / native, our 1 -> N speed-up, the
 * achieved GFLOP/s against the machine's measured single-core fp32 peak, and peak RSS.
 *
 *   interp_vs_native [--runs N] [--warmup W] [--threads N] [--timeout S] [--json FILE]
 *                    [--peak-trials T] [--int-arith tflite|xnnpack] MODEL.tflite...
 *
 * How it measures (per model and thread count):
 *   - two worker processes are forked from this small coordinator: "ours" builds the
 *     interpreter (gc_interp, fp32, signature 0) and "native" runs gpuclean's native
 *     LiteRT path (gc_lrt_run_native: its own child compiles the model for the CPU
 *     accelerator with num_threads = N). Both get the same inputs (pattern sin, as
 *     `gpuclean run` and `gpuclean litert` make them). Loading, compiling and process
 *     start are outside every timing.
 *   - each does one untimed first invoke, then W warm-up and N timed invokes that the
 *     coordinator releases one at a time, alternating: ours, native, ours, native, ...
 *     (so both see the same machine load). Each invoke is timed inside its own process
 *     around the invoke call alone (gc_interp_invoke; LiteRtRunCompiledModel). Before
 *     each one the coordinator waits until the other side's threads are idle (settle():
 *     a pool's workers spin after a job, and would take a core from this side's invoke).
 *   - the table shows the median of the timed invokes and, as "±x%", half the
 *     interquartile range over the median.
 *   - peak RSS: getrusage(RUSAGE_SELF).ru_maxrss in the process that ran the invokes
 *     (ours: the worker; native: the child of its worker that loaded libLiteRt), read
 *     after the last invoke. Both start as forks of this coordinator, whose own RSS at
 *     the time (the shared baseline both numbers include) is printed with the table.
 *   - GFLOP: 2 x the multiply-accumulates of the matrix-like ops from the model's static
 *     shapes (gc_model_flops, src/report/flops.c), counted in a child process.
 *   - peak: chains of FMAs on one core (fma_peak.c), best of T trials before the models
 *     and T after them (on a shared machine the best short window is the closest to the
 *     core's real peak).
 * A side that fails (refused model, missing kernel, crash, timeout, no runtime) gets its
 * reason in the notes below the table; the row and the table still come out. Exit 0
 * when the table was printed, 2 on bad usage.
 *
 * --json FILE also writes every timing: {"schema":1, "peak":{...}, "threads_all":N,
 * "baseline_rss_kb":K, "models":[{"model","path","kind","flops","macs_unknown_ops",
 * "error", "configs":[{"threads", "ours":SIDE, "native":SIDE}]}]} with SIDE =
 * {"ok","reason","median_ms","p25_ms","p75_ms","runs_ms":[...],"peak_rss_kb"}. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fma_peak.h"
#include "interp/interp.h"
#include "model/model.h"
#include "report/report.h"
#include "runtime/litert.h"
#include "runtime/litert_json.h"

/* ---- messages between the workers and the coordinator (one write each, < PIPE_BUF) ---- */

enum { MSG_READY = 1,   /* ours: prepared and warm; native: before run `run` (its gate) */
       MSG_DONE,        /* ours: one invoke took `ms` */
       MSG_TIME,        /* native, at the end: run `run` took `ms` */
       MSG_RESULT,      /* the side's peak RSS; the last message */
       MSG_FAIL };      /* `text` says why; the last message */

typedef struct { int32_t kind, run; double ms; int64_t rss_kb; char text[480]; } msg;
_Static_assert(sizeof(msg) <= 512, "one message is one atomic pipe write");

static void send_msg(int fd, int kind, int run, double ms, int64_t rss_kb, const char *text) {
    msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind; m.run = run; m.ms = ms; m.rss_kb = rss_kb;
    if (text) snprintf(m.text, sizeof m.text, "%s", text);
    ssize_t k;
    do k = write(fd, &m, sizeof m); while (k < 0 && errno == EINTR);
}

/* 1: a message; 0: end of file; -1: nothing within timeout_s; -2: read error */
static int recv_msg(int fd, msg *m, double timeout_s) {
    size_t got = 0;
    double deadline = gc_now() + timeout_s;
    while (got < sizeof *m) {
        double left = deadline - gc_now();
        if (left <= 0) return -1;
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -2;
        if (r == 0) continue;
        ssize_t k = read(fd, (char *)m + got, sizeof *m - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -2;
        if (k == 0) return got ? -2 : 0;
        got += (size_t)k;
    }
    return 1;
}

static bool send_cmd(int fd, char c) {
    ssize_t k;
    do k = write(fd, &c, 1); while (k < 0 && errno == EINTR);
    return k == 1;
}

static char read_cmd(int fd) {
    char c = 0;
    ssize_t k;
    do k = read(fd, &c, 1); while (k < 0 && errno == EINTR);
    return k == 1 ? c : 0;
}

static int64_t peak_rss_kb(void) {
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) ? -1 : (int64_t)ru.ru_maxrss;
}

/* ---- the workers (each in its own process, own process group) ------------------------ */

static void fail_exit(int ev, const char *fmt, const char *a, const char *b) {
    char t[480];
    snprintf(t, sizeof t, fmt, a, b);
    send_msg(ev, MSG_FAIL, 0, 0, -1, t);
    _exit(0);
}

/* ours: read, prepare, fill, first invoke; then one timed invoke per 'g', 'q' to end */
static void ours_worker(const char *path, int threads, gc_qmode qmode, gc_float_arith fa, int cmd, int ev) {
    char err[480];
    gc_model *m = gc_model_read_file_lazy(path, err, sizeof err);
    if (!m) fail_exit(ev, "model: %s%s", err, "");
    gc_interp_opts o;
    memset(&o, 0, sizeof o);
    o.precision = GC_PREC_FP32;
    o.signature = GC_SIG_AUTO;
    o.threads = threads;
    o.qmode = qmode;
    o.float_arith = fa;
    gc_interp *it = gc_interp_new(m, &o, err, sizeof err);
    if (!it) fail_exit(ev, "%s%s", err, "");
    if (gc_interp_prepare(it) != GC_OK) fail_exit(ev, "prepare: %s%s", gc_interp_errmsg(it), "");
    for (int k = 0; k < gc_interp_n_inputs(it); k++) {
        gc_tview v = gc_interp_input(it, k);
        if (gc_fill_pattern_sin(&v, k) != GC_OK) fail_exit(ev, "input %s: no input generator for %s", v.name, gc_type_name(v.dtype));
    }
    if (gc_interp_invoke(it) != GC_OK) fail_exit(ev, "invoke: %s%s", gc_interp_errmsg(it), "");
    send_msg(ev, MSG_READY, 0, 0, -1, NULL);
    for (int run = 0;; run++) {
        char c = read_cmd(cmd);
        if (c != 'g') break;                     /* 'q', or the coordinator is gone */
        double t0 = gc_now();
        gc_status s = gc_interp_invoke(it);
        double ms = (gc_now() - t0) * 1e3;
        if (s != GC_OK) fail_exit(ev, "invoke: %s%s", gc_interp_errmsg(it), "");
        send_msg(ev, MSG_DONE, run, ms, -1, NULL);
    }
    send_msg(ev, MSG_RESULT, 0, 0, peak_rss_kb(), NULL);
    _exit(0);
}

typedef struct { int cmd, ev, runs; } gate_ctx;

/* Runs in the native runtime's child: announce run r, wait for the go. */
static void native_gate(void *p, int run) {
    const gate_ctx *g = p;
    send_msg(g->ev, MSG_READY, run, 0, -1, NULL);
    if (run >= g->runs) return;                  /* after the last run: nothing to wait for */
    if (read_cmd(g->cmd) != 'g') _exit(3);       /* coordinator gone: stop without a result */
}

/* native: gc_lrt_run_native with the gate; then every run's time and the peak RSS from
 * its result.json. */
static void native_worker(const char *path, int threads, int runs, double timeout_s, const char *dir, int cmd, int ev) {
    gate_ctx g = { cmd, ev, runs };
    gc_lrt_opts o;
    memset(&o, 0, sizeof o);
    o.model = path;
    o.accelerators = GC_LRT_CPU;
    o.precisions = GC_LRT_FP32;
    o.runtimes = GC_LRT_NATIVE;
    o.input_kind = GC_LRT_IN_PATTERN;
    o.runs = runs;
    o.threads = threads;
    o.timeout_s = timeout_s * (runs + 2);        /* the coordinator times every step itself */
    o.run_gate = native_gate;
    o.run_gate_ctx = &g;
    char err[1024], rpath[4200];
    if (gc_lrt_run_native(&o, dir, err, sizeof err) != GC_OK) fail_exit(ev, "%s%s", err, "");
    snprintf(rpath, sizeof rpath, "%s/result.json", dir);
    gc_arena a = {0};
    const gc_lj *r = gc_lj_parse_file(&a, rpath, err, sizeof err);
    if (!r) fail_exit(ev, "%s%s", err, "");
    const gc_lj *mode = gc_lj_at(gc_lj_get(r, "modes"), 0);
    const char *status = gc_lj_str(gc_lj_get(mode, "status"), "?");
    if (strcmp(status, "ok")) {
        const char *why = gc_lj_str(gc_lj_get(mode, "limit"), NULL);
        if (!why) why = gc_lj_str(gc_lj_get(mode, "error"), "no reason given");
        const char *logged = gc_lj_str(gc_lj_at(gc_lj_get(mode, "log_errors"), 0), NULL);   /* LiteRT's own words */
        char t[480];
        snprintf(t, sizeof t, "%s: %s%s%.200s%s", status, why, logged ? " (log: " : "", logged ? logged : "", logged ? ")" : "");
        fail_exit(ev, "%s%s", t, "");
    }
    const gc_lj *sig = gc_lj_at(gc_lj_get(mode, "signatures"), 0);
    const gc_lj *rm = gc_lj_get(sig, "run_ms");
    if (!sig || !gc_lj_bool(gc_lj_get(sig, "ok"), false)) fail_exit(ev, "signature 0: %s%s", gc_lj_str(gc_lj_get(sig, "error"), "did not run"), "");
    for (int32_t k = 0; k < gc_lj_len(rm); k++) send_msg(ev, MSG_TIME, k, gc_lj_num(gc_lj_at(rm, k), -1), -1, NULL);
    send_msg(ev, MSG_RESULT, 0, 0, (int64_t)gc_lj_num(gc_lj_get(mode, "peak_rss_kb"), -1), NULL);
    _exit(0);
}

/* ---- one side's results ----------------------------------------------------------------- */

typedef struct {
    bool ok;                   /* every timed invoke ran */
    char reason[480];          /* why not */
    double *ms; int n;         /* timed invokes (warm-ups excluded), in run order */
    double median, p25, p75;
    double *cpu; int ncpu;     /* the same invokes' CPU time (every thread of the worker, from
                                  /proc: schedstat), in ms; ncpu 0 without /proc */
    double cpu_median;         /* -1 unknown */
    int64_t rss_kb;            /* -1 unknown */
    double settle_ms, settle_max_ms;   /* waits for the other side to go idle before this
                                          side's timed invokes: total, longest */
    /* while running */
    pid_t pid; int cmd, ev; bool alive;
} side;

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *sorted, int n, double q) {   /* linear interpolation */
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1) return sorted[n - 1];
    return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

static void summarize(side *s, int want) {
    if (s->ok && s->n < want) { s->ok = false; snprintf(s->reason, sizeof s->reason, "%d of %d timed invokes", s->n, want); }
    s->median = s->p25 = s->p75 = s->cpu_median = -1;
    if (!s->ok || s->n < 1) return;
    double *t = malloc((size_t)s->n * sizeof *t);
    if (!t) return;
    memcpy(t, s->ms, (size_t)s->n * sizeof *t);
    qsort(t, (size_t)s->n, sizeof *t, cmp_d);
    s->median = quantile(t, s->n, 0.5);
    s->p25 = quantile(t, s->n, 0.25);
    s->p75 = quantile(t, s->n, 0.75);
    if (s->ncpu == s->n) {
        memcpy(t, s->cpu, (size_t)s->n * sizeof *t);
        qsort(t, (size_t)s->n, sizeof *t, cmp_d);
        s->cpu_median = quantile(t, s->n, 0.5);
    }
    free(t);
}

static void side_fail(side *s, const char *why) {
    if (!s->alive && !s->ok) return;
    s->alive = false; s->ok = false;
    snprintf(s->reason, sizeof s->reason, "%s", why);
}

/* The worker went away (r: what recv_msg said): say how (time limit, signal, exit). */
static void side_lost(side *s, const char *what, int r) {
    char why[480];
    if (r == -1) {
        snprintf(why, sizeof why, "no answer within the time limit (--timeout) during %s: killed", what);
        kill(-s->pid, SIGKILL);
    } else {
        int st = 0;
        pid_t w = waitpid(s->pid, &st, 0);
        if (w == s->pid && WIFSIGNALED(st)) snprintf(why, sizeof why, "crashed during %s (signal %d: %s)", what, WTERMSIG(st), strsignal(WTERMSIG(st)));
        else snprintf(why, sizeof why, "exited without a result during %s", what);
        s->pid = -1;
    }
    side_fail(s, why);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

typedef struct {
    int runs, warmup; double timeout_s;
    gc_qmode qmode;            /* ours' integer rescaling in the 1T and NT columns */
    bool both;                 /* --int-arith both: quant / hybrid models also at 1T in XNNPACK order */
    gc_float_arith fa;         /* --float-arith: gc_interp_opts.float_arith (GC_FLOAT_DEFAULT: the
                                  environment's, else the built-in default) */
} bench_opts;

static bool start_worker(side *s, int which, const char *path, int threads, const bench_opts *bo, const char *dir) {
    int c[2], e[2];
    if (pipe(c)) return false;
    if (pipe(e)) { close(c[0]); close(c[1]); return false; }
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { close(c[0]); close(c[1]); close(e[0]); close(e[1]); return false; }
    if (pid == 0) {
        setpgid(0, 0);
        close(c[1]); close(e[0]);
        signal(SIGPIPE, SIG_DFL);
        if (which == 0) ours_worker(path, threads, bo->qmode, bo->fa, c[0], e[1]);
        else native_worker(path, threads, bo->warmup + bo->runs, bo->timeout_s, dir, c[0], e[1]);
        _exit(0);
    }
    setpgid(pid, pid);
    close(c[0]); close(e[1]);
    s->pid = pid; s->cmd = c[1]; s->ev = e[0]; s->alive = true; s->ok = true;
    return true;
}

/* ---- letting the other side go idle ----------------------------------------------------
 * A thread pool keeps its workers spinning for a while after a job (XNNPACK's pthreadpool
 * spins before it sleeps; ours spins ~0.1 ms, then yields). Interleaved invoke by invoke,
 * a side that just finished would still hold a core while the other side's multi-threaded
 * invoke runs: on a 2-core machine that invoke gets one core. So before each invoke is
 * released, the coordinator waits until no thread of the *other* side's process group is
 * runnable (state R in /proc/PID/task/TID/stat), for at most SETTLE_MAX_S; how long the
 * waits took is reported per side (settle_ms). At 1 thread neither side has workers and
 * the wait returns at once. Linux only: without /proc the wait is skipped. */
#define SETTLE_MAX_S 0.2

/* The state letter of /proc/<pid>/task/<tid>/stat or /proc/<pid>/stat, and its pgrp. */
static char proc_state(const char *path, long *pgrp) {
    char b[512];
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    b[n] = 0;
    char *rp = strrchr(b, ')');                   /* comm may hold spaces and ')' */
    char st = 0;
    long ppid = 0, pg = -1;
    if (!rp || sscanf(rp + 1, " %c %ld %ld", &st, &ppid, &pg) != 3) return 0;
    if (pgrp) *pgrp = pg;
    return st;
}

/* ---- CPU time ----------------------------------------------------------------------------
 * The nanoseconds every thread of every process of group pg has run (the first field of each
 * /proc/PID/task/TID/schedstat; the native side runs its runtime in a child of the worker),
 * or -1 without /proc. Read before an invoke is released and after it reports: the CPU time
 * of that invoke (plus a pipe message), not counting the time it waited for a core — on a
 * shared machine the 1T wall times of both sides swell with the load, their CPU times much
 * less (cache sharing still counts). Measured at 1 thread only (at N the threads add up,
 * spinning included, and a pool thread that exits takes its time out of the sum). Each
 * side's window also holds its harness's own per-invoke work (native: the runner's
 * bookkeeping around each run, ~0.1-1 ms), so the ratio means little for invokes under a
 * few ms. */
/* Calls fn(task_dir, ctx) for every thread of every process of group pg (task_dir:
 * "/proc/PID/task/TID"); -1 when /proc cannot be read, else 0. */
static int group_tasks(pid_t pg, void (*fn)(const char *task_dir, void *ctx), void *ctx) {
    DIR *d = opendir("/proc");
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300];
        long g = -1;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        if (!proc_state(path, &g) || g != (long)pg) continue;
        snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
        DIR *t = opendir(path);
        if (!t) continue;
        struct dirent *te;
        while ((te = readdir(t))) {
            if (te->d_name[0] < '0' || te->d_name[0] > '9') continue;
            char tp[600];
            snprintf(tp, sizeof tp, "/proc/%s/task/%s", e->d_name, te->d_name);
            fn(tp, ctx);
        }
        closedir(t);
    }
    closedir(d);
    return 0;
}

static void add_cpu_ns(const char *task_dir, void *ctx) {
    char p[640];
    snprintf(p, sizeof p, "%s/schedstat", task_dir);
    FILE *f = fopen(p, "r");
    long long ns = 0;
    if (!f) return;
    if (fscanf(f, "%lld", &ns) == 1 && ns > 0) *(int64_t *)ctx += ns;
    fclose(f);
}
static int64_t proc_cpu_ns(pid_t pg) {
    int64_t sum = 0;
    return group_tasks(pg, add_cpu_ns, &sum) < 0 ? -1 : sum;
}
static void note_cpu(side *s, int64_t c0, bool timed) {
    int64_t c1 = c0 >= 0 ? proc_cpu_ns(s->pid) : -1;
    if (timed && c0 >= 0 && c1 >= c0) s->cpu[s->ncpu++] = (double)(c1 - c0) / 1e6;
}

static void count_runnable(const char *task_dir, void *ctx) {
    char p[640];
    snprintf(p, sizeof p, "%s/stat", task_dir);
    if (proc_state(p, NULL) == 'R') ++*(int *)ctx;
}
/* Number of runnable threads in process group pg (-1: /proc unreadable). */
static int runnable_in_group(pid_t pg) {
    int running = 0;
    return group_tasks(pg, count_runnable, &running) < 0 ? -1 : running;
}

/* Wait (<= SETTLE_MAX_S) until side s has no runnable thread; returns the ms waited. */
static double settle(const side *s) {
    if (!s->alive || s->pid <= 0) return 0;
    double t0 = gc_now();
    for (;;) {
        int r = runnable_in_group(s->pid);
        if (r <= 0 || gc_now() - t0 > SETTLE_MAX_S) break;
        struct timespec ts = { 0, 100 * 1000 };
        nanosleep(&ts, NULL);
    }
    return (gc_now() - t0) * 1e3;
}

/* Wait for a READY (native: for run `run`), recording what else came. */
static void await_ready(side *s, const char *what, int run, double timeout_s) {
    msg m;
    int r = recv_msg(s->ev, &m, timeout_s);
    if (r == 1 && m.kind == MSG_READY && m.run == run) return;
    if (r == 1 && m.kind == MSG_FAIL) { side_fail(s, m.text); return; }
    if (r == 1) { char t[160]; snprintf(t, sizeof t, "unexpected message %d during %s", m.kind, what); side_fail(s, t); return; }
    side_lost(s, what, r);
}

static void run_config(const char *path, int threads, const bench_opts *bo, side *ours, side *nat) {
    memset(ours, 0, sizeof *ours); memset(nat, 0, sizeof *nat);
    ours->rss_kb = nat->rss_kb = -1;
    ours->pid = nat->pid = -1;
    int total = bo->warmup + bo->runs;
    ours->ms = calloc((size_t)total + 1, sizeof(double));
    nat->ms = calloc((size_t)total + 1, sizeof(double));
    ours->cpu = calloc((size_t)total + 1, sizeof(double));
    nat->cpu = calloc((size_t)total + 1, sizeof(double));
    char tmp[] = "/tmp/gc-bench-XXXXXX", dir[64];
    if (!ours->ms || !nat->ms || !ours->cpu || !nat->cpu || !mkdtemp(tmp)) {
        snprintf(ours->reason, sizeof ours->reason, "out of memory or no temporary folder");
        snprintf(nat->reason, sizeof nat->reason, "out of memory or no temporary folder");
        return;
    }
    snprintf(dir, sizeof dir, "%s/native", tmp);
    if (!start_worker(ours, 0, path, threads, bo, NULL)) snprintf(ours->reason, sizeof ours->reason, "fork: %s", strerror(errno));
    if (!start_worker(nat, 1, path, threads, bo, dir)) snprintf(nat->reason, sizeof nat->reason, "fork: %s", strerror(errno));
    /* prepare / compile: both at once is fine, nothing is timed yet */
    if (ours->alive) await_ready(ours, "prepare and first invoke", 0, bo->timeout_s);
    if (nat->alive) await_ready(nat, "compile and first invoke", 0, bo->timeout_s);
    for (int r = 0; r < total; r++) {
        msg m;
        if (ours->alive) {
            double w = settle(nat);
            if (r >= bo->warmup) { ours->settle_ms += w; if (w > ours->settle_max_ms) ours->settle_max_ms = w; }
            const int64_t c0 = threads == 1 ? proc_cpu_ns(ours->pid) : -1;
            int k = send_cmd(ours->cmd, 'g') ? recv_msg(ours->ev, &m, bo->timeout_s) : 0;
            if (k == 1 && m.kind == MSG_DONE) {
                note_cpu(ours, c0, r >= bo->warmup);
                if (r >= bo->warmup) ours->ms[ours->n++] = m.ms;
            }
            else if (k == 1 && m.kind == MSG_FAIL) side_fail(ours, m.text);
            else side_lost(ours, "an invoke", k == 1 ? 0 : k);
        }
        if (nat->alive) {
            double w = settle(ours);
            if (r >= bo->warmup) { nat->settle_ms += w; if (w > nat->settle_max_ms) nat->settle_max_ms = w; }
            const int64_t c0 = threads == 1 ? proc_cpu_ns(nat->pid) : -1;
            if (!send_cmd(nat->cmd, 'g')) side_lost(nat, "an invoke", 0);
            else {
                await_ready(nat, "an invoke", r + 1, bo->timeout_s);
                if (nat->alive) note_cpu(nat, c0, r >= bo->warmup);
            }
        }
    }
    if (ours->alive) {
        msg m;
        int k = send_cmd(ours->cmd, 'q') ? recv_msg(ours->ev, &m, bo->timeout_s) : 0;
        if (k == 1 && m.kind == MSG_RESULT) ours->rss_kb = m.rss_kb;
        else if (k == 1 && m.kind == MSG_FAIL) side_fail(ours, m.text);
        else side_lost(ours, "the end", k == 1 ? 0 : k);
    }
    while (nat->alive) {                         /* the runs' times, then the RSS */
        msg m;
        int k = recv_msg(nat->ev, &m, bo->timeout_s);
        if (k == 1 && m.kind == MSG_TIME) { if (m.run >= bo->warmup && nat->n < total) nat->ms[nat->n++] = m.ms; }
        else if (k == 1 && m.kind == MSG_RESULT) { nat->rss_kb = m.rss_kb; break; }
        else if (k == 1 && m.kind == MSG_FAIL) side_fail(nat, m.text);
        else side_lost(nat, "the end", k == 1 ? 0 : k);
    }
    side *both[2] = { ours, nat };
    for (int i = 0; i < 2; i++) {
        side *s = both[i];
        if (s->pid > 0) {
            if (!s->ok) kill(-s->pid, SIGKILL);   /* failed or timed out: nothing is left to say */
            waitpid(s->pid, NULL, 0);
        }
        if (s->cmd > 0) close(s->cmd);
        if (s->ev > 0) close(s->ev);
        summarize(s, bo->runs);
    }
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the model's arithmetic, counted in a child (a hostile file costs that child) ----- */

typedef struct {
    bool ok;
    char error[400];
    uint64_t macs;
    int32_t unknown_ops;
    char kind[16];             /* float | quant | hybrid */
} model_info;

static void count_child(const char *path, int fd) {
    model_info mi;
    memset(&mi, 0, sizeof mi);
    char err[400];
    gc_model *m = gc_model_read_file_lazy(path, err, sizeof err);
    if (!m) snprintf(mi.error, sizeof mi.error, "%s", err);
    else {
        gc_flops f;
        gc_model_flops(m, &f);
        mi.ok = true;
        mi.macs = f.saturated ? 0 : f.macs;
        mi.unknown_ops = f.n_unknown;
        const char *k = gc_flops_kind(&f);
        if (!strcmp(k, "none")) {              /* no MAC ops: integer entry inputs mean quant */
            k = "float";
            if (f.subgraph >= 0) {
                const gc_subgraph *sg = &m->subgraphs[f.subgraph];
                for (int32_t i = 0; i < sg->n_inputs; i++) {
                    int8_t t = sg->tensors[sg->inputs[i]].type;
                    if (t == GC_T_INT8 || t == GC_T_UINT8 || t == GC_T_INT16) k = "quant";
                }
            }
        }
        snprintf(mi.kind, sizeof mi.kind, "%s", k);
        gc_model_free(m);
    }
    ssize_t w;
    do w = write(fd, &mi, sizeof mi); while (w < 0 && errno == EINTR);
    _exit(0);
}

static void count_model(const char *path, model_info *mi) {
    memset(mi, 0, sizeof *mi);
    snprintf(mi->kind, sizeof mi->kind, "?");
    int p[2];
    if (pipe(p)) { snprintf(mi->error, sizeof mi->error, "pipe: %s", strerror(errno)); return; }
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) { close(p[0]); count_child(path, p[1]); }
    close(p[1]);
    size_t got = 0;
    ssize_t k;
    while (pid > 0 && got < sizeof *mi && ((k = read(p[0], (char *)mi + got, sizeof *mi - got)) > 0 || (k < 0 && errno == EINTR)))
        if (k > 0) got += (size_t)k;
    close(p[0]);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    if (got != sizeof *mi) {
        memset(mi, 0, sizeof *mi);
        snprintf(mi->kind, sizeof mi->kind, "?");
        if (pid < 0) snprintf(mi->error, sizeof mi->error, "fork: %s", strerror(errno));
        else if (WIFSIGNALED(st)) snprintf(mi->error, sizeof mi->error, "reading the model crashed (signal %d)", WTERMSIG(st));
        else snprintf(mi->error, sizeof mi->error, "reading the model gave no answer");
    }
    mi->error[sizeof mi->error - 1] = 0;
    mi->kind[sizeof mi->kind - 1] = 0;
}

/* ---- the table ------------------------------------------------------------------------------ */

typedef struct {
    const char *path;
    char name[128];
    model_info info;
    side s[3][2];              /* [config: 1 thread, N threads, 1 thread with ours in XNNPACK
                                  order (--int-arith both; quant and hybrid models)][ours, native] */
    int n_configs;             /* of the first two */
    bool has_x;                /* config 2 ran */
} model_row;

static void base_name(const char *path, char *out, size_t n) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    size_t l = strlen(out);
    if (l > 7 && !strcmp(out + l - 7, ".tflite")) out[l - 7] = 0;
}

/* "12.3 ±4%" (3 significant digits, whole ms from 100 up) or the failure mark */
static void ms_cell(char *buf, size_t n, const side *s) {
    if (!s->ok) { snprintf(buf, n, "failed"); return; }
    double spread = s->median > 0 ? 50.0 * (s->p75 - s->p25) / s->median : 0;
    if (s->median >= 100) snprintf(buf, n, "%.0f ±%.0f%%", s->median, spread);
    else snprintf(buf, n, "%.3g ±%.0f%%", s->median, spread);
}

static void ratio_cell(char *buf, size_t n, const side *a, const side *b) {
    if (a->ok && b->ok && b->median > 0) snprintf(buf, n, "%.2f", a->median / b->median);
    else snprintf(buf, n, "—");
}

static void print_table(model_row *rows, int n_rows, int nt, const gc_fma_peak *peak, bool both) {
    char h[64];
    snprintf(h, sizeof h, "%dT", nt);
    printf("| model | kind | GFLOP | ours ms 1T | native ms 1T | ours/native 1T | ours/native 1T, CPU time | ours ms %s | native ms %s "
           "| ours/native %s | ours 1T→%s | ours GFLOP/s 1T (%% of peak) | native GFLOP/s 1T (%% of peak) | peak RSS MB ours / native |%s\n",
           h, h, h, h, both ? " ours ms 1T, XNNPACK order | native ms | ours/native |" : "");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s\n", both ? "---:|---:|---:|" : "");
    double clog_sum = 0;                 /* 1T CPU-time ratios */
    int clog_n = 0;
    double xlog_sum = 0;                 /* 1T with the quant models' XNNPACK-order ratios */
    int xlog_n = 0;
    double log_sum[2] = {0, 0};
    int log_n[2] = {0, 0};
    for (int i = 0; i < n_rows; i++) {
        model_row *r = &rows[i];
        char c[14][64];
        double gflop = (double)r->info.macs * 2 / 1e9;
        if (!r->info.ok) snprintf(c[0], sizeof c[0], "—");
        else if (gflop > 0 && gflop < 0.001) snprintf(c[0], sizeof c[0], "<0.001%s", r->info.unknown_ops ? "+" : "");
        else snprintf(c[0], sizeof c[0], "%.3g%s", gflop, r->info.unknown_ops ? "+" : "");
        for (int k = 0; k < 2; k++) {
            const side *o = &r->s[k][0], *nv = &r->s[k][1];
            if (k >= r->n_configs) { snprintf(c[1 + 3 * k], 64, "—"); snprintf(c[2 + 3 * k], 64, "—"); snprintf(c[3 + 3 * k], 64, "—"); continue; }
            ms_cell(c[1 + 3 * k], 64, o);
            ms_cell(c[2 + 3 * k], 64, nv);
            ratio_cell(c[3 + 3 * k], 64, o, nv);
            if (o->ok && nv->ok && o->median > 0 && nv->median > 0) { log_sum[k] += log(o->median / nv->median); log_n[k]++; }
        }
        const side *o1 = &r->s[0][0], *n1 = &r->s[0][1], *on = &r->s[1][0];
        if (r->n_configs > 1 && o1->ok && on->ok && on->median > 0) snprintf(c[7], 64, "%.2fx", o1->median / on->median);
        else snprintf(c[7], 64, "—");
        for (int k = 0; k < 2; k++) {
            const side *s = k ? n1 : o1;
            if (s->ok && r->info.macs && s->median > 0) {
                double g = gflop / (s->median / 1e3);
                snprintf(c[8 + k], 64, "%.3g (%.0f%%)", g, peak->gflops > 0 ? 100 * g / peak->gflops : 0);
            } else snprintf(c[8 + k], 64, "—");
        }
        char ro[32] = "—", rn[32] = "—";
        if (o1->rss_kb > 0) snprintf(ro, sizeof ro, "%.0f", (double)o1->rss_kb / 1024);
        if (n1->rss_kb > 0) snprintf(rn, sizeof rn, "%.0f", (double)n1->rss_kb / 1024);
        snprintf(c[10], 64, "%s / %s", ro, rn);
        char x[200] = "";
        const side *xo = r->has_x ? &r->s[2][0] : o1, *xn = r->has_x ? &r->s[2][1] : n1;
        if (xo->ok && xn->ok && xo->median > 0 && xn->median > 0) { xlog_sum += log(xo->median / xn->median); xlog_n++; }
        if (both && r->has_x) {
            ms_cell(c[11], 64, &r->s[2][0]);
            ms_cell(c[12], 64, &r->s[2][1]);
            ratio_cell(c[13], 64, &r->s[2][0], &r->s[2][1]);
            snprintf(x, sizeof x, " %s | %s | %s |", c[11], c[12], c[13]);
        } else if (both) snprintf(x, sizeof x, " — | — | — |");
        char cr[32] = "—";
        if (o1->ok && n1->ok && o1->cpu_median > 0 && n1->cpu_median > 0) {
            snprintf(cr, sizeof cr, "%.2f", o1->cpu_median / n1->cpu_median);
            clog_sum += log(o1->cpu_median / n1->cpu_median); clog_n++;
        }
        printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s\n", r->name, r->info.ok ? r->info.kind : "—",
               c[0], c[1], c[2], c[3], cr, c[4], c[5], c[6], c[7], c[8], c[9], c[10], x);
    }
    printf("\n");
    for (int k = 0; k < 2; k++)
        if (log_n[k]) printf("geometric mean ours/native at %s: %.2f over %d model(s) both ran\n", k ? h : "1T", exp(log_sum[k] / log_n[k]), log_n[k]);
    if (both && xlog_n)
        printf("geometric mean ours/native at 1T with the quantized models in XNNPACK order: %.2f over %d model(s)\n",
               exp(xlog_sum / xlog_n), xlog_n);
    if (clog_n)
        printf("geometric mean ours/native at 1T in CPU time (median invoke CPU ms): %.2f over %d model(s)\n",
               exp(clog_sum / clog_n), clog_n);
    /* the reasons */
    bool head = false;
    for (int i = 0; i < n_rows; i++) {
        model_row *r = &rows[i];
        if (!r->info.ok) {
            if (!head) { printf("\nnotes:\n"); head = true; }
            printf("- %s: model: %s\n", r->name, r->info.error);
        }
        for (int k = 0; r->info.ok && k < 3; k++)
            for (int w = 0; w < 2; w++) {
                if (k >= r->n_configs && !(k == 2 && r->has_x)) continue;
                const side *s = &r->s[k][w];
                if (s->ok) continue;
                if (k == 2 && !r->s[0][w].ok && !strcmp(r->s[0][w].reason, s->reason)) continue;
                /* the same reason at every thread count is said once */
                if (k == 1 && !r->s[0][w].ok && !strcmp(r->s[0][w].reason, s->reason)) continue;
                if (!head) { printf("\nnotes:\n"); head = true; }
                printf("- %s: %s%s%s: %s\n", r->name, w ? "native" : "ours", k == 1 ? " at " : k == 2 ? " (1T, XNNPACK order)" : "",
                       k == 1 ? h : "", s->reason);
            }
        if (r->info.ok && r->info.unknown_ops) {
            if (!head) { printf("\nnotes:\n"); head = true; }
            printf("- %s: %d matrix op(s) with shapes not static in the file are not in the GFLOP count (+)\n", r->name, r->info.unknown_ops);
        }
    }
}

static void json_side(FILE *f, const side *s) {
    fprintf(f, "{\"ok\":%s,\"reason\":", s->ok ? "true" : "false");
    gc_str t = {0};
    if (s->ok) gc_str_puts(&t, "null"); else gc_str_json(&t, s->reason);
    fputs(t.s ? t.s : "null", f);
    gc_str_free(&t);
    if (s->median >= 0) fprintf(f, ",\"median_ms\":%.6g,\"p25_ms\":%.6g,\"p75_ms\":%.6g", s->median, s->p25, s->p75);
    else fputs(",\"median_ms\":null,\"p25_ms\":null,\"p75_ms\":null", f);
    fputs(",\"runs_ms\":[", f);
    for (int i = 0; i < s->n; i++) fprintf(f, "%s%.6g", i ? "," : "", s->ms[i]);
    fputs("],\"cpu_ms\":[", f);
    for (int i = 0; i < s->ncpu; i++) fprintf(f, "%s%.6g", i ? "," : "", s->cpu[i]);
    fputs("],\"cpu_median_ms\":", f);
    if (s->cpu_median >= 0) fprintf(f, "%.6g", s->cpu_median); else fputs("null", f);
    fprintf(f, ",\"peak_rss_kb\":%lld,\"settle_ms\":%.4g,\"settle_max_ms\":%.4g}", (long long)s->rss_kb,
            s->settle_ms, s->settle_max_ms);
}

static void write_json(const char *file, model_row *rows, int n_rows, int nt, const gc_fma_peak *peak, int64_t base_kb,
                       const bench_opts *bo) {
    FILE *f = fopen(file, "w");
    if (!f) { fprintf(stderr, "interp_vs_native: %s: %s\n", file, strerror(errno)); return; }
    fprintf(f, "{\"schema\":1,\"peak\":{\"gflops\":%.6g,\"isa\":\"%s\",\"avx512\":%.6g,\"avx2\":%.6g,\"scalar\":%.6g,\"muladd\":%.6g},"
            "\"threads_all\":%d,\"runs\":%d,\"warmup\":%d,\"float_arith\":\"%s\",\"baseline_rss_kb\":%lld,\"models\":[",
            peak->gflops, peak->isa ? peak->isa : "none", peak->avx512, peak->avx2, peak->scalar, peak->muladd, nt, bo->runs, bo->warmup,
            gc_float_arith_name(bo->fa),
            (long long)base_kb);
    for (int i = 0; i < n_rows; i++) {
        model_row *r = &rows[i];
        gc_str t = {0};
        gc_str_json(&t, r->name); gc_str_puts(&t, ",\"path\":"); gc_str_json(&t, r->path);
        gc_str_puts(&t, ",\"error\":");
        if (r->info.ok) gc_str_puts(&t, "null"); else gc_str_json(&t, r->info.error);
        fprintf(f, "%s{\"model\":%s,\"kind\":\"%s\",\"flops\":%llu,\"macs_unknown_ops\":%d,\"configs\":[", i ? "," : "",
                t.s ? t.s : "\"\"", r->info.kind, (unsigned long long)(r->info.macs * 2), r->info.unknown_ops);
        gc_str_free(&t);
        for (int k = 0; k < 3; k++) {
            if (k >= r->n_configs && !(k == 2 && r->has_x)) continue;
            fprintf(f, "%s{\"threads\":%d,\"int_arith\":\"%s\",\"ours\":", k ? "," : "", k == 1 ? nt : 1,
                    gc_qmode_name(k == 2 ? GC_QMODE_XNNPACK : bo->qmode));
            json_side(f, &r->s[k][0]);
            fputs(",\"native\":", f);
            json_side(f, &r->s[k][1]);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("]}\n", f);
    fclose(f);
}

static int usage(const char *why) {
    fprintf(stderr, "interp_vs_native: %s\n"
            "usage: interp_vs_native [--runs N] [--warmup W] [--threads N] [--timeout S] [--json FILE]\n"
            "                        [--peak-trials T] [--int-arith tflite|xnnpack] MODEL.tflite...\n"
            "  --runs N       timed invokes per side (default 7, at least 1)\n"
            "  --warmup W     untimed interleaved invokes before them (default 1), after each side's first\n"
            "  --threads N    the all-cores column (default: the cores this process may use)\n"
            "  --timeout S    seconds any one step (prepare/compile, one invoke) may take (default 300)\n"
            "  --json FILE    also write every timing there\n"
            "  --peak-trials T  FMA peak: best of T trials of 50 ms, before and after the models (default 20)\n"
            "  --int-arith M  how our quantized kernels rescale: tflite (default) or xnnpack (gc_qmode); both:\n"
            "                 tflite, and the quantized models once more at 1T in xnnpack order (what XNNPACK computes)\n"
            "  --float-arith M  ours' fp32 multiply-adds: fma or muladd (default: interp.h's)\n", why);
    return 2;
}

static bool int_arg(const char *v, long lo, long hi, long *out) {
    if (!v || !*v) return false;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) return false;
    *out = x;
    return true;
}

int main(int argc, char **argv) {
    bench_opts bo = { 7, 1, 300, GC_QMODE_TFLITE, false, false };
    const char *json = NULL;
    long threads_all = 0, trials = 20;
    const char **models = calloc((size_t)argc + 1, sizeof *models);
    int n_models = 0;
    if (!models) return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x;
        if (!strcmp(a, "--runs")) { if (!int_arg(v, 1, 100000, &x)) return usage("--runs needs an integer >= 1"); bo.runs = (int)x; i++; }
        else if (!strcmp(a, "--warmup")) { if (!int_arg(v, 0, 100000, &x)) return usage("--warmup needs an integer >= 0"); bo.warmup = (int)x; i++; }
        else if (!strcmp(a, "--threads")) { if (!int_arg(v, 1, 1024, &x)) return usage("--threads needs an integer >= 1"); threads_all = x; i++; }
        else if (!strcmp(a, "--peak-trials")) { if (!int_arg(v, 1, 1000, &x)) return usage("--peak-trials needs an integer >= 1"); trials = x; i++; }
        else if (!strcmp(a, "--timeout")) {
            char *end;
            if (!v || (bo.timeout_s = strtod(v, &end), *end) || !(bo.timeout_s > 0) || bo.timeout_s > 86400) return usage("--timeout needs seconds in (0, 86400]");
            i++;
        } else if (!strcmp(a, "--int-arith")) {
            int q = v && !strcmp(v, "both") ? GC_QMODE_TFLITE : v ? gc_qmode_parse(v) : -1;
            if (q < 0) return usage("--int-arith must be tflite, xnnpack or both");
            bo.qmode = (gc_qmode)q; bo.both = !strcmp(v, "both"); i++;
        } else if (!strcmp(a, "--float-arith")) {
            if (gc_float_arith_parse(v) < 0) return usage("--float-arith must be fma or muladd");
            bo.fa = (gc_float_arith)gc_float_arith_parse(v); i++;
        } else if (!strcmp(a, "--json")) { if (!v) return usage("--json needs a file"); json = v; i++; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage("the interpreter against native LiteRT CPU"); return 0; }
        else if (a[0] == '-') { char t[200]; snprintf(t, sizeof t, "unknown option %s", a); return usage(t); }
        else models[n_models++] = a;
    }
    if (!n_models) return usage("no model given");
    if (!threads_all) {
        cpu_set_t cs;
        threads_all = sched_getaffinity(0, sizeof cs, &cs) == 0 ? CPU_COUNT(&cs) : sysconf(_SC_NPROCESSORS_ONLN);
        if (threads_all < 1) threads_all = 1;
    }
    int nt = (int)threads_all;
    signal(SIGPIPE, SIG_IGN);                      /* a dead worker is read as EOF, not a signal */

    /* the peak: before and after the models, the best of both (the machine may be shared) */
    gc_fma_peak peak, again;
    gc_fma_peak_measure(&peak, (int)trials, 0.05);
    int64_t base_kb = peak_rss_kb();
    model_row *rows = calloc((size_t)n_models, sizeof *rows);
    if (!rows) return 2;
    for (int i = 0; i < n_models; i++) {
        model_row *r = &rows[i];
        r->path = models[i];
        base_name(r->path, r->name, sizeof r->name);
        fprintf(stderr, "[%d/%d] %s\n", i + 1, n_models, r->name);
        count_model(r->path, &r->info);
        r->n_configs = nt > 1 ? 2 : 1;
        for (int k = 0; k < r->n_configs; k++) {
            if (!r->info.ok) {                       /* unreadable: neither side can run it */
                for (int w = 0; w < 2; w++) { r->s[k][w].rss_kb = -1; r->s[k][w].median = -1; snprintf(r->s[k][w].reason, sizeof r->s[k][w].reason, "model unreadable"); }
                continue;
            }
            run_config(r->path, k ? nt : 1, &bo, &r->s[k][0], &r->s[k][1]);
        }
        if (bo.both && r->info.ok && (!strcmp(r->info.kind, "quant") || !strcmp(r->info.kind, "hybrid"))) {
            bench_opts xo = bo;
            xo.qmode = GC_QMODE_XNNPACK;
            run_config(r->path, 1, &xo, &r->s[2][0], &r->s[2][1]);
            r->has_x = true;
        }
    }
    gc_fma_peak_measure(&again, (int)trials, 0.05);
    double first = peak.gflops;
    if (again.avx512 > peak.avx512) peak.avx512 = again.avx512;
    if (again.avx2 > peak.avx2) peak.avx2 = again.avx2;
    if (again.scalar > peak.scalar) peak.scalar = again.scalar;
    if (again.gflops > peak.gflops) { peak.gflops = again.gflops; peak.isa = again.isa; }
    if (again.muladd > peak.muladd) peak.muladd = again.muladd;
    printf("fp32 peak, one core: %.1f GFLOP/s with %s (FMA chains, best of %ld trials of 50 ms before the models (%.1f) "
           "and after (%.1f); avx512f %.1f, avx2+fma %.1f, scalar %.1f)\n",
           peak.gflops, peak.isa, trials, first, again.gflops, peak.avx512, peak.avx2, peak.scalar);
    if (peak.muladd > 0)
        printf("the same chains as a separate multiply and add (what --float-arith muladd issues): %.1f GFLOP/s "
               "(%.0f%% of the FMA peak)\n", peak.muladd, 100 * peak.muladd / peak.gflops);
    printf("threads: 1T = 1, %dT = %d; %d timed invokes per side after 1 + %d warm-up, ours and native interleaved invoke by invoke\n",
           nt, nt, bo.runs, bo.warmup);
    double wait_max[2] = { 0, 0 };                 /* before ours (native settling), before native */
    for (int i = 0; i < n_models; i++)
        for (int k = 0; k < rows[i].n_configs; k++)
            for (int w = 0; w < 2; w++)
                if (rows[i].s[k][w].settle_max_ms > wait_max[w]) wait_max[w] = rows[i].s[k][w].settle_max_ms;
    printf("before each invoke the other side's threads were left to go idle (no runnable thread in its process group, "
           "at most %.0f ms): longest wait %.2f ms for native's, %.2f ms for ours\n", SETTLE_MAX_S * 1e3, wait_max[0], wait_max[1]);
    printf("ours: fp32, --float-arith %s, --int-arith %s%s\n", gc_float_arith_name(bo.fa), gc_qmode_name(bo.qmode),
           bo.both ? "; the quantized models also at 1T with --int-arith xnnpack (native's own rescaling order: the last three columns)" : "");
    printf("ms: median of the timed invokes, ±: half the interquartile range over the median; ratio > 1: ours slower\n");
    printf("CPU time: the median of each invoke's CPU time (all the worker's threads, /proc schedstat), which leaves out the "
           "time a side waited for a core: on a loaded machine the fairer 1T ratio\n");
    printf("GFLOP/s: the model's GFLOP over the 1T median; %% of the fp32 peak (quant models do int8 arithmetic, "
           "which can go past it)\n");
    printf("peak RSS: each side's own process (getrusage), both forked from a %.0f MB coordinator\n\n", (double)base_kb / 1024);
    print_table(rows, n_models, nt, &peak, bo.both);
    if (json) write_json(json, rows, n_models, nt, &peak, base_kb, &bo);
    for (int i = 0; i < n_models; i++)
        for (int k = 0; k < 3; k++) for (int w = 0; w < 2; w++) free(rows[i].s[k][w].ms);
    free(rows);
    free(models);
    return 0;
}
