"""Shared helpers for the oxs Python tests (run by ctest: tests/python/CMakeLists.txt)."""

import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"
ORT_DIR = HERE.parent / "eval" / "ort"


def load_example(name):
    """Imports tests/python/examples/<name>.py as a fresh module (its @script
    functions compile from the real file)."""
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_ort(model_bytes: bytes, feeds: dict) -> list:
    """Runs a serialized model with ONNX Runtime (onnxruntime-node, as the C++
    oracle in tests/eval/ort_check.h does); returns the outputs in order."""
    if not (ORT_DIR / "node_modules" / "onnxruntime-node").is_dir():
        pytest.fail("onnxruntime-node is missing: run scripts/install-deps")
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        (d / "in").mkdir()
        (d / "out").mkdir()
        (d / "model.onnx").write_bytes(model_bytes)
        for name, arr in feeds.items():
            np.save(d / "in" / f"{name}.npy", arr)
        r = subprocess.run(["node", str(ORT_DIR / "run_ort.js"), str(d / "model.onnx"),
                            str(d / "in"), str(d / "out")], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.fail(f"onnxruntime failed: {r.stderr.strip()}")
        outs = sorted((d / "out").glob("*.npy"), key=lambda p: int(p.stem))
        if not outs:
            pytest.fail("onnxruntime wrote no outputs")
        return [np.load(p, allow_pickle=False) for p in outs]


def check_with_onnx(proto):
    import onnx

    onnx.checker.check_model(proto, full_check=True)
