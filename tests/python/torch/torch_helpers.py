"""Helpers for the exporter's tests: a model's outputs in torch eager, on the
oxs evaluator and on ONNX Runtime (tests/python/conftest.py's runner),
compared within float32 noise."""

import importlib.util
import pathlib

import numpy as np
import torch

import oxs


def eager(model, *args):
    with torch.no_grad():
        out = model.eval()(*args)
    if isinstance(out, torch.Tensor):
        out = (out,)
    return [o.numpy() for o in out]


def run_oxs(model, feeds):
    outs = oxs.run(model, {k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in feeds.items()})
    return [outs[o.name] for o in model.graph.outputs]


def assert_close(got, want, atol, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
        diff = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))) if g.size else 0.0
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        print(f"{what}: max abs diff {diff:.3g} (outputs up to {scale:.3g})")
        assert scale > 1e-3 or not np.issubdtype(w.dtype, np.floating), \
            f"{what}: outputs near zero ({scale}) make the comparison meaningless"
        assert diff <= atol, f"{what}: max abs diff {diff} > {atol}"


def run_ort(model_bytes, feeds):
    path = pathlib.Path(__file__).resolve().parent.parent / "conftest.py"
    spec = importlib.util.spec_from_file_location("oxs_python_tests_conftest", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.run_ort(model_bytes, feeds)
