# From onnxscript's issues: `return` inside `if` on a str attribute.
from onnxscript import FLOAT, script
from onnxscript import opset17 as op


@script()
def FuncWithStr(input, negative_slope: float = 0.01, mode: str = "foo"):
    if mode == "foo":
        return input
    else:
        zero = op.CastLike(0, input)
        negative_slope = op.CastLike(negative_slope, input)
        return op.Where(input < zero, negative_slope * input, input)


@script()
def str_model(x: FLOAT["N"]) -> FLOAT["N"]:
    return FuncWithStr(x, mode="leaky")
