"""The hand-off: an ATen FX graph as the compact structure that
oxs._core.torch_export reads once (src/oxs/python/bind/torch.cc).

    inputs   [(value id, name, dtype, dims)]        dims: ints, symbols as str
    params   [(value id, name, numpy array)]        views of the tensors (no copy)
    nodes    [(name, overload, module, args, outs)]
             args  [(schema name, schema type, kind, value)]
             outs  [(value id or -1 if unused, dtype, dims, syms)]
                   dims: the example's sizes; syms: per dim the id of its
                   size expression in exprs, -1 for a static dim
    outputs  [(value id, name)]
    exprs    [(op, text, value, hint, [arg ids])]: the sizes that vary with
             the dynamic dims (SymInts of a trace with a ShapeEnv), op one of
             symbol, const, add, mul, floordiv, mod, max, min

Arguments are matched to the ATen schema's names (`target._schema`); kinds:
t tensor (value id), n None, tl tensor list, i int, f float, b bool,
is int list, fs float list, s str, dt ScalarType (as an ONNX dtype), sy a
SymInt ((example, expr id)), sys an int list holding SymInts ((examples, expr
ids, -1 for constants)), o other (printed, never used as data). Layout, device and memory format change no
values and are passed as None (the ATen library's rule, _registry.py)."""

from __future__ import annotations

import operator

import torch

from ._program import skipped as _skipped
from ._trace import ExportError, Node, format_source

_NODES = (torch.fx.Node, Node)

DTYPES = {
    torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 5, torch.int32: 6,
    torch.int64: 7, torch.bool: 9, torch.float16: 10, torch.float64: 11, torch.bfloat16: 16,
    torch.complex64: 14, torch.complex128: 15,
}


def onnx_dtype(dt, where):
    if dt not in DTYPES:
        raise ExportError(f"export: {where} has element type {dt}, which ONNX has no type for")
    return DTYPES[dt]


def overload_name(target) -> str:
    """'aten::add.Tensor' for an OpOverload (as the ATen library registers it)."""
    return f"{target._schema.name}.{target._overloadname}"


class Exprs:
    """The size expressions of a symbolic trace: sympy expressions over the
    ShapeEnv's symbols, numbered, with the dynamic dims' names for symbols."""

    def __init__(self, graph):
        self.env = getattr(graph, "shape_env", None)
        self.names = {}
        if self.env is not None:
            import sympy

            self.names = {sym: sympy.Symbol(name) for name, (sym, _) in graph.symbols.items()}
        self.table = []
        self.ids = {}

    def of(self, d):
        """(example value, expression id or -1) of a size."""
        if isinstance(d, torch.SymInt):
            expr = self.env.replace(d.node.expr) if self.env is not None else d.node.expr
            if expr.is_number:
                return int(expr), -1
            return self.hint(expr), self.add(expr)
        return int(d), -1

    def hint(self, expr) -> int:
        """The example's value of an expression."""
        fn = getattr(self.env, "guarding_hint_or_throw", None) or self.env.size_hint
        return int(fn(expr))

    def add(self, expr) -> int:
        import sympy
        from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod

        hit = self.ids.get(expr)
        if hit is not None:
            return hit
        if isinstance(expr, sympy.Symbol):
            if expr not in self.names:
                raise ExportError(f"export: a size depends on {expr}, which is no dim named by "
                                  "dynamic_shapes (a size computed from tensor values?)")
            entry = ("symbol", [])
        elif expr.is_Integer:
            entry = ("const", [])
        elif isinstance(expr, sympy.Add):
            entry = ("add", [self.add(a) for a in expr.args])
        elif isinstance(expr, sympy.Mul):
            entry = ("mul", [self.add(a) for a in expr.args])
        elif isinstance(expr, FloorDiv):
            entry = ("floordiv", [self.add(a) for a in expr.args])
        elif isinstance(expr, (Mod, PythonMod, sympy.Mod)):
            entry = ("mod", [self.add(a) for a in expr.args])
        elif isinstance(expr, sympy.Max):
            entry = ("max", [self.add(a) for a in expr.args])
        elif isinstance(expr, sympy.Min):
            entry = ("min", [self.add(a) for a in expr.args])
        elif isinstance(expr, sympy.Pow) and expr.exp.is_Integer and int(expr.exp) >= 1:
            entry = ("mul", [self.add(expr.base)] * int(expr.exp))
        else:
            raise ExportError(f"export: the size {expr} (of the dynamic dims) has an operation "
                              f"({type(expr).__name__}) the exporter cannot write in ONNX")
        text = str(expr.xreplace(self.names)).replace(" ", "")
        value = int(expr) if expr.is_Integer else 0
        hint = value if expr.is_Integer else self.hint(expr)
        self.table.append((entry[0], text, value, hint, entry[1]))
        self.ids[expr] = len(self.table) - 1
        return self.ids[expr]


def _encode(value, ids, where, exprs=None):
    if isinstance(value, _NODES):
        val = value.meta.get("val")
        if isinstance(val, torch.SymInt) and exprs is not None:  # a size node (torch.export)
            value = val
        else:
            return ("t", ids[value])
    if isinstance(value, torch.SymInt):
        hint, eid = exprs.of(value)
        return ("i", hint) if eid < 0 else ("sy", [hint, eid])
    if isinstance(value, (torch.SymFloat, torch.SymBool)):
        raise ExportError(f"export: {where} takes {value}, a float or bool computed from the "
                          "dynamic dims; only integer sizes can stay dynamic")
    if value is None:
        return ("n", None)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("i", value)
    if isinstance(value, float):
        return ("f", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, (torch.layout, torch.device, torch.memory_format)):
        return ("n", None)  # no effect on values: the library's rule is to pass None
    if isinstance(value, torch.dtype):
        return ("dt", onnx_dtype(value, where))
    if isinstance(value, (list, tuple)):
        if exprs is not None and any(isinstance(v, torch.SymInt) or (
                isinstance(v, _NODES) and isinstance(v.meta.get("val"), torch.SymInt))
                for v in value):
            pairs = [exprs.of(v.meta["val"] if isinstance(v, _NODES) else v) for v in value]
            if all(e < 0 for _, e in pairs):
                return ("is", [h for h, _ in pairs])
            return ("sys", ([h for h, _ in pairs], [e for _, e in pairs]))
        if any(isinstance(v, _NODES) for v in value):
            return ("tl", [ids[v] if isinstance(v, _NODES) else -1 for v in value])
        if all(isinstance(v, bool) for v in value) and value:
            return ("is", [int(v) for v in value])
        if all(isinstance(v, int) for v in value):
            return ("is", list(value))
        if all(isinstance(v, (int, float)) for v in value):
            return ("fs", [float(v) for v in value])
    return ("o", str(value))


def _dims(t, exprs=None):
    """(example sizes, expression ids) of a traced tensor."""
    if exprs is None or exprs.env is None:
        return [int(d) for d in t.shape], []
    pairs = [exprs.of(d) for d in t.shape]
    syms = [e for _, e in pairs]
    return [h for h, _ in pairs], (syms if any(e >= 0 for e in syms) else [])


def _as_numpy(t: torch.Tensor, name: str):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        raise ExportError(f"export: parameter '{name}' is bfloat16; numpy cannot view it: "
                          "convert the model to float32 first")
    if not t.is_contiguous():
        t = t.contiguous()
    return t.numpy()  # a view of the tensor's memory


def build(graph, state, input_names, input_dims=None):
    """The hand-off tuple of a traced graph (_trace.trace): placeholders
    tagged oxs_state are parameters, buffers or constants (named in
    `state`), the others the flattened tensor inputs in order.
    input_dims: per flattened tensor input, {dim: name} of its dynamic dims.
    Returns (inputs, params, nodes, outputs, exprs)."""
    exprs = Exprs(graph)
    ids = {}
    next_id = [0]

    def new_id():
        next_id[0] += 1
        return next_id[0] - 1

    inputs, params, nodes, outputs = [], [], [], []
    tensor_inputs = 0
    for ph in (n for n in graph.nodes if n.op == "placeholder"):
        val = ph.meta.get("val")
        name = ph.meta.get("oxs_state")
        if name is not None:
            if ph.users:
                ids[ph] = new_id()
                params.append((ids[ph], name, _as_numpy(state[name], name)))
            continue
        if not isinstance(val, torch.Tensor):
            continue  # a Python value: the trace used it as a constant
        name = input_names[tensor_inputs] if tensor_inputs < len(input_names) else ph.name
        tensor_inputs += 1
        ids[ph] = new_id()
        dims, syms = _dims(val, exprs)
        named = (input_dims or {}).get(tensor_inputs - 1, {})
        dims = [(named.get(d) or exprs.table[e][1]) if e >= 0 else s
                for d, (s, e) in enumerate(zip(dims, syms or [-1] * len(dims)))]
        inputs.append((ids[ph], name, onnx_dtype(val.dtype, f"input '{name}'"), dims))

    # Outputs of multi-output nodes that some getitem reads.
    used = {}
    for n in graph.nodes:
        if n.op == "call_function" and n.target is operator.getitem and isinstance(n.args[0], _NODES):
            used.setdefault(n.args[0], {})[n.args[1]] = n

    for n in graph.nodes:
        if n.op != "call_function" or _skipped(n):
            continue
        module = n.meta.get("oxs_module", "")
        if n.target is operator.getitem:
            if n not in ids:
                raise ExportError(f"export: node '{n.name}' ({module}) takes an item of a "
                                  "value that is not a tuple of tensors")
            continue
        if not hasattr(n.target, "_schema"):
            raise ExportError(f"export: node '{n.name}' calls {n.target}, not an ATen operator "
                              f"(module {module or '<root>'}); only ATen-level graphs are exported")
        schema = n.target._schema
        where = f"node '{n.name}' ({overload_name(n.target)})"
        args = []
        formal = schema.arguments
        for a, v in zip(formal, n.args):
            args.append((a.name, str(a.type)) + _encode(v, ids, where, exprs))
        by_name = {a.name: a for a in formal}
        for k, v in n.kwargs.items():
            a = by_name.get(k)
            args.append((k, str(a.type) if a else "") + _encode(v, ids, where, exprs))
        val = n.meta.get("val")
        outs = []
        returns_list = len(schema.returns) == 1 and str(schema.returns[0].type).startswith("List")
        if isinstance(val, (list, tuple)) or (val is None and (len(schema.returns) > 1 or returns_list)):
            # make_fx keeps the meta of a tuple's items on the getitem nodes.
            items = used.get(n, {})
            if val is not None:
                count = len(val)
            elif returns_list:
                count = max(items, default=-1) + 1
            else:
                count = len(schema.returns)
            for i in range(count):
                v = items[i].meta.get("val") if i in items else None
                if isinstance(v, torch.Tensor):
                    vid = new_id()
                    ids[items[i]] = vid
                    outs.append((vid, onnx_dtype(v.dtype, where)) + _dims(v, exprs))
                else:
                    outs.append((-1, 0, [], []))
        elif isinstance(val, torch.Tensor):
            ids[n] = new_id()
            outs.append((ids[n], onnx_dtype(val.dtype, where)) + _dims(val, exprs))
        else:
            raise ExportError(f"export: {where} in {module or '<root>'} returns "
                              f"{type(val).__name__}, not tensors")
        source = n.meta.get("oxs_source")
        source = format_source(source) if isinstance(source, tuple) else (source or "")
        nodes.append((n.name, overload_name(n.target), module, args, outs, source))

    out_node = next(n for n in graph.nodes if n.op == "output")
    flat = list(torch.utils._pytree.tree_flatten(out_node.args[0])[0])
    for i, v in enumerate(flat):
        if not isinstance(v, _NODES) or not isinstance(v.meta.get("val"), torch.Tensor):
            raise ExportError(f"export: output {i} of the model is {v!r} "
                              f"({type(v).__name__}), not a tensor; ONNX outputs are tensors: "
                              "return tensors only")
        outputs.append((ids[v], "output" if len(flat) == 1 else f"output_{i}"))
    return inputs, params, nodes, outputs, exprs.table
