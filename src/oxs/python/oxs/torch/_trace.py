"""Tracing a PyTorch model to an ATen-level FX graph (torch 1.13: no dynamo).

Two tracers, both in eval mode without autograd, both producing an FX graph
whose placeholders carry meta["oxs_state"] (the parameter, buffer or
constant name) or are the flattened tensor inputs, and whose nodes carry
meta["val"] (a meta/fake tensor) and meta["oxs_module"] (the module path):

- "meta" (the default): the model runs once on meta tensors (no data, no
  compute; parameters swapped in through `stateless.functional_call`) under a
  TorchDispatchMode that records every ATen call it sees. The ops are those
  make_fx records (the Python dispatch key sits at the same level); there are
  no proxies and no FakeTensor wrappers, so it is about 10x faster.
- "fake" / "real" / "symbolic": `make_fx` with that tracing mode; the
  fallback when an op has no meta kernel.

bench/RESULTS.md compares them. Forward hooks keep the module stack."""

from __future__ import annotations

import contextlib
import inspect
import operator
import os
import sys

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class ExportError(Exception):
    """The model cannot be exported; the message says what, where, and what to do."""


class Node:
    """A traced call: the subset of torch.fx.Node the hand-off reads (op,
    name, target, args, kwargs, meta, users), without FX's per-node cost."""

    __slots__ = ("op", "name", "target", "args", "kwargs", "meta", "users")

    def __init__(self, op, name, target, args, kwargs):
        self.op, self.name, self.target, self.args, self.kwargs = op, name, target, args, kwargs
        self.meta = {}
        self.users = {}


class Graph:
    """The recorder's graph: nodes in order, unique names, users kept per edge."""

    def __init__(self):
        self.nodes = []
        self._names = {}

    def _name(self, base):
        k = self._names.get(base, 0)
        self._names[base] = k + 1
        return base if k == 0 else f"{base}_{k}"

    def add(self, op, target, args=(), kwargs=None, base="node", first=False):
        n = Node(op, self._name(base), target, args, kwargs or {})
        for a in _leaves(args):
            if isinstance(a, Node):
                a.users[n] = None
        for a in _leaves(tuple(n.kwargs.values())):
            if isinstance(a, Node):
                a.users[n] = None
        if first:
            self.nodes.insert(0, n)
        else:
            self.nodes.append(n)
        return n

    def eliminate_dead_code(self):
        """Removes calls nothing reads (one reverse pass: readers come after)."""
        keep = []
        for n in reversed(self.nodes):
            if n.op == "call_function" and not n.users:
                for a in _leaves(n.args) + _leaves(tuple(n.kwargs.values())):
                    if isinstance(a, Node):
                        a.users.pop(n, None)
                continue
            keep.append(n)
        keep.reverse()
        self.nodes = keep


def _leaves(x):
    out = []
    for a in x:
        if isinstance(a, (tuple, list)):
            out.extend(_leaves(a))
        else:
            out.append(a)
    return out


def _map(f, x):
    """tree_map for the argument shapes ATen calls take (tuples, lists, dicts)."""
    if isinstance(x, tuple):
        return tuple(_map(f, a) for a in x)
    if isinstance(x, list):
        return [_map(f, a) for a in x]
    if isinstance(x, dict):
        return {k: _map(f, v) for k, v in x.items()}
    return f(x)


_LIFTS = (torch.ops.aten.lift_fresh.default, torch.ops.aten.lift_fresh_copy.default)

_DATA_DEPENDENT = (
    "export: the model reads a tensor's value while tracing (data-dependent control "
    "flow such as `if x.sum() > 0:` or `int(x)`); tracing records one path only: "
    "make the branch depend on shapes or Python values, or use torch.where")


@contextlib.contextmanager
def _module_paths(model, tag_fx_nodes):
    """Keeps the stack of 'path (Class)' of the modules running; with
    tag_fx_nodes, every FX node created inside gets the innermost one as
    node.meta['oxs_module'] (make_fx creates the nodes)."""
    stack = []
    handles = []
    rnns = []
    for name, mod in model.named_modules():
        label = f"{name or '<root>'} ({type(mod).__name__})"

        def pre(_m, _inputs, label=label):
            stack.append(label)

        def post(_m, _inputs, _out):
            if stack:
                stack.pop()

        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
        if isinstance(mod, torch.nn.RNNBase):
            # nn.LSTM/GRU/RNN read their weights from a list made at init,
            # which functional_call's swap does not reach: refresh it from the
            # attributes the trace swapped in (and back afterwards).
            handles.append(mod.register_forward_pre_hook(_refresh_flat_weights))
            rnns.append(mod)
    original = torch.fx.Graph.create_node

    def create_node(self, *args, **kwargs):
        node = original(self, *args, **kwargs)
        node.meta["oxs_module"] = stack[-1] if stack else ""
        return node

    if tag_fx_nodes:
        torch.fx.Graph.create_node = create_node
    try:
        yield stack
    finally:
        torch.fx.Graph.create_node = original
        for h in handles:
            h.remove()
        for mod in rnns:
            _refresh_flat_weights(mod, ())


def _refresh_flat_weights(mod, _inputs):
    mod._flat_weights = [getattr(mod, n) if hasattr(mod, n) else None
                         for n in mod._flat_weights_names]


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


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_OXS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


_TORCH_NN_DIR = os.path.join(_TORCH_DIR, "nn", "modules") + os.sep


def user_frame():
    """(file, line, function) of the innermost frame of the model's code
    outside torch and oxs that made the op; for an op of torch's own modules
    (nn.MultiheadAttention) called from no code of the user's, the line in
    torch.nn.modules."""
    f = sys._getframe(2)  # the caller of the recorder's __torch_dispatch__
    in_torch_nn = None
    while f is not None:
        name = f.f_code.co_filename
        if name.startswith(_OXS_DIR):
            break  # the trace's own call: the model's code is all inside torch
        if name.startswith(_TORCH_DIR):
            if in_torch_nn is None and name.startswith(_TORCH_NN_DIR):
                in_torch_nn = (name, f.f_lineno, f.f_code.co_name)
        elif not name.startswith("<"):
            return (name, f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return in_torch_nn


def format_source(src) -> str:
    """'model.py:12 in forward: x = x.view(n, -1)' for a user_frame()."""
    if not src:
        return ""
    import linecache

    name, line, fn = src
    code = linecache.getline(name, line).strip()
    return f"{name}:{line} in {fn}" + (f": {code}" if code else "")


def _value_dependent(e, func, stack, src):
    """An ExportError for an op that failed while tracing: one whose result
    depends on tensor values gets the op, the module, the line and the way
    out; anything else is raised as it is."""
    from torch._subclasses.fake_tensor import DataDependentOutputException, \
        DynamicOutputShapeException
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    where = f"{func} in {stack[-1] if stack else '<root>'}"
    line = format_source(src)
    at = f" (at {line})" if line else ""
    if isinstance(e, DynamicOutputShapeException) or (
            isinstance(e, NotImplementedError) and func in _VALUE_SHAPED):
        return ExportError(
            f"export: {where}{at} has an output shape that depends on the input's values "
            "(data-dependent); ONNX export needs it from shapes: compute it outside the model, "
            "use a fixed-size formulation (torch.where, masks), or bound the size with "
            "torch._check(...) and a Dim range")
    if isinstance(e, (DataDependentOutputException, GuardOnDataDependentSymNode)) or (
            isinstance(e, RuntimeError) and _reads_value(e)):
        return ExportError(
            f"export: {where}{at} reads a tensor's value while tracing (a data-dependent shape "
            "or branch); tracing records one path only: make it depend on shapes or Python "
            "values, use torch.where, or give torch._check(...) / a Dim range that decides it")
    return e


_VALUE_SHAPED = {torch.ops.aten.nonzero.default, torch.ops.aten.masked_select.default,
                 torch.ops.aten._unique2.default, torch.ops.aten.unique_consecutive.default,
                 torch.ops.aten.unique_dim.default}


class _Recorder(TorchDispatchMode):
    """Records each ATen call as an FX node while running it on meta tensors."""

    def __init__(self, graph, stack, state, covered=None):
        super().__init__()
        self.covered = covered  # _decomp.Covered: ops no function takes are decomposed
        self.paused = False
        self.graph = graph
        self.stack = stack
        self.state = state  # name -> real tensor: constants met while tracing are added
        self.known = {}  # id(tensor) -> (tensor, node); the tensor is kept so ids stay unique
        # Tensors whose view was written in place: reading them again would
        # need the write, which the graph (values, not memory) does not have.
        self.stale = {}  # id(tensor) -> (tensor, what wrote it)
        self.views = {}  # id(root) -> [root, views of it that ops returned]
        self.roots = {}  # id(view) -> (view, root)

    def bind(self, t, node):
        self.known[id(t)] = (t, node)

    def node_of(self, t):
        e = self.known.get(id(t))
        if e is not None and e[0] is t:
            return e[1]
        # A tensor the model made outside the trace (a constant attribute,
        # torch.tensor(...) in forward): an initializer.
        name = f"_tensor_constant{sum(1 for k in self.state if k.startswith('_tensor_constant'))}"
        if t.device.type == "meta":
            raise ExportError(f"export: a meta tensor of shape {list(t.shape)} appears that no "
                              "traced op produced; the model holds tensors on the meta device")
        self.state[name] = t.detach()
        ph = self.graph.add("placeholder", name, base=name, first=True)
        ph.meta["oxs_state"] = name
        meta = self.make_stand_in(t)
        ph.meta["val"] = meta
        self.bind(t, ph)
        return ph

    def make_stand_in(self, t):
        return torch.empty_like(t, device="meta")

    def record_whole(self, op, fn, args, kwargs):
        """Runs fn(*args, **kwargs) (a composite torch function) without
        recording the ops it is made of, and records it as one node of
        `op` (arguments bound to op's schema)."""
        sig = inspect.Signature([inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                 for a in op._schema.arguments])
        bound = sig.bind_partial(*args, **kwargs).arguments
        node_kwargs = _map(lambda a: self.read(a, str(op)) if isinstance(a, torch.Tensor) else a,
                           dict(bound))
        self.paused = True
        try:
            out = fn(*args, **kwargs)
        finally:
            self.paused = False
        module = self.stack[-1] if self.stack else ""
        node = self.graph.add("call_function", op, (), node_kwargs,
                              base=op._schema.name.split("::")[-1])
        node.meta["oxs_module"] = module
        node.meta["oxs_source"] = user_frame()
        node.meta["val"] = out
        self.bind(out, node)
        return out

    def unbacked(self, out):
        """Whether out's sizes depend on tensor values (fake tensors only)."""
        return False

    def run_kwargs(self, func, kwargs):
        return kwargs

    def stand_in(self, a):
        """What the op runs on: a tensor the model made outside the trace
        (a constant) is replaced by its node's meta tensor."""
        if isinstance(a, torch.Tensor) and a.device.type != "meta":
            return self.node_of(a).meta["val"]
        return a

    def written(self, w, writer):
        """An in-place write to w: every other alias of its memory (its base,
        the base's other views) now holds values the graph does not have."""
        root = self.root_of(w)
        for t in self.views.get(id(root), [root]):
            if t is not w:
                self.stale[id(t)] = (t, writer)

    def root_of(self, t):
        e = self.roots.get(id(t))
        if e is not None and e[0] is t:
            return e[1]
        return t._base if t._base is not None else t

    def read(self, t, reader):
        """The node of `t`, read by `reader` (an op, or the model's output)."""
        stale = self.stale.get(id(t))
        if stale is not None and stale[0] is t:
            raise ExportError(
                f"export: {stale[1]} wrote into memory that another view of it reads later "
                f"(by {reader} in {self.stack[-1] if self.stack else '<root>'}); writes "
                "through views (x[...] = v, x[:, 0].add_(...)) are not exported: build the "
                "new tensor out of place (torch.cat, torch.where, index_put)")
        return self.node_of(t)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.paused:  # inside an op recorded whole (record_whole)
            return func(*_map(self.stand_in, args),
                        **self.run_kwargs(func, _map(self.stand_in, kwargs)))
        if func is torch.ops.aten._local_scalar_dense.default:
            line = format_source(user_frame())
            raise ExportError(
                f"{_DATA_DEPENDENT} (aten._local_scalar_dense: .item(), int() or bool() of a "
                f"tensor in {self.stack[-1] if self.stack else '<root>'}"
                f"{' at ' + line if line else ''}); a size computed from values needs "
                "torch._check(...) on it and a Dim range, or a formulation without it")
        if func is torch.ops.aten.as_strided_.default and len(args) > 1 and \
                tuple(args[1]) == tuple(args[0].shape):
            # New strides, same sizes (a pooling's memory format): the same
            # values, nothing to record.
            return func(*_map(self.stand_in, args), **_map(self.stand_in, kwargs))
        if func in _LIFTS and isinstance(args[0], torch.Tensor):
            # torch.tensor(...) in forward: the constant itself.
            node = self.read(args[0], str(func))
            out = func(*_map(self.stand_in, args))
            self.bind(out, node)
            return out
        decomposition = self.covered.decomposition(func) if self.covered is not None else None
        if decomposition is not None:
            with self:  # record the ops it is made of
                return decomposition(*args, **kwargs)

        def to_node(a):
            return self.read(a, str(func)) if isinstance(a, torch.Tensor) else a

        to_meta = self.stand_in

        schema_args = func._schema.arguments
        if (args and isinstance(args[0], torch.Tensor) and schema_args and schema_args[0].alias_info
                is not None and schema_args[0].alias_info.is_write):
            self.written(args[0], f"{func} in {self.stack[-1] if self.stack else '<root>'}")
            e = self.known.get(id(args[0]))
            if e is not None and e[0] is args[0]:
                # The op changes the tensor in place (transpose_, unsqueeze_
                # change its sizes): the node that made it keeps a copy of
                # what it was.
                e[1].meta["val"] = torch.empty_strided(args[0].shape, args[0].stride(),
                                                       dtype=args[0].dtype, device=args[0].device)
        node_args = _map(to_node, args)
        node_kwargs = _map(to_node, kwargs)
        try:
            out = func(*_map(to_meta, args), **self.run_kwargs(func, _map(to_meta, kwargs)))
        except ExportError:
            raise
        except Exception as e:
            raise _value_dependent(e, func, self.stack, user_frame()) from None
        if not isinstance(out, torch.Tensor) and not (
                isinstance(out, (tuple, list)) and any(isinstance(o, torch.Tensor) for o in out)):
            return out  # prim.device, sizes: nothing for the graph
        if self.unbacked(out):
            from torch._subclasses.fake_tensor import DynamicOutputShapeException

            raise _value_dependent(DynamicOutputShapeException(func), func, self.stack,
                                   user_frame())
        module = self.stack[-1] if self.stack else ""
        node = self.graph.add("call_function", func, node_args, node_kwargs,
                              base=func._schema.name.split("::")[-1])
        node.meta["oxs_module"] = module
        node.meta["oxs_source"] = user_frame()
        if isinstance(out, torch.Tensor):
            node.meta["val"] = out
            self.bind(out, node)
            rets = func._schema.returns
            if (rets and rets[0].alias_info is not None and not rets[0].alias_info.is_write
                    and args and isinstance(args[0], torch.Tensor)):
                # A view (Tensor(a) -> Tensor(a)); _base is set only above
                # this dispatch level, so the schema says it.
                root = self.root_of(args[0])
                self.views.setdefault(id(root), [root]).append(out)
                self.roots[id(out)] = (out, root)
        elif isinstance(out, (tuple, list)):
            node.meta["val"] = out
            for i, o in enumerate(out):
                if isinstance(o, torch.Tensor):
                    item = self.graph.add("call_function", operator.getitem, (node, i), base="getitem")
                    item.meta["val"] = o
                    item.meta["oxs_module"] = module
                    self.bind(o, item)
        return out


class _SymbolicRecorder(_Recorder):
    """The recorder over FakeTensorMode with a ShapeEnv: dims named by
    dynamic_shapes are SymInts, so every size the model computes from them is
    an expression torch keeps (several dynamic dims in one view, sizes passed
    to ops), with no second trace."""

    def __init__(self, graph, stack, state, covered, fake):
        super().__init__(graph, stack, state, covered)
        self.fake = fake

    def stand_in(self, a):
        from torch._subclasses.fake_tensor import FakeTensor

        if isinstance(a, torch.Tensor) and not isinstance(a, FakeTensor) and a.device.type != "meta":
            return self.node_of(a).meta["val"]
        return a

    def make_stand_in(self, t):
        return self.fake.from_tensor(t.detach().to("meta"), static_shapes=True)

    def unbacked(self, out):
        from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

        return bool(free_unbacked_symbols(out))

    def run_kwargs(self, func, kwargs):
        # Tensors the model creates (torch.zeros(n, ...)) live on the meta
        # device with the rest; the recorded node keeps what the model said.
        if "device" in kwargs or any(a.name == "device" and a.kwarg_only
                                     for a in func._schema.arguments):
            return dict(kwargs, device=torch.device("meta"))
        return kwargs


def _trace_recorded(model, args, kwargs, state, covered=None, dynamic=None, whole_ops=False):
    """Runs the model once under the recorder: on meta tensors, or (dynamic:
    {flat input index: {dim: symbol name}}) on fake tensors whose dynamic
    dims are symbols of a ShapeEnv (returned as graph.shape_env, with
    graph.symbols: {name: (sympy symbol, example size)})."""
    graph = Graph()
    fake = None
    if dynamic:
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

        env = ShapeEnv()
        fake = FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
        graph.shape_env = env
        graph.symbols = {}

        def stand_in_of(t):
            # On the meta device, as in the meta recorder: torch picks the
            # same kernels (no CPU-only paths such as SDPA's math backend).
            return fake.from_tensor(t.detach().to("meta"), static_shapes=True)
    else:
        def stand_in_of(t):
            return torch.empty_like(t, device="meta")

    meta_state = {}
    for name, t in state.items():
        ph = graph.add("placeholder", name, base=name)
        ph.meta["oxs_state"] = name
        ph.meta["val"] = meta_state[name] = stand_in_of(t)
    flat, spec = tree_flatten((tuple(args), dict(kwargs)))
    meta_flat = []
    for i, a in enumerate(flat):
        if isinstance(a, torch.Tensor):
            ph = graph.add("placeholder", f"input_{i}", base=f"input_{i}")
            dims = (dynamic or {}).get(i)
            if dims:
                sizes = []
                for d, n in enumerate(a.shape):
                    name = dims.get(d)
                    if name is None:
                        sizes.append(int(n))
                        continue
                    if name not in graph.symbols:
                        sym = env.create_symbol(int(n), _dim_source(name),
                                                dynamic_dim=DimDynamic.DYNAMIC)
                        graph.symbols[name] = (sym, int(n))
                    sym = graph.symbols[name][0]
                    sizes.append(env.create_symintnode(sym, hint=int(n)))
                with fake:
                    m = torch.empty(sizes, dtype=a.dtype, device="meta")
            else:
                m = stand_in_of(a)
            ph.meta["val"] = m
            meta_flat.append((m, ph))
        else:
            meta_flat.append((a, None))
    margs, mkwargs = torch.utils._pytree.tree_unflatten([m for m, _ in meta_flat], spec)
    with torch.no_grad(), _module_paths(model, False) as stack, _plain_kernels():
        if fake is None:
            rec = _Recorder(graph, stack, state, covered)
        else:
            rec = _SymbolicRecorder(graph, stack, state, covered, fake)
        for name, ph in zip(state, [n for n in graph.nodes if n.op == "placeholder"]):
            rec.bind(meta_state[name], ph)
        for m, ph in meta_flat:
            if ph is not None:
                rec.bind(m, ph)
        whole = _WholeOps(rec) if whole_ops else contextlib.nullcontext()
        if fake is None:
            with rec, whole:
                out = torch.func.functional_call(model, meta_state, margs, mkwargs)
        else:
            with _python_kernels_in_rnns(model), fake, rec, whole:
                out = torch.func.functional_call(model, meta_state, margs, mkwargs)
        outs = []
        for o in tree_flatten(out)[0]:
            if isinstance(o, torch.Tensor):
                outs.append(rec.read(o, "the model's output"))
            else:
                outs.append(o)
    graph.add("output", "output", (tuple(outs),), base="output")
    return graph


class _WholeOps(torch.overrides.TorchFunctionMode):
    """Records F.scaled_dot_product_attention as one aten node (ONNX
    Attention at opset 23) instead of the ops torch decomposes it into."""

    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.nn.functional.scaled_dot_product_attention and not self.rec.paused:
            return self.rec.record_whole(torch.ops.aten.scaled_dot_product_attention.default,
                                         func, args, kwargs)
        return func(*args, **kwargs)


@contextlib.contextmanager
def _python_kernels_in_rnns(model):
    """Inside nn.LSTM/GRU/RNN, the Python dispatcher runs torch's SymInt-aware
    Python kernels of the recurrences (lstm.input's) rather than the C++ ones,
    which read sizes as ints and would make the dynamic dims static. Only
    there: elsewhere it would change the recorded ops (batch_norm's)."""
    from torch._dispatch.python import enable_python_dispatcher

    open_ = []
    handles = []

    def pre(_m, _inputs):
        ctx = enable_python_dispatcher()
        ctx.__enter__()
        open_.append(ctx)

    def post(_m, _inputs, _out):
        if open_:
            open_.pop().__exit__(None, None, None)

    for mod in model.modules():
        if isinstance(mod, torch.nn.RNNBase):
            handles.append(mod.register_forward_pre_hook(pre))
            handles.append(mod.register_forward_hook(post))
    try:
        yield
    finally:
        while open_:
            open_.pop().__exit__(None, None, None)
        for h in handles:
            h.remove()


_DIM_SOURCE = None


def _dim_source(name):
    """The ShapeEnv source of a dynamic dim. torch._dynamo.source's
    ConstantSource would import all of torch._dynamo (seconds on a first
    export); where torch's Source takes its name from _name_template (2.8+)
    a small source of our own does."""
    global _DIM_SOURCE
    if _DIM_SOURCE is None:
        import dataclasses
        import functools

        from torch._guards import GuardSource, Source

        if isinstance(inspect.getattr_static(Source, "name", None), functools.cached_property):
            @dataclasses.dataclass(frozen=True)
            class DimSource(Source):
                dim: str = ""

                @property
                def _name_template(self):
                    return self.dim

                @property
                def guard_source(self):
                    return GuardSource.CONSTANT

            _DIM_SOURCE = DimSource
        else:
            from torch._dynamo.source import ConstantSource

            _DIM_SOURCE = ConstantSource
    return _DIM_SOURCE(name)


@contextlib.contextmanager
def _plain_kernels():
    """Keeps torch from taking fused CPU paths while tracing: the
    MultiheadAttention/TransformerEncoder fast path
    (_native_multi_head_attention) and oneDNN's RNN kernels
    (mkldnn_rnn_layer) would be recorded instead of the ops they stand for."""
    fastpath = torch.backends.mha.get_fastpath_enabled()
    mkldnn = torch._C._get_mkldnn_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    torch._C._set_mkldnn_enabled(False)
    try:
        yield
    finally:
        torch.backends.mha.set_fastpath_enabled(fastpath)
        torch._C._set_mkldnn_enabled(mkldnn)


def trace(model, args, kwargs, mode="meta", covered=None, dynamic=None, whole_ops=False):
    """(graph, state, mode used): the traced graph (a Graph, or an fx.Graph
    from make_fx; see the module's docstring), the tensors its oxs_state
    placeholders name (parameters, buffers and any constant met while
    tracing) and the tracing mode that succeeded. mode "meta" falls back to
    "fake" when an op has no meta kernel. With `dynamic` ({flat input index:
    {dim: name}}) the recorder runs on fake tensors with symbolic dims
    ("symbolic"). covered (_decomp.Covered): ops no function takes are
    replaced by torch's decompositions."""
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"export: model is a {type(model).__name__}, not a torch.nn.Module")
    model.eval()
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    state = {k: v.detach() for k, v in state.items()}
    if dynamic:
        traced_state = dict(state)
        try:
            graph = _trace_recorded(model, args, kwargs, traced_state, covered, dynamic,
                                    whole_ops)
        except ExportError:
            raise
        except Exception as e:
            raise _symbolic_error(e) from None
        graph.eliminate_dead_code()
        return graph, _used_state(graph, traced_state), "symbolic"
    if mode == "meta":
        traced_state = dict(state)  # the recorder adds the constants it meets
        try:
            graph = _trace_recorded(model, args, kwargs, traced_state, covered,
                                    whole_ops=whole_ops)
            graph.eliminate_dead_code()
            return graph, _used_state(graph, traced_state), "meta"
        except ExportError:
            raise
        except RuntimeError as e:
            if _reads_value(e):
                raise ExportError(_DATA_DEPENDENT) from None
            mode = "fake"  # an op without a meta kernel: trace with fake tensors
        except NotImplementedError:
            mode = "fake"
    return _trace_make_fx(model, args, kwargs, state, mode, covered) + (mode,)


def _symbolic_error(e):
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return ExportError(f"export: tracing with symbolic dynamic dims failed: {type(e).__name__}: "
                       f"{text}")


def _reads_value(e) -> bool:
    text = str(e)
    return ("meta tensor" in text or "meta tensors" in text) and (
        "item" in text or "_local_scalar_dense" in text or "bool" in text.lower() or
        "data" in text)


def _used_state(graph, state):
    used = {n.meta["oxs_state"] for n in graph.nodes
            if n.op == "placeholder" and "oxs_state" in n.meta and n.users}
    return {k: v for k, v in state.items() if k in used}


class _Decompositions(dict):
    """make_fx's decomposition_table: torch's decomposition of each op no
    function takes (_decomp.Covered), looked up lazily."""

    def __init__(self, covered):
        super().__init__()
        self.covered = covered

    def __contains__(self, op):
        return self.covered is not None and self.covered.decomposition(op) is not None

    def __getitem__(self, op):
        fn = self.covered.decomposition(op) if self.covered is not None else None
        if fn is None:
            raise KeyError(op)
        return fn

    def get(self, op, default=None):
        return self[op] if op in self else default


def _trace_make_fx(model, args, kwargs, state, mode, covered=None):
    names = list(state)

    def forward(state_values, args, kwargs):
        return torch.func.functional_call(model, dict(zip(names, state_values)), args, kwargs)

    try:
        with torch.no_grad(), _module_paths(model, True), _plain_kernels():
            gm = make_fx(forward, tracing_mode=mode, decomposition_table=_Decompositions(covered))(list(state.values()), tuple(args), dict(kwargs))
    except torch._subclasses.fake_tensor.DynamicOutputShapeException as e:
        raise ExportError(
            f"export: {e} has an output shape that depends on the input's values; the trace "
            "cannot give it a static shape: compute it outside the model or avoid the op") from None
    except RuntimeError as e:
        if "data-dependent control flow" in str(e) or "value out of a tracing tensor" in str(e):
            raise ExportError(_DATA_DEPENDENT) from None
        raise
    graph = gm.graph
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    for n in graph.nodes:
        if n.op == "call_function" and free_unbacked_symbols(n.meta.get("val")):
            from torch._subclasses.fake_tensor import DynamicOutputShapeException

            trace = n.meta.get("stack_trace") or ""
            last = [ln.strip() for ln in trace.strip().splitlines()[-2:]]
            raise _value_dependent(DynamicOutputShapeException(n.target), n.target,
                                   [n.meta.get("oxs_module", "")], None) from ValueError(
                                       " ".join(last))
    graph.eliminate_dead_code()
    if mode != "symbolic" and any(_changes_metadata(n) for n in graph.nodes):
        _snapshot_vals(gm, list(state.values()), tuple(args), dict(kwargs))
    phs = [n for n in graph.nodes if n.op == "placeholder"]
    for name, ph in zip(names, phs):
        ph.meta["oxs_state"] = name
    return graph, _used_state(graph, state)


# In-place ops that change a tensor's sizes or strides rather than its values.
_METADATA_OPS = {"transpose_", "t_", "squeeze_", "unsqueeze_", "swapdims_", "swapaxes_",
                 "as_strided_", "resize_", "resize_as_", "set_"}


def _changes_metadata(n):
    return n.op == "call_function" and \
        getattr(n.target, "__name__", "").split(".")[0] in _METADATA_OPS


def _snapshot_vals(gm, *inputs):
    """make_fx keeps each node's output tensor as meta["val"]; an in-place
    op that later changes that tensor's sizes (nn.GRU's batch_first
    `transpose_`) changes the recorded value too, so the node would claim the
    later shape. Run the graph again on fake tensors and keep a meta copy of
    each output as it is produced."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    class Sizes:  # a tensor's sizes as they are now (no meta tensor can be made in fake mode)
        def __init__(self, t):
            self.shape, self.stride, self.dtype = tuple(t.shape), tuple(t.stride()), t.dtype

    def describe(t):
        return Sizes(t) if isinstance(t, torch.Tensor) else t

    def meta_of(d):
        if isinstance(d, Sizes):
            return torch.empty_strided(d.shape, d.stride, dtype=d.dtype, device="meta")
        return d

    seen = []

    class Snapshot(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            if n.op != "output":
                seen.append((n, _map(describe, result)))
            return result

    fake = FakeTensorMode()
    flat, _ = tree_flatten(inputs)
    fakes = [fake.from_tensor(t) if isinstance(t, torch.Tensor) else t for t in flat]
    with fake, torch.no_grad():
        Snapshot(gm).run(*fakes)
    for n, d in seen:
        n.meta["val"] = _map(meta_of, d)
