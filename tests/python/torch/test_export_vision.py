"""torchvision classification models (random weights) exported and compared
with torch eager on the oxs evaluator (and ONNX Runtime for resnet18), at
opset 17 (onnx 1.12's checker) and 18; mobilenet_v3_large (hardswish,
hardsigmoid, sigmoid, mul from the ATen library), efficientnet_b0 (silu) and
a small VisionTransformer (gelu, class token, attention); resnet18,
shufflenet, mobilenet_v3_large and the ViT also with a dynamic batch,
resnet18 written with external data."""

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


@pytest.mark.parametrize("name, library_op", [("mobilenet_v3_large", "HardSwish"),
                                              ("efficientnet_b0", "Sigmoid")])
def test_library_heavy_vision_model_matches_torch(name, library_op):
    m = vision(name)
    torch.manual_seed(1)
    x = torch.randn(1, 3, 224, 224)
    model = oxs.torch.export(m, (x,), opset=17)
    assert_close(run_oxs(model, {"x": x}), eager(m, x), ATOL, name)
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    ops = {n.op_type for n in model.graph.nodes}
    assert "Shape" not in ops, ops
    assert library_op in ops, ops  # the library's hardswish / silu bodies, inlined
    assert not model.functions  # every library function inlined


def test_mobilenet_v3_large_dynamic_batch_on_oxs_and_onnx_runtime():
    m = vision("mobilenet_v3_large")
    model = oxs.torch.export(m, (torch.randn(2, 3, 224, 224),), dynamic_shapes=({0: "N"},), opset=17)
    for n in (1, 3):
        x = torch.randn(n, 3, 224, 224)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), ATOL, f"mobilenet_v3_large batch {n}")
    x = torch.randn(3, 3, 224, 224)
    got = run_ort(model.to_bytes(), {"x": x.numpy()})
    assert_close(got, eager(m, x), ATOL, "mobilenet_v3_large batch 3 on onnxruntime")


def small_vit():
    """torchvision's VisionTransformer class in a small configuration (the
    ops of vit_b_16: patch convolution, class token, encoder blocks with
    MultiheadAttention, LayerNorm, GELU MLPs) so the test stays fast."""
    torch.manual_seed(0)
    m = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                             num_heads=2, hidden_dim=32, mlp_dim=64,
                                             num_classes=10).eval()
    with torch.no_grad():
        for p in m.heads.parameters():  # torchvision starts the head at zero
            p.normal_(0, 0.1)
    return m


def test_vision_transformer_matches_torch_with_a_dynamic_batch():
    m = small_vit()
    model = oxs.torch.export(m, (torch.randn(2, 3, 32, 32),), dynamic_shapes=({0: "N"},), opset=17)
    ops = {n.op_type for n in model.graph.nodes}
    assert {"Erf", "Softmax", "LayerNormalization"} <= ops, ops  # gelu, attention, norms
    for n in (1, 3):
        x = torch.randn(n, 3, 32, 32)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-4, f"vit batch {n}")
    x = torch.randn(3, 3, 32, 32)
    assert_close(run_ort(model.to_bytes(), {"x": x.numpy()}), eager(m, x), 1e-4,
                 "vit batch 3 on onnxruntime")


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
