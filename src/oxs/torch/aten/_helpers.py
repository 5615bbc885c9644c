"""Small script functions the library files share (not registered).

Means are ReduceSum / count (`_mean`): ReduceSum-13 is the same op at opsets
17 and 18, where ReduceMean-18 (axes as an input) is not, so the functions
that average (mean.dim of every CNN head, the norms, var/std) also export
at opset 17."""

from __future__ import annotations

from oxs import INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_opset
from oxs.torch.aten._types import TFloat


@script(aten_opset, default_opset=op)
def _axis_list(value: int) -> INT64[...]:
    """[value]: a 1-D INT64 tensor of one int attribute (the axes, starts,
    k inputs of Reduce*, Slice, Unsqueeze, TopK)."""
    return op.Reshape(op.Constant(value_int=value), op.Constant(value_ints=[1]))


@script(aten_opset, default_opset=op)
def _torch_pads(pad: INT64[...]) -> INT64[...]:
    """torch's pad list ((begin, end) pairs from the last dimension
    backwards) as ONNX Pad-18's pads, for the axes _torch_pad_axes gives."""
    pairs = op.Reshape(pad, op.Constant(value_ints=[-1, 2]))
    begins = op.Gather(pairs, op.Constant(value_int=0), axis=1)
    ends = op.Gather(pairs, op.Constant(value_int=1), axis=1)
    return op.Concat(begins, ends, axis=0)


@script(aten_opset, default_opset=op)
def _torch_pad_axes(pad: INT64[...]) -> INT64[...]:
    """[-1, -2, ...]: one axis per (begin, end) pair of a torch pad list."""
    k = op.Div(op.Size(pad), op.Constant(value_int=2))
    return op.Sub(op.Constant(value_ints=[-1]),
                  op.Range(op.Constant(value_int=0), k, op.Constant(value_int=1)))


@script(aten_opset, default_opset=op)
def _mean(x: TFloat, axes: INT64[...], keepdim: bool) -> TFloat:
    """ReduceMean over axes (empty: every axis), as ReduceSum / count."""
    s = op.ReduceSum(x, axes, keepdims=keepdim)
    n = op.Div(op.Size(x), op.Size(s))
    return op.Div(s, op.CastLike(n, s))
