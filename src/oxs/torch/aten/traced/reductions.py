"""Trace-only reductions: they read the rank (a 0-d tensor's dim 0 or -1
reduces nothing, where ONNX's Reduce* refuses axis 0 of a scalar) and the
dim list (None or [] is every axis)."""

from __future__ import annotations

from oxs.onnx_opset import opset18 as op
from oxs.torch._trace_only import aten_traced, node_info

INT64, BOOL = 7, 9
FLOATS = (1, 10, 11, 16)
SMALL_INTS = (BOOL, 2, 3, 5, 6)


def _axes(self, dim):
    """The axes to reduce (None: every axis), normalized; [] for a 0-d input."""
    rank = self.rank
    if rank == 0:
        return []
    if dim is None:
        return list(range(rank))
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return list(range(rank))
    return sorted(d % rank for d in dims)


def _reduce(onnx_reduce, x, axes, keepdim):
    if not axes:  # a 0-d input: nothing to reduce
        return op.Identity(x)
    return onnx_reduce(x, axes, keepdims=int(keepdim))


def _variance(self, dim, correction, keepdim):
    """sum((x - mean)^2) / max(0, n - correction), n the reduced count."""
    axes = _axes(self, dim)
    c = 1 if correction is None else correction
    if not axes:
        n = op.CastLike(1, self)
        d = op.Sub(self, self)
        s = op.Mul(d, d)
    else:
        mean = op.ReduceMean(self, axes, keepdims=1)
        d = op.Sub(self, mean)
        s = op.ReduceSum(op.Mul(d, d), axes, keepdims=int(keepdim))
        n = op.CastLike(op.Div(op.Size(self), op.Size(mean)), self)
    denom = op.Max(op.Sub(n, op.CastLike(c, self)), op.CastLike(0, self))
    return op.Div(s, denom), axes


@aten_traced("aten::var.correction")
def traced_var_correction(self, dim=None, correction=None, keepdim=False):
    return _variance(self, dim, correction, keepdim)[0]


@aten_traced("aten::var.dim")
def traced_var_dim(self, dim=None, unbiased=True, keepdim=False):
    return _variance(self, dim, 1 if unbiased else 0, keepdim)[0]


@aten_traced("aten::std.correction")
def traced_std_correction(self, dim=None, correction=None, keepdim=False):
    return op.Sqrt(_variance(self, dim, correction, keepdim)[0])


def _mean(self, axes, keepdim):
    """sum / count: the mean of no elements is NaN, as torch's."""
    if not axes:
        return op.Identity(self)
    s = op.ReduceSum(self, axes, keepdims=int(keepdim))
    n = op.Div(op.Size(self), op.Size(op.ReduceSum(self, axes, keepdims=1)))
    return op.Div(s, op.CastLike(n, s))


@aten_traced("aten::var_mean.correction")
def traced_var_mean_correction(self, dim=None, correction=None, keepdim=False):
    var, axes = _variance(self, dim, correction, keepdim)
    return var, _mean(self, axes, keepdim)


@aten_traced("aten::std_mean.correction")
def traced_std_mean_correction(self, dim=None, correction=None, keepdim=False):
    var, axes = _variance(self, dim, correction, keepdim)
    return op.Sqrt(var), _mean(self, axes, keepdim)


def _prod_input(self, dtype):
    if dtype is not None:
        return op.Cast(self, to=dtype)
    if self.dtype in SMALL_INTS:  # torch's prod of bool and integers is int64
        return op.Cast(self, to=INT64)
    return self


@aten_traced("aten::prod.default")
def traced_prod(self, dtype=None):
    x = _prod_input(self, dtype)
    return op.ReduceProd(x, keepdims=0) if self.rank else op.Identity(x)


@aten_traced("aten::prod.dim_int")
def traced_prod_dim(self, dim, keepdim=False, dtype=None):
    return _reduce(op.ReduceProd, _prod_input(self, dtype), _axes(self, dim), keepdim)


def _any(self, dim, keepdim):
    x = op.Cast(op.Cast(self, to=BOOL), to=INT64)
    return op.Cast(_reduce(op.ReduceMax, x, _axes(self, dim), keepdim), to=BOOL)


def _all(self, dim, keepdim):
    x = op.Cast(op.Cast(self, to=BOOL), to=INT64)
    return op.Cast(_reduce(op.ReduceMin, x, _axes(self, dim), keepdim), to=BOOL)


@aten_traced("aten::any.dims")
def traced_any_dims(self, dim=None, keepdim=False):
    return _any(self, dim, keepdim)


@aten_traced("aten::any.dim")
def traced_any_dim(self, dim, keepdim=False):
    return _any(self, dim, keepdim)


@aten_traced("aten::any.default")
def traced_any(self):
    return _any(self, None, False)


@aten_traced("aten::all.dim", "aten::all.dims")
def traced_all_dim(self, dim=None, keepdim=False):
    return _all(self, dim, keepdim)


@aten_traced("aten::all.default")
def traced_all(self):
    return _all(self, None, False)


@aten_traced("aten::_safe_softmax.default")
def traced_safe_softmax(self, dim, dtype=None):
    """softmax, with 0 (not NaN) for a row that is all -inf (attention rows
    every key is masked for)."""
    x = op.Cast(self, to=dtype) if dtype is not None else self
    if node_info().result_dtypes[0] != x.dtype:
        x = op.Cast(x, to=node_info().result_dtypes[0])
    if self.rank == 0:
        return op.Where(op.IsInf(x, detect_positive=0), op.CastLike(0, x), op.CastLike(1, x))
    s = op.Softmax(x, axis=dim)
    masked = op.IsInf(op.ReduceMax(x, [dim % self.rank], keepdims=1), detect_positive=0)
    return op.Where(masked, op.CastLike(0, s), s)
