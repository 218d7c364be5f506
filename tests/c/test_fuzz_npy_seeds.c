/* test_fuzz_npy_seeds.c — the fuzz_npy target's checks (fuzz/fuzz_npy.c: .npy from memory
 * and from a file, .npz, self-comparison, write -> re-read round trips) on its seeds
 * (fuzz/seeds-npy: every dtype, 0-d, empty, Fortran order, big-endian, format 2.0, stored
 * and deflated .npz) and on their truncations at every length and single-byte flips,
 * inside the unit tests: `make asan` runs them under ASan + UBSan without libFuzzer. The
 * target aborts on any inconsistency. */
#define LLVMFuzzerTestOneInput gc_fuzz_npy_one
#include "../../fuzz/fuzz_npy.c"
#undef LLVMFuzzerTestOneInput

#include "test.h"
#include <dirent.h>

GC_TEST(fuzz_npy_seeds_and_mutations) {
    const char *dir = "fuzz/seeds-npy";
    DIR *d = opendir(dir);
    if (!d) SKIP("%s not found (run from the repository root)", dir);
    struct dirent *e;
    int files = 0;
    long runs = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        FILE *f = fopen(p, "rb");
        if (!f) continue;
        static uint8_t buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        files++;
        for (size_t k = 0; k <= n; k++, runs++) gc_fuzz_npy_one(buf, k);       /* every truncation */
        for (size_t k = 0; k < n && k < 512; k++) {                             /* byte flips in the header */
            uint8_t keep = buf[k];
            buf[k] ^= 0xFF; gc_fuzz_npy_one(buf, n); runs++;
            buf[k] = (uint8_t)(keep + 1); gc_fuzz_npy_one(buf, n); runs++;
            buf[k] = keep;
        }
    }
    closedir(d);
    CHECK_MSG(files >= 20, "%d seed files", files);
    CHECK(runs > 1000);
}
