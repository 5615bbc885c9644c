#!/usr/bin/env bash
# Weights I/O benchmark: re-saving a model whose weights did not change. A
# model with SIZE_MIB of dense float weights in one external data file is
# made here (numpy, one pass), then each command below runs once under
# /usr/bin/time (wall, CPU, peak RSS), in this order, in the same run:
#   - dd copying the data file (the disk's own speed for the same bytes,
#     conv=fsync as oxs's saves fsync), and dd writing as many zero bytes;
#   - `oxs convert IN OTHER_DIR/OUT` (weights stay external at their offsets:
#     the data file is copied into the other directory);
#   - `oxs convert IN OUT --external-data` (a new data file, every tensor at
#     a new aligned offset);
#   - `oxs opt IN -o OUT` beside IN (the data file already holds every weight
#     where the output wants it: reused, not rewritten), and `oxs infer`
#     into another directory (a copy, as convert);
#   - the peer, onnx.load + onnx.save with external data (one file) in the
#     project venv's Python.
# MB/s is the weights' bytes over the wall time. Prints a markdown section
# into bench/RESULTS.md between the "weights-io" markers.
#   usage: bench/weights_io.sh [BUILD_DIR]      (default: build)
#   env:   SIZE_MIB (default 1536), OUT (scratch directory), NO_WRITE=1
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OXS=$(realpath "$BUILD/oxs")
PY="${OXS_PYTHON:-$("$(dirname "$0")"/../scripts/install-deps --print-python)}"
SIZE_MIB=${SIZE_MIB:-1536}
# shellcheck source=bench/scratch.sh
. bench/scratch.sh
scratch_dir oxs_weights_io_bench
RESULTS=bench/RESULTS.md
[ -x "$OXS" ] || { echo "build $OXS first: cmake --build $BUILD --target oxs" >&2; exit 1; }

mkdir -p "$OUT/src" "$OUT/copy" "$OUT/peer" "$OUT/infer"
# 32 MiB tensors x -> Add(w_0) -> Add(w_1) ...: every weight is needed.
"$PY" - "$OUT/src/big.onnx" "$SIZE_MIB" <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper

path, size_mib = sys.argv[1], int(sys.argv[2])
n = size_mib // 32
elems = 32 * 1024 * 1024 // 4
data = path + ".data"
inits, nodes, prev = [], [], "x"
with open(data, "wb") as f:
    for i in range(n):
        offset = f.tell()
        np.full(elems, i + 1, dtype=np.float32).tofile(f)
        t = TensorProto(name=f"w_{i}", data_type=TensorProto.FLOAT, dims=[elems])
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "big.onnx.data"), ("offset", str(offset)),
                     ("length", str(elems * 4))):
            e = t.external_data.add()
            e.key, e.value = k, v
        inits.append(t)
        nodes.append(helper.make_node("Add", [prev, f"w_{i}"], [f"y_{i}"]))
        prev = f"y_{i}"
graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [elems])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [elems])], inits)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
PYEOF
IN=$OUT/src/big.onnx
DATA_BYTES=$(stat -c %s "$IN.data")

# One timed run: label, then the command. Appends a table row.
rows=$(mktemp)
timed() {
  local label=$1
  shift
  sync
  local log
  log=$(mktemp)
  /usr/bin/time -f "%e %U %S %M" -o "$log" "$@" > /dev/null
  read -r wall user sys rss < "$log"
  rm -f "$log"
  awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v b="$DATA_BYTES" 'BEGIN {
    mbs = w > 0 ? sprintf("%.0f", b / 1e6 / w) : "n/a";
    printf "| %s | %.2f s | %.2f s | %.0f MiB | %s |\n", l, w, u + s, r / 1024, mbs }' >> "$rows"
}

timed "dd copy of the data file (bs=16M, conv=fsync)" \
  dd if="$IN.data" of="$OUT/dd.copy" bs=16M conv=fsync status=none
rm -f "$OUT/dd.copy"
timed "dd write of as many zeros (bs=16M, conv=fsync)" \
  dd if=/dev/zero of="$OUT/dd.zero" bs=16M count=$((DATA_BYTES / 16777216)) conv=fsync status=none
rm -f "$OUT/dd.zero"
timed "\`oxs convert IN other/OUT\` (weights kept external: data file copied)" \
  "$OXS" convert "$IN" "$OUT/copy/big.onnx"
timed "\`oxs convert IN OUT --external-data\` (new data file, tensors re-laid)" \
  "$OXS" convert "$IN" "$OUT/src/relaid.onnx" --external-data
timed "\`oxs opt IN -o OUT\` beside IN (data file reused in place)" \
  "$OXS" opt "$IN" -o "$OUT/src/big_opt.onnx" -q
timed "\`oxs infer IN -o other/OUT\` (data file copied)" \
  "$OXS" infer "$IN" -o "$OUT/infer/big.onnx"
timed "onnx.load + onnx.save(save_as_external_data=True, one file)" \
  "$PY" -c "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.save(m, sys.argv[2], save_as_external_data=True, all_tensors_to_one_file=True, location='big.onnx.data')" \
  "$IN" "$OUT/peer/big.onnx"

# The copies hold the same bytes.
cmp -s "$IN.data" "$OUT/copy/big.onnx.data" || { echo "copy differs" >&2; exit 1; }
cmp -s "$IN.data" "$OUT/peer/big.onnx.data" || { echo "peer copy differs" >&2; exit 1; }
cmp -s "$IN.data" "$OUT/infer/big.onnx.data" || { echo "infer copy differs" >&2; exit 1; }
"$OXS" check "$OUT/src/relaid.onnx" > /dev/null

section=$(mktemp)
{
  echo "## Weights I/O"
  echo
  echo "Generated by \`bench/weights_io.sh $BUILD\` on $(date -u '+%Y-%m-%d %H:%M UTC'); one run of each command, in the order shown."
  echo "Machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), $(free -g | awk '/Mem:/{print $2}') GiB RAM,"
  echo "Linux $(uname -r), $(df -T "$OUT" | awk 'NR==2{print $2}') on $(df "$OUT" | awk 'NR==2{print $1}'), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Peer: onnx $("$PY" -c 'import onnx; print(onnx.__version__)') in the project venv's Python."
  echo "The machine is shared with other builds; the data file was just written, so it is in the page"
  echo "cache for every reader, and every writer flushes to disk (oxs and dd fsync; onnx does not, so"
  echo "its figure leaves the flush to the kernel)."
  echo
  echo "Model: $((DATA_BYTES / 1048576)) MiB of float weights (32 MiB tensors, one per Add node) in one external"
  echo "data file, made by the script. MB/s: weight bytes over wall time."
  echo
  echo "| command | wall | CPU (user+sys) | peak RSS | MB/s |"
  echo "|---|---:|---:|---:|---:|"
  cat "$rows"
  echo
  echo "oxs loads weights lazily and, when saving, copies those it never read from file to file"
  echo "in the kernel (\`copy_file_range\`, falling back to a 1 MiB buffer where the file systems"
  echo "refuse), so peak memory does not grow with the weights; a data file that already holds every"
  echo "weight where the output wants it is kept as it is. onnx.load reads every weight into memory"
  echo "and onnx.save writes it back out."
  echo
  echo "Before this work (main at commit 60fc2b7, this script in the same session, one run each): the"
  echo "two \`oxs convert\` runs and \`oxs infer\` read every weight into memory before writing it (peak RSS"
  echo "1556 MiB, CPU 1.19 / 2.10 / 2.12 s; wall 4.02 / 6.84 / 7.57 s beside dd's 6.10 s copy);"
  echo "\`oxs opt\` beside IN already reused the data file (0.09 s, 22 MiB)."
  echo
} > "$section"
rm -f "$rows"
if [ -n "${NO_WRITE:-}" ]; then
  cat "$section"
else
  "$PY" bench/replace_section.py "$RESULTS" "$section" weights-io
  cat "$section"
fi
rm -f "$section"
