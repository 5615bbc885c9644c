"""docs/aten-coverage.md stays true: it is exactly what
tools/aten_coverage_doc.py writes from the registry, torch's Core ATen list,
the OpInfo sweep's summary and onnxscript's torchlib; and every overload
make_fx produces for the issue's models has a function or is listed here
with the reason."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
import torch
import torchvision
from torch.fx.experimental.proxy_tensor import make_fx

import core_ops
from oxs.torch.aten import _registry

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "aten-coverage.md"

# Overloads the models reach with torch's own CPU kernels (make_fx on real
# tensors) that the exporter's meta recorder never records.
NOT_COVERED: dict = {}


def _generator():
    spec = importlib.util.spec_from_file_location("aten_coverage_doc",
                                                  ROOT / "tools" / "aten_coverage_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_doc_is_generated_from_the_sources():
    text = _generator().render()
    assert DOC.read_text() == text, ("docs/aten-coverage.md is stale: run "
                                     "`make aten-coverage-doc` (after `make sweep-opinfo` "
                                     "when functions changed)")


def test_doc_lists_every_core_overload_and_registered_overload():
    text = DOC.read_text()
    for o in core_ops.core_overloads() + _registry.overloads():
        assert f"`{o.split('::', 1)[1]}`" in text, o


def _models():
    from torchvision.models.vision_transformer import VisionTransformer
    image = torch.randn(1, 3, 32, 32)
    seq = torch.randn(2, 5, 16)
    return {
        "resnet18": (torchvision.models.resnet18(num_classes=10), (image,)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(num_classes=10), (image,)),
        "mobilenet_v3_small": (torchvision.models.mobilenet_v3_small(num_classes=10), (image,)),
        "efficientnet_b0": (torchvision.models.efficientnet_b0(num_classes=10), (image,)),
        "squeezenet1_0": (torchvision.models.squeezenet1_0(num_classes=10),
                          (torch.randn(1, 3, 64, 64),)),
        "shufflenet_v2_x0_5": (torchvision.models.shufflenet_v2_x0_5(num_classes=10), (image,)),
        "vit": (VisionTransformer(image_size=32, patch_size=16, num_layers=1, num_heads=2,
                                  hidden_dim=16, mlp_dim=32, num_classes=10), (image,)),
        "transformer_encoder": (torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 1), (seq,)),
        "multihead_attention": (torch.nn.MultiheadAttention(16, 2, batch_first=True),
                                (seq, seq, seq)),
        "lstm": (torch.nn.LSTM(8, 16, 2), (torch.randn(5, 2, 8),)),
        "gru": (torch.nn.GRU(8, 16, 1), (torch.randn(5, 2, 8),)),
    }


@pytest.fixture(scope="module")
def traced_overloads():
    torch.manual_seed(0)
    found = {}
    with torch.no_grad():
        for name, (model, args) in _models().items():
            model.eval()
            graph = make_fx(lambda *a, m=model: m(*a))(*args)
            for node in graph.graph.nodes:
                if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
                    key = str(node.target).split(".", 1)[1]  # aten.add.Tensor -> add.Tensor
                    found.setdefault(key, set()).add(name)
    return found


def test_every_traced_overload_is_covered_or_listed(traced_overloads):
    names = sorted(f"aten::{o}" for o in traced_overloads)
    cov = core_ops.coverage(names)
    functional = {o: o.replace("_.", ".", 1) for o in names}  # relu_.default -> relu.default
    cov_f = core_ops.coverage(sorted(set(functional.values())))
    unknown = {o: sorted(traced_overloads[o.split("::")[1]]) for o in names
               if not cov[o] and not cov_f[functional[o]]
               and o.split("::")[1] not in NOT_COVERED}
    assert not unknown, f"traced overloads with no function and not in NOT_COVERED: {unknown}"
    assert "convolution.default" in traced_overloads  # the trace saw the models' ops
