"""nn.TransformerEncoder and nn.MultiheadAttention in eval mode. On meta
tensors torch's fast paths (aten._transformer_encoder_layer_fwd,
aten._native_multi_head_attention: CPU/CUDA only) are not taken, so the
trace goes around them through the composite ops. Static and dynamic batch
(the view that folds batch and heads together keeps a -1), on the oxs
evaluator and ONNX Runtime."""

import pytest
import torch

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_ort, run_oxs


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


def encoder():
    layer = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 2)


@pytest.mark.parametrize("make", [encoder, Attention], ids=["TransformerEncoder", "MultiheadAttention"])
def test_attention_models_match_torch_with_a_dynamic_batch(make):
    torch.manual_seed(0)
    m = make().eval()
    x = torch.randn(2, 5, 16)
    static = oxs.torch.export(m, (x,))
    assert_close(run_oxs(static, {"src" if make is encoder else "x": x}), eager(m, x), 1e-5,
                 "static batch")
    ops = {n.op_type for n in static.graph.nodes}
    assert "Softmax" in ops and "MatMul" in ops, ops
    model = oxs.torch.export(m, (x,), dynamic_shapes=({0: "N"},))
    name = model.graph.inputs[0].name
    for n in (1, 3):
        x = torch.randn(n, 5, 16)
        assert_close(run_oxs(model, {name: x}), eager(m, x), 1e-5, f"batch {n}")
    assert_close(run_ort(model.to_bytes(), {name: x.numpy()}), eager(m, x), 1e-5,
                 "batch 3 on onnxruntime")


class ShapeBranch(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) if x.shape[0] == 2 else x.clone()


def test_a_graph_that_changes_with_the_dynamic_dims_is_refused():
    with pytest.raises(oxs.torch.ExportError, match="dynamic dim .N. was made static"):
        oxs.torch.export(ShapeBranch(), (torch.randn(2, 3),), dynamic_shapes=({0: "N"},))
