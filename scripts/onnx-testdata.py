"""Writes ONNX's backend test data (node and model cases) from the onnx wheel.

The onnx wheel ships the test-case generators (onnx.backend.test.case) but
only a few of the generated model folders; its own `backend-test-tools
generate-data` writes the model cases alone. This writes both kinds in the
layout of ONNX's repository (KIND/NAME/model.onnx,
KIND/NAME/test_data_set_N/{input,output}_I.pb), the same generator and data
the ONNX project publishes for this onnx version.

usage: python scripts/onnx-testdata.py OUTPUT_DIR
Writes into OUTPUT_DIR.tmp and renames it when complete, so OUTPUT_DIR is
either whole or absent.
"""

from __future__ import annotations

import os
import shutil
import sys

import onnx
from onnx import numpy_helper
from onnx.backend.test.case import model as model_cases
from onnx.backend.test.case import node as node_cases


def _serialize(value, value_info) -> bytes:
    t = value_info.type
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, value_info.name).SerializeToString()
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, value_info.name).SerializeToString()
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, value_info.name).SerializeToString()
    if isinstance(value, onnx.TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(value, value_info.name).SerializeToString()


def _write_case(case, out: str) -> None:
    folder = os.path.join(out, case.kind, case.name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data = os.path.join(folder, f"test_data_set_{i}")
        os.makedirs(data, exist_ok=True)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                with open(os.path.join(data, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(_serialize(value, infos[j]))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    out = os.path.abspath(argv[1])
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    count = 0
    for case in node_cases.collect_testcases() + model_cases.collect_testcases():
        if case.kind == "real" or case.model is None:  # real models are downloads: none here
            continue
        _write_case(case, tmp)
        count += 1
    with open(os.path.join(tmp, "VERSION"), "w") as f:
        f.write(f"onnx {onnx.__version__}: {count} cases\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print(f"onnx-testdata: {count} cases of onnx {onnx.__version__} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
