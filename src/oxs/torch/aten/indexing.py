"""Indexing and selection by tensors of the ATen library: index_select,
gather, topk, sort, tril/triu."""

from __future__ import annotations

from typing import Tuple

from oxs import INT64, script
from oxs.onnx_opset import opset18 as op
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
    kk = op.Reshape(op.Constant(value_int=k), op.Constant(value_ints=[1]))
    values, indices = op.TopK(self, kk, axis=dim, largest=largest, sorted=sorted)
    return values, indices


@aten_op("aten::sort.default")
@script(aten_opset, default_opset=op)
def aten_sort(self: TReal, dim: int = -1, descending: bool = False) -> Tuple[TReal, INT64[...]]:
    """A TopK of every element along dim (the order of equal elements may
    differ from torch's, which is not stable either)."""
    n = op.Gather(op.Shape(self), op.Reshape(op.Constant(value_int=dim),
                                             op.Constant(value_ints=[1])))
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
