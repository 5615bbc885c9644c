"""oxs.torch: export PyTorch models to ONNX through the ATen library
(oxs.torch.aten), the dispatcher and the interpreter of src/oxs/torch/.

    model = oxs.torch.export(net, (x,), path="net.onnx", dynamic_shapes=({0: "batch"},))

Tracing is torch 1.13's make_fx with fake tensors (no real forward pass);
every ATen node is then given to the best-fitting function of the library
(ONNX Script functions and native C++ ones), or to yours:

    oxs.torch.register("mylib::op.default", my_script_function)
"""

from ._export import export, last_export_stats
from ._library import register
from ._trace import ExportError

__all__ = ["export", "register", "ExportError", "last_export_stats"]
