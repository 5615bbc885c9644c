"""Comparisons, selection and logic of the ATen library: eq/ne/lt/le/gt/ge
(Tensor and Scalar overloads), where, masked_fill, clamp/clamp_min/clamp_max,
isnan, isinf, isfinite, logical_and/or/xor/not, bitwise_not/and/or/xor."""

from __future__ import annotations

import math
from typing import Optional

from oxs import BOOL, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat, TInt, TReal, TTensor


@aten_op("aten::eq.Tensor")
@script(aten_opset, default_opset=op)
def aten_eq(self: TTensor, other: TTensor) -> BOOL[...]:
    return op.Equal(self, other)


@aten_op("aten::eq.Scalar")
@script(aten_opset, default_opset=op)
def aten_eq_scalar(self: TReal, other: float) -> BOOL[...]:
    return op.Equal(self, op.CastLike(other, self))


@aten_op("aten::ne.Tensor")
@script(aten_opset, default_opset=op)
def aten_ne(self: TTensor, other: TTensor) -> BOOL[...]:
    return op.Not(op.Equal(self, other))


@aten_op("aten::ne.Scalar")
@script(aten_opset, default_opset=op)
def aten_ne_scalar(self: TReal, other: float) -> BOOL[...]:
    return op.Not(op.Equal(self, op.CastLike(other, self)))


@aten_op("aten::lt.Tensor")
@script(aten_opset, default_opset=op)
def aten_lt(self: TReal, other: TReal) -> BOOL[...]:
    return op.Less(self, other)


@aten_op("aten::lt.Scalar")
@script(aten_opset, default_opset=op)
def aten_lt_scalar(self: TReal, other: float) -> BOOL[...]:
    return op.Less(self, op.CastLike(other, self))


@aten_op("aten::le.Tensor")
@script(aten_opset, default_opset=op)
def aten_le(self: TReal, other: TReal) -> BOOL[...]:
    return op.LessOrEqual(self, other)


@aten_op("aten::le.Scalar")
@script(aten_opset, default_opset=op)
def aten_le_scalar(self: TReal, other: float) -> BOOL[...]:
    return op.LessOrEqual(self, op.CastLike(other, self))


@aten_op("aten::gt.Tensor")
@script(aten_opset, default_opset=op)
def aten_gt(self: TReal, other: TReal) -> BOOL[...]:
    return op.Greater(self, other)


@aten_op("aten::gt.Scalar")
@script(aten_opset, default_opset=op)
def aten_gt_scalar(self: TReal, other: float) -> BOOL[...]:
    return op.Greater(self, op.CastLike(other, self))


@aten_op("aten::ge.Tensor")
@script(aten_opset, default_opset=op)
def aten_ge(self: TReal, other: TReal) -> BOOL[...]:
    return op.GreaterOrEqual(self, other)


@aten_op("aten::ge.Scalar")
@script(aten_opset, default_opset=op)
def aten_ge_scalar(self: TReal, other: float) -> BOOL[...]:
    return op.GreaterOrEqual(self, op.CastLike(other, self))


@aten_op("aten::isnan.default")
@script(aten_opset, default_opset=op)
def aten_isnan(self: TFloat) -> BOOL[...]:
    return op.IsNaN(self)


@aten_op("aten::isinf.default")
@script(aten_opset, default_opset=op)
def aten_isinf(self: TFloat) -> BOOL[...]:
    return op.IsInf(self)


@aten_op("aten::isfinite.default")
@script(aten_opset, default_opset=op)
def aten_isfinite(self: TFloat) -> BOOL[...]:
    return op.Not(op.Or(op.IsInf(self), op.IsNaN(self)))


@aten_op("aten::where.self")
@script(aten_opset, default_opset=op)
def aten_where(condition: BOOL[...], self: TTensor, other: TTensor) -> TTensor:
    return op.Where(condition, self, other)


@aten_op("aten::where.ScalarOther")
@script(aten_opset, default_opset=op)
def aten_where_scalar_other(condition: BOOL[...], self: TTensor, other: float) -> TTensor:
    return op.Where(condition, self, op.CastLike(other, self))


@aten_op("aten::where.ScalarSelf")
@script(aten_opset, default_opset=op)
def aten_where_scalar_self(condition: BOOL[...], self: float, other: TTensor) -> TTensor:
    return op.Where(condition, op.CastLike(self, other), other)


@aten_op("aten::masked_fill.Scalar")
@script(aten_opset, default_opset=op)
def aten_masked_fill_scalar(self: TTensor, mask: BOOL[...], value: float) -> TTensor:
    return op.Where(mask, op.CastLike(value, self), self)


@aten_op("aten::masked_fill.Tensor")
@script(aten_opset, default_opset=op)
def aten_masked_fill(self: TTensor, mask: BOOL[...], value: TTensor) -> TTensor:
    """value is a 0-d tensor"""
    return op.Where(mask, value, self)


@aten_op("aten::clamp.default")
@script(aten_opset, default_opset=op)
def aten_clamp(self: TReal, min: float = -math.inf, max: float = math.inf) -> TReal:
    """clamp(self, min, max); a bound given as None is omitted and stays
    infinite, and an infinite bound is not applied (so integer tensors never
    see a cast of infinity)."""
    r = op.Identity(self)
    if min > -math.inf:
        r = op.Max(r, op.CastLike(min, self))
    if max < math.inf:
        r = op.Min(r, op.CastLike(max, self))
    return r


@aten_op("aten::clamp.Tensor")
@script(aten_opset, default_opset=op)
def aten_clamp_tensor(self: TReal, min: Optional[TReal] = None,
                      max: Optional[TReal] = None) -> TReal:
    """clamp with tensor bounds; a bound given as None is not applied (the
    library holds a variant without it)."""
    r = op.Identity(self)
    if min is not None:
        r = op.Max(r, min)
    if max is not None:
        r = op.Min(r, max)
    return r


@aten_op("aten::clamp_min.default")
@script(aten_opset, default_opset=op)
def aten_clamp_min(self: TReal, min: float) -> TReal:
    return op.Max(self, op.CastLike(min, self))


@aten_op("aten::clamp_max.default")
@script(aten_opset, default_opset=op)
def aten_clamp_max(self: TReal, max: float) -> TReal:
    return op.Min(self, op.CastLike(max, self))


@aten_op("aten::clamp_min.Tensor")
@script(aten_opset, default_opset=op)
def aten_clamp_min_tensor(self: TReal, min: TReal) -> TReal:
    return op.Max(self, min)


@aten_op("aten::clamp_max.Tensor")
@script(aten_opset, default_opset=op)
def aten_clamp_max_tensor(self: TReal, max: TReal) -> TReal:
    return op.Min(self, max)


# ---------------------------------------------------------------- logic


@aten_op("aten::logical_not.default")
@script(aten_opset, default_opset=op)
def aten_logical_not(self: TTensor) -> BOOL[...]:
    return op.Not(op.Cast(self, to=BOOL.dtype))


@aten_op("aten::logical_and.default")
@script(aten_opset, default_opset=op)
def aten_logical_and(self: TTensor, other: TTensor) -> BOOL[...]:
    return op.And(op.Cast(self, to=BOOL.dtype), op.Cast(other, to=BOOL.dtype))


@aten_op("aten::logical_or.default")
@script(aten_opset, default_opset=op)
def aten_logical_or(self: TTensor, other: TTensor) -> BOOL[...]:
    return op.Or(op.Cast(self, to=BOOL.dtype), op.Cast(other, to=BOOL.dtype))


@aten_op("aten::logical_xor.default")
@script(aten_opset, default_opset=op)
def aten_logical_xor(self: TTensor, other: TTensor) -> BOOL[...]:
    return op.Xor(op.Cast(self, to=BOOL.dtype), op.Cast(other, to=BOOL.dtype))


@aten_op("aten::bitwise_not.default")
@script(aten_opset, default_opset=op)
def aten_bitwise_not(self: TInt) -> TInt:
    return op.BitwiseNot(self)


@aten_op("aten::bitwise_not.default")
@script(aten_opset, default_opset=op)
def aten_bitwise_not_bool(self: BOOL[...]) -> BOOL[...]:
    return op.Not(self)


@aten_op("aten::bitwise_and.Tensor")
@script(aten_opset, default_opset=op)
def aten_bitwise_and(self: TInt, other: TInt) -> TInt:
    return op.BitwiseAnd(self, other)


@aten_op("aten::bitwise_and.Tensor")
@script(aten_opset, default_opset=op)
def aten_bitwise_and_bool(self: BOOL[...], other: BOOL[...]) -> BOOL[...]:
    return op.And(self, other)


@aten_op("aten::bitwise_or.Tensor")
@script(aten_opset, default_opset=op)
def aten_bitwise_or(self: TInt, other: TInt) -> TInt:
    return op.BitwiseOr(self, other)


@aten_op("aten::bitwise_or.Tensor")
@script(aten_opset, default_opset=op)
def aten_bitwise_or_bool(self: BOOL[...], other: BOOL[...]) -> BOOL[...]:
    return op.Or(self, other)


@aten_op("aten::bitwise_xor.Tensor")
@script(aten_opset, default_opset=op)
def aten_bitwise_xor(self: TInt, other: TInt) -> TInt:
    return op.BitwiseXor(self, other)


@aten_op("aten::bitwise_xor.Tensor")
@script(aten_opset, default_opset=op)
def aten_bitwise_xor_bool(self: BOOL[...], other: BOOL[...]) -> BOOL[...]:
    return op.Xor(self, other)
