from typing import Annotated, Optional, Sequence, TypeVar, Union
import onnxscript
from onnxscript import FLOAT, INT64, DOUBLE, TensorType, script, graph
from onnxscript.onnx_opset import opset17
from onnxscript.onnx_types import BOOL

op = opset17
T = TypeVar("T", FLOAT, DOUBLE)
U = TypeVar("U", bound=Union[FLOAT, DOUBLE])
FloatType = FLOAT | DOUBLE

@script(default_opset=op)
def generic(x: T, y: U, z: FloatType, w: TensorType, s: Annotated[float, "meta"] = 1.0) -> T:
    return x + y * s

@script(op)
def opt(x: FLOAT, bias: Optional[FLOAT] = None, k: Optional[int] = None):
    return op.Add(x, x)

@script()
def seq_in(xs: Sequence[FLOAT["N"]], a: FLOAT[None], b: FLOAT["N", 3], c: FLOAT, d: INT64[2, 3]) -> FLOAT["N"]:
    first = op.SequenceAt(xs, 0)
    return generic(first, first, first, first) + op.ReduceSum(a, keepdims=0) + op.ReduceSum(b, keepdims=0) + c + op.Cast(op.ReduceSum(d, keepdims=0), to=FLOAT) + onnxscript.opset17.Relu(opt(first))
