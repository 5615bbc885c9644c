"""Which ATen ops the exporter decomposes, and into what.

An op that no function takes (the user's registrations, the native C++
functions, the ATen library; an in-place op through its functional form) is
replaced while tracing by torch's own decomposition of it
(`torch._decomp.decomposition_table`), if torch has one: torch 2 records ops
such as `_safe_softmax` (MultiheadAttention with a mask) that are plain
compositions of ops the library has. Ops the library covers are never
decomposed: its function is what the graph should call. The same table is what
`ExportedProgram.run_decompositions` is given for programs made by
torch.export."""

from __future__ import annotations

import torch
from torch._decomp import decomposition_table

from .. import _core
from . import _library, _trace_only

_NATIVE: frozenset | None = None


def _natives() -> frozenset:
    global _NATIVE
    if _NATIVE is None:
        _NATIVE = frozenset(_core.torch_native_overloads())
    return _NATIVE


def overload_name(op) -> str:
    """'aten::add.Tensor' for an OpOverload (as the ATen library registers it)."""
    return f"{op._schema.name}.{op._overloadname}"


class Covered:
    """The overload names some function takes, as of now (user registrations
    included), with the dispatcher's fallbacks (functional form, .default)."""

    def __init__(self):
        lib = _library.load_library()
        _trace_only.load_library()
        # The library's and the user's trace-only functions take theirs too.
        self.names = (set(lib.by_overload) | set(_library._USER) | set(_natives()) |
                      set(_trace_only._LIBRARY) | set(_trace_only._USER))
        self._cache = {}

    def __contains__(self, overload: str) -> bool:
        hit = self._cache.get(overload)
        if hit is None:
            hit = self._cache[overload] = any(o in self.names for o in _fallbacks(overload))
        return hit

    def decomposition(self, op):
        """torch's decomposition of `op` when nothing covers it, else None."""
        if not isinstance(op, torch._ops.OpOverload):
            return None
        fn = decomposition_table.get(op)
        if fn is None or overload_name(op) in self:
            return None
        # torch._refs' entries lower to prims (lgamma -> prims::lgamma): the
        # graph would name an op further from anything a function takes.
        if not getattr(fn, "__module__", "").startswith("torch._decomp"):
            return None
        return fn

    def table(self):
        """{op: decomposition} for ExportedProgram.run_decompositions: torch's
        core ATen table without the ops our functions take (kept as they are)."""
        from torch.export import default_decompositions

        table = default_decompositions()
        for op in list(table):
            if isinstance(op, torch._ops.OpOverload) and overload_name(op) in self:
                del table[op]
        return table


def _fallbacks(overload: str):
    ns, rest = overload.split("::", 1)
    op, _, ovl = rest.partition(".")
    yield overload
    if op.endswith("_") and not op.endswith("__"):
        yield f"{ns}::{op[:-1]}.{ovl}"
    yield f"{ns}::{op}.default"
