# Opset imports: an import that nothing uses fixes nothing; a function with
# its own default_opset works when it is not in the same model as another
# version.
from onnxscript import FLOAT, opset15, opset16, script
from onnxscript import opset17 as op

# case uses_opset17:
#   x = rnd(4)
#   expect = x + x
# case uses_opset16:
#   x = rnd(4)
#   expect = np.abs(x)
# dtypes: float32 float64


@script()
def uses_opset17(x: FLOAT["N"]) -> FLOAT["N"]:
    return op.Add(x, x)


@script(default_opset=opset16)
def uses_opset16(x: FLOAT["N"]) -> FLOAT["N"]:
    return opset16.Abs(x)
