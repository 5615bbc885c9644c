"""Tracing a PyTorch model to an ATen-level FX graph (torch 1.13: make_fx,
no dynamo).

The model runs under `make_fx(..., tracing_mode="fake")` in eval mode and
without autograd: parameters and buffers are passed in as inputs through
`torch.nn.utils.stateless.functional_call`, so every tensor the trace sees is
a FakeTensor and the real forward pass never computes (bench/RESULTS.md
compares real, fake and symbolic tracing). Each FX node records the module
path it was created under (forward hooks keep a stack; Graph.create_node is
wrapped for the duration of the trace) for error messages."""

from __future__ import annotations

import contextlib
import inspect

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless


class ExportError(Exception):
    """The model cannot be exported; the message says what, where, and what to do."""


@contextlib.contextmanager
def _module_paths(model):
    """Tags every FX node created inside with node.meta['oxs_module'] =
    'path (Class)' of the innermost module running."""
    stack = []
    handles = []
    for name, mod in model.named_modules():
        label = f"{name or '<root>'} ({type(mod).__name__})"

        def pre(_m, _inputs, label=label):
            stack.append(label)

        def post(_m, _inputs, _out):
            if stack:
                stack.pop()

        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
    original = torch.fx.Graph.create_node

    def create_node(self, *args, **kwargs):
        node = original(self, *args, **kwargs)
        node.meta["oxs_module"] = stack[-1] if stack else ""
        return node

    torch.fx.Graph.create_node = create_node
    try:
        yield
    finally:
        torch.fx.Graph.create_node = original
        for h in handles:
            h.remove()


def input_names(model, args, kwargs):
    """Names for the flattened tensor inputs: forward's parameter names
    (x, x_1 for the items of a tuple argument)."""
    try:
        params = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        params = []
    names = []

    def add(base, value):
        if isinstance(value, torch.Tensor):
            names.append(base)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                add(f"{base}_{i}", v)
        elif isinstance(value, dict):
            for k, v in value.items():
                add(f"{base}_{k}", v)

    for i, a in enumerate(args):
        add(params[i] if i < len(params) else f"input_{i}", a)
    for k, v in kwargs.items():
        add(k, v)
    return names


def trace(model, args, kwargs, mode="fake"):
    """(fx.GraphModule, parameter names in placeholder order). The graph's
    placeholders are the parameters and buffers first, then the flattened
    tensor inputs."""
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"export: model is a {type(model).__name__}, not a torch.nn.Module")
    model.eval()
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    names = list(state)

    def forward(state_values, args, kwargs):
        return stateless.functional_call(model, dict(zip(names, state_values)), args, kwargs)

    values = [t.detach() for t in state.values()]
    try:
        with torch.no_grad(), _module_paths(model):
            gm = make_fx(forward, tracing_mode=mode)(values, tuple(args), dict(kwargs))
    except torch._subclasses.fake_tensor.DynamicOutputShapeException as e:
        raise ExportError(
            f"export: {e} has an output shape that depends on the input's values; the trace "
            "cannot give it a static shape: compute it outside the model or avoid the op") from None
    except RuntimeError as e:
        if "data-dependent control flow" in str(e) or "value out of a tracing tensor" in str(e):
            raise ExportError(
                "export: the model reads a tensor's value while tracing (data-dependent control "
                "flow such as `if x.sum() > 0:` or `int(x)`); tracing records one path only: "
                "make the branch depend on shapes or Python values, or use torch.where") from None
        raise
    gm.graph.eliminate_dead_code()
    return gm, names
