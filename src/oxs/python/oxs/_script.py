"""@script(): compile a Python function's real source with the oxs compiler.

The decorator reads the function's lines from its file (decorators included)
and, for every identifier in them, what Python binds it to where the
function was defined: its closure, the defining frame's locals (annotations
and decorators are evaluated there), then its module globals. Those values
are handed to the compiler as an environment (src/oxs/script/environment.h):
the compiler never sees the file's imports, so `from oxs import ...`,
`import onnxscript` through oxs.compat, aliases and closures all resolve the
same way Python resolves them. Other script functions the function uses are
compiled in the same unit and become model-local functions.

Compilation happens once at decoration (errors raise oxs.CompileError there,
as in onnxscript); `to_model_proto()` compiles the function as a model graph
on first use, and calls run the compiled function on the evaluator."""

from __future__ import annotations

import inspect
import linecache
import math
import re
import sys
import threading
import types
import typing

import numpy as np

from . import _core
from ._opset import Opset
from ._types import TensorType, is_tensor_type

_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_CHAIN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)+")
# Modules whose members the compiler resolves itself.
_KNOWN_MODULES = {"onnxscript", "onnx", "math", "typing", "typing_extensions"}


class CompileError(Exception):
    """A script function did not compile. `diagnostics` holds every problem
    (dicts with file, line, column, code, message, hint, notes and the rendered
    `text`); str(error) is the same text `oxs compile` prints."""

    def __init__(self, text: str, diagnostics: list):
        super().__init__(text)
        self.diagnostics = diagnostics


class EagerError(_core.Error):
    """A node failed while a script function ran eagerly; the message names
    the function, the node and op, and the script line."""


# ---------------------------------------------------------------- environment

def _typing_names():
    out = {}
    for name in ("Optional", "Sequence", "List", "Tuple", "Union", "Annotated", "Any", "Dict",
                 "Callable", "Iterable", "TypeVar"):
        obj = getattr(typing, name, None)
        if obj is not None:
            out[id(obj)] = name
    return out


_TYPING = _typing_names()
_MATH_FUNCTIONS = {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil", "fabs",
                   "pow", "erf", "log2", "log10", "atan"}


def _is_plain_python(v, depth=0) -> bool:
    if depth > 32:
        return False
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    if isinstance(v, (list, tuple)):
        return all(_is_plain_python(x, depth + 1) for x in v)
    return False


def _module_path(mod: types.ModuleType) -> str:
    name = mod.__name__
    if name == "oxs" or name == "onnxscript":
        return "onnxscript"
    if name.startswith("oxs."):
        return "onnxscript." + name[4:]
    return name


def _external(value, deps: list):
    """What the compiler should take `value` to be, as a tuple for oxs._core."""
    from . import _api  # noqa: F401  (script, graph, external_tensor live there)

    if isinstance(value, OnnxFunction):
        deps.append(value)
        return ("function", value.name)
    if isinstance(value, Opset):
        return ("opset", "" if value.domain == "ai.onnx" else value.domain, value.version, repr(value))
    if is_tensor_type(value):
        base = getattr(value, "_base", None)
        if base is None:
            if value is TensorType:
                return ("member", "onnxscript", "TensorType")
            return ("member", "onnxscript", value.__name__)
        return ("type", value.dtype, None if value.shape is None else list(value.shape),
                value.__name__)
    if value is Opset:
        return ("member", "onnxscript", "Opset")
    for name in ("script", "graph", "external_tensor"):
        if value is getattr(_api, name, None):
            return ("member", "onnxscript", name)
    if isinstance(value, types.ModuleType):
        return ("module", _module_path(value))
    if isinstance(value, (bool, int, float, str)) or value is None:
        return ("py", value)
    if isinstance(value, (np.ndarray, np.generic)):
        return ("py", value)
    if isinstance(value, (list, tuple)) and _is_plain_python(value):
        return ("py", value)
    if id(value) in _TYPING:
        return ("member", "typing", _TYPING[id(value)])
    if isinstance(value, typing.TypeVar):
        # A TypeVar defined in another module (the compiler evaluates only
        # the ones its own file defines): a tensor of any shape, of the one
        # element type its members share, else generic.
        members = value.__constraints__ or typing.get_args(value.__bound__) or (value.__bound__,)
        if all(is_tensor_type(m) for m in members):
            dtypes = {m.dtype for m in members}
            return ("type", dtypes.pop() if len(dtypes) == 1 else 0, None, value.__name__)
    if getattr(value, "__module__", None) == "math" and getattr(value, "__name__", "") in _MATH_FUNCTIONS:
        return ("member", "math", value.__name__)
    onnx = sys.modules.get("onnx")
    if onnx is not None:
        if value is getattr(onnx, "TensorProto", None):
            return ("module", "onnx.TensorProto")
        helper = getattr(onnx, "helper", None)
        if helper is not None and value is getattr(helper, "make_tensor", None):
            return ("member", "onnx.helper", "make_tensor")
    kind = type(value).__name__
    return ("foreign", f"{getattr(value, '__qualname__', kind)} ({kind})")


def _source_block(func):
    """(file name, file text, first line, last line) of a function's source."""
    code = func.__code__
    filename = code.co_filename
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as e:
        raise CompileError(
            f"{filename}: the source of '{func.__qualname__}' is not available ({e}); "
            "oxs compiles a function from its file: define it in a .py file", []) from None
    text = "".join(linecache.getlines(filename, func.__globals__))
    if not text:
        raise CompileError(f"{filename}: cannot read the source of '{func.__qualname__}'", [])
    return filename, text, first, first + len(lines) - 1, "".join(lines)


class _Block:
    """One function's part of a compilation unit: its lines and names."""

    def __init__(self, func, caller_locals):
        self.filename, self.text, self.first, self.last, source = _source_block(func)
        self.source = source
        self.deps: list[OnnxFunction] = []
        scopes = []
        code = func.__code__
        if func.__closure__:
            cells = {}
            for name, cell in zip(code.co_freevars, func.__closure__):
                try:
                    cells[name] = cell.cell_contents
                except ValueError:  # an unassigned cell
                    pass
            scopes.append(cells)
        if caller_locals:
            scopes.append(caller_locals)
        scopes.append(func.__globals__)
        names = {}
        for ident in set(_IDENT.findall(source)):
            if ident == code.co_name:
                # Its own name: in the scope it may still be an earlier
                # definition (a re-run cell, a redefinition), not this one.
                continue
            for scope in scopes:
                if ident in scope:
                    names[ident] = _external(scope[ident], self.deps)
                    break
        # Members of modules the compiler does not know (np.pi, mylib.CONST):
        # bound by their module path ("numpy.pi").
        for chain in set(_CHAIN.findall(source)):
            head, *attrs = chain.split(".")
            obj = next((scope[head] for scope in scopes if head in scope), None)
            while attrs and isinstance(obj, types.ModuleType):
                path = _module_path(obj)
                if path.split(".")[0] in _KNOWN_MODULES:
                    break
                attr = attrs.pop(0)
                if not hasattr(obj, attr):
                    break
                obj = getattr(obj, attr)
                if not isinstance(obj, types.ModuleType):
                    names[f"{path}.{attr}"] = _external(obj, self.deps)
        self.names = names

    def as_tuple(self):
        return (self.filename, self.text, self.first, self.last, self.names)


def _default_opset(blocks):
    """The ai.onnx opset the functions' names mention first (the entry's
    first, in source order; then the functions it calls)."""
    for block in blocks:
        for m in _IDENT.finditer(block.source):
            v = block.names.get(m.group(0))
            if v is not None and v[0] == "opset" and v[1] == "":
                return ("", v[2])
    return None


# ---------------------------------------------------------------- tracing

_trace_state = threading.local()


class TraceEvent:
    """One executed node: op, node name, inputs and outputs by name, the script
    line (`where`) and the nesting depth (0 = the called function's body)."""

    __slots__ = ("op", "domain", "node", "depth", "inputs", "outputs", "where")

    def __init__(self, d):
        self.op = d["op"]
        self.domain = d["domain"]
        self.node = d["node"]
        self.depth = d["depth"]
        self.inputs = dict(zip(d["input_names"], d["inputs"]))
        self.outputs = dict(zip(d["output_names"], d["outputs"]))
        self.where = d["where"]

    def __repr__(self):
        outs = ", ".join(self.outputs)
        return f"<TraceEvent {self.op} {self.node!r} -> {outs} at {self.where or '?'}>"


class trace:
    """`with oxs.trace() as t:` records every node that eager calls run
    (t.events, in execution order, nested calls included)."""

    def __init__(self):
        self.events: list[TraceEvent] = []

    def __enter__(self):
        stack = getattr(_trace_state, "stack", None)
        if stack is None:
            stack = _trace_state.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _trace_state.stack.remove(self)
        return False


def _active_trace():
    stack = getattr(_trace_state, "stack", None)
    return stack[-1] if stack else None


# ---------------------------------------------------------------- functions

def _compile(blocks, entry, functions_only, opset, default_opset):
    unit = _core.compile_unit([b.as_tuple() for b in blocks], entry, functions_only, opset,
                              default_opset)
    if not unit.ok:
        raise CompileError(unit.rendered.rstrip("\n"), unit.diagnostics)
    return unit


class OnnxFunction:
    """A compiled script function: call it on numpy arrays (eager mode), or
    get `to_function_proto()`, `to_model_proto()`, `to_model()`, `source`."""

    def __init__(self, func, caller_locals, opset_arg, default_opset_arg):
        self.function = func
        self.name = func.__code__.co_name
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.__wrapped__ = func
        self._signature = inspect.signature(func)
        self._block = _Block(func, caller_locals)
        self._opset_arg = opset_arg
        self._default_opset_arg = default_opset_arg
        self._models = {}
        self._lock = threading.Lock()
        self._unit = self._compile_unit(entry="", functions_only=True)
        self._sig = self._unit.signature(self.name)
        params = list(self._signature.parameters)
        missing = [n for n in self._sig["inputs"] + self._sig["attributes"] if n not in params]
        if missing:
            raise CompileError(f"{self.name}: compiled parameters {missing} are not parameters "
                               f"of the Python function {params}", [])

    @property
    def source(self) -> str:
        """The function's source text, as in its file."""
        return self._block.source

    @property
    def opset(self):
        return self._opset_arg

    def _blocks(self):
        order, seen, work = [], set(), [self]
        while work:
            f = work.pop()
            if id(f) in seen:
                continue
            seen.add(id(f))
            order.append(f)
            work.extend(reversed(f._block.deps))
        by_name = {}
        for f in order:
            other = by_name.setdefault(f.name, f)
            if other is not f:
                raise CompileError(
                    f"{self._block.filename}:{self._block.first}: '{self.name}' uses two different "
                    f"script functions named '{f.name}' ({other._block.filename}:{other._block.first} "
                    f"and {f._block.filename}:{f._block.first}); ONNX functions are identified by "
                    "name: rename one", [])
        return [f._block for f in order]

    def _compile_unit(self, entry, functions_only, opset=None):
        dflt = None
        if isinstance(self._default_opset_arg, Opset):
            dflt = (self._default_opset_arg.domain, self._default_opset_arg.version)
        blocks = self._blocks()
        if dflt is None:
            dflt = _default_opset(blocks)
        return _compile(blocks, entry, functions_only, opset, dflt)

    # ---- models and protos

    def to_library(self) -> "_core.Model":
        """This function and the script functions it calls as a model with an
        empty graph (for GraphBuilder.add_functions)."""
        return self._unit.model

    def to_model(self, opset: int | None = None) -> "_core.Model":
        """The function as a model (oxs.Model): its graph typed from the
        annotations, the script functions it calls as model-local functions."""
        key = opset
        with self._lock:
            if key not in self._models:
                self._models[key] = self._compile_unit(self.name, False, opset).model
            return self._models[key]

    def to_model_proto(self, **kwargs):
        """An onnx.ModelProto when the `onnx` package imports (kwargs set its
        scalar fields: ir_version, producer_name, doc_string, ...); bytes
        otherwise (no kwargs then)."""
        opset = kwargs.pop("opset_version", None)
        data = self.to_model(opset).to_bytes()
        try:
            import onnx
        except ImportError:
            if kwargs:
                raise TypeError(f"to_model_proto({', '.join(kwargs)}): fields can be set only "
                                "when the onnx package is installed") from None
            return data
        proto = onnx.load_from_string(data)
        for k, v in kwargs.items():
            if k not in ("ir_version", "producer_name", "producer_version", "domain",
                         "model_version", "doc_string"):
                raise TypeError(f"to_model_proto() got an unexpected keyword argument '{k}'")
            setattr(proto, k, v)
        return proto

    def to_function_proto(self):
        """An onnx.FunctionProto (serialized bytes when onnx does not import)."""
        model = self._unit.model
        data = model.to_bytes()
        try:
            import onnx
        except ImportError:
            raise ImportError("to_function_proto() needs the onnx package; "
                              "to_model().functions has the function without it") from None
        proto = onnx.load_from_string(data)
        for f in proto.functions:
            if f.name == self.name:
                return f
        raise CompileError(f"{self.name}: no function in the compiled library", [])

    # ---- eager mode

    def _bind(self, args, kwargs):
        """The arguments by parameter name, defaults applied. A fast path for
        plain parameters; inspect's binding (and its messages) otherwise."""
        plain = self.__dict__.get("_plain")
        if plain is None:
            ps = list(self._signature.parameters.values())
            simple = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in ps)
            positional = sum(p.kind == p.POSITIONAL_OR_KEYWORD for p in ps)
            defaults = {p.name: p.default for p in ps if p.default is not p.empty}
            plain = self._plain = (simple, [p.name for p in ps][:positional], defaults,
                                   [p.name for p in ps])
        simple, positional, defaults, names = plain
        if simple and len(args) <= len(positional):
            a = dict(zip(positional, args))
            for k, v in kwargs.items():
                if k in a or k not in defaults and k not in names:
                    break
                a[k] = v
            else:
                for n in names:
                    if n not in a:
                        if n not in defaults:
                            break
                        a[n] = defaults[n]
                else:
                    return a
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}(): {e}") from None
        bound.apply_defaults()
        return bound.arguments

    def __call__(self_, /, *args, **kwargs):  # noqa: N805 (a parameter may be named self)
        self = self_
        a = self._bind(args, kwargs)
        inputs = [a.get(n) for n in self._sig["inputs"]]
        attrs = {n: a[n] for n in self._sig["attributes"] if n in a}
        for n in self._sig["attributes"]:
            if n in a and a[n] is None:
                raise TypeError(f"{self.name}(): attribute '{n}' needs a value, not None")
        t = _active_trace()
        try:
            outs, events = self._unit.call(self.name, inputs, attrs, t is not None)
        except _core.Error as e:
            raise EagerError(str(e)) from None
        if t is not None:
            t.events.extend(TraceEvent(d) for d in events)
        if len(outs) == 1:
            return outs[0]
        return tuple(outs)

    def __repr__(self):
        return f"<oxs.OnnxFunction {self.name} ({self._block.filename}:{self._block.first})>"
