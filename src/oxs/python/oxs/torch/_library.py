"""The candidates the dispatcher chooses from, as oxs._core.torch_export
reads them: the user's registrations (oxs.torch.register) and the ATen
library, loaded once per process from the build artifact
`oxs/torch/aten_library.onnx` (its functions, and its manifest in the
metadata_props key "oxs.aten.manifest": src/oxs/torch/aten/_registry.py
describes both). Nothing of the library is compiled at export time.

One candidate:
    (overload, name, user, library model, function name, params,
     dtype_role, has_variants)
    params: [(param, "input"|"attr", dtypes, optional, attr kind, has default,
              sequence, default, typevar)]
dtypes lists the ONNX element types a TypeVar or tensor type allows ([] =
any); attr kind is int, float, bool, str, ints, floats or "" (unknown);
default is the value passed for an attribute the node leaves out or gives
as None (None: the function needs it); typevar names the TypeVar inputs and
outputs share ("" = none); has_variants: an omitted optional input selects
the library's variant `<function>__without_<input>...`."""

from __future__ import annotations

import collections.abc
import inspect
import json
import os
import pathlib
import typing

from .. import _core
from .._script import OnnxFunction
from .._types import is_tensor_type
from . import _trace_only
from ._trace import ExportError

_USER: dict = {}
MANIFEST_KEY = "oxs.aten.manifest"

# Manifest type names -> ONNX element types (TensorProto.DataType).
_ELEM = {"FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7,
         "STRING": 8, "BOOL": 9, "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13,
         "COMPLEX64": 14, "COMPLEX128": 15, "BFLOAT16": 16}
_ATTR_KIND = {"INT": "int", "FLOAT": "float", "BOOL": "bool", "STRING": "str", "INTS": "ints",
              "FLOATS": "floats", "STRINGS": ""}


def register(overload: str, function) -> None:
    """Registers a function for an ATen overload ("aten::relu.default",
    "mylib::op.default"): an ONNX Script function (@script()), or a plain
    Python function, which is trace-only: called at export time with graph
    values whose op.X(...) calls add nodes (oxs/torch/_trace_only.py). User
    functions come before the library's and win when they fit; a trace-only
    one takes every node of its overload."""
    if not isinstance(overload, str) or "::" not in overload or "." not in overload.split("::")[1]:
        raise ValueError(f"register: {overload!r} is not an overload name like "
                         "'mylib::op.default'")
    if isinstance(function, OnnxFunction):
        _USER.setdefault(overload, []).append(function)
        return
    if not callable(function) or not hasattr(function, "__name__"):
        raise TypeError(f"register({overload!r}, ...): expected a function compiled with "
                        f"@script() or a trace-only Python function, not "
                        f"{type(function).__name__}")
    _trace_only.register_user(overload, function)


# ---------------------------------------------------------------- the library


class _Library:
    """The compiled library: the model holding every function and, per
    overload, its candidate tuples (built once from the manifest)."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        self.model, text = _core.torch_load_library(os.fspath(path))
        if text is None:
            raise ExportError(f"export: {path} has no '{MANIFEST_KEY}' metadata: it is not the "
                              "compiled ATen library; rebuild the target oxs_torch_aten_library")
        self.records = json.loads(text)
        self.by_overload: dict = {}
        self.trace_only: dict = {}
        for r in self.records:
            for o in r["overloads"]:
                if r.get("trace_only"):
                    self.trace_only.setdefault(o, []).append(r["function"])
                    continue
                self.by_overload.setdefault(o, []).append(self._candidate(o, r))

    def _candidate(self, overload, r):
        params = []
        for p in r["params"]:
            if p["kind"] == "input":
                params.append((p["name"], "input", sorted({_ELEM[t] for t in p["types"]}),
                               bool(p["optional"]), "tensors" if p["sequence"] else "",
                               bool(p["optional"]), bool(p["sequence"]), None,
                               p.get("typevar") or ""))
            else:
                default = p["default"]
                if isinstance(default, str) and p["type"] == "FLOAT":
                    default = float(default)  # "inf", "-inf", "nan"
                params.append((p["name"], "attr", [], bool(p["optional"]),
                               _ATTR_KIND[p["type"]], bool(p["optional"]), False, default, ""))
        outputs = [o.get("typevar") or "" for o in r["outputs"]]
        return (overload, r["function"], False, self.model, r["function"], params,
                r.get("dtype_role") or "", bool(r.get("variants")), outputs)


_LOADED: typing.Optional[_Library] = None


def library_path() -> pathlib.Path:
    """Where the compiled library is: $OXS_ATEN_LIBRARY, else beside this
    package (the build writes it there)."""
    env = os.environ.get("OXS_ATEN_LIBRARY")
    return pathlib.Path(env) if env else pathlib.Path(__file__).resolve().parent / "aten_library.onnx"


def load_library() -> _Library:
    """The compiled ATen library, loaded on first use."""
    global _LOADED
    path = library_path()
    if _LOADED is None or _LOADED.path != path:
        if not path.is_file():
            raise ExportError(f"export: the compiled ATen library {path} is missing: build it "
                              "with `cmake --build build --target oxs_torch_aten_library` (or set "
                              "OXS_ATEN_LIBRARY to its path)")
        try:
            _LOADED = _Library(path)
        except _core.Error as e:
            raise ExportError(f"export: the compiled ATen library {path} does not load: {e}; "
                              "rebuild the target oxs_torch_aten_library") from None
    return _LOADED


# ---------------------------------------------------------------- user functions


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


def _user_params(fn: OnnxFunction):
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
                        "", has_default, False, None, ""))
        else:
            default = p.default if has_default and isinstance(
                p.default, (int, float, str, list, tuple)) else None
            out.append((name, "attr", [], has_default and p.default is None, _attr_kind(ann),
                        has_default, False, default, ""))
    return out


def _user_candidate(overload, fn):
    return (overload, fn.name, True, fn.to_library(), fn.name, _user_params(fn), "", False, [])


# ---------------------------------------------------------------- candidates


def candidates(overloads):
    """Candidates for the overload names the graph uses (and the fallbacks
    the dispatcher may look at: the functional form of an in-place overload,
    the .default overload), and [] (the trace-only functions that were once
    skipped here are specialized by _trace_only.specialize)."""
    lib = load_library()
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
            out.append(_user_candidate(o, fn))
        out.extend(lib.by_overload.get(o, ()))
    return out, skipped
