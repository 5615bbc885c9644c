"""Activations and arithmetic that the exporter's end-to-end tests need
(MLP, resnet, mobilenet, TransformerEncoder): relu, hardtanh (ReLU6),
add.Tensor, div.Tensor (floats). The ATen
library's other files add the rest of the operator set."""

from typing import TypeVar

from oxs import BFLOAT16, DOUBLE, FLOAT, FLOAT16, INT8, INT16, INT32, INT64, UINT8, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op

TFloatNN = TypeVar("TFloatNN", FLOAT, DOUBLE, FLOAT16, BFLOAT16)
TRealNN = TypeVar("TRealNN", FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, UINT8)


@aten_op("aten::relu.default")
@script(default_opset=op)
def aten_relu(self: TRealNN) -> TRealNN:
    return op.Relu(self)


@aten_op("aten::hardtanh.default")
@script(default_opset=op)
def aten_hardtanh(self: TFloatNN, min_val: float = -1.0, max_val: float = 1.0) -> TFloatNN:
    return op.Clip(self, op.CastLike(min_val, self), op.CastLike(max_val, self))


@aten_op("aten::add.Tensor")
@script(default_opset=op)
def aten_add(self: TRealNN, other: TRealNN) -> TRealNN:
    # alpha (other * alpha) is not a parameter: a node that passes one finds
    # no candidate here and is reported, not silently changed.
    return op.Add(self, other)


@aten_op("aten::div.Tensor")
@script(default_opset=op)
def aten_div(self: TFloatNN, other: TFloatNN) -> TFloatNN:
    # Floats only: integer division rounds differently in torch (true division).
    return op.Div(self, other)
