/* html_plot.c — per-node error plots of one series: max|diff| (log scale), rel (log
 * scale, the tolerance as a dashed line) and SNR (dB; left out when the source measured
 * none, as the GPU bisect) against the probes in execution order. The first divergent probe is marked with a red vertical line on every plot.
 * Exact zeros sit on the bottom edge of a log plot (tick "0"), identical tensors on the top
 * edge of the SNR plot (tick "exact"), NaN/Inf mismatches on the top edge of the error
 * plots as red points. Each point is a <circle class="pt" data-k="<node>"> the script
 * makes clickable (series of up to GC_HTML_PLOT_POINTS probes; longer ones are lines). */
#include "html_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PW 900.0
#define PH 150.0
#define ML 64.0
#define MR 40.0
#define MT 12.0
#define MB 26.0
#define GC_HTML_PLOT_POINTS 1500

enum { P_MAXABS, P_REL, P_SNR };

static double value(const gc_html_probe *p, int which) {
    return which == P_MAXABS ? p->max_abs : which == P_REL ? p->rel : p->snr_db;
}

/* the probe's y on a plot spanning [lo, hi] (log10 units on the error plots); false when
 * the probe did not measure this value. Zeros (log plots) go to the bottom edge, +inf SNR
 * (identical) to the top, NaN/Inf mismatches to the top of the error plots and the bottom
 * of the SNR plot. */
static bool ypos(const gc_html_probe *p, int which, double lo, double hi, double *y) {
    double ih = PH - MT - MB, v = value(p, which);
    if (p->nonfinite) { *y = which == P_SNR ? MT + ih : MT; return true; }
    if (isnan(v)) return false;
    if (which != P_SNR) {
        if (!(v > 0)) { *y = MT + ih; return true; }
        if (!isfinite(v)) { *y = MT; return true; }
        v = log10(v);
    } else if (!isfinite(v)) { *y = v > 0 ? MT : MT + ih; return true; }
    double t = (v - lo) / (hi - lo);
    *y = MT + ih - (t < 0 ? 0 : t > 1 ? 1 : t) * ih;
    return true;
}

static void tick_label(char *b, size_t n, double v, bool logy) {
    if (logy) snprintf(b, n, "1e%d", (int)lround(v));
    else snprintf(b, n, "%.0f", v);
}

static void plot(const gc_hctx *c, const gc_html_series *s, int which, gc_str *o) {
    bool logy = which != P_SNR;
    const char *title = which == P_MAXABS ? "max |diff|" : which == P_REL ? "rel = max|diff| / max|ref|" : "SNR (dB)";
    double lo = INFINITY, hi = -INFINITY;
    int32_t n = s->n_probes;
    for (int32_t i = 0; i < n; i++) {
        double v = value(&s->probes[i], which);
        if (s->probes[i].nonfinite || !isfinite(v) || isnan(v)) continue;
        if (logy) { if (!(v > 0)) continue; v = log10(v); }
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    if (which == P_REL && s->tol > 0) {
        double t = log10(s->tol);
        if (t < lo) lo = t;
        if (t > hi) hi = t;
    }
    bool none = !(lo <= hi);
    if (none && which == P_SNR) return;      /* a source without SNR (the GPU bisect): no plot */
    if (none) { lo = 0; hi = 1; }
    if (logy) { lo = floor(lo); hi = ceil(hi); }
    if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
    double iw = PW - ML - MR, ih = PH - MT - MB;
    gc_str_printf(o, "<figure class=\"plot\"><figcaption>%s</figcaption>\n"
                     "<svg class=\"pl\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
                     "<rect class=\"pf\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>\n",
                  title, PW, PH, ML, MT, iw, ih);
    /* y ticks: decades (log) or five steps (dB), at most eight */
    double step = logy ? ceil((hi - lo) / 8) : (hi - lo) / 4;
    if (step <= 0) step = 1;
    for (double v = lo; v <= hi + 1e-9; v += step) {
        double y = MT + ih - (v - lo) / (hi - lo) * ih;
        char b[32];
        tick_label(b, sizeof b, v, logy);
        gc_str_printf(o, "<line class=\"gl\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                         "<text class=\"tk\" x=\"%.0f\" y=\"%.1f\">%s</text>\n",
                      ML, ML + iw, y, y, ML - 4, y + 4, b);
    }
    gc_str_printf(o, "<text class=\"tk r\" x=\"%.0f\" y=\"%.1f\">%s</text>\n", ML + iw + 3, which == P_SNR ? MT + 4 : MT + ih + 4,
                  which == P_SNR ? "exact" : "0");
    if (which == P_REL && s->tol > 0) {
        double y = MT + ih - (log10(s->tol) - lo) / (hi - lo) * ih;
        gc_str_printf(o, "<line class=\"tol\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                         "<text class=\"tk tl\" x=\"%.0f\" y=\"%.1f\">tol %.3g</text>\n",
                      ML, ML + iw, y, y, ML + iw - 2, y - 3, s->tol);
    }
    double dx = n > 1 ? iw / (n - 1) : 0;
    /* x positions; y of each probe (NAN: not measured) */
    gc_str line = {0};
    bool pen = false;
    for (int32_t i = 0; i < n; i++) {
        const gc_html_probe *p = &s->probes[i];
        double x = ML + (n > 1 ? i * dx : iw / 2), y;
        if (!ypos(p, which, lo, hi, &y)) { pen = false; continue; }
        gc_str_printf(&line, "%s%.1f %.1f", pen ? " " : (line.n ? "\"/><polyline class=\"ln\" points=\"" : ""), x, y);
        pen = true;
    }
    if (line.n) gc_str_printf(o, "<polyline class=\"ln\" points=\"%s\"/>\n", line.s);
    if (line.oom) o->oom = true;
    gc_str_free(&line);
    if (n <= GC_HTML_PLOT_POINTS)
        for (int32_t i = 0; i < n; i++) {
            const gc_html_probe *p = &s->probes[i];
            double x = ML + (n > 1 ? i * dx : iw / 2), y;
            if (!ypos(p, which, lo, hi, &y)) continue;
            int32_t k = gc_hctx_node(c, p->subgraph, p->node);
            gc_str_printf(o, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"", p->nonfinite ? " nf" : "", x, y,
                          n > 300 ? "1.6" : "2.6");
            if (k >= 0) gc_str_printf(o, " data-k=\"%d\"", k);
            gc_str_puts(o, "/>\n");
        }
    /* x axis: first, last, and the first divergent probe (op index) */
    for (int e = 0; e < 2 && n > 0; e++) {
        int32_t i = e ? n - 1 : 0;
        gc_str_printf(o, "<text class=\"tx%s\" x=\"%.1f\" y=\"%.0f\">op %d</text>\n", n > 1 ? (e ? " e" : " s") : "",
                      ML + (n > 1 ? i * dx : iw / 2), PH - 8, s->probes[i].node);
    }
    if (s->first >= 0 && s->first < n) {
        const gc_html_probe *p = &s->probes[s->first];
        double x = ML + (n > 1 ? s->first * dx : iw / 2);
        gc_str_printf(o, "<line class=\"fd\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>"
                         "<text class=\"fdt\" x=\"%.1f\" y=\"%.0f\">first divergent: op %d</text>\n",
                      x, x, MT, MT + ih, x + 3, MT + 11, p->node);
    }
    if (none) gc_str_printf(o, "<text class=\"tk\" x=\"%.0f\" y=\"%.0f\">nothing measured</text>\n", ML + iw / 2, MT + ih / 2);
    gc_str_puts(o, "</svg></figure>\n");
}

void gc_html_plots(const gc_hctx *c, const gc_html_series *s, int si, gc_str *o) {
    (void)si;
    plot(c, s, P_MAXABS, o);
    plot(c, s, P_REL, o);
    plot(c, s, P_SNR, o);
}
