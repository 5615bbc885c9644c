"""Layer norm (with and without affine parameters, one and two normalized
dims) and (log-)softmax through the native functions, against torch."""

import onnx
import pytest
import torch

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_oxs


class Norms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(8)
        self.ln2 = torch.nn.LayerNorm([4, 8], elementwise_affine=False)

    def forward(self, x):
        return torch.softmax(self.ln(x), -1), torch.log_softmax(self.ln2(x), 1)


@pytest.mark.parametrize("opset", [17, 18])
def test_layer_norm_and_softmax_match_torch(opset):
    torch.manual_seed(0)
    m = Norms().eval()
    with torch.no_grad():
        m.ln.weight.uniform_(0.5, 1.5)
        m.ln.bias.normal_()
    x = torch.randn(2, 4, 8)
    model = oxs.torch.export(m, (x,), opset=opset)
    assert [n.op_type for n in model.graph.nodes] == [
        "LayerNormalization", "Softmax", "LayerNormalization", "LogSoftmax"]
    axes = [n.attributes["axis"] for n in model.graph.nodes]
    assert axes == [2, 2, 1, 1], axes
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"norms opset {opset}")
    if opset <= 17:
        onnx.checker.check_model(model.to_onnx(), full_check=True)


def test_layer_norm_before_opset_17_is_refused():
    with pytest.raises(oxs.torch.ExportError, match="LayerNormalization needs opset 17"):
        oxs.torch.export(Norms(), (torch.randn(2, 4, 8),), opset=16)
