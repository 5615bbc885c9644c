"""The ATen operator library in ONNX Script (src/oxs/torch/aten/*.py): one
function per ATen overload or group, registered with `_registry.aten_op`.
Importing this package imports every library module, which registers its
functions."""

from . import _registry  # noqa: F401
