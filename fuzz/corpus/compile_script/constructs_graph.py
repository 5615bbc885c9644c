from onnxscript import FLOAT, INT64, script, graph
from onnxscript import opset17 as op
from onnxscript.values import Opset

CUSTOM = Opset("com.example", 1)

@graph()
def body(i, cond, acc):
    return cond, acc + 1.0

@script()
def m(x: FLOAT["N"]) -> FLOAT["N"]:
    y = op.Loop(op.Constant(value_int=2), None, x, body=body)
    z = CUSTOM.Scale(y, factor=2.0, names=["a", "b"])
    return z
