#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then use the installed tree as a
# user would: the binary, its man page and bash completion, a CMake consumer
# (find_package(oxs)) and a pkg-config consumer, both run on the bundled MLP.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
model=$src/examples/models/mlp.onnx

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
"$prefix/bin/oxs" --version
"$prefix/bin/oxs" check "$model"
test -f "$prefix/include/oxs/ir/model.h"
test ! -e "$prefix/include/oxs/cli"
man=$prefix/share/man/man1/oxs.1
grep -q '^\.TH OXS' "$man" || { echo "no man page header in $man"; exit 1; }
grep -q 'Validate a model' "$man" || { echo "the man page lacks the command list"; exit 1; }
grep -q 'save\\-intermediates' "$man" || { echo "the man page lacks the commands' options"; exit 1; }
grep -q 'complete -o filenames -o bashdefault -F _oxs oxs' \
  "$prefix/share/bash-completion/completions/oxs"

cmake -S "$src/tests/cli/install/consumer" -B "$tmp/cmake-consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/cmake-consumer" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
out=$("$tmp/cmake-consumer/consumer" "$model")
echo "cmake consumer: $out"
[[ "$out" == "4 nodes, 3 outputs, softmax sum 1.000" ]]

pc=$(PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name oxs.pc)")" pkg-config --cflags --libs oxs)
g++ -std=c++20 -O1 "$src/tests/cli/install/consumer/main.cc" -o "$tmp/pc-consumer" $pc
out=$("$tmp/pc-consumer" "$model")
echo "pkg-config consumer: $out"
[[ "$out" == "4 nodes, 3 outputs, softmax sum 1.000" ]]
# The Python package, from the installed tree only (not the build's python/).
site=$(find "$prefix/lib" -path '*-packages/oxs/__init__.py' -printf '%h\n' | head -1)
[[ -n "$site" ]] && ls "$site"/_core*.so > /dev/null ||
  { echo "no oxs Python package (with its _core module) under $prefix/lib"; exit 1; }
abs_model=$(realpath "$model")  # the check runs in $tmp, away from any source tree
# OXS_PYTHON: the project venv's Python (the package is built for it).
# OXS_PYTHON_ENV: what a sanitizer build's tests give that Python
# (tests/cli/CMakeLists.txt); empty otherwise.
read -ra python_env <<< "${OXS_PYTHON_ENV:-}"
out=$(cd "$tmp" && env "${python_env[@]}" PYTHONPATH="$(dirname "$site")" "$OXS_PYTHON" -c '
import sys
import numpy as np
import oxs
assert oxs.__file__.startswith(sys.argv[1]), oxs.__file__
m = oxs.load(sys.argv[2])
y = oxs.run(m, {"X": np.ones((2, 4), np.float32)})
print(f"python: {len(m.graph.nodes)} nodes, softmax sum {float(next(iter(y.values())).sum(axis=1)[0]):.3f}")
' "$prefix" "$abs_model")
echo "python package: $out"
[[ "$out" == "python: 4 nodes, softmax sum 1.000" ]]
echo "install ok"
