# The two commands a new user runs: `make demo` and `make test`.
# Both install what is missing (scripts/install-deps), configure CMake in
# Release and build. Everything else here is a convenience.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test test-asan test-asan-ci test-tsan-ci fuzz bench format \
  clean python print-python sweep-opinfo aten-coverage-doc sweep-torchvision

# The project venv's Python (scripts/install-deps makes it; outside the
# checkout, shared by every clone): the module is built for it and every
# Python test and benchmark runs under it.
PYTHON := $(shell ./scripts/install-deps --print-python)
ONNX_TESTDATA := $(shell ./scripts/install-deps --print-testdata)
# ccache keys on paths relative to the checkout, so another clone (CI's, a
# worktree) reuses this one's objects.
export CCACHE_BASEDIR := $(CURDIR)

all: build

deps:
	@./scripts/install-deps

print-python:
	@echo $(PYTHON)

# ccache (installed by scripts/install-deps) makes rebuilds of a fresh clone cheap.
CCACHE_FLAG = $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

# Configured again when the venv changes (a new requirements file), so the
# module is always built for the Python the tests run.
$(BUILD)/build.ninja: CMakeLists.txt python/requirements.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DOXS_PYTHON=$(PYTHON) \
	  -DOXS_ONNX_BACKEND_1_23=$(ONNX_TESTDATA) $(CCACHE_FLAG) $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target oxs oxs_python oxs_torch_aten_library
	OXS_PYTHON=$(PYTHON) ./scripts/demo $(BUILD)/oxs

# The Python package, importable from $(BUILD)/python (see README, "Python").
python: configure
	cmake --build $(BUILD) -j $(JOBS) --target oxs_python
	@echo "oxs package built: PYTHONPATH=$(abspath $(BUILD))/python $(PYTHON) -c 'import oxs'"

# Every OpInfo op of torch's op_db exported one op at a time and compared with
# torch eager on oxs and ONNX Runtime (tests/python/torch_aten/opinfo.py; make
# test runs a subset). Slow: tens of minutes. A crash (the op is marked
# crashed) resumes with the next op. The summary feeds docs/aten-coverage.md.
SWEEP_OUT ?= $(BUILD)/opinfo-sweep.jsonl
sweep-opinfo: build
	rm -f $(SWEEP_OUT)
	cd tests/python/torch_aten && for i in $$(seq 30); do \
	  PYTHONPATH=$(abspath $(BUILD))/python PYTHONDONTWRITEBYTECODE=1 \
	    $(PYTHON) -W ignore opinfo.py sweep $(abspath $(SWEEP_OUT)) && break; \
	  echo "sweep-opinfo: the sweep stopped (crash); resuming"; done
	cd tests/python/torch_aten && PYTHONPATH=$(abspath $(BUILD))/python $(PYTHON) opinfo.py \
	  summarize $(abspath $(SWEEP_OUT)) opinfo_summary.json

# docs/aten-coverage.md from the registry, torch's Core ATen list, the sweep's
# summary and onnxscript's torchlib (read here only; oxs never imports it).
aten-coverage-doc: build
	PYTHONPATH=$(abspath $(BUILD))/python:tests/python/torch_aten $(PYTHON) -W ignore \
	  tools/aten_coverage_doc.py docs/aten-coverage.md

# Every torchvision classification model through oxs.torch.export, checked by
# numbers on oxs and ONNX Runtime (slow: tens of minutes); MODELS=a,b for a
# subset. Writes docs/torchvision-sweep.md.
sweep-torchvision: configure
	cmake --build $(BUILD) -j $(JOBS) --target oxs_python oxs_torch_aten_library
	PYTHONPATH=$(abspath $(BUILD))/python HF_HUB_OFFLINE=1 $(PYTHON) \
	  tests/python/torch/sweep_torchvision.py --out docs/torchvision-sweep.md \
	  $(if $(MODELS),--models $(MODELS))

# `make test ROOM=eval` runs one room's tests (its ctest label).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(if $(ROOM),-L '^$(ROOM)$$')

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer, in
# its own build directory (docs/hostile-input.md, "Sanitizers"). -Werror
# stays on. Optimization is -O1, not Release's -O3: instrumented -O3 costs
# about 4x the Release build's compile time, and -O1 is the usual level for
# sanitizer builds (reports keep usable stacks, the run is still fast). -DNDEBUG
# as in Release, so the code tested is the code shipped, minus inlining.
# ccache, when installed, makes the rebuild before each stop cheap. Too long
# for .ci/run (see the doc for the measured times): run it before each stop.
ASAN_BUILD ?= build-asan
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
	  -DOXS_SANITIZE=address,undefined -DOXS_BUILD_BENCH=OFF -DOXS_PYTHON=$(PYTHON) \
	  $(CCACHE_FLAG) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS)

# The bounded sanitizer stage of .ci/run (docs/hostile-input.md, "Sanitizers
# in CI"): the same ASan+UBSan build as test-asan, but only the oxs binary and
# the ir, onnx, eval, script and rewrite test binaries and the fuzz corpus
# replay (no Python module, ATen library, torch or CLI suites), and of their
# tests those that are not whole-suite runners (conformance, ONNX Runtime
# oracle, backend optimization, mutation fuzzing). test-tsan-ci builds the
# thread pool and its tests alone with ThreadSanitizer (build-tsan/).
ASAN_CI_TARGETS = oxs ir_tests onnx_tests eval_tests script_tests rewrite_tests fuzz_tests
ASAN_CI_LABELS = ^(ir|onnx|eval|script|rewrite|fuzz)$$
ASAN_CI_EXCLUDE = ^(eval_conformance|eval_robustness|eval_roundtrip|eval_ort|rewrite_backend|fuzz_mutate_)
test-asan-ci: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
	  -DOXS_SANITIZE=address,undefined -DOXS_BUILD_BENCH=OFF -DOXS_PYTHON=$(PYTHON) \
	  $(CCACHE_FLAG) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target $(ASAN_CI_TARGETS)
	cd $(ASAN_BUILD) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS) \
	  -L '$(ASAN_CI_LABELS)' -E '$(ASAN_CI_EXCLUDE)'

TSAN_BUILD ?= build-tsan
test-tsan-ci: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
	  -DOXS_SANITIZE=thread -DOXS_BUILD_BENCH=OFF -DOXS_PYTHON=$(PYTHON) \
	  $(CCACHE_FLAG) $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target eval_thread_pool_tests
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  $(TSAN_BUILD)/tests/eval/eval_thread_pool_tests

# Every libFuzzer harness for FUZZ_SECONDS each (fuzz/run.sh, clang).
FUZZ_SECONDS ?= 60
fuzz: deps
	./fuzz/run.sh $(FUZZ_SECONDS)

bench: build
	./bench/run $(BUILD)

format:
	find src tests tools bench examples -name '*.cc' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
