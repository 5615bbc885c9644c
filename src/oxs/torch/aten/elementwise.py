"""Elementwise arithmetic of the ATen library: add/sub/mul/div/rsub (Tensor and
Scalar overloads), pow, minimum/maximum, fmod/remainder, lerp, addcmul/addcdiv,
floor_divide, atan2, hypot, logaddexp, and the unary math functions (neg, abs, square, exp,
log, sqrt, rsqrt, erf, floor, ceil, round, trunc, frac, sign, reciprocal,
sin, cos, tan, sinh, cosh, asin, acos, atan, tanh, expm1, log1p, log2,
log10, exp2).

A `Scalar` argument is a float attribute cast to the tensor's element type
(CastLike), so integer tensors take integer-valued scalars exactly up to 2^24.
Type promotion (int / int -> float, int + float scalar -> float) is the
dispatcher's: every function here computes in its inputs' element type."""

from __future__ import annotations

from oxs import script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat, TReal, TSigned


@aten_op("aten::add.Tensor")
@script(aten_opset, default_opset=op)
def aten_add(self: TReal, other: TReal, alpha: float = 1.0) -> TReal:
    """self + alpha * other"""
    return op.Add(self, op.Mul(other, op.CastLike(alpha, other)))


@aten_op("aten::add.Scalar")
@script(aten_opset, default_opset=op)
def aten_add_scalar(self: TReal, other: float, alpha: float = 1.0) -> TReal:
    """self + alpha * other, other a Scalar"""
    return op.Add(self, op.Mul(op.CastLike(other, self), op.CastLike(alpha, self)))


@aten_op("aten::sub.Tensor")
@script(aten_opset, default_opset=op)
def aten_sub(self: TReal, other: TReal, alpha: float = 1.0) -> TReal:
    """self - alpha * other"""
    return op.Sub(self, op.Mul(other, op.CastLike(alpha, other)))


@aten_op("aten::sub.Scalar")
@script(aten_opset, default_opset=op)
def aten_sub_scalar(self: TReal, other: float, alpha: float = 1.0) -> TReal:
    """self - alpha * other, other a Scalar"""
    return op.Sub(self, op.Mul(op.CastLike(other, self), op.CastLike(alpha, self)))


@aten_op("aten::rsub.Tensor")
@script(aten_opset, default_opset=op)
def aten_rsub(self: TReal, other: TReal, alpha: float = 1.0) -> TReal:
    """other - alpha * self"""
    return op.Sub(other, op.Mul(self, op.CastLike(alpha, self)))


@aten_op("aten::rsub.Scalar")
@script(aten_opset, default_opset=op)
def aten_rsub_scalar(self: TReal, other: float, alpha: float = 1.0) -> TReal:
    """other - alpha * self, other a Scalar"""
    return op.Sub(op.CastLike(other, self), op.Mul(self, op.CastLike(alpha, self)))


@aten_op("aten::mul.Tensor")
@script(aten_opset, default_opset=op)
def aten_mul(self: TReal, other: TReal) -> TReal:
    return op.Mul(self, other)


@aten_op("aten::mul.Scalar")
@script(aten_opset, default_opset=op)
def aten_mul_scalar(self: TReal, other: float) -> TReal:
    return op.Mul(self, op.CastLike(other, self))


@aten_op("aten::div.Tensor", "aten::true_divide.Tensor")
@script(aten_opset, default_opset=op)
def aten_div(self: TFloat, other: TFloat) -> TFloat:
    """True division (integer inputs are promoted to float by the dispatcher)."""
    return op.Div(self, other)


@aten_op("aten::div.Scalar")
@script(aten_opset, default_opset=op)
def aten_div_scalar(self: TFloat, other: float) -> TFloat:
    return op.Div(self, op.CastLike(other, self))


@script(aten_opset, default_opset=op)
def _float_trunc(x: TFloat) -> TFloat:
    """Rounds toward zero (ONNX has no Trunc)."""
    return op.Where(op.Less(x, op.CastLike(0.0, x)), op.Ceil(x), op.Floor(x))


@aten_op("aten::div.Tensor_mode")
@script(aten_opset, default_opset=op)
def aten_div_mode(self: TFloat, other: TFloat, rounding_mode: str = "") -> TFloat:
    """Division rounded by rounding_mode: "" (None: true division), "trunc"
    or "floor"."""
    q = op.Div(self, other)
    if rounding_mode == "floor":
        r = op.Floor(q)
    elif rounding_mode == "trunc":
        r = _float_trunc(q)
    else:
        r = op.Identity(q)
    return r


@script(aten_opset, default_opset=op)
def _int_floor_div(a: TReal, b: TReal) -> TReal:
    """Integer floor division: (a - mod(a, b)) / b with Python's sign rule for
    mod (the sign of b), which makes the quotient exact."""
    return op.Div(op.Sub(a, op.Mod(a, b, fmod=0)), b)


@script(aten_opset, default_opset=op)
def _int_trunc_div(a: TReal, b: TReal) -> TReal:
    """Integer division rounded toward zero: (a - fmod(a, b)) / b."""
    return op.Div(op.Sub(a, op.Mod(a, b, fmod=1)), b)


@aten_op("aten::div.Tensor_mode")
@script(aten_opset, default_opset=op)
def aten_div_mode_int(self: TSigned, other: TSigned, rounding_mode: str = "trunc") -> TSigned:
    """Integer division with rounding_mode "trunc" or "floor" (torch requires
    a rounding mode for an integer result; None is promoted to float by the
    dispatcher)."""
    if rounding_mode == "floor":
        r = _int_floor_div(self, other)
    else:
        r = _int_trunc_div(self, other)
    return r


@aten_op("aten::floor_divide.default")
@script(aten_opset, default_opset=op)
def aten_floor_divide(self: TFloat, other: TFloat) -> TFloat:
    return op.Floor(op.Div(self, other))


@aten_op("aten::floor_divide.default")
@script(aten_opset, default_opset=op)
def aten_floor_divide_int(self: TSigned, other: TSigned) -> TSigned:
    return _int_floor_div(self, other)


@aten_op("aten::atan2.default")
@script(aten_opset, default_opset=op)
def aten_atan2(self: TFloat, other: TFloat) -> TFloat:
    """The angle of (other, self) in (-pi, pi]: atan(y / x) moved to the
    right quadrant (x = 0 gives +-pi/2, and 0 for y = x = 0)."""
    zero = op.CastLike(0.0, self)
    pi = op.CastLike(3.141592653589793, self)
    half_pi = op.CastLike(1.5707963267948966, self)
    base = op.Atan(op.Div(self, other))
    neg_y = op.Less(self, zero)
    left = op.Where(neg_y, op.Sub(base, pi), op.Add(base, pi))
    r = op.Where(op.Less(other, zero), left, base)
    on_axis = op.Where(neg_y, op.Neg(half_pi), op.Where(op.Greater(self, zero), half_pi, zero))
    return op.Where(op.Equal(other, zero), on_axis, r)


@aten_op("aten::div.Scalar_mode")
@script(aten_opset, default_opset=op)
def aten_div_scalar_mode(self: TFloat, other: float, rounding_mode: str = "") -> TFloat:
    return aten_div_mode(self, op.CastLike(other, self), rounding_mode=rounding_mode)


@aten_op("aten::div.Scalar_mode")
@script(aten_opset, default_opset=op)
def aten_div_scalar_mode_int(self: TSigned, other: float,
                             rounding_mode: str = "trunc") -> TSigned:
    return aten_div_mode_int(self, op.CastLike(other, self), rounding_mode=rounding_mode)


@aten_op("aten::hypot.default")
@script(aten_opset, default_opset=op)
def aten_hypot(self: TFloat, other: TFloat) -> TFloat:
    return op.Sqrt(op.Add(op.Mul(self, self), op.Mul(other, other)))


@aten_op("aten::logaddexp.default")
@script(aten_opset, default_opset=op)
def aten_logaddexp(self: TFloat, other: TFloat) -> TFloat:
    """log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)), without overflow."""
    m = op.Max(self, other)
    d = op.Neg(op.Abs(op.Sub(self, other)))
    return op.Add(m, op.Log(op.Add(op.CastLike(1.0, self), op.Exp(d))))


@aten_op("aten::pow.Tensor_Tensor")
@script(aten_opset, default_opset=op)
def aten_pow(self: TReal, exponent: TReal) -> TReal:
    return op.Pow(self, exponent)


@aten_op("aten::pow.Tensor_Scalar")
@script(aten_opset, default_opset=op)
def aten_pow_tensor_scalar(self: TReal, exponent: float) -> TReal:
    return op.Pow(self, op.CastLike(exponent, self))


@aten_op("aten::pow.Scalar")
@script(aten_opset, default_opset=op)
def aten_pow_scalar(self: float, exponent: TReal) -> TReal:
    return op.Pow(op.CastLike(self, exponent), exponent)


@aten_op("aten::minimum.default", "aten::min.other")
@script(aten_opset, default_opset=op)
def aten_minimum(self: TReal, other: TReal) -> TReal:
    return op.Min(self, other)


@aten_op("aten::maximum.default", "aten::max.other")
@script(aten_opset, default_opset=op)
def aten_maximum(self: TReal, other: TReal) -> TReal:
    return op.Max(self, other)


@aten_op("aten::fmod.Tensor")
@script(aten_opset, default_opset=op)
def aten_fmod(self: TReal, other: TReal) -> TReal:
    """Remainder with the sign of the dividend (C's fmod)."""
    return op.Mod(self, other, fmod=1)


@aten_op("aten::fmod.Scalar")
@script(aten_opset, default_opset=op)
def aten_fmod_scalar(self: TReal, other: float) -> TReal:
    return op.Mod(self, op.CastLike(other, self), fmod=1)


@aten_op("aten::remainder.Tensor")
@script(aten_opset, default_opset=op)
def aten_remainder(self: TFloat, other: TFloat) -> TFloat:
    """Remainder with the sign of the divisor (Python's %): a - floor(a/b)*b."""
    return op.Sub(self, op.Mul(op.Floor(op.Div(self, other)), other))


@aten_op("aten::remainder.Tensor")
@script(aten_opset, default_opset=op)
def aten_remainder_int(self: TSigned, other: TSigned) -> TSigned:
    """Integer remainder with the sign of the divisor (ONNX Mod, fmod=0)."""
    return op.Mod(self, other, fmod=0)


@aten_op("aten::remainder.Scalar")
@script(aten_opset, default_opset=op)
def aten_remainder_scalar(self: TFloat, other: float) -> TFloat:
    b = op.CastLike(other, self)
    return op.Sub(self, op.Mul(op.Floor(op.Div(self, b)), b))


@aten_op("aten::lerp.Scalar")
@script(aten_opset, default_opset=op)
def aten_lerp_scalar(self: TFloat, end: TFloat, weight: float) -> TFloat:
    """self + weight * (end - self)"""
    return op.Add(self, op.Mul(op.CastLike(weight, self), op.Sub(end, self)))


@aten_op("aten::lerp.Tensor")
@script(aten_opset, default_opset=op)
def aten_lerp(self: TFloat, end: TFloat, weight: TFloat) -> TFloat:
    return op.Add(self, op.Mul(weight, op.Sub(end, self)))


@aten_op("aten::addcmul.default")
@script(aten_opset, default_opset=op)
def aten_addcmul(self: TReal, tensor1: TReal, tensor2: TReal, value: float = 1.0) -> TReal:
    """self + value * tensor1 * tensor2"""
    return op.Add(self, op.Mul(op.CastLike(value, self), op.Mul(tensor1, tensor2)))


@aten_op("aten::addcdiv.default")
@script(aten_opset, default_opset=op)
def aten_addcdiv(self: TFloat, tensor1: TFloat, tensor2: TFloat, value: float = 1.0) -> TFloat:
    """self + value * tensor1 / tensor2"""
    return op.Add(self, op.Mul(op.CastLike(value, self), op.Div(tensor1, tensor2)))


# ---------------------------------------------------------------- unary


@aten_op("aten::square.default")
@script(aten_opset, default_opset=op)
def aten_square(self: TReal) -> TReal:
    return op.Mul(self, self)


@aten_op("aten::neg.default")
@script(aten_opset, default_opset=op)
def aten_neg(self: TSigned) -> TSigned:
    return op.Neg(self)


@aten_op("aten::abs.default")
@script(aten_opset, default_opset=op)
def aten_abs(self: TReal) -> TReal:
    return op.Abs(self)


@aten_op("aten::sign.default")
@script(aten_opset, default_opset=op)
def aten_sign(self: TReal) -> TReal:
    return op.Sign(self)


@aten_op("aten::exp.default")
@script(aten_opset, default_opset=op)
def aten_exp(self: TFloat) -> TFloat:
    return op.Exp(self)


@aten_op("aten::exp2.default")
@script(aten_opset, default_opset=op)
def aten_exp2(self: TFloat) -> TFloat:
    return op.Pow(op.CastLike(2.0, self), self)


@aten_op("aten::expm1.default")
@script(aten_opset, default_opset=op)
def aten_expm1(self: TFloat) -> TFloat:
    return op.Sub(op.Exp(self), op.CastLike(1.0, self))


@aten_op("aten::log.default")
@script(aten_opset, default_opset=op)
def aten_log(self: TFloat) -> TFloat:
    return op.Log(self)


@aten_op("aten::log1p.default")
@script(aten_opset, default_opset=op)
def aten_log1p(self: TFloat) -> TFloat:
    return op.Log(op.Add(self, op.CastLike(1.0, self)))


@aten_op("aten::log2.default")
@script(aten_opset, default_opset=op)
def aten_log2(self: TFloat) -> TFloat:
    return op.Div(op.Log(self), op.CastLike(0.6931471805599453, self))


@aten_op("aten::log10.default")
@script(aten_opset, default_opset=op)
def aten_log10(self: TFloat) -> TFloat:
    return op.Div(op.Log(self), op.CastLike(2.302585092994046, self))


@aten_op("aten::sqrt.default")
@script(aten_opset, default_opset=op)
def aten_sqrt(self: TFloat) -> TFloat:
    return op.Sqrt(self)


@aten_op("aten::rsqrt.default")
@script(aten_opset, default_opset=op)
def aten_rsqrt(self: TFloat) -> TFloat:
    return op.Reciprocal(op.Sqrt(self))


@aten_op("aten::reciprocal.default")
@script(aten_opset, default_opset=op)
def aten_reciprocal(self: TFloat) -> TFloat:
    return op.Reciprocal(self)


@aten_op("aten::erf.default")
@script(aten_opset, default_opset=op)
def aten_erf(self: TFloat) -> TFloat:
    return op.Erf(self)


@aten_op("aten::floor.default")
@script(aten_opset, default_opset=op)
def aten_floor(self: TFloat) -> TFloat:
    return op.Floor(self)


@aten_op("aten::ceil.default")
@script(aten_opset, default_opset=op)
def aten_ceil(self: TFloat) -> TFloat:
    return op.Ceil(self)


@aten_op("aten::round.default")
@script(aten_opset, default_opset=op)
def aten_round(self: TFloat) -> TFloat:
    """Half to even, as torch rounds."""
    return op.Round(self)


@aten_op("aten::trunc.default")
@script(aten_opset, default_opset=op)
def aten_trunc(self: TFloat) -> TFloat:
    return _float_trunc(self)


@aten_op("aten::frac.default")
@script(aten_opset, default_opset=op)
def aten_frac(self: TFloat) -> TFloat:
    return op.Sub(self, _float_trunc(self))


@aten_op("aten::sin.default")
@script(aten_opset, default_opset=op)
def aten_sin(self: TFloat) -> TFloat:
    return op.Sin(self)


@aten_op("aten::cos.default")
@script(aten_opset, default_opset=op)
def aten_cos(self: TFloat) -> TFloat:
    return op.Cos(self)


@aten_op("aten::tanh.default")
@script(aten_opset, default_opset=op)
def aten_tanh(self: TFloat) -> TFloat:
    return op.Tanh(self)


@aten_op("aten::tan.default")
@script(aten_opset, default_opset=op)
def aten_tan(self: TFloat) -> TFloat:
    return op.Tan(self)


@aten_op("aten::sinh.default")
@script(aten_opset, default_opset=op)
def aten_sinh(self: TFloat) -> TFloat:
    return op.Sinh(self)


@aten_op("aten::cosh.default")
@script(aten_opset, default_opset=op)
def aten_cosh(self: TFloat) -> TFloat:
    return op.Cosh(self)


@aten_op("aten::asin.default")
@script(aten_opset, default_opset=op)
def aten_asin(self: TFloat) -> TFloat:
    return op.Asin(self)


@aten_op("aten::acos.default")
@script(aten_opset, default_opset=op)
def aten_acos(self: TFloat) -> TFloat:
    return op.Acos(self)


@aten_op("aten::atan.default")
@script(aten_opset, default_opset=op)
def aten_atan(self: TFloat) -> TFloat:
    return op.Atan(self)
