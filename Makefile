# The two commands a new user runs: `make demo` and `make test`.
# Both install what is missing (scripts/install-deps), configure CMake in
# Release and build. Everything else here is a convenience.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test bench format clean python

all: build

deps:
	@./scripts/install-deps

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target oxs oxs_python
	./scripts/demo $(BUILD)/oxs

# The Python package, importable from $(BUILD)/python (see README, "Python").
python: configure
	cmake --build $(BUILD) -j $(JOBS) --target oxs_python
	@echo "oxs package built: PYTHONPATH=$(abspath $(BUILD))/python /usr/bin/python3 -c 'import oxs'"

# `make test ROOM=eval` runs one room's tests (its ctest label).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(if $(ROOM),-L '^$(ROOM)$$')

bench: build
	./bench/run $(BUILD)

format:
	find src tests tools bench examples -name '*.cc' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
