"""Every error path of @script(), calls and eager runs."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import oxs
from conftest import EXAMPLES, HERE, load_example
from oxs.onnx_opset import opset15 as op
from oxs import FLOAT


def test_compile_error_has_the_same_text_as_oxs_compile():
    # The file imports onnxscript: oxs.compat makes that resolve to oxs, in a
    # child process so that this process's sys.modules stays clean.
    code = textwrap.dedent(f"""
        import sys, importlib.util
        import oxs.compat, oxs
        spec = importlib.util.spec_from_file_location("bad_ops", {str(EXAMPLES / 'bad_ops.py')!r})
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
        except oxs.CompileError as e:
            assert len(e.diagnostics) == 3, e.diagnostics
            print(str(e))
            sys.exit(0)
        sys.exit("no CompileError")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    cli = subprocess.run([os.environ["OXS_BIN"], "compile", str(EXAMPLES / "bad_ops.py"), "-o",
                          os.devnull], capture_output=True, text=True)
    assert cli.returncode == 1
    expected = "\n".join(l for l in cli.stderr.splitlines() if not l.startswith("oxs: error:"))
    assert r.stdout.rstrip("\n") == expected
    assert "bad_ops.py:8:12: error[E0302]: unknown op 'Reul' in ai.onnx opset 15" in r.stdout
    assert "hint: did you mean 'Relu'?" in r.stdout


def test_diagnostics_carry_file_line_column_of_an_indented_function():
    with pytest.raises(oxs.CompileError) as info:
        @oxs.script()
        def nested(x):
            return op.Sofmax(x)

    (d,) = info.value.diagnostics
    here = pathlib.Path(__file__).read_text().splitlines()
    line = next(i for i, l in enumerate(here, 1) if "return op.Sofmax(x)" in l and "here" not in l)
    assert d["file"] == __file__
    assert d["line"] == line
    assert d["column"] == here[line - 1].index("Sofmax") + 1
    assert d["code"] == "E0302" and "Softmax" in d["hint"]
    caret_line = d["text"].splitlines()[2]
    assert caret_line.index("^") == here[line - 1].index("Sofmax")


def test_unknown_python_object_is_a_compile_error_naming_it():
    class Thing:
        pass

    thing = Thing()
    with pytest.raises(oxs.CompileError) as info:
        @oxs.script()
        def uses_thing(x):
            return op.Add(x, thing)

    assert "thing" in str(info.value) or "Thing" in str(info.value)


def test_undefined_name_is_reported_with_its_line():
    with pytest.raises(oxs.CompileError) as info:
        @oxs.script()
        def uses_missing(x):
            return op.Add(x, not_defined_anywhere)  # noqa: F821

    assert "name 'not_defined_anywhere' is not defined" in str(info.value)
    assert re.search(r"test_script_errors\.py:\d+:\d+: error\[E0301\]", str(info.value))


def test_function_without_source_file_is_refused():
    ns = {"oxs": oxs, "op": op}
    exec("def f(x):\n    return op.Relu(x)\n", ns)
    with pytest.raises(oxs.CompileError, match="source of 'f' is not available"):
        oxs.script()(ns["f"])


def test_script_rejects_a_non_opset_argument():
    with pytest.raises(TypeError, match="takes an Opset"):
        oxs.script(default_opset=15)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        oxs.script(bogus=1)


def test_wrong_calls_raise_type_error_naming_the_parameter():
    m = load_example("hardmax")
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match="missing a required argument: 'axis'"):
        m.onnx_hardmax(x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axs'"):
        m.onnx_hardmax(x, axis=1, axs=1)
    with pytest.raises(TypeError, match="attribute 'axis' takes an int"):
        m.onnx_hardmax(x, axis="one")
    with pytest.raises(TypeError, match="too many positional arguments"):
        m.onnx_hardmax(x, 1, 2)


def test_eager_error_names_op_node_and_script_line():
    m = load_example("gemmgelu")
    a = np.zeros((3, 5), np.float32)
    w = np.zeros((4, 2), np.float32)
    b = np.zeros(2, np.float32)
    with pytest.raises(oxs.EagerError) as info:
        m.gemmgelu_body(a, w, b)
    text = str(info.value)
    src = (EXAMPLES / "gemmgelu.py").read_text().splitlines()
    line = next(i for i, l in enumerate(src, 1) if "X = op.MatMul(A, W) + Bias" in l)
    assert "MatMul" in text
    assert f"gemmgelu.py:{line}: X = op.MatMul(A, W) + Bias" in text


def test_eager_error_inside_a_called_function_points_into_it():
    m = load_example("gemmgelu")
    with pytest.raises(oxs.EagerError) as info:
        m.gemmgelu_any(np.zeros((3, 5), np.float32), np.zeros((4, 2), np.float32),
                       np.zeros(2, np.float32))
    assert "gemmgelu.py:" in str(info.value) and "MatMul" in str(info.value)


def test_two_script_functions_with_one_name_are_refused():
    def make(k):
        @oxs.script()
        def same(x):
            return x * k

        return same

    a, b = make(1.0), make(2.0)

    with pytest.raises(oxs.CompileError, match="two different script functions named 'same'"):
        @oxs.script()
        def both(x):
            return a(x) + b(x)


def test_ragged_list_input_is_refused():
    @oxs.script()
    def ident(x):
        return op.Identity(x)

    with pytest.raises(TypeError, match="input .x.*ragged"):
        ident([[1, 2], [3]])
