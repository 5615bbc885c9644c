# Returning an input, or one value twice: an Identity with a fresh name.
from onnxscript import script, opset17 as op
from onnxscript import FLOAT

# case return_input:
#   x = rnd(3)
#   expect = x
# case return_twice:
#   x = rnd(3)
#   expect = (-x, -x)
# case return_input_and_value:
#   x = rnd(2)
#   expect = (x, x + 1)
# case call_returning_input:
#   x = rnd(4)
#   expect = x * 2
# dtypes: float32 float64


@script()
def return_input(x: FLOAT["N"]) -> FLOAT["N"]:
    return x


@script()
def return_twice(x: FLOAT["N"]):
    y = op.Neg(x)
    return y, y


@script()
def return_input_and_value(x: FLOAT["N"]):
    return x, op.Add(x, 1.0)


@script()
def passthrough(a):
    return a


@script()
def call_returning_input(x: FLOAT["N"]) -> FLOAT["N"]:
    y = passthrough(x)
    return op.Add(y, passthrough(y))
