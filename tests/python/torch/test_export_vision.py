"""torchvision classification models (random weights) exported and compared
with torch eager on the oxs evaluator (and ONNX Runtime for resnet18), at
opset 17 (onnx 1.12's checker) and 18; resnet18 and shufflenet also with a
dynamic batch, resnet18 written with external data."""

import os

import numpy as np
import onnx
import pytest
import torch
import torchvision

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_ort, run_oxs

# Convolutions over 224x224 sum thousands of products: float32 noise.
ATOL = 1e-3


def vision(name):
    """The model with random weights and batch-norm statistics (freshly
    initialized ones normalize nothing and mobilenet's outputs are ~1e-9)."""
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)().eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.normal_(0, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.normal_(0, 0.1)
    return m


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "squeezenet1_0", "shufflenet_v2_x1_0"])
@pytest.mark.parametrize("opset", [17, 18])
def test_vision_model_matches_torch(name, opset):
    m = vision(name)
    torch.manual_seed(1)
    x = torch.randn(1, 3, 224, 224)
    model = oxs.torch.export(m, (x,), opset=opset)
    assert_close(run_oxs(model, {"x": x}), eager(m, x), ATOL, f"{name} opset {opset}")
    oxs.check(model)
    if opset <= 17:
        onnx.checker.check_model(model.to_onnx(), full_check=True)
    ops = {n.op_type for n in model.graph.nodes}
    assert "Shape" not in ops, ops  # static dims: no shape computations
    if name != "shufflenet_v2_x1_0":  # its channel shuffle is a real transpose
        assert "Transpose" not in ops, ops  # transposed weights are folded


def test_resnet18_dynamic_batch_and_external_data(tmp_path):
    m = vision("resnet18")
    path = tmp_path / "resnet18.onnx"
    oxs.torch.export(m, (torch.randn(2, 3, 224, 224),), path=path, dynamic_shapes=({0: "N"},))
    assert sorted(os.listdir(tmp_path)) == ["resnet18.onnx", "resnet18.onnx.data"]
    assert os.path.getsize(path) < 1 << 20  # the weights went to the .data file
    model = oxs.load(path)
    for n in (1, 3):
        x = torch.randn(n, 3, 224, 224)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), ATOL, f"resnet18 batch {n}")


def test_shufflenet_channel_shuffle_keeps_a_dynamic_batch():
    m = vision("shufflenet_v2_x1_0")
    model = oxs.torch.export(m, (torch.randn(2, 3, 224, 224),), dynamic_shapes=({0: "N"},))
    assert "Split" in {n.op_type for n in model.graph.nodes}
    for n in (1, 3):
        x = torch.randn(n, 3, 224, 224)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), ATOL, f"shufflenet batch {n}")


def test_resnet18_on_onnx_runtime():
    m = vision("resnet18")
    x = torch.randn(1, 3, 224, 224)
    model = oxs.torch.export(m, (x,), opset=17)
    got = run_ort(model.to_bytes(), {"x": x.numpy()})
    assert_close(got, eager(m, x), ATOL, "resnet18 on onnxruntime")


def test_resnet18_with_functions_kept():
    m = vision("resnet18")
    x = torch.randn(1, 3, 224, 224)
    model = oxs.torch.export(m, (x,), modules_as_functions=True)
    names = {f.name for f in model.functions}
    assert {"aten_relu", "aten_add"} <= names, names
    oxs.check(model)
    assert_close(run_oxs(model, {"x": x}), eager(m, x), ATOL, "resnet18 with functions")


def test_make_fx_tracing_gives_the_same_model_as_meta_tracing():
    m = vision("resnet18")
    x = torch.randn(1, 3, 224, 224)
    meta = oxs.torch.export(m, (x,))
    other = oxs.torch.export(m, (x,), tracing="fake")
    assert not oxs.diff(meta, other), str(oxs.diff(meta, other))
