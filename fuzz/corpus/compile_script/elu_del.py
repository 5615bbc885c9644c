# From onnxscript's issues: unused attribute parameters deleted with `del`.
import onnxscript
from onnxscript import FLOAT
from onnxscript import opset17 as op


@onnxscript.script()
def Elu(
    self,
    alpha: float = 1.0,
    scale: float = 1.0,
    input_scale: float = 1.0,
):
    del scale  # Right here
    del input_scale
    return op.Elu(self, alpha=alpha)


@onnxscript.script()
def elu_model(x: FLOAT[2, 3]) -> FLOAT[2, 3]:
    return Elu(x, alpha=0.5)
