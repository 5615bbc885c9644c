"""The decorators: script() and graph(), as onnxscript spells them."""

from __future__ import annotations

import sys

from ._opset import Opset
from ._script import OnnxFunction


def script(opset: Opset | None = None, default_opset: Opset | None = None, **kwargs):
    """Compile the decorated function with oxs: `@script()`,
    `@script(Opset("com.example", 1))` (the function's own domain) or
    `@script(default_opset=opset15)`. Raises oxs.CompileError listing every
    problem of the function, with file, line, column, caret and hint."""
    if callable(opset) and not isinstance(opset, Opset):
        # Bare @script (no parentheses).
        return OnnxFunction(opset, sys._getframe(1).f_locals, None, None)
    for name, value in (("opset", opset), ("default_opset", default_opset)):
        if value is not None and not isinstance(value, Opset):
            raise TypeError(f"script({name}=...) takes an Opset, not {value!r}")
    unknown = set(kwargs) - {"ir_version"}
    if unknown:
        raise TypeError(f"script() got an unexpected keyword argument '{sorted(unknown)[0]}'")

    def decorate(func):
        if not callable(func) or not hasattr(func, "__code__"):
            raise TypeError(f"@script() decorates a Python function, not {func!r}")
        return OnnxFunction(func, sys._getframe(1).f_locals, opset, default_opset)

    return decorate


def graph():
    """Marks a nested function as a subgraph (Loop/Scan bodies); the compiler
    handles it where it is used, so this returns the function unchanged."""

    def decorate(func):
        return func

    return decorate


def external_tensor(*args, **kwargs):
    raise RuntimeError("external_tensor(...) is meaningful only inside a @script() function")
