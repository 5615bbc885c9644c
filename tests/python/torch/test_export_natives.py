"""Native C++ functions added for the models (gelu, stack, unbind,
unsafe_split, transpose_, zeros/ones/full/new_*), each against torch eager on
the oxs evaluator, with the native chosen over the library's function where
both exist."""

import pytest
import torch

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_oxs


class Lambda(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


CASES = {
    "gelu_erf": (lambda x: torch.nn.functional.gelu(x), "aten::gelu.default", {"Erf"}),
    "gelu_tanh": (lambda x: torch.nn.functional.gelu(x, approximate="tanh"), "aten::gelu.default",
                  {"Tanh"}),
    "stack_last": (lambda x: torch.stack([x, x * 2, x + 1], dim=-1), "aten::stack.default",
                   {"Unsqueeze", "Concat"}),
    "unbind": (lambda x: sum(t * (i + 1) for i, t in enumerate(torch.unbind(x, 1))),
               "aten::unbind.int", {"Split", "Squeeze"}),
    "unsafe_split": (lambda x: x.unsafe_split(2, 1)[1] * 3, "aten::unsafe_split.Tensor", {"Split"}),
    "transpose_": (lambda x: (x + 1).transpose_(0, 1), "aten::transpose_.default", {"Transpose"}),
    "new_full": (lambda x: x + x.new_full((2, 4), 1.5), "aten::new_full.default", {"Add"}),
    "ones": (lambda x: x + torch.ones(2, 4), "aten::ones.default", {"Add"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_native_function_matches_torch(name):
    f, target, ops = CASES[name]
    m = Lambda(f)
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    model, decisions = oxs.torch.export(m, (x,), explain=True)
    d = next(d for d in decisions if d["target"] == target)
    winner = next(c for c in d["candidates"] if c["name"] == d["winner"])
    assert winner["kind"] == "native", d
    assert ops <= {n.op_type for n in model.graph.nodes}
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, name)

