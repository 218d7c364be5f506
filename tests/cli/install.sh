#!/usr/bin/env bash
# tests/cli/install.sh GPUCLEAN DEMO_MODEL SCRATCH — `make install` into a temporary PREFIX,
# then what a user of the installed library and CLI does (issue 12):
#   * a C program with `#include <gpuclean/gpuclean.h>`, built with pkg-config's flags
#     (gpuclean.pc), linked shared and static, runs and reads the demo model;
#   * the same as C++ when g++ exists (extern "C"), else "skip c++";
#   * `#include <gpuclean.h>` with -IPREFIX/include/gpuclean compiles too;
#   * the installed `gpuclean litert` finds its runtime under PREFIX/share/gpuclean
#     (GPUCLEAN_HOME unset, run from /), for each runtime this checkout has installed.
# Prints one "ok ..." line per step; exits non-zero at the first failure.
set -eu
GC=$(realpath "$1"); DEMO=$2; SCRATCH=$3
cd "$(dirname "$0")/../.."
BUILD=$(dirname "$GC")
PREFIX=$SCRATCH/prefix
unset MAKEFLAGS MAKELEVEL MFLAGS GPUCLEAN_HOME GPUCLEAN_LITERT_LIB
make -s install PREFIX="$PREFIX" BUILD="$BUILD" > "$SCRATCH/install.log"
echo "ok   make install PREFIX=\$TMP/prefix"
for f in bin/gpuclean lib/libgpuclean.a lib/libgpuclean.so lib/pkgconfig/gpuclean.pc include/gpuclean/gpuclean.h; do
  [ -f "$PREFIX/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
command -v pkg-config >/dev/null || { echo "FAIL: pkg-config missing"; exit 1; }
LIBS=$(pkg-config --libs gpuclean | sed "s/ *$//"); CFL=$(pkg-config --cflags gpuclean | sed "s/ *$//")
[ "$LIBS" = "-L$PREFIX/lib -lgpuclean -lm -ldl -lpthread" ] || { echo "FAIL: pkg-config --libs: $LIBS"; exit 1; }
echo "ok   pkg-config --cflags --libs gpuclean: $CFL $LIBS" | sed "s,$PREFIX,\$PREFIX,g"
# a library built with sanitizers (make asan) needs them at link time too
SAN=""
if nm "$BUILD/libgpuclean.a" 2>/dev/null | grep -q "__asan_"; then SAN="-fsanitize=address,undefined"; fi
cat > "$SCRATCH/app.c" <<'APP'
#include <stdio.h>
#include <gpuclean/gpuclean.h>
int main(int argc, char **argv) {
    char err[512];
    gc_model *m = gc_model_read_file(argc > 1 ? argv[1] : "model.tflite", err, sizeof err);
    if (!m) { fprintf(stderr, "%s\n", err); return 2; }
    gc_check_result *r = gc_check(m, GC_TARGET_MLDRIFT, err, sizeof err);
    if (!r) { gc_model_free(m); return 2; }
    gc_str s = { NULL, 0, 0, false };
    gc_check_residency_line(r, &s);
    printf("%s\n", s.s);
    gc_str_free(&s);
    gc_check_free(r);
    gc_model_free(m);
    return 0;
}
APP
CC=${CC:-cc}
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $SAN $CFL "$SCRATCH/app.c" -o "$SCRATCH/app_shared" $LIBS -Wl,-rpath,"$PREFIX/lib"
out=$("$SCRATCH/app_shared" "$DEMO")
[ "$out" = "GPU residency: 3/10 nodes in 1 partition(s)" ] || { echo "FAIL: shared C program printed '$out'"; exit 1; }
echo "ok   C program (shared libgpuclean): $out"
# shellcheck disable=SC2086
$CC -std=c11 $SAN $CFL "$SCRATCH/app.c" -o "$SCRATCH/app_static" "$PREFIX/lib/libgpuclean.a" -lm -ldl -lpthread
out=$("$SCRATCH/app_static" "$DEMO")
[ "$out" = "GPU residency: 3/10 nodes in 1 partition(s)" ] || { echo "FAIL: static C program printed '$out'"; exit 1; }
echo "ok   C program (static libgpuclean.a)"
if command -v "${CXX:-g++}" >/dev/null; then
  cp "$SCRATCH/app.c" "$SCRATCH/app.cpp"
  # shellcheck disable=SC2086
  "${CXX:-g++}" -std=c++17 -Wall -Wextra -Werror $SAN $CFL "$SCRATCH/app.cpp" -o "$SCRATCH/app_cpp" $LIBS -Wl,-rpath,"$PREFIX/lib"
  out=$("$SCRATCH/app_cpp" "$DEMO")
  [ "$out" = "GPU residency: 3/10 nodes in 1 partition(s)" ] || { echo "FAIL: C++ program printed '$out'"; exit 1; }
  echo "ok   C++ program links (extern \"C\")"
else
  echo "skip c++: no g++"
fi
printf '#include <gpuclean.h>\nint gc_probe(void) { return GC_TARGET_CLASSIC; }\n' > "$SCRATCH/alt.c"
$CC -std=c11 -Wall -Werror -I"$PREFIX/include/gpuclean" -c "$SCRATCH/alt.c" -o "$SCRATCH/alt.o"
echo "ok   #include <gpuclean.h> with -I\$PREFIX/include/gpuclean"
# the installed CLI finds its runtime under PREFIX/share/gpuclean
cp "$DEMO" "$SCRATCH/m.tflite"
for rt in native js; do
  if [ $rt = native ] && [ ! -f build/litert-wheel/lib/libLiteRt.so ]; then echo "skip litert native: not installed in this checkout"; continue; fi
  if [ $rt = js ] && { [ ! -d runtime/litert/node_modules ] || ! command -v node >/dev/null; }; then echo "skip litert js: not installed in this checkout"; continue; fi
  (cd / && "$PREFIX/bin/gpuclean" litert --quiet --accelerator cpu --runtime $rt "$SCRATCH/m.tflite") > "$SCRATCH/lrt.out" 2> "$SCRATCH/lrt.err" || true
  grep -q "^verdict: CPU only: ran clean" "$SCRATCH/lrt.out" || { echo "FAIL: installed gpuclean litert --runtime $rt:"; cat "$SCRATCH/lrt.out" "$SCRATCH/lrt.err"; exit 1; }
  echo "ok   installed gpuclean litert --runtime $rt finds PREFIX/share/gpuclean"
done
echo "install test passed"
