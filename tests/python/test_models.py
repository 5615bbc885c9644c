"""oxs.Model and the model functions, against onnx's own reading of the files."""

import os
import pathlib

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh
import pytest

import oxs
from conftest import HERE

MODELS = HERE.parent.parent / "examples" / "models"
MLP = MODELS / "mlp.onnx"


def test_model_read_access_matches_onnx():
    m = oxs.load(MLP)
    p = onnx.load(str(MLP))
    assert m.ir_version == p.ir_version
    assert m.opset_imports == {o.domain: o.version for o in p.opset_import}
    g = m.graph
    assert [v.name for v in g.inputs] == [i.name for i in p.graph.input]
    assert g.inputs[0].shape == ("N", 4)
    assert g.inputs[0].dtype == np.float32
    assert [n.op_type for n in g.nodes] == [n.op_type for n in p.graph.node]
    assert [[v.name for v in n.inputs] for n in g.nodes] == [list(n.input) for n in p.graph.node]
    gemm = g.nodes[0]
    assert gemm.attributes == {a.name: oh.get_attribute_value(a) for a in p.graph.node[0].attribute}
    inits = g.initializers
    for t in p.graph.initializer:
        np.testing.assert_array_equal(inits[t.name], onh.to_array(t))


def test_run_matches_a_numpy_formula():
    m = oxs.load(MLP)
    w = m.graph.initializers
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    h = np.maximum(x @ w["W1"].T + w["B1"], 0)
    logits = h @ w["W2"].T + w["B2"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out = oxs.run(m, {"X": x})
    np.testing.assert_allclose(out["Y"], e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_run_rejects_an_unknown_input_name():
    with pytest.raises(ValueError, match="no input 'Z'.*inputs: X"):
        oxs.run(oxs.load(MLP), {"Z": np.zeros((1, 4), np.float32)})


def test_run_returns_sequences_and_maps():
    m = oxs.load(MODELS / "iris_pipeline.onnx")
    x = np.load(HERE.parent.parent / "examples" / "data" / "iris_x.npy")
    out = oxs.run(m, {"X": x})
    assert out["label"].tolist() == ["setosa", "versicolor", "virginica", "virginica"]
    probs = out["probabilities"]
    assert isinstance(probs, list) and len(probs) == 4
    assert set(probs[0]) == {"setosa", "versicolor", "virginica"}
    assert abs(sum(probs[0].values()) - 1.0) < 1e-5


def test_save_with_external_data_and_load_back(tmp_path):
    m = oxs.load(MLP)
    path = tmp_path / "mlp_ext.onnx"
    oxs.save(m, path, external_data=64)
    assert (tmp_path / "mlp_ext.onnx.data").stat().st_size > 0
    back = oxs.load(path)
    assert not oxs.diff(m, back)
    for k, v in m.graph.initializers.items():
        np.testing.assert_array_equal(back.graph.initializers[k], v)
    with pytest.raises(TypeError, match="external_data takes"):
        oxs.save(m, tmp_path / "x.onnx", external_data="yes")


def test_load_error_names_the_file(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(oxs.Error, match="bad.onnx"):
        oxs.load(bad)
    with pytest.raises(oxs.Error):
        oxs.load(tmp_path / "missing.onnx")


def test_check_reports_unknown_ops_with_suggestions():
    g = oh.make_graph([oh.make_node("Reul", ["x"], ["y"], name="typo")], "g",
                      [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])])
    proto = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])
    with pytest.raises(oxs.CheckError) as info:
        oxs.check(proto)
    assert "Reul" in str(info.value) and "Relu" in str(info.value)
    oxs.check(oxs.load(MLP))  # a valid model passes


def test_infer_shapes_fills_intermediate_types():
    m = oxs.infer_shapes(oxs.load(MLP))
    relu = next(n for n in m.graph.nodes if n.op_type == "Relu")
    assert relu.outputs[0].shape == ("N", 8)
    assert relu.outputs[0].dtype == np.float32


def test_decompile_and_diff():
    m = oxs.load(MLP)
    src = oxs.decompile(m)
    assert "@script()" in src and "def mlp(" in src
    other = oxs.from_onnx(onnx.load(str(MODELS / "iris_pipeline.onnx")))
    d = oxs.diff(m, other)
    assert d and "differ" in str(d) or str(d)
    assert not oxs.diff(m, oxs.from_onnx(m.to_onnx()))


def test_to_onnx_and_from_onnx_round_trip():
    m = oxs.load(MLP)
    p = m.to_onnx()
    assert isinstance(p, onnx.ModelProto)
    onnx.checker.check_model(p, full_check=True)
    assert p == onnx.load(str(MLP))
    with pytest.raises(TypeError):
        oxs.run(42, {})
