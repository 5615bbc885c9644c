"""oxs.torch.export end to end on a small MLP: numbers against torch eager,
onnx's checker, dynamic batch, explain, user functions and every error the
front end promises (nothing written on failure)."""

import os

import numpy as np
import onnx
import pytest
import torch

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_oxs


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.act = torch.nn.ReLU(inplace=True)
        self.fc2 = torch.nn.Linear(32, 8)
        self.clip = torch.nn.ReLU6()

    def forward(self, x):
        return self.clip(self.fc2(self.act(self.fc1(x))))


def mlp():
    torch.manual_seed(0)
    return MLP().eval()


@pytest.mark.parametrize("opset", [17, 18])
def test_mlp_matches_torch(opset):
    m = mlp()
    x = torch.randn(4, 16)
    model = oxs.torch.export(m, (x,), opset=opset)
    ops = [n.op_type for n in model.graph.nodes]
    assert ops == ["Gemm", "Relu", "Gemm", "Clip"], ops
    assert [o.name for o in model.graph.outputs] == ["output"]
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"mlp opset {opset}")
    oxs.check(model)
    if opset <= 17:  # onnx 1.12's checker knows opsets up to 17
        onnx.checker.check_model(model.to_onnx(), full_check=True)
    stats = oxs.torch.last_export_stats()
    assert stats["tracing_mode"] == "meta"
    for step in ("tracing", "handoff_py", "handoff", "dispatch", "build", "cleanup"):
        assert 0 <= stats[step] < 10, (step, stats)


def test_parameters_are_borrowed_not_copied():
    m = mlp()
    x = torch.randn(2, 16)
    model = oxs.torch.export(m, (x,))
    assert {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"} <= set(model.graph.initializers)
    # The initializers view the parameters' memory: a change made after the
    # export shows in the exported model.
    with torch.no_grad():
        m.fc2.bias.add_(0.25)
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, "after changing fc2.bias")


def test_dynamic_batch_runs_at_other_sizes():
    m = mlp()
    model = oxs.torch.export(m, (torch.randn(2, 16),), dynamic_shapes=({0: "batch"},))
    dims = model.graph.inputs[0].type
    assert "batch" in str(dims), dims
    for n in (3, 7):
        x = torch.randn(n, 16)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"batch {n}")


def test_explain_names_candidates_scores_and_winner():
    model, decisions = oxs.torch.export(mlp(), (torch.randn(2, 16),), explain=True)
    by_target = {}
    for d in decisions:
        by_target.setdefault(d["target"], d)
    addmm = by_target["aten::addmm.default"]
    assert addmm["winner"] == "addmm (Gemm)"
    assert addmm["module"] == "fc1 (Linear)"
    assert addmm["candidates"][0]["fits"] and addmm["candidates"][0]["score"] > 0
    relu = by_target["aten::relu_.default"]
    assert relu["looked_up"] == "aten::relu.default"
    assert "functional form" in relu["note"]
    assert relu["winner"] == "aten_relu" and relu["module"] == "act (ReLU)"
    assert by_target["aten::hardtanh.default"]["winner"] == "aten_hardtanh"


def test_user_function_overrides_library(user_registry):
    from oxs import script
    from oxs.onnx_opset import opset18 as op

    @script(default_opset=op)
    def my_relu(self):
        return op.Max(self, op.CastLike(0.0, self))

    oxs.torch.register("aten::relu.default", my_relu)
    m = mlp()
    x = torch.randn(3, 16)
    model, decisions = oxs.torch.export(m, (x,), explain=True)
    relu = next(d for d in decisions if d["target"] == "aten::relu_.default")
    assert relu["winner"] == "my_relu"
    loser = next(c for c in relu["candidates"] if c["name"] == "aten_relu")
    assert "user function" in loser["why_lost"]
    assert "Max" in [n.op_type for n in model.graph.nodes]
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, "user relu")


class Unsupported(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.digamma(torch.lgamma(self.fc(x))) + torch.lgamma(x)


def test_missing_ops_are_listed_once_and_nothing_is_written(tmp_path):
    path = tmp_path / "m.onnx"
    with pytest.raises(oxs.torch.ExportError) as e:
        oxs.torch.export(Unsupported(), (torch.randn(2, 4),), path=path)
    text = str(e.value)
    assert "3 node(s) have no ATen function" in text, text
    assert text.count("aten::lgamma.default") == 2 and "aten::digamma.default" in text
    assert "<root> (Unsupported)" in text
    assert not os.listdir(tmp_path)


class TupleOut(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x), x.shape[0]


class DataDependent(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return torch.relu(x)
        return x


def test_non_tensor_output_is_refused(tmp_path):
    with pytest.raises(oxs.torch.ExportError, match="output 1 of the model is 2 .*not a tensor"):
        oxs.torch.export(TupleOut(), (torch.randn(2, 3),), path=tmp_path / "m.onnx")
    assert not os.listdir(tmp_path)


def test_data_dependent_control_flow_is_refused(tmp_path):
    with pytest.raises(oxs.torch.ExportError, match="data-dependent control flow"):
        oxs.torch.export(DataDependent(), (torch.randn(2, 3),), path=tmp_path / "m.onnx")
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("spec,message", [
    ({0: "batch"}, "dict keyed by forward.s argument names"),
    (({0: "batch"}, None), "2 entries for 1 positional arguments"),
    (({2: "batch"},), "dim 2 of input 'x', which has rank 2"),
    (({0: "not a name"},), "is an identifier"),
])
def test_wrong_dynamic_shapes_are_refused(spec, message):
    x = torch.randn(2, 16)
    with pytest.raises(oxs.torch.ExportError, match=message):
        oxs.torch.export(mlp(), (x,), dynamic_shapes=spec)


def test_dynamic_dim_of_size_one_is_refused():
    with pytest.raises(oxs.torch.ExportError, match="example has size 1"):
        oxs.torch.export(mlp(), (torch.randn(1, 16),), dynamic_shapes=({0: "batch"},))


class WriteThroughView(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        y[:, 0].add_(1.0)
        return y


class ViewReadAfterItsBaseIsWritten(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        first = y[0]
        y.add_(1.0)
        return first


class InPlaceOnAViewNobodyReadsAgain(torch.nn.Module):
    def forward(self, x):
        return torch.relu_(torch.flatten(x, 1))


def test_write_through_a_view_is_refused_not_miscompiled():
    with pytest.raises(oxs.torch.ExportError, match="wrote into memory that another view of it reads later"):
        oxs.torch.export(WriteThroughView(), (torch.randn(2, 3),))


def test_view_read_after_its_base_is_written_is_refused():
    with pytest.raises(oxs.torch.ExportError, match="wrote into memory that another view"):
        oxs.torch.export(ViewReadAfterItsBaseIsWritten(), (torch.randn(2, 3),))


def test_in_place_op_on_a_view_whose_base_is_not_read_again_exports():
    x = torch.randn(2, 3, 2)
    model = oxs.torch.export(InPlaceOnAViewNobodyReadsAgain(), (x,))
    assert_close(run_oxs(model, {"x": x}), eager(InPlaceOnAViewNobodyReadsAgain(), x), 0, "relu_")
