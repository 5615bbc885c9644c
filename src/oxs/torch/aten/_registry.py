"""Which function implements which ATen overload: the registry the exporter's
dispatcher reads (the contract between the ATen library and torch/).

A library function is an ONNX Script function registered for one or more ATen
overload names, written against the ATen schema:

    from oxs import script
    from oxs.onnx_opset import opset18 as op
    from oxs.torch.aten._registry import aten_op, aten_opset
    from oxs.torch.aten._types import TReal

    @aten_op("aten::add.Tensor")
    @script(aten_opset, default_opset=op)
    def aten_add(self: TReal, other: TReal, alpha: float = 1.0) -> TReal:
        ...

(`aten_opset` puts the function in the library's domain, "pkg.oxs.torch".)

Rules every function follows:
- its parameters are the ATen schema's arguments, same names, same order;
  tensors are ONNX inputs, other arguments (int, float, bool, int[], str,
  ScalarType as int) are attributes with the schema's defaults; an optional
  tensor is an input annotated Optional[...] with default None;
- its input and output annotations are TypeVars (bound or constrained to a
  Union of oxs tensor types) or concrete tensor types: these are the type
  constraints the dispatcher scores candidates by;
- overload names are "aten::<op>.<overload>" (".default" for the default
  overload), as torch prints `node.target` in an ATen-level FX graph;
- an argument ATen allows to be None:
  * an optional tensor input omitted: the library holds a variant of the
    function compiled without it (named by the compiler
    "<function>__without_<input>[_<input>...]", listed in the manifest);
  * an attribute given None is omitted from the call, so the function's
    default applies: defaults encode what None means (`int[1]? dim=()` is
    every dimension, slice's `end` is INT64_MAX, clamp's bounds are +-inf);
    an attribute without a default must be given;
- `ScalarType` arguments are ONNX element type numbers (TensorProto.DataType,
  not torch's ScalarType enumeration). Two meanings, declared by
  `aten_op(..., dtype=...)` and listed in the manifest as "dtype_role": where
  torch casts the input first ("cast_input": softmax, log_softmax, sum,
  mean, prod, cumsum, linalg_vector_norm; `dtype: int = -1`), the dispatcher
  inserts that Cast and the function ignores dtype; where dtype chooses the
  result's type ("result": full, zeros, ones, arange, *_like, new_*,
  scalar_tensor, _to_copy), the dispatcher passes the FX node's result dtype
  when the argument is None or left out (declared `dtype: int = -1`, so such
  a node fits);
- `Scalar` arguments are float attributes, cast to the tensor's type inside
  the function; type promotion between inputs is the dispatcher's (each
  function computes in its inputs' element type);
- Layout, Device, MemoryFormat and pin_memory do not change values: where a
  function declares them they have defaults and are ignored (pass None);
- Python wants a default after a defaulted parameter: where ATen has none
  (native_batch_norm's training, momentum and eps, native_group_norm's N, C,
  HxW, group), the default is a placeholder and ATen calls always give the
  value; one function serving several overloads may have a parameter one of
  them lacks (arange.start and step, zeros and memory_format), with a
  default (tests/python/torch_aten/test_schemas.py checks names, order and
  defaults against torch's schemas, and lists these);
- the return annotation is required (Tuple[...] for several outputs): the
  manifest lists the output types from it;
- functions are written for ai.onnx opset 18; prefer ops that opset 17
  defines the same way (ReduceSum rather than ReduceMean-18) so that a
  function also exports at opset 17 (docs/aten-coverage.md, "Opsets").

The compiled library (`<build>/python/oxs/torch/aten_library.onnx`, written by
`python3 -m oxs.torch.aten._library OUT`) is one ModelProto with an empty
graph, whose functions are the library's (domain "pkg.oxs.torch"; the
variants and private helpers too) and whose metadata_props key
"oxs.aten.manifest" is a JSON list, one record per registered function:

    {"function": "aten_add", "domain": "pkg.oxs.torch",
     "overloads": ["aten::add.Tensor"], "trace_only": false, "dtype_role": null,
     "params": [
       {"name": "self", "kind": "input", "types": ["FLOAT16", "FLOAT", ...],
        "typevar": "TReal", "sequence": false, "optional": false, "default": null},
       {"name": "alpha", "kind": "attribute", "type": "FLOAT",
        "optional": true, "default": 1.0}],
     "outputs": [{"name": "...", "types": [...], "typevar": "TReal"}],
     "variants": [{"omitted": ["bias"], "function": "aten_linear__without_bias"}]}

- params are in the ATen schema's order; an input's `types` are the element
  type names its annotation allows (a TypeVar's union; inputs, outputs with
  the same `typevar` share one element type at a call, null = a concrete
  type of its own); `sequence` marks a Tensor[] input (an ONNX sequence);
- an attribute's `type` is INT, FLOAT, STRING, BOOL (an INT 0/1 in ONNX),
  INTS, FLOATS or STRINGS; `optional` is true when it has a default; the
  `default` is the value to pass when the call gives none (FunctionProto of
  IR 8 holds no attribute defaults, so callers pass every attribute);
  infinite floats are the strings "inf" / "-inf";
- trace_only records have no params, only the "module" defining the function
  (the exporter calls them in Python).

Trace-only functions (plain Python called at export time over graph values,
for decisions on ranks, dtypes, attribute values and optional arguments) live
in src/oxs/torch/aten/traced/, installed as the package oxs.torch.traced so
that the exporter imports them without compiling this package, and register
with oxs.torch._trace_only.aten_traced (which documents how they are called
and specialized); entries() and candidates() list them as trace_only
entries (`aten_op(..., trace_only=True)` is refused: a module of this
package is compiled on import, which the exporter avoids).
"""

from __future__ import annotations

import dataclasses
import typing

from oxs import Opset

# The ONNX domain of the library's functions.
DOMAIN = "pkg.oxs.torch"
aten_opset = Opset(DOMAIN, 1)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One registered function: the overloads it implements, the function
    (an oxs.OnnxFunction, or a plain callable when trace_only) and whether it
    is traced at export time instead of compiled."""

    overloads: tuple
    function: typing.Any
    trace_only: bool = False
    dtype_role: typing.Optional[str] = None

    @property
    def name(self) -> str:
        return getattr(self.function, "name", None) or self.function.__name__


_REGISTRY: dict = {}


DTYPE_ROLES = ("result", "cast_input")


def aten_op(*overloads: str, trace_only: bool = False, dtype: typing.Optional[str] = None):
    """Register the decorated function for each ATen overload name. `dtype`
    says what the function's ScalarType argument `dtype` means: "result" (it
    chooses the result's type; the dispatcher passes the FX node's result
    dtype for None) or "cast_input" (torch casts the input to it first; the
    dispatcher does, and the function ignores it)."""
    for o in overloads:
        if not isinstance(o, str) or "::" not in o:
            raise ValueError(f"aten_op: {o!r} is not an overload name like 'aten::add.Tensor'")
    if trace_only:
        raise ValueError("aten_op(..., trace_only=True): write trace-only functions in "
                         "src/oxs/torch/aten/traced/ with oxs.torch._trace_only.aten_traced")
    if dtype is not None and dtype not in DTYPE_ROLES:
        raise ValueError(f"aten_op: dtype={dtype!r}; it is one of {DTYPE_ROLES}")

    def register(function):
        entry = Entry(tuple(overloads), function, trace_only, dtype)
        for o in overloads:
            _REGISTRY.setdefault(o, []).append(entry)
        return function

    return register


_TRACED: dict = {}  # id(function) -> Entry of the trace-only package's functions


def _traced_entries() -> list:
    """The trace-only functions of oxs.torch.traced (src/oxs/torch/aten/
    traced/, registered with oxs.torch._trace_only.aten_traced) as entries."""
    from oxs.torch import _trace_only
    out = []
    for e in _trace_only.library_entries():
        if id(e.function) not in _TRACED:
            _TRACED[id(e.function)] = Entry(e.overloads, e.function, True)
        out.append(_TRACED[id(e.function)])
    return out


def candidates(overload: str) -> list:
    """The entries registered for one overload name, in registration order
    (the trace-only package's after the ONNX Script modules')."""
    return list(_REGISTRY.get(overload, ())) + [e for e in _traced_entries()
                                                if overload in e.overloads]


def entries() -> list:
    """Every registered entry once, in registration order."""
    seen, out = set(), []
    for group in _REGISTRY.values():
        for e in group:
            if id(e) not in seen:
                seen.add(id(e))
                out.append(e)
    return out + [e for e in _traced_entries() if id(e) not in seen]


def overloads() -> list:
    """Every overload name with at least one function, sorted."""
    return sorted(set(_REGISTRY) | {o for e in _traced_entries() for o in e.overloads})
