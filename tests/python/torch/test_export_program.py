"""oxs.torch.export of a torch.export.ExportedProgram (after
run_decompositions to the Core ATen opset minus what our functions take), and
tracing="export", which makes one: numbers against torch eager at other
sizes than the example's, on oxs's evaluator and ONNX Runtime."""

import os

import onnx
import pytest
import torch
import torchvision
from torch.export import Dim

import oxs
import oxs.torch
from test_export_dynamic_shapes import heads
from torch_helpers import assert_close, eager, run_ort, run_oxs


def test_an_exported_program_with_two_dynamic_dims():
    m = heads()
    ep = torch.export.export(m, (torch.randn(2, 6, 16),),
                             dynamic_shapes={"x": {0: Dim("batch"), 1: Dim("seq")}})
    model = oxs.torch.export(ep)
    assert oxs.torch.last_export_stats()["tracing_mode"] == "export"
    assert list(model.graph.inputs[0].shape) == ["x_dim0", "x_dim1", 16]
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    for shape in ((3, 5, 16), (1, 9, 16)):
        x = torch.randn(*shape)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"oxs {shape}")
        assert_close(run_ort(model.to_bytes(), {"x": x.numpy()}), eager(m, x), 1e-5,
                     f"onnxruntime {shape}")


def test_tracing_export_keeps_the_dims_names_and_matches_torch(tmp_path):
    torch.manual_seed(0)
    net = torchvision.models.resnet18().eval()
    path = tmp_path / "r18.onnx"
    model = oxs.torch.export(net, (torch.randn(2, 3, 64, 64),), tracing="export",
                             dynamic_shapes=({0: "N"},), path=path)
    assert list(model.graph.inputs[0].shape) == ["N", 3, 64, 64]
    onnx.checker.check_model(os.fspath(path), full_check=True)
    for n in (1, 3):
        x = torch.randn(n, 3, 64, 64)
        assert_close(run_oxs(model, {"x": x}), eager(net, x), 1e-4, f"oxs batch {n}")
        assert_close(run_ort(model.to_bytes(), {"x": x.numpy()}), eager(net, x), 1e-4,
                     f"onnxruntime batch {n}")


def test_a_program_is_given_alone():
    ep = torch.export.export(heads(), (torch.randn(2, 6, 16),))
    with pytest.raises(oxs.torch.ExportError, match="carries its inputs"):
        oxs.torch.export(ep, (torch.randn(2, 6, 16),))
