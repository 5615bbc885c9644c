"""oxs.torch.export: trace (Python), hand off once, dispatch and build (C++)."""

from __future__ import annotations

import inspect
import os
import time
import warnings

import torch

from .. import _core
from .._model import save
from torch.export import Dim

from . import _decomp, _handoff, _library, _modules, _program, _trace, _trace_only
from ._trace import ExportError

_last_stats: dict = {}


def last_export_stats() -> dict:
    """Timings (seconds: tracing, handoff_py, handoff, dispatch, build, cleanup,
    save), the tracing mode used (meta, or fake when an op had no meta kernel)
    and warnings of the last export in this process."""
    return dict(_last_stats)


def _forward_params(model):
    try:
        return list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        return []


def _dynamic_dims(dynamic_shapes, model, args, kwargs, names):
    """torch.export's dynamic_shapes (or the shorthand of names) as
    ({flat leaf index: {dim: name}}, {flat tensor index: {dim: name}},
    {name: example size}, {name: (min, max)}), checked against the example.

    Forms: a tuple/list with one entry per positional argument, or a dict
    keyed by forward's argument names (kwargs included); per tensor None, a
    dict {dim: spec} or a list with one spec per dim; nested tuples, lists and
    dicts follow the inputs' structure. A dim's spec is a name ('batch'), a
    torch.export.Dim (its name and range), Dim.AUTO / Dim.DYNAMIC (named
    '<input>_dim<d>'; AUTO leaves a size-1 example dim static), Dim.STATIC or
    None (static)."""
    if dynamic_shapes is None:
        return {}, {}, {}, {}
    if isinstance(dynamic_shapes, dict):
        params = _forward_params(model)
        known = set(params[:len(args)]) | set(kwargs)
        for k in dynamic_shapes:
            if k not in known:
                raise ExportError(
                    f"export: dynamic_shapes is a dict keyed by forward's argument names "
                    f"({', '.join(sorted(known)) or 'none'}), but has {k!r}; or give a tuple "
                    "with one entry per positional argument, e.g. ({0: 'batch'},)")
        spec_args = tuple(dynamic_shapes.get(params[i]) if i < len(params) else None
                          for i in range(len(args)))
        spec_kwargs = {k: dynamic_shapes.get(k) for k in kwargs}
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) != len(args):
            raise ExportError(f"export: dynamic_shapes has {len(dynamic_shapes)} entries for "
                              f"{len(args)} positional arguments: give one per argument (None "
                              "for a static one), or a dict keyed by argument names")
        spec_args, spec_kwargs = tuple(dynamic_shapes), {k: None for k in kwargs}
    else:
        raise ExportError("export: dynamic_shapes is a tuple with one entry per positional "
                          "argument (None or {dim: 'name'}), e.g. ({0: 'batch'},), or a dict "
                          "keyed by argument names")
    by_leaf, by_tensor, symbols, ranges = {}, {}, {}, {}
    counters = [0, 0]  # leaves, tensors

    def tensor_dims(spec, t, where, name):
        if spec is None:
            return {}
        if isinstance(spec, (list, tuple)):
            if len(spec) != t.dim():
                raise ExportError(f"export: dynamic_shapes for {where} has {len(spec)} entries "
                                  f"for a tensor of rank {t.dim()}")
            spec = dict(enumerate(spec))
        if not isinstance(spec, dict):
            raise ExportError(f"export: dynamic_shapes for {where} is {spec!r}; write "
                              "{dim: 'name'} or {dim: Dim('name')}")
        dims = {}
        for d, x in spec.items():
            if not isinstance(d, int) or isinstance(d, bool) or not -t.dim() <= d < t.dim():
                raise ExportError(f"export: dynamic_shapes names dim {d!r} of input '{name}', "
                                  f"which has rank {t.dim()}")
            d = d % t.dim()
            size = int(t.shape[d])
            lo, hi, auto = 2, None, False
            if x is None or x is Dim.STATIC:
                continue
            if x is Dim.AUTO or x is Dim.DYNAMIC:
                dim_name, auto = f"{name}_dim{d}", x is Dim.AUTO
                if auto:
                    ranges[dim_name] = "auto"  # static where the model needs it
            elif isinstance(x, str):
                dim_name = x
            elif hasattr(x, "__name__") and hasattr(x, "min") and hasattr(x, "max"):
                if hasattr(x, "root"):
                    raise ExportError(f"export: dynamic_shapes for {where} dim {d} is the derived "
                                      f"dim {x.__name__}; give each dynamic dim its own Dim")
                top = x.max if isinstance(x.max, int) and x.max < 2**62 else None
                dim_name, lo, hi = x.__name__, max(int(x.min), 2), top
                ranges[dim_name] = (int(x.min), top)
            else:
                raise ExportError(f"export: dynamic_shapes[{where}][{d}] is {x!r}; a dim's "
                                  "name is an identifier such as 'batch', or a torch.export.Dim")
            if not isinstance(dim_name, str) or not dim_name.isidentifier():
                raise ExportError(f"export: dynamic_shapes[{where}][{d}] is {dim_name!r}; a dim's "
                                  "name is an identifier such as 'batch'")
            if size < 2:
                if auto:
                    continue  # Dim.AUTO: torch.export too keeps a size-1 dim static
                raise ExportError(f"export: dim {d} of input '{name}' is dynamic ('{dim_name}') "
                                  f"but the example has size {size}; trace with a size of 2 or "
                                  "more so that it is not mistaken for a broadcast dim")
            if isinstance(ranges.get(dim_name), tuple) and (
                    size < ranges[dim_name][0] or (hi is not None and size > hi)):
                raise ExportError(f"export: dim {d} of input '{name}' has size {size}, outside "
                                  f"the range of Dim '{dim_name}'")
            if symbols.setdefault(dim_name, size) != size:
                raise ExportError(f"export: dynamic dim '{dim_name}' has size {size} in input "
                                  f"'{name}' and {symbols[dim_name]} elsewhere in the example")
            dims[d] = dim_name
        return dims

    def walk(value, spec, where):
        if value is None:
            return  # no leaf (torch's pytree)
        if isinstance(value, torch.Tensor):
            name = names[counters[1]] if counters[1] < len(names) else where
            dims = tensor_dims(spec, value, where, name)
            if dims:
                by_leaf[counters[0]] = dims
                by_tensor[counters[1]] = dims
            counters[0] += 1
            counters[1] += 1
            return
        if isinstance(value, (list, tuple)):
            if spec is not None and (not isinstance(spec, (list, tuple)) or
                                     len(spec) != len(value)):
                raise ExportError(f"export: dynamic_shapes for {where} is {spec!r}, but the "
                                  f"input is a {type(value).__name__} of {len(value)} items")
            for k, v in enumerate(value):
                walk(v, None if spec is None else spec[k], f"{where}[{k}]")
            return
        if isinstance(value, dict):
            if spec is not None and not isinstance(spec, dict):
                raise ExportError(f"export: dynamic_shapes for {where} is {spec!r}, but the "
                                  "input is a dict")
            for k, v in value.items():
                walk(v, None if spec is None else spec.get(k), f"{where}[{k!r}]")
            return
        if spec is not None:
            raise ExportError(f"export: dynamic_shapes for {where} is {spec!r}, but the input "
                              f"is a {type(value).__name__}, not a tensor")
        counters[0] += 1

    params = _forward_params(model)
    for i, (a, spec) in enumerate(zip(args, spec_args)):
        walk(a, spec, params[i] if i < len(params) else f"args[{i}]")
    for k, v in kwargs.items():
        walk(v, spec_kwargs.get(k), k)
    return by_leaf, by_tensor, symbols, ranges


def _finite(v):
    """A range bound as an int, None when infinite."""
    text = str(v)
    return int(text) if text.lstrip("-").isdigit() else None


def _check_symbols(graph, ranges):
    """A dynamic dim the model made static (a branch or check on its size)
    or narrowed beyond its Dim's range is an error naming the guard."""
    env = getattr(graph, "shape_env", None)
    if env is None:
        return
    for name, (sym, hint) in graph.symbols.items():
        value = env.replace(sym)
        guards = [str(g.expr) for g in env.guards if sym in g.expr.free_symbols]
        why = f" (torch's guards on it: {'; '.join(guards[:3])})" if guards else ""
        if value.is_number and ranges.get(name) == "auto":
            continue  # Dim.AUTO: torch.export too makes it static
        if value.is_number:
            raise ExportError(
                f"export: dynamic dim '{name}' was made static (= {int(value)}) by the model: its "
                f"code depends on that size (a branch or check on it){why}; export it as a "
                "static dim, or make the code independent of it")
        if isinstance(ranges.get(name), tuple):
            vr = env.var_to_range.get(sym)
            lo, hi = ranges[name]
            low, up = _finite(vr.lower), _finite(vr.upper)
            if (low is not None and low > max(lo, 2)) or (
                    hi is not None and up is not None and up < hi):
                raise ExportError(
                    f"export: dynamic dim '{name}' takes [{lo}, {hi}] in its Dim but the model "
                    f"works only for [{vr.lower}, {vr.upper}]{why}: narrow the Dim's range or "
                    "use torch._check to state what holds")


def _torch_export_spec(spec):
    """dynamic_shapes for torch.export.export: names become Dims (one per name)."""
    dims = {}

    def conv(x):
        if isinstance(x, str):
            return dims.setdefault(x, Dim(x))
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(conv(v) for v in x)
        return x

    return conv(spec)


def export(model, args=None, kwargs=None, path=None, dynamic_shapes=None, opset=18,
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
    "meta" (default; falls back to "fake" when an op has no meta kernel;
    with dynamic_shapes the same recorder runs on fake tensors with symbolic
    dims), make_fx's "fake", or "export": torch.export.export makes an
    ExportedProgram, read as `model` may be one (then give no args). Raises
    oxs.torch.ExportError (nothing written)."""
    stats = {}
    if kwargs is None:
        kwargs = {}
    if not isinstance(opset, int) or not 13 <= opset <= 23:
        raise ExportError(f"export: opset {opset!r} is not supported; use 13..23 (18 by "
                          "default; 23 writes scaled_dot_product_attention as Attention)")
    if tracing not in ("meta", "fake", "export"):
        raise ExportError(f"export: tracing={tracing!r}; use 'meta', 'fake' or 'export'")
    program = isinstance(model, torch.export.ExportedProgram)
    if program:
        if args is not None or dynamic_shapes is not None or kwargs:
            raise ExportError("export: an ExportedProgram carries its inputs and dynamic shapes; "
                              "give it alone (oxs.torch.export(program, path=...))")
        module = model.module()
        args, kwargs = model.example_inputs if model.example_inputs else ((), {})
    else:
        module = model
        if args is None:
            raise ExportError("export: give the example inputs: oxs.torch.export(model, (x,))")
        if not isinstance(args, tuple):
            args = (args,) if isinstance(args, torch.Tensor) else tuple(args)
    keep_functions, module_entries = _modules.parse(modules_as_functions)
    chosen = _modules.chosen_paths(module, module_entries) if module_entries else {}
    _library.load_library()
    covered = _decomp.Covered()
    t0 = time.perf_counter()
    if program or tracing == "export":
        if program:
            ep, by_tensor, names = model, {}, None
        else:
            names = _trace.input_names(model, args, kwargs)
            by_tensor = _dynamic_dims(dynamic_shapes, model, args, kwargs, names)[1]
            try:
                ep = torch.export.export(model.eval(), args, kwargs,
                                         dynamic_shapes=_torch_export_spec(dynamic_shapes),
                                         strict=False)
            except Exception as e:
                raise ExportError(f"export: torch.export.export failed: {type(e).__name__}: "
                                  f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}"
                                  ) from None
        graph, state, names = _program.from_program(ep, covered, names, by_tensor)
        symbols = {name: hint for name, (_, hint) in graph.symbols.items()}
        stats["tracing_mode"] = "export"
    else:
        names = _trace.input_names(model, args, kwargs)
        by_leaf, by_tensor, symbols, ranges = _dynamic_dims(dynamic_shapes, model, args, kwargs,
                                                            names)
        graph, state, stats["tracing_mode"] = _trace.trace(model, args, kwargs, mode=tracing,
                                                           covered=covered, dynamic=by_leaf,
                                                           whole_ops=opset >= 23)
        _check_symbols(graph, ranges)
    stats["tracing"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    inputs, params, nodes, outputs, exprs = _handoff.build(graph, state, names, by_tensor)
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
            inputs, params, nodes, outputs, symbols, exprs, candidates, opset, keep_functions,
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
