/* cli_glue.c — the CLI's shared helpers (src/cli/main.c: gc_cli_err, gc_cli_usage_error,
 * gc_cli_input_file, gc_cli_write_text, ...) for fuzz targets that call a verb's
 * gc_cli_<verb>() directly; main() is renamed so that libFuzzer's (or replay.c's) is the
 * program's. */
#define main gc_cli_main_unused
#include "../src/cli/main.c"
