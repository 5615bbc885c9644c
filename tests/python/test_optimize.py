"""oxs.optimize: the rewriter's passes from Python, checked against the oxs
evaluator's outputs before and after, and against onnx's checker."""

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh
import pytest

import oxs


def chain_model():
    """y = Relu(Identity(x + 0) * 1) + Neg(Neg(x)), with x: float[2, 3]."""
    zero = onh.from_array(np.array(0, np.float32), "zero")
    one = onh.from_array(np.array(1, np.float32), "one")
    nodes = [
        oh.make_node("Add", ["x", "zero"], ["a"]),
        oh.make_node("Identity", ["a"], ["b"]),
        oh.make_node("Mul", ["b", "one"], ["c"]),
        oh.make_node("Relu", ["c"], ["r"]),
        oh.make_node("Neg", ["x"], ["n1"]),
        oh.make_node("Neg", ["n1"], ["n2"]),
        oh.make_node("Add", ["r", "n2"], ["y"]),
    ]
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])],
                      [zero, one])
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])


def two_input_add():
    g = oh.make_graph([oh.make_node("Add", ["x", "y"], ["z"])], "g",
                      [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [4]) for n in "xy"],
                      [oh.make_tensor_value_info("z", onnx.TensorProto.FLOAT, [4])])
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])


def ops(model):
    return [n.op_type for n in model.graph.nodes]


def test_default_pipeline_removes_the_identities_and_keeps_the_outputs():
    proto = chain_model()
    before = oxs.from_onnx(proto)
    after = oxs.optimize(proto, verify="equality")
    assert ops(after) == ["Relu", "Add"]
    assert ops(before) == ["Add", "Identity", "Mul", "Relu", "Neg", "Neg", "Add"]  # not changed
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    want = np.maximum(x, 0) + x
    np.testing.assert_array_equal(oxs.run(after, {"x": x})["y"], want)
    np.testing.assert_array_equal(oxs.run(before, {"x": x})["y"], want)
    onnx.checker.check_model(onnx.load_from_string(after.to_bytes()), full_check=True)


def test_named_passes_with_options_and_stats():
    out, stats = oxs.optimize(chain_model(), ["noop", "algebraic"],
                              return_stats=True)
    assert ops(out) == ["Relu", "Add"]
    assert [s["pass"] for s in stats] == ["noop", "algebraic"]
    assert stats[0]["nodes_before"] == 7 and stats[0]["nodes_after"] == 6
    assert stats[1]["applications"] == {"algebraic.AddZero": 1, "algebraic.MulOne": 1,
                                        "algebraic.NegNeg": 1}
    assert stats[1]["total_applications"] == 3 and stats[1]["nodes_after"] == 2
    # An option that exists, and one that does not.
    oxs.optimize(chain_model(), ["fold:max-elements=16"])
    with pytest.raises(ValueError, match="pass 'fold' has no option 'size'"):
        oxs.optimize(chain_model(), ["fold:size=16"])


def test_pass_list_and_default_pipeline():
    passes = oxs.list_passes()
    assert "cse" in passes and "merge" in passes["cse"]
    pipeline = oxs.default_pipeline()
    assert pipeline[-1] == "dce" and "infer" in pipeline
    assert set(pipeline) <= set(passes)


def test_unknown_pass_and_bad_arguments_are_clear_errors():
    # Usage errors of the core are ValueError (as for oxs.run).
    with pytest.raises(ValueError, match="unknown pass 'csee'.*did you mean 'cse'"):
        oxs.optimize(chain_model(), ["csee"])
    with pytest.raises(TypeError, match="list of pass names"):
        oxs.optimize(chain_model(), "cse")
    with pytest.raises(ValueError, match="no input 'q'"):
        oxs.optimize(chain_model(), ["cse"], verify="equality", inputs={"q": np.zeros(3)})
    with pytest.raises(ValueError, match="verify"):
        oxs.optimize(chain_model(), ["cse"], verify="roughly")


def test_a_wrong_pass_is_caught_and_bisected():
    with pytest.raises(oxs.Error) as e:
        oxs.optimize(two_input_add(), ["break-adds"], verify="equality")
    msg = str(e.value)
    assert "after pass 'break-adds'" in msg and "output 'z'" in msg
    assert "bisection: application 1 of 1" in msg and "rule 'BreakAdds'" in msg


def test_given_inputs_are_the_ones_verified():
    # With x == y, Add(x, x) equals Add(x, y): the wrong pass goes unnoticed,
    # which shows that verification ran on these inputs and not random ones.
    same = np.arange(4, dtype=np.float32)
    out = oxs.optimize(two_input_add(), ["break-adds"], verify="equality",
                       inputs={"x": same, "y": same})
    assert [n.inputs[0].name for n in out.graph.nodes] == ["x"]
    assert [n.inputs[1].name for n in out.graph.nodes] == ["x"]


def test_inputs_from_an_npz_archive(tmp_path):
    same = np.arange(4, dtype=np.float32)
    path = tmp_path / "ref.npz"
    np.savez(path, x=same, y=same)
    oxs.optimize(two_input_add(), ["break-adds"], verify="equality", inputs=path)
    np.savez(path, x=same, y=same + 1)
    with pytest.raises(oxs.Error, match="after pass 'break-adds'"):
        oxs.optimize(two_input_add(), ["break-adds"], verify="equality", inputs=str(path))
    with pytest.raises(ValueError, match="not a .npz"):
        oxs.optimize(two_input_add(), ["cse"], inputs=str(tmp_path / "ref.npy"))


def square_tanh_model():
    """y = Neg(Tanh(x * x)), with x: float[4]."""
    nodes = [oh.make_node("Mul", ["x", "x"], ["m"]), oh.make_node("Tanh", ["m"], ["t"]),
             oh.make_node("Neg", ["t"], ["y"])]
    g = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4])])
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)])


def square_tanh_library():
    """A model whose function lib.sq_tanh(v) = Tanh(v * v)."""
    fn = oh.make_function("lib", "sq_tanh", ["v"], ["r"],
                          [oh.make_node("Mul", ["v", "v"], ["s"]),
                           oh.make_node("Tanh", ["s"], ["r"])],
                          [oh.make_opsetid("", 17)])
    g = oh.make_graph([oh.make_node("sq_tanh", ["x"], ["y"], domain="lib")], "g",
                      [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4])],
                      [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4])])
    return oh.make_model(g, functions=[fn],
                         opset_imports=[oh.make_opsetid("", 17), oh.make_opsetid("lib", 1)])


def test_functions_from_a_library_are_outlined(tmp_path):
    x = np.array([-2, -0.5, 0.5, 3], np.float32)
    want = -np.tanh(x * x)
    path = tmp_path / "lib.onnx"
    onnx.save(square_tanh_library(), str(path))
    # The library as a path and as a ModelProto.
    for library in (str(path), square_tanh_library()):
        out = oxs.optimize(square_tanh_model(), ["outline", "dce"], verify="equality",
                           functions=library)
        assert ops(out) == ["sq_tanh", "Neg"]
        assert [(f.domain, f.name) for f in out.functions] == [("lib", "sq_tanh")]
        assert out.opset_imports.get("lib") == 1
        np.testing.assert_allclose(oxs.run(out, {"x": x})["y"], want, rtol=1e-6)
        onnx.checker.check_model(onnx.load_from_string(out.to_bytes()), full_check=True)
    # Without the library nothing matches (the model has no functions of its own).
    assert ops(oxs.optimize(square_tanh_model(), ["outline", "dce"])) == ["Mul", "Tanh", "Neg"]


def test_functions_without_the_outline_pass_is_a_clear_error():
    with pytest.raises(ValueError, match="functions= gives functions to the outline pass"):
        oxs.optimize(square_tanh_model(), ["cse"], functions=square_tanh_library())
