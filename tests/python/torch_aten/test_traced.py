"""Trace-only functions (oxs.torch.traced, oxs/torch/_trace_only.py) through
the exporter: each row of traced_table.py as a one-op model, checked to be
taken by a specialization of the row's trace-only function, and compared
with torch eager on oxs's evaluator and on ONNX Runtime. Also the mechanism:
specializations are shared by equal nodes, a user's trace-only function
(oxs.torch.register) wins, a function may decline, and a failing one names
the node."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
import torch

import oxs
import oxs.torch
import harness
from harness import DT, TORCH_TYPES, check_outputs
from oxs.onnx_opset import opset18 as op
from oxs.torch import _library, _trace_only
from traced_table import FIRST_OUTPUT_ONLY, FIRST_OUTPUTS, TRACED


class _Call(torch.nn.Module):
    """torch.ops.aten.<op>.<overload> on the row's arguments; arrays (also
    inside lists) are the forward's inputs."""

    def __init__(self, case):
        super().__init__()
        name, overload = case.overload.split("::")[1].split(".")
        self.fn = getattr(getattr(torch.ops.aten, name), overload)
        self.case = case

    def forward(self, *tensors):
        it = iter(tensors)

        def take(a):
            if isinstance(a, np.ndarray):
                return next(it)
            if isinstance(a, list) and any(isinstance(x, np.ndarray) or x is None for x in a) \
                    and any(isinstance(x, np.ndarray) for x in a):
                return [take(x) if x is not None else None for x in a]
            if isinstance(a, DT):
                return TORCH_TYPES[np.dtype(a.dtype)]
            return a
        args = [take(a) for a in self.case.args]
        kwargs = {k: take(v) for k, v in self.case.kwargs.items()}
        out = self.fn(*args, **kwargs)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _arrays(case):
    out = []
    for a in list(case.args) + list(case.kwargs.values()):
        if isinstance(a, np.ndarray):
            out.append(a)
        elif isinstance(a, list):
            out.extend(x for x in a if isinstance(x, np.ndarray))
    return out


def _direct_model(case, expected):
    """The row's trace-only function run in a GraphBuilder of its own (for
    overloads torch decomposes before the exporter's recorder sees them:
    var.dim, avg_pool1d, scaled_dot_product_attention, ...)."""
    entry = _trace_only._LIBRARY[case.overload][0]
    name, overload = case.overload.split("::")[1].split(".")
    schema = getattr(getattr(torch.ops.aten, name), overload)._schema
    names = [a.name for a in schema.arguments]
    b = oxs.GraphBuilder(opset=18)
    counter = iter(range(100))

    def value(a):
        if isinstance(a, np.ndarray):
            return b.input(f"in{next(counter)}", a.dtype, list(a.shape))
        if isinstance(a, list) and any(isinstance(x, np.ndarray) for x in a):
            return [value(x) if x is not None else None for x in a]
        if isinstance(a, DT):
            return harness.ONNX_TYPES[np.dtype(a.dtype)][0]
        return a
    kwargs = {names[i]: value(a) for i, a in enumerate(case.args)}
    kwargs.update({k: value(v) for k, v in case.kwargs.items()})
    info = _trace_only.NodeInfo(case.overload, case.overload,
                                tuple(harness.ONNX_TYPES[np.dtype(e.dtype)][0] for e in expected),
                                tuple(e.ndim for e in expected), 18)
    _trace_only._CURRENT.append(info)
    oxs._eager_op.GRAPH_BUILDERS.append(b)
    try:
        out = entry.function(**kwargs)
    finally:
        _trace_only._CURRENT.pop()
        oxs._eager_op.GRAPH_BUILDERS.pop()
    for k, v in enumerate(out if isinstance(out, tuple) else (out,)):
        b.output(v, f"out{k}")
    return b.finish()


@pytest.mark.parametrize("case", TRACED, ids=[c.id for c in TRACED])
def test_traced_function_matches_torch(case):
    arrays = _arrays(case)
    inputs = tuple(torch.from_numpy(a.copy()) for a in arrays)
    model = _Call(case)
    with torch.no_grad():
        raw = model(*[t.clone() for t in inputs])
    expected = [o.numpy() if o is not None else None for o in raw]
    try:
        onnx_model, decisions = oxs.torch.export(model, inputs, explain=True)
        targets = [d["target"] for d in decisions]
    except oxs.torch.ExportError as e:
        if case.overload in str(e):
            raise
        targets = []  # what torch decomposed the op into fails elsewhere
    if not any(t.split("@")[0] == case.overload for t in targets):
        # torch decomposed the op before the recorder saw it: run the function alone
        onnx_model = _direct_model(case, expected)
    else:
        assert any(t.startswith(case.overload + "@") for t in targets), (
            f"{case.id}: no trace-only specialization took the node: {targets}")
    if case.overload in FIRST_OUTPUT_ONLY:
        expected = expected[:1]
    expected = expected[:FIRST_OUTPUTS.get(case.overload, len(expected))]
    assert all(e is not None for e in expected), case.id
    feeds = {v.name: a for v, a in zip(onnx_model.graph.inputs, arrays)}
    names = [v.name for v in onnx_model.graph.outputs][:len(expected)]
    out = oxs.run(onnx_model, feeds)
    check_outputs(case, "oxs", [out[n] for n in names], expected)
    sess = onnxruntime.InferenceSession(onnx_model.to_bytes(), providers=["CPUExecutionProvider"])
    check_outputs(case, "onnxruntime", sess.run(names, feeds), expected)


# ---------------------------------------------------------------- the mechanism


class _TwoIndex(torch.nn.Module):
    def forward(self, x, i, j):
        return x[:, i] + x[:, j], x[i]


def test_equal_nodes_share_one_specialization():
    x, i = torch.randn(3, 4), torch.tensor([0, 2])
    m = oxs.torch.export(_TwoIndex(), (x, i, torch.tensor([1, 3])),
                         modules_as_functions=True)
    traced = sorted(f.name for f in m.functions if f.domain == _trace_only.DOMAIN)
    # x[:, i] and x[:, j] share one; x[i] (another axis) has its own.
    assert traced == ["traced_index_0", "traced_index_1"], traced
    ref = _TwoIndex()(x, i, torch.tensor([1, 3]))
    out = oxs.run(m, {"x": x.numpy(), "i": i.numpy(), "j": np.array([1, 3])})
    for got, want in zip(out.values(), ref):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)


@pytest.fixture
def user_registry():
    saved = dict(_trace_only._USER)
    yield
    _trace_only._USER.clear()
    _trace_only._USER.update(saved)


def test_a_users_trace_only_function_wins(user_registry):
    calls = []

    def my_relu(self):
        calls.append(self.rank)
        return op.Mul(op.Relu(self), 2.0)  # a visible difference

    oxs.torch.register("aten::relu.default", my_relu)
    x = torch.randn(2, 3)
    m = oxs.torch.export(torch.nn.ReLU(), (x,))
    out = list(oxs.run(m, {m.graph.inputs[0].name: x.numpy()}).values())[0]
    np.testing.assert_allclose(out, 2 * torch.relu(x).numpy(), rtol=1e-6)
    assert calls == [2]


def test_a_declining_function_leaves_the_node_to_the_library(user_registry):
    oxs.torch.register("aten::relu.default", lambda self: NotImplemented)
    x = torch.randn(2, 3)
    m, decisions = oxs.torch.export(torch.nn.ReLU(), (x,), explain=True)
    assert decisions[0]["target"] == "aten::relu.default"
    out = list(oxs.run(m, {m.graph.inputs[0].name: x.numpy()}).values())[0]
    np.testing.assert_allclose(out, torch.relu(x).numpy())


def test_a_failing_function_names_the_node(user_registry):
    def broken(self):
        raise ValueError("no such luck")

    oxs.torch.register("aten::relu.default", broken)
    with pytest.raises(oxs.torch.ExportError, match=r"node 'relu' \(aten::relu.default\).*"
                                                    r"trace-only function broken failed: "
                                                    r"ValueError: no such luck"):
        oxs.torch.export(torch.nn.ReLU(), (torch.randn(2),))


def test_register_rejects_what_is_not_a_function():
    with pytest.raises(TypeError, match="trace-only Python function"):
        _library.register("aten::relu.default", 3)


def test_op_on_builder_values_adds_nodes():
    b = oxs.GraphBuilder(opset=18)
    x = b.input("x", np.float32, [2, None])
    y = op.Add(x, 1)  # a Python number takes x's element type
    assert isinstance(y, oxs._core.BuilderValue) and y.dtype == 1 and y.rank == 2
    assert y.shape == (2, None)
    b.output(op.Relu(y), "y")
    m = b.finish()
    out = oxs.run(m, {"x": np.array([[-3.0, 0.5], [1.0, -1.0]], np.float32)})["y"]
    np.testing.assert_allclose(out, [[0.0, 1.5], [2.0, 0.0]])


class _Reductions(torch.nn.Module):
    def forward(self, x):
        return torch.amax(x, [1]), x.var(dim=1), x.any(dim=0)


@pytest.mark.parametrize("opset", [17, 18])
def test_trace_only_reductions_follow_the_export_opset(opset):
    """Written for opset 18 (Reduce* axes as an input); at 17 the graph-mode
    op call passes constant axes as the attribute."""
    x = torch.randn(3, 5)
    m = oxs.torch.export(_Reductions(), (x,), opset=opset)
    reduce_max = next(n for n in m.graph.nodes if n.op_type == "ReduceMax")
    assert len(reduce_max.inputs) == (2 if opset >= 18 else 1)
    out = oxs.run(m, {"x": x.numpy()})
    for got, want in zip(out.values(), _Reductions()(x)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5)


def test_a_before_native_function_declines_what_the_native_does():
    """_adaptive_avg_pool2d: the native AveragePool lowering for windows of
    one size; the trace-only function (before_native) for the others."""
    pool = torch.nn.AdaptiveAvgPool2d((2, 3))
    _, even = oxs.torch.export(pool, (torch.randn(1, 2, 4, 6),), explain=True)
    assert even[0]["target"] == "aten::_adaptive_avg_pool2d.default"
    assert even[0]["winner"].startswith("_adaptive_avg_pool2d (")  # the native
    x = torch.randn(1, 2, 5, 7)
    m, uneven = oxs.torch.export(pool, (x,), explain=True)
    assert uneven[0]["target"] == "aten::_adaptive_avg_pool2d.default@traced_adaptive_avg_pool2d_0"
    out = list(oxs.run(m, {m.graph.inputs[0].name: x.numpy()}).values())[0]
    np.testing.assert_allclose(out, pool(x).numpy(), rtol=1e-5, atol=1e-6)
