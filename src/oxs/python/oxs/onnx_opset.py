"""Every opset the core knows: opset1..opsetN (ai.onnx) and
opset_ai_onnx_ml1..M (ai.onnx.ml), as onnxscript.onnx_opset names them."""

from . import _core
from ._opset import Opset

__all__ = []


def _define(prefix: str, domain: str):
    r = _core.opset_range(domain)
    if r is None:
        return
    lo, hi = r
    for v in range(1, hi + 1):
        name = f"{prefix}{v}"
        globals()[name] = Opset(domain, v)
        __all__.append(name)


_define("opset", "")
_define("opset_ai_onnx_ml", "ai.onnx.ml")
