# Written for onnxscript (imported through oxs.compat): three errors in one function.
from onnxscript import FLOAT, script
from onnxscript import opset15 as op


@script()
def bad(x: FLOAT[3]) -> FLOAT[3]:
    y = op.Reul(x)
    z = op.ArgMax(y, axs=0)
    return undefined
