#!/usr/bin/python3
"""Generates the data files of the CLI tests that numpy and onnx must write
(so that oxs is tested against files it did not write itself).

    /usr/bin/python3 tests/cli/data/make_cli_data.py

The outputs are committed; the build never runs this script.
"""
import os

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
MLP = os.path.join(ROOT, "examples", "models", "mlp.onnx")

# Inputs for the MLP (X: float[N,4]) as np.savez (stored) and
# np.savez_compressed (deflated) archives.
x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
np.savez(os.path.join(HERE, "mlp_inputs.npz"), X=x)
np.savez_compressed(os.path.join(HERE, "mlp_inputs_compressed.npz"), X=x)
np.save(os.path.join(HERE, "mlp_x.npy"), x)
# An archive with an array that names no input of the MLP.
np.savez(os.path.join(HERE, "mlp_wrong_inputs.npz"), X=x, Z=x)

# The MLP with metadata_props, for `oxs info`.
m = onnx.load(MLP)
helper.set_model_props(m, {"author": "oxs tests", "license": "MIT"})
onnx.save(m, os.path.join(HERE, "mlp_metadata.onnx"))

# The MLP changed in several kinds of ways at once, for `oxs diff`: an
# operator (Relu -> Sigmoid), an attribute (Softmax axis -1 -> 1) and a
# weight (two elements of W1 changed).
m = onnx.load(MLP)
for n in m.graph.node:
    if n.op_type == "Relu":
        n.op_type = "Sigmoid"
    if n.op_type == "Softmax":
        n.attribute[0].i = 1
for i, t in enumerate(m.graph.initializer):
    if t.name == "W1":
        w = numpy_helper.to_array(t).copy()
        w[1, 2] += 0.5
        w[3, 0] -= 0.25
        m.graph.initializer[i].CopyFrom(numpy_helper.from_array(w, "W1"))
onnx.checker.check_model(m, full_check=True)
onnx.save(m, os.path.join(HERE, "mlp_changed.onnx"))

# Softmax at opset 11 over axis 1 of a rank-3 input: opset 11 flattens to
# 2-D around the axis, opset 13 normalizes along the axis alone, so converting
# up must rewrite the node (libonnx's Softmax 12 -> 13 adapter) for
# `oxs convert --opset 13` to keep the outputs.
graph = helper.make_graph(
    [helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=1)],
    "softmax11",
    [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3, 4])],
    [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3, 4])],
)
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
m.ir_version = 7
onnx.checker.check_model(m, full_check=True)
onnx.save(m, os.path.join(HERE, "softmax_opset11.onnx"))
