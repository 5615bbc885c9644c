"""Trace-only index and scatter functions that read static sizes or pick an
ONNX reduction from an attribute: as_strided, diagonal, scatter_reduce,
masked_scatter, index_select (rank 0)."""

from __future__ import annotations

import numpy as np

from oxs.onnx_opset import opset18 as op
from oxs.torch._trace_only import aten_traced

INT64, BOOL = 7, 9
FLOATS = (1, 10, 11, 16)


def _static(x, what):
    if x.shape is None or any(d is None for d in x.shape):
        raise NotImplementedError(f"{what} needs the input's static sizes; it has {x.shape}")
    return list(x.shape)


@aten_traced("aten::as_strided.default")
def traced_as_strided(self, size, stride, storage_offset=None):
    """A strided view of self's (contiguous) storage: Gather of the flat
    positions offset + sum_i(arange(size_i) * stride_i)."""
    flat_pos = np.full([], storage_offset or 0, dtype=np.int64)
    for k, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        flat_pos = flat_pos + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    flat = op.Reshape(self, [-1])
    return op.Gather(flat, np.asarray(flat_pos, dtype=np.int64), axis=0)


@aten_traced("aten::diagonal.default")
def traced_diagonal(self, offset=0, dim1=0, dim2=1):
    """The diagonal of dims (dim1, dim2) as the last axis: those axes moved to
    the end, flattened, and the diagonal's flat positions gathered."""
    rank = self.rank
    d1, d2 = dim1 % rank, dim2 % rank
    shape = _static(self, "diagonal")
    s1, s2 = shape[d1], shape[d2]
    rows0, cols0 = max(-offset, 0), max(offset, 0)
    n = max(min(s1 - rows0, s2 - cols0), 0)
    rest = [d for d in range(rank) if d not in (d1, d2)]
    x = op.Transpose(self, perm=rest + [d1, d2])
    flat = op.Reshape(x, [shape[d] for d in rest] + [s1 * s2])
    pos = np.array([(rows0 + i) * s2 + cols0 + i for i in range(n)], dtype=np.int64)
    return op.Gather(flat, pos, axis=len(rest))


_REDUCTIONS = {"sum": "add", "prod": "mul", "amax": "max", "amin": "min"}


def _identity_of(reduce, dtype):
    """The value a reduction starts from (include_self=False replaces
    self's entries at scattered positions with it)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype in FLOATS:
        return float("-inf") if reduce == "amax" else float("inf")
    info = np.iinfo(np.int32 if dtype == 6 else np.int64) if dtype != BOOL else None
    if info is None:
        return reduce == "amin"
    return int(info.min) if reduce == "amax" else int(info.max)


@aten_traced("aten::scatter_reduce.two")
def traced_scatter_reduce(self, dim, index, src, reduce, include_self=True):
    """ScatterElements with the reduction torch names; include_self=False
    first sets the scattered positions to the reduction's identity; mean
    divides the sum by the count (floor division for integers, as torch)."""
    rank = self.rank
    if rank == 0:
        self1, index1, src1 = (op.Reshape(t, [1]) for t in (self, index, src))
        return op.Reshape(traced_scatter_reduce(self1, 0, index1, src1, reduce, include_self),
                          [])
    if reduce not in _REDUCTIONS and reduce != "mean":
        raise NotImplementedError(f"scatter_reduce with reduce={reduce!r}")
    if self.dtype == BOOL and reduce != "mean":
        # bool sum/amax are a logical or, prod/amin an and: max/min over 0/1.
        as_int = {"sum": "amax", "amax": "amax", "prod": "amin", "amin": "amin"}[reduce]
        r = traced_scatter_reduce(op.Cast(self, to=INT64), dim, index, op.Cast(src, to=INT64),
                                as_int, include_self)
        return op.Cast(r, to=BOOL)
    src = op.Slice(op.CastLike(src, self), [0] * rank, op.Shape(index), list(range(rank)))
    x = self
    if not include_self:
        fill = op.Expand(op.CastLike(_identity_of(reduce, self.dtype), self), op.Shape(index))
        x = op.ScatterElements(x, index, fill, axis=dim)
    if reduce != "mean":
        return op.ScatterElements(x, index, src, axis=dim, reduction=_REDUCTIONS[reduce])
    total = op.ScatterElements(x, index, src, axis=dim, reduction="add")
    ones = op.Expand(op.CastLike(1, self), op.Shape(index))
    base = op.Expand(op.CastLike(1 if include_self else 0, self), op.Shape(self))
    count = op.ScatterElements(base, index, ones, axis=dim, reduction="add")
    count = op.Max(count, op.CastLike(1, self))  # positions nobody scatters to keep self
    if self.dtype in FLOATS:
        return op.Div(total, count)
    # torch floors integer means
    q = op.Div(total, count)
    fix = op.And(op.Not(op.Equal(op.Mul(q, count), total)),
                 op.Less(op.Mul(total, count), op.CastLike(0, self)))
    return op.Sub(q, op.Cast(fix, to=self.dtype))


@aten_traced("aten::masked_scatter.default")
def traced_masked_scatter(self, mask, source):
    """self with the positions where mask is true (broadcast to self's shape)
    filled with source's elements in order: the k-th true position takes
    source.flatten()[k] (k from a cumulative sum of the mask)."""
    # self and mask broadcast together (the result has their common shape)
    shape = op.Shape(op.Where(mask, self, self))
    m = op.Expand(mask, shape)
    x = op.Expand(self, shape)
    flat_mask = op.Reshape(m, [-1])
    k = op.Sub(op.CumSum(op.Cast(flat_mask, to=INT64), np.array(0, dtype=np.int64)),
               np.array(1, dtype=np.int64))
    k = op.Max(k, np.array(0, dtype=np.int64))
    src = op.Reshape(op.CastLike(source, self), [-1])
    picked = op.Gather(src, k, axis=0)
    return op.Where(m, op.Reshape(picked, shape), x)


@aten_traced("aten::index_select.default")
def traced_index_select(self, dim, index):
    """Gather along dim; a 0-d self (Gather needs rank 1) is viewed as [1]."""
    if self.rank == 0:  # index holds one element (0); the result is 0-d
        return op.Reshape(op.Gather(op.Reshape(self, [1]), op.Reshape(index, [-1]), axis=0),
                          np.zeros([0], dtype=np.int64))
    return op.Gather(self, index, axis=dim)
