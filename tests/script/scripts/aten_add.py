# torchlib's aten_add: `other` is reassigned inside an if on an attribute.
from onnxscript import FLOAT, TensorType, script
from onnxscript import opset17 as op


@script()
def aten_add(self, other, alpha: float = 1) -> TensorType:
    # add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    if alpha != 1:
        other = op.Mul(other, alpha)

    return op.Add(self, other)


@script()
def add_model(a: FLOAT["N"], b: FLOAT["N"]) -> FLOAT["N"]:
    return aten_add(a, b, alpha=2.0)
