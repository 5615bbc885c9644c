"""oxs.torch: export PyTorch models to ONNX through the ATen library
(oxs.torch.aten), the dispatcher and the interpreter of src/oxs/torch/.

    model = oxs.torch.export(net, (x,), path="net.onnx", dynamic_shapes=({0: "batch"},))

Tracing runs the model on meta tensors (no real forward pass; make_fx with
fake tensors is the fallback); every ATen node is then given to the
best-fitting function: yours, else a native C++ one, else the ATen library's
(ONNX Script, loaded from the aten_library.onnx the build compiled):

    oxs.torch.register("mylib::op.default", my_script_function)
"""

from ._export import export, last_export_stats
from ._library import register
from ._trace import ExportError

__all__ = ["export", "register", "ExportError", "last_export_stats"]
