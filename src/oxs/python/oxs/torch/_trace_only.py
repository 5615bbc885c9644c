"""Trace-only ATen functions: plain Python run at export time over graph
values, whose `op.X(...)` calls add nodes (oxs.GraphBuilder values), so a
function can branch in Python on ranks, dtypes and attribute values:

    from oxs.onnx_opset import opset18 as op
    from oxs.torch._trace_only import aten_traced

    @aten_traced("aten::index_select.default")
    def traced_index_select(self, dim: int, index):
        if self.rank == 0:
            return op.Identity(self)
        return op.Gather(self, index, axis=dim)

The C++ dispatcher and interpreter are unchanged: they only call ONNX
functions. For every node a trace-only function takes, `specialize` runs
the function once per distinct (function, overload, input element types and
shapes, attribute values, result types and ranks) in a function-body builder, which
yields an ordinary ONNX function (domain "pkg.oxs.torch.traced"); the node's
target becomes a private overload name `<overload>@<function>_<k>` with that
one function as its candidate, and its tensor arguments are passed as that
function's inputs (a Tensor[] argument flattened, one input per tensor).
Everything else the interpreter does (calls, inlining, type checks against
the trace) applies as to any library function.

Which function takes a node (looked up under the node's overload, then its
functional form, then .default, as the dispatcher looks):
    a user's trace-only function (oxs.torch.register) > a user's ONNX Script
    function, a native C++ function (the dispatcher decides among those) >
    the library's trace-only function > the library's ONNX Script functions;
    a library function registered with before_native=True comes before the
    native one (and declines the nodes the native handles).
A trace-only function sees each tensor as a value with `.dtype` (ONNX
element type number), `.rank` and `.shape` (the traced sizes, None for a
dim that varies with dynamic_shapes: a specialization is made per distinct
static shape, so a function may read sizes), Python values for the other arguments
(ScalarType as an ONNX element type number, None where the node gives None),
and `node_info()` for the node's result types and which results the graph
reads. A function that returns
NotImplemented declines the node, which then goes to the dispatcher's other
candidates as if it had none. While it runs, every op.X(...)
adds a node to its body (also ops whose inputs are all constants). An
exception in it fails the
export naming the node."""

from __future__ import annotations

import dataclasses
import importlib
import re
import typing

import numpy as np

from .. import _core, _eager_op


def _export_error():
    # Imported when needed: the ATen library's build imports this module
    # (the registry lists trace-only functions), where torch may be absent.
    from ._trace import ExportError
    return ExportError

DOMAIN = "pkg.oxs.torch.traced"


@dataclasses.dataclass(frozen=True)
class TracedEntry:
    """A trace-only function registered for some ATen overloads."""

    overloads: tuple
    function: typing.Callable
    user: bool = False
    # Tried before a native C++ function of the overload (the function
    # declines, returning NotImplemented, where the native does the job).
    before_native: bool = False

    @property
    def name(self) -> str:
        return re.sub(r"\W", "_", self.function.__name__)  # "<lambda>" -> "_lambda_"


_LIBRARY: dict = {}  # overload -> [TracedEntry] (the ATen library's)
_USER: dict = {}  # overload -> [TracedEntry] (oxs.torch.register)
_LIBRARY_PACKAGE = "oxs.torch.traced"
_loaded = False


def aten_traced(*overloads: str, before_native: bool = False):
    """Registers a trace-only function of the ATen library for each overload
    name ("aten::index.Tensor"). before_native: it is tried before a native
    C++ function of the same overload (and declines where the native does
    the job)."""
    for o in overloads:
        if not isinstance(o, str) or "::" not in o or "." not in o.split("::", 1)[1]:
            raise ValueError(f"aten_traced: {o!r} is not an overload name like "
                             "'aten::add.Tensor'")

    def register(function):
        entry = TracedEntry(tuple(overloads), function, before_native=before_native)
        for o in overloads:
            _LIBRARY.setdefault(o, []).append(entry)
        return function

    return register


def register_user(overload: str, function) -> None:
    _USER.setdefault(overload, []).append(TracedEntry((overload,), function, user=True))


def load_library() -> None:
    """Imports the library's trace-only modules (plain Python: nothing is
    compiled) once."""
    global _loaded
    if not _loaded:
        importlib.import_module(_LIBRARY_PACKAGE)
        _loaded = True


def library_entries() -> list:
    """Every trace-only entry of the library once, in registration order."""
    load_library()
    seen, out = set(), []
    for group in _LIBRARY.values():
        for e in group:
            if id(e) not in seen:
                seen.add(id(e))
                out.append(e)
    return out


# ---------------------------------------------------------------- at export


@dataclasses.dataclass(frozen=True)
class NodeInfo:
    """What a trace-only function may read of the node it is specialized
    for: its name, overload, result element types and ranks, the opset."""

    name: str
    overload: str
    result_dtypes: tuple
    result_ranks: tuple
    opset: int
    results_used: tuple = ()  # per result, whether the graph reads it


_CURRENT: list = []


def node_info() -> NodeInfo:
    """The node the running trace-only function is specialized for."""
    if not _CURRENT:
        raise RuntimeError("node_info(): no trace-only function is being specialized")
    return _CURRENT[-1]


def _functional(overload: str) -> str:
    ns, rest = overload.split("::", 1)
    op, _, ovl = rest.partition(".")
    if op.endswith("_") and not op.endswith("__"):
        return f"{ns}::{op[:-1]}.{ovl}"
    return ""


def _default(overload: str) -> str:
    ns, rest = overload.split("::", 1)
    d = f"{ns}::{rest.partition('.')[0]}.default"
    return "" if d == overload else d


def _lookup_names(target: str) -> list:
    """The names the dispatcher looks under, in its order."""
    f = _functional(target)
    return [n for n in (target, f, _default(f or target)) if n]


_NUMPY_ONNX = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
               "int64": 7, "bool": 9, "float16": 10, "float64": 11, "uint32": 12, "uint64": 13}


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, (list, tuple)) else v


class _Specializer:
    """One export's specialized functions, built in one library builder."""

    def __init__(self, opset: int):
        self.opset = opset
        self.lib = _core.GraphBuilder(opset=opset, name="traced")
        self.by_key: dict = {}  # key -> (synthetic overload, function, params, n_out, user)
        self.count: dict = {}

    def specialize(self, entry, looked_up, node, types):
        name, target, module, args, outs = node[:5]
        arg_key, inputs = [], []
        for aname, stype, kind, value in args:
            if kind == "t":
                arg_key.append((aname, "t", types[value]))
                inputs.append((aname, value))
            elif kind == "tl":
                arg_key.append((aname, "tl", tuple(types[i] if i >= 0 else None for i in value)))
                inputs.extend((f"{aname}__{j}", i) for j, i in enumerate(value) if i >= 0)
            else:
                arg_key.append((aname, kind, _frozen(value)))
        # result element types, ranks, and whether the graph reads them
        result = tuple((o[1], len(o[2]), o[0] >= 0) for o in outs)
        key = (id(entry.function), looked_up, tuple(arg_key), result)
        if key not in self.by_key:
            self.by_key[key] = self._build(entry, looked_up, node, types, inputs, result)
        if self.by_key[key] is None:  # the function declined: the node stays as it is
            return node
        synthetic = self.by_key[key][0]
        new_args = [(n, "Tensor", "t", vid) for n, vid in inputs]
        return (name, synthetic, module, new_args, outs) + tuple(node[5:])

    def _build(self, entry, looked_up, node, types, inputs, result):
        name, target, module, args, outs = node[:5]
        k = self.count.get(entry.name, 0)
        self.count[entry.name] = k + 1
        fname = f"{entry.name}_{k}"
        body = self.lib.function(DOMAIN, fname, [])
        values = {}
        for n, vid in inputs:
            dtype, dims = types[vid]  # dims: None where they vary
            values[vid] = body.input(n, dtype, list(dims))
        kwargs = {}
        for aname, stype, kind, value in args:
            if kind == "t":
                kwargs[aname] = values[value]
            elif kind == "tl":
                kwargs[aname] = [values[i] if i >= 0 else None for i in value]
            elif kind == "n":
                kwargs[aname] = None
            else:
                kwargs[aname] = value
        where = f"node '{name}' ({target}) in {module or '<root>'}"
        _CURRENT.append(NodeInfo(name, looked_up, tuple(d for d, _, _ in result),
                                 tuple(r for _, r, _ in result), self.opset,
                                 tuple(u for _, _, u in result)))
        _eager_op.GRAPH_BUILDERS.append(body)  # every op.X(...) adds to the body
        ExportError = _export_error()
        try:
            out = entry.function(**kwargs)
        except ExportError:
            raise
        except Exception as e:
            raise ExportError(f"export: {where}: the trace-only function {entry.name} failed: "
                              f"{type(e).__name__}: {e}") from None
        finally:
            _CURRENT.pop()
            _eager_op.GRAPH_BUILDERS.pop()
        if out is NotImplemented:
            self.count[entry.name] -= 1  # nothing was added (the body is dropped)
            return None
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(out) != len(outs):
            raise ExportError(f"export: {where}: the trace-only function {entry.name} returned "
                              f"{len(out)} values; the node has {len(outs)} outputs")
        for i, v in enumerate(out):
            if not isinstance(v, _core.BuilderValue):  # a constant result
                v = body.initializer("", np.asarray(v))
            body.output(v, f"result_{i}")
        self.lib.add_function(body)
        params = [(n, "input", [types[vid][0]], False, "", False, False, None, "")
                  for n, vid in inputs]
        return (f"{looked_up}@{fname}", fname, params, len(outs), entry.user)

    def candidates(self) -> list:
        if not any(self.by_key.values()):
            return []
        model = self.lib.functions_model()
        return [(synthetic, fname, user, model, fname, params, "", False, [""] * n_out)
                for synthetic, fname, params, n_out, user in filter(None, self.by_key.values())]


def specialize(inputs, params, nodes, candidates, opset):
    """(nodes, candidates) with every node a trace-only function takes
    rewritten to call its specialization (the module docstring)."""
    if _USER or not _loaded:
        load_library()
    if not _USER and not _LIBRARY:
        return nodes, candidates
    script = {}  # overload -> has a user script candidate
    for c in candidates:
        script[c[0]] = script.get(c[0], False) or bool(c[2])
    names = sorted({n for node in nodes for n in _lookup_names(node[1])})
    native = set(_core.torch_native_overloads(names))
    # value id -> (element type, dims: ints, None for a dynamic dim)
    types = {}
    for vid, _name, dtype, dims in inputs:
        types[vid] = (dtype, tuple(d if isinstance(d, int) else None for d in dims))
    for vid, _name, array in params:
        types[vid] = (_NUMPY_ONNX.get(str(array.dtype), 16 if "bfloat16" in str(array.dtype)
                                      else 0), tuple(array.shape))
    for node in nodes:
        for o in node[4]:
            if o[0] >= 0:
                # Per dim the id of its size expression (_handoff._dims), -1
                # for a static size: a dim with an expression is dynamic.
                syms = o[3] if len(o) > 3 else ()
                types[o[0]] = (o[1], tuple(None if i < len(syms) and syms[i] >= 0 else d
                                           for i, d in enumerate(o[2])))
    spec = None
    out = []
    for node in nodes:
        chosen = None
        for n in _lookup_names(node[1]):
            if n in _USER:
                chosen = (_USER[n][0], n)
            elif script.get(n):
                break
            elif n in native:
                first = _LIBRARY.get(n, [None])[0]
                if first is not None and first.before_native:
                    chosen = (first, n)
                break
            elif n in _LIBRARY:
                chosen = (_LIBRARY[n][0], n)
            elif n not in script:
                continue
            break
        if chosen is None:
            out.append(node)
            continue
        spec = spec or _Specializer(opset)
        out.append(spec.specialize(chosen[0], chosen[1], node, types))
    if spec is None:
        return nodes, candidates
    return out, list(candidates) + spec.candidates()
