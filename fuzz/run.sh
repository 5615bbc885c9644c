#!/usr/bin/env bash
# Runs every libFuzzer harness for SECONDS seconds each (default 60).
#   fuzz/run.sh [SECONDS] [HARNESS...]
# Builds build-fuzz/ with clang-14, libFuzzer and ASan+UBSan (every room
# instrumented). Each harness starts from fuzz/corpus/<name>/ and keeps what
# it learns in build-fuzz/corpus/<name>/ (not committed). A crash stops that
# harness and leaves its input as build-fuzz/crashes/<name>/crash-*; copy it
# into fuzz/corpus/<name>/ once fixed (the replay test then keeps it fixed),
# or into fuzz/findings/<name>/ with a note while it waits for its room.
# Exit status: 0 when no harness found anything, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(load_model single_op compile_script decompile_roundtrip opt_config run_input)
build=build-fuzz
jobs="${JOBS:-$(nproc)}"

if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
    -DCMAKE_CXX_COMPILER=clang++-14 -DOXS_FUZZ=ON -DOXS_SANITIZE=address,undefined \
    -DOXS_WERROR=OFF -DOXS_BUILD_TESTS=OFF -DOXS_BUILD_BENCH=OFF || exit 2
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j "$jobs" --target "${targets[@]}" || exit 2

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for h in "${harnesses[@]}"; do
  mkdir -p "$build/corpus/$h" "$build/crashes/$h"
  echo "== fuzz_$h for ${seconds}s"
  # -rss_limit_mb/-malloc_limit_mb: a huge allocation is a finding, not a
  # dead machine; -timeout: one input running 10 s is a hang.
  "$build/fuzz/fuzz_$h" "$build/corpus/$h" "fuzz/corpus/$h" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/crashes/$h/" \
    > "$build/fuzz_$h.log" 2>&1
  rc=$?
  grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$build/fuzz_$h.log" | tail -2
  if [ $rc -ne 0 ]; then
    status=1
    echo "!! fuzz_$h found a problem (exit $rc); see $build/fuzz_$h.log and $build/crashes/$h/"
    grep -m3 -E "ERROR: |runtime error|==ERROR|deadly signal|uncaught exception" "$build/fuzz_$h.log"
  fi
done
exit $status
