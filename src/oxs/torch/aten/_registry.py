"""Which function implements which ATen overload: the registry the exporter's
dispatcher reads (the contract between the ATen library and torch/).

A library function is an ONNX Script function registered for one or more ATen
overload names, written against the ATen schema:

    from oxs import script
    from oxs.onnx_opset import opset18 as op
    from oxs.torch.aten._registry import aten_op
    from oxs.torch.aten._types import TReal

    @aten_op("aten::add.Tensor")
    @script(default_opset=op)
    def aten_add(self: TReal, other: TReal, alpha: float = 1.0) -> TReal:
        ...

Rules every function follows:
- its parameters are the ATen schema's arguments, same names, same order;
  tensors are ONNX inputs, other arguments (int, float, bool, int[], str,
  ScalarType as int) are attributes with the schema's defaults; an optional
  tensor is an input annotated Optional[...] with default None;
- its input and output annotations are TypeVars (bound or constrained to a
  Union of oxs tensor types) or concrete tensor types: these are the type
  constraints the dispatcher scores candidates by;
- overload names are "aten::<op>.<overload>" (".default" for the default
  overload), as torch prints `node.target` in an ATen-level FX graph.

`trace_only=True` registers a plain Python function that is called at export
time with the builder instead of being compiled (for decisions on Python-time
facts such as ranks, static sizes and optional arguments); the exporter owns
how such functions are called.
"""

from __future__ import annotations

import dataclasses
import typing


@dataclasses.dataclass(frozen=True)
class Entry:
    """One registered function: the overloads it implements, the function
    (an oxs.OnnxFunction, or a plain callable when trace_only) and whether it
    is traced at export time instead of compiled."""

    overloads: tuple
    function: typing.Any
    trace_only: bool = False

    @property
    def name(self) -> str:
        return getattr(self.function, "name", None) or self.function.__name__


_REGISTRY: dict = {}


def aten_op(*overloads: str, trace_only: bool = False):
    """Register the decorated function for each ATen overload name."""
    for o in overloads:
        if not isinstance(o, str) or "::" not in o:
            raise ValueError(f"aten_op: {o!r} is not an overload name like 'aten::add.Tensor'")

    def register(function):
        entry = Entry(tuple(overloads), function, trace_only)
        for o in overloads:
            _REGISTRY.setdefault(o, []).append(entry)
        return function

    return register


def candidates(overload: str) -> list:
    """The entries registered for one overload name, in registration order."""
    return list(_REGISTRY.get(overload, ()))


def entries() -> list:
    """Every registered entry once, in registration order."""
    seen, out = set(), []
    for group in _REGISTRY.values():
        for e in group:
            if id(e) not in seen:
                seen.add(id(e))
                out.append(e)
    return out


def overloads() -> list:
    """Every overload name with at least one function, sorted."""
    return sorted(_REGISTRY)
