"""The seed examples compiled from real files: eager results against numpy
formulas, to_model_proto() against onnx's checker and ONNX Runtime."""

import math

import numpy as np
import onnx
import pytest

import oxs
from conftest import HERE, check_with_onnx, load_example, run_ort

RNG = np.random.default_rng(12)


def numpy_hardmax(x, axis):
    out = np.zeros_like(x)
    idx = np.expand_dims(np.argmax(x, axis=axis), axis)
    np.put_along_axis(out, idx, 1, axis=axis)
    return out


def numpy_gelu_erf(x):
    return x * 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0))).astype(np.float32)


def numpy_gemmgelu(a, w, b):
    x = a @ w + b
    return 0.5 * x * (1.0 + np.tanh(0.797885 * x + 0.035677 * x * x * x))


def test_hardmax_eager_matches_numpy_on_both_axes():
    m = load_example("hardmax")
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    for axis in (0, 1):
        np.testing.assert_array_equal(m.onnx_hardmax(x, axis=axis), numpy_hardmax(x, axis))


def test_hardmax_model_passes_onnx_checker_and_matches_ort():
    m = load_example("hardmax")
    proto = m.sample_model.to_model_proto()
    assert isinstance(proto, onnx.ModelProto)
    check_with_onnx(proto)
    assert [f.name for f in proto.functions] == ["onnx_hardmax"]
    x = RNG.standard_normal((64, 128)).astype(np.float32)
    wt = RNG.standard_normal((128, 10)).astype(np.float32)
    bias = RNG.standard_normal(10).astype(np.float32)
    expected = numpy_hardmax(x @ wt + bias, 1)
    np.testing.assert_array_equal(m.sample_model(x, wt, bias), expected)
    (ort_out,) = run_ort(proto.SerializeToString(), {"X": x, "Wt": wt, "Bias": bias})
    np.testing.assert_array_equal(ort_out, expected)


def test_gelu_eager_and_model_agree_with_numpy_and_ort():
    m = load_example("gelu")
    x = np.linspace(-4, 4, 17, dtype=np.float32)
    np.testing.assert_allclose(m.gelu(x), numpy_gelu_erf(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(m.gelu_model(x), numpy_gelu_erf(x), rtol=1e-6, atol=1e-6)
    proto = m.gelu_model.to_model_proto()
    check_with_onnx(proto)
    (ort_out,) = run_ort(proto.SerializeToString(), {"X": x})
    np.testing.assert_allclose(ort_out, numpy_gelu_erf(x), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n,chunks", [(10, 10), (23, 10), (7, 3), (1, 4)])
def test_chunk_eager_matches_numpy_array_split(n, chunks):
    m = load_example("chunk")
    x = np.arange(n, dtype=np.float32)
    got = m.aten_chunk(x, chunks=chunks)
    per = -(-n // chunks)
    expected = [x[i:i + per] for i in range(0, n, per)]
    assert isinstance(got, list)
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]


def test_chunk_model_is_a_sequence_model_onnx_accepts():
    m = load_example("chunk")
    proto = m.ten_chunks_model.to_model_proto()
    check_with_onnx(proto)
    assert proto.graph.output[0].type.HasField("sequence_type")
    out = oxs.run(oxs.from_onnx(proto), {"x": np.arange(23, dtype=np.float32)})
    assert [len(t) for t in out[proto.graph.output[0].name]] == [3, 3, 3, 3, 3, 3, 3, 2]


def test_gemmgelu_eager_matches_numpy_and_ort():
    m = load_example("gemmgelu")
    a = RNG.standard_normal((2048, 16)).astype(np.float32)
    w = (RNG.standard_normal((16, 4096)) * 0.25).astype(np.float32)
    b = RNG.standard_normal(4096).astype(np.float32)
    expected = numpy_gemmgelu(a, w, b)
    np.testing.assert_allclose(m.gemmgelu(a, w, b), expected, rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(m.gemmgelu_any(a[:5], w, b), expected[:5], rtol=2e-4, atol=2e-5)
    proto = m.gemmgelu.to_model_proto()
    check_with_onnx(proto)
    (ort_out,) = run_ort(proto.SerializeToString(), {"A": a, "W": w, "Bias": b})
    np.testing.assert_allclose(ort_out, expected, rtol=2e-4, atol=2e-5)


def test_closures_over_python_values_and_script_functions():
    m = load_example("closures")
    bias = np.array([0.5, -0.5, 1.0], dtype=np.float32)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for scale, center in ((2.0, True), (0.5, False)):
        f = m.make_model(scale, bias, center)
        y = np.log(np.exp(x * scale + bias) + 1.0) * np.pi
        if center:
            y = y - y.mean(axis=1, keepdims=True)
        expected = y / (np.abs(y).max(axis=1, keepdims=True) + 1e-6)
        np.testing.assert_allclose(f(x), expected, rtol=1e-5, atol=1e-6)
        proto = f.to_model_proto()
        check_with_onnx(proto)
        assert sorted(fn.name for fn in proto.functions) == ["shifted", "softplus"]
        (ort_out,) = run_ort(proto.SerializeToString(), {"x": x})
        np.testing.assert_allclose(ort_out, expected, rtol=1e-5, atol=1e-6)


def test_compiled_function_properties():
    m = load_example("hardmax")
    f = m.onnx_hardmax
    assert f.source.lstrip().startswith("@script()\ndef onnx_hardmax(X, axis: int):")
    fp = f.to_function_proto()
    assert isinstance(fp, onnx.FunctionProto)
    assert fp.name == "onnx_hardmax" and list(fp.attribute) == ["axis"]
    model = m.sample_model.to_model()
    assert isinstance(model, oxs.Model)
    assert [n.op_type for n in model.graph.nodes] == ["MatMul", "Add", "onnx_hardmax"]
    assert model.graph.inputs[0].shape == (64, 128)
    assert model.opset_imports[""] == 15


def test_compat_runs_unedited_onnxscript_files():
    # tests/script/scripts/*.py import onnxscript; oxs.compat makes that import
    # resolve to oxs (in a child process: it changes sys.modules).
    import os
    import subprocess
    import sys
    import textwrap

    scripts = HERE.parent / "script" / "scripts"
    code = textwrap.dedent(f"""
        import importlib.util, math, sys
        import numpy as np
        import oxs.compat
        import onnxscript, oxs
        assert onnxscript is oxs
        from onnxscript import opset15
        from onnxscript.onnx_opset import opset17
        def load(name):
            spec = importlib.util.spec_from_file_location(name, {str(scripts)!r} + "/" + name + ".py")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
        gelu = load("gelu")
        x = np.linspace(-3, 3, 7, dtype=np.float32)
        want = x * 0.5 * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x], np.float32))
        np.testing.assert_allclose(gelu.gelu_model(x), want, rtol=1e-6, atol=1e-6)
        leaky = load("leaky_relu")
        print("ok", type(gelu.gelu_model.to_model_proto()).__name__)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok ModelProto"
