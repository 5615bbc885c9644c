# From onnxscript's issues: attributes typed `FLOAT | float` with defaults.
import numpy as np
from onnxscript import BOOL, FLOAT, script
from onnxscript import opset17 as op


@script()
def LeakyRelu(input, negative_slope: FLOAT | float = 0.01, inplace: BOOL | bool = False):
    zero = op.CastLike(0, input)
    negative_slope = op.CastLike(negative_slope, input)
    return op.Where(input < zero, negative_slope * input, input)


@script()
def leaky_model(x: FLOAT["N"]) -> FLOAT["N"]:
    return LeakyRelu(x)


result = LeakyRelu(np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=np.float32), 0.1)
