# GELU from the ONNX Script announcement: a module-level constant from math.
import math

from oxs import FLOAT, script
from oxs import opset17 as op

M_SQRT1_2 = math.sqrt(0.5)


@script()
def gelu(X: FLOAT[...]) -> FLOAT[...]:
    phiX = 0.5 * (op.Erf(M_SQRT1_2 * X) + 1.0)
    return X * phiX


@script()
def gelu_model(X: FLOAT["N"]) -> FLOAT["N"]:
    return gelu(X)
