"""Activations of the ATen library: relu, relu6, hardtanh, leaky_relu, elu,
selu, celu, prelu, glu, gelu (none and tanh), silu, sigmoid, log_sigmoid,
hardsigmoid, hardswish, hardshrink, softshrink, threshold, softplus, mish,
and softmax/log_softmax (int and underscore overloads)."""

from __future__ import annotations

from oxs import script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat, TReal
from oxs.torch.aten.nn_norm import _channel_shape


@aten_op("aten::relu.default")
@script(aten_opset, default_opset=op)
def aten_relu(self: TReal) -> TReal:
    return op.Relu(self)


@aten_op("aten::relu6.default")
@script(aten_opset, default_opset=op)
def aten_relu6(self: TReal) -> TReal:
    return op.Min(op.Relu(self), op.CastLike(6.0, self))


@aten_op("aten::hardtanh.default")
@script(aten_opset, default_opset=op)
def aten_hardtanh(self: TReal, min_val: float = -1.0, max_val: float = 1.0) -> TReal:
    return op.Clip(self, op.CastLike(min_val, self), op.CastLike(max_val, self))


@aten_op("aten::leaky_relu.default")
@script(aten_opset, default_opset=op)
def aten_leaky_relu(self: TFloat, negative_slope: float = 0.01) -> TFloat:
    return op.LeakyRelu(self, alpha=negative_slope)


@aten_op("aten::elu.default")
@script(aten_opset, default_opset=op)
def aten_elu(self: TFloat, alpha: float = 1.0, scale: float = 1.0,
             input_scale: float = 1.0) -> TFloat:
    """scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1))"""
    neg = op.Mul(op.CastLike(alpha, self),
                 op.Sub(op.Exp(op.Mul(self, op.CastLike(input_scale, self))),
                        op.CastLike(1.0, self)))
    pos = op.Greater(self, op.CastLike(0.0, self))
    return op.Mul(op.CastLike(scale, self), op.Where(pos, self, neg))


@script(aten_opset, default_opset=op)
def _gelu_erf(x: TFloat) -> TFloat:
    """0.5 * x * (1 + erf(x / sqrt(2)))"""
    half = op.CastLike(0.5, x)
    inner = op.Erf(op.Mul(x, op.CastLike(0.7071067811865476, x)))
    return op.Mul(op.Mul(half, x), op.Add(op.CastLike(1.0, x), inner))


@script(aten_opset, default_opset=op)
def _gelu_tanh(x: TFloat) -> TFloat:
    """0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))"""
    cube = op.Mul(op.Mul(x, x), x)
    inner = op.Mul(op.CastLike(0.7978845608028654, x),
                   op.Add(x, op.Mul(op.CastLike(0.044715, x), cube)))
    return op.Mul(op.Mul(op.CastLike(0.5, x), x), op.Add(op.CastLike(1.0, x), op.Tanh(inner)))


@aten_op("aten::gelu.default")
@script(aten_opset, default_opset=op)
def aten_gelu(self: TFloat, approximate: str = "none") -> TFloat:
    """approximate "none" (erf) or "tanh"."""
    if approximate == "tanh":
        r = _gelu_tanh(self)
    else:
        r = _gelu_erf(self)
    return r


@aten_op("aten::silu.default")
@script(aten_opset, default_opset=op)
def aten_silu(self: TFloat) -> TFloat:
    return op.Mul(self, op.Sigmoid(self))


@aten_op("aten::sigmoid.default")
@script(aten_opset, default_opset=op)
def aten_sigmoid(self: TFloat) -> TFloat:
    return op.Sigmoid(self)


@aten_op("aten::hardsigmoid.default")
@script(aten_opset, default_opset=op)
def aten_hardsigmoid(self: TFloat) -> TFloat:
    """relu6(x + 3) / 6"""
    return op.HardSigmoid(self, alpha=0.16666666666666666, beta=0.5)


@aten_op("aten::hardswish.default")
@script(aten_opset, default_opset=op)
def aten_hardswish(self: TFloat) -> TFloat:
    return op.HardSwish(self)


@aten_op("aten::softplus.default")
@script(aten_opset, default_opset=op)
def aten_softplus(self: TFloat, beta: float = 1.0, threshold: float = 20.0) -> TFloat:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    bx = op.Mul(self, op.CastLike(beta, self))
    soft = op.Div(op.Softplus(bx), op.CastLike(beta, self))
    return op.Where(op.Greater(bx, op.CastLike(threshold, self)), self, soft)


@aten_op("aten::mish.default")
@script(aten_opset, default_opset=op)
def aten_mish(self: TFloat) -> TFloat:
    return op.Mul(self, op.Tanh(op.Softplus(self)))


@aten_op("aten::_softmax.default")
@script(aten_opset, default_opset=op)
def aten__softmax(self: TFloat, dim: int, half_to_float: bool) -> TFloat:
    """half_to_float (a CUDA-only option) is refused by torch on CPU; the
    result keeps self's type."""
    return op.Softmax(self, axis=dim)


@aten_op("aten::softmax.int", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_softmax(self: TFloat, dim: int, dtype: int = -1) -> TFloat:
    """dtype: see _registry (ScalarType arguments that cast the input)."""
    return op.Softmax(self, axis=dim)


@aten_op("aten::_log_softmax.default")
@script(aten_opset, default_opset=op)
def aten__log_softmax(self: TFloat, dim: int, half_to_float: bool) -> TFloat:
    return op.LogSoftmax(self, axis=dim)


@aten_op("aten::log_softmax.int", dtype="cast_input")
@script(aten_opset, default_opset=op)
def aten_log_softmax(self: TFloat, dim: int, dtype: int = -1) -> TFloat:
    return op.LogSoftmax(self, axis=dim)


@aten_op("aten::selu.default")
@script(aten_opset, default_opset=op)
def aten_selu(self: TFloat) -> TFloat:
    return op.Selu(self)


@aten_op("aten::celu.default")
@script(aten_opset, default_opset=op)
def aten_celu(self: TFloat, alpha: float = 1.0) -> TFloat:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))"""
    a = op.CastLike(alpha, self)
    zero = op.CastLike(0.0, self)
    neg = op.Mul(a, op.Sub(op.Exp(op.Div(self, a)), op.CastLike(1.0, self)))
    return op.Add(op.Max(self, zero), op.Min(neg, zero))


@aten_op("aten::prelu.default")
@script(aten_opset, default_opset=op)
def aten_prelu(self: TFloat, weight: TFloat) -> TFloat:
    """weight has one slope per channel (dimension 1) or one for all."""
    return op.PRelu(self, op.Reshape(weight, _channel_shape(self)))


@aten_op("aten::glu.default")
@script(aten_opset, default_opset=op)
def aten_glu(self: TFloat, dim: int = -1) -> TFloat:
    """a * sigmoid(b), a and b the halves of self along dim."""
    a, b = op.Split(self, axis=dim, num_outputs=2)
    return op.Mul(a, op.Sigmoid(b))


@aten_op("aten::log_sigmoid.default")
@script(aten_opset, default_opset=op)
def aten_log_sigmoid(self: TFloat) -> TFloat:
    """-softplus(-x), which does not overflow."""
    return op.Neg(op.Softplus(op.Neg(self)))


@aten_op("aten::hardshrink.default")
@script(aten_opset, default_opset=op)
def aten_hardshrink(self: TFloat, lambd: float = 0.5) -> TFloat:
    return op.Shrink(self, lambd=lambd, bias=0.0)


@aten_op("aten::softshrink.default")
@script(aten_opset, default_opset=op)
def aten_softshrink(self: TFloat, lambd: float = 0.5) -> TFloat:
    return op.Shrink(self, lambd=lambd, bias=lambd)


@aten_op("aten::threshold.default")
@script(aten_opset, default_opset=op)
def aten_threshold(self: TReal, threshold: float, value: float) -> TReal:
    """x where x > threshold, else value"""
    keep = op.Greater(self, op.CastLike(threshold, self))
    return op.Where(keep, self, op.CastLike(value, self))
