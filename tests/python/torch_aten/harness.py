"""Runs ATen library functions eagerly on oxs's evaluator the way the
exporter's dispatcher calls them (the rules of oxs/torch/aten/_registry.py),
and the same overload on torch eager, from one ATen-style call.

A call is written as torch takes it: numpy arrays for tensors (lists of
arrays for Tensor[]), Python numbers and lists for the rest, None where ATen
allows None, and `DT(np.float32)` for a ScalarType."""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from oxs.torch.aten import _library, _registry

# ONNX element type numbers and names of the numpy dtypes the table uses.
ONNX_TYPES = {np.dtype(np.float32): (1, "FLOAT"), np.dtype(np.uint8): (2, "UINT8"),
              np.dtype(np.int8): (3, "INT8"), np.dtype(np.int16): (5, "INT16"),
              np.dtype(np.int32): (6, "INT32"), np.dtype(np.int64): (7, "INT64"),
              np.dtype(np.bool_): (9, "BOOL"), np.dtype(np.float16): (10, "FLOAT16"),
              np.dtype(np.float64): (11, "DOUBLE")}
TORCH_TYPES = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64,
               np.dtype(np.float16): torch.float16, np.dtype(np.int64): torch.int64,
               np.dtype(np.int32): torch.int32, np.dtype(np.int16): torch.int16,
               np.dtype(np.int8): torch.int8, np.dtype(np.uint8): torch.uint8,
               np.dtype(np.bool_): torch.bool}
NUMPY_OF_TORCH = {v: k for k, v in TORCH_TYPES.items()}


@dataclasses.dataclass(frozen=True)
class DT:
    """A ScalarType argument."""

    dtype: type

    def __repr__(self):
        return f"DT({np.dtype(self.dtype).name})"


@dataclasses.dataclass
class Case:
    """One row of the table: an ATen overload and its arguments (positional
    in schema order, then keywords); `values=False` compares only shapes and
    types (empty's values are unspecified)."""

    overload: str
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    rtol: float = 1e-5
    atol: float = 1e-6
    values: bool = True

    @property
    def id(self):
        def show(a):
            if isinstance(a, np.ndarray):
                return f"{a.dtype.name}{list(a.shape)}"
            if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
                return "[" + ",".join(show(x) for x in a) + "]"
            return repr(a)
        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"{self.overload}({', '.join(parts)})"


# ---------------------------------------------------------------- torch


def _to_torch(a):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a.copy())
    if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
        return [torch.from_numpy(x.copy()) for x in a]
    if isinstance(a, DT):
        return TORCH_TYPES[np.dtype(a.dtype)]
    return a


def torch_call(case: Case) -> list:
    name, overload = case.overload.split("::")[1].split(".")
    fn = getattr(getattr(torch.ops.aten, name), overload)
    out = fn(*[_to_torch(a) for a in case.args],
             **{k: _to_torch(v) for k, v in case.kwargs.items()})
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o.numpy() for o in outs]


# ---------------------------------------------------------------- oxs


def _dtype_name(a) -> str:
    if isinstance(a, list):
        return _dtype_name(a[0])
    return ONNX_TYPES[np.dtype(a.dtype)][1]


def bind(record: dict, case: Case) -> dict:
    """The ATen arguments by parameter name (schema order, then keywords)."""
    names = [p["name"] for p in record["params"]]
    if len(case.args) > len(names):
        raise AssertionError(f"{case.id}: more arguments than {record['function']} has")
    bound = dict(zip(names, case.args))
    for k, v in case.kwargs.items():
        if k not in names:
            raise AssertionError(f"{case.id}: {record['function']} has no parameter '{k}'")
        bound[k] = v
    return bound


def accepts(record: dict, case: Case) -> bool:
    """Whether a candidate takes these inputs: every given input's element
    type is allowed, inputs sharing a TypeVar agree, required ones given."""
    bound = bind(record, case)
    chosen = {}
    for p in record["params"]:
        if p["kind"] != "input":
            continue
        v = bound.get(p["name"])
        if v is None:
            if not p["optional"]:
                return False
            continue
        t = _dtype_name(v)
        if t not in p["types"]:
            return False
        if p["typevar"] is not None and chosen.setdefault(p["typevar"], t) != t:
            return False
    return True


def dispatch(case: Case) -> dict:
    """The manifest record of the first candidate that accepts the inputs
    (what the table exercises; the real dispatcher scores candidates)."""
    by_name = {r["function"]: r for r in MANIFEST}
    for entry in _registry.candidates(case.overload):
        if entry.trace_only:  # built at export time (test_traced.py exports them)
            continue
        record = by_name[entry.name]
        if accepts(record, case):
            return record
    raise AssertionError(f"{case.id}: no library function accepts these inputs")


MANIFEST = None


def load_manifest():
    global MANIFEST
    if MANIFEST is None:
        MANIFEST = _library.manifest()
    return MANIFEST


_VARIANT_UNITS = {}


def _variant_unit(name):
    if name not in _VARIANT_UNITS:
        entry = next(e for e in _registry.entries() if e.name == name)
        _VARIANT_UNITS[name] = _library._variant_unit(entry)
    return _VARIANT_UNITS[name]


@dataclasses.dataclass
class Prepared:
    """A call as the dispatcher makes it: the chosen record, the inputs by
    name (None = omitted), the attributes (every one, defaults filled in)."""

    record: dict
    inputs: list  # (name, value or None)
    attrs: dict

    @property
    def omitted(self):
        return [n for n, v in self.inputs if v is None]

    @property
    def function(self):
        if not self.omitted:
            return self.record["function"]
        return _library.variant_name(self.record["function"], self.omitted)


def prepare(case: Case, torch_outs: list) -> Prepared:
    record = dispatch(case)
    bound = bind(record, case)
    inputs, attrs = [], {}
    cast_to = None
    for p in record["params"]:
        v = bound.get(p["name"], None)
        if p["kind"] == "input":
            inputs.append((p["name"], v))
            continue
        if p["name"] == "dtype" and record["dtype_role"] == "cast_input":
            if v is not None:
                cast_to = np.dtype(v.dtype)  # torch casts the input first
            v = None
        if p["name"] == "dtype" and record["dtype_role"] == "result" and v is None:
            v = DT(torch_outs[0].dtype.type)  # the node's result dtype
        if isinstance(v, DT):
            v = ONNX_TYPES[np.dtype(v.dtype)][0]
        if v is None:
            if not p["optional"]:
                raise AssertionError(f"{case.id}: attribute '{p['name']}' needs a value")
            v = p["default"]
            if isinstance(v, str) and p["type"] == "FLOAT":
                v = float(v)
        attrs[p["name"]] = list(v) if isinstance(v, (list, tuple)) else v
    if cast_to is not None:
        inputs = [(n, x.astype(cast_to) if isinstance(x, np.ndarray) else x) for n, x in inputs]
    return Prepared(record, inputs, attrs)


def oxs_call(case: Case, torch_outs: list) -> tuple:
    """(function name run, outputs) of the library on the evaluator."""
    call = prepare(case, torch_outs)
    entry = next(e for e in _registry.entries() if e.name == call.record["function"])
    given = [v for _, v in call.inputs if v is not None]
    if not call.omitted:
        # Positionally in parameter order (ATen parameters may be named self).
        values = {**dict(call.inputs), **call.attrs}
        out = entry.function(*[values[p["name"]] for p in call.record["params"]])
        outs = list(out) if isinstance(out, tuple) else [out]
        return entry.name, outs
    unit = _variant_unit(entry.name)
    outs = unit.call(call.function, given, call.attrs, False)[0]
    return call.function, [np.asarray(o) for o in outs]


def check_outputs(case: Case, name: str, got: list, expected: list):
    assert len(got) == len(expected), f"{name}: {len(got)} outputs, torch gives {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        where = f"{case.id} via {name}, output {k}"
        assert g.dtype == e.dtype, f"{where}: element type {g.dtype}, torch {e.dtype}"
        assert g.shape == e.shape, f"{where}: shape {g.shape}, torch {e.shape}"
        if case.values:
            np.testing.assert_allclose(g, e, rtol=case.rtol, atol=case.atol, err_msg=where)


def compare(case: Case):
    """Runs both sides and checks types, shapes and values."""
    load_manifest()
    expected = torch_call(case)
    name, got = oxs_call(case, expected)
    check_outputs(case, name, got, expected)
    return name
