# Python that is not ONNX Script is Python's business: helpers without
# @script (f-strings, raise, try, huge ints) are skipped; numpy and math
# constants and np.array literals are constants.
import math

import numpy as np
from onnxscript import FLOAT, script
from onnxscript import opset17 as op

HUGE = 2**80
SCALE = np.array([1.0, 2.0, 4.0], dtype=np.float32)


def describe(model):
    try:
        text = f"{model!r} has {123456789012345678901234567890} nodes"
    except Exception as e:
        raise ValueError("cannot describe") from e
    return text


# case angles:
#   x = rnd(3)
#   expect = x * np.pi + math.pi + np.e
# case scaled:
#   x = rnd(3)
#   expect = x * np.array([1.0, 2.0, 4.0])
# case finite:
#   x = arr([1.0, -2.0, 3.0])
#   expect = np.minimum(np.maximum(x, -np.inf), np.inf)
# case nan_literal:
#   x = rnd(2)
#   expect = x * 0.0 + np.nan
# dtypes: float32 float64


@script()
def angles(x: FLOAT[3]) -> FLOAT[3]:
    return op.Add(op.Add(op.Mul(x, np.pi), math.pi), np.e)


@script()
def scaled(x: FLOAT[3]) -> FLOAT[3]:
    return op.Mul(x, SCALE)


@script()
def finite(x: FLOAT[3]) -> FLOAT[3]:
    return op.Min(op.Max(x, -np.inf), np.inf)


@script()
def nan_literal(x: FLOAT[2]) -> FLOAT[2]:
    return op.Add(op.Mul(x, 0.0), np.nan)


if __name__ == "__main__":
    print(describe(angles.to_model_proto()))
