"""`op.Relu(x)` outside a script function: one node, built with the schema-
checked builder from the arguments' types and run on the evaluator, as
onnxscript's eager op calls do. Outputs: the op's required outputs (a tuple
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


def run_op(opset, name: str, args, attrs: dict):
    domain = "" if opset.domain == "ai.onnx" else opset.domain
    n_out = attrs.pop("_num_outputs", None)
    outputs = _core.op_outputs(domain, name, opset.version)
    if n_out is None:
        if any(kind == "variadic" for _, kind in outputs):
            raise TypeError(f"{opset!r}.{name}: the number of outputs is variadic; "
                            "pass _num_outputs=N")
        n_out = sum(1 for _, kind in outputs if kind == "single") or len(outputs)
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
