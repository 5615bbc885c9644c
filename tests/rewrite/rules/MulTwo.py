from onnxscript import opset17 as op
from onnxscript import script


@script()
def pattern(x):
    return op.Mul(x, op.Constant(value_float=2.0))


@script()
def rewrite(x):
    return op.Add(x, x)
