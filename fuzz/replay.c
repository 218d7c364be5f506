/* replay.c — a main() for fuzz_read.c without libFuzzer: runs each file given (or
 * every file in each directory given) through the target, so crashes reproduce
 * under plain ASan/UBSan builds. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 1; }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (!b || (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n)) { fclose(f); free(b); return 1; }
    fclose(f);
    LLVMFuzzerTestOneInput(b, (size_t)n);
    free(b);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { perror(argv[i]); return 1; }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]); struct dirent *e;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.') continue;
                char p[4096]; snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                if (run_file(p) == 0) files++;
            }
            if (d) closedir(d);
        } else if (run_file(argv[i]) == 0) files++;
    }
    printf("replayed %d file(s) without a crash\n", files);
    return 0;
}
