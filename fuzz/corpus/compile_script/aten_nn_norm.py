"""Normalizations of the ATen library: native_layer_norm / layer_norm,
native_batch_norm (inference: running statistics), native_group_norm /
group_norm.

Statistics are computed in the input's type; the extra outputs of the
native_* forms are what torch returns (mean and 1/std with kept dims for
layer norm; empty tensors for batch norm in inference)."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from oxs import INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._helpers import _axis_list, _mean
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat


@script(aten_opset, default_opset=op)
def _last_axes(normalized_shape: INT64[...]) -> INT64[...]:
    """[-n, ..., -1] for the n = len(normalized_shape) trailing dimensions."""
    n = op.Size(normalized_shape)
    return op.Range(op.Neg(n), op.Constant(value_int=0), op.Constant(value_int=1))


@aten_op("aten::native_layer_norm.default")
@script(aten_opset, default_opset=op)
def aten_native_layer_norm(input: TFloat, normalized_shape: Sequence[int],
                           weight: Optional[TFloat] = None, bias: Optional[TFloat] = None,
                           eps: float = 1e-05) -> Tuple[TFloat, TFloat, TFloat]:
    """(y, mean, rstd) over the trailing len(normalized_shape) dimensions."""
    axes = _last_axes(op.Constant(value_ints=normalized_shape))
    mean = _mean(input, axes, keepdim=True)
    d = op.Sub(input, mean)
    var = _mean(op.Mul(d, d), axes, keepdim=True)
    rstd = op.Reciprocal(op.Sqrt(op.Add(var, op.CastLike(eps, var))))
    y = op.Mul(d, rstd)
    if weight is not None:
        y = op.Mul(y, weight)
    if bias is not None:
        y = op.Add(y, bias)
    return y, mean, rstd


@aten_op("aten::layer_norm.default")
@script(aten_opset, default_opset=op)
def aten_layer_norm(input: TFloat, normalized_shape: Sequence[int],
                    weight: Optional[TFloat] = None, bias: Optional[TFloat] = None,
                    eps: float = 1e-05, cudnn_enable: bool = True) -> TFloat:
    axes = _last_axes(op.Constant(value_ints=normalized_shape))
    mean = _mean(input, axes, keepdim=True)
    d = op.Sub(input, mean)
    var = _mean(op.Mul(d, d), axes, keepdim=True)
    y = op.Div(d, op.Sqrt(op.Add(var, op.CastLike(eps, var))))
    if weight is not None:
        y = op.Mul(y, weight)
    if bias is not None:
        y = op.Add(y, bias)
    return y


@script(aten_opset, default_opset=op)
def _channel_shape(input: TFloat) -> INT64[...]:
    """[-1, 1, ..., 1]: a per-channel vector broadcast against N, C, ...
    (one 1 for each dimension after C)."""
    rank = op.Size(op.Shape(input))
    count = op.Reshape(op.Sub(rank, op.Constant(value_int=2)), op.Constant(value_ints=[1]))
    ones = op.Expand(op.Constant(value_ints=[1]), count)
    return op.Concat(op.Constant(value_ints=[-1]), ones, axis=0)


@script(aten_opset, default_opset=op)
def _non_channel_axes(input: TFloat) -> INT64[...]:
    """[0, 2, 3, ...]: every axis but the channel axis 1."""
    rank = op.Size(op.Shape(input))
    rest = op.Range(op.Constant(value_int=2), rank, op.Constant(value_int=1))
    return op.Concat(op.Constant(value_ints=[0]), rest, axis=0)


@aten_op("aten::native_batch_norm.default")
@script(aten_opset, default_opset=op)
def aten_native_batch_norm(input: TFloat, weight: Optional[TFloat] = None,
                           bias: Optional[TFloat] = None,
                           running_mean: Optional[TFloat] = None,
                           running_var: Optional[TFloat] = None, training: bool = False,
                           momentum: float = 0.1,
                           eps: float = 1e-05) -> Tuple[TFloat, TFloat, TFloat]:
    """Inference with the running statistics (training=True, which updates
    them, is not exported; a running statistic given as None is taken from
    the batch). Outputs (y, save_mean, save_invstd); the two saved statistics
    are empty, as torch returns them in inference."""
    cs = _channel_shape(input)
    if running_mean is None:
        mean = _mean(input, _non_channel_axes(input), keepdim=True)
    else:
        mean = op.Reshape(running_mean, cs)
    d = op.Sub(input, mean)
    if running_var is None:
        var = _mean(op.Mul(d, d), _non_channel_axes(input), keepdim=True)
    else:
        var = op.Reshape(running_var, cs)
    y = op.Div(d, op.Sqrt(op.Add(var, op.CastLike(eps, input))))
    if weight is not None:
        y = op.Mul(y, op.Reshape(weight, cs))
    if bias is not None:
        y = op.Add(y, op.Reshape(bias, cs))
    zero = op.Constant(value_ints=[0])
    empty = op.Slice(op.CastLike(op.Constant(value_floats=[0.0]), input), zero, zero)
    return y, empty, op.Identity(empty)


@aten_op("aten::native_group_norm.default")
@script(aten_opset, default_opset=op)
def aten_native_group_norm(input: TFloat, weight: Optional[TFloat] = None,
                           bias: Optional[TFloat] = None, N: int = 0, C: int = 0,
                           HxW: int = 0, group: int = 1,
                           eps: float = 1e-05) -> Tuple[TFloat, TFloat, TFloat]:
    """(y, mean, rstd); mean and rstd are [N, group]."""
    n = _axis_list(value=N)
    g = _axis_list(value=group)
    x = op.Reshape(input, op.Concat(n, g, op.Constant(value_ints=[-1]), axis=0))
    axes = op.Constant(value_ints=[2])
    mean = _mean(x, axes, keepdim=True)
    d = op.Sub(x, mean)
    var = _mean(op.Mul(d, d), axes, keepdim=True)
    rstd = op.Reciprocal(op.Sqrt(op.Add(var, op.CastLike(eps, var))))
    y = op.Reshape(op.Mul(d, rstd), op.Shape(input))
    cs = _channel_shape(input)
    if weight is not None:
        y = op.Mul(y, op.Reshape(weight, cs))
    if bias is not None:
        y = op.Add(y, op.Reshape(bias, cs))
    return y, op.Squeeze(mean, axes), op.Squeeze(rstd, axes)
