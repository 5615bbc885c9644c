import onnxscript
from typing import Optional, Sequence
from onnx import TensorProto
from onnx.helper import make_tensor
from onnxscript import FLOAT, INT64, script, graph
from onnxscript import opset17 as op
from onnxscript.values import Opset

CUSTOM = Opset("com.example", 1)
SCALE = 2.0 * 3

@script()
def subs(x: FLOAT[4, 5, 6], i: INT64) -> FLOAT["A", "B"]:
    a = x[0]
    b = x[-1, 1:3]
    c = x[..., ::-1]
    d = x[:, None, 2]
    e = x[1:-1, -3:, ::2]
    f = x[i]
    g = x[0, i]
    return a + b[0, 0] + c[0] + d[0, 0] + e[0, 0, 0] + f + g[0]

@script()
def calls(x: FLOAT["N"]) -> FLOAT["N"]:
    values, indices = op.TopK(x, op.Constant(value_ints=[2]), axis=0)
    y = onnxscript.opset17.Relu(x)
    z = op.Cast(indices, to=TensorProto.FLOAT)
    w = op.Constant(value=make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0]))
    q = op.Cast(x, to=FLOAT)
    t = y * SCALE if SCALE > 1 else y
    u = (x + 1) @ (x - 1)
    v = x ** 2 % 3.0 // 2.0
    c = 0 < x < 5
    return op.Where(c, t + q, v + u) + op.ReduceSum(values + z + w)

@script()
def attrs(x: FLOAT["N"], axes: Sequence[int] = (0,), k: Optional[int] = None) -> FLOAT[1]:
    return op.ReduceSum(x, axes, keepdims=1)

@script()
def loop_body(x: FLOAT["N"]) -> FLOAT["N"]:
    def body(i, cond, acc):
        out = acc + op.Cast(i, to=FLOAT)
        return cond, out
    n = op.Constant(value_int=3)
    r = op.Loop(n, None, x, body=body)
    return r

@script()
def scan_body(x: FLOAT["T", 3]) -> FLOAT[3]:
    def step(state: FLOAT[3], row: FLOAT[3]):
        s = state + row
        return s, s
    init = op.Constant(value_floats=[0.0, 0.0, 0.0])
    final, rows = op.Scan(init, x, body=step, num_scan_inputs=1)
    return final

@script()
def if_attr(x: FLOAT["N"]) -> FLOAT["N"]:
    c = op.ReduceMax(x) > 0.0
    def then_b():
        return x * 2.0
    def else_b():
        return x
    return op.If(c, then_branch=then_b, else_branch=else_b)

@script(CUSTOM)
def custom_fn(x):
    return op.Neg(x)

@script()
def use_custom(x: FLOAT["N"]) -> FLOAT["N"]:
    y = custom_fn(x)
    y += 1.0
    y -= 0.5
    y *= 2
    return y
