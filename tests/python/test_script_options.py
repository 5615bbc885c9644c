"""@script() arguments, to_model_proto() fields, aliases and programmatic use."""

import numpy as np
import onnx
import pytest

import oxs
from oxs import FLOAT, Opset, script
from oxs.onnx_opset import opset15, opset17 as op

CUSTOM = Opset("com.example", 1)


@script(CUSTOM)
def custom_relu(x):
    return op.Relu(x)


@script(default_opset=opset15)
def uses_default(x):
    return x + 1.0  # the Add comes from the default opset


def plain(x):
    return op.Neg(x)


neg = script()(plain)  # no decorator in the source


def test_custom_domain_function_in_a_model():
    @script()
    def model(x: FLOAT[3]) -> FLOAT[3]:
        return custom_relu(x)

    proto = model.to_model_proto()
    onnx.checker.check_model(proto, full_check=True)
    assert [(f.domain, f.name) for f in proto.functions] == [("com.example", "custom_relu")]
    assert {o.domain: o.version for o in proto.opset_import}["com.example"] == 1
    np.testing.assert_array_equal(model(np.array([-1, 0, 2], np.float32)), [0, 0, 2])


def test_default_opset_is_used_for_operators():
    fp = uses_default.to_function_proto()
    assert {o.domain: o.version for o in fp.opset_import}[""] == 15
    np.testing.assert_array_equal(uses_default(np.zeros(2, np.float32)), [1, 1])


def test_script_applied_without_decorator_syntax():
    np.testing.assert_array_equal(neg(np.array([1.0], np.float32)), [-1.0])


def test_aliased_script_function_is_called_by_its_def_name():
    g = custom_relu

    @script()
    def calls_alias(x):
        return g(x) * 2.0

    assert sorted(f.name for f in calls_alias.to_library().functions) == ["calls_alias",
                                                                           "custom_relu"]
    np.testing.assert_array_equal(calls_alias(np.array([-1, 3], np.float32)), [0, 6])


def test_to_model_proto_fields():
    @script()
    def m(x: FLOAT[2]) -> FLOAT[2]:
        return op.Relu(x)

    p = m.to_model_proto(producer_name="me", ir_version=8)
    assert p.producer_name == "me" and p.ir_version == 8
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        m.to_model_proto(bogus=1)
    assert m.to_model() is m.to_model()  # compiled once


def test_numpy_constants_and_module_members():
    table = np.array([1.0, 2.0, 3.0], np.float32)

    @script()
    def f(x):
        return x * 2.0 + table + np.e

    np.testing.assert_allclose(f(np.zeros(3, np.float32)), table + np.e, rtol=1e-6)


def test_redefining_a_script_function_replaces_the_old_one():
    ns = {}
    src = "from oxs import script\nfrom oxs.onnx_opset import opset17 as op\n\n\n" \
          "@script()\ndef twice(x):\n    return x * {k}\n"
    import pathlib
    import tempfile

    d = pathlib.Path(tempfile.mkdtemp())
    for k in (2.0, 3.0):  # the second run sees the first `twice` in its globals
        path = d / f"redef_{int(k)}.py"
        path.write_text(src.format(k=k))
        exec(compile(path.read_text(), str(path), "exec"), ns)
        np.testing.assert_array_equal(ns["twice"](np.ones(1, np.float32)), [k])
