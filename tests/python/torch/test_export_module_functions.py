"""modules_as_functions with nn.Module classes: every call of a chosen
module becomes one call of a model-local function (domain 'oxs.modules'),
one function per class and distinct body; weights stay initializers passed
in as inputs; chosen modules inside chosen modules nest as calls. Checked on
resnet18's BasicBlocks (onnx's checker at opset 17, torch eager on the oxs
evaluator with a dynamic batch, and ONNX Runtime) and a small nested model; bad entries are
clear errors."""

import onnx
import pytest
import torch
import torchvision

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_ort, run_oxs

DOMAIN = "oxs.modules"


def module_calls(graph):
    return [n for n in graph.nodes if n.domain == DOMAIN]


def resnet18():
    torch.manual_seed(0)
    m = torchvision.models.resnet18().eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.normal_(0, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
    return m


@pytest.mark.parametrize("entry", [torchvision.models.resnet.BasicBlock, "BasicBlock"])
def test_resnet18_basic_blocks_become_local_functions(entry):
    m = resnet18()
    model = oxs.torch.export(m, (torch.randn(2, 3, 224, 224),), dynamic_shapes=({0: "N"},),
                             opset=17, modules_as_functions={entry})
    calls = module_calls(model.graph)
    blocks = [f for f in model.functions if f.domain == DOMAIN]
    # 8 blocks; layer1's two have the same body (64 channels, 56x56, no
    # downsample), every other block differs in shapes or a downsample.
    assert len(calls) == 8, [n.op_type for n in calls]
    assert len(blocks) == 7, [f.name for f in blocks]
    assert {n.op_type for n in calls} == {f.name for f in blocks}
    assert all(f.name.startswith("BasicBlock") for f in blocks)
    assert calls[0].op_type == calls[1].op_type
    # No convolution is left in the main graph but the stem's; the blocks'
    # weights are initializers passed to the calls.
    assert sum(n.op_type == "Conv" for n in model.graph.nodes) == 1
    initializers = set(model.graph.initializers)
    assert "layer1.0.conv1.weight" in initializers
    assert "layer1.0.conv1.weight" in {v.name for v in calls[0].inputs}
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    for n in (1, 3):
        x = torch.randn(n, 3, 224, 224)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-3, f"resnet18 blocks batch {n}")
    assert_close(run_ort(model.to_bytes(), {"x": x.numpy()}), eager(m, x), 1e-3,
                 "resnet18 blocks on onnxruntime")


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.lin(x)) + x


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Inner()
        self.b = Inner()

    def forward(self, x):
        return self.b(self.a(x)) * 2


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Outer()
        self.second = Outer()

    def forward(self, x):
        return self.second(self.first(x)).sum(-1)


def test_nested_chosen_modules_nest_as_calls():
    torch.manual_seed(0)
    m = Net().eval()
    x = torch.randn(3, 4)
    model = oxs.torch.export(m, (x,), opset=17, modules_as_functions=[Outer, Inner])
    calls = module_calls(model.graph)
    assert [n.op_type for n in calls] == ["Outer", "Outer"]
    funcs = {f.name: f for f in model.functions if f.domain == DOMAIN}
    assert set(funcs) == {"Outer", "Inner"}
    inner_calls = [n for n in funcs["Outer"].body.nodes if n.domain == DOMAIN]
    assert [n.op_type for n in inner_calls] == ["Inner", "Inner"]
    assert "first.a.lin.weight" in set(model.graph.initializers)
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, "nested modules")


@pytest.mark.parametrize("option, message", [
    ({int}, "int'>, which is not an nn.Module class nor a class name"),
    ({"Nope"}, "names Nope, of which the model has no module"),
    ("Inner", "is not True/False nor a collection"),
])
def test_bad_modules_as_functions_is_a_clear_error(option, message):
    with pytest.raises(oxs.torch.ExportError, match=message.replace("(", r"\(")):
        oxs.torch.export(Net().eval(), (torch.randn(3, 4),), modules_as_functions=option)


class Mish(torch.nn.Module):
    def forward(self, x):
        # softplus and tanh come from the ATen library (ONNX Script functions).
        return torch.nn.functional.mish(torch.div(x, 2.0, rounding_mode="floor") + x)


class TwoMish(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = Mish(), Mish()

    def forward(self, x):
        return self.b(torch.sigmoid(self.a(x)))


def test_library_functions_are_inlined_into_module_functions():
    m = TwoMish()
    model = oxs.torch.export(m, (torch.randn(2, 5),), opset=18, modules_as_functions={Mish})
    assert [f.domain for f in model.functions] == [DOMAIN], [f.name for f in model.functions]
    assert len(module_calls(model.graph)) == 2
    body_domains = {n.domain for f in model.functions for n in f.body.nodes}
    main_domains = {n.domain for n in model.graph.nodes}
    assert body_domains <= {"", "ai.onnx.ml"} and main_domains <= {"", DOMAIN}, \
        (body_domains, main_domains)
    onnx.checker.check_model(model.to_onnx(), full_check=True)
    x = torch.randn(2, 5) * 4
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, "two mish modules")
    assert_close(run_ort(model.to_bytes(), {"x": x.numpy()}), eager(m, x), 1e-5,
                 "two mish modules on onnxruntime")
