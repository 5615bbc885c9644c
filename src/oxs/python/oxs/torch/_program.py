"""torch.export's ExportedProgram as the exporter's traced graph.

`oxs.torch.export(exported_program)` and `tracing="export"` (which makes one
with torch.export.export) read the program's FX graph after
`run_decompositions` with torch's Core ATen table minus the ops our functions
take (_decomp.Covered.table): placeholders named by the graph signature
become parameters, buffers and constants (oxs_state), the user inputs stay
inputs; each node's module path comes from nn_module_stack and its line from
stack_trace; sizes are torch.export's SymInts, whose symbols get the dynamic
dims' names (the user's where known, else `<input>_dim<d>`)."""

from __future__ import annotations

import torch

from ._trace import ExportError

# Nodes torch.export adds that compute nothing for the graph.
_SKIPPED = {"_assert_scalar", "_assert_tensor_metadata", "sym_constrain_range_for_size",
            "sym_constrain_range", "_assert_async"}


def _module_path(node) -> str:
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return "<root>"
    path, cls = list(stack.values())[-1]
    name = cls if isinstance(cls, str) else getattr(cls, "__name__", str(cls))
    return f"{path or '<root>'} ({name.rsplit('.', 1)[-1]})"


def _source(node) -> str:
    trace = (node.meta.get("stack_trace") or "").strip().splitlines()
    if len(trace) >= 2 and trace[-2].strip().startswith("File "):
        where = trace[-2].strip()[5:].replace('"', "").replace(", line ", ":")
        return f"{where}: {trace[-1].strip()}"
    return trace[-1].strip() if trace else ""


def from_program(ep, covered, input_names=None, input_dims=None):
    """(graph, state, names) of an ExportedProgram: the FX graph tagged as
    _trace's graphs are, the tensors of its parameters/buffers/constants and
    the user inputs' names. input_dims: {flat tensor index: {dim: name}}."""
    if not isinstance(ep, torch.export.ExportedProgram):
        raise ExportError(f"export: expected a torch.export.ExportedProgram, got "
                          f"{type(ep).__name__}")
    try:
        ep = ep.run_decompositions(covered.table())
    except Exception as e:
        raise ExportError(f"export: run_decompositions failed on the program: "
                          f"{type(e).__name__}: {e}") from None
    graph = ep.graph_module.graph
    sig = ep.graph_signature
    state_names = dict(sig.inputs_to_parameters)
    state_names.update(sig.inputs_to_buffers)
    state_names.update(sig.inputs_to_lifted_tensor_constants)
    tensors = dict(ep.state_dict)
    tensors.update(ep.constants)
    state = {}
    user = []
    for ph in (n for n in graph.nodes if n.op == "placeholder"):
        name = state_names.get(ph.name)
        if name is not None:
            ph.meta["oxs_state"] = name
            t = tensors[name]
            state[name] = t.detach() if isinstance(t, torch.Tensor) else torch.as_tensor(t)
        else:
            user.append(ph)
    names = [(input_names[i] if input_names and i < len(input_names) else ph.name)
             for i, ph in enumerate(u for u in user if isinstance(u.meta.get("val"), torch.Tensor))]
    # The ShapeEnv and the dynamic dims' names, from the user inputs' sizes.
    graph.symbols = {}
    graph.shape_env = None
    k = 0
    for ph in user:
        val = ph.meta.get("val")
        if not isinstance(val, torch.Tensor):
            continue
        for d, size in enumerate(val.shape):
            if isinstance(size, torch.SymInt):
                graph.shape_env = size.node.shape_env
                expr = size.node.expr
                if len(expr.free_symbols) != 1 or not expr.is_Symbol:
                    continue
                given = (input_dims or {}).get(k, {}).get(d)
                name = given or f"{names[k]}_dim{d}"
                if not any(s == expr for s, _ in graph.symbols.values()):
                    graph.symbols[name] = (expr, int(size.node.hint))
        k += 1
    aten = torch.ops.aten
    for n in graph.nodes:
        if n.op != "call_function":
            continue
        if n.target is aten._native_batch_norm_legit_no_training.default:
            # The Core ATen form of inference batch norm: native_batch_norm
            # with training=False, which the native BatchNormalization takes.
            a = list(n.args) + [None] * (7 - len(n.args))
            n.target = aten.native_batch_norm.default
            n.args = tuple(a[:5]) + (False, n.kwargs.get("momentum", a[5]),
                                     n.kwargs.get("eps", a[6]))
            n.kwargs = {}
        n.meta["oxs_module"] = _module_path(n)
        n.meta["oxs_source"] = _source(n)
    # Only the user outputs (a program may also return mutated buffers).
    out = next(n for n in graph.nodes if n.op == "output")
    kinds = [s.kind for s in sig.output_specs]
    user_kind = torch.export.graph_signature.OutputKind.USER_OUTPUT
    flat = list(out.args[0])
    if len(kinds) == len(flat) and any(k != user_kind for k in kinds):
        out.args = (tuple(v for v, k in zip(flat, kinds) if k == user_kind),)
    return graph, state, names


def skipped(node) -> bool:
    """Whether the hand-off leaves the node out: size arithmetic (its value
    is a SymInt the sizes' expressions carry) and torch.export's asserts."""
    val = node.meta.get("val")
    if isinstance(val, (torch.SymInt, torch.SymBool, torch.SymFloat, int, float, bool)):
        return True
    name = getattr(node.target, "__name__", "")
    return name.split(".")[0] in _SKIPPED
