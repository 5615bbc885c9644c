"""F.scaled_dot_product_attention: ONNX Attention (opset 23) at opset >= 23,
torch's decomposition below; numbers against torch eager on oxs's evaluator
(which implements Attention-23) and ONNX Runtime, with a dynamic batch and
sequence."""

import onnx
import pytest
import torch
import torch.nn.functional as F

import oxs
import oxs.torch
from torch_helpers import assert_close, run_ort, run_oxs


class Sdpa(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, q, k, v):
        if self.kind == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if self.kind == "bool_mask":
            mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        if self.kind == "float_mask":
            bias = (torch.arange(k.shape[-2], dtype=q.dtype) * 0.1).expand(q.shape[-2], -1)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3)
        if self.kind == "gqa":
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return F.scaled_dot_product_attention(q, k, v)


def inputs(b, s, kind):
    kv_heads = 2 if kind == "gqa" else 4
    return (torch.randn(b, 4, s, 8), torch.randn(b, kv_heads, s, 8), torch.randn(b, kv_heads, s, 8))


@pytest.mark.parametrize("opset", [18, 23])
@pytest.mark.parametrize("kind", ["plain", "causal", "bool_mask", "float_mask", "gqa"])
def test_attention_matches_torch(kind, opset):
    m = Sdpa(kind).eval()
    spec = {"q": {0: "b", 2: "s"}, "k": {0: "b", 2: "s"}, "v": {0: "b", 2: "s"}}
    model = oxs.torch.export(m, inputs(2, 5, kind), opset=opset, dynamic_shapes=spec)
    ops = [n.op_type for n in model.graph.nodes]
    assert ("Attention" in ops) == (opset >= 23), ops
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    for b, s in ((1, 3), (3, 7)):
        q, k, v = inputs(b, s, kind)
        want = [m(q, k, v).numpy()]
        feeds = {"q": q, "k": k, "v": v}
        assert_close(run_oxs(model, feeds), want, 1e-5, f"oxs {kind} opset {opset} b={b} s={s}")
        assert_close(run_ort(model.to_bytes(), {n: t.numpy() for n, t in feeds.items()}), want,
                     1e-5, f"onnxruntime {kind} opset {opset} b={b} s={s}")
