"""Trace-only functions for Core ATen ops whose lowering depends on Python-
time facts: which entries of a Tensor?[] are None (index, index_put), ranks,
attribute values that pick an ONNX op or mode (grid_sampler_2d), optional
tensors (the batch-norm forms torch.export's decompositions emit).

Conventions (oxs/torch/_trace_only.py): tensors are graph values with
.dtype (ONNX element type number) and .rank; other arguments are Python
values as the node gives them (ScalarType: an ONNX element type number;
None where ATen allows None)."""

from __future__ import annotations

import numpy as np

from oxs.onnx_opset import opset18 as op
from oxs.torch._trace_only import aten_traced, node_info

INT64_MAX = 2**63 - 1
BOOL, INT64 = 9, 7
FLOATS = (1, 10, 11, 16)


def _shape_dim(x, d):
    """x's size along axis d as a 1-D INT64 tensor of one element."""
    return op.Shape(x, start=d, end=d + 1)


def _normalize(dim, rank):
    return dim + rank if dim < 0 else dim


# ---------------------------------------------------------------- indexing


def _broadcast_indices(indices):
    """The index tensors broadcast to one shape (Expand to the shape of
    their sum: torch's broadcasting)."""
    if len(indices) == 1:
        return indices
    total = indices[0]
    for i in indices[1:]:
        total = op.Add(total, i)
    shape = op.Shape(total)
    return [op.Expand(i, shape) for i in indices]


def _check_indices(indices, what):
    for i in indices:
        if i is not None and i.dtype == BOOL:
            raise NotImplementedError(
                f"{what} with a boolean mask index has a data-dependent shape; index with "
                "integer tensors (or use torch.where)")


@aten_traced("aten::index.Tensor")
def traced_index(self, indices):
    """self[indices]: advanced indexing with integer tensors (None entries
    keep their axis). The indexed axes are moved to the front and gathered
    with GatherND; torch puts the broadcast index dims where the indexed
    axes were when those are adjacent, else first."""
    _check_indices(indices, "index.Tensor")
    rank = self.rank
    axes = [d for d, i in enumerate(indices) if i is not None]
    if not axes:
        return op.Identity(self)
    idx = [op.Cast(indices[d], to=INT64) for d in axes]
    if len(axes) == 1:
        # One index tensor: Gather on that axis puts its dims in place.
        return op.Gather(self, idx[0], axis=axes[0])
    rest = [d for d in range(rank) if d not in axes]
    x = self if axes == list(range(len(axes))) else op.Transpose(self, perm=axes + rest)
    idx = _broadcast_indices(idx)
    stacked = op.Concat(*[op.Unsqueeze(i, [-1]) for i in idx], axis=-1)
    out = op.GatherND(x, stacked, batch_dims=0)
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    if not adjacent or axes[0] == 0:
        return out
    # out: [B..., rest...]; torch: [rest before axes[0]..., B..., rest after...]
    b = indices[axes[0]].rank
    for i in axes[1:]:
        b = max(b, indices[i].rank)
    before = axes[0]
    n_rest = len(rest)
    perm = list(range(b, b + before)) + list(range(b)) + list(range(b + before, b + n_rest))
    return op.Transpose(out, perm=perm)


@aten_traced("aten::index_put.default")
def traced_index_put(self, indices, values, accumulate=False, _reduction=None):
    """self[indices] = values (+= with accumulate). A boolean mask of self's
    rank is a Where (masked_fill's form); integer indices are a ScatterND
    over the indexed axes moved to the front."""
    axes = [d for d, i in enumerate(indices) if i is not None]
    if len(axes) == 1 and indices[axes[0]].dtype == BOOL and indices[axes[0]].rank == self.rank:
        mask = indices[axes[0]]
        v = op.CastLike(values, self)
        if accumulate:
            return op.Add(self, op.Where(mask, v, op.CastLike(0, self)))
        return op.Where(mask, v, self)
    if len(axes) == 1 and axes[0] == 0 and indices[0].dtype == BOOL:
        # x[mask] = values, mask over the leading axes: the true positions take
        # values (one per position, or one broadcast value): masked_scatter.
        from oxs.torch.traced.indexing import traced_masked_scatter
        mask = indices[0]
        m = op.Reshape(mask, op.Concat(op.Shape(mask), np.ones([self.rank - mask.rank],
                                                             dtype=np.int64), axis=0))
        trailing = self.rank - mask.rank
        if values.rank <= trailing or (values.rank == trailing + 1 and values.shape is not None
                                       and values.shape[0] == 1):
            # one value (or row) for every true position: broadcast
            v = op.CastLike(values, self)
            if accumulate:  # a bool accumulates as a logical or
                v = op.Or(self, v) if self.dtype == BOOL else op.Add(self, v)
            return op.Where(m, v, self)
        if accumulate:
            raise NotImplementedError("index_put with a boolean mask, accumulate=True and one "
                                      "value per true position")
        full = op.Expand(m, op.Shape(self))
        return traced_masked_scatter(self, full, values)
    _check_indices(indices, "index_put")
    if self.dtype == BOOL and accumulate:
        # bool accumulation is a logical or: ScatterND's max over 0/1
        r = traced_index_put(op.Cast(self, to=INT64), indices, op.Cast(values, to=INT64), False,
                           _reduction="max")
        return op.Cast(r, to=BOOL)
    if not axes:
        return op.Identity(self)
    rank = self.rank
    rest = [d for d in range(rank) if d not in axes]
    perm = axes + rest
    moved = perm != list(range(rank))
    x = op.Transpose(self, perm=perm) if moved else self
    idx = _broadcast_indices([op.Cast(indices[d], to=INT64) for d in axes])
    stacked = op.Concat(*[op.Unsqueeze(i, [-1]) for i in idx], axis=-1)
    # Negative indices count from the end (ScatterND wants them in range).
    sizes = op.Slice(op.Shape(x), [0], [len(axes)])
    stacked = op.Where(op.Less(stacked, 0), op.Add(stacked, sizes), stacked)
    # values broadcast to the gathered shape: [B..., rest...] (torch's
    # result shape of self[indices] when the indexed axes lead).
    b_shape = op.Shape(idx[0])
    rest_shape = op.Slice(op.Shape(x), [len(axes)], [INT64_MAX])
    target = op.Concat(b_shape, rest_shape, axis=0)
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    v = op.CastLike(values, self)
    if adjacent and axes[0] > 0 and values.rank is not None and values.rank > 0:
        # torch's values are laid out [before..., B..., after...]: put B first.
        b = idx[0].rank
        before = axes[0]
        full = before + b + (rank - before - len(axes))
        if values.rank == full:
            vperm = list(range(before, before + b)) + list(range(before)) + \
                list(range(before + b, full))
            v = op.Transpose(v, perm=vperm)
    v = op.Expand(v, target)
    out = op.ScatterND(x, stacked, v,
                       reduction=_reduction or ("add" if accumulate else "none"))
    if moved:
        inverse = [perm.index(d) for d in range(rank)]
        out = op.Transpose(out, perm=inverse)
    return out


def _scatter_range(self, src, dim, start, end, step):
    """self with positions start:end:step of axis dim replaced by src."""
    rank = self.rank
    dim = _normalize(dim, rank)
    perm = [dim] + [d for d in range(rank) if d != dim]
    moved = dim != 0
    x = op.Transpose(self, perm=perm) if moved else self
    s = op.Transpose(src, perm=perm) if moved else src
    size = _shape_dim(x, 0)
    zero = op.Constant(value_ints=[0])

    def clamp(v, default):
        if v is None:
            return default
        c = op.Constant(value_ints=[v])
        if v < 0:
            c = op.Add(c, size)
        return op.Min(op.Max(c, zero), size)

    begin = clamp(start, zero)
    stop = clamp(end if end is None or end < INT64_MAX else None, size)
    idx = op.Range(op.Squeeze(begin, [0]), op.Squeeze(stop, [0]),
                   op.Constant(value_int=step))
    out = op.ScatterND(x, op.Unsqueeze(idx, [-1]), op.CastLike(s, x))
    if moved:
        inverse = [perm.index(d) for d in range(rank)]
        out = op.Transpose(out, perm=inverse)
    return out


@aten_traced("aten::slice_scatter.default")
def traced_slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return _scatter_range(self, src, dim, start, end, step)


@aten_traced("aten::select_scatter.default")
def traced_select_scatter(self, src, dim, index):
    rank = self.rank
    d = _normalize(dim, rank)
    s = op.Unsqueeze(src, [d])
    return _scatter_range(self, s, d, index, index + 1 if index != -1 else None, 1)


# ---------------------------------------------------------------- norms


def _ones_or(x, like, channels):
    return x if x is not None else op.Expand(op.CastLike(1, like), channels)


def _zeros_or(x, like, channels):
    return x if x is not None else op.Expand(op.CastLike(0, like), channels)


@aten_traced("aten::_native_batch_norm_legit_no_training.default")
def traced_native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
                                             momentum, eps):
    """Inference batch norm (torch.export's form of BatchNorm in eval):
    (out, save_mean, save_invstd). torch's CPU kernel returns the two saved
    statistics empty, its meta kernel (what the export is checked against)
    with C elements: they are the running mean and 1/sqrt(var + eps) here,
    and no model reads them."""
    channels = _shape_dim(input, 1)
    w = _ones_or(weight, running_mean, channels)
    b = _zeros_or(bias, running_mean, channels)
    x = input
    if input.rank == 2:  # BatchNorm1d on [N, C]: BatchNormalization wants [N, C, ...]
        x = op.Unsqueeze(input, [2])
    y = op.BatchNormalization(x, op.CastLike(w, input), op.CastLike(b, input),
                              op.CastLike(running_mean, input), op.CastLike(running_var, input),
                              epsilon=eps, momentum=1.0 - momentum, training_mode=0)
    if input.rank == 2:
        y = op.Squeeze(y, [2])
    invstd = op.Reciprocal(op.Sqrt(op.Add(running_var, op.CastLike(eps, running_var))))
    return y, op.Identity(running_mean), invstd


def _batch_stats(input, eps):
    """(mean, invstd) per channel over every axis but 1, and the axes."""
    axes = [0] + list(range(2, input.rank))
    mean = op.ReduceMean(input, axes, keepdims=1)
    var = op.ReduceMean(op.Mul(op.Sub(input, mean), op.Sub(input, mean)), axes, keepdims=1)
    invstd = op.Reciprocal(op.Sqrt(op.Add(var, op.CastLike(eps, input))))
    return mean, invstd, var, axes


def _batch_norm_train(input, weight, bias, eps):
    mean, invstd, var, axes = _batch_stats(input, eps)
    y = op.Mul(op.Sub(input, mean), invstd)
    shape = [1, -1] + [1] * (input.rank - 2)
    if weight is not None:
        y = op.Mul(y, op.Reshape(op.CastLike(weight, input), shape))
    if bias is not None:
        y = op.Add(y, op.Reshape(op.CastLike(bias, input), shape))
    return y, op.Reshape(mean, [-1]), op.Reshape(invstd, [-1])


@aten_traced("aten::_native_batch_norm_legit.default")
def traced_native_batch_norm_legit(input, weight, bias, running_mean, running_var, training,
                                 momentum, eps):
    """Training batch norm's forward (batch statistics; the running-stat
    update is a side effect an exported inference graph drops), or with
    training=False the running statistics."""
    if not training:
        return traced_native_batch_norm_legit_no_training(input, weight, bias, running_mean,
                                                        running_var, momentum, eps)
    return _batch_norm_train(input, weight, bias, eps)


@aten_traced("aten::_native_batch_norm_legit.no_stats")
def traced_native_batch_norm_legit_no_stats(input, weight, bias, training, momentum, eps):
    return _batch_norm_train(input, weight, bias, eps)


# ---------------------------------------------------------------- sampling


@aten_traced("aten::grid_sampler_2d.default")
def traced_grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """GridSample: torch's mode and padding enumerations as ONNX's strings
    (GridSample-16 says 'bilinear', GridSample-20 'linear')."""
    linear = "linear" if node_info().opset >= 20 else "bilinear"
    modes = {0: linear, 1: "nearest", 2: "bicubic"}
    pads = {0: "zeros", 1: "border", 2: "reflection"}
    return op.GridSample(input, grid, mode=modes[interpolation_mode],
                         padding_mode=pads[padding_mode], align_corners=int(align_corners))


# ---------------------------------------------------------------- misc


@aten_traced("aten::copy.default")
def traced_copy(self, src, non_blocking=False):
    """The functional copy_: src cast to self's type, broadcast to its shape."""
    return op.Expand(op.CastLike(src, self), op.Shape(self))


@aten_traced("aten::squeeze.dims")
def traced_squeeze_dims(self, dim):
    """squeeze of the listed axes that have size 1 (static sizes; a dynamic
    one stays)."""
    rank = self.rank
    dims = sorted({_normalize(d, rank) for d in dim}) if rank else []
    ones = [d for d in dims if self.shape[d] == 1]
    if not ones:
        return op.Identity(self)
    return op.Squeeze(self, ones)


def _bitwise(onnx_bool, onnx_int):
    def f(self, other):
        if self.dtype == BOOL:
            return onnx_bool(self, op.Cast(other, to=BOOL) if not isinstance(other, (bool, int))
                             else bool(other))
        return onnx_int(self, int(other))
    return f


@aten_traced("aten::bitwise_and.Scalar")
def traced_bitwise_and_scalar(self, other):
    return _bitwise(op.And, op.BitwiseAnd)(self, other)


@aten_traced("aten::bitwise_or.Scalar")
def traced_bitwise_or_scalar(self, other):
    return _bitwise(op.Or, op.BitwiseOr)(self, other)


@aten_traced("aten::bitwise_xor.Scalar")
def traced_bitwise_xor_scalar(self, other):
    return _bitwise(op.Xor, op.BitwiseXor)(self, other)


def _float_unary(onnx_op):
    def f(self):
        if self.dtype == 16:  # ONNX's op has no bfloat16: compute in float32
            return op.Cast(onnx_op(op.Cast(self, to=1)), to=16)
        if self.dtype in FLOATS:
            return onnx_op(self)
        # torch computes integer inputs in the default float type
        return onnx_op(op.Cast(self, to=1))
    return f


@aten_traced("aten::acosh.default")
def traced_acosh(self):
    return _float_unary(op.Acosh)(self)


@aten_traced("aten::asinh.default")
def traced_asinh(self):
    return _float_unary(op.Asinh)(self)


@aten_traced("aten::atanh.default")
def traced_atanh(self):
    return _float_unary(op.Atanh)(self)


@aten_traced("aten::empty_strided.default")
def traced_empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    """Uninitialized memory: zeros of the node's result type (values are
    unspecified in torch)."""
    t = dtype if dtype is not None else node_info().result_dtypes[0]
    return op.ConstantOfShape(op.Constant(value_ints=list(size)),
                              value=_zero_tensor(t))


def _zero_tensor(dtype):
    import numpy as np
    from oxs._eager_op import _NUMPY_OF_ONNX
    return np.zeros([1], dtype=_NUMPY_OF_ONNX.get(dtype, np.float32))


@aten_traced("aten::lift_fresh.default", "aten::lift_fresh_copy.default")
def traced_lift_fresh(self):
    """A tensor constant made in forward (torch.tensor(...)): itself."""
    return op.Identity(self)
