"""The candidates the dispatcher chooses from, as oxs._core.torch_export
reads them: the user's registrations (oxs.torch.register) and the ATen
library's ONNX Script functions (oxs.torch.aten), each with its parameters
and their type constraints read from the annotations.

One candidate:
    (overload, name, user, library model, function name,
     [(param, "input"|"attr", dtypes, optional, attr kind, has default)])
dtypes lists the ONNX element types a TypeVar or tensor type allows ([] =
any); attr kind is int, float, bool, str, ints, floats or "" (unknown)."""

from __future__ import annotations

import collections.abc
import importlib
import inspect
import pkgutil
import typing

from .._script import OnnxFunction
from .._types import is_tensor_type
from ._trace import ExportError

_USER: dict = {}


def register(overload: str, function) -> None:
    """Registers an ONNX Script function (@script()) for an ATen overload
    ("aten::relu.default", "mylib::op.default"). User functions come before the
    library's and win ties."""
    if not isinstance(overload, str) or "::" not in overload or "." not in overload.split("::")[1]:
        raise ValueError(f"register: {overload!r} is not an overload name like "
                         "'mylib::op.default'")
    if not isinstance(function, OnnxFunction):
        raise TypeError(f"register({overload!r}, ...): expected a function compiled with "
                        f"@script(), not {type(function).__name__}")
    _USER.setdefault(overload, []).append(function)


def _dtypes(annotation):
    """(dtypes, optional) of a tensor annotation; None when not a tensor."""
    if annotation is None or annotation is type(None):
        return [], True
    if isinstance(annotation, typing.TypeVar):
        members = list(annotation.__constraints__)
        if annotation.__bound__ is not None:
            members.append(annotation.__bound__)
        out = set()
        for m in members:
            d, _ = _dtypes(m) or ([], False)
            if not d:
                return [], False
            out.update(d)
        return sorted(out), False
    if is_tensor_type(annotation):
        return ([annotation.dtype] if annotation.dtype else []), False
    if typing.get_origin(annotation) is typing.Union:
        out, optional = set(), False
        for m in typing.get_args(annotation):
            if m is type(None):
                optional = True
                continue
            r = _dtypes(m)
            if r is None:
                return None
            if not r[0]:
                return [], optional or r[1]
            out.update(r[0])
        return sorted(out), optional
    return None


def _attr_kind(annotation) -> str:
    if annotation in (int, float, bool, str):
        return annotation.__name__
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        kinds = {_attr_kind(a) for a in typing.get_args(annotation) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else ""
    if origin in (list, tuple, collections.abc.Sequence):
        args = typing.get_args(annotation)
        if args and args[0] in (int, float):
            return "ints" if args[0] is int else "floats"
    return ""


def _params(fn: OnnxFunction):
    try:
        hints = typing.get_type_hints(fn.function)
    except Exception:  # unresolvable annotations: treat every type as unknown
        hints = {}
    sig = fn._signature.parameters
    inputs = set(fn._sig["inputs"])
    out = []
    for name, p in sig.items():
        ann = hints.get(name)
        has_default = p.default is not inspect.Parameter.empty
        if name in inputs:
            d = _dtypes(ann) if ann is not None else ([], False)
            dtypes, optional = d if d is not None else ([], False)
            out.append((name, "input", dtypes, optional or (has_default and p.default is None),
                        "", has_default))
        else:
            out.append((name, "attr", [], has_default and p.default is None, _attr_kind(ann),
                        has_default))
    return out


def _candidate(overload, fn, user):
    return (overload, fn.name, user, fn.to_library(), fn.name, _params(fn))


def candidates(overloads):
    """Candidates for the overload names the graph uses (and the fallbacks
    the dispatcher may look at: the functional form of an in-place overload,
    the .default overload), plus the Python trace-only entries that were
    skipped, as (overload, name) pairs."""
    _registry = load_library()
    wanted = set()
    for o in overloads:
        ns, rest = o.split("::", 1)
        op, _, _ovl = rest.partition(".")
        for name in (op, op[:-1] if op.endswith("_") and not op.endswith("__") else op):
            wanted.add(f"{ns}::{name}.{_ovl}")
            wanted.add(f"{ns}::{name}.default")
    out, skipped = [], []
    for o in sorted(wanted):
        for fn in _USER.get(o, ()):
            out.append(_candidate(o, fn, True))
        for entry in _registry.candidates(o):
            if entry.trace_only or not isinstance(entry.function, OnnxFunction):
                skipped.append((o, entry.name))
                continue
            out.append(_candidate(o, entry.function, False))
    return out, skipped


def load_library():
    """Imports every module of oxs.torch.aten (each registers its functions)
    and returns the registry."""
    from . import aten
    from .aten import _registry

    for info in pkgutil.iter_modules(aten.__path__):
        if info.name.startswith("_"):
            continue
        try:
            importlib.import_module(f"{aten.__name__}.{info.name}")
        except Exception as e:  # a broken library file: say which
            raise ExportError(f"export: the ATen library module '{info.name}' failed to "
                              f"import: {type(e).__name__}: {e}") from e
    return _registry
