"""oxs.torch: export PyTorch models to ONNX through the ATen library
(oxs.torch.aten), the dispatcher and the interpreter of src/oxs/torch/.

    model = oxs.torch.export(net, (x,), path="net.onnx", dynamic_shapes=({0: "batch"},))
    model = oxs.torch.export(net, (x,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    model = oxs.torch.export(torch.export.export(net, (x,)))       # an ExportedProgram
    model = oxs.torch.export(net, (x,), tracing="export", opset=23)  # via torch.export

Tracing runs the model on meta tensors (no real forward pass; with
dynamic_shapes on fake tensors whose dynamic dims are symbols, so sizes follow
torch's SymInts; make_fx with fake tensors is the fallback); every ATen node is then given to the
best-fitting function: yours, else a native C++ one, else the ATen library's
(ONNX Script, loaded from the aten_library.onnx the build compiled):

    oxs.torch.register("mylib::op.default", my_script_function)
"""

# torch is imported on first use of these names (PEP 562), so that the ATen
# library, oxs.torch.aten, compiles at build time without torch installed.
_LAZY = {"export": "_export", "last_export_stats": "_export", "register": "_library",
         "ExportError": "_trace"}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'oxs.torch' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["export", "register", "ExportError", "last_export_stats"]
