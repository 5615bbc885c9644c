from onnxscript import FLOAT, INT64, script
from onnxscript import opset17 as op

@script()
def sum_loop(x: FLOAT["N"], n: INT64) -> FLOAT["N"]:
    acc = op.Identity(x)
    for i in range(n):
        acc = acc + x
    return acc

@script()
def range_loop(x: FLOAT["N"]) -> FLOAT["N"]:
    y = x
    for i in range(1, 10, 3):
        if i > 5:
            break
        y = y * 2.0
    return y

@script()
def while_loop(x: FLOAT["N"]) -> FLOAT["N"]:
    s = op.ReduceSum(x, keepdims=0)
    k = 0
    while s < 100.0:
        s = s * 2.0
        k += 1
        if k > 10:
            continue
    return x * s

@script()
def early(x: FLOAT["N"], flag: bool = True) -> FLOAT["N"]:
    if op.ReduceMax(x) > 0.0:
        return x
    y = -x
    if op.ReduceMin(y) > 1.0:
        return y * 2.0
    return y + 1.0
