"""oxs.torch.export: trace (Python), hand off once, dispatch and build (C++)."""

from __future__ import annotations

import os
import time
import warnings

import torch

from .. import _core
from .._model import save
from . import _handoff, _library, _modules, _trace, _trace_only
from ._trace import ExportError

_last_stats: dict = {}


def last_export_stats() -> dict:
    """Timings (seconds: tracing, handoff_py, handoff, dispatch, build, cleanup,
    save), the tracing mode used (meta, or fake when an op had no meta kernel)
    and warnings of the last export in this process."""
    return dict(_last_stats)


def _dynamic_symbols(dynamic_shapes, args, names):
    """{input position: {dim: symbol}} and {symbol: example size}, checked."""
    if dynamic_shapes is None:
        return {}, {}
    if isinstance(dynamic_shapes, dict):
        raise ExportError("export: dynamic_shapes is a tuple with one entry per positional "
                          "argument (None or {dim: 'name'}), e.g. ({0: 'batch'},)")
    if not isinstance(dynamic_shapes, (list, tuple)) or len(dynamic_shapes) != len(args):
        count = len(dynamic_shapes) if isinstance(dynamic_shapes, (list, tuple)) else "no"
        raise ExportError(f"export: dynamic_shapes has {count} entries for {len(args)} positional "
                          "arguments: give one per argument (None for a static one)")
    per_input, symbols = {}, {}
    for i, (spec, arg) in enumerate(zip(dynamic_shapes, args)):
        if spec is None:
            continue
        if not isinstance(arg, torch.Tensor):
            raise ExportError(f"export: dynamic_shapes[{i}] names dims of argument {i}, which is "
                              f"a {type(arg).__name__}, not a tensor")
        if not isinstance(spec, dict):
            raise ExportError(f"export: dynamic_shapes[{i}] is {spec!r}; write {{dim: 'name'}}")
        dims = {}
        for d, name in spec.items():
            if not isinstance(d, int) or isinstance(d, bool) or not -arg.dim() <= d < arg.dim():
                raise ExportError(f"export: dynamic_shapes[{i}] names dim {d!r} of input "
                                  f"'{names[i]}', which has rank {arg.dim()}")
            if not isinstance(name, str) or not name.isidentifier():
                raise ExportError(f"export: dynamic_shapes[{i}][{d}] is {name!r}; a dim's name "
                                  "is an identifier such as 'batch'")
            d = d % arg.dim()
            size = int(arg.shape[d])
            if size < 2:
                raise ExportError(f"export: dim {d} of input '{names[i]}' is dynamic ('{name}') "
                                  f"but the example has size {size}; trace with a size of 2 or "
                                  "more so that it is not mistaken for a broadcast dim")
            if symbols.setdefault(name, size) != size:
                raise ExportError(f"export: dynamic dim '{name}' has size {size} in input "
                                  f"'{names[i]}' and {symbols[name]} elsewhere in the example")
            dims[d] = name
        per_input[i] = dims
    return per_input, symbols


def _mark_dynamic_dims(model, args, kwargs, per_input, tracing, names, nodes):
    """Traces again with every dynamic dim one larger and marks, per node
    output, the dims that changed: those stay symbolic (a view's -1, an
    expand's 1). A graph that changes shape with the sizes is refused."""
    args2 = list(args)
    for pos, dims in per_input.items():
        shape = list(args[pos].shape)
        for d in dims:
            shape[d] += 1
        args2[pos] = torch.zeros(shape, dtype=args[pos].dtype)
    try:
        graph2, state2, _ = _trace.trace(model, tuple(args2), kwargs, mode=tracing)
        nodes2 = _handoff.build(graph2, state2, names)[2]
    except ExportError as e:
        raise ExportError(f"{e} (while tracing with every dynamic dim one larger)") from None
    except Exception as e:
        raise ExportError(f"export: the model fails when its dynamic dims are one larger than in "
                          f"the example ({type(e).__name__}: {e}); give an example whose dynamic "
                          "sizes can vary, or make those dims static") from None
    if [n[1] for n in nodes] != [n[1] for n in nodes2]:
        first = next((a, b) for a, b in zip(nodes + [None], nodes2 + [None]) if a is None or
                     b is None or a[1] != b[1])
        where = first[0] or first[1]
        raise ExportError(f"export: the traced graph changes with the dynamic dims (at node "
                          f"'{where[0]}' in {where[2] or '<root>'}): the model's structure depends "
                          "on those sizes; export with static shapes")
    out = []
    for n, n2 in zip(nodes, nodes2):
        outs = [o + ([a != b for a, b in zip(o[2], o2[2])],) for o, o2 in zip(n[4], n2[4])]
        out.append(n[:4] + (outs,))
    return out


def export(model, args, kwargs=None, path=None, dynamic_shapes=None, opset=18,
           modules_as_functions=False, explain=False, tracing="meta"):
    """Exports `model(*args, **kwargs)` to ONNX: an oxs.Model (and `path`,
    with tensors of 1 KiB and more in `<path>.data`). With explain=True
    returns (model, decisions): per node its candidates, scores, the winner
    and why the others lost. modules_as_functions: a set (or list) of
    nn.Module classes or class names: each call of such a module becomes one
    call of a model-local function (domain 'oxs.modules', one per class and
    distinct body, named after the class; weights stay initializers passed
    as inputs; chosen modules inside chosen modules nest as calls); the ATen
    library's functions are inlined into them as everywhere. True keeps
    only the library's functions local instead of inlining them. tracing:
    "meta" (default; falls back to "fake" when an op has no meta kernel), or
    make_fx's "fake". Raises
    oxs.torch.ExportError (nothing written)."""
    stats = {}
    if kwargs is None:
        kwargs = {}
    if not isinstance(args, tuple):
        args = (args,) if isinstance(args, torch.Tensor) else tuple(args)
    if not isinstance(opset, int) or not 13 <= opset <= 18:
        raise ExportError(f"export: opset {opset!r} is not supported; use 13..18")
    if tracing not in ("meta", "fake"):
        raise ExportError(f"export: tracing={tracing!r}; use 'meta' or 'fake'")
    keep_functions, module_entries = _modules.parse(modules_as_functions)
    chosen = _modules.chosen_paths(model, module_entries) if module_entries else {}
    names = _trace.input_names(model, args, kwargs)
    per_input, symbols = _dynamic_symbols(dynamic_shapes, args, names)
    _library.load_library()

    t0 = time.perf_counter()
    graph, state, stats["tracing_mode"] = _trace.trace(model, args, kwargs, mode=tracing)
    stats["tracing"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    inputs, params, nodes, outputs = _handoff.build(graph, state, names)
    for pos, dims in per_input.items():
        # The input's place among the flattened tensor inputs.
        k = sum(isinstance(t, torch.Tensor) for t in torch.utils._pytree.tree_flatten(args[:pos])[0])
        vid, name, dtype, shape = inputs[k]
        inputs[k] = (vid, name, dtype, [dims.get(d, s) for d, s in enumerate(shape)])
    if symbols:
        nodes = _mark_dynamic_dims(model, args, kwargs, per_input, tracing, names, nodes)
    if chosen:
        nodes = _modules.add_scopes(nodes, chosen)
    overloads = sorted({n[1] for n in nodes})
    candidates, skipped = _library.candidates(overloads)
    # Nodes taken by trace-only functions (user or library) call a function
    # specialized for them (owned by the ATen library side: _trace_only.py).
    nodes, candidates = _trace_only.specialize(inputs, params, nodes, candidates, opset)
    stats["handoff_py"] = time.perf_counter() - t0

    try:
        model_out, decisions, timings, warns = _core.torch_export(
            inputs, params, nodes, outputs, symbols, candidates, opset, keep_functions,
            bool(explain))
    except _core.Error as e:
        raise ExportError(str(e)) from None
    stats.update(timings)
    stats["warnings"] = list(warns) + [f"{o}: the Python trace-only function '{n}' is not used "
                                       "(the exporter calls ONNX Script and C++ functions only)"
                                       for o, n in skipped]
    for w in warns:
        warnings.warn(f"oxs.torch.export: {w}", stacklevel=2)
    if path is not None:
        t0 = time.perf_counter()
        save(model_out, os.fspath(path), external_data=True)
        stats["save"] = time.perf_counter() - t0
    _last_stats.clear()
    _last_stats.update(stats)
    if explain:
        return model_out, decisions
    return model_out
