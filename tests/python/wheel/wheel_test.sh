#!/usr/bin/env bash
# The package as a user installs it: `pip wheel .` (scikit-build-core,
# pyproject.toml) with the project venv's build tools, then the wheel into a
# clean venv of the same Python with numpy alone, and `import oxs`, the
# README's Python example and the `oxs` command from that venv, away from
# the source tree. Reuses the checkout's build-wheel-<tag> tree and ccache.
# Usage: wheel_test.sh SOURCE_DIR PYTHON [WERROR [CXX]]
# (WERROR and CXX as the main build has them, so ccache serves its objects).
set -euo pipefail
src=$1 python=$2 werror=${3:-ON} cxx=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$src"
fi
[[ -z "$cxx" ]] || launcher+=(-C cmake.define.CMAKE_CXX_COMPILER="$cxx")
# --no-build-isolation: the venv has scikit-build-core, pybind11 and numpy
# (python/requirements.txt), so the build needs no download.
"$python" -m pip wheel --no-build-isolation --no-deps -q -w "$tmp/dist" "$src" \
  -C cmake.define.OXS_WERROR="$werror" "${launcher[@]}" > "$tmp/wheel.log" 2>&1 ||
  { grep -v "^WARNING: Location" "$tmp/wheel.log"; echo "pip wheel failed"; exit 1; }
wheel=$(ls "$tmp"/dist/oxs-*.whl)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
unzip -l "$wheel" | grep -q "oxs/torch/aten_library.onnx" || { echo "no ATen library in the wheel"; exit 1; }

base=$("$python" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
"$base" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel" > "$tmp/install.log" 2>&1 ||
  { grep -v "^WARNING: Location" "$tmp/install.log"; echo "pip install of the wheel failed"; exit 1; }
# Only numpy came with it (torch is the optional extra "torch").
extra=$("$tmp/venv/bin/python" -m pip list --format=freeze 2>/dev/null | cut -d= -f1 |
        grep -vixE "oxs|numpy|pip|setuptools|wheel" || true)
[[ -z "$extra" ]] || { echo "the wheel pulled in more than numpy: $extra"; exit 1; }

cd "$tmp"
"$tmp/venv/bin/oxs" --version
"$tmp/venv/bin/oxs" check "$src/examples/models/mlp.onnx"
# A file, not stdin: @script compiles a function from its source file.
cat > "$tmp/use_oxs.py" <<'PY'
import pathlib
import sys

import numpy as np

import oxs

src = pathlib.Path(sys.argv[1])
assert "site-packages" in oxs.__file__, oxs.__file__
m = oxs.load(str(src / "examples/models/mlp.onnx"))
y = oxs.run(m, {"X": np.ones((2, 4), np.float32)})
print(f"python: {len(m.graph.nodes)} nodes, softmax sum {float(next(iter(y.values())).sum(axis=1)[0]):.3f}")

# The README's first Python example: a script function, eager and as a model.
from oxs import FLOAT, script
from oxs.onnx_opset import opset15 as op


@script()
def gelu(x: FLOAT[...]) -> FLOAT[...]:
    return 0.5 * x * (1 + op.Tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


x = np.array([-1.0, 0.0, 1.0], np.float32)
got = gelu(x)
want = 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))
assert np.allclose(got, want, atol=1e-6), (got, want)
print("eager gelu ok")
PY
"$tmp/venv/bin/python" "$tmp/use_oxs.py" "$src"
echo "wheel ok"
