/* report_out.h — the CLI's --html / --model-explorer helpers (report_out.c), for the
 * verbs that write reports. */
#ifndef GC_CLI_REPORT_OUT_H
#define GC_CLI_REPORT_OUT_H
#include <stdbool.h>
#include "report/html.h"
#include "verify/bisect.h"

/* render and write OUT atomically: 0, or 2 after one line on stderr naming the file */
int gc_cli_write_report(const char *out, const gc_html_report *rep, const gc_check_result *r, const gc_model *m);
/* an output path for --html / --model-explorer: absent or a regular file, and not the
 * model (inputs are never modified); NULL is fine. 0, or 2 after a usage error line */
int gc_cli_report_path(const char *verb, const char *out, const char *model);
/* write an overlay (or any rendered string): 0, or 2 after one line on stderr */
int gc_cli_write_string(const char *out, const gc_str *s);
/* an interpreter bisect as the report's probe series, one probe per compared float op
 * output in execution order (*probes malloc'd: free it); false when out of memory */
bool gc_cli_bisect_series(const gc_bisect_result *b, const char *title, gc_html_series *s, gc_html_probe **probes);
#endif
