"""The registry's rule: a library function's parameters are its ATen
schema's arguments, same names, same order; where the schema gives a
default other than None, the function's default is the same value; a
Tensor argument is an input, every other one an attribute."""

from __future__ import annotations

import pytest
import torch

from harness import load_manifest
from oxs.torch.aten import _registry

# Parameters a function has beyond its schema, each with why.
EXTRA = {
    # One function serves arange.start and arange.start_step: step (default 1)
    # is not an argument of arange.start.
    ("aten_arange_start", "aten::arange.start"): ["step"],
    # One function serves zeros and empty.memory_format (empty's values are
    # unspecified): memory_format is empty's.
    ("aten_zeros", "aten::zeros.default"): ["memory_format"],
}

# Scalar arguments a function takes as a graph input, each with why.
SCALAR_INPUTS = {
    # A symbolic trace passes a size that varies with the dynamic dims as a
    # value (torch2_front.py); the dispatcher picks it only then.
    ("aten_arange_dynamic", "end"),
}


def schema(overload):
    name, _, ov = overload.split("::", 1)[1].partition(".")
    return getattr(getattr(torch.ops.aten, name), ov)._schema


PAIRS = [(r, o) for r in load_manifest() if not r["trace_only"] for o in r["overloads"]]


@pytest.mark.parametrize("record,overload", PAIRS,
                         ids=[f"{o}->{r['function']}" for r, o in PAIRS])
def test_parameters_follow_the_schema(record, overload):
    args = schema(overload).arguments
    extra = EXTRA.get((record["function"], overload), [])
    params = [p for p in record["params"] if p["name"] not in extra]
    assert [p["name"] for p in params] == [a.name for a in args]
    for p, a in zip(params, args):
        tensor = str(a.type) in ("Tensor", "Optional[Tensor]", "List[Tensor]") or (
            (record["function"], p["name"]) in SCALAR_INPUTS)
        assert (p["kind"] == "input") == tensor, (p["name"], str(a.type))
        if p["kind"] == "input":
            assert p["optional"] == str(a.type).startswith("Optional"), p["name"]
            assert p["sequence"] == str(a.type).startswith("List"), p["name"]
        elif a.has_default_value() and a.default_value is not None:
            want = a.default_value
            got = p["default"]
            if isinstance(want, (list, tuple)):
                assert list(got) == list(want), p["name"]
            else:
                assert got == want, (p["name"], got, want)


def test_every_registered_overload_exists_in_torch():
    for o in _registry.overloads():
        assert schema(o) is not None, o
