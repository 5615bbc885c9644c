"""The exporter and the compiled ATen library (aten_library.onnx, built at
build time): functions and manifest come from the artifact (nothing is
compiled at export), the library's calling conventions (an omitted optional
input selects the `__without_` variant, an omitted attribute gets the
manifest's default, Scalar as a float attribute, ScalarType roles, type
promotion), and the rule when a native C++ function and a library function
both fit (the native wins)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import oxs
import oxs.torch
from oxs.torch import _library
from torch_helpers import assert_close, eager, run_oxs


class Small(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(x) * 3


def test_export_loads_the_library_artifact_and_compiles_nothing():
    code = ("import sys, torch, oxs.torch\n"
            "oxs.torch.export(torch.nn.Hardswish(), (torch.randn(2, 3),))\n"
            "from oxs.torch import _library\n"
            "print(_library.load_library().path.name)\n"
            "print(sorted(m for m in sys.modules if m.startswith('oxs.torch.aten')))\n")
    env = dict(os.environ)
    env.pop("OXS_ATEN_LIBRARY", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "aten_library.onnx"
    assert out[1] == "[]", out[1]  # the library's .py modules were never imported


def test_a_missing_library_artifact_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("OXS_ATEN_LIBRARY", str(tmp_path / "nowhere.onnx"))
    with pytest.raises(oxs.torch.ExportError, match="nowhere.onnx is missing: build it"):
        oxs.torch.export(Small(), (torch.randn(2, 3),), path=tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


def test_a_file_without_the_manifest_is_refused(monkeypatch, tmp_path):
    other = tmp_path / "other.onnx"
    oxs.save(oxs.torch.export(Small(), (torch.randn(2, 3),)), str(other))
    monkeypatch.setenv("OXS_ATEN_LIBRARY", str(other))
    with pytest.raises(oxs.torch.ExportError, match="has no 'oxs.aten.manifest' metadata"):
        oxs.torch.export(Small(), (torch.randn(2, 3),))


def test_only_the_called_functions_are_added():
    model = oxs.torch.export(Small(), (torch.randn(2, 3),), modules_as_functions=True)
    assert sorted(f.name for f in model.functions) == ["aten_mul", "aten_sigmoid"]


class ClampBelow(torch.nn.Module):
    def forward(self, x, lo):
        return torch.clamp(x, min=lo)  # aten::clamp.Tensor with max None


class GroupNormNoAffine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.GroupNorm(2, 4, affine=False)

    def forward(self, x):
        return self.norm(x)  # native_group_norm with weight and bias None


@pytest.mark.parametrize("make, args, variant", [
    (ClampBelow, (torch.randn(3, 4), torch.zeros(3, 4)), "aten_clamp_tensor__without_max"),
    (GroupNormNoAffine, (torch.randn(2, 4, 3),), "aten_native_group_norm__without_weight_bias"),
], ids=["clamp_without_max", "group_norm_without_weight_and_bias"])
def test_a_none_optional_input_calls_the_without_variant(make, args, variant):
    m = make().eval()
    model = oxs.torch.export(m, args, modules_as_functions=True)
    assert variant in {f.name for f in model.functions}
    feeds = dict(zip([i.name for i in model.graph.inputs], args))
    assert_close(run_oxs(model, feeds), eager(m, *args), 1e-5, variant)


class Conventions(torch.nn.Module):
    def forward(self, x, y, n):
        a = torch.add(x, y, alpha=2)                 # Scalar alpha: an int given as a float
        b = x.sum(dim=1, dtype=torch.float64)        # ScalarType "cast_input": Cast, then sum
        c = torch.full_like(x, 2.5) + x              # ScalarType "result": dtype None -> float
        d = torch.ones_like(x, dtype=torch.int64)    # ScalarType "result": given
        e = x * n                                    # promotion: float * int64 tensor
        f = torch.nn.functional.leaky_relu(x)        # attribute left out: manifest default
        return a, b, c, d, e, f


def test_scalar_and_scalar_type_conventions_and_promotion_match_torch():
    m = Conventions()
    args = (torch.randn(3, 4), torch.randn(3, 4), torch.tensor([1, 2, 3, 4]))
    model = oxs.torch.export(m, args)
    feeds = dict(zip([i.name for i in model.graph.inputs], args))
    got = run_oxs(model, feeds)
    want = eager(m, *args)
    assert [g.dtype for g in got] == [w.dtype for w in want]
    assert got[1].dtype == np.float64 and got[3].dtype == np.int64
    assert_close(got, want, 1e-5, "conventions")


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def test_a_native_function_wins_over_the_library_when_both_fit():
    _, decisions = oxs.torch.export(MLP().eval(), (torch.randn(2, 4),), explain=True)
    addmm = next(d for d in decisions if d["target"] == "aten::addmm.default")
    kinds = {c["name"]: c for c in addmm["candidates"]}
    assert kinds["aten_addmm"]["fits"] and kinds["aten_addmm"]["kind"] == "script"
    winner = next(c for c in addmm["candidates"] if c["name"] == addmm["winner"])
    assert winner["kind"] == "native"
    assert "shape-dependent lowering wins" in kinds["aten_addmm"]["why_lost"]


def test_a_library_function_fills_in_where_no_native_exists():
    _, decisions = oxs.torch.export(Small(), (torch.randn(2, 3),), explain=True)
    sig = next(d for d in decisions if d["target"] == "aten::sigmoid.default")
    assert sig["winner"] == "aten_sigmoid"
    assert [c["kind"] for c in sig["candidates"]] == ["script"]


class DivModes(torch.nn.Module):
    def forward(self, a, b):
        return torch.div(a, b, rounding_mode="floor") - torch.div(a, b, rounding_mode="trunc")


def test_a_string_attribute_branch_folds_to_the_taken_branch():
    # aten_div_mode compares its rounding_mode string: after inlining, the
    # comparison (ai.onnx.ml LabelEncoder) and the If on it fold away.
    m = DivModes()
    model = oxs.torch.export(m, (torch.randn(6), torch.randn(6)), opset=18)
    ops = [n.op_type for n in model.graph.nodes]
    assert "If" not in ops and "LabelEncoder" not in ops, ops
    a, b = torch.randn(6) * 10, torch.randn(6)
    assert_close(run_oxs(model, {"a": a, "b": b}), eager(m, a, b), 1e-5, "div modes")
    import onnx
    onnx.checker.check_model(onnx.load_from_string(model.to_bytes()), full_check=True)
