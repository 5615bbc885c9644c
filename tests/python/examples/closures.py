# An onnxscript-style program whose script functions use Python values from
# their closures and module: numbers, a numpy array, np.pi, a list, a bool,
# an opset alias, and other script functions (module-level and nested).
import numpy as np

from oxs import FLOAT, script
from oxs.onnx_opset import opset17 as op

EPS = 1e-6
AXES = [1]


@script()
def softplus(x):
    return op.Log(op.Exp(x) + 1.0)


def make_model(scale: float, bias: np.ndarray, center: bool):
    @script()
    def shifted(x):
        return x * scale + bias

    @script()
    def model(x: FLOAT[2, 3]) -> FLOAT[2, 3]:
        y = softplus(shifted(x)) * np.pi
        if center:
            y = y - op.ReduceMean(y, axes=AXES)
        return y / (op.ReduceMax(op.Abs(y), axes=AXES) + EPS)

    return model
