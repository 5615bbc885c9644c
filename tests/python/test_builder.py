"""oxs.GraphBuilder: the building API for tools such as the torch exporter."""

import numpy as np
import onnx
import pytest

import oxs
from conftest import check_with_onnx, load_example, run_ort


def test_build_a_model_with_initializers_nodes_and_a_library_function():
    gelu = load_example("gelu")
    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = oxs.GraphBuilder(opset=17, name="exported")
    x = b.input("x", np.float32, ("N", 4))
    weight = b.initializer("weight", w)
    y = b.op("MatMul", [x, weight])
    assert y.type == "float[N,3]"  # inferred as the node was created
    b.add_functions(gelu.gelu.to_library())
    z = b.call("gelu", [y])
    s = b.op("Softmax", [z], {"axis": -1})
    b.output(s, "probs")
    model = b.finish()
    assert [n.op_type for n in model.graph.nodes] == ["MatMul", "gelu", "Softmax"]
    np.testing.assert_array_equal(model.graph.initializers["weight"], w)
    proto = model.to_onnx()
    check_with_onnx(proto)
    xv = rng.standard_normal((5, 4)).astype(np.float32)
    got = oxs.run(model, {"x": xv})["probs"]
    (ort,) = run_ort(proto.SerializeToString(), {"x": xv})
    np.testing.assert_allclose(got, ort, rtol=1e-5, atol=1e-6)
    assert got.shape == (5, 3)


def test_attributes_are_typed_by_the_schema():
    b = oxs.GraphBuilder()
    x = b.input("x", np.float32, (2, 3))
    y = b.op("LeakyRelu", [x], {"alpha": 1})  # an int for a float attribute
    b.output(y)
    m = b.finish()
    assert m.graph.nodes[0].attributes == {"alpha": 1.0}
    np.testing.assert_allclose(oxs.run(m, {"x": -np.ones((2, 3), np.float32)})[m.graph.outputs[0].name],
                               -np.ones((2, 3)))


def test_builder_errors_are_clear():
    b = oxs.GraphBuilder()
    x = b.input("x", np.float32, (2, 3))
    with pytest.raises(oxs.Error, match="Reul"):
        b.op("Reul", [x])
    with pytest.raises(TypeError, match="attribute 'axis' takes an int"):
        b.op("Softmax", [x], {"axis": "last"})
    with pytest.raises(TypeError, match="node inputs are values"):
        b.op("Relu", [np.zeros(3)])
    with pytest.raises(ValueError, match="no function this.nope"):
        b.call("nope", [x])
    other = oxs.GraphBuilder()
    with pytest.raises(ValueError, match="another GraphBuilder"):
        other.op("Relu", [x])
    b.output(b.op("Relu", [x]))
    b.finish()
    with pytest.raises(ValueError, match="finished"):
        b.op("Relu", [x])
    with pytest.raises(ValueError, match="finished"):
        x.name
