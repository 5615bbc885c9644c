"""Reductions of the ATen library: sum, mean, amax, amin, max/min (all and
.dim), prod, var/std/var_mean/std_mean (correction), logsumexp,
argmax/argmin, all/any, linalg_vector_norm, norm, cumsum.

`int[1]? dim` is an ints attribute whose default () means every dimension
(torch's None and [] alike); opset 18's Reduce* take the axes as an input,
built here from the attribute."""

from __future__ import annotations

import math
from typing import Sequence, Tuple

from oxs import BOOL, INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._helpers import _axis_list, _mean
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat, TReal, TTensor


@aten_op("aten::sum.dim_IntList", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_sum_dim(self: TReal, dim: Sequence[int] = (), keepdim: bool = False,
                 dtype: int = -1) -> TReal:
    return op.ReduceSum(self, op.Constant(value_ints=dim), keepdims=keepdim)


@aten_op("aten::sum.default", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_sum(self: TReal, dtype: int = -1) -> TReal:
    return op.ReduceSum(self, keepdims=0)


@aten_op("aten::mean.dim", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_mean_dim(self: TFloat, dim: Sequence[int] = (), keepdim: bool = False,
                  dtype: int = -1) -> TFloat:
    return _mean(self, op.Constant(value_ints=dim), keepdim=keepdim)


@aten_op("aten::mean.default", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_mean(self: TFloat, dtype: int = -1) -> TFloat:
    return op.Div(op.ReduceSum(self, keepdims=0), op.CastLike(op.Size(self), self))


@aten_op("aten::amax.default")
@script(aten_opset, default_opset=op)
def aten_amax(self: TReal, dim: Sequence[int] = (), keepdim: bool = False) -> TReal:
    return op.ReduceMax(self, op.Constant(value_ints=dim), keepdims=keepdim)


@aten_op("aten::amin.default")
@script(aten_opset, default_opset=op)
def aten_amin(self: TReal, dim: Sequence[int] = (), keepdim: bool = False) -> TReal:
    return op.ReduceMin(self, op.Constant(value_ints=dim), keepdims=keepdim)


@aten_op("aten::prod.dim_int", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_prod_dim(self: TReal, dim: int, keepdim: bool = False, dtype: int = -1) -> TReal:
    axes = _axis_list(value=dim)
    return op.ReduceProd(self, axes, keepdims=keepdim)


@aten_op("aten::logsumexp.default")
@script(aten_opset, default_opset=op)
def aten_logsumexp(self: TFloat, dim: Sequence[int], keepdim: bool = False) -> TFloat:
    """log(sum(exp(x - max))) + max: no overflow for large inputs."""
    axes = op.Constant(value_ints=dim)
    m = op.ReduceMax(self, axes, keepdims=1)
    # An all -inf slice would give inf - inf; shift it by 0 instead.
    m = op.Where(op.IsInf(m), op.CastLike(0.0, m), m)
    s = op.ReduceSum(op.Exp(op.Sub(self, m)), axes, keepdims=keepdim)
    mk = op.ReduceMax(m, axes, keepdims=keepdim)
    return op.Add(op.Log(s), mk)


@script(aten_opset, default_opset=op)
def _variance(self: TFloat, axes: INT64[...], correction: int, keepdim: bool) -> TFloat:
    """sum((x - mean)^2) / (n - correction) over axes (empty: all)."""
    mean = _mean(self, axes, keepdim=True)
    d = op.Sub(self, mean)
    ss = op.ReduceSum(op.Mul(d, d), axes, keepdims=keepdim)
    n = op.Div(op.Size(self), op.Size(ss))
    denom = op.Sub(op.CastLike(n, self), op.CastLike(correction, self))
    return op.Div(ss, denom)


@aten_op("aten::var.correction")
@script(aten_opset, default_opset=op)
def aten_var(self: TFloat, dim: Sequence[int] = (), correction: int = 1,
             keepdim: bool = False) -> TFloat:
    """correction None is torch's 1 (Bessel's correction)."""
    return _variance(self, op.Constant(value_ints=dim), correction=correction, keepdim=keepdim)


@aten_op("aten::std.correction")
@script(aten_opset, default_opset=op)
def aten_std(self: TFloat, dim: Sequence[int] = (), correction: int = 1,
             keepdim: bool = False) -> TFloat:
    return op.Sqrt(_variance(self, op.Constant(value_ints=dim), correction=correction,
                             keepdim=keepdim))


@aten_op("aten::var_mean.correction")
@script(aten_opset, default_opset=op)
def aten_var_mean(self: TFloat, dim: Sequence[int] = (), correction: int = 1,
                  keepdim: bool = False) -> Tuple[TFloat, TFloat]:
    axes = op.Constant(value_ints=dim)
    var = _variance(self, axes, correction=correction, keepdim=keepdim)
    return var, _mean(self, axes, keepdim=keepdim)


@aten_op("aten::std_mean.correction")
@script(aten_opset, default_opset=op)
def aten_std_mean(self: TFloat, dim: Sequence[int] = (), correction: int = 1,
                  keepdim: bool = False) -> Tuple[TFloat, TFloat]:
    axes = op.Constant(value_ints=dim)
    std = op.Sqrt(_variance(self, axes, correction=correction, keepdim=keepdim))
    return std, _mean(self, axes, keepdim=keepdim)


@aten_op("aten::argmax.default")
@script(aten_opset, default_opset=op)
def aten_argmax(self: TReal, dim: int, keepdim: bool = False) -> INT64[...]:
    """dim None (the flattened tensor) is the exporter's (a Reshape first)."""
    return op.ArgMax(self, axis=dim, keepdims=keepdim, select_last_index=0)


@aten_op("aten::argmin.default")
@script(aten_opset, default_opset=op)
def aten_argmin(self: TReal, dim: int, keepdim: bool = False) -> INT64[...]:
    return op.ArgMin(self, axis=dim, keepdims=keepdim, select_last_index=0)


@aten_op("aten::cumsum.default", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_cumsum(self: TReal, dim: int, dtype: int = -1) -> TReal:
    return op.CumSum(self, op.Constant(value_int=dim))


@aten_op("aten::max.default")
@script(aten_opset, default_opset=op)
def aten_max(self: TReal) -> TReal:
    return op.ReduceMax(self, keepdims=0)


@aten_op("aten::min.default")
@script(aten_opset, default_opset=op)
def aten_min(self: TReal) -> TReal:
    return op.ReduceMin(self, keepdims=0)


@aten_op("aten::max.dim")
@script(aten_opset, default_opset=op)
def aten_max_dim(self: TReal, dim: int, keepdim: bool = False) -> Tuple[TReal, INT64[...]]:
    """(values, indices); the index of the first maximum."""
    axes = _axis_list(value=dim)
    values = op.ReduceMax(self, axes, keepdims=keepdim)
    return values, op.ArgMax(self, axis=dim, keepdims=keepdim, select_last_index=0)


@aten_op("aten::min.dim")
@script(aten_opset, default_opset=op)
def aten_min_dim(self: TReal, dim: int, keepdim: bool = False) -> Tuple[TReal, INT64[...]]:
    axes = _axis_list(value=dim)
    values = op.ReduceMin(self, axes, keepdims=keepdim)
    return values, op.ArgMin(self, axis=dim, keepdims=keepdim, select_last_index=0)


@aten_op("aten::all.default")
@script(aten_opset, default_opset=op)
def aten_all(self: TTensor) -> BOOL[...]:
    """Whether every element is non-zero (true for an empty tensor)."""
    zero = op.Cast(op.Not(op.Cast(self, to=BOOL.dtype)), to=INT64.dtype)
    return op.Equal(op.ReduceMax(zero, keepdims=0), op.Constant(value_int=0))


@aten_op("aten::any.default")
@script(aten_opset, default_opset=op)
def aten_any(self: TTensor) -> BOOL[...]:
    nz = op.Cast(op.Cast(self, to=BOOL.dtype), to=INT64.dtype)
    return op.Greater(op.ReduceSum(nz, keepdims=0), op.Constant(value_int=0))


@aten_op("aten::all.dim")
@script(aten_opset, default_opset=op)
def aten_all_dim(self: TTensor, dim: int, keepdim: bool = False) -> BOOL[...]:
    axes = _axis_list(value=dim)
    zero = op.Cast(op.Not(op.Cast(self, to=BOOL.dtype)), to=INT64.dtype)
    return op.Equal(op.ReduceSum(zero, axes, keepdims=keepdim), op.Constant(value_int=0))


@aten_op("aten::any.dim")
@script(aten_opset, default_opset=op)
def aten_any_dim(self: TTensor, dim: int, keepdim: bool = False) -> BOOL[...]:
    axes = _axis_list(value=dim)
    nz = op.Cast(op.Cast(self, to=BOOL.dtype), to=INT64.dtype)
    return op.Greater(op.ReduceSum(nz, axes, keepdims=keepdim), op.Constant(value_int=0))


@aten_op("aten::linalg_vector_norm.default", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_linalg_vector_norm(self: TFloat, ord: float = 2.0, dim: Sequence[int] = (),
                            keepdim: bool = False, dtype: int = -1) -> TFloat:
    """sum(|x|^ord)^(1/ord); ord inf / -inf: max / min of |x|; ord 0: the
    count of non-zeros."""
    axes = op.Constant(value_ints=dim)
    a = op.Abs(self)
    if ord == math.inf:
        r = op.ReduceMax(a, axes, keepdims=keepdim)
    elif ord == -math.inf:
        r = op.ReduceMin(a, axes, keepdims=keepdim)
    elif ord == 0.0:
        nz = op.CastLike(op.Not(op.Equal(a, op.CastLike(0.0, a))), a)
        r = op.ReduceSum(nz, axes, keepdims=keepdim)
    elif ord == 2.0:
        r = op.ReduceL2(self, axes, keepdims=keepdim)
    elif ord == 1.0:
        r = op.ReduceL1(self, axes, keepdims=keepdim)
    else:
        p = op.CastLike(ord, a)
        s = op.ReduceSum(op.Pow(a, p), axes, keepdims=keepdim)
        r = op.Pow(s, op.Reciprocal(p))
    return r


@aten_op("aten::norm.ScalarOpt_dim")
@script(aten_opset, default_opset=op)
def aten_norm(self: TFloat, p: float = 2.0, dim: Sequence[int] = (),
              keepdim: bool = False) -> TFloat:
    """p None is 2."""
    return aten_linalg_vector_norm(self, ord=p, dim=dim, keepdim=keepdim, dtype=-1)
