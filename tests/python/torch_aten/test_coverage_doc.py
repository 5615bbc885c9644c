"""docs/aten-coverage.md stays true: it names every registered overload, and
every overload make_fx produces for the issue's models is registered or
listed as not covered."""

from __future__ import annotations

import pathlib
import re

import pytest
import torch
import torchvision
from torch.fx.experimental.proxy_tensor import make_fx

from oxs.torch import aten  # noqa: F401  (registers the library)
from oxs.torch.aten import _registry

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "aten-coverage.md"
OVERLOAD = re.compile(r"`([a-z_0-9]+\.(?!py`)[A-Za-z_0-9]+)`")


def sections():
    text = DOC.read_text()
    covered = text.split("## Covered", 1)[1].split("## Not covered", 1)[0]
    not_covered = text.split("## Not covered", 1)[1].split("## Limits", 1)[0]
    return text, covered, not_covered


def test_doc_names_every_registered_overload():
    _, covered, _ = sections()
    named = set(OVERLOAD.findall(covered))
    registered = {o.split("::", 1)[1] for o in _registry.overloads()}
    assert registered - named == set(), "registered but not in docs/aten-coverage.md 'Covered'"
    assert named - registered == set(), "in 'Covered' but not registered"
    count = re.search(r"## Covered \((\d+) overloads\)", sections()[0])
    assert count and int(count.group(1)) == len(registered)


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
    _, _, not_covered = sections()
    listed = set(OVERLOAD.findall(not_covered))
    registered = {o.split("::", 1)[1] for o in _registry.overloads()}
    unknown = {o: sorted(m) for o, m in traced_overloads.items()
               if o not in registered and o not in listed}
    assert not unknown, f"traced overloads neither registered nor listed as not covered: {unknown}"
    assert "convolution.default" in traced_overloads  # the trace saw the models' ops
