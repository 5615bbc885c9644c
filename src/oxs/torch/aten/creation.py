"""Tensor creation and conversion of the ATen library: full, zeros, ones,
empty, scalar_tensor, arange, fill, their *_like and new_* forms, and
_to_copy.

The result's element type is the `dtype` argument (an ONNX element type
number): these functions declare it without a default, and the dispatcher
passes the FX node's result dtype where torch infers it (dtype=None).
layout, device, pin_memory and memory_format do not change values; they are
accepted and ignored (pass None: the attribute is omitted)."""

from __future__ import annotations

from typing import Sequence

from oxs import script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TTensor, TTensor2


@aten_op("aten::full.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_full(size: Sequence[int], fill_value: float, dtype: int = -1, layout: int = -1,
              device: str = "", pin_memory: bool = False) -> TTensor2:
    value = op.Cast(op.Constant(value_float=fill_value), to=dtype)
    return op.Expand(value, op.Constant(value_ints=size))


@aten_op("aten::zeros.default", "aten::empty.memory_format", dtype="result")
@script(aten_opset, default_opset=op)
def aten_zeros(size: Sequence[int], dtype: int = -1, layout: int = -1, device: str = "",
               pin_memory: bool = False, memory_format: int = -1) -> TTensor2:
    """empty's values are unspecified: zeros are as good as any."""
    return op.Expand(op.Cast(op.Constant(value_float=0.0), to=dtype), op.Constant(value_ints=size))


@aten_op("aten::ones.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_ones(size: Sequence[int], dtype: int = -1, layout: int = -1, device: str = "",
              pin_memory: bool = False) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=1.0), to=dtype), op.Constant(value_ints=size))


@aten_op("aten::scalar_tensor.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_scalar_tensor(s: float, dtype: int = -1, layout: int = -1, device: str = "",
                       pin_memory: bool = False) -> TTensor2:
    return op.Cast(op.Constant(value_float=s), to=dtype)


@aten_op("aten::full_like.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_full_like(self: TTensor, fill_value: float, dtype: int = -1, layout: int = -1,
                   device: str = "", pin_memory: bool = False,
                   memory_format: int = -1) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=fill_value), to=dtype), op.Shape(self))


@aten_op("aten::zeros_like.default", "aten::empty_like.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_zeros_like(self: TTensor, dtype: int = -1, layout: int = -1, device: str = "",
                    pin_memory: bool = False, memory_format: int = -1) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=0.0), to=dtype), op.Shape(self))


@aten_op("aten::ones_like.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_ones_like(self: TTensor, dtype: int = -1, layout: int = -1, device: str = "",
                   pin_memory: bool = False, memory_format: int = -1) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=1.0), to=dtype), op.Shape(self))


@aten_op("aten::_to_copy.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten__to_copy(self: TTensor, dtype: int = -1, layout: int = -1, device: str = "",
                  pin_memory: bool = False, non_blocking: bool = False,
                  memory_format: int = -1) -> TTensor2:
    """A copy as dtype (the result's dtype when torch's dtype is None: then a
    Cast to the same type, which the builder's cleanups remove)."""
    return op.Cast(self, to=dtype)


@aten_op("aten::new_zeros.default", "aten::new_empty.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_new_zeros(self: TTensor, size: Sequence[int], dtype: int = -1, layout: int = -1,
                   device: str = "", pin_memory: bool = False) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=0.0), to=dtype), op.Constant(value_ints=size))


@aten_op("aten::new_ones.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_new_ones(self: TTensor, size: Sequence[int], dtype: int = -1, layout: int = -1,
                  device: str = "", pin_memory: bool = False) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=1.0), to=dtype), op.Constant(value_ints=size))


@aten_op("aten::new_full.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_new_full(self: TTensor, size: Sequence[int], fill_value: float, dtype: int = -1,
                  layout: int = -1, device: str = "", pin_memory: bool = False) -> TTensor2:
    value = op.Cast(op.Constant(value_float=fill_value), to=dtype)
    return op.Expand(value, op.Constant(value_ints=size))


@aten_op("aten::fill.Scalar")
@script(aten_opset, default_opset=op)
def aten_fill(self: TTensor, value: float) -> TTensor:
    return op.Expand(op.CastLike(value, self), op.Shape(self))


@aten_op("aten::arange.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_arange(end: float, dtype: int = -1, layout: int = -1, device: str = "",
                pin_memory: bool = False) -> TTensor2:
    """0, 1, ... below end, in dtype (the result's dtype when None)."""
    return op.Range(op.Cast(op.Constant(value_float=0.0), to=dtype),
                    op.Cast(op.Constant(value_float=end), to=dtype),
                    op.Cast(op.Constant(value_float=1.0), to=dtype))


@aten_op("aten::arange.start", "aten::arange.start_step", dtype="result")
@script(aten_opset, default_opset=op)
def aten_arange_start(start: float, end: float, step: float = 1.0, dtype: int = 1,
                      layout: int = -1, device: str = "", pin_memory: bool = False) -> TTensor2:
    """start, start + step, ... below end. The count is computed in float
    before the cast, as torch computes it (ceil((end - start) / step)), in
    float32 (the attributes' precision). dtype has a default only because
    Python wants one after step's: the dispatcher passes the result's.)"""
    n = op.Ceil(op.Div(op.Sub(op.Constant(value_float=end), op.Constant(value_float=start)),
                       op.Constant(value_float=step)))
    i = op.Range(op.Constant(value_float=0.0), n, op.Constant(value_float=1.0))
    values = op.Add(op.Constant(value_float=start), op.Mul(i, op.Constant(value_float=step)))
    return op.Cast(values, to=dtype)
