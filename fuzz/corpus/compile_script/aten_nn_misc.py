"""Inference-time pieces of torch.nn of the ATen library: dropout (the
identity in inference), native_dropout, embedding, mse_loss."""

from __future__ import annotations

from typing import Tuple

from oxs import BOOL, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import IntType, TFloat, TTensor


@aten_op("aten::dropout.default", "aten::feature_dropout.default",
         "aten::alpha_dropout.default")
@script(aten_opset, default_opset=op)
def aten_dropout(input: TFloat, p: float, train: bool) -> TFloat:
    """The exported model is for inference: dropout is the identity (train
    is False in an eval-mode trace)."""
    return op.Identity(input)


@aten_op("aten::native_dropout.default")
@script(aten_opset, default_opset=op)
def aten_native_dropout(input: TFloat, p: float,
                        train: bool = False) -> Tuple[TFloat, BOOL[...]]:
    """(input, mask): in inference every element is kept."""
    mask = op.Expand(op.Cast(op.Constant(value_int=1), to=BOOL.dtype), op.Shape(input))
    return op.Identity(input), mask


@aten_op("aten::embedding.default")
@script(aten_opset, default_opset=op)
def aten_embedding(weight: TTensor, indices: IntType, padding_idx: int = -1,
                   scale_grad_by_freq: bool = False, sparse: bool = False) -> TTensor:
    """Rows of weight (padding_idx and the gradient options matter only for
    training)."""
    return op.Gather(weight, indices, axis=0)


@aten_op("aten::mse_loss.default")
@script(aten_opset, default_opset=op)
def aten_mse_loss(self: TFloat, target: TFloat, reduction: int = 1) -> TFloat:
    """reduction 0: none, 1: mean, 2: sum (torch's Reduction enum)."""
    d = op.Sub(self, target)
    sq = op.Mul(d, d)
    if reduction == 0:
        r = op.Identity(sq)
    elif reduction == 2:
        r = op.ReduceSum(sq, keepdims=0)
    else:
        r = op.Div(op.ReduceSum(sq, keepdims=0), op.CastLike(op.Size(sq), sq))
    return r
