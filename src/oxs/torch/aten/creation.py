"""Tensor creation and conversion of the ATen library: full, zeros, ones,
empty, scalar_tensor, their *_like forms, and _to_copy.

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


@aten_op("aten::full.default")
@script(aten_opset, default_opset=op)
def aten_full(size: Sequence[int], fill_value: float, dtype: int, layout: int = -1,
              device: str = "", pin_memory: bool = False) -> TTensor2:
    value = op.Cast(op.Constant(value_float=fill_value), to=dtype)
    return op.Expand(value, op.Constant(value_ints=size))


@aten_op("aten::zeros.default", "aten::empty.memory_format")
@script(aten_opset, default_opset=op)
def aten_zeros(size: Sequence[int], dtype: int, layout: int = -1, device: str = "",
               pin_memory: bool = False, memory_format: int = -1) -> TTensor2:
    """empty's values are unspecified: zeros are as good as any."""
    return op.Expand(op.Cast(op.Constant(value_float=0.0), to=dtype), op.Constant(value_ints=size))


@aten_op("aten::ones.default")
@script(aten_opset, default_opset=op)
def aten_ones(size: Sequence[int], dtype: int, layout: int = -1, device: str = "",
              pin_memory: bool = False) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=1.0), to=dtype), op.Constant(value_ints=size))


@aten_op("aten::scalar_tensor.default")
@script(aten_opset, default_opset=op)
def aten_scalar_tensor(s: float, dtype: int, layout: int = -1, device: str = "",
                       pin_memory: bool = False) -> TTensor2:
    return op.Cast(op.Constant(value_float=s), to=dtype)


@aten_op("aten::full_like.default")
@script(aten_opset, default_opset=op)
def aten_full_like(self: TTensor, fill_value: float, dtype: int, layout: int = -1,
                   device: str = "", pin_memory: bool = False,
                   memory_format: int = -1) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=fill_value), to=dtype), op.Shape(self))


@aten_op("aten::zeros_like.default", "aten::empty_like.default")
@script(aten_opset, default_opset=op)
def aten_zeros_like(self: TTensor, dtype: int, layout: int = -1, device: str = "",
                    pin_memory: bool = False, memory_format: int = -1) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=0.0), to=dtype), op.Shape(self))


@aten_op("aten::ones_like.default")
@script(aten_opset, default_opset=op)
def aten_ones_like(self: TTensor, dtype: int, layout: int = -1, device: str = "",
                   pin_memory: bool = False, memory_format: int = -1) -> TTensor2:
    return op.Expand(op.Cast(op.Constant(value_float=1.0), to=dtype), op.Shape(self))


@aten_op("aten::_to_copy.default")
@script(aten_opset, default_opset=op)
def aten__to_copy(self: TTensor, dtype: int, layout: int = -1, device: str = "",
                  pin_memory: bool = False, non_blocking: bool = False,
                  memory_format: int = -1) -> TTensor2:
    """A copy as dtype (the result's dtype when torch's dtype is None: then a
    Cast to the same type, which the builder's cleanups remove)."""
    return op.Cast(self, to=dtype)
