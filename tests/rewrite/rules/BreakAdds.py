# The onnx-passes README's BreakAdds, as an oxs rule file: a deliberately
# wrong rewrite that verification must catch. Add(x, y) with two distinct
# inputs becomes Add(x, x).
from onnxscript import opset17 as op
from onnxscript import script


@script()
def pattern(op, x, y):
    return op.Add(x, y)


def check(_, x, y):
    return x != y


@script()
def rewrite(op, x, y):
    return op.Add(x, x)
