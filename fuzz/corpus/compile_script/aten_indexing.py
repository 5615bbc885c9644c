"""Indexing and selection by tensors of the ATen library: index_select,
gather, scatter (src, value), scatter_add, nonzero, masked_select, topk,
sort, flip,
tril/triu."""

from __future__ import annotations

from typing import Sequence, Tuple

from oxs import BOOL, INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._helpers import _axis_list
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import IntType, TReal, TTensor


@aten_op("aten::index_select.default")
@script(aten_opset, default_opset=op)
def aten_index_select(self: TTensor, dim: int, index: IntType) -> TTensor:
    """index is 1-D (or 0-D); its entries select along dim."""
    return op.Gather(self, op.Reshape(index, op.Constant(value_ints=[-1])), axis=dim)


@aten_op("aten::gather.default")
@script(aten_opset, default_opset=op)
def aten_gather(self: TTensor, dim: int, index: IntType, sparse_grad: bool = False) -> TTensor:
    return op.GatherElements(self, index, axis=dim)


@aten_op("aten::topk.default")
@script(aten_opset, default_opset=op)
def aten_topk(self: TReal, k: int, dim: int = -1, largest: bool = True,
              sorted: bool = True) -> Tuple[TReal, INT64[...]]:
    """(values, indices) of the k largest (or smallest) along dim."""
    kk = _axis_list(value=k)
    values, indices = op.TopK(self, kk, axis=dim, largest=largest, sorted=sorted)
    return values, indices


@aten_op("aten::sort.default")
@script(aten_opset, default_opset=op)
def aten_sort(self: TReal, dim: int = -1, descending: bool = False) -> Tuple[TReal, INT64[...]]:
    """A TopK of every element along dim (the order of equal elements may
    differ from torch's, which is not stable either)."""
    n = op.Gather(op.Shape(self), _axis_list(value=dim))
    values, indices = op.TopK(self, n, axis=dim, largest=descending, sorted=1)
    return values, indices


@aten_op("aten::tril.default")
@script(aten_opset, default_opset=op)
def aten_tril(self: TTensor, diagonal: int = 0) -> TTensor:
    return op.Trilu(self, op.Constant(value_int=diagonal), upper=0)


@aten_op("aten::triu.default")
@script(aten_opset, default_opset=op)
def aten_triu(self: TTensor, diagonal: int = 0) -> TTensor:
    return op.Trilu(self, op.Constant(value_int=diagonal), upper=1)


@aten_op("aten::scatter.src")
@script(aten_opset, default_opset=op)
def aten_scatter_src(self: TTensor, dim: int, index: IntType, src: TTensor) -> TTensor:
    """src's elements at index along dim (src may be larger than index: the
    part index covers is used)."""
    part = op.Slice(src, op.Constant(value_ints=[0]) * op.Shape(index), op.Shape(index))
    return op.ScatterElements(self, index, part, axis=dim)


@aten_op("aten::scatter.value")
@script(aten_opset, default_opset=op)
def aten_scatter_value(self: TTensor, dim: int, index: IntType, value: float) -> TTensor:
    updates = op.Expand(op.CastLike(value, self), op.Shape(index))
    return op.ScatterElements(self, index, updates, axis=dim)


@aten_op("aten::scatter_add.default")
@script(aten_opset, default_opset=op)
def aten_scatter_add(self: TTensor, dim: int, index: IntType, src: TTensor) -> TTensor:
    part = op.Slice(src, op.Constant(value_ints=[0]) * op.Shape(index), op.Shape(index))
    return op.ScatterElements(self, index, part, axis=dim, reduction="add")


@aten_op("aten::nonzero.default")
@script(aten_opset, default_opset=op)
def aten_nonzero(self: TTensor) -> INT64[...]:
    """[count, rank]: one row of indices per non-zero element."""
    return op.Transpose(op.NonZero(self), perm=[1, 0])


@aten_op("aten::flip.default")
@script(aten_opset, default_opset=op)
def aten_flip(self: TTensor, dims: Sequence[int]) -> TTensor:
    """A Slice with step -1 over each of dims."""
    axes = op.Constant(value_ints=dims)
    n = op.Shape(axes)
    minus_one = op.Expand(op.Constant(value_ints=[-1]), n)
    very_negative = op.Expand(op.Constant(value_ints=[-9223372036854775807]), n)
    return op.Slice(self, minus_one, very_negative, axes, minus_one)


@aten_op("aten::masked_select.default")
@script(aten_opset, default_opset=op)
def aten_masked_select(self: TTensor, mask: BOOL[...]) -> TTensor:
    """The elements where mask (broadcast with self) is true, as a 1-D
    tensor in row-major order."""
    both = op.Where(mask, self, self)  # self broadcast with mask
    flat = op.Reshape(both, op.Constant(value_ints=[-1]))
    keep = op.Reshape(op.Expand(mask, op.Shape(both)), op.Constant(value_ints=[-1]))
    return op.Compress(flat, keep, axis=0)
