"""The ATen operator library in ONNX Script (src/oxs/torch/aten/*.py): one
function per ATen overload or group, registered with `_registry.aten_op`.
Importing this package imports every library module (the files whose names
do not start with "_"), which registers its functions; a function that does
not compile raises oxs.CompileError with the compiler's message. `_library`
builds the compiled library model and its manifest."""

import importlib as _importlib
import pkgutil as _pkgutil

from oxs import CompileError as _CompileError

from . import _registry  # noqa: F401

MODULES = sorted(m.name for m in _pkgutil.iter_modules(__path__) if not m.name.startswith("_"))

try:
    for _name in MODULES:
        _importlib.import_module(f"{__name__}.{_name}")
except _CompileError as e:
    raise _CompileError(f"the ATen library does not compile:\n{e}", e.diagnostics) from None

# The trace-only functions (src/oxs/torch/aten/traced/, package oxs.torch.traced).
_importlib.import_module("oxs.torch.traced")
