"""dynamic_shapes in torch.export's forms (Dim, Dim.AUTO / DYNAMIC, dicts by
argument name, per-dim lists, nested inputs) and symbolic sizes that follow
torch's SymInts: several dynamic dims in one view, sizes computed from them,
all checked by numbers at other sizes than the example's, on oxs's evaluator
and ONNX Runtime."""

import os

import onnx
import pytest
import torch
from torch.export import Dim

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_ort, run_oxs


class Heads(torch.nn.Module):
    """Several dynamic dims in one view, and sizes computed from them."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x):
        b, n, c = x.shape
        y = self.proj(x.reshape(b * n, c)).view(b, n, 4, c // 4).transpose(1, 2)
        z = y.reshape(b, 4 * n, c // 4)  # 4 * n: an expression of a dynamic dim
        return z + torch.arange(4 * n, dtype=z.dtype).view(1, -1, 1)


def heads():
    torch.manual_seed(0)
    return Heads().eval()


def check_sizes(m, model, sizes, atol=1e-5):
    names = [v.name for v in model.graph.inputs]
    for shape in sizes:
        x = torch.randn(*shape)
        assert_close(run_oxs(model, {names[0]: x}), eager(m, x), atol, f"oxs {shape}")
        assert_close(run_ort(model.to_bytes(), {names[0]: x.numpy()}), eager(m, x), atol,
                     f"onnxruntime {shape}")


@pytest.mark.parametrize("spec", [
    {"x": {0: Dim("batch"), 1: Dim("seq", min=2, max=64)}},
    ({0: "batch", 1: "seq"},),
    ([Dim("batch"), Dim("seq"), None],),
    {"x": (Dim.DYNAMIC, Dim.DYNAMIC, Dim.STATIC)},
    {"x": {0: Dim.AUTO, 1: Dim.AUTO}},
], ids=["dict-Dim", "shorthand", "list-per-dim", "DYNAMIC", "AUTO"])
def test_two_dynamic_dims_in_one_view(spec):
    m = heads()
    model = oxs.torch.export(m, (torch.randn(2, 6, 16),), dynamic_shapes=spec)
    assert oxs.torch.last_export_stats()["tracing_mode"] == "symbolic"
    dims = model.graph.inputs[0].shape
    assert [isinstance(d, str) for d in dims] == [True, True, False], dims
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    check_sizes(m, model, [(3, 5, 16), (1, 9, 16), (4, 2, 16)])


def test_auto_names_the_dims_after_the_input():
    model = oxs.torch.export(heads(), (torch.randn(2, 6, 16),),
                             dynamic_shapes={"x": {0: Dim.AUTO, 1: Dim.AUTO}})
    assert list(model.graph.inputs[0].shape) == ["x_dim0", "x_dim1", 16]


class Pair(torch.nn.Module):
    def forward(self, xs, scale):
        a, b = xs
        return (a * scale["s"]).sum(1) + b.mean(1)


def test_nested_inputs_take_nested_specs():
    m = Pair().eval()
    a, b, s = torch.randn(3, 4), torch.randn(3, 5), torch.randn(3, 4)
    spec = {"xs": ({0: Dim("n")}, {0: Dim("n")}), "scale": {"s": {0: Dim("n")}}}
    model = oxs.torch.export(m, ((a, b), {"s": s}), dynamic_shapes=spec)
    names = [v.name for v in model.graph.inputs]
    assert len(names) == 3
    for n in (1, 6):
        a, b, s = torch.randn(n, 4), torch.randn(n, 5), torch.randn(n, 4)
        feeds = dict(zip(names, (a, b, s)))
        assert_close(run_oxs(model, feeds), [m((a, b), {"s": s}).numpy()], 1e-5, f"n={n}")


class Branch(torch.nn.Module):
    def forward(self, x):
        return x + 1 if x.shape[0] == 4 else x - 1


class NeedsEven(torch.nn.Module):
    def forward(self, x):
        torch._check(x.shape[0] >= 4)
        return x * 2


def test_a_dim_the_model_makes_static_is_refused_with_the_guard(tmp_path):
    with pytest.raises(oxs.torch.ExportError, match=r"dynamic dim 'n' was made static \(= 4\).*Eq"):
        oxs.torch.export(Branch(), (torch.randn(4, 3),), path=tmp_path / "m.onnx",
                         dynamic_shapes={"x": {0: Dim("n")}})
    assert not os.listdir(tmp_path)


def test_auto_leaves_a_dim_the_model_needs_static():
    model = oxs.torch.export(Branch(), (torch.randn(4, 3),), dynamic_shapes={"x": {0: Dim.AUTO}})
    assert list(model.graph.inputs[0].shape) == [4, 3]
    x = torch.randn(4, 3)
    assert_close(run_oxs(model, {"x": x}), eager(Branch(), x), 0.0, "static 4")


def test_a_dim_range_the_model_narrows_is_refused(tmp_path):
    with pytest.raises(oxs.torch.ExportError, match=r"'n' takes \[1, 100\].*works only for \[4"):
        oxs.torch.export(NeedsEven(), (torch.randn(4, 3),), path=tmp_path / "m.onnx",
                         dynamic_shapes={"x": {0: Dim("n", min=1, max=100)}})
    assert not os.listdir(tmp_path)
    # The range the model states is accepted.
    model = oxs.torch.export(NeedsEven(), (torch.randn(4, 3),),
                             dynamic_shapes={"x": {0: Dim("n", min=4, max=100)}})
    x = torch.randn(7, 3)
    assert_close(run_oxs(model, {"x": x}), eager(NeedsEven(), x), 0.0, "n=7")


@pytest.mark.parametrize("spec,message", [
    ({"y": {0: "n"}}, "keyed by forward's argument names"),
    ({"x": {0: Dim("n", min=8)}}, "outside the range of Dim 'n'"),
    ({"x": [Dim("n")]}, "has 1 entries for a tensor of rank 3"),
    ({"x": {0: 2 * Dim("n")}}, "derived dim"),
])
def test_wrong_specs_are_refused(spec, message):
    with pytest.raises(oxs.torch.ExportError, match=message):
        oxs.torch.export(heads(), (torch.randn(2, 6, 16),), dynamic_shapes=spec)


class Slices(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = torch.nn.Parameter(torch.randn(1, 32, 8))

    def forward(self, x):
        n = x.shape[1]
        return (x + self.pos[:, :n] + x[:, 1:].sum(1, keepdim=True) +
                x[:, : n - 1].mean(1, keepdim=True))


def test_slices_bounded_by_dynamic_sizes():
    torch.manual_seed(0)
    m = Slices().eval()
    model = oxs.torch.export(m, (torch.randn(2, 5, 8),), dynamic_shapes=({0: "b", 1: "s"},))
    check_sizes(m, model, [(3, 3, 8), (1, 9, 8)])
