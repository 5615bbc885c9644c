"""`op.Relu(x)` outside a script function: one node, built with the schema-
checked builder from the arguments' types and run on the evaluator, as
onnxscript's eager op calls do. With GraphBuilder values among the inputs
(oxs.GraphBuilder, a trace-only ATen function at export time), or while a
builder is on GRAPH_BUILDERS, the node is added to that builder instead and
its values are returned. Outputs: the op's required outputs (a tuple
when there are several); a variadic output needs `_num_outputs=`."""

from __future__ import annotations

import numpy as np

from . import _core


def _as_array(v, i):
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, np.generic):
        return np.asarray(v)
    try:
        a = np.asarray(v)
    except ValueError as e:
        raise TypeError(f"input {i}: cannot be a tensor ({e})") from None
    if a.dtype == np.float64:
        a = a.astype(np.float32)
    elif a.dtype.kind == "i":
        a = a.astype(np.int64)
    elif a.dtype.kind in "OUS":
        a = a.astype(object)
    return a


# numpy dtypes of ONNX element types (constants made in graph mode).
_NUMPY_OF_ONNX = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
                  7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32,
                  13: np.uint64}


def _graph_constant(b, value, dtype, i):
    """A Python number, list or numpy array as a constant of `b` (a Constant
    node in function bodies), of ONNX element type `dtype` when given."""
    if dtype is not None and not isinstance(value, np.ndarray):
        np_type = _NUMPY_OF_ONNX.get(dtype)
        if np_type is None:  # bfloat16 and others numpy lacks: a float constant, cast
            c = b.initializer("", np.asarray(value, dtype=np.float32))
            return b.op("Cast", [c], {"to": dtype})
        return b.initializer("", np.asarray(value, dtype=np_type))
    return b.initializer("", _as_array(value, i))


# Ops that take their axes as an input from opset 18 (an attribute before).
_AXES_INPUT_18 = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceLogSumExp",
                  "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceSumSquare"}

# Concrete input types of schemas (Reshape's shape: "tensor(int64)").
_CONCRETE = {"tensor(int64)": 7, "tensor(int32)": 6, "tensor(float)": 1, "tensor(bool)": 9,
             "tensor(double)": 11, "tensor(float16)": 10}


# GraphBuilders that op.X(...) adds to even without builder values among the
# inputs (a trace-only function's body while it runs: oxs.torch._trace_only).
GRAPH_BUILDERS: list = []


def _graph_op(opset, domain, name, args, attrs, n_out, values):
    """op.X(...) with GraphBuilder values among the inputs: adds the node to
    their builder (trace-only ATen functions run this way at export time).
    Python numbers and lists become constants of the element type another
    input bound to the same type constraint has (as onnxscript's tracer
    does), else float32 / int64."""
    b = values[0].builder if values else GRAPH_BUILDERS[-1]
    if domain == "" and name in _AXES_INPUT_18 and len(args) > 1 and b.opset < 18 and \
            not isinstance(args[1], _core.BuilderValue) and args[1] is not None:
        # Written for opset 18 (axes as an input), built at 13..17 (an attribute).
        attrs = dict(attrs, axes=[int(a) for a in np.asarray(args[1]).reshape(-1)])
        args = (args[0],) + tuple(args[2:])
    formal = _core.op_inputs(domain, name, opset.version) if domain in ("", "ai.onnx.ml") else []

    def constraint(i):
        if i < len(formal):
            return formal[i][2]
        return formal[-1][2] if formal and formal[-1][1] == "variadic" else None

    known = dict(_CONCRETE)
    for i, a in enumerate(args):
        if isinstance(a, _core.BuilderValue) and a.dtype is not None:
            known.setdefault(constraint(i), a.dtype)
    inputs = []
    for i, a in enumerate(args):
        if a is None or isinstance(a, _core.BuilderValue):
            inputs.append(a)
            continue
        inputs.append(_graph_constant(b, a, known.get(constraint(i)), i))
    return b.op(name, inputs, attrs, domain=domain, num_outputs=n_out)


def run_op(opset, name: str, args, attrs: dict):
    domain = "" if opset.domain == "ai.onnx" else opset.domain
    n_out = attrs.pop("_num_outputs", None)
    outputs = _core.op_outputs(domain, name, opset.version)
    if n_out is None:
        if any(kind == "variadic" for _, kind in outputs):
            raise TypeError(f"{opset!r}.{name}: the number of outputs is variadic; "
                            "pass _num_outputs=N")
        n_out = sum(1 for _, kind in outputs if kind == "single") or len(outputs)
    values = [a for a in args if isinstance(a, _core.BuilderValue)]
    if values or GRAPH_BUILDERS:
        return _graph_op(opset, domain, name, args, attrs, n_out, values)
    b = _core.GraphBuilder(opset=opset.version if domain == "" else 17, name=name)
    feeds, inputs = {}, []
    for i, a in enumerate(args):
        if a is None:
            inputs.append(None)
            continue
        arr = _as_array(a, i)
        v = b.input(f"input_{i}", arr.dtype, arr.shape)
        feeds[f"input_{i}"] = arr
        inputs.append(v)
    outs = b.op(name, inputs, attrs, domain=domain, num_outputs=n_out)
    outs = outs if isinstance(outs, tuple) else (outs,)
    for k, o in enumerate(outs):
        b.output(o, f"output_{k}")
    model = b.finish()
    result = _core.run(model, feeds)
    values = tuple(result[f"output_{k}"] for k in range(len(outs)))
    return values[0] if len(values) == 1 else values
