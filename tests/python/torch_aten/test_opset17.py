"""The functions the issue's models need also export at opset 17 (the
exporter's default): they use no ai.onnx op that opset 18 redefined
(ReduceMean-18 and the other Reduce*-18 take axes as an input, Split-18,
Pad-18, Resize-18, ...), through every library function they call. Op
versions come from `oxs op NAME --opset N`."""

from __future__ import annotations

import functools
import os
import pathlib
import re
import subprocess

import onnx
import oxs
import pytest
from oxs.torch.aten import _registry

LIBRARY = pathlib.Path(oxs.__file__).parent / "torch" / "aten_library.onnx"
OXS = os.environ.get("OXS_BIN") or str(pathlib.Path(oxs.__file__).parents[2] / "oxs")

# Covered overloads make_fx gives for the models of docs/aten-coverage.md.
MODEL_OVERLOADS = [
    "aten::addmm.default", "aten::add.Tensor", "aten::mul.Tensor", "aten::sub.Tensor",
    "aten::div.Tensor", "aten::bmm.default", "aten::mm.default", "aten::t.default",
    "aten::cat.default", "aten::stack.default", "aten::clone.default", "aten::view.default",
    "aten::_unsafe_view.default", "aten::_reshape_alias.default", "aten::expand.default",
    "aten::permute.default", "aten::select.int", "aten::slice.Tensor", "aten::gelu.default",
    "aten::hardsigmoid.default", "aten::hardswish.default", "aten::relu.default",
    "aten::hardtanh.default", "aten::sigmoid.default", "aten::silu.default",
    "aten::tanh.default", "aten::_softmax.default", "aten::mean.dim",
    "aten::sum.dim_IntList", "aten::native_batch_norm.default",
    "aten::native_layer_norm.default", "aten::zeros.default", "aten::empty.memory_format",
]


@functools.lru_cache(maxsize=None)
def version(op_type: str, opset: int) -> int:
    r = subprocess.run([OXS, "op", op_type, "--opset", str(opset)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    m = re.match(rf"{op_type}-(\d+) ", r.stdout)
    assert m, r.stdout
    return int(m.group(1))


@pytest.fixture(scope="module")
def functions():
    assert pathlib.Path(OXS).is_file(), f"{OXS} is missing: build the target oxs"
    return {f.name: f for f in onnx.load(str(LIBRARY)).functions}


def ops_used(functions, name, seen=None):
    """(op_type) of ai.onnx used by a function and the library functions it
    calls, subgraphs included."""
    seen = set() if seen is None else seen
    if name in seen:
        return set()
    seen.add(name)
    out = set()

    def walk(nodes):
        for n in nodes:
            if n.domain == _registry.DOMAIN:
                out.update(ops_used(functions, n.op_type, seen))
            elif n.domain in ("", "ai.onnx"):
                out.add(n.op_type)
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g.node)
                for g in a.graphs:
                    walk(g.node)

    walk(functions[name].node)
    return out


@pytest.mark.parametrize("overload", MODEL_OVERLOADS)
def test_model_functions_export_at_opset_17(functions, overload):
    # Trace-only functions are built at export time for the export's opset.
    for entry in (e for e in _registry.candidates(overload) if not e.trace_only):
        changed = sorted(op for op in ops_used(functions, entry.name)
                         if version(op, 17) != version(op, 18))
        assert not changed, f"{entry.name} uses ops opset 18 redefined: {changed}"


def test_the_check_sees_a_redefined_op(functions):
    assert version("ReduceMean", 17) != version("ReduceMean", 18)
    assert "ReduceMax" in ops_used(functions, "aten_amax")
