"""Small script functions the library files share (not registered)."""

from __future__ import annotations

from oxs import INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_opset


@script(aten_opset, default_opset=op)
def _axis_list(value: int) -> INT64[...]:
    """[value]: a 1-D INT64 tensor of one int attribute (the axes, starts,
    k inputs of Reduce*, Slice, Unsqueeze, TopK)."""
    return op.Reshape(op.Constant(value_int=value), op.Constant(value_ints=[1]))
