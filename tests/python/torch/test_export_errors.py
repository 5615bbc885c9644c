"""Bad input on torch 2: every node without a function listed with its module
path and the model's source line; a data-dependent shape named with the op,
its module and line, and the way out (torch._check, a Dim range); nothing
written to `path` in any case."""

import os

import pytest
import torch

import oxs.torch


class Inner(torch.nn.Module):
    def forward(self, x):
        return torch.special.zeta(x, 2.0) + torch.lgamma(x)  # no functions for these


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x).relu() * torch.special.zeta(x, 3.0)


def test_every_op_without_a_function_is_listed_with_module_and_line(tmp_path):
    with pytest.raises(oxs.torch.ExportError) as e:
        oxs.torch.export(Outer(), (torch.rand(2, 3) + 1,), path=tmp_path / "m.onnx")
    text = str(e.value)
    assert "3 node(s) have no ATen function" in text, text
    lines = text.splitlines()
    zeta = [i for i, ln in enumerate(lines) if "zeta" in ln and " at node " in ln]
    assert len(zeta) == 2, text
    assert "in inner (Inner)" in lines[zeta[0]] and "in <root> (Outer)" in lines[zeta[1]], text
    here = os.path.basename(__file__)
    assert f"{here}:16 in forward: return torch.special.zeta(x, 2.0)" in lines[zeta[0] + 1], text
    assert f"{here}:25 in forward: return self.inner(x).relu()" in lines[zeta[1] + 1], text
    assert not os.listdir(tmp_path)


class MaskSelect(torch.nn.Module):
    def forward(self, x):
        return x[x > 0] * 2


class ItemSize(torch.nn.Module):
    def forward(self, x):
        return torch.zeros(int(x.max()) + 1)


@pytest.mark.parametrize("dynamic", [None, {"x": {0: "n"}}], ids=["static", "dynamic"])
def test_a_value_dependent_shape_names_the_op_and_the_way_out(tmp_path, dynamic):
    with pytest.raises(oxs.torch.ExportError) as e:
        oxs.torch.export(MaskSelect(), (torch.randn(4, 3),), path=tmp_path / "m.onnx",
                         dynamic_shapes=dynamic)
    text = str(e.value)
    assert "aten.index.Tensor in <root> (MaskSelect)" in text and "torch._check" in text, text
    assert "depends on the input's values" in text, text
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("dynamic", [None, {"x": {0: "n"}}], ids=["static", "dynamic"])
def test_reading_a_value_names_the_line_and_the_way_out(tmp_path, dynamic):
    with pytest.raises(oxs.torch.ExportError) as e:
        oxs.torch.export(ItemSize(), (torch.randn(4, 3),), path=tmp_path / "m.onnx",
                         dynamic_shapes=dynamic)
    text = str(e.value)
    assert "_local_scalar_dense" in text and "torch._check" in text, text
    assert "in forward: return torch.zeros(int(x.max()) + 1)" in text, text
    assert not os.listdir(tmp_path)
