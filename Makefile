# gpuclean — one plain Makefile.
#   make            build/gpuclean, build/libgpuclean.a, build/libgpuclean.so
#   make test       install what the tests need, build, run every test (C, Node, Python)
#   make test-slow  also the slow Python tests (ten real-architecture conversions)
#   make ctest      the C unit tests only
#   make asan       C tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make ubsan      C tests under UndefinedBehaviorSanitizer alone
#   make fuzz       libFuzzer targets (clang): build/fuzz_read (model + check), build/fuzz_interp,
#                   build/fuzz_npy (.npy/.npz readers), build/fuzz_verify (verify + compare CLI on
#                   hostile .npy), and their replay mains; FUZZ_SECONDS=60 make fuzz-run (every target)
#   make demo       install what it needs, then the main job on the built-in default model
#   make zoo        every model recipe (models/<family>/<model>/) end to end, one table
#                   (ZOO="name ..." for some; build/zoo/<family>/<model>/ holds the outputs)
#   make bench      our interpreter vs native LiteRT CPU per model, one table (bench-all: every bench/)
#   make install PREFIX=/usr/local
#   make wheel      dist/gpuclean-VERSION-py3-none-manylinux_X_Y_ARCH.whl (pip install it)
CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter
CPPFLAGS+= -D_GNU_SOURCE -Iinclude -Isrc
LDLIBS   = -lm -lpthread -ldl
ifeq ($(WERROR),1)
WARN += -Werror
endif

LIB_SRC := $(sort $(wildcard src/common/*.c src/model/*.c src/check/*.c src/interp/*.c \
             src/interp/kernels/*.c src/verify/*.c src/fix/*.c src/report/*.c src/runtime/*.c \
             src/api/*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
TEST_SRC:= $(sort $(wildcard tests/c/*.c))

# libgpuclean.so links $(BUILD)/$(PIC_DIR)/*.o: pic, compiled -fPIC beside the static
# library's obj/; a build whose CFLAGS make every object position-independent may set
# PIC_DIR=obj so that both libraries link the same objects (make asan does)
PIC_DIR ?= pic
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/$(PIC_DIR)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ:= $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
DEPS    := $(BUILD)/obj/tools/demo_model.d $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(PIC_OBJ:.o=.d)

.PHONY: wheel wheel-bin test-slow all lib cli test ctest asan ubsan fuzz fuzz-run demo zoo bench bench-all install clean venv
all: lib cli
lib: $(BUILD)/libgpuclean.a $(BUILD)/libgpuclean.so
cli: $(BUILD)/gpuclean

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/libgpuclean.a: $(LIB_OBJ)
	@rm -f $@; ar rcs $@ $^
$(BUILD)/libgpuclean.so: $(PIC_OBJ)
	$(CC) -shared $(CFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/gpuclean: $(CLI_OBJ) $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/gctest: $(TEST_OBJ) $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
# the built-in default model (tools/demo_model.c) and the per-rule GPU test models
$(BUILD)/demo-model: $(BUILD)/obj/tools/demo_model.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/rule-models: $(BUILD)/obj/tools/rule-models.o $(BUILD)/obj/tests/c/test_check_cases.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
# models that diverge at a known op in half precision (tests of `bisect --runtime`)
$(BUILD)/gpu-bisect-models: $(BUILD)/obj/tools/gpu_bisect_models.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
# the GPU miscompute sweep's model generator (tools/sweep/; run by tools/gpu_sweep.py pack)
SWEEP_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard tools/sweep/*.c)))
DEPS += $(SWEEP_OBJ:.o=.d)
$(BUILD)/gpu-sweep: $(SWEEP_OBJ) $(BUILD)/obj/tests/c/test_check_cases.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# ---- tests -------------------------------------------------------------------
ctest: $(BUILD)/gctest $(BUILD)/gpuclean $(BUILD)/demo-model $(BUILD)/gpu-bisect-models
	$(BUILD)/gctest
	tests/cli/run.sh $(BUILD)/gpuclean $(BUILD)/demo-model

# builds use every core even when `make test` itself was started without -j (as CI does);
# tools/test.sh runs setup, the build, ctest, asan and the integration tests, overlapping
# what does not depend on each other (TEST_JOBS=1: one after the other)
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test:
	TEST_JOBS=$(TEST_JOBS) MAKE="$(MAKE)" ./tools/test.sh

# the ASan build compiles every object with -fPIC once (PIC_DIR=obj): libgpuclean.so, which
# tests/cli/install.sh's `make install` needs, links the objects the tests run
SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -UNDEBUG
ASAN_VARS = BUILD=build/asan PIC_DIR=obj CFLAGS="$(SAN_FLAGS) -fPIC -fsanitize=address,undefined -fno-sanitize-recover=undefined"
asan:
	$(MAKE) -j$(TEST_JOBS) $(ASAN_VARS) build/asan/gctest build/asan/gpuclean build/asan/demo-model build/asan/gpu-bisect-models build/asan/libgpuclean.so
	$(MAKE) $(ASAN_VARS) ctest
ubsan:
	$(MAKE) BUILD=build/ubsan CFLAGS="$(SAN_FLAGS) -fsanitize=undefined -fno-sanitize-recover=undefined" ctest

# ---- fuzzing (needs clang with libFuzzer) --------------------------------------
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := build/fuzz_read build/fuzz_interp build/fuzz_npy build/fuzz_verify
fuzz: $(FUZZ_TARGETS) build/fuzz_replay build/fuzz_replay_npy build/fuzz_replay_verify
FUZZ_SRC := $(wildcard src/common/*.c src/model/*.c src/report/*.c src/check/*.c)
build/fuzz_read: fuzz/fuzz_read.c $(FUZZ_SRC)
	@mkdir -p build
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=all -o $@ $^ $(LDLIBS)
INTERP_FUZZ_SRC := $(wildcard src/common/*.c src/model/*.c src/interp/*.c src/interp/kernels/*.c)
build/fuzz_interp: fuzz/fuzz_interp.c $(INTERP_FUZZ_SRC)
	@mkdir -p build
	$(FUZZ_CC) $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=all -o $@ $^ $(LDLIBS)
build/fuzz_replay: fuzz/fuzz_read.c fuzz/replay.c $(FUZZ_SRC)
	@mkdir -p build
	$(CC) $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=address,undefined -o $@ $^ $(LDLIBS)
# the .npy readers, and `verify` / `compare` (the CLI code itself, src/cli/main.c's helpers
# through fuzz/cli_glue.c) on hostile .npy inputs; seeds: fuzz/seeds-npy, fuzz/seeds-verify
# (fuzz/make_seeds.py)
NPY_FUZZ_SRC := $(wildcard src/common/*.c src/model/*.c) src/verify/npy.c src/verify/compare.c
VERIFY_FUZZ_SRC := fuzz/cli_glue.c src/cli/verify.c src/cli/compare.c src/cli/report_out.c \
                   $(wildcard src/common/*.c src/model/*.c src/verify/*.c src/interp/*.c src/interp/kernels/*.c \
                              src/check/*.c src/report/*.c)
FUZZ_FLAGS = -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=all
build/fuzz_npy: fuzz/fuzz_npy.c $(NPY_FUZZ_SRC)
	@mkdir -p build
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS)
build/fuzz_verify: fuzz/fuzz_verify.c $(VERIFY_FUZZ_SRC)
	@mkdir -p build
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS)
build/fuzz_replay_npy: fuzz/fuzz_npy.c fuzz/replay.c $(NPY_FUZZ_SRC)
	@mkdir -p build
	$(CC) $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=address,undefined -o $@ $^ $(LDLIBS)
build/fuzz_replay_verify: fuzz/fuzz_verify.c fuzz/replay.c $(VERIFY_FUZZ_SRC)
	@mkdir -p build
	$(CC) $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=address,undefined -o $@ $^ $(LDLIBS)
fuzz-run: $(FUZZ_TARGETS)
	./fuzz/run.sh $(FUZZ_SECONDS) read interp npy verify

demo:
	./tools/setup.sh
	$(MAKE) all $(BUILD)/demo-model
	./tools/demo.sh

test-slow:
	./tools/setup.sh
	$(MAKE) all
	GPUCLEAN_SLOW=1 tests/integration/python_tests.sh

zoo:
	./tools/setup.sh
	$(MAKE) all
	.venv/bin/python tools/zoo.py --md build/zoo/TABLE.md $(ZOO)

# bench: our interpreter against native LiteRT CPU, one table (bench/interp_vs_native.sh;
# BENCH_ARGS="--json FILE --runs N ..." passes options, MODEL paths too); bench-all: that and
# every other benchmark (bench/run.sh)
$(BUILD)/interp_vs_native: $(BUILD)/obj/bench/interp_vs_native.o $(BUILD)/obj/bench/fma_peak.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
DEPS += $(BUILD)/obj/bench/interp_vs_native.d $(BUILD)/obj/bench/fma_peak.d
# the interpreter's 1 -> N thread speed-up, 1T and NT invokes interleaved in one process
$(BUILD)/pool_speedup: $(BUILD)/obj/bench/pool_speedup.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
DEPS += $(BUILD)/obj/bench/pool_speedup.d
# where the interpreter's time goes, op by op (minimum over invokes per op)
$(BUILD)/op_profile: $(BUILD)/obj/bench/op_profile.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
DEPS += $(BUILD)/obj/bench/op_profile.d
# the half GEMM modes' kernels (plain and quick) against the float one, one shape
$(BUILD)/h16_gemm: $(BUILD)/obj/bench/h16_gemm.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
DEPS += $(BUILD)/obj/bench/h16_gemm.d
# the split kernels' roundings (f16_simd.h gc_r16v_*) against the conversions, every case
$(BUILD)/h16_split_check: $(BUILD)/obj/bench/h16_split_check.o $(BUILD)/libgpuclean.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
DEPS += $(BUILD)/obj/bench/h16_split_check.d
bench: all $(BUILD)/interp_vs_native
	./bench/interp_vs_native.sh $(BENCH_ARGS)
bench-all: all $(BUILD)/interp_vs_native
	./bench/run.sh

# install: PREFIX/bin/gpuclean, PREFIX/lib/libgpuclean.{a,so}, PREFIX/lib/pkgconfig/gpuclean.pc,
# PREFIX/include/gpuclean/ (gpuclean.h and the library's headers; their "dir/x.h" includes
# rewritten relative to each header, so -IPREFIX/include and -IPREFIX/include/gpuclean
# both work), and the LiteRT runtime that `gpuclean litert` runs, in PREFIX/share/gpuclean
# (runtime/litert and build/litert-wheel/lib, where the installed binary looks; or set
# GPUCLEAN_HOME). DESTDIR is honoured.
GC_VERSION := $(shell sed -n 's/^\#define GPUCLEAN_VERSION "\(.*\)"/\1/p' src/cli/main.c)
HDR_DIRS := api check common fix interp model report runtime verify
install: all
	@d=$(DESTDIR)$(PREFIX); set -e; \
	install -d $$d/bin $$d/lib/pkgconfig $$d/include/gpuclean $$d/share/gpuclean; \
	install -m 755 $(BUILD)/gpuclean $$d/bin/; \
	install -m 644 $(BUILD)/libgpuclean.a $(BUILD)/libgpuclean.so $$d/lib/; \
	for h in $$(cd src && find $(HDR_DIRS) -name '*.h' | sort) gpuclean.h; do \
	  if [ $$h = gpuclean.h ]; then src=include/gpuclean.h; up=""; \
	  else src=src/$$h; up=$$(dirname $$h | sed 's,[^/]*,..,g')/; fi; \
	  install -d $$d/include/gpuclean/$$(dirname $$h); \
	  sed -E "s,^(#[ \t]*include[ \t]*)\"(\.\./)*(($$(echo $(HDR_DIRS) | tr ' ' '|'))/[^\"]+)\",\1\"$$up\3\"," $$src \
	    > $$d/include/gpuclean/$$h; chmod 644 $$d/include/gpuclean/$$h; \
	done; \
	sed -e 's,@PREFIX@,$(PREFIX),' -e 's,@VERSION@,$(GC_VERSION),' tools/gpuclean.pc.in > $$d/lib/pkgconfig/gpuclean.pc; \
	rm -rf $$d/share/gpuclean/runtime/litert $$d/share/gpuclean/build/litert-wheel/lib; \
	install -d $$d/share/gpuclean/runtime/litert $$d/share/gpuclean/build/litert-wheel/lib; \
	for f in runner.mjs package.json package-lock.json README.md setup.sh; do \
	  [ -f runtime/litert/$$f ] && install -m 644 runtime/litert/$$f $$d/share/gpuclean/runtime/litert/; done; \
	if [ -d runtime/litert/node_modules ]; then cp -R runtime/litert/node_modules $$d/share/gpuclean/runtime/litert/; \
	else echo "note: runtime/litert/node_modules missing (run tools/setup.sh first): gpuclean litert --runtime js will not run"; fi; \
	if ls build/litert-wheel/lib/*.so >/dev/null 2>&1; then install -m 644 build/litert-wheel/lib/* $$d/share/gpuclean/build/litert-wheel/lib/; \
	else echo "note: build/litert-wheel/lib missing (run tools/setup.sh first): gpuclean litert --runtime native will not run"; fi; \
	echo "installed gpuclean $(GC_VERSION) under $$d"

# wheel: the Python package with the CLI, libgpuclean.so (release flags, build/release) and
# the LiteRT.js runner files; the manylinux tag is computed from the glibc symbol versions
# the binaries need (python/gpuclean_build.py). wheel-bin: only the release binaries, every
# object compiled once, -fPIC (PIC_DIR=obj, as make asan): the wheel's libgpuclean.so and
# its CLI link the same objects (half the compiles of a separate obj/ and pic/: make test's
# wheel check is one of its two longest parts); -fno-semantic-interposition keeps the
# calls within a file as free to inline as without -fPIC.
PYTHON   ?= python3
REL_FLAGS = -O2 -DNDEBUG -fPIC -fno-semantic-interposition
wheel: wheel-bin
	$(PYTHON) python/gpuclean_build.py --build build/release --out dist
wheel-bin:
	$(MAKE) BUILD=build/release PIC_DIR=obj CFLAGS="$(REL_FLAGS)" all

clean:
	rm -rf build

-include $(DEPS)
