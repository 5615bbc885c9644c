"""The compiled library (aten_library.onnx) as the exporter will use it: for
every row of the table, a one-node model calls the chosen function (or the
variant without the omitted inputs) from the library's domain with every
attribute given (IR 8 functions hold no defaults), runs on oxs's evaluator
and matches torch eager. Tensor[] inputs are built with SequenceConstruct."""

from __future__ import annotations

import pathlib

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import oxs
from harness import ONNX_TYPES, check_outputs, load_manifest, prepare, torch_call
from oxs.torch.aten import _registry
from table import CASES

LIBRARY = pathlib.Path(oxs.__file__).parent / "torch" / "aten_library.onnx"


@pytest.fixture(scope="module")
def library():
    assert LIBRARY.is_file(), f"{LIBRARY} is missing: build the target oxs_torch_aten_library"
    load_manifest()
    return onnx.load(str(LIBRARY))


def _attribute(name, value, kind):
    if kind == "FLOAT":
        return oh.make_attribute(name, float(value))
    if kind in ("INT", "BOOL"):
        return oh.make_attribute(name, int(value))
    if kind in ("INTS", "FLOATS"):
        # Built by hand: make_attribute cannot type an empty list.
        a = onnx.AttributeProto(name=name)
        if kind == "INTS":
            a.type = onnx.AttributeProto.INTS
            a.ints.extend(int(v) for v in value)
        else:
            a.type = onnx.AttributeProto.FLOATS
            a.floats.extend(float(v) for v in value)
        return a
    return oh.make_attribute(name, value)


def call_model(library, call, expected):
    """A model whose graph is one call of the library function."""
    params = {p["name"]: p for p in call.record["params"]}
    nodes, graph_inputs, feeds, args = [], [], {}, []
    for name, value in call.inputs:
        if value is None:
            continue
        if isinstance(value, list):
            parts = []
            for k, part in enumerate(value):
                n = f"{name}_{k}"
                graph_inputs.append(oh.make_tensor_value_info(
                    n, ONNX_TYPES[part.dtype][0], list(part.shape)))
                feeds[n] = part
                parts.append(n)
            nodes.append(oh.make_node("SequenceConstruct", parts, [name]))
        else:
            value = np.asarray(value)
            graph_inputs.append(oh.make_tensor_value_info(
                name, ONNX_TYPES[value.dtype][0], list(value.shape)))
            feeds[name] = value
        args.append(name)
    outs = [f"out{k}" for k in range(len(expected))]
    node = oh.make_node(call.function, args, outs, domain=_registry.DOMAIN)
    node.attribute.extend(_attribute(k, v, params[k]["type"]) for k, v in call.attrs.items())
    nodes.append(node)
    graph = oh.make_graph(nodes, "call", graph_inputs, [
        oh.make_tensor_value_info(o, ONNX_TYPES[e.dtype][0], None) for o, e in zip(outs, expected)])
    model = oh.make_model(graph, opset_imports=list(library.opset_import),
                          functions=list(library.functions))
    model.ir_version = library.ir_version
    return model, feeds, outs


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_library_call_matches_torch(library, case):
    expected = torch_call(case)
    call = prepare(case, expected)
    model, feeds, outs = call_model(library, call, expected)
    got = oxs.run(oxs.from_onnx(model), feeds)
    check_outputs(case, call.function, [got[o] for o in outs], expected)
