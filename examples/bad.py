from onnxscript import script, FLOAT
from onnxscript import opset15 as op

@script()
def bad(x: FLOAT["N"]) -> FLOAT["N"]:
    y = op.Reul(x)
    z = op.ArgMax(y, axs=0)
    return undefined
