"""Trace-only functions for the dtypes and ranks the ONNX Script functions do
not take: bool arithmetic (add is or, mul is and), integer matrix-vector
and dot products (mm, bmm and matmul of int32/int64 are native),
0-d inputs where ONNX ops want rank 1 (sort, topk, gather, scatter_add,
argmax, flip), bool inputs of ops without bool kernels. A function returns
NotImplemented for the cases it leaves to the library's other functions."""

from __future__ import annotations

import numpy as np

from oxs.onnx_opset import opset18 as op
from oxs.torch._trace_only import aten_traced, node_info

INT64, BOOL = 7, 9
INTS = (2, 3, 5, 6, 7)
FLOATS = (1, 10, 11, 16)


@aten_traced("aten::add.Tensor")
def traced_add_bool(self, other, alpha=1):
    """bool + bool is a logical or (alpha is a bool too)."""
    if self.dtype != BOOL or getattr(other, "dtype", None) != BOOL:
        return NotImplemented
    if not alpha:
        return op.Identity(self)
    return op.Or(self, other)


@aten_traced("aten::mul.Tensor")
def traced_mul_bool(self, other):
    if self.dtype != BOOL or getattr(other, "dtype", None) != BOOL:
        return NotImplemented
    return op.And(self, other)


def _int_matmul(a, b):
    if a.dtype not in INTS or b.dtype not in INTS:
        return NotImplemented
    if a.dtype in (INT64, 6) and a.dtype == b.dtype:
        return op.MatMul(a, b)
    # MatMul has no 8/16-bit integers: compute in int64, cast back
    t = node_info().result_dtypes[0]
    return op.Cast(op.MatMul(op.Cast(a, to=INT64), op.Cast(b, to=INT64)), to=t)


@aten_traced("aten::mv.default")
def traced_mv(self, vec):
    if self.dtype in FLOATS:
        return op.MatMul(self, vec)
    return _int_matmul(self, vec)


@aten_traced("aten::dot.default")
def traced_dot(self, tensor):
    return op.ReduceSum(op.Mul(self, tensor), keepdims=0)


@aten_traced("aten::vdot.default")
def traced_vdot(self, other):
    """Real tensors: the dot product (conjugation changes nothing)."""
    return op.ReduceSum(op.Mul(self, other), keepdims=0)


def _as_1d(x):
    return op.Reshape(x, [1])


def _sortable(x):
    """TopK takes numbers only: bool as int64, bfloat16 as float32 (cast back
    after)."""
    if x.dtype == BOOL:
        return op.Cast(x, to=INT64)
    return op.Cast(x, to=1) if x.dtype == 16 else x


def _unsortable(values, like):
    return op.Cast(values, to=like.dtype) if like.dtype in (BOOL, 16) else values


@aten_traced("aten::sort.default", "aten::sort.stable")
def traced_sort(self, stable=None, dim=-1, descending=False):
    """TopK over the whole axis (ONNX's TopK breaks ties by the lower index,
    so the order is stable)."""
    if self.rank == 0:
        return op.Identity(self), op.Constant(value=np.zeros([], dtype=np.int64))
    x = _sortable(self)
    n = op.Shape(x, start=dim % self.rank, end=dim % self.rank + 1)
    values, indices = op.TopK(x, n, axis=dim, largest=int(descending), sorted=1,
                              _num_outputs=2)
    return _unsortable(values, self), indices


@aten_traced("aten::topk.default")
def traced_topk(self, k, dim=-1, largest=True, sorted=True):
    if self.rank == 0:
        return op.Identity(self), op.Constant(value=np.zeros([], dtype=np.int64))
    x = _sortable(self)
    values, indices = op.TopK(x, np.array([k], dtype=np.int64), axis=dim, largest=int(largest),
                              sorted=1, _num_outputs=2)
    return _unsortable(values, self), indices


@aten_traced("aten::gather.default")
def traced_gather(self, dim, index, sparse_grad=False):
    if index.dtype not in (6, INT64):
        index = op.Cast(index, to=INT64)
    if index.shape is not None and 0 in index.shape:  # no element: an empty result
        return op.Expand(op.CastLike(0, self), op.Shape(index))
    if self.rank == 0 or index.rank == 0:
        x = _as_1d(self) if self.rank == 0 else self
        i = op.Reshape(index, [1] * max(self.rank, 1)) if index.rank == 0 else index
        y = op.GatherElements(x, i, axis=0 if self.rank == 0 else dim)
        return op.Reshape(y, op.Shape(index))
    return op.GatherElements(self, index, axis=dim)


@aten_traced("aten::scatter_add.default")
def traced_scatter_add(self, dim, index, src):
    from oxs.torch.traced.indexing import traced_scatter_reduce
    return traced_scatter_reduce(self, dim, index, src, "sum", True)


@aten_traced("aten::flip.default")
def traced_flip(self, dims):
    if self.rank == 0 or not dims:
        return op.Identity(self)
    axes = sorted({d % self.rank for d in dims})
    big = 2**63 - 1
    return op.Slice(self, [-1] * len(axes), [-big] * len(axes), axes, [-1] * len(axes))


def _minmax(reduce, self, dim, keepdim):
    rank = self.rank
    axes = [] if rank == 0 else (list(range(rank)) if not dim else sorted(d % rank for d in dim))
    x = op.Cast(self, to=INT64) if self.dtype == BOOL else self
    y = reduce(x, axes, keepdims=int(keepdim)) if axes else op.Identity(x)
    return op.Cast(y, to=BOOL) if self.dtype == BOOL else y


@aten_traced("aten::amax.default")
def traced_amax(self, dim=(), keepdim=False):
    return _minmax(op.ReduceMax, self, dim, keepdim)


@aten_traced("aten::amin.default")
def traced_amin(self, dim=(), keepdim=False):
    return _minmax(op.ReduceMin, self, dim, keepdim)


def _arg(onnx_arg, self, dim, keepdim):
    x = op.Cast(self, to=INT64) if self.dtype == BOOL else self
    if self.rank == 0:
        return op.Constant(value=np.zeros([], dtype=np.int64))
    if dim is None:
        flat = op.Reshape(x, [-1])
        y = onnx_arg(flat, axis=0, keepdims=0, select_last_index=0)
        return op.Reshape(y, [1] * self.rank) if keepdim else y
    return onnx_arg(x, axis=dim, keepdims=int(keepdim), select_last_index=0)


@aten_traced("aten::argmax.default")
def traced_argmax(self, dim=None, keepdim=False):
    return _arg(op.ArgMax, self, dim, keepdim)


@aten_traced("aten::argmin.default")
def traced_argmin(self, dim=None, keepdim=False):
    return _arg(op.ArgMin, self, dim, keepdim)


# ---------------------------------------------------------------- upsampling


def _nearest(input, output_size, scales, k):
    """Resize 'nearest' as torch's upsample_nearest: source index
    floor(dst * in / out), or floor(dst / scale) when the scales are given."""
    attrs = dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                 nearest_mode="floor")
    if output_size:
        sizes = op.Concat(op.Shape(input, start=0, end=2),
                          np.array(list(output_size), dtype=np.int64), axis=0)
        if scales and all(s for s in scales):
            # torch computes the source index from the given scales
            return op.Resize(input, None, np.array([1.0, 1.0] + [float(s) for s in scales],
                                                   dtype=np.float32), **attrs)
        return op.Resize(input, None, None, sizes, **attrs)
    return op.Resize(input, None, np.array([1.0, 1.0] + [float(s) for s in scales],
                                           dtype=np.float32), **attrs)


@aten_traced("aten::upsample_nearest1d.default", "aten::upsample_nearest2d.default",
             "aten::upsample_nearest3d.default")
def traced_upsample_nearest(self, output_size, scales=None, scales_h=None, scales_w=None,
                          scales_d=None):
    k = self.rank - 2
    given = {1: [scales], 2: [scales_h, scales_w], 3: [scales_d, scales_h, scales_w]}[k]
    return _nearest(self, output_size, given if all(s for s in given) else None, k)


@aten_traced("aten::cumsum.default")
def traced_cumsum(self, dim, dtype=None):
    x = self
    if dtype is not None:
        x = op.Cast(x, to=dtype)
    elif self.dtype in (BOOL, 2, 3, 5, 6):  # torch's cumsum of bool and small ints is int64
        x = op.Cast(x, to=INT64)
    if self.rank == 0:
        return op.Identity(x)
    return op.CumSum(x, np.array(dim, dtype=np.int64))


@aten_traced("aten::sum.dim_IntList")
def traced_sum_dim(self, dim=None, keepdim=False, dtype=None):
    x = self
    if dtype is not None:
        x = op.Cast(x, to=dtype)
    elif self.dtype in (BOOL, 2, 3, 5, 6):  # torch sums bool and small ints in int64
        x = op.Cast(x, to=INT64)
    if self.rank == 0:
        return op.Identity(x)
    if not dim:  # None or []: every axis
        return op.ReduceSum(x, keepdims=int(keepdim))
    axes = sorted(d % self.rank for d in dim)
    return op.ReduceSum(x, np.array(axes, dtype=np.int64), keepdims=int(keepdim))
