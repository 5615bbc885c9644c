"""oxs: ONNX Script, natively. The Python package over the oxs C++ core.

    from oxs import script, FLOAT, INT64
    from oxs.onnx_opset import opset15 as op

    @script()
    def gelu(x: FLOAT[...]) -> FLOAT[...]:
        return 0.5 * x * (1 + op.Tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    gelu(np.ones(3, np.float32))   # eager: runs on the oxs evaluator
    gelu.to_model_proto()          # an onnx.ModelProto

Models: oxs.load / oxs.save / oxs.check / oxs.infer_shapes / oxs.run /
oxs.decompile / oxs.diff / oxs.from_onnx. `import oxs.compat` makes
`import onnxscript` resolve to this package (off by default)."""

from . import _core
from ._api import external_tensor, graph, script
from ._model import (CheckError, Model, check, decompile, diff, from_onnx, infer_shapes, load,
                     run, save)
from ._opset import Opset
from ._optimize import default_pipeline, list_passes, optimize
from ._script import CompileError, EagerError, OnnxFunction, TraceEvent, trace
from ._types import (BFLOAT16, BOOL, COMPLEX64, COMPLEX128, DOUBLE, FLOAT, FLOAT16, INT8, INT16,
                     INT32, INT64, STRING, UINT8, UINT16, UINT32, UINT64, TensorType)
from . import onnx_opset
from .onnx_opset import *  # noqa: F401,F403  (opset1..opsetN as onnxscript exports them)

Error = _core.Error
GraphBuilder = _core.GraphBuilder

__all__ = [
    "script", "graph", "external_tensor", "Opset", "OnnxFunction", "CompileError", "EagerError",
    "Error", "CheckError", "GraphBuilder", "trace", "TraceEvent", "Model", "load", "save", "check",
    "infer_shapes", "run", "decompile", "diff", "from_onnx", "TensorType", "FLOAT", "UINT8",
    "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32",
    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "onnx_opset",
] + list(onnx_opset.__all__)
__all__ += ["optimize", "list_passes", "default_pipeline"]
