"""User functions for custom ops (oxs.torch.register) and the dispatcher's
choice among candidates by input element type."""

import numpy as np
import pytest
import torch

import oxs
import oxs.torch
from oxs import FLOAT, INT64, script
from oxs.onnx_opset import opset18 as op

_lib = torch.library.Library("oxstest", "DEF")
_lib.define("twice(Tensor x) -> Tensor")
_lib.impl("twice", lambda x: x * 2, "CPU")
_lib.impl("twice", lambda x: torch.empty_like(x), "Meta")  # for fake-tensor tracing


class Twice(torch.nn.Module):
    def forward(self, x):
        return torch.ops.oxstest.twice(x) + 1


@script(default_opset=op)
def twice_float(x: FLOAT[...]) -> FLOAT[...]:
    return op.Add(x, x)


@script(default_opset=op)
def twice_int(x: INT64[...]) -> INT64[...]:
    return op.Mul(x, op.Constant(value_int=2))


def test_custom_op_without_function_is_reported():
    with pytest.raises(oxs.torch.ExportError, match="oxstest::twice.default at node 'twice' in "
                                                    "<root> \\(Twice\\): no function registered"):
        oxs.torch.export(Twice(), (torch.randn(3),))


@pytest.mark.parametrize("dtype,winner,op_type", [(torch.float32, "twice_float", "Add"),
                                                   (torch.int64, "twice_int", "Mul")])
def test_candidates_are_chosen_by_element_type(user_registry, dtype, winner, op_type):
    oxs.torch.register("oxstest::twice.default", twice_float)
    oxs.torch.register("oxstest::twice.default", twice_int)
    x = (torch.randn(5) * 10).to(dtype)
    model, decisions = oxs.torch.export(Twice(), (x,), explain=True)
    d = next(d for d in decisions if d["target"] == "oxstest::twice.default")
    assert d["winner"] == winner
    loser = next(c for c in d["candidates"] if c["name"] != winner)
    assert not loser["fits"] and "rejected: 'x' is" in loser["why_lost"], loser
    assert [n.op_type for n in model.graph.nodes][0] == op_type
    got = oxs.run(model, {"x": x.numpy()})["output"]
    np.testing.assert_array_equal(got, Twice()(x).numpy())


def test_register_checks_its_arguments():
    with pytest.raises(ValueError, match="overload name"):
        oxs.torch.register("twice", twice_float)
    with pytest.raises(TypeError, match="@script"):
        oxs.torch.register("oxstest::twice.default", 3)  # plain functions are trace-only


@script(default_opset=op)
def twice_by_reduce(x: FLOAT[...]) -> FLOAT[...]:
    # ReduceMean-18 takes its axes as an input; opset 17's ReduceMean-13 does not.
    return op.Add(x, x) + op.ReduceMean(x, op.Constant(value_ints=[0]), keepdims=1) * 0.0


def test_a_function_using_ops_that_differ_at_the_export_opset_is_refused(user_registry):
    oxs.torch.register("oxstest::twice.default", twice_by_reduce)
    x = torch.randn(4)
    model = oxs.torch.export(Twice(), (x,), opset=18)
    np.testing.assert_allclose(oxs.run(model, {"x": x.numpy()})["output"], Twice()(x).numpy())
    with pytest.raises(oxs.torch.ExportError,
                       match="'twice_by_reduce' is written for opset 18 and uses ReduceMean-18, "
                             "which opset 17 defines differently \\(ReduceMean-13\\)"):
        oxs.torch.export(Twice(), (x,), opset=17)
