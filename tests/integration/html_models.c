/* html_models.c — writes the models tests/integration/html_report.sh opens in Chromium
 * that no converter makes: OUT_DIR/hostile.tflite, whose tensor, subgraph and custom op
 * names are markup (`</script><img src=x onerror=alert(1)>`, an attribute break-out, an
 * invalid UTF-8 byte, an escape sequence), with two nodes the delegate rejects (an ADD at
 * an unsupported version and the custom op) between nodes it takes.
 * Build: cc -std=c11 -D_GNU_SOURCE -Iinclude -Isrc tests/integration/html_models.c
 *           tests/c/test_check_cases.c build/libgpuclean.a -lm -lpthread -ldl */
#include "../../tools/rule-models.h"

#include <stdio.h>

#define HOSTILE "</script><img src=x onerror=alert(1)>"

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: html_models OUT_DIR\n"); return 2; }
    gc_rb b = gc_rb_new();
    const int32_t sh[4] = { 1, 4, 4, 8 };
    int32_t x = gc_rb_t(&b, HOSTILE, GC_T_FLOAT32, 4, sh);
    int32_t c = gc_rb_c(&b, "c\" onclick=\"alert(2)", GC_T_FLOAT32, 4, sh, NULL);
    const char *names[6] = { "a" HOSTILE, "b\xff\x1b[31m", "c<!--", "d'><svg onload=alert(3)>", "e", "f&amp;" };
    int32_t prev = x;
    for (int i = 0; i < 6; i++) {
        int32_t y = gc_rb_t(&b, names[i], GC_T_FLOAT32, 4, sh);
        if (i == 3) gc_rb_custom(&b, "Evil" HOSTILE, 1, (int32_t[]){ prev }, 1, (int32_t[]){ y }, NULL, 0);
        else gc_rb_op(&b, i % 2 ? GC_OP_MUL : GC_OP_ADD, i == 1 ? 99 : 1, 2, (int32_t[]){ prev, c }, 1, (int32_t[]){ y });
        prev = y;
    }
    b.m->subgraphs[0].name = "sg" HOSTILE;
    gc_model *m = gc_rb_done(&b);
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/hostile.tflite", argv[1]);
    if (gc_model_write_file(m, path, NULL, err, sizeof err) != GC_OK) { fprintf(stderr, "%s: %s\n", path, err); return 1; }
    gc_model_free(m);
    return 0;
}
