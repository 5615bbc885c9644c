#!/usr/bin/python3
"""Writes the hand-made hostile seeds of fuzz/corpus/ (run with Debian's
/usr/bin/python3 and its onnx 1.12; the outputs are committed, so this runs
only when a seed is added). Each seed is a small model that once crashed or
misled oxs, or one that exercises a guard: recursion among local
functions, a deep call chain, control characters in names, unsafe external
data locations, and deep subgraph nesting."""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, *parts):
    path = os.path.join(HERE, "corpus", *parts)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def fn(name, callee):
    node = helper.make_node(callee, ["x"], ["y"], domain="local" if callee != "Relu" else "")
    return helper.make_function("local", name, ["x"], ["y"], [node],
                                [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])


def model_calling(functions, name="g"):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    node = helper.make_node(functions[0].name, ["x"], ["y"], domain="local")
    graph = helper.make_graph([node], name, [x], [y])
    return helper.make_model(graph, functions=functions, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])


for folder in ("load_model", "decompile_roundtrip"):
    save(model_calling([fn("f", "f")]), folder, "recursive_function.onnx")
    save(model_calling([fn("a", "b"), fn("b", "c"), fn("c", "a")]), folder, "call_cycle.onnx")
    chain = [fn("f%d" % i, "f%d" % (i + 1)) for i in range(299)] + [fn("f299", "Relu")]
    save(model_calling(chain), folder, "call_chain_300.onnx")

    x = helper.make_tensor_value_info("x\x1b[31m", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y\x07\x9b", TensorProto.FLOAT, [2])
    node = helper.make_node("Relu", ["x\x1b[31m"], ["y\x07\x9b"], name="n\x1b]0;t\x07")
    m = helper.make_model(helper.make_graph([node], "g\x1b[2J", [x], [y]),
                          producer_name="p\x1b", opset_imports=[helper.make_opsetid("", 17)])
    save(m, folder, "control_chars.onnx")

    t = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../../etc/passwd"), ("offset", "0"), ("length", "16")):
        e = t.external_data.add()
        e.key, e.value = k, v
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [4])
    m = helper.make_model(helper.make_graph([], "g", [], [w], initializer=[t]),
                          opset_imports=[helper.make_opsetid("", 17)])
    save(m, folder, "external_traversal.onnx")

    # If nested 20 deep (the then-branch nests, the else-branch is flat):
    # recursion over subgraphs is bounded by protobuf's own nesting limit,
    # which this stays under.
    def leaf(i):
        return helper.make_graph([helper.make_node("Identity", ["x"], ["y%d" % i])], "b%d" % i, [],
                                 [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, [2])])
    inner = leaf(0)
    for i in range(1, 20):
        node = helper.make_node("If", ["c"], ["y%d" % i], then_branch=inner, else_branch=leaf(i))
        inner = helper.make_graph([node], "b%d" % i, [],
                                  [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, [2])])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    m = helper.make_model(helper.make_graph(inner.node, "g", [c, helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2])], list(inner.output)),
        opset_imports=[helper.make_opsetid("", 17)])
    save(m, folder, "nested_if_20.onnx")
