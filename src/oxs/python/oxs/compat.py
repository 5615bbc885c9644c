"""`import oxs.compat` makes `import onnxscript` (and onnxscript.onnx_opset,
onnxscript.onnx_types, onnxscript.values) resolve to oxs, for code that
cannot be edited. Off by default: only importing this module does it. It
refuses to replace an onnxscript that is already imported."""

import sys

from . import _opset, _types, onnx_opset
import oxs as _oxs

_existing = sys.modules.get("onnxscript")
if _existing is not None and _existing is not _oxs:
    raise ImportError("oxs.compat: the real onnxscript is already imported; import oxs.compat "
                      "before anything imports onnxscript")
sys.modules["onnxscript"] = _oxs
sys.modules["onnxscript.onnx_opset"] = onnx_opset
sys.modules["onnxscript.onnx_types"] = _types
sys.modules["onnxscript.values"] = _opset
