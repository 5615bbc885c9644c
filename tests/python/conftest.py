"""Shared helpers for the oxs Python tests (run by ctest: tests/python/CMakeLists.txt)."""

import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE / "examples"


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
    """Runs a serialized model with ONNX Runtime (the venv's onnxruntime
    wheel, one thread, as the C++ oracle in tests/eval/ort_check.h does);
    returns the outputs in order."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
        return [np.asarray(o) for o in session.run(None, feeds)]
    except Exception as e:  # ORT's own error types
        pytest.fail(f"onnxruntime failed: {type(e).__name__}: {e}")


def check_with_onnx(proto):
    import onnx

    onnx.checker.check_model(proto, full_check=True)
