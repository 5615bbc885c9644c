"""Matrix products of the ATen library: matmul, mm, bmm, mv, dot, outer,
addmm, baddbmm, linear, t."""

from __future__ import annotations

from typing import Optional

from oxs import script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat, TTensor


@aten_op("aten::matmul.default")
@script(aten_opset, default_opset=op)
def aten_matmul(self: TFloat, other: TFloat) -> TFloat:
    """numpy's matmul rules, as torch's (1-D operands included)."""
    return op.MatMul(self, other)


@aten_op("aten::mm.default")
@script(aten_opset, default_opset=op)
def aten_mm(self: TFloat, mat2: TFloat) -> TFloat:
    return op.MatMul(self, mat2)


@aten_op("aten::bmm.default")
@script(aten_opset, default_opset=op)
def aten_bmm(self: TFloat, mat2: TFloat) -> TFloat:
    return op.MatMul(self, mat2)


@aten_op("aten::mv.default")
@script(aten_opset, default_opset=op)
def aten_mv(self: TFloat, vec: TFloat) -> TFloat:
    return op.MatMul(self, vec)


@aten_op("aten::dot.default")
@script(aten_opset, default_opset=op)
def aten_dot(self: TFloat, tensor: TFloat) -> TFloat:
    """A 0-D result."""
    return op.MatMul(self, tensor)


@aten_op("aten::outer.default")
@script(aten_opset, default_opset=op)
def aten_outer(self: TFloat, vec2: TFloat) -> TFloat:
    return op.Mul(op.Unsqueeze(self, op.Constant(value_ints=[1])), vec2)


@aten_op("aten::addmm.default")
@script(aten_opset, default_opset=op)
def aten_addmm(self: TFloat, mat1: TFloat, mat2: TFloat, beta: float = 1.0,
               alpha: float = 1.0) -> TFloat:
    """beta * self + alpha * (mat1 @ mat2), one Gemm (self broadcast to the
    product's shape)."""
    return op.Gemm(mat1, mat2, self, alpha=alpha, beta=beta)


@aten_op("aten::baddbmm.default")
@script(aten_opset, default_opset=op)
def aten_baddbmm(self: TFloat, batch1: TFloat, batch2: TFloat, beta: float = 1.0,
                 alpha: float = 1.0) -> TFloat:
    prod = op.Mul(op.MatMul(batch1, batch2), op.CastLike(alpha, self))
    return op.Add(op.Mul(self, op.CastLike(beta, self)), prod)


@aten_op("aten::linear.default")
@script(aten_opset, default_opset=op)
def aten_linear(input: TFloat, weight: TFloat, bias: Optional[TFloat] = None) -> TFloat:
    """input @ weight^T + bias; weight is [out, in] (a 1-D weight, which
    torch also takes, is the exporter's: Transpose needs the rank)."""
    wt = op.Transpose(weight, perm=[1, 0])
    if bias is None:
        r = op.MatMul(input, wt)
    else:
        r = op.Add(op.MatMul(input, wt), bias)
    return r


@aten_op("aten::t.default")
@script(aten_opset, default_opset=op)
def aten_t(self: TTensor) -> TTensor:
    """Transpose of a 2-D tensor; 0-D and 1-D tensors are returned as they
    are (Transpose without perm reverses the axes, which is both)."""
    return op.Transpose(self)
