# Loops and Python truth: a loop-carried Python literal takes the carried
# tensor's type; the for variable keeps its last value after the loop, as in
# Python; and/or short-circuit when the left side is known while compiling.
from onnxscript import script, opset17 as op
from onnxscript import FLOAT

# case carried_literal:
#   x = rnd(3)
#   expect = x * 4 + 6
# case loop_variable_after:
#   x = rnd(2)
#   expect = x + 4
# case loop_variable_in_loop_and_after:
#   x = rnd(2)
#   expect = x + (0 + 1 + 2) + 2
# case dynamic_loop_variable:
#   x = rnd(5)
#   expect = x + 5 + 4
# case while_carried_literal:
#   x = rnd(3)
#   expect = x + 10
# case short_circuit:
#   x = rnd(3)
#   expect = x * 2
# dtypes: float32 float64


@script()
def carried_literal(x: FLOAT["N"]) -> FLOAT["N"]:
    acc = 0
    for i in range(4):
        acc = op.Add(acc, x)
        acc = acc + 1.5
    return acc


@script()
def loop_variable_after(x: FLOAT["N"]) -> FLOAT["N"]:
    y = x
    for i in range(5):
        y = op.Identity(y)
    return op.Add(y, op.CastLike(i, x))


@script()
def loop_variable_in_loop_and_after(x: FLOAT["N"]) -> FLOAT["N"]:
    y = x
    for i in range(3):
        y = op.Add(y, op.CastLike(i, x))
    return op.Add(y, op.CastLike(i, x))


@script()
def short_circuit(x: FLOAT["N"], enabled: bool = False, scale: bool = True) -> FLOAT["N"]:
    y = x
    # enabled is False while compiling: the tensor test is never built.
    if enabled and op.ReduceMax(x) > 0.0:
        y = op.Mul(x, 3.0)
    # scale is True: the tensor test decides.
    if scale or op.ReduceMax(x) > 1000.0:
        y = op.Mul(y, 2.0)
    return y


@script()
def dynamic_loop_variable(x: FLOAT["N"]) -> FLOAT["N"]:
    n = op.Size(x)
    y = x
    for i in range(n):
        y = op.Add(y, 1.0)
    # i is the last value range(n) gave, as in Python.
    return op.Add(y, op.CastLike(i, x))


@script()
def while_carried_literal(x: FLOAT["N"]) -> FLOAT["N"]:
    total = 0.0
    k = 0
    while k < 4:
        total = total + op.ReduceMax(op.Abs(x)) * 0.0 + 2.5
        k = k + 1
    return op.Add(x, total)
