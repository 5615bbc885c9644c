#!/usr/bin/python3
"""Generates the bundled example model and the CLI tests' bad models.

Run once with Debian's python3-onnx (/usr/bin/python3, not a pyenv python):
    /usr/bin/python3 examples/models/make_models.py
The outputs are committed; the build never runs this script.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEST_DATA = os.path.join(ROOT, "tests", "cli", "data")


def make_model(graph, opset=17, **kwargs):
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="oxs-examples",
        producer_version="0.1",
        **kwargs,
    )
    model.ir_version = 8
    return model


def mlp():
    """A 2-layer MLP classifier: X[N,4] -> Gemm -> Relu -> Gemm -> Softmax -> Y[N,3]."""
    rng = np.random.RandomState(7)
    # Two decimals keep `oxs print` readable.
    w1 = numpy_helper.from_array(rng.uniform(-1, 1, (8, 4)).round(2).astype(np.float32), "W1")
    b1 = numpy_helper.from_array(np.linspace(-0.1, 0.1, 8).round(2).astype(np.float32), "B1")
    w2 = numpy_helper.from_array(rng.uniform(-1, 1, (3, 8)).round(2).astype(np.float32), "W2")
    b2 = numpy_helper.from_array(np.array([0.5, 0.0, -0.5], np.float32), "B2")
    nodes = [
        helper.make_node("Gemm", ["X", "W1", "B1"], ["H"], name="fc1", transB=1),
        helper.make_node("Relu", ["H"], ["A"], name="relu1"),
        helper.make_node("Gemm", ["A", "W2", "B2"], ["logits"], name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["Y"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3])],
        initializer=[w1, b1, w2, b2],
        value_info=[helper.make_tensor_value_info("H", TensorProto.FLOAT, ["N", 8])],
    )
    graph.doc_string = "A tiny classifier: 4 features, 8 hidden units, 3 classes."
    model = make_model(graph)
    onnx.checker.check_model(model, full_check=True)
    return model


def iris_pipeline():
    """A scikit-learn style pipeline in ai.onnx.ml: X[N,4] -> Imputer (NaN -> 0) -> Scaler
    -> TreeEnsembleClassifier (2 trees, 3 classes, SOFTMAX) -> label[N] and a ZipMap of
    class probabilities seq(map(string, float))."""
    ml = "ai.onnx.ml"
    classes = ["setosa", "versicolor", "virginica"]
    # Tree 0 splits on petal length (feature 2), tree 1 on petal width (feature 3).
    # Leaves (node ids 1, 3, 4 in each tree) vote for one class each.
    tree = dict(
        nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1, 1, 1],
        nodes_nodeids=[0, 1, 2, 3, 4, 0, 1, 2, 3, 4],
        nodes_featureids=[2, 0, 2, 0, 0, 3, 0, 3, 0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "BRANCH_LEQ", "LEAF", "LEAF"] * 2,
        nodes_values=[-0.5, 0, 0.6, 0, 0, -0.6, 0, 0.5, 0, 0],
        nodes_truenodeids=[1, 0, 3, 0, 0, 1, 0, 3, 0, 0],
        nodes_falsenodeids=[2, 0, 4, 0, 0, 2, 0, 4, 0, 0],
        class_treeids=[0, 0, 0, 1, 1, 1],
        class_nodeids=[1, 3, 4, 1, 3, 4],
        class_ids=[0, 1, 2, 0, 1, 2],
        class_weights=[1.0, 1.0, 1.0, 1.5, 1.5, 1.5],
    )
    nodes = [
        helper.make_node("Imputer", ["X"], ["Xi"], name="impute", domain=ml,
                         imputed_value_floats=[0.0], replaced_value_float=float("nan")),
        helper.make_node("Scaler", ["Xi"], ["Xs"], name="scale", domain=ml,
                         offset=[5.8, 3.0, 3.8, 1.2], scale=[1.2, 2.3, 0.57, 1.3]),
        helper.make_node("TreeEnsembleClassifier", ["Xs"], ["label", "scores"], name="forest",
                         domain=ml, classlabels_strings=classes, post_transform="SOFTMAX",
                         **tree),
        helper.make_node("ZipMap", ["scores"], ["probabilities"], name="zipmap", domain=ml,
                         classlabels_strings=classes),
    ]
    prob_map = onnx.TypeProto()
    prob_map.map_type.key_type = TensorProto.STRING
    prob_map.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    graph = helper.make_graph(
        nodes,
        "iris_pipeline",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 4])],
        [
            helper.make_tensor_value_info("label", TensorProto.STRING, ["N"]),
            helper.make_value_info("probabilities", helper.make_sequence_type_proto(prob_map)),
        ],
    )
    graph.doc_string = "Imputer, Scaler, a 2-tree forest and ZipMap, as converted classifiers look."
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ml, 3)],
        producer_name="oxs-examples",
        producer_version="0.1",
    )
    model.ir_version = 8
    # libonnx 1.12's full check aborts on ZipMap's map type; the plain checker runs.
    onnx.checker.check_model(model)
    return model


def bad_arity():
    """Gemm with one input: the ONNX checker rejects it."""
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["X"], ["Y"], name="lonely_gemm")],
        "bad_arity",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 2])],
    )
    return make_model(graph)


def bad_shape():
    """A declared output shape that contradicts Add's inferred [2,2]."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["X", "X"], ["Y"], name="add")],
        "bad_shape",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 5])],
    )
    return make_model(graph)


def bad_ops():
    """Misspelt op names: every one is reported, with suggestions."""
    graph = helper.make_graph(
        [
            helper.make_node("Reul", ["X"], ["H"], name="typo1"),
            helper.make_node("Softmaxx", ["H"], ["Y"], name="typo2"),
        ],
        "bad_ops",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 2])],
    )
    return make_model(graph)


def main():
    os.makedirs(TEST_DATA, exist_ok=True)
    onnx.save(mlp(), os.path.join(HERE, "mlp.onnx"))
    onnx.save(iris_pipeline(), os.path.join(HERE, "iris_pipeline.onnx"))
    onnx.save(bad_arity(), os.path.join(TEST_DATA, "bad_arity.onnx"))
    onnx.save(bad_shape(), os.path.join(TEST_DATA, "bad_shape.onnx"))
    onnx.save(bad_ops(), os.path.join(TEST_DATA, "bad_ops.onnx"))
    with open(os.path.join(TEST_DATA, "garbage.onnx"), "wb") as f:
        f.write(b"this is not a protobuf \xff\xfe\x00\x01 model\n" * 4)


if __name__ == "__main__":
    main()
